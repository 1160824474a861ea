/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest_rtsig.c — a program that owns every real-time signal: a counting
 * handler on each (SIGRTMAX-6, the profiler's default, among them), sends
 * itself signals and checks that exactly its own arrive, and that what
 * sigaction and sigprocmask report is what it set.
 *
 *   guest_rtsig [SECONDS]
 *
 * Spins SECONDS (default 0.3) of CPU in rt_spin while sending itself 100
 * SIGRTMAX-6 (sigqueue and pthread_kill, alternately); then blocks
 * SIGRTMAX-6, sends one more, checks that it is pending and not handled,
 * unblocks it and checks it was handled once.  Prints "rt_spin CPU" and
 * exits 0 when every check held, 1 (with the reason) otherwise.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "monrun_common.h"

DEFINE_SPIN(rt_spin)

static volatile sig_atomic_t count[80];

static void on_rt(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	count[sig]++;
}

#define FAIL(...)                                                               \
	do {                                                                    \
		fprintf(stderr, "guest_rtsig: " __VA_ARGS__);                   \
		fputc('\n', stderr);                                            \
		return 1;                                                       \
	} while (0)

int main(int argc, char **argv)
{
	double total = mr_seconds(argc > 1 ? argv[1] : NULL, 0.3);
	const int ours = SIGRTMAX - 6;
	struct sigaction sa, got;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_rt;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR2);
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
		if (sigaction(s, &sa, NULL) != 0)
			FAIL("sigaction(%d): %s", s, strerror(errno));
	double used = 0;
	for (int i = 0; i < 100; i++) {
		if (i % 2) {
			union sigval v = { .sival_int = i };
			sigqueue(getpid(), ours, v);
		} else {
			pthread_kill(pthread_self(), ours);
		}
		used += rt_spin(total / 100);
	}
	if (count[ours] != 100)
		FAIL("%d of 100 SIGRTMAX-6 of its own reached the handler", (int)count[ours]);
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
		if (s != ours && count[s] != 0)
			FAIL("signal %d handled %d times, never sent", s, (int)count[s]);
	/* What it set is what it is told. */
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++) {
		if (sigaction(s, NULL, &got) != 0 || got.sa_sigaction != on_rt ||
		    !(got.sa_flags & SA_SIGINFO))
			FAIL("sigaction(%d) does not report the program's handler", s);
		for (int k = 1; k < NSIG; k++)
			if (sigismember(&got.sa_mask, k) != sigismember(&sa.sa_mask, k))
				FAIL("sigaction(%d) reports signal %d %s its mask", s, k,
				     sigismember(&got.sa_mask, k) ? "in" : "not in");
	}
	/* Blocked in its view: pending, not handled, until unblocked. */
	sigset_t one, cur, pend;
	sigemptyset(&one);
	sigaddset(&one, ours);
	sigprocmask(SIG_BLOCK, &one, NULL);
	sigprocmask(SIG_BLOCK, NULL, &cur);
	if (!sigismember(&cur, ours))
		FAIL("sigprocmask does not report SIGRTMAX-6 blocked");
	int before = count[ours];
	pthread_kill(pthread_self(), ours);
	used += rt_spin(total / 10);
	sigpending(&pend);
	if (count[ours] != before)
		FAIL("a blocked SIGRTMAX-6 reached the handler");
	if (!sigismember(&pend, ours))
		FAIL("the blocked SIGRTMAX-6 is not pending");
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	if (count[ours] != before + 1)
		FAIL("unblocking delivered %d, not 1", (int)count[ours] - before);
	printf("rt_spin %.6f\n", used);
	return 0;
}
