/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cov_forks.c — many fork children, each with work of its own.
 *
 *   cov_forks [N [SECONDS [exit|_exit]]]
 *
 * Forks N (default 12) children one after the other; each spins SECONDS
 * (default 0.03) of CPU in child_spin and leaves with exit(0) (or _exit(0):
 * no atexit handlers, the profile is written while the clock still runs),
 * while the parent spins as much in parent_spin between forks.  Exit 1 if a fork or
 * a child fails.
 */
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "monrun_common.h"

DEFINE_SPIN(parent_spin)
DEFINE_SPIN(child_spin)

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 12;
	double s = mr_seconds(argc > 2 ? argv[2] : NULL, 0.03);
	int quick = argc > 3 && strcmp(argv[3], "_exit") == 0;
	for (int i = 0; i < n; i++) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			child_spin(s);
			if (quick)
				_exit(0);
			exit(0);
		}
		parent_spin(s);
		int st;
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			return 1;
	}
	return 0;
}
