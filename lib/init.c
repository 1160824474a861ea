/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * init.c — libmon's start-up: every file's constructor, once each, in the
 * order ld.so runs them for libmon.so (the constructor(101)s first).
 *
 * libmon.so runs it from its first constructor (autostart.c).  But
 * profiling can start before any constructor of libmon's has run: gcrt1.o's
 * __gmon_start__ (cc -pg) starts it from the first _init that calls it,
 * and a static link (libmon.a) runs the program's own constructors before
 * libmon.a's default-priority ones, so a program whose constructor forked,
 * exited or aborted did so with the fork handlers not yet registered, the
 * format's checksum table still empty (a file with a wrong header
 * checksum) and the control thread's settings not yet read (the call-stack
 * table sized as if no thread grew it).  So every start (monitor.c) runs
 * this first; each constructor runs once (MON_ONCE) whichever comes first.
 *
 * exec.c is named weakly: a static link holds exec.o only when the program
 * calls an exec function (monitor.3: exec is not followed in static
 * programs otherwise), and this must not pull it in.  monitor.c's own,
 * mon_monitor_init (it only sets mon_hooks), is not called here, so that
 * the arrow points one way (monitor.c calls this; tests/integ/lib_layers.sh):
 * its starts and autostart.c run it with this.
 */
#include "monout.h"
#include "runtime.h"

MON_HIDDEN void mon_exec_init(void) __attribute__((weak));

void mon_runtime_init(void)
{
	MON_ONCE();
	monout_crc32_init();	/* the format's (format/crc32.c) */
	mon_sigguard_init();	/* the constructor(101)s first, as ld.so runs them */
	mon_fdguard_init();
	mon_control_init();
	if (mon_exec_init != NULL)
		mon_exec_init();
	mon_fatal_init();
	mon_memread_init();
	mon_threads_init();
	mon_unwind_init();
}
