/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * itimer_waiter_cpu.c — a waiting thread with CPU of its own not yet
 * charged, and a tick raised by another thread of the program's, for
 * tests/integ/monrun_itimer_stolen.sh.  Under the itimer clock the kernel
 * gives SIGPROF to a thread that does not block it when the one whose CPU
 * expired the timer does (kernel/signal.c complete_signal); the receiver
 * here has spun 30 ms of CPU that no tick charged, as a thread that wakes
 * often for a little while has over its life.
 *
 * Three threads, each blocking signals for real where said (the raw
 * rt_sigprocmask(2), past libmon's virtual blocking):
 *   - main starts the others, blocks every signal, joins them;
 *   - waiter blocks every signal, spins 30 ms of CPU (the ticks it raises
 *     go to raiser, waiting in a futex(2) that restarts: SA_RESTART), lets
 *     signals in again, tells raiser to start, and sleeps 50 nanosleep(2)
 *     calls of 20 ms, counting those that fail with EINTR;
 *   - raiser waits, blocks every signal, spins 0.5 CPU-s in raiser_spin.
 *
 * Prints "eintr N" (0 unprofiled); exit 0, 2 on an error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static int go;		/* 0 until waiter has spun; futex word */

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

/* Block (1) or let in (0) every signal for real. */
static void block_all(int on)
{
	sigset_t m;
	if (on)
		sigfillset(&m);
	else
		sigemptyset(&m);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &m, NULL, (size_t)(_NSIG / 8));
}

static void *waiter(void *arg)
{
	int *eintr = arg;
	block_all(1);
	spin(0.03);
	block_all(0);
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &go, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	for (int i = 0; i < 50; i++) {
		struct timespec ts = { 0, 20000000 };
		if (nanosleep(&ts, NULL) != 0 && errno == EINTR)
			++*eintr;
	}
	return NULL;
}

__attribute__((noinline)) static void raiser_spin(double s)
{
	spin(s);
	__asm__ volatile("" ::: "memory");	/* not a tail call */
}

static void *raiser(void *arg)
{
	(void)arg;
	while (__atomic_load_n(&go, __ATOMIC_ACQUIRE) == 0)
		syscall(SYS_futex, &go, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
	block_all(1);
	raiser_spin(0.5);
	return NULL;
}

int main(void)
{
	pthread_t w, r;
	int eintr = 0;
	if (pthread_create(&r, NULL, raiser, NULL) != 0 ||
	    pthread_create(&w, NULL, waiter, &eintr) != 0)
		return 2;
	block_all(1);
	pthread_join(w, NULL);
	pthread_join(r, NULL);
	block_all(0);
	printf("eintr %d\n", eintr);
	return 0;
}
