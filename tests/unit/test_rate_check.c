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

int main(int argc, char **argv)
{
	(void)argc;
	/* libmon reads its configuration before main (autostart.c): set it,
	 * then run this program again. */
	const char *r = getenv("MONPROF_RATE"), *c = getenv("MONPROF_CLOCK");
	if (r == NULL || strcmp(r, "10000") != 0 || c == NULL || strcmp(c, "perf") != 0) {
		setenv("MONPROF_CLOCK", "perf", 1);
		setenv("MONPROF_RATE", "10000", 1);
		execv("/proc/self/exe", argv);
		perror("execv /proc/self/exe");
		return 1;
	}
	if (mkdtemp(dir) == NULL || chdir(dir) < 0) {
		perror("mkdtemp");
		return 1;
	}
	unsetenv("MONPROF_OUT");
	unsetenv("PROFDIR");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(once_over_toggles),
		cmocka_unit_test(once_in_fork_child),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	/* The profile monstartup writes at exit goes to dir: stop now and
	 * remove it. */
	monitor(0, 0, 0, 0, 0);
	char cmd[64];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	return rc;
}
