/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stacks_walk.c — the stack sink's work per sample, measured in the thread's
 * own CPU time (CLOCK_THREAD_CPUTIME_ID, so other processes' load enters
 * only through caches): a walk (mon_unwind from a ucontext_t, built -O2
 * -fomit-frame-pointer: CFI only) and a count in the table
 * (mon_stack_table_add), at the bottom of a recursion DEPTH calls deep
 * under main, and gettid(2) (what the per-thread cache saves).  Links
 * libmon.a for the hidden interfaces; bench/stacks_cost.sh builds and runs
 * it.  Not part of make check.
 *   stacks_walk [DEPTH [N [CAP]]]   prints "walk DEPTH frames F ns", "add ns",
 *                             "gettid ns"; CAP (default 64, up to
 *                             MON_STACK_DEPTH_MAX) is the PCs kept, as
 *                             MONPROF_STACK_DEPTH (bench/stacks_depth.sh)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "stacks.h"
#include "unwind.h"

static double cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static long n_ops = 200000;
static unsigned cap = 64;

__attribute__((noinline)) static void measure(void)
{
	ucontext_t uc;
	getcontext(&uc);
	uintptr_t pcs[MON_STACK_DEPTH_MAX];
	unsigned flags = 0, n = 0;
	double t0 = cpu_ns();
	for (long i = 0; i < n_ops; i++)
		n = mon_unwind(&uc, pcs, cap, &flags);
	double walk = (cpu_ns() - t0) / (double)n_ops;
	struct mon_stack_table *t = mon_stack_table_new(MON_STACKS_DEFAULT, cap);
	if (t == NULL)
		exit(1);
	t0 = cpu_ns();
	for (long i = 0; i < n_ops; i++)
		mon_stack_table_add(t, 1, flags, pcs, n, 1);
	double add = (cpu_ns() - t0) / (double)n_ops;
	t0 = cpu_ns();
	for (long i = 0; i < n_ops; i++)
		(void)syscall(SYS_gettid);
	double gt = (cpu_ns() - t0) / (double)n_ops;
	printf("walk %u frames flags %u: %.0f ns\nadd (an existing stack): %.0f ns\ngettid: %.0f ns\n", n,
	       flags, walk, add, gt);
	mon_stack_table_free(t);
}

__attribute__((noinline)) static int recurse(int d)
{
	volatile int here = d;
	if (d > 1)
		recurse(d - 1);
	else
		measure();
	return here;
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 40;
	if (argc > 2)
		n_ops = atol(argv[2]);
	if (argc > 3)
		cap = (unsigned)atoi(argv[3]);
	if (cap < 1 || cap > MON_STACK_DEPTH_MAX)
		cap = 64;
	if (mon_unwind_refresh() < 0) {
		perror("mon_unwind_refresh");
		return 1;
	}
	recurse(depth);
	return 0;
}
