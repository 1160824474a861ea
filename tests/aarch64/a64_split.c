/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * a64_split.c — three leaves whose split of the CPU is fixed by
 * construction, the same on every machine and emulator, for comparing the
 * shares prof reads from one machine's mon.out with another's
 * (tests/aarch64/qemu.sh: built for aarch64 and run under qemu-user,
 * built for the host and run there, a64_split_*_as_host).
 *
 * The three leaves leaf_a, leaf_b, leaf_c are the same code to the byte
 * (one macro; noipa, so that gcc neither folds them into one nor inlines
 * them), each at the start of its own 64-byte block (aligned: the same
 * code at the same offsets in the cache lines and decoder windows, where
 * a loop's place can change its speed), and each call runs the same TURNS
 * turns of one dependent chain of multiply-adds in registers (a linear
 * congruential step: no memory in the loop, no closed form gcc could
 * compute, its result summed into a volatile).  So every call of any of
 * them costs the same, on any machine: what a machine does fast or slow
 * it does alike in all three.  A round calls them a, b, a, c, a (SPLIT_A
 * calls of leaf_a, default 3, one each of the others), short enough
 * (about 30 microseconds native, 50 under qemu-user 7.2 here) that a
 * burst of a loaded machine's noise falls on all three alike: of the CPU
 * in the three, leaf_a takes SPLIT_A / (SPLIT_A + 2), 60 %, the others
 * 20 % each (measured: 60.1 / 19.9 / 20.0 % on the host, 60.0 / 19.9 /
 * 20.2 % under qemu-user).
 *
 * The program also measures, around the calls of one round in MEASURED
 * (outside the leaves: the clock's cost, a system call under qemu-user,
 * stays out of them), the CPU its thread spent in each leaf, and prints
 * it ("cpu a S b S c S", seconds): what the run saw, printed beside the
 * profile, not the check's truth.  And the probe's lines
 * (cputimer_probe.h: the number of independent samples a CPU-time clock
 * had in this run).
 *
 *   a64_split [ROUNDS]    default 20000; exits 0, 2 on a bad argument
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#define PROBE_SIGNAL (SIGRTMAX - 2)	/* qemu-user refuses SIGRTMAX-1: cputimer_probe.h */
#include "cputimer_probe.h"

#ifndef SPLIT_A
#define SPLIT_A 3	/* calls of leaf_a a round, 2 or more (a mutation for the test: 4) */
#endif
#if SPLIT_A < 2
#error "SPLIT_A: a round calls leaf_a at least twice"
#endif
#define TURNS 4000	/* multiply-adds a call */
#define MEASURED 16	/* one round in MEASURED has its calls' CPU measured */

static volatile unsigned long sink;

/* The leaves: N turns of x = x * 6364136223846793005 + 1442695040888963407
 * (Knuth's MMIX constants; any odd multiplier would do) from SEED. */
#define LEAF(name)                                                              \
	__attribute__((noipa, aligned(64)))                                     \
	static unsigned long name(unsigned long seed, long n)                   \
	{                                                                       \
		unsigned long x = seed;                                         \
		for (long i = 0; i < n; i++)                                    \
			x = x * 6364136223846793005UL + 1442695040888963407UL;  \
		return x;                                                       \
	}
LEAF(leaf_a)
LEAF(leaf_b)
LEAF(leaf_c)

static long long thread_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (long long)t.tv_sec * 1000000000 + t.tv_nsec;
}

static long long spent_ns[3];	/* each leaf's calls: CPU nanoseconds */

/* One call of F; when MEASURE, its CPU added to spent_ns[SLOT]. */
static void call(unsigned long (*f)(unsigned long, long), int slot, int measure)
{
	long long t0 = measure ? thread_ns() : 0;
	sink += f(sink, TURNS);
	if (measure)
		spent_ns[slot] += thread_ns() - t0;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? strtol(argv[1], NULL, 10) : 20000;
	if (rounds <= 0)
		return 2;
	probe_start();
	for (long r = 0; r < rounds; r++) {
		/* a, b, a, c, a: leaf_a's calls spread through the round. */
		int m = r % MEASURED == 0;
		call(leaf_a, 0, m);
		call(leaf_b, 1, m);
		call(leaf_a, 0, m);
		call(leaf_c, 2, m);
		for (int k = 2; k < SPLIT_A; k++)
			call(leaf_a, 0, m);
	}
	printf("a64_split: %ld rounds of %d, 1, 1 calls, sink %lu\n", rounds, SPLIT_A, sink & 0xff);
	printf("cpu a %.6f b %.6f c %.6f\n", spent_ns[0] / 1e9, spent_ns[1] / 1e9,
	       spent_ns[2] / 1e9);
	probe_print((int)rounds);
	return 0;
}
