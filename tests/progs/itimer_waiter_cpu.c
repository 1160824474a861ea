/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * itimer_waiter_cpu.c — a waiting thread with CPU of its own not yet
 * charged, and a tick raised by a thread the C library starts itself, for
 * tests/integ/monrun_itimer_stolen.sh.  Under the itimer clock the kernel
 * gives SIGPROF to a thread that does not block it when the one whose CPU
 * expired the timer does (kernel/signal.c complete_signal); the receiver
 * here, main, has spun 30 ms of CPU that no tick charged, as a thread that
 * wakes often for a little while has over its life, and is the only thread
 * libmon started or knows of when it is given the tick.
 *
 *   - main starts a helper thread, which waits in a futex(2) that restarts
 *     (SA_RESTART) and so takes the ticks main raises next;
 *   - main blocks every signal for real (the raw rt_sigprocmask(2), past
 *     libmon's virtual blocking), spins 30 ms of CPU, lets them in again,
 *     ends the helper and joins it;
 *   - a SIGEV_THREAD timer's callback (a thread of the C library's, every
 *     signal blocked) spins 0.5 CPU-s in raiser_spin, while main sleeps
 *     50 nanosleep(2) calls of 20 ms, counting those that fail with EINTR.
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

#include "monrun_common.h"
#include "sigev_once.h"

static int done;	/* futex word: 1 ends the helper */

DEFINE_SPIN(spin)
DEFINE_SPIN(raiser_spin)

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

static void *helper(void *arg)
{
	(void)arg;
	while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) == 0)
		syscall(SYS_futex, &done, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
	return NULL;
}

static void raiser(union sigval v)
{
	(void)v;
	raiser_spin(0.5);
}

int main(void)
{
	pthread_t h;
	if (pthread_create(&h, NULL, helper, NULL) != 0)
		return 2;
	block_all(1);
	spin(0.03);
	block_all(0);
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &done, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	pthread_join(h, NULL);
	if (sigev_once(raiser, 1000000) != 0)
		return 2;
	int eintr = 0;
	for (int i = 0; i < 50; i++) {
		struct timespec ts = { 0, 20000000 };
		if (nanosleep(&ts, NULL) != 0 && errno == EINTR)
			eintr++;
	}
	printf("eintr %d\n", eintr);
	return 0;
}
