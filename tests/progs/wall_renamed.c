/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wall_renamed.c — a thread that names itself after it starts and never
 * blocks, for the wall sampler's thread names (lib/wall.c: a running
 * thread's name is read again at most once a second).
 *
 *   wall_renamed [MS]
 *
 * main starts one thread and joins it.  The thread spins on the CPU for
 * 300 ms under the name it was given (the program's), names itself
 * "late_name" (pthread_setname_np(3)) and spins MS milliseconds more (1500).
 * Prints "renamed TID"; exit 0.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long spin_ms = 1500;
static pid_t tid;
static volatile unsigned long sink;

static void spin(long ms)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 10000; i++)
			sink += (unsigned long)i * 2654435761u;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

static void *worker(void *arg)
{
	(void)arg;
	tid = gettid();
	spin(300);
	pthread_setname_np(pthread_self(), "late_name");
	spin(spin_ms);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		spin_ms = atol(argv[1]);
	pthread_t t;
	if (pthread_create(&t, NULL, worker, NULL) != 0 || pthread_join(t, NULL) != 0)
		return 2;
	printf("renamed %d\n", (int)tid);
	return 0;
}
