/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wall_duty — a thread that works and sleeps in turns, shorter than the
 * wall sampler's period, for tests/integ/wall_duty.sh: a server's thread
 * is R at many rounds and blocked between them.
 *
 *   wall_duty [SECONDS [BUSY_US [SLEEP_US]]]   (default 2, 1000, 1000)
 *
 * The thread spins about BUSY_US of its own CPU time (duty_busy), then
 * sleeps about SLEEP_US (duty_sleep, nanosleep), until SECONDS have passed;
 * each time drawn from half to one and a half times its mean, so that the
 * turns do not keep step with the sampler's rounds (a periodic sampler of
 * a periodic program sees the same phase of it every time).  It prints
 * "duty TID elapsed_ns E cpu_ns C wait_ns W": its wall-clock time, its CPU
 * time (its CPU-time clock) and its run-queue wait (schedstat's second
 * field, /proc/thread-self/schedstat, proc(5)) over the loop.
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
static long busy_us = 1000, sleep_us = 1000;



static unsigned seed = 12345;


__attribute__((noinline)) static void duty_busy(void)
{
	uint64_t until = ns(CLOCK_THREAD_CPUTIME_ID) + (uint64_t)about(&seed, busy_us) * 1000u;
	while (ns(CLOCK_THREAD_CPUTIME_ID) < until)
		__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void duty_sleep(void)
{
	long us = about(&seed, sleep_us);
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
	while (nanosleep(&ts, &ts) != 0)
		;
	__asm__ volatile("" ::: "memory");
}

static void *duty(void *arg)
{
	(void)arg;
	uint64_t w0 = run_wait(), c0 = ns(CLOCK_THREAD_CPUTIME_ID), t0 = ns(CLOCK_MONOTONIC);
	uint64_t end = t0 + (uint64_t)(seconds * 1e9);
	while (ns(CLOCK_MONOTONIC) < end) {
		duty_busy();
		duty_sleep();
	}
	uint64_t t1 = ns(CLOCK_MONOTONIC), c1 = ns(CLOCK_THREAD_CPUTIME_ID), w1 = run_wait();
	printf("duty %ld elapsed_ns %llu cpu_ns %llu wait_ns %llu\n", (long)gettid(),
	       (unsigned long long)(t1 - t0), (unsigned long long)(c1 - c0),
	       (unsigned long long)(w1 - w0));
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		seconds = atof(argv[1]);
	if (argc > 2)
		busy_us = atol(argv[2]);
	if (argc > 3)
		sleep_us = atol(argv[3]);
	if (seconds <= 0 || busy_us < 1 || sleep_us < 1)
		return 2;
	pthread_t t;
	if (pthread_create(&t, NULL, duty, NULL) != 0)
		return 1;
	pthread_join(t, NULL);
	return 0;
}
