/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * profil_threads.c — one profil() call covers every thread, and each
 * thread's CPU is charged to its own PC.
 *
 *   cover   a thread started before profil() and one started after it each
 *           spin in a function of their own for 0.5 s of CPU; each function
 *           gets its ticks (ticks_lower_bound, profil_common.h), and while
 *           both run every thread has its clock armed.
 *   atomic  four threads spin in one function whose ticks all land in a
 *           single bin (scale 2); the bin must end equal to the number of
 *           ticks counted: concurrent increments are not lost.
 *   shares  four threads use 0.2, 0.4, 0.6, 0.8 s of CPU (each measures its
 *           own with CLOCK_THREAD_CPUTIME_ID) in four functions; each
 *           function's share of the ticks is its thread's share of the CPU
 *           within 2 percentage points.
 *   two     one thread alternates between two functions, 30 % and 70 % of
 *           1.8 s of CPU; same bound.
 *
 * The 2-point bound: if each of the N ticks in the four (two) functions is
 * an independent draw, a share p is estimated with standard deviation
 * sqrt(p (1 - p) / N) <= 0.5 / sqrt(N); 2 points is 5 sigma when
 * N >= (5 * 0.5 / 0.02)^2 = 15625.  The programs repeat their work until
 * N is that big (the scripts run them at MONPROF_RATE=10000; how much of
 * that rate a clock delivers is the machine's), so the bound is at least
 * 5 sigma.  (Periodic
 * sampling of steady work is in fact far more regular than independent
 * draws.)
 */
#include <pthread.h>

#include "profil_common.h"

PROFIL_SINK_DEFINE;
DEFINE_SPIN(fn_before)
DEFINE_SPIN(fn_after)
DEFINE_SPIN(fn_same)
DEFINE_SPIN(fn_1)
DEFINE_SPIN(fn_2)
DEFINE_SPIN(fn_3)
DEFINE_SPIN(fn_4)
DEFINE_SPIN(fn_a)
DEFINE_SPIN(fn_b)

/* One histogram over all the spin functions, 2 bytes of text per bin. */
static unsigned short *hist;
static size_t nbins;
static uintptr_t hist_lo;

static void hist_over(uintptr_t lo, uintptr_t hi)
{
	hist_lo = lo;
	nbins = (hi - lo + 1) / 2;
	hist = calloc(nbins, 2);
	CHECK(hist != NULL, "calloc");
	profil_on(hist, nbins * 2, lo, 0x10000);
}

static uint64_t ticks_in(uintptr_t lo, uintptr_t hi)
{
	return hist_range(hist, nbins, hist_lo, 0x10000, lo, hi);
}

#define RANGE(f) PTEXT_LO(f), PTEXT_HI(f)

static uintptr_t min_lo(void)
{
	uintptr_t v[] = { PTEXT_LO(fn_before), PTEXT_LO(fn_after), PTEXT_LO(fn_1),
			  PTEXT_LO(fn_2),      PTEXT_LO(fn_3),     PTEXT_LO(fn_4),
			  PTEXT_LO(fn_a),      PTEXT_LO(fn_b) },
		  m = UINTPTR_MAX;
	for (size_t i = 0; i < sizeof v / sizeof *v; i++)
		m = v[i] < m ? v[i] : m;
	return m;
}

static uintptr_t max_hi(void)
{
	uintptr_t v[] = { PTEXT_HI(fn_before), PTEXT_HI(fn_after), PTEXT_HI(fn_1),
			  PTEXT_HI(fn_2),      PTEXT_HI(fn_3),     PTEXT_HI(fn_4),
			  PTEXT_HI(fn_a),      PTEXT_HI(fn_b) },
		  m = 0;
	for (size_t i = 0; i < sizeof v / sizeof *v; i++)
		m = v[i] > m ? v[i] : m;
	return m;
}

/* ---- cover --------------------------------------------------------------- */

static pthread_barrier_t running_before, start_before, both_running, may_end;
static double cpu_before, cpu_after;

static void *run_before(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&running_before); /* in our code: past any wrapper */
	pthread_barrier_wait(&start_before);   /* profil() is on now */
	cpu_before = fn_before(0.25);
	pthread_barrier_wait(&both_running);
	pthread_barrier_wait(&may_end);
	cpu_before += fn_before(0.25);
	return NULL;
}

static void *run_after(void *arg)
{
	(void)arg;
	cpu_after = fn_after(0.25);
	pthread_barrier_wait(&both_running);
	pthread_barrier_wait(&may_end);
	cpu_after += fn_after(0.25);
	return NULL;
}

static int cover(void)
{
	pthread_t a, b;
	pthread_barrier_init(&running_before, NULL, 2);
	pthread_barrier_init(&start_before, NULL, 2);
	pthread_barrier_init(&both_running, NULL, 3);
	pthread_barrier_init(&may_end, NULL, 3);
	CHECK(pthread_create(&a, NULL, run_before, NULL) == 0, "pthread_create");
	pthread_barrier_wait(&running_before);
	hist_over(min_lo(), max_hi());
	int clock = stats_now().clock;
	pthread_barrier_wait(&start_before);
	CHECK(pthread_create(&b, NULL, run_after, NULL) == 0, "pthread_create");
	pthread_barrier_wait(&both_running);
	unsigned armed = stats_now().threads, running = process_threads();
	pthread_barrier_wait(&may_end);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	struct mon_stats st = stats_now();
	profil_off();
	uint64_t tb = ticks_in(RANGE(fn_before)), ta = ticks_in(RANGE(fn_after));
	double lb = ticks_lower_bound(clock, st.rate_hz, cpu_before),
	       la = ticks_lower_bound(clock, st.rate_hz, cpu_after);
	printf("clock %s: thread started before: %llu ticks (>= %.0f), after: %llu (>= %.0f); "
	       "%u threads armed\n",
	       mon_clock_name(clock), (unsigned long long)tb, lb, (unsigned long long)ta, la, armed);
	if (TICKS_COUNTABLE(clock)) {
		CHECK(tb >= lb, "thread started before profil(): %llu ticks", (unsigned long long)tb);
		CHECK(ta >= la, "thread started after profil(): %llu ticks", (unsigned long long)ta);
	} else {
		printf("tick bounds not checked under ThreadSanitizer (profil_common.h)\n");
	}
	/* 3 threads of the program, and any of a sanitizer's runtime. */
	CHECK(running >= 3, "%u threads in /proc/self/task, 3 started", running);
	if (clock != MON_CLOCK_ITIMER)
		CHECK(armed == running, "%u threads armed, %u running", armed, running);
	return 0;
}

/* ---- atomic -------------------------------------------------------------- */

static void *run_same(void *arg)
{
	*(double *)arg = fn_same(0.3);
	return NULL;
}

static int atomic(void)
{
	static unsigned short one[1];
	profil_on(one, sizeof one, PTEXT_LO(fn_same), 2); /* all of fn_same in bin 0 */
	CHECK(PTEXT_HI(fn_same) - PTEXT_LO(fn_same) < 65536, "fn_same larger than one bin");
	int clock = stats_now().clock;
	pthread_t t[4];
	double cpu[4];
	for (int i = 0; i < 4; i++)
		CHECK(pthread_create(&t[i], NULL, run_same, &cpu[i]) == 0, "pthread_create");
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	profil_off();
	struct mon_stats st = stats_now();
	printf("clock %s: %llu ticks counted, bin holds %u\n", mon_clock_name(clock),
	       (unsigned long long)st.counted, one[0]);
	CHECK(st.saturated == 0, "the bin filled up; use less CPU");
	CHECK(st.counted > 0 && one[0] == st.counted, "bin %u, %llu ticks counted", one[0],
	      (unsigned long long)st.counted);
	return 0;
}

/* ---- shares -------------------------------------------------------------- */

struct share {
	double (*fn)(double);
	double want, cpu;
	uintptr_t lo, hi;
};

struct share_run {
	struct share *s;
	double cpu;
};

static void *run_share(void *arg)
{
	struct share_run *r = arg;
	r->cpu = r->s->fn(r->s->want);
	return NULL;
}

/* Ticks so far in the n functions' ranges. */
static uint64_t share_ticks(const struct share *s, int n)
{
	uint64_t total = 0;
	for (int i = 0; i < n; i++)
		total += ticks_in(s[i].lo, s[i].hi);
	return total;
}

/* The sample size a 5-sigma 2-point bound needs (see the head comment).
 * Reached by construction: the work is repeated until the functions hold
 * that many ticks, whatever share of the rate this machine delivers. */
#define SHARE_TICKS 15625
#define SHARE_ROUNDS_MAX 40

static void check_shares(const char *what, struct share *s, int n)
{
	double cpu = 0;
	uint64_t ticks[4], total = 0;
	for (int i = 0; i < n; i++) {
		cpu += s[i].cpu;
		ticks[i] = ticks_in(s[i].lo, s[i].hi);
		total += ticks[i];
	}
	int clock = stats_now().clock;
	printf("%s, clock %s: %llu ticks\n", what, mon_clock_name(clock), (unsigned long long)total);
	if (!TICKS_COUNTABLE(clock))
		SKIP("tick shares not checked under ThreadSanitizer with clock %s (profil_common.h)",
		     mon_clock_name(clock));
	int bad = 0;
	for (int i = 0; i < n; i++) {
		double truth = s[i].cpu / cpu, got = (double)ticks[i] / (double)total;
		printf("  function %d: %.3f s of CPU = %.2f %%, %llu ticks = %.2f %%\n", i + 1,
		       s[i].cpu, 100 * truth, (unsigned long long)ticks[i], 100 * got);
		bad |= fabs(got - truth) > 0.02;
	}
	CHECK(total >= SHARE_TICKS, "%llu ticks after %d rounds: too few for a 5-sigma 2-point "
	      "bound", (unsigned long long)total, SHARE_ROUNDS_MAX);
	CHECK(!bad, "a share is off by more than 2 percentage points");
}

static int shares(void)
{
	struct share s[4] = {
		{ fn_1, 0.2, 0, RANGE(fn_1) },
		{ fn_2, 0.4, 0, RANGE(fn_2) },
		{ fn_3, 0.6, 0, RANGE(fn_3) },
		{ fn_4, 0.8, 0, RANGE(fn_4) },
	};
	hist_over(min_lo(), max_hi());
	/* Rounds of four threads at once, until the ticks suffice (the tick
	 * clocks of the sanitizer runs: one round is all they take at most). */
	for (int r = 0; r < SHARE_ROUNDS_MAX && (r == 0 || (TICKS_COUNTABLE(stats_now().clock) &&
							     share_ticks(s, 4) < SHARE_TICKS)); r++) {
		pthread_t t[4];
		struct share_run run[4];
		for (int i = 0; i < 4; i++) {
			run[i] = (struct share_run){ &s[i], 0 };
			CHECK(pthread_create(&t[i], NULL, run_share, &run[i]) == 0, "pthread_create");
		}
		for (int i = 0; i < 4; i++) {
			pthread_join(t[i], NULL);
			s[i].cpu += run[i].cpu;
		}
	}
	check_shares("4 threads", s, 4);
	profil_off();
	return 0;
}

static int two(void)
{
	struct share s[2] = { { fn_a, 0.3, 0, RANGE(fn_a) }, { fn_b, 0.7, 0, RANGE(fn_b) } };
	hist_over(min_lo(), max_hi());
	/* rounds of 15 ms in fn_a and 35 ms in fn_b (36 of them: 18000
	 * periods at 10 kHz), more until the ticks suffice */
	for (int r = 0; r < 36 * SHARE_ROUNDS_MAX && (r < 36 || (TICKS_COUNTABLE(stats_now().clock) &&
								   share_ticks(s, 2) < SHARE_TICKS)); r++) {
		s[0].cpu += fn_a(0.3 * 0.05);
		s[1].cpu += fn_b(0.7 * 0.05);
	}
	check_shares("1 thread, 2 functions", s, 2);
	profil_off();
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (strcmp(mode, "cover") == 0)
		return cover();
	if (strcmp(mode, "atomic") == 0)
		return atomic();
	if (strcmp(mode, "shares") == 0)
		return shares();
	if (strcmp(mode, "two") == 0)
		return two();
	fprintf(stderr, "usage: profil_threads cover|atomic|shares|two\n");
	return 2;
}
