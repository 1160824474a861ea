/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wall_pause — moncontrol(0) pauses the wall sampler too
 * (tests/integ/wall_pause.sh).  Linked with libmon, run under monrun --wall.
 *
 *   wall_pause [MS]    (default 300)
 *
 * A reader thread blocks in read(2) of a pipe all along.  main sleeps MS
 * in before_pause, calls moncontrol(0), sleeps 2 * MS in during_pause,
 * calls moncontrol(1), sleeps MS in after_pause, then writes the pipe and
 * joins the reader.  Prints "paused_us N" (the microseconds between the
 * two moncontrol calls, CLOCK_MONOTONIC), "reader_us N" (the reader's
 * life) and "reader tid TID".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <mon.h>

static int fds[2];
static long reader_us;

static long now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

__attribute__((noinline)) static void before_pause(long ms) { nap(ms); __asm__ volatile(""); }
__attribute__((noinline)) static void during_pause(long ms) { nap(ms); __asm__ volatile(""); }
__attribute__((noinline)) static void after_pause(long ms) { nap(ms); __asm__ volatile(""); }

static void *reader(void *arg)
{
	(void)arg;
	long t0 = now_us();
	printf("reader tid %d\n", gettid());
	fflush(stdout);
	char c;
	if (read(fds[0], &c, 1) != 1)
		return NULL;
	reader_us = now_us() - t0;
	return NULL;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 300;
	pthread_t th;
	if (pipe(fds) < 0 || pthread_create(&th, NULL, reader, NULL) != 0)
		return 1;
	before_pause(ms);
	long p0 = now_us();
	moncontrol(0);
	during_pause(2 * ms);
	moncontrol(1);
	long p1 = now_us();
	after_pause(ms);
	if (write(fds[1], "x", 1) != 1)
		return 1;
	pthread_join(th, NULL);
	printf("paused_us %ld\nreader_us %ld\n", p1 - p0, reader_us);
	return 0;
}
