/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * prof_noreturn.c — a call at a function's last instruction, for prof's
 * reading of return addresses (tests/integ/prof_return.sh).  x86-64.
 *
 * ends_in_call (assembly, with its unwind information) ends with
 * "call spin_exit", a noreturn function, and next_fn begins right after
 * that call: the return address of spin_exit's frame is next_fn's first
 * byte.  prof must name that frame ends_in_call (return address - 1), in
 * stacks and in the call graph's arc (cc -pg: mcount's frompc).
 * spin_exit spins for argv[1] million rounds, then exits (status 0).
 */
#include <stdlib.h>

void ends_in_call(long n) __attribute__((noreturn));
long next_fn(long x);

__asm__(".text\n"
	".globl ends_in_call\n"
	".type ends_in_call, @function\n"
	".p2align 4\n"
	"ends_in_call:\n"
	".cfi_startproc\n"
	"\tsubq $8, %rsp\n"
	".cfi_def_cfa_offset 16\n"
	"\tcall spin_exit\n"
	".cfi_endproc\n"
	".size ends_in_call, .-ends_in_call\n"
	".globl next_fn\n"
	".type next_fn, @function\n"
	"next_fn:\n"
	".cfi_startproc\n"
	"\tleaq 1(%rdi), %rax\n"
	"\tret\n"
	".cfi_endproc\n"
	".size next_fn, .-next_fn\n");

static volatile unsigned long sink;

__attribute__((noinline, noreturn, used)) void spin_exit(long n);
void spin_exit(long n)
{
	for (long i = 0; i < n * 1000000; i++)
		sink += (unsigned long)i * 2654435761u;
	exit(0);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 300;
	sink = (unsigned long)next_fn(n);
	ends_in_call(n);
}
