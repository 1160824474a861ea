/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wall_turns — threads that work and sleep in turns, sleeping at two
 * places in alternation, for tests/integ/wall_turns.sh: the wall sampler's
 * shares of running, runnable and blocked time, and of each blocking
 * place, against each thread's own measure of them.
 *
 *   wall_turns SECONDS THREADS BUSY_US SLEEP_A_US SLEEP_B_US [GENERATIONS]
 *
 * GENERATIONS (default 1): THREADS threads are started and joined that
 * many times, one set after another.
 * Each thread spins about BUSY_US of its own CPU time (turn_busy), sleeps
 * about SLEEP_A_US in turn_sleep_a, spins again, sleeps about SLEEP_B_US in
 * turn_sleep_b (nanosleep), until SECONDS have passed; each time drawn
 * from half to one and a half times its mean, so that the turns do not
 * keep step with the sampler's rounds.  Each prints
 *   "turns TID elapsed_ns E cpu_ns C wait_ns W a_ns A b_ns B"
 * its wall-clock time, CPU time (its CPU-time clock), run-queue wait
 * (schedstat's second field, proc(5)) over the loop, and the time it was
 * blocked at each place (CLOCK_MONOTONIC around each nanosleep, less the
 * run-queue wait over it).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "thread_times.h"

static double seconds = 2;
static long busy_us = 1000, a_us = 1000, b_us = 1000;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;




__attribute__((noinline)) static void turn_busy(unsigned *seed)
{
	uint64_t until = ns(CLOCK_THREAD_CPUTIME_ID) + (uint64_t)about(seed, busy_us) * 1000u;
	while (ns(CLOCK_THREAD_CPUTIME_ID) < until)
		__asm__ volatile("" ::: "memory");
}

/* Sleeps about us; returns the time it was blocked, ns: the call's
 * wall-clock time less its wait for a CPU after the wakeup. */
static uint64_t nap(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
	uint64_t w0 = run_wait(), t0 = ns(CLOCK_MONOTONIC);
	while (nanosleep(&ts, &ts) != 0)
		;
	uint64_t t = ns(CLOCK_MONOTONIC) - t0, w = run_wait() - w0;
	return t > w ? t - w : 0;
}

__attribute__((noinline)) static uint64_t turn_sleep_a(unsigned *seed)
{
	uint64_t t = nap(about(seed, a_us));
	__asm__ volatile("" ::: "memory");
	return t;
}

__attribute__((noinline)) static uint64_t turn_sleep_b(unsigned *seed)
{
	uint64_t t = nap(about(seed, b_us));
	__asm__ volatile("" ::: "memory");
	return t;
}

static void *turns(void *arg)
{
	unsigned seed = 12345u + (unsigned)(uintptr_t)arg * 7919u;
	uint64_t a = 0, b = 0;
	uint64_t w0 = run_wait(), c0 = ns(CLOCK_THREAD_CPUTIME_ID), t0 = ns(CLOCK_MONOTONIC);
	uint64_t end = t0 + (uint64_t)(seconds * 1e9);
	while (ns(CLOCK_MONOTONIC) < end) {
		turn_busy(&seed);
		a += turn_sleep_a(&seed);
		turn_busy(&seed);
		b += turn_sleep_b(&seed);
	}
	uint64_t t1 = ns(CLOCK_MONOTONIC), c1 = ns(CLOCK_THREAD_CPUTIME_ID), w1 = run_wait();
	pthread_mutex_lock(&out_lock);
	printf("turns %ld elapsed_ns %llu cpu_ns %llu wait_ns %llu a_ns %llu b_ns %llu\n",
	       (long)gettid(), (unsigned long long)(t1 - t0), (unsigned long long)(c1 - c0),
	       (unsigned long long)(w1 - w0), (unsigned long long)a, (unsigned long long)b);
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 6 && argc != 7)
		return 2;
	int gens = argc == 7 ? atoi(argv[6]) : 1;
	seconds = atof(argv[1]);
	int n = atoi(argv[2]);
	busy_us = atol(argv[3]);
	a_us = atol(argv[4]);
	b_us = atol(argv[5]);
	if (seconds <= 0 || n < 1 || n > 256 || busy_us < 1 || a_us < 1 || b_us < 1 || gens < 1)
		return 2;
	pthread_t t[256];
	for (int g = 0; g < gens; g++) {
		for (int i = 0; i < n; i++)
			if (pthread_create(&t[i], NULL, turns, (void *)(uintptr_t)(g * n + i)) != 0)
				return 1;
		for (int i = 0; i < n; i++)
			pthread_join(t[i], NULL);
	}
	return 0;
}
