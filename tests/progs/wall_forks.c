/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wall_forks — a parent that forks children one after another, each of
 * which sleeps and exits, for tests/integ/wall_forks.sh: under monrun -f
 * --wall --control each child starts its own control thread and wall
 * sampler, and the child's wall samples must hold neither the control
 * thread (monprof-ctl) nor the child's thread waiting for it.
 *
 *   wall_forks [CHILDREN [MS]]   (default 12 children, 60 ms each)
 *
 * Each child sleeps MS milliseconds in nanosleep(2) (child_sleep) and
 * exits with exit(3); the parent waits for each.  Prints "children N".
 * Exit 1 if a fork or a child fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) static void child_sleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 12;
	long ms = argc > 2 ? atol(argv[2]) : 60;
	for (int i = 0; i < n; i++) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			child_sleep(ms);
			exit(0);
		}
		int st;
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			return 1;
	}
	printf("children %d\n", n);
	return 0;
}
