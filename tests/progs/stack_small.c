/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stack_small.c — threads on the smallest stacks POSIX allows
 * (PTHREAD_STACK_MIN, 16 KiB here) doing real work: four threads, each
 * recursing 20 frames deep and spinning there for 0.2 s of its CPU, while
 * the main thread waits.  Unprofiled it exits 0 after "threads 4".  A
 * profiler's tick must fit in what is left of such a stack: its handler's
 * own stack use, walk included, small and bounded.
 *
 *   stack_small [THREADS]
 */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static double work(int depth)
{
	volatile char pad[32];
	pad[0] = (char)depth;
	if (depth > 0)
		return work(depth - 1) + pad[0];
	double s = 0, t0 = cpu_s();
	while (cpu_s() - t0 < 0.2)
		for (int i = 0; i < 10000; i++)
			s += i * 0.5;
	return s;
}

static void *run(void *arg)
{
	*(volatile double *)arg = work(20);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t t[64];
	double result[64];
	pthread_attr_t a;
	if (n < 1 || n > 64 || pthread_attr_init(&a) != 0 ||
	    pthread_attr_setstacksize(&a, PTHREAD_STACK_MIN) != 0)
		return 2;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], &a, run, &result[i]) != 0) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("threads %d\n", n);
	return 0;
}
