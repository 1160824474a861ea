/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mcount_stacks.c — a program built with cc -pg whose time is much of it
 * in the call counter: qsort(3) calls a comparator, cmp_ints, millions of
 * times, and each call enters mcount (or __fentry__ with -mfentry) first
 * (stacks_mcount.sh).
 *
 *   mcount_stacks [SECONDS]
 *
 * Sorts arrays of 4096 pseudo-random ints until the thread has used
 * SECONDS of CPU (default 0.3).  Prints "sorts N".
 */
#include <stdlib.h>

#include "monrun_common.h"

static int cmp_ints(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	double s = mr_seconds(argc > 1 ? argv[1] : NULL, 0.3);
	static int v[4096];
	unsigned seed = 1;
	long sorts = 0;
	double end = mr_thread_cpu() + s;
	do {
		for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
			v[i] = (int)((seed = seed * 1103515245u + 12345u) >> 8);
		qsort(v, sizeof v / sizeof v[0], sizeof v[0], cmp_ints);
		sorts++;
	} while (mr_thread_cpu() < end);
	printf("sorts %ld\n", sorts);
	return 0;
}
