/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_rate_check.c — the tick-cost measurement (lib/clock.c,
 * mon_clock_check_rate) runs at most once per process image: a program
 * that turns profiling off and on pays it at the first start only, and a
 * fork child keeps its parent's result (issue 19: each moncontrol(1) at
 * 10 kHz measured again, about 20 ms of CPU each, 93 % of a test's time).
 *
 * The count comes from the runtime's own counter of measurements
 * (mon_clock_rate_checks, hidden; this program links libmon.a), never
 * from a timing.  Mutation caught: the "rate_checks > 0" guard removed →
 * 1000 measurements, red.
 *
 * Its own process image: the clock's configuration (MONPROF_CLOCK,
 * MONPROF_RATE) is read once, before main, so main() sets it and runs the
 * program again.  Without a perf clock here (perf_event_paranoid,
 * a container without perf events) every case is a skip.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "autostart_rerun.h"
#include "mon.h"
#include "runtime.h"

#define TOGGLES 1000

extern char etext[];

static char dir[] = "/tmp/monprof-ratecheck.XXXXXX";

static struct mon_stats stats(void)
{
	struct mon_stats st;
	memset(&st, 0, sizeof st);
	mon_getstats(&st, sizeof st);
	return st;
}

/* Started with the perf clock at 10 kHz, or a skip. */
static void start(void)
{
	if (monstartup((int (*)(void))2, etext) < 0) {
		if (errno == ENOTSUP)
			skip();
		fail_msg("monstartup: errno %d", errno);
	}
	struct mon_stats st = stats();
	if (st.clock != MON_CLOCK_PERF) {
		fprintf(stderr, "# the perf clock is not available here (clock %d)\n", st.clock);
		skip();
	}
	/* Asked 10 kHz; the set rate may be lower (the measured cost). */
	uint32_t asked, set, cost, flags, check_us;
	mon_clock_facts(&asked, &set, &cost, &flags, &check_us);
	assert_int_equal(asked, 10000);
	assert_int_equal(st.rate_hz, set);
}

/* 1000 moncontrol off→on toggles: one measurement, at the first start. */
static void once_over_toggles(void **s)
{
	(void)s;
	start();
	assert_int_equal(mon_clock_rate_checks(), 1);
	for (int i = 0; i < TOGGLES; i++) {
		assert_int_equal(moncontrol(0), 1);
		assert_int_equal(moncontrol(1), 0);
	}
	assert_int_equal(mon_clock_rate_checks(), 1);
	assert_int_equal(stats().clock, MON_CLOCK_PERF);
}

/* A fork child that turns profiling off and on keeps the parent's
 * result: it measures nothing more. */
static void once_in_fork_child(void **s)
{
	(void)s;
	if (stats().clock != MON_CLOCK_PERF)
		skip();
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int bad = mon_clock_rate_checks() != 1;
		for (int i = 0; i < 100 && !bad; i++)
			bad = moncontrol(0) != 1 || moncontrol(1) != 0;
		_exit(bad ? 1 : mon_clock_rate_checks() == 1 ? 0 : 2);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(mon_clock_rate_checks(), 1);
}

/* The estimate keeps each side's least-disturbed round.  Rounds of a
 * shared machine (CI, 2 cores: "tick cost 0 ns" at 20 kHz): the work takes
 * 2.00 ms alone and 40 ticks of 7 us add 0.28 ms; round 0's window without
 * ticks was slowed by 0.5 ms, round 2's with ticks by 1 ms.  The first pair
 * alone reads 0 (2.28 ms with against 2.50 ms without).  Mutation caught:
 * the estimate from round 0 alone → 0, red; the mean base → 2.1 ms, cost
 * 4.5 us, red. */
static void cost_survives_a_slowed_round(void **s)
{
	(void)s;
	const uint64_t base[] = { 2500000, 2000000, 2010000, 2000000, 2005000 };
	const uint64_t with[] = { 2280000, 2290000, 3280000, 2280000, 2300000 };
	const uint64_t ticks[] = { 40, 40, 40, 40, 40 };
	assert_int_equal(mon_tick_cost_estimate(base, with, ticks, 5), 7000);
	/* A round counts the ticks it had: 35 ticks costing 245 us. */
	const uint64_t with2[] = { 2245000, 2300000, 2300000, 2300000, 2300000 };
	const uint64_t ticks2[] = { 35, 40, 40, 40, 40 };
	assert_int_equal(mon_tick_cost_estimate(base, with2, ticks2, 5), 7000);
}

/* No cost is made up: no tick, or no round slower than the least base,
 * is 0 ("not measured"), which the runtime answers with more rounds. */
static void cost_zero_when_not_shown(void **s)
{
	(void)s;
	const uint64_t base[] = { 2000000, 2000000 };
	const uint64_t with[] = { 2280000, 2280000 };
	const uint64_t none[] = { 0, 0 };
	assert_int_equal(mon_tick_cost_estimate(base, with, none, 2), 0);
	const uint64_t fast[] = { 1990000, 2000000 };
	const uint64_t ticks[] = { 40, 40 };
	assert_int_equal(mon_tick_cost_estimate(base, fast, ticks, 2), 0);
}

/* Measured on this machine, at 10 kHz: a cost, never 0 (issue 19's CI
 * read 0 under load), whatever the machine's speed. */
static void cost_measured(void **s)
{
	(void)s;
	if (stats().clock != MON_CLOCK_PERF)
		skip();
	uint32_t asked, set, cost, flags, check_us;
	mon_clock_facts(&asked, &set, &cost, &flags, &check_us);
	assert_true(cost > 0);
	assert_true(check_us > 0);
}

int main(int argc, char **argv)
{
	(void)argc;
	if (autostart_rerun(argv, "perf", "10000", dir) < 0)
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cost_survives_a_slowed_round),
		cmocka_unit_test(cost_zero_when_not_shown),
		cmocka_unit_test(once_over_toggles),
		cmocka_unit_test(cost_measured),
		cmocka_unit_test(once_in_fork_child),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	autostart_cleanup(dir);
	return rc;
}
