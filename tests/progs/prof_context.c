/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * prof_context.c — a coroutine on a makecontext(3) stack, for prof's reading
 * of the bottom frame of such a stack (tests/integ/prof_return.sh).
 *
 * co_entry runs on a stack of its own, entered by swapcontext; it calls
 * co_work, which spins for argv[1] million rounds, then returns to main
 * through uc_link.  The return address makecontext leaves at the bottom of
 * that stack is glibc's __start_context, reached by no call: every sample
 * of co_work must show co_work, co_entry, __start_context, and no walk
 * that ended early.
 */
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

static ucontext_t main_ctx, co_ctx;
static volatile unsigned long sink;
static long rounds;

__attribute__((noinline)) static void co_work(void)
{
	for (long i = 0; i < rounds * 1000000; i++)
		sink += (unsigned long)i * (unsigned long)i;
}

__attribute__((noinline)) static void co_entry(void)
{
	co_work();
	sink++;
}

int main(int argc, char **argv)
{
	static char stack[1 << 16];
	rounds = argc > 1 ? atol(argv[1]) : 300;
	if (getcontext(&co_ctx) != 0)
		return 1;
	co_ctx.uc_stack.ss_sp = stack;
	co_ctx.uc_stack.ss_size = sizeof stack;
	co_ctx.uc_link = &main_ctx;
	makecontext(&co_ctx, co_entry, 0);
	if (swapcontext(&main_ctx, &co_ctx) != 0)
		return 1;
	printf("%lu\n", sink);
	return 0;
}
