/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cpu_pause — CPU used while profiling is off (moncontrol(0), monitor(3))
 * is not CPU the profile missed (tests/integ/coverage_pause.sh).  Linked
 * with libmon, run under monrun.
 *
 *   cpu_pause [CPU_S]   (default 0.2)
 *
 * main spins CPU_S CPU-seconds in spin_on, calls moncontrol(0), starts a
 * thread that spins 2 * CPU_S in spin_off while main spins 2 * CPU_S in
 * spin_off too, joins it, calls moncontrol(1) and spins CPU_S in spin_on
 * again.  So two thirds of the process's CPU is used while profiling is
 * off, part of it in a thread that ends then.  Prints "off S" and "on S"
 * (the process CPU-seconds of each part); exit 0.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <mon.h>

static double cpu_s = 0.2;
static volatile unsigned long sink;

static double clock_s(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Spins s CPU-seconds of this thread, looking at its CPU clock (a system
 * call: CLOCK_THREAD_CPUTIME_ID has no vDSO path) about once a millisecond,
 * so that nearly all of it is user time. */
#define DEFINE_SPIN_FN(name)                                                      \
	__attribute__((noinline)) static void name(double s)                      \
	{                                                                         \
		double t0 = clock_s(CLOCK_THREAD_CPUTIME_ID);                     \
		do {                                                              \
			for (int i = 0; i < 1000000; i++)                         \
				sink += (unsigned long)i * 2654435761u;           \
		} while (clock_s(CLOCK_THREAD_CPUTIME_ID) - t0 < s);              \
	}
DEFINE_SPIN_FN(spin_on)
DEFINE_SPIN_FN(spin_off)

static void *worker(void *arg)
{
	(void)arg;
	spin_off(2 * cpu_s);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		cpu_s = atof(argv[1]);
	double p0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	spin_on(cpu_s);
	double p1 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	moncontrol(0);
	pthread_t t;
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 2;
	spin_off(2 * cpu_s);
	pthread_join(t, NULL);
	double p2 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	moncontrol(1);
	spin_on(cpu_s);
	double p3 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	printf("off %.3f\non %.3f\n", p2 - p1, (p1 - p0) + (p3 - p2));
	return 0;
}
