/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * threads_many — more threads alive at once than the runtime's thread
 * table holds (MON_FACTS_MAX, 8192, in lib/runfacts.c), for
 * tests/integ/threads_churn.sh: every file of an interval run must count
 * the threads it cannot list once, not once more for each interval before;
 * and than the per-thread clocks' table holds (MON_MAX_THREADS, 4096, in
 * lib/threads.c), for tests/integ/threads_clocks_full.sh.
 *
 *   threads_many [THREADS [MS [AFTER]]]   (default 8400, 2500, 0)
 *
 * Starts THREADS threads (64 KiB stacks), each blocked in read(2) on one
 * pipe; prints "alive N" once all are started and each has entered its
 * start routine, sleeps MS milliseconds, closes the pipe's write end (every
 * read returns 0), joins them, prints "joined N" and sleeps AFTER
 * milliseconds more.  Exit 0, or 1 when a thread could not be started.
 *
 * pthread_create(3) may return before the new thread runs (POSIX leaves
 * the order open): "alive" waits for every thread to have entered, so that
 * all N are alive at once, each past libmon's start wrapper (which arms its
 * clock before the routine runs, lib/threads.c).  Without the wait, an
 * ASan-built program on two busy cores had 1996 to 3784 of 4200 threads in
 * their routine when the pipe closed, 300 ms after the last create returned,
 * and the first threads ended before the last began.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int rfd;
static long entered;	/* threads that have entered blocked() */

static void *blocked(void *arg)
{
	char c;
	(void)arg;
	__atomic_add_fetch(&entered, 1, __ATOMIC_RELAXED);
	while (read(rfd, &c, 1) > 0)
		;
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 8400;
	long ms = argc > 2 ? atol(argv[2]) : 2500;
	long after = argc > 3 ? atol(argv[3]) : 0;
	int p[2];
	if (n < 1 || ms < 0 || after < 0 || pipe(p) != 0)
		return 2;
	rfd = p[0];
	pthread_t *t = calloc((size_t)n, sizeof *t);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64u << 10);
	long started = 0;
	while (started < n && pthread_create(&t[started], &attr, blocked, NULL) == 0)
		started++;
	struct timespec poll = { 0, 1000000L };
	while (__atomic_load_n(&entered, __ATOMIC_RELAXED) < started)
		nanosleep(&poll, NULL);
	printf("alive %ld\n", started);
	fflush(stdout);
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		;
	close(p[1]);
	for (long i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	printf("joined %ld\n", started);
	fflush(stdout);
	struct timespec rest = { after / 1000, (after % 1000) * 1000000L };
	while (nanosleep(&rest, &rest) != 0)
		;
	free(t);
	return started == n ? 0 : 1;
}
