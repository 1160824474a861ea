/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * itimer_stolen.c — a waiting thread and CPU used in a thread that blocks
 * every signal: a POSIX timer with SIGEV_THREAD notification
 * (timer_create(2)), whose callback glibc runs in a thread of its own
 * making with all signals blocked, spins CPU_S CPU-seconds (default 0.4)
 * in stolen_spin while main waits in nanosleep(2) calls of 2 ms, counting
 * those that failed with EINTR and those that returned 0 before their
 * time (CLOCK_MONOTONIC).  Under the itimer clock, ITIMER_PROF's SIGPROF
 * cannot go to the callback's thread, and the kernel gives it to main
 * (tests/integ/monrun_itimer_stolen.sh).  Then main forks a child that
 * spins CHILD_S CPU-seconds (default 0.2) in child_spin, with no thread
 * of the C library's, and waits for it.
 *
 *   itimer_stolen [CPU_S [CHILD_S]]
 *
 * Prints "eintr E early N of CALLS" and "child S"; exit 0, 2 if a call
 * failed otherwise.
 */
#include <errno.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sigev_once.h"

static double cpu_s = 0.4, child_s = 0.2;
static sem_t done;
static volatile unsigned long sink;

static double clock_s(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

__attribute__((noinline)) static void spin_for(double s)
{
	double t0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
	do {
		for (int i = 0; i < 20000; i++)
			sink += (unsigned long)i * 2654435761u;
	} while (clock_s(CLOCK_THREAD_CPUTIME_ID) - t0 < s);
}

__attribute__((noinline)) static void stolen_spin(union sigval v)
{
	(void)v;
	spin_for(cpu_s);
	sem_post(&done);
}

__attribute__((noinline)) static void child_spin(void)
{
	spin_for(child_s);
	__asm__ volatile("" ::: "memory");	/* not a tail call: child_spin stays on the stack */
}

int main(int argc, char **argv)
{
	if (argc > 1)
		cpu_s = atof(argv[1]);
	if (argc > 2)
		child_s = atof(argv[2]);
	sem_init(&done, 0, 0);
	if (sigev_once(stolen_spin, 10000000) != 0)
		return 2;
	unsigned calls = 0, eintr = 0, early = 0;
	while (sem_trywait(&done) != 0) {
		struct timespec ts = { 0, 2000000 };
		double t0 = clock_s(CLOCK_MONOTONIC);
		int rc = nanosleep(&ts, NULL);
		double t = clock_s(CLOCK_MONOTONIC) - t0;
		calls++;
		if (rc != 0 && errno == EINTR)
			eintr++;
		else if (rc != 0)
			return 2;
		else if (t < 0.002)
			early++;
	}
	printf("eintr %u early %u of %u\n", eintr, early, calls);
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		child_spin();
		_exit(0);
	}
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 2;
	printf("child %.1f\n", child_s);
	return 0;
}
