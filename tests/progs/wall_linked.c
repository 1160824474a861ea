/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wall_linked — a program profiled by libmon itself, not by monrun, for
 * tests/integ/wall_linked.sh: wall-clock sampling asked by MONPROF_WALL in
 * a -pg, a -finstrument-functions and a monstartup() program.
 *
 *   wall_linked auto       profiled as its build makes it (-pg, or
 *                          -finstrument-functions: libmon starts at load)
 *   wall_linked explicit   calls monstartup() over its text first (built
 *                          with -DEXPLICIT, linked with -lmon)
 *
 * A thread naps in nap(): 25 nanosleep calls of 20 ms; meanwhile main
 * spins in spin() until the napper is done.  Prints "napper TID".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef EXPLICIT
#include <mon.h>
extern char etext;
#endif

static volatile int napped;
static volatile double sink;

__attribute__((noinline)) static void nap(void)
{
	for (int i = 0; i < 25; i++) {
		struct timespec d = { 0, 20000000 };
		while (nanosleep(&d, &d) != 0)
			;
	}
}

static void *napper(void *a)
{
	(void)a;
	printf("napper %d\n", (int)gettid());
	fflush(stdout);
	nap();
	__atomic_store_n(&napped, 1, __ATOMIC_RELEASE);
	return NULL;
}

__attribute__((noinline)) static void spin(void)
{
	double x = 0;
	while (!__atomic_load_n(&napped, __ATOMIC_ACQUIRE))
		for (int i = 0; i < 10000; i++)
			x += i * 0.5;
	sink = x;
}

int main(int argc, char **argv)
{
#ifdef EXPLICIT
	if (argc > 1 && !strcmp(argv[1], "explicit") &&
	    monstartup((int (*)(void))2, (int (*)(void))&etext) != 0) {
		perror("monstartup");
		return 1;
	}
#else
	(void)argc;
	(void)argv;
#endif
	pthread_t t;
	if (pthread_create(&t, NULL, napper, NULL) != 0)
		return 1;
	spin();
	pthread_join(t, NULL);
	return 0;
}
