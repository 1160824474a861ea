/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wall_churn — a thread per task, many over the run, for
 * tests/integ/wall_churn.sh: the wall sampler's tables must not fill over a
 * long interval run (as a server that starts a thread per connection does).
 *
 *   wall_churn [THREADS [INFLIGHT [MS]]]   (default 12000, 64, 20)
 *
 * Starts THREADS threads in all, INFLIGHT at a time (main joins the oldest
 * before starting the next), each sleeping MS milliseconds in churn_wait
 * (nanosleep) and ending.  The rate of new threads is then at most
 * INFLIGHT / MS per millisecond whatever the machine's speed (3200 a second
 * by default).  Prints "started N" and "elapsed_ms N".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long ms = 20;

__attribute__((noinline)) static void churn_wait(void)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		;
	__asm__ volatile("" ::: "memory");
}

static void *churn_thread(void *arg)
{
	(void)arg;
	churn_wait();
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 12000;
	long inflight = argc > 2 ? atol(argv[2]) : 64;
	if (argc > 3)
		ms = atol(argv[3]);
	if (n < 1 || inflight < 1 || inflight > 4096 || ms < 1)
		return 2;
	pthread_t *t = calloc((size_t)inflight, sizeof *t);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64u << 10);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	long started = 0;
	for (long i = 0; i < n; i++) {
		if (i >= inflight)
			pthread_join(t[i % inflight], NULL);
		if (pthread_create(&t[i % inflight], &attr, churn_thread, NULL) != 0)
			break;
		started++;
	}
	for (long i = started > inflight ? started - inflight : 0; i < started; i++)
		pthread_join(t[i % inflight], NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("started %ld\nelapsed_ms %ld\n", started,
	       (long)((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000));
	free(t);
	return 0;
}
