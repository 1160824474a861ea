/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * unwind_cost.c — what a stack walk costs: libmon's unwinder (lib/unwind.c,
 * mon_unwind) and libunwind's local unw_backtrace, side by side in one run,
 * from the same signal handler at the same depths; plus the cost of one
 * checked read (process_vm_readv(2) of 8 bytes) and of compiling the
 * tables, and their memory for the C library and libpython3.11.
 * Built -O2 -fomit-frame-pointer (bench/unwind_cost.sh); with
 * -DHAVE_LIBUNWIND when libunwind-dev is there.
 *
 *   unwind_cost [WALKS]     (default 20000 walks per depth and method)
 *
 * The handler runs at the bottom of a recursion of depth D (10, 30, 100):
 * it walks WALKS times with each method and prints ns per walk and per
 * frame (frames as each method counts them: both go through the handler's
 * signal frame).  CPU time of the thread (CLOCK_THREAD_CPUTIME_ID).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#ifdef HAVE_LIBUNWIND
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#endif

#include "unwind.h"

static unsigned walks = 20000;
static volatile int depth_now;

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void handler(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)si;
	uintptr_t pcs[512];
	unsigned flags = 0, n = 0;
	double t0 = now_ns();
	for (unsigned i = 0; i < walks; i++)
		n = mon_unwind(ctx, pcs, 512, &flags);
	double mon = (now_ns() - t0) / walks;
	printf("depth %3d  mon_unwind     %7.0f ns/walk  %5.1f ns/frame  (%u frames, flags %u)\n",
	       depth_now, mon, mon / n, n, flags);
#ifdef HAVE_LIBUNWIND
	void *bt[512];
	int k = 0;
	t0 = now_ns();
	for (unsigned i = 0; i < walks; i++)
		k = unw_backtrace(bt, 512);
	double lu = (now_ns() - t0) / walks;
	printf("depth %3d  unw_backtrace  %7.0f ns/walk  %5.1f ns/frame  (%d frames, from the "
	       "handler)\n", depth_now, lu, k > 0 ? lu / k : 0.0, k);
	/* libunwind from the signal's context, as a profiler would use it. */
	unw_cursor_t c;
	t0 = now_ns();
	for (unsigned i = 0; i < walks; i++) {
		unw_init_local2(&c, (unw_context_t *)ctx, UNW_INIT_SIGNAL_FRAME);
		k = 1;
		while (unw_step(&c) > 0 && k < 512)
			k++;
	}
	double lc = (now_ns() - t0) / walks;
	printf("depth %3d  unw_step(ctx)  %7.0f ns/walk  %5.1f ns/frame  (%d frames)\n", depth_now,
	       lc, lc / k, k);
#endif
}

__attribute__((noinline)) static int rec(int n)
{
	if (n == 0) {
		raise(SIGUSR1);
		return 0;
	}
	int r = rec(n - 1);
	__asm__ volatile("" ::: "memory");
	return r + 1;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		walks = (unsigned)strtoul(argv[1], NULL, 10);
	void *py = dlopen("libpython3.11.so.1.0", RTLD_NOW | RTLD_LOCAL);
	double t0 = now_ns();
	if (mon_unwind_refresh() != 0)
		return 1;
	double compile = now_ns() - t0;
	unsigned nt, nlibc, npy;
	size_t all = mon_unwind_table_bytes(NULL, &nt);
	size_t libc = mon_unwind_table_bytes("libc.so", &nlibc);
	size_t lpy = mon_unwind_table_bytes("libpython3.11", &npy);
	printf("tables: %u objects, %zu bytes, compiled in %.1f ms of CPU; libc %zu bytes; "
	       "libpython3.11 %s%zu bytes\n", nt, all, compile / 1e6, libc,
	       py && npy ? "" : "(not loaded) ", lpy);
	t0 = now_ns();
	if (mon_unwind_refresh() != 0)
		return 1;
	printf("a refresh with nothing new: %.2f ms of CPU\n", (now_ns() - t0) / 1e6);
	/* One checked read. */
	uintptr_t v = 0, src = 42;
	pid_t pid = getpid();
	t0 = now_ns();
	for (unsigned i = 0; i < walks; i++) {
		struct iovec l = { &v, 8 }, r = { &src, 8 };
		syscall(SYS_process_vm_readv, pid, &l, 1ul, &r, 1ul, 0ul);
	}
	printf("process_vm_readv of 8 bytes: %.0f ns\n", (now_ns() - t0) / walks);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, NULL);
	static const int depths[] = { 10, 30, 100 };
	for (unsigned i = 0; i < 3; i++) {
		depth_now = depths[i];
		rec(depths[i]);
	}
	return 0;
}
