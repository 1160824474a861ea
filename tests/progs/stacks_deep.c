/* SPDX-License-Identifier: BSD-2-Clause */
/* stacks_deep.c — a program whose work runs at the bottom of a recursion
 * DEPTH calls deep (tests/integ/stacks_depth.sh: the default stack limit
 * keeps such stacks whole).  Built -O1 -fno-omit-frame-pointer or not: the
 * frames are real calls (the recursion is not a tail call).
 *   stacks_deep DEPTH ITERATIONS */
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void work(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i ^ (sink >> 3);
}

__attribute__((noinline)) static int down(int d, unsigned long n)
{
	if (d > 1)
		down(d - 1, n);
	else
		work(n);
	return (int)(sink & 1) + d;	/* keeps the call from being a tail call */
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 100;
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 10) : 100000000ul;
	return down(depth, n) > 0 ? 0 : 1;
}
