/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * interval_pause.c — the longest pause a spinning thread sees (issue 22):
 * the thread reads CLOCK_MONOTONIC in a tight loop for SECONDS of wall
 * time and prints the longest gap between two reads, the 99.99th
 * percentile gap (a power-of-two histogram of gaps, upper bound) and how
 * many gaps were above 1 ms.  Run it under monrun with and without
 * --interval (bench/interval_pause.sh): the difference is what cutting
 * intervals costs the program's threads beyond the ticks.
 *
 *   interval_pause SECONDS
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 5;
	uint64_t hist[64] = { 0 }, n = 0, longest = 0, over_ms = 0;
	uint64_t start = now_ns(), end = start + (uint64_t)(secs * 1e9), last = start;
	for (;;) {
		uint64_t t = now_ns(), gap = t - last;
		last = t;
		if (gap > longest)
			longest = gap;
		if (gap > 1000000)
			over_ms++;
		hist[63 - __builtin_clzll(gap | 1)]++;
		n++;
		if (t >= end)
			break;
	}
	uint64_t want = n - n / 10000, acc = 0;
	int b = 0;
	for (; b < 64 && acc + hist[b] < want; b++)
		acc += hist[b];
	printf("reads %llu longest_us %.1f p9999_us_below %.1f over_1ms %llu\n",
	       (unsigned long long)n, longest / 1e3, (double)(2ull << b) / 1e3,
	       (unsigned long long)over_ms);
	return 0;
}
