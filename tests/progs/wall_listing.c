/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wall_listing — long-lived threads started among short ones, for
 * tests/integ/wall_listing.sh: the wall sampler must not take a live thread
 * for ended because a listing of /proc/self/task missed it.  getdents64 on
 * that directory resumes by position when the thread it stopped at has
 * ended, so threads ending during a listing hide threads started after them.
 *
 *   wall_listing [LONG [SECONDS [INFLIGHT [US]]]]   (default 3000, 4, 64, 200)
 *
 * Starts short threads INFLIGHT at a time (each asleep US microseconds, then
 * joined), and with every fourth of them one long thread (named "long", blocked in
 * read(2) on a pipe), until LONG long threads are started and SECONDS of
 * wall-clock time have passed.  Then waits a second, so that the long
 * threads started last are there for the sampler's listings too: on a
 * machine loaded past its two cores, 2 of 2000 were never listed, twice in
 * one run, most likely of the last round, which the loop (past SECONDS
 * there) ended with at once (not confirmed: the run kept no tids).  Closes
 * the pipe's write end, joins the long threads and prints "long N" and
 * "short N".  Exit 0, or 1 when a thread could not be started.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int rfd;
static long sleep_us = 200;

static void *long_thread(void *arg)
{
	char c;
	pthread_setname_np(pthread_self(), "long");
	while (read(rfd, &c, 1) > 0)
		;
	return arg;
}

static void *short_thread(void *arg)
{
	struct timespec ts = { sleep_us / 1000000, sleep_us % 1000000 * 1000 };
	while (nanosleep(&ts, &ts) != 0)
		;
	return arg;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3000;
	long secs = argc > 2 ? atol(argv[2]) : 4;
	long inflight = argc > 3 ? atol(argv[3]) : 64;
	sleep_us = argc > 4 ? atol(argv[4]) : 200;
	int p[2];
	if (n < 1 || secs < 0 || inflight < 1 || sleep_us < 0 || pipe(p) != 0)
		return 2;
	rfd = p[0];
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64u << 10);
	pthread_t *lt = calloc((size_t)n, sizeof *lt);
	long made = 0, shorts = 0;
	int bad = 0;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		pthread_t st[inflight];
		int k = 0;
		for (; k < inflight; k++) {
			if (pthread_create(&st[k], &attr, short_thread, NULL) != 0) {
				bad = 1;
				break;
			}
			if (made < n && k % 4 == 0) {
				if (pthread_create(&lt[made], &attr, long_thread, NULL) != 0)
					bad = 1;
				else
					made++;
			}
		}
		for (int i = 0; i < k; i++)
			pthread_join(st[i], NULL);
		shorts += k;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while (!bad && (made < n || b.tv_sec - a.tv_sec < secs));
	struct timespec linger = { 1, 0 };
	while (nanosleep(&linger, &linger) != 0)
		;
	close(p[1]);
	for (long i = 0; i < made; i++)
		pthread_join(lt[i], NULL);
	printf("long %ld\nshort %ld\n", made, shorts);
	free(lt);
	return bad;
}
