/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * profil_rate.c — the achieved rate, mon_getstats().samples per CPU-second
 * of the process while profiling was on, is the rate in effect
 * (mon_getstats().rate_hz) within 5 %, for the clocks that count CPU time;
 * for the perf clock, libmon's ticks in each thread match what the kernel's
 * perf cpu-clock delivers at that rate on this machine, now.
 *
 * Usage: profil_rate NTHREADS SECONDS [clock-only] — NTHREADS (1..4)
 * threads each spin SECONDS of CPU ("clock-only": just report the clock,
 * for runs too short to measure a rate).  The script runs 1 and 4 threads
 * (4 on this 2-core machine means they share the CPUs) at MONPROF_RATE 1000
 * (the default) and 4000, under each MONPROF_CLOCK.  With no MONPROF_RATE
 * it also checks that the default is at least 1000 Hz.
 *
 * The thread timer and ITIMER_PROF are CPU-time clocks: each tick is
 * weighted by the periods of CPU time it stands for (overruns, CPU time
 * since the last charged period), so their samples per CPU-second are the
 * rate whatever a tick costs; the count is deterministic up to one period
 * per thread.  They are checked at the kernel's tick, and a thread can run
 * tens of milliseconds between two of its ticks, all of it charged at the
 * second one; a thread that ends in such a gap is never charged for its
 * last stretch (measured: up to 70 ms, 20 % of a 0.3 s thread).  That is a
 * property of thread exit, not of the rate, so each thread here, after its
 * work, spins on in its own function until it has taken one more tick (its
 * function's bins grow) and only then stops using the CPU.
 *
 * The perf clock is an hrtimer on user time: where a timer interrupt is
 * dear (this project's VMs: 50-70 us), the kernel skips the periods it
 * fired late for, and those ending in kernel mode are not sampled, so the
 * share of the asked rate that reaches any perf user is the machine's, not
 * libmon's (measured here: 95 % at 1 kHz under ASan, 35 % at 20 kHz).  So
 * the reference clock (profil_common.h), the same kind of perf clock with a
 * handler that only counts, is run alone in as many threads for as much
 * CPU, just before libmon's run and just after it; libmon's ticks must be
 * at least 95 % of what the lower of the two shares promises, less 3
 * standard deviations, and at most the rate: a wrong period, a lost tick or
 * a double-counted one shows, a dear machine does not.  The run prints the
 * reference's shares: the shortfall the machine imposes, measured.
 */
#include <pthread.h>

#include "profil_common.h"

PROFIL_SINK_DEFINE;
DEFINE_SPIN(fn_0)
DEFINE_SPIN(fn_1)
DEFINE_SPIN(fn_2)
DEFINE_SPIN(fn_3)

static double seconds;
static unsigned short *hist;
static size_t nbins;
static uintptr_t lo, hi;

static int with_reference;	/* the perf clock: measure the reference too */

static struct worker {
	double (*fn)(double);
	uintptr_t lo, hi;
	double cpu;		/* CPU seconds this thread used */
} workers[4];

#define SET(i) ((struct worker){ .fn = fn_##i, .lo = PTEXT_LO(fn_##i), .hi = PTEXT_HI(fn_##i) })

static uint64_t own_ticks(const struct worker *w)
{
	return hist_range(hist, nbins, lo, 0x10000, w->lo, w->hi);
}

static void *spin(void *arg)
{
	struct worker *w = arg;
	double c0 = thread_cpu();
	w->fn(seconds);
	/* settle: on until this thread has taken a tick after its work (the
	 * CPU-time clocks; the perf clock fires on time, to the period) */
	uint64_t before = own_ticks(w);
	while (!with_reference && own_ticks(w) == before)
		w->fn(0.0005);
	w->cpu = thread_cpu() - c0;
	return NULL;
}

int main(int argc, char **argv)
{
	CHECK(argc == 3 || argc == 4, "usage: profil_rate NTHREADS SECONDS [clock-only]");
	int n = atoi(argv[1]);
	seconds = atof(argv[2]);
	CHECK(n >= 1 && n <= 4 && seconds > 0, "bad arguments");
	workers[0] = SET(0);
	workers[1] = SET(1);
	workers[2] = SET(2);
	workers[3] = SET(3);
	lo = UINTPTR_MAX;
	hi = 0;
	for (int i = 0; i < 4; i++) {
		lo = workers[i].lo < lo ? workers[i].lo : lo;
		hi = workers[i].hi > hi ? workers[i].hi : hi;
	}
	nbins = (hi - lo + 1) / 2;
	hist = calloc(nbins, 2);
	CHECK(hist != NULL, "calloc");
	pthread_t t[4];

	ref_clock_install();
	/* The clock and rate in effect (the runtime may lower a dear rate):
	 * on once to learn them; for the perf clock, the reference's share
	 * alone before the run. */
	profil_on(hist, nbins * 2, lo, 0x10000);
	struct mon_stats s0 = stats_now();
	with_reference = s0.clock == MON_CLOCK_PERF && argc == 3;
	double share_before = 0;
	if (with_reference) {
		profil_off();
		share_before = ref_share(s0.rate_hz, seconds, n);
		memset(hist, 0, nbins * 2);
		profil_on(hist, nbins * 2, lo, 0x10000);
	}
	double c0 = process_cpu();
	for (int i = 0; i < n; i++)
		CHECK(pthread_create(&t[i], NULL, spin, &workers[i]) == 0, "pthread_create");
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	struct mon_stats st = stats_now();
	profil_off();
	double cpu = process_cpu() - c0;
	double achieved = (double)st.samples / cpu;
	printf("clock %s, %d thread(s): %llu samples in %.3f CPU-s = %.1f Hz, rate %u Hz (%+.2f %%)\n",
	       mon_clock_name(st.clock), n, (unsigned long long)st.samples, cpu, achieved,
	       st.rate_hz, 100 * (achieved - st.rate_hz) / st.rate_hz);
	if (getenv("MONPROF_RATE") == NULL)
		CHECK(st.rate_hz >= 1000, "default rate %u Hz", st.rate_hz);
	else	/* the asked rate, or lower when its ticks are too dear (coverage_rate.sh) */
		CHECK(st.rate_hz <= (unsigned)atoi(getenv("MONPROF_RATE")),
		      "rate %u Hz in effect, MONPROF_RATE=%s", st.rate_hz, getenv("MONPROF_RATE"));
	if (argc == 4)
		return 0;
	if (!with_reference) {
		CHECK(fabs(achieved - st.rate_hz) <= 0.05 * st.rate_hz,
		      "achieved %.1f Hz, rate %u Hz", achieved, st.rate_hz);
		return 0;
	}
	double mine = 0, wcpu = 0;
	for (int i = 0; i < n; i++) {
		wcpu += workers[i].cpu;
		mine += (double)own_ticks(&workers[i]);
	}
	double share_after = ref_share(st.rate_hz, seconds, n);
	double share = share_before < share_after ? share_before : share_after;
	double most = st.rate_hz * wcpu, least = share * most;
	printf("reference perf cpu-clock alone: %.1f %% of the rate before, %.1f %% after; libmon "
	       "%.0f ticks in %.3f CPU-s = %.1f %%\n", 100 * share_before, 100 * share_after, mine,
	       wcpu, 100 * mine / most);
	CHECK(least > 0, "the reference clock took no tick");
	CHECK(mine >= 0.95 * least - 3 * sqrt(least), "libmon %.0f ticks, the reference's share "
	      "promises %.0f", mine, least);
	CHECK(mine <= 1.05 * most + 3 * sqrt(most), "libmon %.0f ticks in %.3f CPU-s at %u Hz",
	      mine, wcpu, st.rate_hz);
	return 0;
}
