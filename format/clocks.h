/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clocks.h — the names of the profiling clocks, the one table of them:
 * libmon's mon_clock_name (<mon.h>) and prof's report both read it.
 *
 * The values of enum mon_clock (<mon.h>) are stored in files: mon.out's
 * RUN record keeps the clock as a u32 (monout.h, mon.out(5)).  So they are
 * APPEND-ONLY: a new clock takes the next unused number; a number is never
 * reused, renumbered or removed, or old files would name the wrong clock.
 */
#ifndef MON_CLOCKS_H
#define MON_CLOCKS_H

#include <stdint.h>

#include "mon.h"

/* "perf-cpu-clock", "thread-cputime", "itimer-prof" or "none" for an enum
 * mon_clock; "unknown" for any other value (a file from a newer writer, or
 * garbage; a negative int converts to a huge value).  The strings are static.  Async-signal-safe. */
static inline const char *mon_clock_str(uint64_t clock)
{
	static const char *const names[] = {
		[MON_CLOCK_NONE] = "none",
		[MON_CLOCK_PERF] = "perf-cpu-clock",
		[MON_CLOCK_THREAD] = "thread-cputime",
		[MON_CLOCK_ITIMER] = "itimer-prof",
	};
	if (clock >= sizeof names / sizeof names[0] || names[clock] == NULL)
		return "unknown";
	return names[clock];
}

#endif /* MON_CLOCKS_H */
