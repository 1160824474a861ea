/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mcount_stacks.c — a program built with cc -pg whose time is much of it
 * in the call counter: qsort(3) calls a comparator, cmp_ints, millions of
 * times, and each call enters mcount (or __fentry__ with -mfentry) first
 * (stacks_mcount.sh).
 *
 *   mcount_stacks [SECONDS]
 *   mcount_stacks arcs [SECONDS]
 *
 * Sorts arrays of 4096 pseudo-random ints until the thread has used
 * SECONDS of CPU (default 0.3).  Prints "sorts N".  With "arcs": 256
 * callers each call 256 callees, 65 536 arcs, most of them past the
 * counter's fast path (mcount's slow path, through mon_count, with more
 * registers saved); each callee's first argument is the address of
 * decoy(), which nothing calls (a walk that took a saved register for a
 * return address would name it).  Prints "rounds N".
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "monrun_common.h"

volatile unsigned long sink;

__attribute__((noinline)) void decoy(void);
__attribute__((noinline)) void decoy(void)
{
	puts("decoy");
}

typedef long (*callee_fn)(void (*)(void), long);
#define CALLEE(n)                                                                 \
	__attribute__((noinline)) static long callee##n(void (*fp)(void), long x) \
	{                                                                         \
		sink += (unsigned long)x + (unsigned long)(uintptr_t)fp;          \
		return x + 1;                                                     \
	}
#define CALLER(n)                                                               \
	__attribute__((noinline)) static long caller##n(const callee_fn *v, long x) \
	{                                                                       \
		for (int i = 0; i < 256; i++)                                   \
			x = v[i](decoy, x);                                     \
		return x;                                                       \
	}
#define X16(M, p) M(p##0) M(p##1) M(p##2) M(p##3) M(p##4) M(p##5) M(p##6) M(p##7) \
	M(p##8) M(p##9) M(p##a) M(p##b) M(p##c) M(p##d) M(p##e) M(p##f)
#define X256(M) X16(M, 0) X16(M, 1) X16(M, 2) X16(M, 3) X16(M, 4) X16(M, 5) X16(M, 6) \
	X16(M, 7) X16(M, 8) X16(M, 9) X16(M, a) X16(M, b) X16(M, c) X16(M, d) X16(M, e) X16(M, f)
X256(CALLEE)
X256(CALLER)
#define NAME_CALLEE(n) callee##n,
#define NAME_CALLER(n) caller##n,
static const callee_fn callees[256] = { X256(NAME_CALLEE) };
static long (*const callers[256])(const callee_fn *, long) = { X256(NAME_CALLER) };

static int arcs(double s)
{
	long rounds = 0, x = 0;
	double end = mr_thread_cpu() + s;
	do {
		for (int i = 0; i < 256; i++)
			x = callers[i](callees, x);
		rounds++;
	} while (mr_thread_cpu() < end);
	printf("rounds %ld\n", rounds);
	return x == 0;
}

static int cmp_ints(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "arcs") == 0)
		return arcs(mr_seconds(argc > 2 ? argv[2] : NULL, 0.3));
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
