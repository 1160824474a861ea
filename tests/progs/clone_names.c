/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clone_names.c — work in functions gcc copies under -O2: heavy and light
 * are static, never inlined, and always called with the same constant
 * second argument, so gcc's interprocedural constant propagation compiles
 * them as heavy.constprop.0 and light.constprop.0 (and the unused
 * argument gone).  tests/integ/prof_clone_names.sh names them without the
 * suffix.  Burns about SECONDS (argv[1], default 0.3) of CPU, three
 * quarters in heavy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static __attribute__((noinline)) double heavy(double seconds, int step)
{
	volatile double s = 0;
	double end = cpu_now() + seconds;
	while (cpu_now() < end)
		for (int i = 0; i < 10000; i += step)
			s = s + i * 1e-9;
	return s;
}

static __attribute__((noinline)) double light(double seconds, int step)
{
	volatile double s = 0;
	double end = cpu_now() + seconds;
	while (cpu_now() < end)
		for (int i = 0; i < 10000; i += step)
			s = s - i * 1e-9;
	return s;
}

int main(int argc, char **argv)
{
	double t = argc > 1 ? atof(argv[1]) : 0.3;
	printf("%f\n", heavy(0.75 * t, 1) + light(0.25 * t, 1));
	return 0;
}
