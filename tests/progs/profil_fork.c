/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * profil_fork.c — after fork() profiling stays on in parent and child, and
 * each counts its own CPU into its own copy of the buffer (the shared case
 * fork-both-sides.c, with profil() over the two functions).
 *
 * The child spins 0.5 s of CPU in child_work, the parent 0.5 s in
 * parent_work.  In each process: profiling is on, its own function has at
 * least ticks_lower_bound ticks (profil_common.h), the other function has
 * none (it never ran in this process, and nothing before the fork ran
 * either), and the child's counters started from zero at the fork (the
 * parent spends 0.2 s in a third function first).
 */
#include <sys/wait.h>

#include "profil_common.h"

PROFIL_SINK_DEFINE;
DEFINE_SPIN(parent_work)
DEFINE_SPIN(child_work)
DEFINE_SPIN(before_fork)

static unsigned short *hist;
static size_t nbins;
static uintptr_t lo, hi;
static uint64_t samples_at_fork;

static void check_own(const char *who, double (*fn)(double), uintptr_t own_lo, uintptr_t own_hi,
		      uintptr_t other_lo, uintptr_t other_hi)
{
	struct mon_stats st = stats_now();
	CHECK(st.on == 1, "%s: profiling off after fork", who);
	int clock = st.clock;
	double cpu = fn(0.5);
	st = stats_now();
	uint64_t own = hist_range(hist, nbins, lo, 0x10000, own_lo, own_hi);
	uint64_t other = hist_range(hist, nbins, lo, 0x10000, other_lo, other_hi);
	double lb = ticks_lower_bound(clock, st.rate_hz, cpu);
	printf("%s (clock %s): %llu ticks in its own function (>= %.0f), %llu in the other's; "
	       "%llu samples\n",
	       who, mon_clock_name(clock), (unsigned long long)own, lb, (unsigned long long)other,
	       (unsigned long long)st.samples);
	CHECK(own >= lb, "%s: %llu ticks in its function", who, (unsigned long long)own);
	CHECK(other == 0, "%s: %llu ticks in the other process's function", who,
	      (unsigned long long)other);
	/* Nearly all of a process's ticks after the fork are in its function;
	 * the child's counters must not hold the parent's ticks from before. */
	if (strcmp(who, "child") == 0)
		CHECK(st.samples <= own + own / 20 + samples_at_fork / 2,
		      "child: %llu samples, %llu of them in its function, %llu before the "
		      "fork: counters not reset at fork",
		      (unsigned long long)st.samples, (unsigned long long)own,
		      (unsigned long long)samples_at_fork);
}

int main(void)
{
	lo = PTEXT_LO(parent_work) < PTEXT_LO(child_work) ? PTEXT_LO(parent_work)
							  : PTEXT_LO(child_work);
	hi = PTEXT_HI(parent_work) > PTEXT_HI(child_work) ? PTEXT_HI(parent_work)
							  : PTEXT_HI(child_work);
	nbins = (hi - lo + 1) / 2;
	hist = calloc(nbins, 2);
	CHECK(hist != NULL, "calloc");
	profil_on(hist, nbins * 2, lo, 0x10000);
	/* ticks before the fork, outside both functions */
	before_fork(0.2);
	samples_at_fork = stats_now().samples;
	CHECK(samples_at_fork > 0, "no ticks before the fork");

	fflush(stdout);
	pid_t pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		check_own("child", child_work, PTEXT_LO(child_work), PTEXT_HI(child_work),
			  PTEXT_LO(parent_work), PTEXT_HI(parent_work));
		profil_off();
		fflush(stdout);
		_exit(0);
	}
	check_own("parent", parent_work, PTEXT_LO(parent_work), PTEXT_HI(parent_work),
		  PTEXT_LO(child_work), PTEXT_HI(child_work));
	int status;
	CHECK(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child failed (status %#x)", status);
	profil_off();
	return 0;
}
