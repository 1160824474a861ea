/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * autostart.c — whole-process profiling when monrun preloads libmon.so.
 *
 * monrun(1) sets MONPROF_AUTO to its own pid and execs the command, which
 * keeps that pid; this constructor starts profiling only in that process,
 * so nothing else that inherits the environment is profiled by accident.
 * First (before the clocks start: the runtime's own work, never sampled as
 * the program's) it checks the settings and removes them from the
 * environment — MONPROF_AUTO,
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
 *
 * When: as early as a preloaded library can.  ld.so runs the constructors
 * of objects that do not depend on each other in the reverse of their load
 * order (glibc elf/dl-init.c, _dl_init over l_initfini), and a preloaded
 * library is loaded before every library the program needs, so libmon's
 * constructors run after all of theirs: a library's C++ static
 * initializers were never profiled (0 of 0.3 s of a test library's
 * constructor).  But every object linked with the C runtime's crti.o
 * calls __gmon_start__, when some object defines it, at the start of its
 * _init, before its own constructors (glibc sysdeps/x86_64/crti.S,
 * sysdeps/aarch64/crti.S: PREINIT_FUNCTION).  libmon.so defines it (weak:
 * a cc -pg program's own, from gcrt1.o, comes first in the lookup and
 * keeps its meaning), so the first library ld.so initializes after the C
 * library starts monrun's profiling, and every constructor after it is
 * profiled.  libmon's own constructors then run first, in their order
 * (runtime.h), each once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monrt.h"
#include "objhist.h"
#include "settings.h"

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

/* monrun's settings, kept (mon_env) and removed from the environment. */
static const char *const scrubbed[] = {
	"MONPROF_AUTO", "MONPROF_FOLLOW", "MONPROF_OUT", "MONPROF_RATE", "MONPROF_CLOCK",
	"MONPROF_SIGNAL", "MONPROF_SNAPSHOT", "MONPROF_STACK_DEPTH", "MONPROF_STACK_TABLE",
	"MONPROF_WALL", "MONPROF_ARCS", "MONPROF_INTERVAL", "MONPROF_KEEP", "MONPROF_MAX_BYTES",
	"MONPROF_DORMANT", "MONPROF_CONTROL", "MONPROF_EXEC",
};
#define NSCRUBBED (sizeof scrubbed / sizeof scrubbed[0])

static void autostart(void)
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
	int ours = *end == '\0' && pid == (long)(by_parent ? getppid() : getpid());
	const char *f = getenv("MONPROF_FOLLOW");
	int follow = f != NULL && strcmp(f, "1") == 0;
	/* An invalid setting: one line on stderr, and the program runs
	 * unprofiled; checked here, while the environment holds the settings
	 * (setup's check reads the environment: once they are removed it found
	 * none, and MONPROF_RATE=abc was taken as the default, silently). */
	int valid = !ours || mon_settings_check() == 0;
	/* Kept and removed before the clocks start (the runtime reads the
	 * kept copies, mon_env): this is the runtime's own work, not the
	 * program's (a cat in a pipeline had 1 of its 2 samples in
	 * mon_env_keep -> mon_alloc). */
	mon_env_keep(scrubbed, NSCRUBBED);
	for (size_t i = 0; i < NSCRUBBED; i++)
		unsetenv(scrubbed[i]);
	scrub_preload();
	if (ours && valid)
		mon_whole_start(follow);
	errno = saved_errno;
}

/* libmon's start-up, once: every file's constructor in their order
 * (init.c), then monrun's start. */
static void start_once(void)
{
	MON_ONCE();
	mon_runtime_init();
	mon_monitor_init();
	autostart();
}

__attribute__((constructor)) static void autostart_init(void)
{
	start_once();
}

#if defined(__SANITIZE_ADDRESS__)
void __asan_init(void);
#endif
#if defined(__SANITIZE_THREAD__)
void __tsan_init(void);
#endif

/*
 * __gmon_start__: the hook every object's _init calls first when some
 * object defines it (crti.o's PREINIT_FUNCTION), before that object's
 * constructors; gcrt1.o's (cc -pg) calls __monstartup.  Here: under
 * monrun (MONPROF_AUTO in the environment), libmon's start-up and
 * monrun's profiling begin at the first such call, so that the program's
 * libraries' constructors, which ld.so runs before a preloaded library's,
 * are profiled.  Later (monrun's settings are gone from the environment
 * once it started), and in any program whose whole process is profiled,
 * the call comes from a library that dlopen is loading, before its
 * constructors run: the new objects get their histograms and unwind tables
 * then (mon_objhist_loading), or those constructors' samples would be in
 * no object.  No arguments, no result; errno is kept.  Weak, so that a
 * program's own definition (gcrt1.o's) is the one every object calls.
 * Runs before libmon's own constructors, so under a sanitizer its runtime
 * is set up first (its initializers may not have run yet either).
 */
MON_EXPORT __attribute__((weak)) void __gmon_start__(void);
MON_EXPORT __attribute__((weak)) void __gmon_start__(void)
{
	if (getenv("MONPROF_AUTO") == NULL) {
		mon_objhist_loading();	/* a dlopen's objects, if profiling */
		return;
	}
#if defined(__SANITIZE_ADDRESS__)
	__asan_init();
#endif
#if defined(__SANITIZE_THREAD__)
	__tsan_init();
#endif
	int saved_errno = errno;
	start_once();
	errno = saved_errno;
}
