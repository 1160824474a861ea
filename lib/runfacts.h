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
/* A tick of weight samples in the calling thread.  Async-signal-safe. */
MON_HIDDEN void mon_facts_tick(uint64_t weight);
/* The calling thread is ending: record its CPU (getrusage RUSAGE_THREAD). */
MON_HIDDEN void mon_facts_thread_end(void);
/* In a fork child before its clock is armed: an empty table, elapsed time
 * from now. */
MON_HIDDEN void mon_facts_reset(void);
/* Write the FACTS and THREADS records (every live thread's CPU read now).
 * Async-signal-safe.  0 or -1/errno. */
MON_HIDDEN int mon_facts_put(struct monout_writer *w);

#endif /* MON_RUNFACTS_H */
