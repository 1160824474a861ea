/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * monrun_fork.c — a program that forks a child which works on its own.
 *
 *   monrun_fork [SECONDS]
 *
 * The parent burns SECONDS (default 0.3) in parent_spin, forks, and burns
 * as much again in parent_spin while the child burns SECONDS in child_spin
 * and exits with exit(3) (status 0).  The parent waits for the child and
 * prints "child PID", "parent_spin S" (the parent's CPU seconds in it, both
 * halves) and the child's line "child_spin S" comes from the child.  Exit 1
 * if the fork or the child fails.
 */
#include <sys/wait.h>
#include <unistd.h>

#include "monrun_common.h"

DEFINE_SPIN(parent_spin)
DEFINE_SPIN(child_spin)

int main(int argc, char **argv)
{
	double s = mr_seconds(argc > 1 ? argv[1] : NULL, 0.3);
	double used = parent_spin(s);
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		printf("child_spin %.6f\n", child_spin(s));
		exit(0);
	}
	used += parent_spin(s);
	int status;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "child %ld failed (status 0x%x)\n", (long)pid, status);
		return 1;
	}
	printf("child %ld\nparent_spin %.6f\n", (long)pid, used);
	return 0;
}
