/* SPDX-License-Identifier: BSD-2-Clause */
/* mon_calls.c — call counting under gcc -pg / -finstrument-functions.
   Usage: mon_calls N THREADS SPIN: each of THREADS threads (0: main thread
   only) calls leaf() N times from one call site and leaf2() N times from
   two; spin(SPIN) burns CPU first.  leaf takes and returns a double, so a
   counting hook that clobbered floating-point registers shows as a wrong
   sum (exit 3). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

__attribute__((noinline)) double leaf(double x, double y)
{
	return x * 2.0 + y;
}

__attribute__((noinline)) void leaf2(int k)
{
	sink += k;
}

__attribute__((noinline)) void spin(long n)
{
	for (long i = 0; i < n; i++)
		sink += i * 0.5;
}

static long per;

static void *worker(void *arg)
{
	double sum = 0;
	(void)arg;
	for (long i = 0; i < per; i++) {
		sum += leaf((double)i, 0.25);
		if (i & 1)
			leaf2(1);
		else
			leaf2(2);
	}
	double want = 0;
	for (long i = 0; i < per; i++)
		want += (double)i * 2.0 + 0.25;
	if (sum != want) {
		fprintf(stderr, "mon_calls: floating-point argument clobbered\n");
		exit(3);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	per = argc > 1 ? atol(argv[1]) : 1234;
	int nt = argc > 2 ? atoi(argv[2]) : 0;
	long sp = argc > 3 ? atol(argv[3]) : 0;
	spin(sp);
	if (nt <= 0) {
		worker(NULL);
	} else {
		pthread_t t[64];
		if (nt > 64)
			nt = 64;
		for (int i = 0; i < nt; i++)
			pthread_create(&t[i], NULL, worker, NULL);
		for (int i = 0; i < nt; i++)
			pthread_join(t[i], NULL);
	}
	return 0;
}
