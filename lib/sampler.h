/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sampler.h — the tick dispatcher (private to libmon; see sampler.c).
 *
 * A tick is one signal of a profiling clock, taken by the thread that used
 * the CPU, at the PC where it was interrupted; it weighs one or more
 * samples (a sample is one period of the clock, 1/rate CPU-seconds).  The
 * sampler hands each tick to the sinks registered with it, in slot order,
 * until one charges it, and keeps the counters of struct mon_stats.  Sinks
 * flagged MON_SINK_OBSERVE (the call stacks) are not in that offer: each
 * sees every tick that is a sample, after the charging sinks answered.
 */
#ifndef MON_SAMPLER_H
#define MON_SAMPLER_H

#include <stdint.h>
#include <sys/types.h>

#include "mon.h"
#include "runtime.h"

/* One tick as the sinks see it. */
struct mon_sample {
	uintptr_t pc;		/* where the thread was interrupted */
	uint64_t weight;	/* samples the tick stands for, >= 1 */
	const void *context;	/* the signal's ucontext_t (the registers at pc), or NULL */
	pid_t tid;		/* the thread that took it; 0 unless a sink has MON_SINK_TID */
};

/* What a sink's take() did with a sample. */
enum {
	MON_SINK_OFF,		/* the sink is not on: not its sample */
	MON_SINK_OUTSIDE,	/* on, but pc is outside what it covers: the next sink may take it */
	MON_SINK_LOST,		/* on, but it cannot charge now (changing, unwritable) */
	MON_SINK_TAKEN		/* charged; *saturated: the part of the weight that did not fit */
};

struct mon_sink {
	/* Called in the signal handler: async-signal-safe, no locks, no
	 * allocation.  *saturated is 0 on entry. */
	int (*take)(const struct mon_sample *s, uint64_t *saturated);
	unsigned flags;		/* MON_SINK_TID, MON_SINK_OBSERVE */
};
#define MON_SINK_TID 1u		/* fill mon_sample.tid (gettid, once per thread) */
#define MON_SINK_OBSERVE 2u	/* an observer: offered every tick that is a sample
				 * (whatever sink charged it, or none: dropped, lost),
				 * after the charging sinks; its answer is ignored and
				 * no counter depends on it */

/* The slots, in the order a tick is offered: profil()'s buffer first,
 * sprofil()'s regions (sprofil.c) next, then the whole-process histograms
 * (which take what those leave); the call stacks' observer (stacks.c) after
 * them. */
#define MON_SINK_PROFIL 0
#define MON_SINK_SPROFIL 1
#define MON_SINK_OBJHIST 2
#define MON_SINK_STACKS 3
#define MON_SINKS 4

/* The tick path: offer one tick to the sinks and count it.  clock.c's
 * handler calls it (mon_clock_deliver_to); context is the signal's
 * ucontext_t, weight >= 1.  Async-signal-safe. */
MON_HIDDEN void mon_sampler_tick(const void *context, uintptr_t pc, uint64_t weight);

/* Is a tick of weight samples (>= 1) at rate_hz (samples per CPU-second)
 * late: more than one period and more than 20 ms of CPU (1/50 s), where a
 * timer looked at every kernel tick (HZ 100 at the slowest) stands for one
 * tick's worth at most?  0 for rate_hz 0.  Async-signal-safe. */
MON_HIDDEN int mon_tick_late(uint64_t weight, unsigned rate_hz);

/* Put sink in slot (0..MON_SINKS-1), replacing what was there (NULL
 * empties it); published atomically to the handler.  Under mon_lock(). */
MON_HIDDEN void mon_sampler_set_sink(unsigned slot, const struct mon_sink *sink);

/* The clock users: the clocks run while any user holds them; acquire
 * starts them (the best clock that works, threads.c) when the first user
 * comes, release stops them when the last one goes: when it returns no
 * tick is pending and none will come from them.  Under mon_lock(); acquire
 * returns 0 or -1/errno (ENOTSUP, EAGAIN, ENOMEM). */
#define MON_USER_PROFIL 1	/* profil() is on */
#define MON_USER_OBJHIST 2	/* whole-process object histograms are on */
#define MON_USER_SPROFIL 4	/* sprofil() is on */
MON_HIDDEN int mon_sampling_acquire(int user);
MON_HIDDEN void mon_sampling_release(int user);
MON_HIDDEN int mon_sampling_users(void);

/* Wait until no tick is being dispatched (bounded: a thread stopped in the
 * handler by a debugger must not hang the caller).  After a sink changed
 * what it writes to, nothing writes to the old place when this returns. */
MON_HIDDEN void mon_sampler_quiesce(void);

/* The counters and clock state of struct mon_stats: samples, counted,
 * dropped, saturated, lost, clock, rate_hz, threads (other fields kept). */
MON_HIDDEN void mon_sampler_stats(struct mon_stats *st);

/* The profile ends here, in a process about to end (_exit, a fatal
 * signal) whose clocks may still run: from now on a tick counts nowhere,
 * and when this returns no tick is being counted (mon_sampler_quiesce's
 * bound), so the counters read after it are what the histograms hold.
 * Async-signal-safe; mon_sampler_reset opens it again. */
MON_HIDDEN void mon_sampler_close(void);

/* Zero the counters (a fork child, before its clock runs; a new run); the
 * threads' ids are asked anew.  forked: in a fork child, where the handlers
 * that were running in the parent's other threads at the fork are not:
 * none is in flight (the child waited up to 5 s for them, in fork(), when
 * it stopped sampling: monrun --wall without -f, where the wall sampler's
 * thread was in a sample at the fork). */
MON_HIDDEN void mon_sampler_reset(int forked);

#endif /* MON_SAMPLER_H */
