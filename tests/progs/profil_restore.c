/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * profil_restore.c — turning profiling off gives the program back what it
 * had: the disposition of the per-thread clocks' signal (SIGRTMAX-6) and of
 * SIGPROF, and its ITIMER_PROF timer; moving the histogram while on does not
 * change that; nothing is left running.  Run under each MONPROF_CLOCK.
 *
 * Phase 1: the program has nothing of its own (default dispositions, no
 * timer): after profil off, both signals are SIG_DFL again and ITIMER_PROF
 * is disarmed (a timer left running would kill the program with SIGPROF).
 * Phase 2: the program has its own handlers on both signals (distinctive
 * flags and masks) and its own ITIMER_PROF (700 ms interval, 900 ms left):
 * while on, libmon takes only the signal of the clock in effect (and, for
 * the itimer clock, the timer); after off, everything is as it was, the
 * timer has its interval and no more than the time it had left (with the
 * itimer clock it was paused while libmon had it).  No tick
 * reaches the program's own handler of the clock's signal, not even one
 * still pending when profiling stops.
 */
#include <signal.h>
#include <sys/time.h>

#include "profil_common.h"

PROFIL_SINK_DEFINE;
DEFINE_SPIN(work_fn)

static volatile sig_atomic_t rt_hits, prof_hits;
static unsigned short buf[4096], buf2[4096];

static void my_rt(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	rt_hits++;
}

static void my_prof(int sig)
{
	(void)sig;
	prof_hits++;
}

static struct sigaction action(int sig)
{
	struct sigaction sa;
	CHECK(sigaction(sig, NULL, &sa) == 0, "sigaction");
	return sa;
}

/* Is sig's disposition b: same handler, flags (but the C library's
 * SA_RESTORER) and mask? */
static int is_action(int sig, const struct sigaction *b)
{
	const int restorer = 0x04000000;
	struct sigaction cur = action(sig), *a = &cur;
	if (a->sa_handler != b->sa_handler || (a->sa_flags & ~restorer) != (b->sa_flags & ~restorer))
		return 0;
	for (int s = 1; s < NSIG; s++)
		if (sigismember(&a->sa_mask, s) != sigismember(&b->sa_mask, s))
			return 0;
	return 1;
}

static struct itimerval prof_timer(void)
{
	struct itimerval it;
	CHECK(getitimer(ITIMER_PROF, &it) == 0, "getitimer");
	return it;
}

static long usec(struct timeval tv)
{
	return tv.tv_sec * 1000000L + tv.tv_usec;
}

/* On, work, move the histogram, work, off; returns the clock that was used. */
static int cycle(void)
{
	uintptr_t lo = PTEXT_LO(work_fn);
	profil_on(buf, sizeof buf, lo, 0x8000);
	int clock = stats_now().clock;
	work_fn(0.05);
	CHECK(profil(buf2, sizeof buf2, lo, 0x4000) == 0, "profil move: %s", strerror(errno));
	work_fn(0.05);
	profil_off();
	return clock;
}

int main(void)
{
	const int rt = SIGRTMAX - 6;

	/* Phase 1: nothing of the program's. */
	for (int i = 0; i < 2; i++) {
		cycle();
		CHECK(action(rt).sa_handler == SIG_DFL, "SIGRTMAX-6 not back to SIG_DFL");
		CHECK(action(SIGPROF).sa_handler == SIG_DFL, "SIGPROF not back to SIG_DFL");
		struct itimerval it = prof_timer();
		CHECK(usec(it.it_value) == 0 && usec(it.it_interval) == 0,
		      "ITIMER_PROF left armed: %ld us, interval %ld us", usec(it.it_value),
		      usec(it.it_interval));
	}
	/* Still alive after some more CPU: no timer or tick outlived profil. */
	work_fn(0.05);

	/* Phase 2: the program's own handlers and timer. */
	struct sigaction mine_rt, mine_prof;
	memset(&mine_rt, 0, sizeof mine_rt);
	mine_rt.sa_sigaction = my_rt;
	mine_rt.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&mine_rt.sa_mask);
	sigaddset(&mine_rt.sa_mask, SIGUSR1);
	memset(&mine_prof, 0, sizeof mine_prof);
	mine_prof.sa_handler = my_prof;
	mine_prof.sa_flags = SA_RESTART;
	sigemptyset(&mine_prof.sa_mask);
	sigaddset(&mine_prof.sa_mask, SIGUSR2);
	CHECK(sigaction(rt, &mine_rt, NULL) == 0, "sigaction");
	CHECK(sigaction(SIGPROF, &mine_prof, NULL) == 0, "sigaction");
	struct sigaction set_rt = action(rt), set_prof = action(SIGPROF);
	struct itimerval mine_it = { { 0, 700000 }, { 0, 900000 } };
	CHECK(setitimer(ITIMER_PROF, &mine_it, NULL) == 0, "setitimer");

	for (int i = 0; i < 2; i++) {
		uintptr_t lo = PTEXT_LO(work_fn);
		profil_on(buf, sizeof buf, lo, 0x8000);
		int clock = stats_now().clock;
		work_fn(0.05);
		struct itimerval it = prof_timer();
		if (clock == MON_CLOCK_ITIMER) {
			/* The kernel's SIGPROF disposition is libmon's while on, but
			 * the program sees its own (lib/sigguard.c). */
			CHECK(is_action(SIGPROF, &set_prof),
			      "itimer clock: the program does not see its SIGPROF while on");
			CHECK(usec(it.it_interval) != 700000, "itimer clock: ITIMER_PROF not libmon's");
			CHECK(is_action(rt, &set_rt), "itimer clock took SIGRTMAX-6");
		} else {
			CHECK(is_action(rt, &set_rt),
			      "%s: the program does not see its SIGRTMAX-6 while on",
			      mon_clock_name(clock));
			CHECK(is_action(SIGPROF, &set_prof), "%s clock changed SIGPROF",
			      mon_clock_name(clock));
			CHECK(usec(it.it_interval) == 700000, "%s clock changed ITIMER_PROF",
			      mon_clock_name(clock));
		}
		CHECK(profil(buf2, sizeof buf2, lo, 0x4000) == 0, "profil move: %s", strerror(errno));
		work_fn(0.05);
		profil_off();

		CHECK(is_action(rt, &set_rt), "SIGRTMAX-6 disposition not restored");
		CHECK(is_action(SIGPROF, &set_prof), "SIGPROF disposition not restored");
		it = prof_timer();
		CHECK(usec(it.it_interval) == 700000, "ITIMER_PROF interval %ld us, set 700000",
		      usec(it.it_interval));
		/* The kernel keeps process CPU time for ITIMER_PROF in samples that
		 * may lag by a tick (10 ms at HZ=100) at each of the two saves and
		 * restores: 40 ms slack. */
		CHECK(usec(it.it_value) > 0 && usec(it.it_value) <= 900000 + 40000,
		      "ITIMER_PROF has %ld us left, had <= 900000", usec(it.it_value));
		printf("cycle %d, clock %s: restored; ITIMER_PROF %ld us left\n", i,
		       mon_clock_name(clock), usec(it.it_value));
	}
	/* Give a pending tick, if one had survived, time to be delivered. */
	work_fn(0.02);
	CHECK(rt_hits == 0, "%d ticks reached the program's own SIGRTMAX-6 handler", (int)rt_hits);
	return 0;
}
