/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wall_stalled — a thread that runs, then blocks in read(2) of a pipe, for
 * the wall sampler under a CPU clock that stands still
 * (tests/integ/wall_stalled.sh, tests/progs/wall_clock_stall.c).
 *
 *   wall_stalled [MS]   the thread spins MS/4 milliseconds, then blocks
 *                       until main writes the pipe at MS (default 1200)
 *
 * Prints "worker tid TID blocked_us N": N, the time it spent in the read
 * (CLOCK_MONOTONIC around it).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int fds[2];
static long ms = 1200;
static volatile unsigned long sink;

static uint64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void *worker(void *arg)
{
	(void)arg;
	uint64_t end = now_us() + (uint64_t)ms * 250u;
	while (now_us() < end)
		sink++;
	char c;
	uint64_t t0 = now_us();
	ssize_t n = read(fds[0], &c, 1);
	uint64_t t1 = now_us();
	printf("worker tid %d blocked_us %llu\n", gettid(), (unsigned long long)(t1 - t0));
	return n == 1 ? NULL : arg;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		ms = atol(argv[1]);
	pthread_t th;
	if (pipe(fds) < 0 || pthread_create(&th, NULL, worker, NULL) != 0)
		return 1;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
	if (write(fds[1], "x", 1) != 1)
		return 1;
	pthread_join(th, NULL);
	return 0;
}
