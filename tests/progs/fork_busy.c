/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fork_busy.c — fork while other threads take ticks: each fork's child
 * measures how long fork() took, from the parent's call to the child's
 * return (CLOCK_MONOTONIC, shared by both).  A child that is not profiled
 * (monrun without -f) stops sampling in fork's child handler, which waited
 * for the handlers in flight in the parent's other threads at the fork:
 * none of them is in the child, so it waited out its whole timeout (1 to
 * 5 s) whenever one was.
 *
 *   fork_busy [FORKS]
 *
 * Two threads spin until main has forked FORKS times (default 40), each
 * child exiting at once; prints "forks N" and "fork_max_s S", the longest
 * fork as its child saw it.  Exit 0, or 1 on a failed call.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile int stop;
static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *spinner(void *arg)
{
	(void)arg;
	while (!stop)
		for (int i = 0; i < 100000; i++)
			sink += (unsigned long)i;
	return NULL;
}

int main(int argc, char **argv)
{
	int forks = argc > 1 ? atoi(argv[1]) : 40;
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, spinner, NULL) != 0)
			return 1;
	double worst = 0;
	int done = 0;
	for (; done < forks; done++) {
		int p[2];
		if (pipe(p) < 0)
			return 1;
		double t0 = now();
		pid_t pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			double d = now() - t0;
			_exit(write(p[1], &d, sizeof d) == sizeof d ? 0 : 1);
		}
		double d = 0;
		if (read(p[0], &d, sizeof d) != sizeof d || waitpid(pid, NULL, 0) != pid)
			return 1;
		close(p[0]);
		close(p[1]);
		if (d > worst)
			worst = d;
		struct timespec gap = { 0, 5000000 };	/* 5 ms: the threads take ticks */
		nanosleep(&gap, NULL);
	}
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("forks %d\nfork_max_s %.6f\n", done, worst);
	return 0;
}
