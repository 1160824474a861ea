/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * itimer_own_eintr.c — a program whose own signal handler ends its own
 * sleep, for tests/integ/monrun_itimer_stolen.sh: the itimer clock must not
 * take that EINTR for one of its ticks'.  One thread.  A SIGALRM handler,
 * installed with SA_ONSTACK and without SA_RESTART (libmon blocks its
 * ticks in such a handler: a tick its CPU raises is held until the
 * handler's sigreturn, which returns into the nanosleep it ended), spins
 * 10 ms of CPU; it ends ten 1 s nanosleep(2) calls 1 ms into each.  A
 * round whose alarm came before nanosleep began (the thread preempted for
 * the millisecond, on a loaded machine: "eintr 9" unprofiled) is done
 * again, at most 30 times, and said on standard error.  Then main spins
 * 0.5 CPU-s in own_main_spin.
 *
 * Prints "eintr N" (10: the program's own); exit 0.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static volatile unsigned long sink;

static double thread_cpu(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

__attribute__((noinline)) static void spin(double s)
{
	double t0 = thread_cpu();
	do {
		for (int i = 0; i < 20000; i++)
			sink += (unsigned long)i * 2654435761u;
	} while (thread_cpu() - t0 < s);
}

static volatile sig_atomic_t sleeping, early;

static void on_alarm(int sig)
{
	(void)sig;
	if (!sleeping)
		early = 1;	/* before nanosleep began: that round proves nothing */
	spin(0.01);
}

__attribute__((noinline)) static void own_main_spin(double s)
{
	spin(s);
	__asm__ volatile("" ::: "memory");	/* not a tail call */
}

int main(void)
{
	static char alt[65536];
	stack_t ss = { .ss_sp = alt, .ss_size = sizeof alt };
	sigaltstack(&ss, NULL);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGALRM, &sa, NULL);
	int eintr = 0, raced = 0;
	for (int done = 0; done < 10 && raced < 30;) {
		struct itimerval it = { { 0, 0 }, { 0, 1000 } };
		early = 0;
		sleeping = 0;
		setitimer(ITIMER_REAL, &it, NULL);
		struct timespec ts = { 1, 0 };
		sleeping = 1;
		int r = nanosleep(&ts, NULL);
		sleeping = 0;
		if (early) {
			raced++;	/* preempted past the 1 ms before the call */
			continue;
		}
		if (r < 0 && errno == EINTR)
			eintr++;
		done++;
	}
	own_main_spin(0.5);
	printf("eintr %d\n", eintr);
	if (raced)
		fprintf(stderr, "itimer_own_eintr: %d rounds redone: the alarm came before nanosleep "
			"began (a loaded machine)\n", raced);
	return 0;
}
