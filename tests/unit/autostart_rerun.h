/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * autostart_rerun.h — for a unit test that needs libmon configured by its
 * environment: libmon reads MONPROF_CLOCK and MONPROF_RATE before main
 * (lib/autostart.c), so the test sets them and runs itself again, then
 * works in a directory of its own where the profile written at exit goes.
 *
 * Header-only, for one test program each (static functions).
 */
#ifndef MONPROF_TESTS_AUTOSTART_RERUN_H
#define MONPROF_TESTS_AUTOSTART_RERUN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mon.h"

/*
 * Runs this program again (execv(2) of /proc/self/exe with argv) unless
 * MONPROF_CLOCK is clock and MONPROF_RATE is rate (a decimal string) already;
 * then makes dir (a mkdtemp(3) template, changed in place) the working
 * directory and unsets MONPROF_OUT and PROFDIR.  Returns 0 when the test may
 * go on, -1 (with the reason on stderr) when it must end with status 1.
 */
static int autostart_rerun(char **argv, const char *clock, const char *rate, char *dir)
{
	const char *c = getenv("MONPROF_CLOCK"), *r = getenv("MONPROF_RATE");
	if (c == NULL || strcmp(c, clock) != 0 || r == NULL || strcmp(r, rate) != 0) {
		setenv("MONPROF_CLOCK", clock, 1);
		setenv("MONPROF_RATE", rate, 1);
		execv("/proc/self/exe", argv);
		perror("execv /proc/self/exe");
		return -1;
	}
	if (mkdtemp(dir) == NULL || chdir(dir) < 0) {
		perror("mkdtemp");
		return -1;
	}
	unsetenv("MONPROF_OUT");
	unsetenv("PROFDIR");
	return 0;
}

/* Stops profiling (monitor(3) with a null lowpc: the profile is written into
 * dir) and removes dir. */
static void autostart_cleanup(const char *dir)
{
	monitor(0, 0, 0, 0, 0);
	char cmd[64];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

#endif
