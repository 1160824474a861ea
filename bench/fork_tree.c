/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fork_tree.c — a server that forks a process per request, for
 * bench/prof_merge.sh: fork_tree N forks N children, at most 32 alive at
 * once, each spinning about 2 ms of CPU in child_work before exit(3) (so
 * that monrun -f writes a profile of each).  Linked against libcrypto and
 * libstdc++ when the bench can (as a real server is: PostgreSQL loads a
 * dozen libraries), so that every profile names objects with large symbol
 * tables.  Exit 0, or 1 when fork fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void child_work(void)
{
	for (unsigned long i = 0; i < 2000000; i++)
		sink += i;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		if (p == 0) {
			child_work();
			exit(0);
		}
		if (p < 0) {
			perror("fork_tree: fork");
			return 1;
		}
		if (i % 32 == 31)
			while (wait(NULL) > 0)
				;
	}
	while (wait(NULL) > 0)
		;
	return 0;
}
