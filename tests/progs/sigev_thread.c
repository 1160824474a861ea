/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sigev_thread.c — CPU used in a thread the C library starts itself: a
 * POSIX timer with SIGEV_THREAD notification (timer_create(2)), whose
 * callback glibc runs in a thread of its own making, started with its
 * internal pthread_create (tests/integ/monrun_c11.sh).
 *
 *   sigev_thread [CPU_S]
 *
 * The timer fires once after 10 ms; its callback spins CPU_S (default 0.3)
 * CPU-seconds of its thread's own CPU clock in sigev_spin and posts a
 * semaphore, which main waits for (using no CPU), then main waits (at most
 * 2 s) for that thread to be gone from /proc/self/task, so that it has
 * ended before the profile is written.  Prints "spun S"; exit 0.
 */
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "sigev_once.h"

static double cpu_s = 0.3, spun;
static sem_t done;
static volatile unsigned long sink;

static double thread_cpu(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

__attribute__((noinline)) static void sigev_spin(union sigval v)
{
	(void)v;
	double t0 = thread_cpu(), t;
	do {
		for (int i = 0; i < 20000; i++)
			sink += (unsigned long)i * 2654435761u;
	} while ((t = thread_cpu()) - t0 < cpu_s);
	spun = t - t0;
	sem_post(&done);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		cpu_s = atof(argv[1]);
	sem_init(&done, 0, 0);
	if (sigev_once(sigev_spin, 10000000) != 0)
		return 2;
	while (sem_wait(&done) != 0)
		;
	/* The callback's thread ends after it returns: wait until only main
	 * and the timer's helper thread are left (the link count of
	 * /proc/self/task is 2 plus the threads). */
	for (int i = 0; i < 200; i++) {
		struct stat st;
		if (stat("/proc/self/task", &st) != 0 || st.st_nlink <= 2 + 2)
			break;
		struct timespec ts = { 0, 10000000 };
		nanosleep(&ts, NULL);
	}
	printf("spun %.3f\n", spun);
	return 0;
}
