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
 * each thread runs the reference clock (profil_common.h) beside libmon's,
 * and libmon's ticks in that thread must be the reference's within 5 %
 * plus 3 standard deviations of a Poisson count: a wrong period, a lost
 * tick or a double-counted one shows, a dear machine does not.  The run
 * also prints the reference's share of the asked rate: the shortfall the
 * machine imposes, measured.
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

static int with_reference;	/* the perf clock: run the reference beside it */

static struct worker {
	double (*fn)(double);
	uintptr_t lo, hi;
	unsigned long ref;	/* the reference clock's ticks in this thread */
	double cpu;		/* CPU seconds this thread used */
	int ref_failed;		/* errno if it could not be started */
} workers[4];

#define SET(i) ((struct worker){ .fn = fn_##i, .lo = PTEXT_LO(fn_##i), .hi = PTEXT_HI(fn_##i) })

static uint64_t own_ticks(const struct worker *w)
{
	return hist_range(hist, nbins, lo, 0x10000, w->lo, w->hi);
}

static void *spin(void *arg)
{
	struct worker *w = arg;
	int fd = -1;
	double c0 = thread_cpu();
	if (with_reference) {
		struct mon_stats st = stats_now();
		fd = ref_clock_start(st.rate_hz);
		w->ref_failed = fd < 0 ? errno : 0;
	}
	w->fn(seconds);
	/* settle: on until this thread has taken a tick after its work (the
	 * CPU-time clocks; the perf clock fires on time, to the period) */
	uint64_t before = own_ticks(w);
	while (!with_reference && own_ticks(w) == before)
		w->fn(0.0005);
	w->ref = ref_clock_stop(fd);
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
	lo = PTEXT_LO(refsig) < lo ? PTEXT_LO(refsig) : lo;
	hi = PTEXT_HI(refsig) > hi ? PTEXT_HI(refsig) : hi;
	nbins = (hi - lo + 1) / 2;
	hist = calloc(nbins, 2);
	CHECK(hist != NULL, "calloc");
	pthread_t t[4];

	ref_clock_install();
	double c0 = process_cpu();
	profil_on(hist, nbins * 2, lo, 0x10000);
	with_reference = stats_now().clock == MON_CLOCK_PERF && argc == 3;
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
	double mine = 0, ref = 0, wcpu = 0;
	for (int i = 0; i < n; i++) {
		wcpu += workers[i].cpu;
		CHECK(workers[i].ref_failed == 0, "reference clock: %s",
		      strerror(workers[i].ref_failed));
		mine += (double)own_ticks(&workers[i]);
		ref += (double)workers[i].ref;
	}
	/* Ticks of libmon's clock that met the reference's signal (same
	 * period: they fire together) land in its handler. */
	mine += (double)hist_range(hist, nbins, lo, 0x10000, PTEXT_LO(refsig), PTEXT_HI(refsig));
	printf("reference perf cpu-clock: %.0f ticks = %.1f %% of the asked rate; libmon %.0f "
	       "ticks in the same threads (%+.2f %%)\n", ref, 100 * ref / (st.rate_hz * cpu), mine,
	       ref > 0 ? 100 * (mine - ref) / ref : 0.0);
	CHECK(ref > 0, "the reference clock took no tick");
	CHECK(mine >= 0.95 * ref - 3 * sqrt(ref), "libmon %.0f ticks, reference %.0f", mine, ref);
	double most = st.rate_hz * wcpu;
	CHECK(mine <= 1.05 * most + 3 * sqrt(most), "libmon %.0f ticks in %.3f CPU-s at %u Hz",
	      mine, wcpu, st.rate_hz);
	return 0;
}
