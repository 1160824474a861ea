/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dlopen_cycle.c — a plug-in host that loads and unloads a large library
 * over and over, for tests/integ/monrun_own_dlopen.sh: each load makes
 * libmon do its own work in this thread (the new object's histogram,
 * unwind table and file list), which must be neither sampled as this
 * program's nor reported missing.
 *
 *   dlopen_cycle LIB SECONDS
 *
 * Until this thread has used SECONDS of CPU: dlopen(LIB, RTLD_NOW),
 * dlclose, then cycle_spin for about 0.5 ms of CPU.  Prints "cycles N",
 * "spin_cpu S" (the CPU seconds cycle_spin used) and "cpu S" (the
 * thread's at the end).  Exit 0; 1 when a dlopen fails.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static volatile unsigned long sink;

__attribute__((noinline)) static void cycle_spin(double s)
{
	double end = cpu_s() + s;
	while (cpu_s() < end)
		for (int i = 0; i < 1000; i++)
			sink += (unsigned long)i * 7;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: dlopen_cycle LIB SECONDS\n");
		return 2;
	}
	double until = atof(argv[2]), spin = 0;
	unsigned long n = 0;
	while (cpu_s() < until) {
		void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
		if (h == NULL) {
			fprintf(stderr, "dlopen_cycle: %s\n", dlerror());
			return 1;
		}
		dlclose(h);
		double t0 = cpu_s();
		cycle_spin(0.0005);
		spin += cpu_s() - t0;
		n++;
	}
	printf("cycles %lu\nspin_cpu %.6f\ncpu %.6f\n", n, spin, cpu_s());
	return 0;
}
