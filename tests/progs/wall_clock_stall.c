/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wall_clock_stall.c — a preloaded shared library (before libmon.so in
 * LD_PRELOAD: libmon's syscall(2) passes through to the C library's) whose
 * syscall(2) makes another
 * thread's CPU-time clock stand still, as the scheduler's task clock does
 * on a virtual machine whose host steals the time a thread ran (the kernel
 * leaves stolen time out of it: CONFIG_PARAVIRT_TIME_ACCOUNTING).  For
 * tests/integ/wall_stalled.sh.
 *
 * clock_gettime(2) through syscall(2) of a per-thread CPU clock (the id
 * pthread_getcpuclockid(3) makes: ~tid << 3 | 6) of a thread other than
 * the caller reads 1 ms, always.  Every other call is passed through.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

long syscall(long nr, ...)
{
	static long (*next)(long, ...);
	va_list ap;
	va_start(ap, nr);
	long a[6];
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (next == NULL)
		next = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	int clock = (int)a[0];	/* a clockid_t: an int, the register's upper half not defined */
	if (nr == SYS_clock_gettime && clock < 0 && (clock & 7) == 6 && ~(clock >> 3) != gettid()) {
		long r = next(nr, a[0], a[1]);
		if (r == 0) {
			struct timespec *ts = (struct timespec *)a[1];
			ts->tv_sec = 0;
			ts->tv_nsec = 1000000;
		}
		return r;
	}
	return next(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
