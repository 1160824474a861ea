/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * short_threads.c — many threads that each use less CPU than a sample
 * period, one after another (tests/integ/coverage_short_threads.sh).
 *
 *   short_threads [THREADS [CPU_US]]
 *
 * THREADS threads (default 300), each started after the last one ended,
 * each spinning about CPU_US microseconds (default 500) of CPU in
 * short_spin, without a system call: as many additions as make that much
 * of main's CPU clock (CLOCK_THREAD_CPUTIME_ID), timed first.  Prints "threads N"; exit 0, 2
 * if a thread could not be made.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long cpu_us = 500;
static unsigned long per_thread;	/* additions a thread makes: about cpu_us of CPU */
static volatile unsigned long sink;

static long thread_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1000000L + t.tv_nsec / 1000;
}

static void add(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

/* No system call while it spins: a thread that makes none is the case the
 * kernel's tick-sampled times (getrusage(RUSAGE_THREAD)) give as 0 s; one
 * that reads its CPU clock as it goes has its time accounted at each call. */
__attribute__((noinline)) static void *short_spin(void *arg)
{
	(void)arg;
	add(per_thread);
	return NULL;
}
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 300;
	if (argc > 2)
		cpu_us = atol(argv[2]);
	/* How many additions make cpu_us of CPU here: 20 ms of them timed. */
	unsigned long k = 1000000;
	long t0 = thread_us(), dt;
	add(k);
	while ((dt = thread_us() - t0) < 20000) {
		k *= 2;
		t0 = thread_us();
		add(k);
	}
	per_thread = (unsigned long)((double)k * (double)cpu_us / (double)dt);
	for (int i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, short_spin, NULL) != 0)
			return 2;
		pthread_join(t, NULL);
	}
	printf("threads %d\n", n);
	return 0;
}
