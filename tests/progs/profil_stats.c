/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * profil_stats.c — mon_getstats(): samples = counted + dropped + saturated
 * + lost, exactly, after a run that produced every kind; the clock and
 * rate in effect; the threads armed.
 *
 * Two threads spin: one in fn_in, which the histogram covers (one bin of
 * 64 KiB at scale 2, started 200 short of 65535), until both buffers' bins
 * have saturated (at most 5 s of its CPU), one in fn_out, outside it
 * (dropped), for 0.3 s.  Meanwhile the main thread moves the histogram
 * between two such buffers every 0.5 ms (ticks racing with a move are
 * lost; it waits by spinning, not in nanosleep: under the itimer clock a
 * tick an ending thread's CPU raised, while the C library blocks every
 * signal in its last steps, went to main in nanosleep, whose EINTR stopped
 * the clock for good (lib/clock.c itimer_cut: a proof run's "lost 600",
 * the CPU after the stop, broke the identity).  How many ticks each
 * buffer gets is not fixed (the process-wide
 * itimer clock under ASan gave one 128 in 0.3 s), so fn_in runs until the
 * bins say it is enough, not for a fixed time.  Once profiling is off the counters
 * are still: the identity must hold exactly; counted is what the bins
 * received; dropped and saturated each have at least the lower bound of
 * the thread that made them (ticks_lower_bound, profil_common.h).
 */
#include <pthread.h>

#include "profil_common.h"

PROFIL_SINK_DEFINE;
DEFINE_SPIN(fn_in)
DEFINE_SPIN(fn_out)

static double cpu_in, cpu_out;
static unsigned short a[1], b[1];

/* Both bins full, and a tick has come since into a full one: filling the
 * second bin can be fn_in's last tick of a chunk (both fill together, as
 * the moves alternate), which leaves nothing saturated (CI proof, ASan). */
static int both_saturated(void)
{
	return __atomic_load_n(&a[0], __ATOMIC_RELAXED) == 65535 &&
	       __atomic_load_n(&b[0], __ATOMIC_RELAXED) == 65535 && stats_now().saturated > 0;
}
/* Waits seconds of CLOCK_MONOTONIC time running (outside the histogram:
 * its ticks are dropped). */
__attribute__((noinline)) static void wait_spinning(double seconds)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
}

static int running_threads = 2;
static pthread_barrier_t running;

static void *run_in(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&running);
	do
		cpu_in += fn_in(0.05);
	while (!both_saturated() && cpu_in < 5.0);
	__atomic_sub_fetch(&running_threads, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static void *run_out(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&running);
	cpu_out = fn_out(0.3);
	__atomic_sub_fetch(&running_threads, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

int main(void)
{
	const unsigned short start = 65535 - 200;
	/* The one 64 KiB bin holds fn_in and not fn_out: it starts at fn_in if
	 * fn_out lies below, else it ends where fn_in does. */
	CHECK(PTEXT_HI(fn_in) - PTEXT_LO(fn_in) <= 65536, "fn_in larger than one bin");
	uintptr_t lo = PTEXT_LO(fn_out) < PTEXT_LO(fn_in) ? PTEXT_LO(fn_in)
							  : PTEXT_HI(fn_in) - 65536;
	a[0] = b[0] = start;

	struct mon_stats st = stats_now();
	CHECK(st.on == 0 && st.clock == MON_CLOCK_NONE && st.threads == 0,
	      "before profil: on %d, clock %s, %u threads", st.on, mon_clock_name(st.clock),
	      st.threads);
	profil_on(a, sizeof a, lo, 2);
	st = stats_now();
	int clock = st.clock;
	/* The rate set: the asked one, or lower when the runtime found its
	 * ticks too dear (coverage_rate.sh). */
	if (getenv("MONPROF_RATE"))
		CHECK(st.rate_hz <= (unsigned)atoi(getenv("MONPROF_RATE")) && st.rate_hz >= 1000,
		      "rate %u Hz in effect", st.rate_hz);

	pthread_t t1, t2;
	pthread_barrier_init(&running, NULL, 3);
	CHECK(pthread_create(&t1, NULL, run_in, NULL) == 0, "pthread_create");
	CHECK(pthread_create(&t2, NULL, run_out, NULL) == 0, "pthread_create");
	pthread_barrier_wait(&running);
	unsigned armed = stats_now().threads;
	int moves = 0;
	for (int i = 0; __atomic_load_n(&running_threads, __ATOMIC_SEQ_CST) > 0; i++, moves++) {
		unsigned short *to = i % 2 ? a : b;
		CHECK(profil(to, sizeof a, lo, 2) == 0, "profil move: %s", strerror(errno));
		wait_spinning(0.0005);
	}
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	profil_off();
	st = stats_now();

	uint64_t bins = (uint64_t)(a[0] - start) + (uint64_t)(b[0] - start);
	printf("clock %s at %u Hz: samples %llu = counted %llu + dropped %llu + saturated %llu + "
	       "lost %llu; bins got %llu; %u threads armed while 3 ran; %d moves\n",
	       mon_clock_name(clock), st.rate_hz, (unsigned long long)st.samples,
	       (unsigned long long)st.counted, (unsigned long long)st.dropped,
	       (unsigned long long)st.saturated, (unsigned long long)st.lost,
	       (unsigned long long)bins, armed, moves);
	CHECK(st.samples == st.counted + st.dropped + st.saturated + st.lost,
	      "samples != counted + dropped + saturated + lost");
	CHECK(st.counted == bins, "counted %llu, the bins got %llu", (unsigned long long)st.counted,
	      (unsigned long long)bins);
	double lb_in = ticks_lower_bound(clock, st.rate_hz, cpu_in),
	       lb_out = ticks_lower_bound(clock, st.rate_hz, cpu_out);
	CHECK(st.dropped >= lb_out, "dropped %llu, want >= %.0f", (unsigned long long)st.dropped,
	      lb_out);
	CHECK(st.counted + st.saturated + st.lost >= lb_in, "fn_in's ticks: %llu, want >= %.0f",
	      (unsigned long long)(st.counted + st.saturated + st.lost), lb_in);
	CHECK(st.saturated > 0 && a[0] == 65535 && b[0] == 65535, "no saturation: bins %u %u",
	      a[0], b[0]);
	CHECK(st.on == 0 && st.clock == MON_CLOCK_NONE && st.threads == 0 && st.faulted == 0,
	      "after profil off: on %d, clock %s, %u threads, faulted %d", st.on,
	      mon_clock_name(st.clock), st.threads, st.faulted);
	if (clock != MON_CLOCK_ITIMER)
		CHECK(armed == 3, "%u threads armed while 3 ran", armed);
	return 0;
}
