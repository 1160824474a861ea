/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * soak_work.c — a long-running mixed workload for bench/soak.sh.
 *
 *   soak_work SECONDS [THREADS] [PERMILLE]
 *
 * Runs for SECONDS of wall-clock time (0: until a signal ends it).  Every
 * 200 ms the main thread starts a worker thread (at most THREADS alive at
 * once, default 4); each worker lives 1 to 3 s and, in each 20 ms slice,
 * works for PERMILLE/1000 of the slice's CPU (default 50, i.e. 1 ms of 20)
 * and sleeps the rest, so that the process uses about THREADS * PERMILLE /
 * 1000 of one CPU.  The work is a recursion 1 to 24 calls deep through four
 * functions chosen by one of 64 patterns, with malloc(3)/free(3) at the
 * leaves: a bounded set of distinct call stacks (a few thousand), threads
 * starting and ending all the time, and, built with -pg, call counts.
 * Prints its pid on standard output at start.  Exit 0, or 1 when
 * pthread_create fails.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static atomic_int alive;
static int permille = 50;

static uint64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((always_inline, no_instrument_function)) static inline uint32_t next(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static unsigned leaf(uint32_t *s);
static unsigned f0(uint32_t *s, unsigned pat, int depth);
static unsigned f1(uint32_t *s, unsigned pat, int depth);
static unsigned f2(uint32_t *s, unsigned pat, int depth);
static unsigned f3(uint32_t *s, unsigned pat, int depth);

static unsigned step(uint32_t *s, unsigned pat, int depth)
{
	if (depth <= 0)
		return leaf(s);
	switch ((pat >> (depth % 6)) & 3) {
	case 0: return f0(s, pat, depth - 1);
	case 1: return f1(s, pat, depth - 1);
	case 2: return f2(s, pat, depth - 1);
	default: return f3(s, pat, depth - 1);
	}
}

__attribute__((noinline)) static unsigned leaf(uint32_t *s)
{
	size_t n = 64 + (next(s) & 1023);
	unsigned char *p = malloc(n);
	unsigned acc = 0;
	if (!p)
		return 0;
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)next(s);
	for (int r = 0; r < 8; r++)
		for (size_t i = 0; i < n; i++)
			acc = acc * 31 + p[i];
	free(p);
	return acc;
}

__attribute__((noinline)) static unsigned f0(uint32_t *s, unsigned pat, int depth)
{
	return step(s, pat, depth) + 1;
}
__attribute__((noinline)) static unsigned f1(uint32_t *s, unsigned pat, int depth)
{
	return step(s, pat, depth) ^ 2;
}
__attribute__((noinline)) static unsigned f2(uint32_t *s, unsigned pat, int depth)
{
	return step(s, pat, depth) * 3;
}
__attribute__((noinline)) static unsigned f3(uint32_t *s, unsigned pat, int depth)
{
	return step(s, pat, depth) - 4;
}

static void *worker(void *arg)
{
	uint32_t s = (uint32_t)(uintptr_t)arg | 1;
	struct timespec start, now;
	clock_gettime(CLOCK_MONOTONIC, &start);
	double life = 1.0 + (next(&s) % 2000) / 1000.0;
	uint64_t work_ns = (uint64_t)permille * 20000u; /* of a 20 ms slice */
	volatile unsigned sink = 0;
	for (;;) {
		uint64_t t0 = cpu_ns();
		while (cpu_ns() - t0 < work_ns)
			sink += step(&s, next(&s) & 63, 1 + (int)(next(&s) % 24));
		struct timespec nap = { 0, (long)(20000000u - (work_ns < 20000000u ? work_ns : 0)) };
		nanosleep(&nap, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((double)(now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9 > life)
			break;
	}
	atomic_fetch_sub(&alive, 1);
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 60;
	int threads = argc > 2 ? atoi(argv[2]) : 4;
	if (argc > 3)
		permille = atoi(argv[3]);
	if (permille < 1 || permille > 1000 || threads < 1) {
		fputs("usage: soak_work SECONDS [THREADS] [PERMILLE]\n", stderr);
		return 2;
	}
	printf("%ld\n", (long)getpid());
	fflush(stdout);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	struct timespec start, now;
	clock_gettime(CLOCK_MONOTONIC, &start);
	uint32_t seed = (uint32_t)getpid() * 2654435761u | 1;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		double el = (double)(now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9;
		if (seconds > 0 && el >= seconds)
			break;
		if (atomic_load(&alive) < threads) {
			pthread_t t;
			atomic_fetch_add(&alive, 1);
			if (pthread_create(&t, &attr, worker, (void *)(uintptr_t)next(&seed)) != 0) {
				fputs("soak_work: pthread_create failed\n", stderr);
				return 1;
			}
		}
		struct timespec nap = { 0, 200000000 };
		nanosleep(&nap, NULL);
	}
	while (atomic_load(&alive) > 0) {
		struct timespec nap = { 0, 10000000 };
		nanosleep(&nap, NULL);
	}
	return 0;
}
