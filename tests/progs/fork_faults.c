/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fork_faults — the page faults a fork child takes before its own code
 * runs (the C library's and libmon's fork handlers), for
 * tests/integ/fork_faults.sh, and what starting one thread costs in this
 * build (the handlers may start libmon's control thread and wall sampler;
 * under a sanitizer a thread's start faults several dozen pages in the
 * thread that starts it).
 *
 *   fork_faults [CHILDREN]   (default 20)
 *
 * Forks CHILDREN children one after another.  Each reads its thread's
 * minor page faults at once (getrusage(2) RUSAGE_THREAD: a child's count
 * starts at 0 at the fork, and the fork handlers ran in this thread),
 * then starts and joins one thread and reads them again; it writes both
 * to a pipe and exits with _exit(2).  Prints "faults N thread M": the
 * medians over the children of the faults at the start and of those the
 * thread's start and join added.  Exit 1 if a fork or a thread fails.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static int cmp(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return x < y ? -1 : x > y;
}

static void *nothing(void *arg)
{
	return arg;
}

static long faults(void)
{
	struct rusage ru;
	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_minflt;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20;
	if (n < 1 || n > 1000)
		n = 20;
	static long at_start[1000], thread[1000];
	for (int i = 0; i < n; i++) {
		int fd[2];
		if (pipe(fd) != 0)
			return 1;
		fflush(stdout);
		pid_t p = fork();
		if (p < 0)
			return 1;
		if (p == 0) {
			long v[2];
			v[0] = faults();
			pthread_t t;
			if (pthread_create(&t, NULL, nothing, NULL) != 0 || pthread_join(t, NULL) != 0)
				_exit(1);
			v[1] = faults() - v[0];
			if (write(fd[1], v, sizeof v) != sizeof v)
				_exit(1);
			_exit(0);
		}
		close(fd[1]);
		long v[2];
		int st;
		if (read(fd[0], v, sizeof v) != sizeof v || waitpid(p, &st, 0) != p ||
		    !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			return 1;
		close(fd[0]);
		at_start[i] = v[0];
		thread[i] = v[1];
	}
	qsort(at_start, (size_t)n, sizeof at_start[0], cmp);
	qsort(thread, (size_t)n, sizeof thread[0], cmp);
	printf("faults %ld thread %ld\n", at_start[n / 2], thread[n / 2]);
	return 0;
}
