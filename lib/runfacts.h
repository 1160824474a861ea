/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * runfacts.h — the run's facts besides the samples (lib/runfacts.c): each
 * thread's CPU and samples, elapsed time; written as mon.out's FACTS and
 * THREADS records (docs/mon.out.5).  Private to libmon.
 */
#ifndef MON_RUNFACTS_H
#define MON_RUNFACTS_H

#include <stdint.h>

#include "monout.h"
#include "runtime.h"

/* Map the thread table and note the start of elapsed time (first call
 * only).  0, or -1/ENOMEM. */
MON_HIDDEN int mon_facts_init(void);
/* The clocks start now in whole-process profiling, after the runtime's own
 * start (monitor.c arm_whole): the CPU before the start is read again, so
 * that it holds that start's CPU too, which no clock sampled.  Called
 * under monitor.c's lock, after mon_facts_init. */
MON_HIDDEN void mon_facts_armed(void);
/* Profiling is switched on (1) or off (0: moncontrol(0), monctl off, a
 * dormant start): the process CPU while off is counted with the CPU before
 * the start (FACTS cpu_before_usec) and the file flagged
 * MONOUT_FACT_PROFILING_OFF.  Called under monitor.c's lock. */
MON_HIDDEN void mon_facts_profiling(int on);
/* This image was started by exec in a process that had used process[0]
 * user and process[1] system CPU, microseconds, of which the exec'ing
 * thread (this image's first, tid = pid) thread[0] and thread[1]
 * (follow.c): what the earlier images used is in their own profiles, so
 * it is left out of this image's RUN CPU, its CPU before profiling
 * started, and that thread's THREADS CPU. */
MON_HIDDEN void mon_facts_exec_cpu(const uint64_t process[2], const uint64_t thread[2]);
/* The process's user (v[0]) and system (v[1]) CPU so far, microseconds
 * (getrusage(2) RUSAGE_SELF: every image's since the process began; 0
 * if it cannot be read).  Async-signal-safe. */
MON_HIDDEN void mon_facts_process_cpu(uint64_t v[2]);
/* This image's user (v[0]) and system (v[1]) CPU so far, microseconds:
 * the process's (getrusage(2) RUSAGE_SELF) less what the images before an
 * exec used.  Async-signal-safe. */
MON_HIDDEN void mon_facts_image_cpu(uint64_t v[2]);
/* The calling thread's user and system CPU so far, microseconds, as the
 * kernel counts it: since the thread began, across exec (follow.c passes
 * it on).  0, or -1 if it could not be read.  Async-signal-safe. */
MON_HIDDEN int mon_facts_own_cpu(uint64_t *user, uint64_t *sys);
/* A tick of weight samples in the calling thread; late: the tick stands
 * for more than 20 ms of the thread's CPU (THREADS' late count).
 * Async-signal-safe. */
MON_HIDDEN void mon_facts_tick(uint64_t weight, int late);
/* The calling thread is ending: record its CPU (getrusage RUSAGE_THREAD). */
MON_HIDDEN void mon_facts_thread_end(pid_t tid);
/* In a fork child before its clock is armed: an empty table, elapsed time
 * from now. */
MON_HIDDEN void mon_facts_reset(void);
/* Write the FACTS and THREADS records (every live thread's CPU read now).
 * Async-signal-safe.  0 or -1/errno. */
MON_HIDDEN int mon_facts_put(struct monout_writer *w);

/* An interval of the run (control.c): since_ns its start and until_ns its
 * end, the cut (CLOCK_MONOTONIC nanoseconds; 0: the write's time), first: the first interval of the process (the CPU used
 * before profiling started, and the rate check's, belong to it), advance: 1 when the run goes on (the counts written
 * become the base the next interval is measured from), 0 for the last. */
struct mon_facts_window {
	uint64_t since_ns;
	uint64_t until_ns;
	int first;		/* the first interval: the CPU before profiling started is in it */
	int advance;
};
/* FACTS and THREADS of that interval only: elapsed time since since_ns,
 * each thread's CPU and samples less what the previous interval's file
 * held (threads that ended before the interval are left out).  The first
 * call maps the base table (MON_FACTS_MAX entries): make it from a thread
 * first (mon_facts_window_init), a signal handler then only reads it.
 * Async-signal-safe once made.  0 or -1/errno. */
MON_HIDDEN int mon_facts_window_init(void);
/* The cut of an interval: each thread's samples now, which the interval's
 * file (the next mon_facts_put_window) writes, read with RUN's counters.
 * Not in a signal handler.  Nothing before mon_facts_window_init. */
MON_HIDDEN void mon_facts_cut_samples(void);
MON_HIDDEN int mon_facts_put_window(struct monout_writer *w, const struct mon_facts_window *win);
/* Move the base to now without writing (a time nothing was sampled in:
 * its CPU is in no interval). */
MON_HIDDEN void mon_facts_window_advance(void);

/* The image this one is about to exec will not be profiled, for the
 * reasons flags gives (MONOUT_FACT_NEXT_STATIC, _SETID; 0: it will, or the
 * exec failed): FACTS written from now on carry them.  Set by follow.c. */
MON_HIDDEN void mon_facts_next_image(uint32_t flags);

#endif /* MON_RUNFACTS_H */
