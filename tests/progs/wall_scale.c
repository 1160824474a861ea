/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wall_scale — many threads, mostly blocked, for tests/integ/wall_scale.sh.
 *
 *   wall_scale [THREADS [MS [FDS]]]   (default 1000 threads, 1500 ms, 700 descriptors)
 *
 * First opens FDS descriptors of its own (dup of standard input) and keeps
 * them, then starts THREADS threads (64 KiB stacks): the even ones sleep MS
 * in nanosleep, the odd ones wait MS on a condition variable with a
 * timeout.  Each times its life with CLOCK_MONOTONIC and main prints
 *   thread TID life_us N
 * for each, and "fds N" (descriptors it could open), "started N".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long ms = 1500;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;

struct rec {
	pid_t tid;
	int odd;
	uint64_t life_us;
};

static uint64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void *run(void *a)
{
	struct rec *r = a;
	uint64_t t0 = now_us();
	r->tid = gettid();
	if (!r->odd) {
		struct timespec d = { ms / 1000, (ms % 1000) * 1000000L };
		while (nanosleep(&d, &d) != 0)
			;
	} else {
		struct timespec dl;
		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_sec += ms / 1000;
		dl.tv_nsec += (ms % 1000) * 1000000L;
		if (dl.tv_nsec >= 1000000000L) {
			dl.tv_sec++;
			dl.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&lock);
		while (pthread_cond_timedwait(&never, &lock, &dl) != ETIMEDOUT)
			;
		pthread_mutex_unlock(&lock);
	}
	r->life_us = now_us() - t0;
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	if (argc > 2)
		ms = atol(argv[2]);
	int nfd = argc > 3 ? atoi(argv[3]) : 700, got = 0;
	for (int i = 0; i < nfd; i++)
		got += dup(0) >= 0;
	struct rec *r = calloc((size_t)n, sizeof *r);
	pthread_t *th = calloc((size_t)n, sizeof *th);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64u << 10);
	int started = 0;
	for (int i = 0; i < n; i++) {
		r[i].odd = i & 1;
		if (pthread_create(&th[i], &attr, run, &r[i]) != 0)
			break;
		started++;
	}
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < started; i++)
		printf("thread %d life_us %llu\n", (int)r[i].tid, (unsigned long long)r[i].life_us);
	printf("fds %d\nstarted %d\n", got, started);
	free(th);
	free(r);
	return 0;
}
