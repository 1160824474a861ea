/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * profil_onoff.c — turning profiling off loses no tick and invents none.
 *
 * profil(2) (BSD, Solaris): profiling stops when scale is 0 or 1.  A tick
 * taken before the call returns is a sample of the histogram; a tick that
 * arrives after (a signal already pending from a clock just disarmed, in
 * this thread or another) is no sample at all: mon_getstats counts
 * "samples" only while profiling is on, and "lost" only for ticks that
 * raced with a change of the buffer.
 *
 * A second thread spins in fn_spin the whole time; the main thread turns
 * profil() on and off 10000 times (more until a tick landed while on)
 * with the same buffer, spinning 0.05 ms
 * of CPU in fn_spin while it is on.  No buffer ever changes while ticks
 * land in it, so: lost == 0, samples == counted + dropped + saturated + lost,
 * and counted == what the bins received.  Run at a high rate, so that the
 * clocks' disarming (system calls that take CPU time) sees ticks.
 */
#include <pthread.h>

#include "profil_common.h"

PROFIL_SINK_DEFINE;
DEFINE_SPIN(fn_spin)

static int stop;

static void *spinner(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
		fn_spin(0.001);
	return NULL;
}

int main(void)
{
	static unsigned short hist[8192];
	uintptr_t lo = PTEXT_LO(fn_spin);
	CHECK(PTEXT_HI(fn_spin) - lo <= 4 * sizeof hist, "fn_spin larger than the histogram");

	profil_on(hist, sizeof hist, lo, 0x8000);
	int clock = stats_now().clock;
	profil_off();
	pthread_t t;
	CHECK(pthread_create(&t, NULL, spinner, NULL) == 0, "pthread_create");
	/* At least 10000 toggles, and on until some tick landed in an
	 * on-window: the itimer clock's ticks come at the kernel's tick, so
	 * on a loaded machine 10000 windows of 0.05 ms held as few as 19 (a
	 * run with none would test nothing and failed "no samples").  The
	 * count of windows comes from what this run saw, not from its speed;
	 * 100 times as many without a sample is a clock that never ticks. */
	int toggles = 0;
	for (; toggles < 10000 || (stats_now().samples == 0 && toggles < 1000000); toggles++) {
		profil_on(hist, sizeof hist, lo, 0x8000);
		fn_spin(0.00005);
		profil_off();
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	/* Ticks pending at the last profil off arrive now, if at all. */
	fn_spin(0.01);
	struct mon_stats st = stats_now();

	uint64_t bins = 0;
	for (size_t i = 0; i < sizeof hist / sizeof hist[0]; i++)
		bins += hist[i];
	printf("clock %s at %u Hz, %d times on and off: samples %llu = counted %llu + dropped "
	       "%llu + saturated %llu + lost %llu; bins got %llu\n",
	       mon_clock_name(clock), st.rate_hz, toggles, (unsigned long long)st.samples,
	       (unsigned long long)st.counted, (unsigned long long)st.dropped,
	       (unsigned long long)st.saturated, (unsigned long long)st.lost,
	       (unsigned long long)bins);
	CHECK(st.samples > 0, "no samples");
	CHECK(st.lost == 0, "%llu ticks counted lost", (unsigned long long)st.lost);
	CHECK(st.samples == st.counted + st.dropped + st.saturated + st.lost,
	      "samples != counted + dropped + saturated + lost");
	CHECK(st.counted == bins, "counted %llu, the bins got %llu", (unsigned long long)st.counted,
	      (unsigned long long)bins);
	return 0;
}
