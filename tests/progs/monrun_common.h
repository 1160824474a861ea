/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * monrun_common.h — helpers shared by the programs that monrun(1) profiles in
 * tests/integ/monrun_*.sh (tests/progs/monrun_*.c and the shared objects and
 * plugins built from them).
 *
 * These are ordinary programs: they are not linked with libmon and know
 * nothing of profiling.  They burn CPU in functions with names of their own
 * and print, for each, the CPU time it really used ("NAME SECONDS" lines on
 * standard output), so that a test can hold prof's report against the truth.
 *
 * Work is measured in CPU time, never in wall-clock time: a spin function
 * runs until its thread has used the CPU time asked for
 * (CLOCK_THREAD_CPUTIME_ID), however busy the machine is.  The loop lives in
 * the named function itself (spin_body is forced inline) and looks at the
 * clock only every SPIN_STRIDE iterations, so the time spent in
 * clock_gettime — charged to the C library — is a fraction of a percent.
 */
#ifndef MONRUN_COMMON_H
#define MONRUN_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define SPIN_STRIDE 200000

/* CPU seconds used so far by the calling thread. */
static inline double mr_thread_cpu(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) {
		perror("clock_gettime");
		exit(1);
	}
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Spin until the calling thread has used `seconds` more CPU time; returns
 * the CPU time actually used (slightly more than asked). */
static inline __attribute__((always_inline)) double spin_body(double seconds)
{
	volatile unsigned long acc = 0;
	double start = mr_thread_cpu(), now;
	do {
		for (unsigned long i = 0; i < SPIN_STRIDE; i++)
			acc = acc * 2862933555777941757ul + i;
		now = mr_thread_cpu();
	} while (now - start < seconds);
	return now - start;
}

/* A distinct, never-inlined spin function called NAME. */
#define DEFINE_SPIN(NAME)                                                       \
	__attribute__((noinline)) double NAME(double seconds);                  \
	__attribute__((noinline)) double NAME(double seconds)                   \
	{                                                                       \
		return spin_body(seconds);                                      \
	}

/* A number of CPU seconds from argv, with a default. */
static inline double mr_seconds(const char *arg, double dflt)
{
	if (arg == NULL)
		return dflt;
	char *end;
	double v = strtod(arg, &end);
	if (*end != '\0' || v < 0 || v > 10) {
		fprintf(stderr, "bad CPU seconds '%s'\n", arg);
		exit(2);
	}
	return v;
}

#endif /* MONRUN_COMMON_H */
