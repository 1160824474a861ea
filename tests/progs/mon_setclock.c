/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mon_setclock.c — mon_setclock(3) (monitor.3, "Rate and clock from code"):
 * the clock and rate a program chooses from code are the ones the next
 * start uses, over MONPROF_CLOCK / MONPROF_RATE (the script sets both to
 * something else); clocks already running keep theirs until the next start;
 * bad arguments are EINVAL and change nothing.  The thread and itimer clocks
 * only: they exist wherever POSIX timers do (perf may be refused).
 * Exits 0, or 1 with file:line of the first failed check.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "mon.h"

#define CHECK(c)                                                                   \
	do {                                                                       \
		if (!(c)) {                                                        \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #c);    \
			exit(1);                                                   \
		}                                                                  \
	} while (0)

static unsigned short bins[4096];

static struct mon_stats now(void)
{
	struct mon_stats st;
	CHECK(mon_getstats(&st, sizeof st) == 0);
	return st;
}

static void on(void)
{
	CHECK(profil(bins, sizeof bins, (size_t)(uintptr_t)&now, 0x8000) == 0);
}

static void off(void)
{
	CHECK(profil(NULL, 0, 0, 0) == 0);
}

int main(void)
{
	/* Bad arguments: EINVAL, nothing asked. */
	errno = 0;
	CHECK(mon_setclock(MON_CLOCK_THREAD, 0) == -1 && errno == EINVAL);
	CHECK(mon_setclock(MON_CLOCK_THREAD, 20001) == -1 && errno == EINVAL);
	CHECK(mon_setclock(7, 100) == -1 && errno == EINVAL);
	CHECK(mon_setclock(-1, 100) == -1 && errno == EINVAL);
	/* The environment's choice (the script: itimer at 3000 Hz), first. */
	on();
	struct mon_stats st = now();
	CHECK(st.clock == MON_CLOCK_ITIMER && st.rate_hz == 3000);
	/* Asked while on: the running clock keeps its rate and kind. */
	errno = 0;
	CHECK(mon_setclock(MON_CLOCK_THREAD, 250) == 0 && errno == 0);
	st = now();
	CHECK(st.clock == MON_CLOCK_ITIMER && st.rate_hz == 3000);
	/* The next start takes it. */
	off();
	on();
	st = now();
	CHECK(st.clock == MON_CLOCK_THREAD && st.rate_hz == 250);
	off();
	/* Another choice; the last one asked before the start wins. */
	CHECK(mon_setclock(MON_CLOCK_THREAD, 100) == 0);
	CHECK(mon_setclock(MON_CLOCK_ITIMER, 500) == 0);
	on();
	st = now();
	CHECK(st.clock == MON_CLOCK_ITIMER && st.rate_hz == 500);
	off();
	/* Once taken, it stays: a later start without a new ask keeps it. */
	on();
	st = now();
	CHECK(st.clock == MON_CLOCK_ITIMER && st.rate_hz == 500);
	off();
	puts("mon_setclock: ok");
	return 0;
}
