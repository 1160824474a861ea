/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * profil_saturate.c — a bin at 65535 stays there; the ticks that do not fit
 * are counted as saturated, and samples = counted + dropped + saturated +
 * lost holds.
 *
 * A 2-bin histogram at scale 2 (64 KiB of text per bin): bin 0 holds all of
 * work_fn and starts 50 short of 65535, bin 1 is full already.  work_fn then
 * uses 0.4 s of CPU, far more ticks than the 50 that fit (lower bound:
 * ticks_lower_bound, profil_common.h).  Wrapping bins would end small;
 * stopping profiling on overflow (illumos) would leave saturated at 0.
 */
#include "profil_common.h"

PROFIL_SINK_DEFINE;
DEFINE_SPIN(work_fn)

static unsigned short hist[2];

int main(void)
{
	uintptr_t lo = PTEXT_LO(work_fn), hi = PTEXT_HI(work_fn);
	CHECK(hi - lo < 65536, "work_fn larger than one bin");
	hist[0] = 65535 - 50;
	hist[1] = 65535;
	profil_on(hist, sizeof hist, lo, 2);
	struct mon_stats st = stats_now();
	int clock = st.clock;
	double cpu = work_fn(0.4);
	profil_off();
	st = stats_now();
	double lb = ticks_lower_bound(clock, st.rate_hz, cpu);
	printf("clock %s: samples %llu counted %llu dropped %llu saturated %llu lost %llu; "
	       "bins %u %u\n",
	       mon_clock_name(clock), (unsigned long long)st.samples,
	       (unsigned long long)st.counted, (unsigned long long)st.dropped,
	       (unsigned long long)st.saturated, (unsigned long long)st.lost, hist[0], hist[1]);
	CHECK(hist[0] == 65535 && hist[1] == 65535, "bins %u %u, want 65535 65535", hist[0],
	      hist[1]);
	CHECK(st.counted == 50, "%llu ticks counted, only 50 fitted",
	      (unsigned long long)st.counted);
	CHECK(st.saturated + 50 >= lb, "%llu saturated, want >= %.0f - 50",
	      (unsigned long long)st.saturated, lb);
	CHECK(st.samples == st.counted + st.dropped + st.saturated + st.lost,
	      "samples != counted + dropped + saturated + lost");
	return 0;
}
