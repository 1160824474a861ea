/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * autostart.c — whole-process profiling when monrun preloads libmon.so.
 *
 * monrun(1) sets MONPROF_AUTO to its own pid and execs the command, which
 * keeps that pid; this constructor starts profiling only in that process,
 * so nothing else that inherits the environment is profiled by accident.
 * It then removes monrun's settings from the environment — MONPROF_AUTO,
 * MONPROF_FOLLOW, MONPROF_OUT, MONPROF_RATE, MONPROF_CLOCK, the stack
 * settings (MONPROF_STACK_DEPTH, MONPROF_STACK_TABLE), MONPROF_WALL, MONPROF_ARCS, the
 * interval and control settings (MONPROF_INTERVAL, MONPROF_KEEP,
 * MONPROF_MAX_BYTES, MONPROF_DORMANT, MONPROF_CONTROL) and libmon.so's
 * entry in LD_PRELOAD — so the program sees the environment it was given
 * and the programs it executes run without libmon and are not told how to
 * profile (a fork child, with -f, needs no environment: it carries on the
 * parent's state).  The runtime still reads some settings later (a
 * dormant start switched on by monctl starts the wall-clock sampler and
 * the call stacks then), so their values are kept first, in libmon's own
 * memory, and every setting is read through mon_env.  A
 * MONPROF_RATE or MONPROF_CLOCK the user had set goes too: monrun passes
 * such a value on to the command, which takes it as its own setting.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monrt.h"

/* Remove every LD_PRELOAD entry whose file name is libmon.so*, editing the
 * environment's own string in place (it only gets shorter): setenv would
 * call the program's malloc. */
static void scrub_preload(void)
{
	extern char **environ;
	char *pre = NULL;
	for (char **e = environ; e != NULL && *e != NULL; e++)
		if (strncmp(*e, "LD_PRELOAD=", 11) == 0) {
			pre = *e + 11;
			break;
		}
	if (pre == NULL)
		return;
	size_t at = 0;
	const char *p = pre;
	while (*p) {
		size_t n = strcspn(p, ": ");
		const char *slash = memrchr(p, '/', n);
		const char *file = slash ? slash + 1 : p;
		size_t flen = n - (size_t)(file - p);
		if (n > 0 && !(flen >= 9 && memcmp(file, "libmon.so", 9) == 0)) {
			if (at)
				pre[at++] = ':';
			memmove(pre + at, p, n);	/* at <= p - pre: never ahead */
			at += n;
		}
		p += n;
		while (*p == ':' || *p == ' ')
			p++;
	}
	pre[at] = '\0';
	if (at == 0)
		unsetenv("LD_PRELOAD");
}

/* monrun's settings, removed from the environment once read. */
static const char *const scrubbed[] = {
	"MONPROF_AUTO", "MONPROF_FOLLOW", "MONPROF_OUT", "MONPROF_RATE", "MONPROF_CLOCK",
	"MONPROF_SIGNAL", "MONPROF_SNAPSHOT", "MONPROF_STACK_DEPTH", "MONPROF_STACK_TABLE",
	"MONPROF_WALL", "MONPROF_ARCS", "MONPROF_INTERVAL", "MONPROF_KEEP", "MONPROF_MAX_BYTES",
	"MONPROF_DORMANT", "MONPROF_CONTROL", "MONPROF_EXEC",
};
#define NSCRUBBED (sizeof scrubbed / sizeof scrubbed[0])

__attribute__((constructor)) static void autostart(void)
{
	const char *autopid = getenv("MONPROF_AUTO");
	if (autopid == NULL)
		return;
	int saved_errno = errno;
	/* PID, or ppid:PID for a child libmon started with posix_spawn
	 * (follow.c), whose own pid was not known then. */
	int by_parent = strncmp(autopid, "ppid:", 5) == 0;
	char *end;
	long pid = strtol(autopid + (by_parent ? 5 : 0), &end, 10);
	if (*end == '\0' && pid == (long)(by_parent ? getppid() : getpid())) {
		const char *f = getenv("MONPROF_FOLLOW");
		mon_whole_start(f != NULL && strcmp(f, "1") == 0);
	}
	mon_env_keep(scrubbed, NSCRUBBED);
	for (size_t i = 0; i < NSCRUBBED; i++)
		unsetenv(scrubbed[i]);
	scrub_preload();
	errno = saved_errno;
}
