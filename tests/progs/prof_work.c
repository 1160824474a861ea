/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * prof_work.c — a program whose profile is known in advance, for prof's
 * tests.  heavy, hidden (a static function) and light each run the same
 * loop, for 3, 2 and 1 units of work per call, so their shares of the CPU
 * time are 3/6, 2/6 and 1/6 (times their call counts).  The loop is a chain
 * of dependent multiply-adds in a register: its speed is set by the
 * multiplier's latency, not by where the code happens to be aligned.
 *
 *   prof_work CALLS_HEAVY CALLS_HIDDEN CALLS_LIGHT [UNIT]
 *
 * UNIT is the loop length of one unit of work (default 1000000).
 */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;
static unsigned long unit = 1000000;

/* n dependent steps of a linear congruential generator. */
static inline __attribute__((always_inline)) unsigned long chain(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

__attribute__((noinline)) void heavy(void)
{
	sink += chain(3 * unit);
}

__attribute__((noinline)) static void hidden(void)
{
	sink += chain(2 * unit);
}

__attribute__((noinline)) void light(void)
{
	sink += chain(unit);
}

__attribute__((noinline)) void never(void)
{
	sink = 0;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	long h = atol(argv[1]), s = atol(argv[2]), l = atol(argv[3]);
	if (argc > 4)
		unit = strtoul(argv[4], NULL, 0);
	if (argc > 5)
		never();
	for (long i = 0; i < h; i++)
		heavy();
	for (long i = 0; i < s; i++)
		hidden();
	for (long i = 0; i < l; i++)
		light();
	printf("%lu\n", sink);
	return 0;
}
