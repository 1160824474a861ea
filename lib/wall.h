/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wall.h — wall-clock and off-CPU sampling of every thread (private to
 * libmon; see wall.c): a thread of the runtime's own, the wall sampler,
 * reads every thread's state at MONPROF_WALL rounds a second of
 * wall-clock time without stopping or signalling it, and counts samples
 * per (thread, state, system call, what it waits on, stack) for mon.out's
 * WALL record (format/monout.h, mon.out(5)).
 */
#ifndef MON_WALL_H
#define MON_WALL_H

#include <stddef.h>
#include <stdint.h>

#include "monout.h"
#include "runtime.h"

#define MON_WALL_RATE_DEFAULT 100u	/* monrun --wall without =HZ */
#define MON_WALL_RATE_MAX 10000u	/* MONPROF_WALL's largest */
#define MON_WALL_DEPTH_MAX 128u		/* PCs kept per wall-clock stack at most */

/* The rate MONPROF_WALL asks for, rounds per second (0: off, also when
 * unset or invalid: settings.c refuses an invalid value before).  Reads
 * the environment (getenv): call at start-up, not from a handler. */
MON_HIDDEN unsigned mon_wall_setting(void);

/*
 * Start the wall sampler at rate_hz rounds a second (1..MON_WALL_RATE_MAX)
 * with stacks of at most depth PCs (0 is taken as 1: the PC alone): its
 * tables (mapped once, a few MiB, pages backed when touched), then its
 * thread (pthread_create(3) with every signal blocked, 256 KiB of stack;
 * never armed by the CPU clocks, never listed as the program's).  A
 * sampler already running is left as it is.  Not async-signal-safe.
 * Returns 0, or -1 with errno (ENOMEM, EAGAIN from pthread_create, EINVAL
 * for a rate out of range).
 */
MON_HIDDEN int mon_wall_start(unsigned rate_hz, unsigned depth);

/*
 * Stop the sampler and wait (at most about 2 s) for its thread to end;
 * its tables stay for the writer.  Call in normal context (exit, monitor(0),
 * before exec): not from a signal handler (a write from a handler reads
 * the tables while the sampler runs: every entry is published whole).
 */
MON_HIDDEN void mon_wall_stop(void);

/*
 * moncontrol(3)'s switch for the wall sampler: pause nonzero stops taking
 * rounds (the sampler sleeps until resumed; threads keep being listed when
 * it resumes), 0 resumes at the next round instant.  The rounds of a pause
 * are neither due nor missed (each thread's expected count leaves them
 * out); the WALL record gets MONOUT_WALL_F_PAUSED.  Not async-signal-safe;
 * called under monitor.c's lock.  Nothing happens before the sampler's
 * first start, or when already in that state.
 */
MON_HIDDEN void mon_wall_pause(int pause);

/* Rounds taken in this process (a fork child: its own); async-signal-safe. */
MON_HIDDEN uint64_t mon_wall_rounds(void);

/* 1 while the sampler runs (between mon_wall_start and mon_wall_stop). */
MON_HIDDEN int mon_wall_running(void);
/* The rounds a second asked of the sampler (MONPROF_WALL), 0 before any. */
MON_HIDDEN unsigned mon_wall_rate(void);
/* 1 while the sampler runs but is paused (mon_wall_pause: moncontrol(0),
 * monctl off); 0 otherwise.  Async-signal-safe (an atomic load). */
MON_HIDDEN int mon_wall_paused(void);

/* Restart after mon_wall_stop (an exec that failed): same rate, the counts
 * go on.  0 or -1/errno as mon_wall_start. */
MON_HIDDEN int mon_wall_resume(void);

/*
 * In a fork child (the sampler thread did not come along): close the
 * parent's descriptors of ours and zero the tables; when go is nonzero
 * (profiling continues in the child) and the parent's sampler ran,
 * mon_wall_fork_go then starts a sampler of the child's own at the
 * parent's rate.  Starts no thread.
 */
MON_HIDDEN void mon_wall_fork_child(int go);

/*
 * The fork child's sampler, as mon_wall_fork_child decided: started after
 * the child's control thread (control.c), so that its listings never find
 * that thread before it has said its tid, nor sample the program's thread
 * waiting for it.  A no-op when none is due.  Not async-signal-safe
 * (pthread_create).
 */
MON_HIDDEN void mon_wall_fork_go(void);

/* mon_wall_put's part: the whole run, or an interval's file (monitor.c's
 * cut): what was sampled since the last MON_WALL_CUT, and then with
 * MON_WALL_CUT that becomes the files' (the next file starts from there). */
enum { MON_WALL_WHOLE, MON_WALL_SINCE_CUT, MON_WALL_CUT };

/*
 * Write the WALL record to w: every thread seen (the sampler's own with
 * MONOUT_WALL_THREAD_SAMPLER and its CPU), every wait, every sample, the
 * rounds and the sampler's CPU; objs[0..nobjs) are the OBJECT records
 * of the loaded objects the file holds, in order, and unloaded[0..nunloaded)
 * those of objects unloaded since, numbered nobjs + i (a futex word in an
 * object's data is named by its index).  Nothing is written when the sampler never ran.
 * part MON_WALL_WHOLE: the whole run.  MON_WALL_SINCE_CUT, MON_WALL_CUT:
 * an interval file's, only what came after the last MON_WALL_CUT (each
 * sample's count, each thread's samples and due rounds, its span clipped
 * to the interval, the rounds, missed rounds, lost samples, the sampler's
 * CPU and elapsed time less those of the files cut so far); MON_WALL_CUT
 * then adds them to the files cut.  Each count is read once (an atomic
 * load): a round adding after it goes to the next file, so files cut in
 * turn hold every sample once.  The cut bases are the writer's alone: call
 * under monitor.c's writer lock.  Async-signal-safe: reads the tables only
 * (entries being added at that moment are left out, for the next file).
 * Returns 0 or -1 with errno from the writer.
 */
MON_HIDDEN int mon_wall_put(struct monout_writer *w, const struct monout_object *objs,
			    size_t nobjs, const struct monout_object *unloaded, size_t nunloaded,
			    int part);

/* An interval skipped (monitor.c's mon_interval_skip: nothing sampled
 * since the last one): what the sampler took since the last cut becomes
 * the files', written in none.  Under monitor.c's writer lock; not from a
 * signal handler.  Nothing happens before the sampler's first start. */
MON_HIDDEN void mon_wall_cut_skip(void);

#endif /* MON_WALL_H */
