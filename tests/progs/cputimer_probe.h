/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cputimer_probe.h — the number of independent samples a CPU-time timer
 * gives on this machine, measured by the test program itself (for the share
 * tests run with monrun's thread and itimer clocks: guest_handlers.c,
 * guest_reset.c).
 *
 * The probe: a CPU-time timer of the program's own (CLOCK_THREAD_CPUTIME_ID
 * of the thread that starts it, 1 ms, SIGRTMAX-1 to the process).  The
 * kernel checks CPU-time timers only at its tick, and only in the thread
 * that is on the CPU then (timer_create(2), time(7): "the accuracy ... is
 * limited by the resolution of the software clock"); on a loaded machine (a
 * virtual one whose processor the host takes away, or one whose scheduler
 * switches between ticks) a timer's signal comes 10 to 140 ms of CPU late,
 * its overrun (timer_getoverrun(2), si_overrun) counting the periods missed
 * (measured: 14 to 70 signals in 0.5 CPU-s, 125 expected at 250 Hz).  A
 * profiling clock that is such a timer (monrun's thread and itimer clocks)
 * is checked at the same ticks, so its samples are as few and as unequal:
 * a sample of weight w (1 + overrun) charges w periods to one PC.  The
 * probe counts what the kernel gave: the number of independent samples a
 * weighted share is worth is (sum w)^2 / sum w^2 (Kish's effective sample
 * size), printed by probe_print as "probe_neff N" with "probe_signals S"
 * and "probe_periods W".
 *
 * The probe must not move the clock's samples: both signals come at the
 * same return to user mode, and the kernel sets up a frame for each pending
 * signal, the first dequeued at the bottom; the handler on top runs first,
 * and the PC it is given is the entry of the handler below.  The kernel
 * dequeues a thread's own pending signals before the process's, each set
 * lowest number first (dequeue_signal, kernel/signal.c), so the probe is a
 * process-directed signal above the clock's: the thread clock's SIGRTMAX-6
 * (to the thread) and the itimer clock's SIGPROF (to the process) are
 * dequeued first and sample the program's PC.  (Measured: a probe on
 * SIGRTMIN+1 to the thread got 100 % of both clocks' samples.)
 *
 * One probe a process, started once by its only thread (or by the thread
 * whose CPU the test counts).  A program that resets every signal's action
 * keeps PROBE_SIGNAL's (its default action ends the process).  Timers are
 * not inherited by fork children (timer_create(2)), nor pending signals
 * (fork(2)), so a child may reset it.
 */
#ifndef CPUTIMER_PROBE_H
#define CPUTIMER_PROBE_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The probe's signal: process-directed, above both clocks' (top of file). */
#define PROBE_SIGNAL (SIGRTMAX - 1)

/* The probe's counts: signals, sum of weights (periods), sum of squares. */
struct probe_counts {
	volatile unsigned long signals;
	volatile double w, w2;
};

/* The one probe's counts (one object for every file of the program). */
static inline struct probe_counts *probe_counts(void)
{
	static struct probe_counts c;
	return &c;
}

/* PROBE_SIGNAL's handler: one signal, of weight 1 + si_overrun periods
 * (sigaction(2): si_overrun for SI_TIMER).  Async-signal-safe. */
static inline void probe_on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	struct probe_counts *c = probe_counts();
	double w = 1.0 + (si->si_code == SI_TIMER && si->si_overrun > 0 ? si->si_overrun : 0);
	c->signals++;
	c->w += w;
	c->w2 += w * w;
}

/* The effective number of samples so far, (sum w)^2 / sum w^2: 0 before
 * the first signal, at most the number of signals. */
static inline double probe_neff(void)
{
	struct probe_counts *c = probe_counts();
	return c->w2 > 0 ? c->w * c->w / c->w2 : 0;
}

/* Start the probe: 1 ms periods of the calling thread's CPU, PROBE_SIGNAL
 * to the process (SA_RESTART: the program's system calls go on).  If
 * sigaction(2), timer_create(2) or timer_settime(2) fails (qemu-user's
 * timer_create refuses a thread CPU clock with EINVAL), says so on
 * standard error and goes on without it: probe_neff stays 0, and a test
 * that needs it reports that it has no samples to judge by. */
static inline void probe_start(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = probe_on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	struct sigevent se;
	memset(&se, 0, sizeof se);
	se.sigev_notify = SIGEV_SIGNAL;
	se.sigev_signo = PROBE_SIGNAL;
	timer_t t;
	struct itimerspec it = { { 0, 1000000 }, { 0, 1000000 } };
	if (sigaction(PROBE_SIGNAL, &sa, NULL) != 0 ||
	    timer_create(CLOCK_THREAD_CPUTIME_ID, &se, &t) != 0 || timer_settime(t, 0, &it, NULL) != 0) {
		perror("probe: unavailable");
		sigaction(PROBE_SIGNAL, &(struct sigaction){ .sa_handler = SIG_DFL }, NULL);
	}
}

/* Print the probe's counts and the rounds run: "probe_signals S",
 * "probe_periods W", "probe_neff N", "rounds R" lines on standard output. */
static inline void probe_print(int rounds)
{
	struct probe_counts *c = probe_counts();
	printf("probe_signals %lu\nprobe_periods %.0f\nprobe_neff %.1f\nrounds %d\n", c->signals, c->w,
	       probe_neff(), rounds);
}

#endif /* CPUTIMER_PROBE_H */
