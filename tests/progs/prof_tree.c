/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * prof_tree.c — a process tree for prof_merge.sh: a server that forks a
 * process per request.
 *
 *   prof_tree N [SECONDS]
 *
 * The parent burns SECONDS (default 0.05) of CPU in parent_spin, then forks
 * N children at once (N from 0 to 64), each burning SECONDS in child_spin
 * before exit(3), and waits for them.  Prints "child_spin S" per child and
 * "parent_spin S" (CPU seconds measured by each).  Exit 0, or 1 when a
 * fork or a child fails.
 */
#include <sys/wait.h>
#include <unistd.h>

#include "monrun_common.h"

DEFINE_SPIN(parent_spin)
DEFINE_SPIN(child_spin)

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	double s = mr_seconds(argc > 2 ? argv[2] : NULL, 0.05);
	if (n < 0 || n > 64) {
		fprintf(stderr, "prof_tree: N from 0 to 64\n");
		return 1;
	}
	double used = parent_spin(s);
	fflush(stdout);
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			perror("prof_tree: fork");
			return 1;
		}
		if (pid == 0) {
			printf("child_spin %.6f\n", child_spin(s));
			exit(0);
		}
	}
	int status, bad = 0;
	for (int i = 0; i < n; i++)
		if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
			bad = 1;
	printf("parent_spin %.6f\n", used);
	return bad;
}
