/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * a64_stacks.c — a workload whose profile is known by construction, for
 * comparing one machine's profile with another's (tests/aarch64/qemu.sh
 * runs it built for aarch64 under qemu-user and built for the host, and
 * compares what prof reads from both files).  Built -O2
 * -fomit-frame-pointer: the stack walk must go by the CFI.
 *
 * Three leaf functions each run the same loop once a call (SPIN(TURNS):
 * the same instructions, so any machine or emulator spends the same time
 * a call in each): deep(), at the bottom of a 24-deep recursion (recurse),
 * 3C calls a round; flat(), C calls; compare(), qsort(3)'s comparator, so
 * that its stacks go through the C library, C calls (one sort of a
 * reversed array of 2, C comparisons, counted once: 1).  A round is about
 * 150 microseconds (native), so that a burst of a loaded machine's noise (another
 * guest's time charged to this thread's CPU clock) falls on all three
 * alike, not on one function's whole block of calls.  Of the samples in
 * the three, by construction: deep 60 %, flat 20 %, compare 20 %; what
 * the rest of the program takes (qsort's own work, the calls) depends on
 * the machine.  noipa: gcc would fold the identical functions into one.
 *
 * The construction is not the truth on every machine: on a loaded 2-CPU
 * VM the host's own run spent 63 / 16 / 20 % of the three's CPU in them,
 * and qemu-user 57 / 22 / 21 %.  So each leaf also measures the CPU time
 * its calls take (its thread's CPU clock at entry and exit, the same
 * code in all three) and the program prints them: a profile is judged
 * against what the run measured.
 *
 * And how many independent samples a CPU-time clock had: the thread and
 * itimer clocks' signals come at the kernel's tick, weighted by the
 * periods they cover, and a loaded machine makes them fewer and heavier
 * (four busy loops on a 2-CPU VM gave qemu-user's thread clock a deep share
 * of 51, 61 and 75 % where the run measured 60).  The program's own
 * CPU-time timer, checked at the same ticks (cputimer_probe.h, on
 * SIGRTMAX-2: qemu-user refuses SIGRTMAX-1), counts them; its
 * "probe_neff N" line is the number a share is worth.
 *
 *   a64_stacks [ROUNDS]    default 7500; exits 0, 2 on a bad argument;
 *                          prints "cpu deep S flat S compare S" (seconds)
 *                          and the probe's lines (probe_print)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#define PROBE_SIGNAL (SIGRTMAX - 2)
#include "cputimer_probe.h"

#define TURNS 20000	/* loop turns a call: long enough that what a call costs to start
			 * (x86-64: 1000 turns gave deep 66 % instead of 60) is nothing */

static volatile long sink;

#define SPIN()                                           \
	do {                                             \
		for (long i_ = 0; i_ < TURNS; i_++)      \
			sink += i_ ^ (sink >> 3);        \
	} while (0)

static long long spent_ns[3];	/* each leaf's calls: CPU nanoseconds */

static long long thread_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (long long)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The three leaves: the same code, to the byte (compare's signature for
 * all three), so that no machine's code generation favours one. */
#define LEAF(name, slot)                                                 \
	__attribute__((noipa)) static int name(const void *a, const void *b) \
	{                                                                \
		long long t0_ = thread_ns();                             \
		SPIN();                                                  \
		spent_ns[slot] += thread_ns() - t0_;                     \
		long x = *(const long *)a, y = *(const long *)b;         \
		return x < y ? -1 : x > y;                               \
	}
LEAF(deep, 0)
LEAF(flat, 1)
LEAF(compare, 2)

static const long pair[2] = { 1, 2 };

static long compares;

static int count_compare(const void *a, const void *b)
{
	compares++;
	long x = *(const long *)a, y = *(const long *)b;
	return x < y ? -1 : x > y;
}

/* Not a tail call (the frame stays on the stack). */
__attribute__((noipa)) static long recurse(int depth, long calls)
{
	if (depth == 0) {
		for (long i = 0; i < calls; i++)
			sink += deep(&pair[0], &pair[1]);
		return sink & 1;
	}
	long r = recurse(depth - 1, calls);
	sink += r;
	return r + 1;
}

enum { N = 2 };

__attribute__((noipa)) static void sort_reversed(int (*cmp)(const void *, const void *))
{
	long v[N];
	for (int i = 0; i < N; i++)
		v[i] = N - i;
	qsort(v, N, sizeof v[0], cmp);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? strtol(argv[1], NULL, 10) : 7500;
	if (rounds <= 0)
		return 2;
	probe_start();
	sort_reversed(count_compare);	/* C, the comparisons of one sort */
	for (long r = 0; r < rounds; r++) {
		recurse(24, 3 * compares);
		for (long i = 0; i < compares; i++)
			sink += flat(&pair[0], &pair[1]);
		sort_reversed(compare);
	}
	printf("a64_stacks: %ld rounds, %ld comparisons a sort, sink %ld\n", rounds, compares,
	       sink & 0xff);
	printf("cpu deep %.6f flat %.6f compare %.6f\n", spent_ns[0] / 1e9, spent_ns[1] / 1e9,
	       spent_ns[2] / 1e9);
	probe_print((int)rounds);
	return 0;
}
