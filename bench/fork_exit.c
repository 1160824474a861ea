/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fork_exit.c — a fork-per-connection server reduced to its forks, for
 * bench/syscall_count.sh: fork_exit N forks N children one after the
 * other, each of which calls _exit(0) at once and is waited for, so that
 * every system call a child makes is the runtime's or the C library's.
 * Exit 0, or 1 when fork fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		if (p == 0)
			_exit(0);
		if (p < 0) {
			perror("fork_exit: fork");
			return 1;
		}
		waitpid(p, NULL, 0);
	}
	return 0;
}
