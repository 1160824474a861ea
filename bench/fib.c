/* SPDX-License-Identifier: BSD-2-Clause */
/* fib.c — a call-heavy program for bench/mcount.sh: naive recursive fib. */
#include <stdio.h>
#include <stdlib.h>

static __attribute__((noinline)) long fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 32;
	printf("fib(%d) = %ld\n", n, fib(n));
	return 0;
}
