/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fork_faults — the page faults a fork child takes before its own code
 * runs (the C library's and libmon's fork handlers), for
 * tests/integ/fork_faults.sh.
 *
 *   fork_faults [CHILDREN]   (default 20)
 *
 * Forks CHILDREN children one after another; each reads its minor page
 * faults at once (getrusage(2): a child's count starts at 0 at the fork)
 * and exits with _exit(2) after writing it to a pipe.  Prints "faults N"
 * with the median over the children.  Exit 1 if a fork fails.
 */
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

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20;
	if (n < 1 || n > 1000)
		n = 20;
	long v[1000];
	for (int i = 0; i < n; i++) {
		int fd[2];
		if (pipe(fd) != 0)
			return 1;
		fflush(stdout);
		pid_t p = fork();
		if (p < 0)
			return 1;
		if (p == 0) {
			struct rusage ru;
			getrusage(RUSAGE_SELF, &ru);
			long f = ru.ru_minflt;
			if (write(fd[1], &f, sizeof f) != sizeof f)
				_exit(1);
			_exit(0);
		}
		close(fd[1]);
		if (read(fd[0], &v[i], sizeof v[i]) != sizeof v[i])
			return 1;
		close(fd[0]);
		waitpid(p, NULL, 0);
	}
	qsort(v, (size_t)n, sizeof v[0], cmp);
	printf("faults %ld\n", v[n / 2]);
	return 0;
}
