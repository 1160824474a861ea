/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * prof_inline.c — a function inlined into another, for prof --lines on
 * split DWARF (tests/integ/prof_split_dwarf.sh): built with -g and with
 * -g -gsplit-dwarf, a sample in inner_mix's code must name inner_mix (the
 * inlined subroutine, from the DIE tree, which split DWARF keeps in the
 * .dwo file) at its line, in both builds.
 */
#include <stdlib.h>

static volatile unsigned long sink;

static inline __attribute__((always_inline)) unsigned long inner_mix(unsigned long x)
{
	return (x ^ (x >> 7)) * 0x9e3779b97f4a7c15ul;
}

__attribute__((noinline)) unsigned long outer(long n)
{
	unsigned long h = 0;
	for (long i = 0; i < n; i++)
		h += inner_mix(h + (unsigned long)i);
	return h;
}

int main(int argc, char **argv)
{
	sink = outer(argc > 1 ? atol(argv[1]) : 1000);
	return 0;
}
