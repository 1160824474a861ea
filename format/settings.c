/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * settings.c — the MONPROF_* environment variables: which values are
 * valid.  One list for libmon (checked when profiling starts) and for
 * monrun(1) (checked before it runs anything), so that both refuse the same
 * values with the same words:
 *
 *   MONPROF_RATE      ticks per CPU-second, an integer 1..20000 (monrun -r)
 *   MONPROF_CLOCK     perf, thread or itimer (monrun -c)
 *   MONPROF_SIGNAL    the per-thread clocks' signal, SIGRTMIN..SIGRTMAX
 *   MONPROF_SNAPSHOT  a signal: USR1, SIGUSR2, a number, RTMIN+N
 *   MONPROF_OUT       a file name, not empty (monrun -o)
 *   MONPROF_FOLLOW    0 or 1 (monrun -f)
 *   MONPROF_STACK_DEPTH  PCs kept per call stack, 0..512 (0: no stacks; monrun -d)
 *   MONPROF_STACK_TABLE  unique call stacks the table holds, 16..4194304
 *   MONPROF_ARCS      call-graph arcs (caller, callee pairs) counted at most,
 *                     50..1073741824 (glibc's glibc.gmon.minarcs/maxarcs);
 *                     unset: no limit; past it no profile is written
 *                     (monrun -a)
 *   MONPROF_WALL      wall-clock samples of every thread: rounds per second
 *                     of wall-clock time, 0..10000 (0: off; monrun --wall)
 *   MONPROF_INTERVAL  seconds, 1..86400: each interval a profile of its own
 *                     (monrun --interval)
 *   MONPROF_KEEP      interval files kept, 1..1000000 (monrun --keep)
 *   MONPROF_MAX_BYTES interval files' bytes kept: a number, K, M or G after
 *                     it (1024s), at least 4K (monrun --max-bytes)
 *   MONPROF_DORMANT   0 or 1: loaded, sampling nothing until monctl on
 *                     (monrun --dormant)
 *   MONPROF_CONTROL   0 or 1: the control socket monctl(1) talks to (default
 *                     1; monrun --no-control)
 *   MONPROF_AUTO      a process ID, or ppid:PID (set by monrun and by
 *                     libmon at exec and posix_spawn)
 *   MONPROF_EXEC      libmon's state for a followed exec (lib/follow.c:
 *                     damage there only starts a chain of images anew)
 *
 * An empty or unset variable is no setting (MONPROF_OUT set and empty too).
 * This file uses nothing but the C library's string functions: it is built
 * into monrun as well (format/ is what the runtime and the tools share).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "settings.h"

/* strtoul that takes only plain decimal digits (no sign, no spaces). */
static int decimal(const char *s, unsigned long lo, unsigned long hi)
{
	if (*s < '0' || *s > '9')
		return 0;
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	return errno == 0 && *end == '\0' && v >= lo && v <= hi;
}

int mon_parse_signal(const char *s)
{
	static const struct {
		const char *name;
		int sig;
	} names[] = { { "USR1", SIGUSR1 }, { "USR2", SIGUSR2 }, { "HUP", SIGHUP },
		      { "WINCH", SIGWINCH }, { "URG", SIGURG }, { "PWR", SIGPWR },
		      { "CONT", SIGCONT }, { "TRAP", SIGTRAP } };
	if (s == NULL || *s == '\0')
		return 0;
	if (strncmp(s, "SIG", 3) == 0)
		s += 3;
	char *end;
	if (*s >= '0' && *s <= '9') {
		long v = strtol(s, &end, 10);
		return *end == '\0' && v > 0 && v < NSIG && v != SIGKILL && v != SIGSTOP ? (int)v : 0;
	}
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(s, names[i].name) == 0)
			return names[i].sig;
	if (strncmp(s, "RTMIN", 5) == 0) {
		if (s[5] == '\0')
			return SIGRTMIN;
		if (s[5] == '+' && s[6] >= '0' && s[6] <= '9') {
			long k = strtol(s + 6, &end, 10);
			if (*end == '\0' && k <= SIGRTMAX - SIGRTMIN)
				return SIGRTMIN + (int)k;
		}
	}
	return 0;
}

int mon_parse_bytes(const char *s, unsigned long long *out)
{
	if (s == NULL || *s < '0' || *s > '9')
		return -1;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10), mul = 1;
	if (errno != 0)
		return -1;
	if (*end == 'K' || *end == 'k')
		mul = 1ull << 10;
	else if (*end == 'M' || *end == 'm')
		mul = 1ull << 20;
	else if (*end == 'G' || *end == 'g')
		mul = 1ull << 30;
	else if (*end != '\0')
		return -1;
	if (mul > 1 && end[1] != '\0')
		return -1;
	if (v > ~0ull / mul)
		return -1;
	*out = v * mul;
	return 0;
}

const char *mon_setting_problem(const char *name, const char *v)
{
	if (v == NULL || *v == '\0')
		return NULL;
	if (strcmp(name, "MONPROF_RATE") == 0)
		return decimal(v, 1, MON_SETTING_RATE_MAX) ? NULL
			: "the rate is 1 to 20000 samples per CPU-second";
	if (strcmp(name, "MONPROF_CLOCK") == 0)
		return !strcmp(v, "perf") || !strcmp(v, "thread") || !strcmp(v, "itimer")
			? NULL : "the clock is perf, thread or itimer";
	if (strcmp(name, "MONPROF_SIGNAL") == 0)
		return decimal(v, (unsigned long)SIGRTMIN, (unsigned long)SIGRTMAX) ? NULL
			: "the signal is a real-time signal number, SIGRTMIN to SIGRTMAX";
	if (strcmp(name, "MONPROF_SNAPSHOT") == 0)
		return mon_parse_signal(v) ? NULL
			: "not a signal (USR1, SIGUSR2, a number, RTMIN+N)";
	if (strcmp(name, "MONPROF_FOLLOW") == 0)
		return !strcmp(v, "0") || !strcmp(v, "1") ? NULL : "the value is 0 or 1";
	if (strcmp(name, "MONPROF_STACK_DEPTH") == 0)
		return decimal(v, 0, MON_SETTING_STACK_DEPTH_MAX) ? NULL
			: "the stack depth is 0 to 512 PCs (0: no call stacks)";
	if (strcmp(name, "MONPROF_STACK_TABLE") == 0)
		return decimal(v, MON_SETTING_STACK_TABLE_MIN, MON_SETTING_STACK_TABLE_MAX) ? NULL
			: "the stack table holds 16 to 4194304 stacks";
	if (strcmp(name, "MONPROF_ARCS") == 0)
		return decimal(v, MON_SETTING_ARCS_MIN, MON_SETTING_ARCS_MAX) ? NULL
			: "the arc table holds 50 to 1073741824 arcs";
	if (strcmp(name, "MONPROF_WALL") == 0)
		return decimal(v, 0, MON_SETTING_WALL_MAX) ? NULL
			: "the wall-clock rate is 0 to 10000 samples per second (0: off)";
	if (strcmp(name, "MONPROF_INTERVAL") == 0)
		return decimal(v, 1, MON_SETTING_INTERVAL_MAX) ? NULL
			: "the interval is 1 to 86400 seconds";
	if (strcmp(name, "MONPROF_KEEP") == 0)
		return decimal(v, 1, MON_SETTING_KEEP_MAX) ? NULL
			: "the files kept are 1 to 1000000";
	if (strcmp(name, "MONPROF_MAX_BYTES") == 0) {
		unsigned long long b;
		return mon_parse_bytes(v, &b) == 0 && b >= MON_SETTING_MAX_BYTES_MIN ? NULL
			: "the bytes kept are a number of at least 4096, or with K, M or G "
			  "after it (at least 4K)";
	}
	if (strcmp(name, "MONPROF_DORMANT") == 0 || strcmp(name, "MONPROF_CONTROL") == 0)
		return !strcmp(v, "0") || !strcmp(v, "1") ? NULL : "the value is 0 or 1";
	if (strcmp(name, "MONPROF_AUTO") == 0)
		return decimal(v + (strncmp(v, "ppid:", 5) == 0 ? 5 : 0), 1, 0x7fffffff) ? NULL
			: "not a process ID";
	return NULL;
}

const char *const mon_setting_names[] = { "MONPROF_RATE", "MONPROF_CLOCK", "MONPROF_SIGNAL",
					   "MONPROF_SNAPSHOT", "MONPROF_FOLLOW", "MONPROF_AUTO",
					   "MONPROF_STACK_DEPTH", "MONPROF_STACK_TABLE", "MONPROF_WALL",
					   "MONPROF_ARCS",
					   "MONPROF_INTERVAL", "MONPROF_KEEP", "MONPROF_MAX_BYTES",
					   "MONPROF_DORMANT", "MONPROF_CONTROL", NULL };

const char *mon_settings_first_problem(const char **name, const char **value)
{
	for (size_t i = 0; mon_setting_names[i] != NULL; i++) {
		const char *v = getenv(mon_setting_names[i]);
		const char *why = mon_setting_problem(mon_setting_names[i], v);
		if (why != NULL) {
			*name = mon_setting_names[i];
			*value = v;
			return why;
		}
	}
	return NULL;
}

int mon_settings_check(void)
{
	static int reported;
	const char *name, *value, *why = mon_settings_first_problem(&name, &value);
	if (why == NULL)
		return 0;
	if (!__atomic_exchange_n(&reported, 1, __ATOMIC_ACQ_REL)) {
		int saved_errno = errno;
		static const char lead[] = "monprof: ";
		static const char tail[] = "; not profiling\n";
		struct iovec v[7] = {
			{ (void *)lead, sizeof lead - 1 },
			{ (void *)name, strlen(name) },
			{ (void *)"=", 1 },
			{ (void *)value, strlen(value) },
			{ (void *)": ", 2 },
			{ (void *)why, strlen(why) },
			{ (void *)tail, sizeof tail - 1 },
		};
		ssize_t r;
		do
			r = writev(STDERR_FILENO, v, 7);
		while (r < 0 && errno == EINTR);
		errno = saved_errno;
	}
	errno = EINVAL;
	return -1;
}
