/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * profil_basic.c — profil() from libmon is the one a program gets.
 *
 * The program calls plain profil() as declared by <unistd.h> over one spin
 * function and checks that libmon counted the ticks: libmon's counters
 * (mon_getstats) grew, the function's bins hold them, and SIGPROF was not
 * taken (the C library's profil would set ITIMER_PROF and a SIGPROF
 * handler).  Built three ways by profil_basic.sh: linked with -lmon,
 * linked with libmon.a, and (-DVIA_DLSYM) linked with neither but run with
 * libmon.so in LD_PRELOAD, mon_getstats then being looked up with dlsym.
 *
 * Bound: work_fn uses 0.5 s of CPU; ticks_lower_bound (profil_common.h).
 */
#include <dlfcn.h>
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

#include "profil_common.h"

PROFIL_SINK_DEFINE;
DEFINE_SPIN(work_fn)

static unsigned short buf[4096];

#ifdef VIA_DLSYM
#define mon_clock_name(c) clock_name(c)
static const char *(*clock_name)(int);
#endif

int main(void)
{
#ifdef VIA_DLSYM
	int (*getstats)(struct mon_stats *, size_t) =
		(int (*)(struct mon_stats *, size_t))dlsym(RTLD_DEFAULT, "mon_getstats");
	clock_name = (const char *(*)(int))dlsym(RTLD_DEFAULT, "mon_clock_name");
	CHECK(getstats != NULL && clock_name != NULL, "libmon is not loaded");
#else
	int (*getstats)(struct mon_stats *, size_t) = mon_getstats;
#endif

	uintptr_t lo = PTEXT_LO(work_fn), hi = PTEXT_HI(work_fn);
	size_t nbins = sizeof buf / 2;
	CHECK(ref_bin(hi - 1, lo, 0x8000) < nbins, "work_fn too big for the histogram");
	CHECK(profil(buf, sizeof buf, lo, 0x8000) == 0, "profil: %s", strerror(errno));

	struct mon_stats st;
	CHECK(getstats(&st, sizeof st) == 0 && st.on == 1, "libmon did not see profil() turn on");
	struct sigaction sa;
	struct itimerval it;
	sigaction(SIGPROF, NULL, &sa);
	getitimer(ITIMER_PROF, &it);
	if (st.clock != MON_CLOCK_ITIMER) {
		CHECK(sa.sa_handler == SIG_DFL, "SIGPROF handler installed with clock %s",
		      mon_clock_name(st.clock));
		CHECK(it.it_interval.tv_usec == 0 && it.it_interval.tv_sec == 0,
		      "ITIMER_PROF set with clock %s", mon_clock_name(st.clock));
	}

	int clock = st.clock;
	double cpu = work_fn(0.5);
	CHECK(profil(null_buf(), 0, 0, 0) == 0, "profil off: %s", strerror(errno));
	CHECK(getstats(&st, sizeof st) == 0, "mon_getstats");
	uint64_t in = hist_range(buf, nbins, lo, 0x8000, lo, hi);
	double lb = ticks_lower_bound(clock, st.rate_hz, cpu);
	printf("clock %s rate %u: %llu samples, %llu ticks in work_fn over %.3f s (>= %.0f)\n",
	       mon_clock_name(clock), st.rate_hz, (unsigned long long)st.samples,
	       (unsigned long long)in, cpu, lb);
	CHECK(st.samples > 0, "no samples");
	CHECK(in >= lb && in <= st.counted, "%llu ticks in work_fn, %llu counted",
	      (unsigned long long)in, (unsigned long long)st.counted);
	return 0;
}
