/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * c11_threads.c — threads made with C11's thrd_create(3), which glibc
 * makes with its internal pthread_create (no interposed pthread_create
 * sees them): tests/integ/monrun_c11.sh.
 *
 *   c11_threads [CPU_S]
 *
 * Two threads each spin CPU_S (default 0.2) CPU-seconds of their own
 * thread CPU clock in c11_spin; the first returns 42 from its start
 * routine, the second ends with thrd_exit(7).  main joins both (it uses no
 * CPU meanwhile) and prints "results R1 R2" and "spun S" (the threads'
 * CPU-seconds); exit 0 when thrd_create and thrd_join succeeded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <threads.h>
#include <time.h>

static double cpu_s = 0.2;
static volatile unsigned long sink;

static double thread_cpu(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

__attribute__((noinline)) static double c11_spin(void)
{
	double t0 = thread_cpu(), t;
	do {
		for (int i = 0; i < 20000; i++)
			sink += (unsigned long)i * 2654435761u;
	} while ((t = thread_cpu()) - t0 < cpu_s);
	return t - t0;
}

static double spun[2];

static int returns(void *arg)
{
	(void)arg;
	spun[0] = c11_spin();
	return 42;
}

static int exits(void *arg)
{
	(void)arg;
	spun[1] = c11_spin();
	thrd_exit(7);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		cpu_s = atof(argv[1]);
	thrd_t a, b;
	int ra = -1, rb = -1;
	if (thrd_create(&a, returns, NULL) != thrd_success ||
	    thrd_create(&b, exits, NULL) != thrd_success)
		return 2;
	if (thrd_join(a, &ra) != thrd_success || thrd_join(b, &rb) != thrd_success)
		return 3;
	printf("results %d %d\nspun %.3f\n", ra, rb, spun[0] + spun[1]);
	return 0;
}
