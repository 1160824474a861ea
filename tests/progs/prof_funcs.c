/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * prof_funcs.c — a program of many small functions, for prof's tests of
 * function boundaries: stripped of its symbols, only its unwind table
 * (.eh_frame) still tells the functions apart.
 *
 *   prof_funcs N   runs f0..f7, function k for (k + 1) * N iterations,
 *                  and calls puts (through the PLT) once
 *
 * f0..f7 are static (local symbols), g_entry is global, g_entry.cold is a
 * clone's symbol (as GCC names a function's out-of-line cold part).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile unsigned long sink;

#define F(k)                                                        \
	__attribute__((noinline)) static void f##k(unsigned long n) \
	{                                                           \
		for (unsigned long i = 0; i < n; i++)               \
			sink += i ^ (k);                            \
	}
F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7)

__attribute__((noinline)) void g_entry(unsigned long n)
{
	f0(n); f1(2 * n); f2(3 * n); f3(4 * n);
	f4(5 * n); f5(6 * n); f6(7 * n); f7(8 * n);
}

/* A compiler clone's symbol, as GCC names the out-of-line cold part of a
 * function ("name.cold") when it splits one: written here in assembly so
 * that the test does not depend on the compiler's choice to split. */
__asm__(".text\n"
	".type g_entry.cold, @function\n"
	"g_entry.cold:\n"
	".cfi_startproc\n"
	"\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tret\n"
	".cfi_endproc\n"
	".size g_entry.cold, .-g_entry.cold\n");

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000;
	g_entry(n);
	puts(strlen(argv[0]) > 0 ? "done" : "odd");
	return 0;
}
