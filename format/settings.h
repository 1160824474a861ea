/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * settings.h — the MONPROF_* settings' valid values (format/settings.c),
 * shared by libmon and monrun(1): the environment's syntax is an interface
 * both sides read, like mon.out's bytes, so it sits in format/, the one
 * directory the runtime and the tools both see.  Nothing here is exported
 * from libmon.so.
 */
#ifndef MON_SETTINGS_H
#define MON_SETTINGS_H

#define MON_SETTING_RATE_MAX 20000
#define MON_SETTING_STACK_DEPTH_MAX 512		/* MONPROF_STACK_DEPTH */
#define MON_SETTING_STACK_TABLE_MIN 16		/* MONPROF_STACK_TABLE */
#define MON_SETTING_STACK_TABLE_MAX 4194304
#define MON_SETTING_WALL_MAX 10000		/* MONPROF_WALL, samples per second */
#define MON_SETTING_ARCS_MIN 50			/* MONPROF_ARCS (glibc's MINARCS) */
#define MON_SETTING_ARCS_MAX 1073741824
#define MON_SETTING_INTERVAL_MAX 86400		/* MONPROF_INTERVAL, seconds */
#define MON_SETTING_KEEP_MAX 1000000		/* MONPROF_KEEP, files */
#define MON_SETTING_MAX_BYTES_MIN 4096ull	/* MONPROF_MAX_BYTES */

#if defined(__GNUC__)
#define MON_SETTINGS_HIDDEN __attribute__((visibility("hidden")))
#else
#define MON_SETTINGS_HIDDEN
#endif

/* NULL if value (NULL or empty: unset) is valid for the variable name,
 * else why not, in a few words ("the clock is perf, thread or itimer"). */
MON_SETTINGS_HIDDEN const char *mon_setting_problem(const char *name, const char *value);

/* The variables checked, NULL-terminated. */
MON_SETTINGS_HIDDEN extern const char *const mon_setting_names[];

/* The first invalid setting in the environment: why (with *name and
 * *value set), or NULL when all are valid. */
MON_SETTINGS_HIDDEN const char *mon_settings_first_problem(const char **name, const char **value);

/* 0 if every MONPROF_* setting in the environment is valid; else -1 with
 * errno EINVAL, after one line on stderr (the first time in the process):
 * "monprof: MONPROF_RATE=abc: the rate is 1 to 20000 samples per
 * CPU-second; not profiling".  Async-signal-safe apart from getenv. */
MON_SETTINGS_HIDDEN int mon_settings_check(void);

/* "4096", "64K", "10M", "2G" (powers of 1024) -> *out bytes; 0, or -1 if s
 * is none of those or overflows. */
MON_SETTINGS_HIDDEN int mon_parse_bytes(const char *s, unsigned long long *out);

/* "USR2", "SIGUSR2", "12", "RTMIN+3" -> the signal number; 0 if s names
 * none (or SIGKILL / SIGSTOP). */
MON_SETTINGS_HIDDEN int mon_parse_signal(const char *s);

#endif /* MON_SETTINGS_H */
