/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cputimer_probe.h — the number of independent samples a CPU-time timer
 * gives on this machine, measured by the test program itself (for the share
 * tests run with monrun's thread and itimer clocks: guest_handlers.c,
 * guest_reset.c, guest_clone.c; one a thread, read by the thread itself,
 * for a program that blocks every signal, guest_sigwait.c, and a share
 * between threads, guest_fds.c).
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
 * size), printed by probe_print as "probe_neff N" with "probe_signals S",
 * "probe_periods W" and "probe_wmax M", the largest weight: the periods
 * one late signal charged to one PC (where work changes, a late clock
 * signal charges the periods of the work before to the PC after).
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
 * (fork(2)), so a child may reset it, or start its own
 * (probe_restart_in_child).
 */
#ifndef CPUTIMER_PROBE_H
#define CPUTIMER_PROBE_H

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The probe's signal: process-directed, above both clocks' (top of file).
 * A program may choose another above SIGRTMAX-6 before including this
 * file.  Under qemu-user 7.2, timer_create(2) refuses the guest's
 * SIGRTMAX-1 with EINVAL and takes SIGRTMAX-2 to SIGRTMAX-8 (measured,
 * with CLOCK_THREAD_CPUTIME_ID and pthread_getcpuclockid(3)'s clock alike:
 * qemu maps the guest's real-time signals onto the host's and keeps some
 * of those for itself), so a64_stacks.c takes SIGRTMAX-2. */
#ifndef PROBE_SIGNAL
#define PROBE_SIGNAL (SIGRTMAX - 1)
#endif

/* The probe's counts: signals, sum of weights (periods), sum of squares,
 * the largest weight. */
struct probe_counts {
	volatile unsigned long signals;
	volatile double w, w2, wmax;
};

/* The one probe's counts (one object for every file of the program). */
static inline struct probe_counts *probe_counts(void)
{
	static struct probe_counts c;
	return &c;
}

/* Count one probe signal of `overrun` periods missed (si_overrun, 0 or
 * more) in C: weight 1 + overrun.  Async-signal-safe. */
static inline void probe_add(struct probe_counts *c, int overrun)
{
	double w = 1.0 + (overrun > 0 ? overrun : 0);
	c->signals++;
	c->w += w;
	c->w2 += w * w;
	if (w > c->wmax)
		c->wmax = w;
}

/* PROBE_SIGNAL's handler: one signal, of weight 1 + si_overrun periods
 * (sigaction(2): si_overrun for SI_TIMER).  Async-signal-safe. */
static inline void probe_on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	probe_add(probe_counts(), si->si_code == SI_TIMER ? si->si_overrun : 0);
}

/* The effective number of samples in C, (sum w)^2 / sum w^2: 0 before
 * the first signal, at most the number of signals. */
static inline double probe_neff_of(const struct probe_counts *c)
{
	return c->w2 > 0 ? c->w * c->w / c->w2 : 0;
}

/* The one probe's effective number of samples so far (probe_neff_of). */
static inline double probe_neff(void)
{
	return probe_neff_of(probe_counts());
}

/* Start the probe: 1 ms periods of the calling thread's CPU, PROBE_SIGNAL
 * to the process (SA_RESTART: the program's system calls go on).  If
 * sigaction(2), timer_create(2) or timer_settime(2) fails (qemu-user's
 * timer_create refuses the guest's SIGRTMAX-1 with EINVAL: PROBE_SIGNAL
 * above), says so on
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

/* In a child made by fork(2) or clone(2): forget the parent's counts (the
 * parent's timer is not inherited, timer_create(2)) and start the child's
 * own probe (probe_start).  The child's signals then count its own CPU. */
static inline void probe_restart_in_child(void)
{
	struct probe_counts *c = probe_counts();
	c->signals = 0;
	c->w = c->w2 = c->wmax = 0;
	probe_start();
}

/* A thread's own probe, for a program that blocks every signal in every
 * thread and reads them itself (guest_sigwait.c, guest_fds.c): a CPU-time
 * timer of the thread (CLOCK_THREAD_CPUTIME_ID, 1 ms), PROBE_SIGNAL to
 * that thread only (SIGEV_THREAD_ID, timer_create(2)), kept blocked and
 * read by the thread with probe_thread_read between steps of its work (no
 * handler runs, so no clock sample moves).  A signal read late counts the
 * periods it waited in si_overrun, so steps of about a period keep the
 * weights the kernel's. */
struct probe_thread {
	timer_t t;
	int on;			/* 1 while the timer exists */
	struct probe_counts c;	/* this thread's counts */
};

#if defined(__GLIBC__) && !defined(sigev_notify_thread_id)
#define sigev_notify_thread_id _sigev_un._tid
#endif

/* Start P for the calling thread, whose signal mask must block
 * PROBE_SIGNAL.  If timer_create(2) or timer_settime(2) fails, says so on
 * standard error and goes on without it (P counts nothing). */
static inline void probe_thread_start(struct probe_thread *p)
{
	memset(p, 0, sizeof *p);
	struct sigevent se;
	memset(&se, 0, sizeof se);
	se.sigev_notify = SIGEV_THREAD_ID;
	se.sigev_signo = PROBE_SIGNAL;
	se.sigev_notify_thread_id = (pid_t)syscall(SYS_gettid);
	struct itimerspec it = { { 0, 1000000 }, { 0, 1000000 } };
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &se, &p->t) != 0) {
		perror("probe: unavailable");
		return;
	}
	p->on = 1;
	if (timer_settime(p->t, 0, &it, NULL) != 0)
		perror("probe: unavailable");
}

/* Read the calling thread's pending probe signals (sigtimedwait(2) with a
 * zero timeout, PROBE_SIGNAL only) into P: each of weight 1 + si_overrun. */
static inline void probe_thread_read(struct probe_thread *p)
{
	if (!p->on)
		return;
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, PROBE_SIGNAL);
	struct timespec zero = { 0, 0 };
	siginfo_t si;
	int r;
	while ((r = sigtimedwait(&s, &si, &zero)) == PROBE_SIGNAL || (r < 0 && errno == EINTR))
		if (r == PROBE_SIGNAL)
			probe_add(&p->c, si.si_code == SI_TIMER ? si.si_overrun : 0);
}

/* Stop P: disarm and delete its timer, then read what is still pending,
 * so that nothing of the probe's stays pending for the thread. */
static inline void probe_thread_stop(struct probe_thread *p)
{
	if (!p->on)
		return;
	struct itimerspec off;
	memset(&off, 0, sizeof off);
	timer_settime(p->t, 0, &off, NULL);
	probe_thread_read(p);
	timer_delete(p->t);
	p->on = 0;
}

/* Spin SECONDS of CPU in SPIN (a spin function of monrun_common.h's
 * DEFINE_SPIN: CPU seconds asked, CPU seconds used), in steps of 1 ms,
 * reading the calling thread's probe P after each; returns the CPU used. */
static inline double probe_thread_spin(double (*spin)(double), double seconds, struct probe_thread *p)
{
	double used = 0;
	do {
		used += spin(0.001);
		probe_thread_read(p);
	} while (used < seconds);
	return used;
}

/* Add the counts of P into the process's probe (probe_counts), for
 * probe_neff and probe_print over every thread's probe. */
static inline void probe_thread_merge(const struct probe_thread *p)
{
	struct probe_counts *c = probe_counts();
	c->signals += p->c.signals;
	c->w += p->c.w;
	c->w2 += p->c.w2;
	if (p->c.wmax > c->wmax)
		c->wmax = p->c.wmax;
}

/* The effective number of samples of the process's probe (probe_counts)
 * and P's together, as if merged (probe_thread_merge). */
static inline double probe_neff_with(const struct probe_thread *p)
{
	struct probe_counts *c = probe_counts();
	double w = c->w + p->c.w, w2 = c->w2 + p->c.w2;
	return w2 > 0 ? w * w / w2 : 0;
}

/* Print the probe's counts and the rounds run: "probe_signals S",
 * "probe_periods W", "probe_neff N", "rounds R" lines on standard output. */
static inline void probe_print(int rounds)
{
	struct probe_counts *c = probe_counts();
	printf("probe_signals %lu\nprobe_periods %.0f\nprobe_neff %.1f\nprobe_wmax %.0f\nrounds %d\n",
	       c->signals, c->w, probe_neff(), c->wmax, rounds);
}

#endif /* CPUTIMER_PROBE_H */
