/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wall_group_stop.c — two threads for a stop of the whole process, for
 * tests/integ/wall_stopped.sh: main spins on the CPU in spin_wall until
 * SECONDS (default 3) of CLOCK_MONOTONIC have passed, whatever stops it;
 * a second thread sleeps in 100 ms nanosleep(2) calls (usleep) for as
 * long.  The test stops the process with SIGSTOP for a while and continues
 * it: then each thread's wall-clock time is its state's (running,
 * blocked) but for the stop, which is stopped.
 *
 *   wall_group_stop [SECONDS]
 *
 * Prints "done"; exit 0.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static double seconds = 3;

static double mono(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

__attribute__((noinline)) static void spin_wall(double end)
{
	while (mono() < end)
		for (int i = 0; i < 1000; i++)
			sink += (unsigned long)i;
}

static void *sleeper(void *arg)
{
	double end = *(const double *)arg;
	while (mono() < end)
		usleep(100000);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		seconds = atof(argv[1]);
	double end = mono() + seconds;
	pthread_t t;
	if (pthread_create(&t, NULL, sleeper, &end) != 0)
		return 2;
	spin_wall(end);
	pthread_join(t, NULL);
	puts("done");
	return 0;
}
