/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sampler.c — the tick dispatcher: the clock users, the counters, the sinks.
 *
 * The clock's signal handler (clock.c) hands every tick here as
 * (context, pc, weight).  The sampler offers it to the registered sinks in
 * slot order (sampler.h): profil()'s buffer (profil.c), then the
 * whole-process object histograms (objhist.c).  The first sink that
 * charges the tick, or says it is lost, ends the offer.  Observers
 * (MON_SINK_OBSERVE: the call stacks, stacks.c) are left out of the offer
 * and shown every tick that turned out a sample, after it, so that a stack
 * is recorded for every sample whichever histogram counted it.  The
 * counters of struct mon_stats follow the charging sinks' answers:
 *
 *   a sink took it           samples and counted (saturated for the part
 *                            that did not fit a full bin)
 *   a sink lost it           samples and lost (its buffer was changing, or
 *                            became unwritable)
 *   on sinks, but outside    samples and dropped (the PC is in no range an
 *   all of them              on sink covers)
 *   no sink on               nothing: not a sample (a tick of a clock being
 *                            disarmed, or a signal it left pending)
 *
 * so samples = counted + dropped + saturated + lost holds at every quiet
 * moment, and samples are the ticks taken while profiling was on.
 *
 * The users (profil(), the object histograms) hold the clocks: the first
 * acquire starts them in every thread (threads.c), the last release stops
 * them.  A user turning off releases first and publishes "off" after, so
 * that no tick sees it off while its clock still runs.
 *
 * The handler's side takes no lock and allocates nothing: the sink table
 * is a fixed array of pointers, each published with a release store under
 * mon_lock(), read with acquire loads; the counters are atomic adds.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "mon.h"
#include "runfacts.h"
#include "runtime.h"
#include "sampler.h"

static const struct mon_sink *sinks[MON_SINKS];
static unsigned want_tid;	/* some sink has MON_SINK_TID */
static unsigned observers;	/* some sink has MON_SINK_OBSERVE */
static unsigned inflight;	/* handlers between entry and exit */
static int users;		/* MON_USER_* bits holding the clocks */
static int closed;		/* the profile ended (mon_sampler_close): ticks count nowhere */

static struct {
	uint64_t samples, counted, dropped, saturated, lost;
} stats;

/* The thread's id for MON_SINK_TID, asked of the kernel once per thread:
 * gettid costs 0.3-1.5 us a call on this VM (a system call), as much as a
 * whole stack walk.  A fork child's threads are new: mon_sampler_reset
 * changes the generation, so each asks again (runfacts.c's pattern). */
static unsigned tid_gen = 1;
static __thread struct {
	unsigned gen;
	pid_t tid;
} tid_cache __attribute__((tls_model("initial-exec")));

static pid_t cached_tid(void)
{
	unsigned g = __atomic_load_n(&tid_gen, __ATOMIC_RELAXED);
	if (tid_cache.gen != g) {
		tid_cache.tid = mon_gettid();
		tid_cache.gen = g;
	}
	return tid_cache.tid;
}

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
/* A tick standing for more than 1/LATE_TICKS_PER_S s of CPU, and more than
 * one period, is late: two ticks of the slowest kernel (HZ 100), where a
 * timer looked at every tick stands for one at most.  (Below 50 Hz a
 * period is longer than that: an on-time tick is one period.) */
#define LATE_TICKS_PER_S 50u
#define ADD(x, v) ((void)__atomic_add_fetch(&(x), (v), __ATOMIC_RELAXED))

void mon_sampler_tick(const void *context, uintptr_t pc, uint64_t weight)
{
	__atomic_add_fetch(&inflight, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&closed, __ATOMIC_SEQ_CST))
		goto out;
	struct mon_sample s = { pc, weight, context, 0 };
	if (__atomic_load_n(&want_tid, __ATOMIC_RELAXED))
		s.tid = cached_tid();
	int verdict = MON_SINK_OFF, outside = 0;
	uint64_t saturated = 0;
	for (unsigned i = 0; i < MON_SINKS && verdict == MON_SINK_OFF; i++) {
		const struct mon_sink *k = __atomic_load_n(&sinks[i], __ATOMIC_ACQUIRE);
		if (k == NULL || (k->flags & MON_SINK_OBSERVE))
			continue;
		int v = k->take(&s, &saturated);
		if (v == MON_SINK_OUTSIDE)
			outside = 1;
		else
			verdict = v;
	}
	if (verdict == MON_SINK_OFF && !outside)
		goto out;	/* no sink on: not a sample */
	ADD(stats.samples, weight);
	/* A tick of the thread clock standing for more than 20 ms of CPU:
	 * its timer expired long before the kernel looked (at its tick, on the
	 * thread then running: rarely, on a machine whose CPUs other
	 * processes keep busy), and all that CPU is charged here. */
	mon_facts_tick(weight, LOAD(mon_clock_active) == MON_CLOCK_THREAD &&
				       mon_tick_late(weight, LOAD(mon_clock_cfg.rate_hz)));
	switch (verdict) {
	case MON_SINK_TAKEN:
		if (saturated > weight)
			saturated = weight;
		ADD(stats.counted, weight - saturated);
		if (saturated)
			ADD(stats.saturated, saturated);
		break;
	case MON_SINK_LOST:
		ADD(stats.lost, weight);
		break;
	default:
		ADD(stats.dropped, weight);
		break;
	}
	if (__atomic_load_n(&observers, __ATOMIC_RELAXED)) {
		for (unsigned i = 0; i < MON_SINKS; i++) {
			const struct mon_sink *k = __atomic_load_n(&sinks[i], __ATOMIC_ACQUIRE);
			uint64_t ignored = 0;
			if (k != NULL && (k->flags & MON_SINK_OBSERVE))
				(void)k->take(&s, &ignored);
		}
	}
out:
	__atomic_sub_fetch(&inflight, 1, __ATOMIC_RELEASE);
}

void mon_sampler_set_sink(unsigned slot, const struct mon_sink *sink)
{
	if (slot >= MON_SINKS)
		return;
	__atomic_store_n(&sinks[slot], sink, __ATOMIC_RELEASE);
	unsigned tid = 0, obs = 0;
	for (unsigned i = 0; i < MON_SINKS; i++) {
		if (sinks[i] != NULL && (sinks[i]->flags & MON_SINK_TID))
			tid = 1;
		if (sinks[i] != NULL && (sinks[i]->flags & MON_SINK_OBSERVE))
			obs = 1;
	}
	__atomic_store_n(&want_tid, tid, __ATOMIC_RELAXED);
	__atomic_store_n(&observers, obs, __ATOMIC_RELAXED);
}

void mon_sampler_quiesce(void)
{
	for (int i = 0; i < 20000 && __atomic_load_n(&inflight, __ATOMIC_SEQ_CST); i++) {
		if (i < 100)
			sched_yield();
		else
			mon_clock_own_nap(50000);
	}
}

void mon_sampler_close(void)
{
	__atomic_store_n(&closed, 1, __ATOMIC_SEQ_CST);
	mon_sampler_quiesce();
}

int mon_sampling_users(void)
{
	return users;
}

int mon_sampling_acquire(int user)
{
	mon_clock_deliver_to(mon_sampler_tick);
	mon_hooks.counters_reset = mon_sampler_reset;
	if (users == 0 && mon_threads_start() < 0)
		return -1;
	users |= user;
	return 0;
}

void mon_sampling_release(int user)
{
	int had = users;
	users &= ~user;
	if (users == 0)
		mon_clock_unsampled_end();
	if (had && users == 0 && mon_clock_active != MON_CLOCK_NONE)
		mon_threads_stop();
}

void mon_sampler_reset(int forked)
{
	if (forked)
		__atomic_store_n(&inflight, 0, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&tid_gen, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&closed, 0, __ATOMIC_RELAXED);
	STORE(stats.samples, 0);
	STORE(stats.counted, 0);
	STORE(stats.dropped, 0);
	STORE(stats.saturated, 0);
	STORE(stats.lost, 0);
}

int mon_tick_late(uint64_t weight, unsigned rate_hz)
{
	return rate_hz != 0 && weight > 1 && weight * LATE_TICKS_PER_S > rate_hz;
}

void mon_sampler_stats(struct mon_stats *st)
{
	st->samples = LOAD(stats.samples);
	st->counted = LOAD(stats.counted);
	st->dropped = LOAD(stats.dropped);
	st->saturated = LOAD(stats.saturated);
	st->lost = LOAD(stats.lost) + mon_clock_unsampled();
	st->clock = LOAD(mon_clock_active);
	st->rate_hz = LOAD(mon_clock_cfg.rate_hz);
	st->threads = mon_threads_armed();
}
