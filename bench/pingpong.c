/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pingpong.c — context switches with almost no work between them, for
 * bench/switch_cost.sh: a parent and its fork child pass one byte back and
 * forth through two pipes N times, each blocking in read(2) until the
 * other writes, so that every round trip is two sleeps and two wake-ups,
 * as a server's thread blocks in epoll_wait(2) or recv(2) between
 * requests.  What a profiler adds per context switch shows here as CPU per
 * round trip, apart from its ticks (there is little CPU to tick on).
 *   pingpong N      exit status 0 when all N round trips were made
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int ab[2], ba[2], status;
	long n;
	char c = 'x';
	pid_t pid;

	if (argc != 2 || (n = strtol(argv[1], NULL, 10)) <= 0) {
		fputs("usage: pingpong N\n", stderr);
		return 2;
	}
	if (pipe(ab) != 0 || pipe(ba) != 0) {
		perror("pingpong: pipe");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("pingpong: fork");
		return 1;
	}
	if (pid == 0) {
		for (long i = 0; i < n; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	for (long i = 0; i < n; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1) {
			perror("pingpong");
			return 1;
		}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return 1;
	return 0;
}
