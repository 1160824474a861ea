/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * profil_sigprof.c — a program that uses SIGPROF and ITIMER_PROF itself.
 *
 * The program sets its own SIGPROF handler and a 10 ms ITIMER_PROF, spins
 * 0.2 s of CPU, turns profil() on and spins 0.4 s, turns it off and spins
 * 0.2 s.
 *
 * With the per-thread clocks (perf, thread), both work at once: its handler
 * keeps being called, and profil() gets its ticks (ticks_lower_bound).
 * ITIMER_PROF is checked at the kernel tick and moves on one interval per
 * check, so on a loaded machine it lags and catches up, and has delivered
 * as few as 2 of 20 intervals in 0.2 s of CPU under ASan on 2 busy cores.
 * So the number of calls is not checked against the interval: the handler
 * must run (3 calls, spinning up to 2 s of CPU for them), and getitimer(2)
 * must show the program's own 10 ms interval, armed.
 *
 * With the itimer clock (documented in profil.3): SIGPROF and ITIMER_PROF
 * are libmon's while profiling is on — the program's handler is not called
 * then — and both are the program's again once it is off, its handler
 * being called once per 10 ms again.  A program that installs its own
 * SIGPROF handler while the itimer clock is on gets the ticks from then on
 * (profil stops counting), and keeps its handler after profil() is off.
 */
#include <signal.h>
#include <sys/time.h>

#include "profil_common.h"

PROFIL_SINK_DEFINE;
DEFINE_SPIN(work_fn)

static volatile sig_atomic_t hits;

static void my_prof(int sig)
{
	(void)sig;
	hits++;
}

static void install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = my_prof;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGPROF, &sa, NULL) == 0, "sigaction");
}

/* Calls of the program's handler while it spins: with its timer running
 * (want = 1) it spins `seconds`, and on until the handler has run 3 times,
 * for at most 2 s more of CPU (200 intervals: 3 calls are due in 30 ms even when the kernel
 * delivers a tenth of them, seen under load); with the timer libmon's
 * (want = 0) it spins `seconds` and expects no call.  How often the kernel
 * delivers ITIMER_PROF is the machine's business; that the program's
 * timer runs at its own interval is checked exactly by expect_timer. */
static void expect_hits(double seconds, int want, const char *when)
{
	int h0 = hits;
	double cpu = 0;
	if (want)
		while ((hits - h0 < 3 || cpu < seconds) && cpu < seconds + 2.0)
			cpu += work_fn(0.02);
	else
		cpu = work_fn(seconds);
	int got = hits - h0;
	printf("%s: %d SIGPROF to the program in %.3f s of CPU\n", when, got, cpu);
	if (want)
		CHECK(got >= 3, "%s: %d SIGPROF in %.3f s of CPU, want 3", when, got, cpu);
	else
		CHECK(got == 0, "%s: %d SIGPROF reached the program", when, got);
}

/* The program's ITIMER_PROF, as getitimer(2) shows it: its own 10 ms
 * interval, armed. */
static void expect_timer(const char *when)
{
	struct itimerval it;
	CHECK(getitimer(ITIMER_PROF, &it) == 0, "getitimer");
	CHECK(it.it_interval.tv_sec == 0 && it.it_interval.tv_usec == 10000,
	      "%s: ITIMER_PROF interval %ld.%06ld s, the program set 0.010000", when,
	      (long)it.it_interval.tv_sec, (long)it.it_interval.tv_usec);
	CHECK(it.it_value.tv_sec != 0 || it.it_value.tv_usec != 0, "%s: ITIMER_PROF disarmed",
	      when);
}

int main(void)
{
	static unsigned short hist[4096];
	install();
	struct itimerval it = { { 0, 10000 }, { 0, 10000 } };
	CHECK(setitimer(ITIMER_PROF, &it, NULL) == 0, "setitimer");
	expect_hits(0.2, 1, "before profil");

	uintptr_t lo = PTEXT_LO(work_fn);
	profil_on(hist, sizeof hist, lo, 0x8000);
	struct mon_stats st = stats_now();
	int clock = st.clock, itimer = clock == MON_CLOCK_ITIMER;
	uint64_t s0 = st.samples;
	double cpu = thread_cpu();
	if (!itimer)
		expect_timer("profil on");
	expect_hits(0.4, !itimer, "profil on");
	cpu = thread_cpu() - cpu;
	st = stats_now();
	double lb = ticks_lower_bound(clock, st.rate_hz, cpu);
	printf("clock %s: %llu ticks for profil (>= %.0f)\n", mon_clock_name(clock),
	       (unsigned long long)(st.samples - s0), lb);
	CHECK(st.samples - s0 >= lb, "profil got %llu ticks", (unsigned long long)(st.samples - s0));
	profil_off();
	expect_timer("after profil");
	expect_hits(0.2, 1, "after profil");

	if (itimer) {
		/* the program takes SIGPROF back while the itimer clock is on */
		profil_on(hist, sizeof hist, lo, 0x8000);
		work_fn(0.05);
		install();
		st = stats_now();
		s0 = st.samples;
		uint64_t lost0 = st.lost;
		double c0 = thread_cpu();
		work_fn(0.1);
		double used = thread_cpu() - c0;
		st = stats_now();
		CHECK(st.samples == s0, "profil still counting after the program took SIGPROF");
		/* The CPU time it could not sample is said: counted as lost, at
		 * least the periods this thread used (the process used more). */
		CHECK(st.lost - lost0 >= (uint64_t)(used * st.rate_hz) - 1,
		      "%llu lost for %.3f s of CPU at %u Hz", (unsigned long long)(st.lost - lost0),
		      used, st.rate_hz);
		CHECK(hits > 0, "no SIGPROF reached the program's new handler");
		profil_off();
		struct sigaction sa;
		sigaction(SIGPROF, NULL, &sa);
		CHECK(sa.sa_handler == my_prof, "the program's own handler was replaced at profil off");
	}
	return 0;
}
