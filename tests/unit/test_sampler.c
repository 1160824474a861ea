/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_sampler.c — unit tests of the tick dispatcher (lib/sampler.c):
 * which counter a tick lands in for each answer of the sinks, the offer
 * order, and turning profiling off while the clocks tick (no tick of a
 * clock being disarmed is lost).
 *
 * Links libmon.a, so it can reach the hidden interfaces (sampler.h,
 * objhist.h).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "mon.h"
#include "objhist.h"
#include "runtime.h"
#include "sampler.h"
#include "stacks.h"

static struct mon_stats stats(void)
{
	struct mon_stats st;
	assert_int_equal(mon_getstats(&st, sizeof st), 0);
	return st;
}

/* ---- 0. which ticks are late ------------------------------------------- */

/* More than 20 ms of CPU and more than one period: at 1 kHz 21 periods and
 * up; at 40 Hz (25 ms a period) an on-time tick is not late (a reviewer's
 * find: every tick was, below 50 Hz), two periods are; at 20 kHz a kernel
 * tick of 10 ms (HZ 100) is 200 periods, on time. */
static void late_rule(void **state)
{
	(void)state;
	assert_false(mon_tick_late(1, 1000));
	assert_false(mon_tick_late(20, 1000));
	assert_true(mon_tick_late(21, 1000));
	assert_false(mon_tick_late(1, 40));
	assert_true(mon_tick_late(2, 40));
	assert_false(mon_tick_late(1, 1));
	assert_false(mon_tick_late(400, 20000));
	assert_true(mon_tick_late(401, 20000));
	assert_false(mon_tick_late(100, 0));
}

/* ---- 1. the counters follow the sinks' answers ------------------------- */

/* Two fake sinks in the free slots after the real ones; their answers are
 * set by the test.  The real sinks are off (nothing started here). */
static int answer[2];
static uint64_t answer_saturated[2];
static int offered[2];
static struct mon_sample last_sample;

static int fake_take(int k, const struct mon_sample *s, uint64_t *saturated)
{
	offered[k]++;
	last_sample = *s;
	*saturated = answer_saturated[k];
	return answer[k];
}
static int take_a(const struct mon_sample *s, uint64_t *sat) { return fake_take(0, s, sat); }
static int take_b(const struct mon_sample *s, uint64_t *sat) { return fake_take(1, s, sat); }
static const struct mon_sink sink_a = { take_a, 0 }, sink_b = { take_b, MON_SINK_TID };

struct delta {
	uint64_t samples, counted, dropped, saturated, lost;
};

/* Tick once with weight 5 and the given answers; the counters' change. */
static struct delta tick_with(int a, int b, uint64_t sat_a)
{
	answer[0] = a;
	answer[1] = b;
	answer_saturated[0] = sat_a;
	answer_saturated[1] = 0;
	offered[0] = offered[1] = 0;
	struct mon_stats s0 = stats();
	mon_sampler_tick(NULL, 0x1234, 5);
	struct mon_stats s1 = stats();
	struct delta d = { s1.samples - s0.samples, s1.counted - s0.counted,
			   s1.dropped - s0.dropped, s1.saturated - s0.saturated, s1.lost - s0.lost };
	return d;
}

static void verdicts(void **state)
{
	(void)state;
	mon_lock();
	mon_sampler_set_sink(2, &sink_a);
	mon_sampler_set_sink(3, &sink_b);
	mon_unlock();
	struct delta d;

	/* No sink on: not a sample at all (neither samples nor lost). */
	d = tick_with(MON_SINK_OFF, MON_SINK_OFF, 0);
	assert_true(d.samples == 0 && d.lost == 0 && d.dropped == 0 && d.counted == 0);
	assert_true(offered[0] == 1 && offered[1] == 1);

	/* Taken by the first: counted, the second is not asked. */
	d = tick_with(MON_SINK_TAKEN, MON_SINK_TAKEN, 0);
	assert_true(d.samples == 5 && d.counted == 5 && d.lost == 0 && d.dropped == 0);
	assert_true(offered[0] == 1 && offered[1] == 0);
	assert_true(last_sample.pc == 0x1234 && last_sample.weight == 5);

	/* Taken with 2 of 5 over a full bin: 3 counted, 2 saturated. */
	d = tick_with(MON_SINK_TAKEN, MON_SINK_OFF, 2);
	assert_true(d.samples == 5 && d.counted == 3 && d.saturated == 2);

	/* Outside the first, taken by the second: counted; the second wants
	 * the thread, so the sample carries this thread's id. */
	d = tick_with(MON_SINK_OUTSIDE, MON_SINK_TAKEN, 0);
	assert_true(d.samples == 5 && d.counted == 5 && d.dropped == 0);
	assert_true(offered[1] == 1 && last_sample.tid == mon_gettid());

	/* Outside every sink that is on: dropped. */
	d = tick_with(MON_SINK_OUTSIDE, MON_SINK_OFF, 0);
	assert_true(d.samples == 5 && d.dropped == 5 && d.lost == 0);
	d = tick_with(MON_SINK_OFF, MON_SINK_OUTSIDE, 0);
	assert_true(d.samples == 5 && d.dropped == 5);

	/* Lost (a buffer changing): lost, and the offer ends there. */
	d = tick_with(MON_SINK_LOST, MON_SINK_TAKEN, 0);
	assert_true(d.samples == 5 && d.lost == 5 && d.counted == 0);
	assert_true(offered[1] == 0);

	mon_lock();
	mon_sampler_set_sink(2, NULL);
	mon_sampler_set_sink(3, NULL);
	mon_unlock();
	d = tick_with(MON_SINK_TAKEN, MON_SINK_TAKEN, 0);
	assert_true(d.samples == 0 && offered[0] == 0 && offered[1] == 0);
}

/* ---- 1b. an observer sees every sample, and changes no counter ---------- */

static int observed;
static uint64_t observed_weight;
static int observe_answer;
static int observe_take(const struct mon_sample *s, uint64_t *sat)
{
	observed++;
	observed_weight += s->weight;
	*sat = 3;	/* ignored, like the answer */
	return observe_answer;
}
static const struct mon_sink observer = { observe_take, MON_SINK_OBSERVE };

static void observers(void **state)
{
	(void)state;
	/* The observer in the slot before the fake charging sink: it is
	 * still not part of the offer. */
	mon_lock();
	mon_sampler_set_sink(2, &observer);
	mon_sampler_set_sink(3, &sink_b);
	mon_unlock();
	struct delta d;
	static const int answers[] = { MON_SINK_OFF, MON_SINK_TAKEN, MON_SINK_OUTSIDE,
				       MON_SINK_TAKEN, MON_SINK_LOST };
	for (size_t k = 0; k < sizeof answers / sizeof answers[0]; k++) {
		observe_answer = answers[k];

		/* Not a sample (no charging sink on): not observed. */
		observed = 0;
		d = tick_with(MON_SINK_OFF, MON_SINK_OFF, 0);
		assert_true(d.samples == 0 && observed == 0);

		/* Taken: observed once with the tick's weight, counted as
		 * before whatever the observer answered. */
		observed = 0;
		observed_weight = 0;
		d = tick_with(MON_SINK_OFF, MON_SINK_TAKEN, 0);
		assert_true(d.samples == 5 && d.counted == 5 && d.saturated == 0 && d.lost == 0 &&
			    d.dropped == 0);
		assert_true(observed == 1 && observed_weight == 5 && offered[1] == 1);

		/* Dropped (outside every sink on) and lost: samples, observed. */
		observed = 0;
		d = tick_with(MON_SINK_OFF, MON_SINK_OUTSIDE, 0);
		assert_true(d.samples == 5 && d.dropped == 5 && d.counted == 0 && observed == 1);
		observed = 0;
		d = tick_with(MON_SINK_OFF, MON_SINK_LOST, 0);
		assert_true(d.samples == 5 && d.lost == 5 && observed == 1);
	}
	/* Removed: not called any more. */
	mon_lock();
	mon_sampler_set_sink(2, NULL);
	mon_unlock();
	observed = 0;
	d = tick_with(MON_SINK_OFF, MON_SINK_TAKEN, 0);
	assert_true(d.counted == 5 && observed == 0);
	mon_lock();
	mon_sampler_set_sink(3, NULL);
	mon_unlock();
}

/* ---- 2. turning off while the clocks tick ------------------------------ */

static int spinning;
static volatile unsigned long spin_sink;

static double thread_cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Spins until told to stop, reading its CPU clock between rounds (a call
 * the sanitizers intercept: ThreadSanitizer runs the signal handlers it
 * deferred there). */
static void *spinner(void *arg)
{
	(void)arg;
	struct timespec ts;
	while (__atomic_load_n(&spinning, __ATOMIC_ACQUIRE)) {
		for (int i = 0; i < 1000; i++)
			spin_sink += (unsigned long)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	}
	return NULL;
}

enum { TOGGLES = 1000 };

/* Turn a user on and off TOGGLES times while another thread spins, then
 * check the counters: not one tick lost (no buffer changed while on), and
 * samples = counted + dropped + saturated + lost exactly.  Before the fix,
 * "off" was published before the clocks were disarmed, and every tick in
 * between counted as lost. */
static void toggle(int (*on)(void *), void (*off)(void *), void *arg)
{
	pthread_t t;
	__atomic_store_n(&spinning, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_create(&t, NULL, spinner, NULL), 0);
	struct mon_stats s0 = stats();
	int started = 0;
	for (int i = 0; i < TOGGLES; i++) {
		if (on(arg) < 0) {
			/* A clock out of resources for now (EAGAIN) may refuse a
			 * start; no clock at all is a skip. */
			if (errno == ENOTSUP && started == 0) {
				__atomic_store_n(&spinning, 0, __ATOMIC_RELEASE);
				pthread_join(t, NULL);
				skip();
			}
			assert_int_equal(errno, EAGAIN);
			continue;
		}
		started++;
		/* On for 1.2 periods of this thread's CPU time: a clock armed
		 * now fires after one period of CPU, so every window holds a
		 * sample of this thread whatever the machine's speed or load
		 * (a fixed sleep held none on a loaded machine). */
		struct mon_stats now = stats();
		double until = thread_cpu() + 1.2 / (now.rate_hz ? now.rate_hz : 1000);
		while (thread_cpu() < until)
			for (int k = 0; k < 1000; k++)
				spin_sink += (unsigned long)k;
		off(arg);
	}
	__atomic_store_n(&spinning, 0, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	struct mon_stats s1 = stats();
	uint64_t samples = s1.samples - s0.samples, counted = s1.counted - s0.counted,
		 dropped = s1.dropped - s0.dropped, saturated = s1.saturated - s0.saturated,
		 lost = s1.lost - s0.lost;
	print_message("clock %s at %u Hz, %d starts: samples %llu = counted %llu + dropped %llu + "
		      "saturated %llu + lost %llu\n",
		      mon_clock_name(s0.clock ? s0.clock : mon_clock_last), s1.rate_hz, started,
		      (unsigned long long)samples, (unsigned long long)counted,
		      (unsigned long long)dropped, (unsigned long long)saturated,
		      (unsigned long long)lost);
	assert_true(s1.clock == MON_CLOCK_NONE && s1.threads == 0);
	assert_true(started > 0);
	assert_true(samples > 0);	/* the spinner was sampled: the check is not empty */
	assert_true(samples == counted + dropped + saturated + lost);
	assert_true(lost == 0);
}

/* profil() over the spinner's text (two 64 KiB bins around it). */
static unsigned short bins[2];

static int profil_on(void *arg)
{
	(void)arg;
	return profil(bins, sizeof bins, (uintptr_t)spinner - 32768, 2);
}

static void profil_off(void *arg)
{
	(void)arg;
	unsigned short none[1];
	profil(none, 0, 0, 0);
}

static void profil_toggle(void **state)
{
	(void)state;
	memset(bins, 0, sizeof bins);
	struct mon_stats s0 = stats();
	toggle(profil_on, profil_off, NULL);
	struct mon_stats s1 = stats();
	/* What the bins got is what was counted. */
	assert_true(s1.counted - s0.counted == (uint64_t)bins[0] + bins[1]);
}

static int objhist_on(void *arg)
{
	(void)arg;
	return mon_objhist_start(4);
}

static void objhist_off(void *arg)
{
	(void)arg;
	mon_objhist_stop();
}

static void objhist_toggle(void **state)
{
	(void)state;
	toggle(objhist_on, objhist_off, NULL);
}

/* The call stacks' observer with the object histograms, toggled while the
 * clocks tick: every sample has its stack (the stacks' counts plus lost
 * are exactly the samples), and the flat counters are as without it. */
static uint64_t stack_samples;
static int count_stack(uint64_t count, uint64_t tid, uint32_t flags, const uint64_t *pcs,
		       uint32_t depth, void *arg)
{
	(void)tid;
	(void)flags;
	(void)pcs;
	(void)depth;
	(void)arg;
	stack_samples += count;
	return 0;
}

static int stacks_objhist_on(void *arg)
{
	(void)arg;
	if (mon_stacks_start() < 0)
		return -1;
	return mon_objhist_start(4);
}

static void stacks_objhist_off(void *arg)
{
	(void)arg;
	mon_objhist_stop();
	mon_stacks_stop();
}

static void stacks_toggle(void **state)
{
	(void)state;
	assert_int_equal(mon_stacks_start(), 0);	/* makes the table */
	mon_stacks_stop();
	const struct mon_stack_table *t = mon_stacks_table();
	assert_non_null(t);
	stack_samples = 0;
	mon_stack_table_each(t, count_stack, NULL);
	uint64_t before = stack_samples + mon_stack_table_lost(t);
	struct mon_stats s0 = stats();
	toggle(stacks_objhist_on, stacks_objhist_off, NULL);
	struct mon_stats s1 = stats();
	stack_samples = 0;
	mon_stack_table_each(t, count_stack, NULL);
	uint64_t after = stack_samples + mon_stack_table_lost(t);
	print_message("%llu samples, %llu in stacks (%llu lost), %u distinct\n",
		      (unsigned long long)(s1.samples - s0.samples),
		      (unsigned long long)(after - before),
		      (unsigned long long)mon_stack_table_lost(t), mon_stack_table_used(t));
	assert_true(after - before == s1.samples - s0.samples);
	assert_true(mon_stack_table_used(t) > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(late_rule),
		cmocka_unit_test(verdicts),
		cmocka_unit_test(observers),
		cmocka_unit_test(profil_toggle),
		cmocka_unit_test(objhist_toggle),
		cmocka_unit_test(stacks_toggle),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
