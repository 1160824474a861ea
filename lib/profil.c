/*
 * profil.c — the PC-sampling histogram: profil(2) and the tick path.
 *
 * profil() publishes (buffer, bins, offset, scale) to the signal handler of
 * the profiling clock through a sequence lock: the writer makes the sequence
 * odd, stores the fields, makes it even again; the handler copies the
 * fields and keeps them only if it saw the same even sequence before and
 * after.  A tick that races with a change is counted as lost rather than
 * written to a buffer the caller may be about to free.  The writer then
 * waits until no handler is in flight ("quiesce"), so that when profil()
 * returns nothing writes to the old buffer any more.
 *
 * The handler never takes a lock, never allocates and touches only: the
 * published fields, the bin (with an atomic compare-and-swap, saturating at
 * 65535), and the counters (atomic adds).  Before writing a bin it asks the
 * kernel whether the bin's word is writable (a FUTEX_WAKE_OP that adds zero:
 * it fails with EFAULT instead of faulting), so a buffer the program unmaps
 * or write-protects turns profiling off instead of killing the program.
 */
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bins.h"
#include "clocks.h"
#include "mon.h"
#include "runfacts.h"
#include "runtime.h"
#include "settings.h"

/* What the handler reads; written only under mon_lock() with seq odd. */
static struct {
	unsigned short *buf;
	uint64_t nbins;		/* bufsiz / 2 */
	uintptr_t offset;
	unsigned scale;		/* 2..65536 when on */
	int on;
} hist;
static unsigned hist_seq;	/* even: stable; odd: being changed */
static unsigned inflight;	/* handlers between entry and exit */
static int faulted;		/* set by a handler that found the buffer unwritable */

static struct {
	uint64_t samples, counted, dropped, saturated, lost;
} stats;

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define ADD(x, v) ((void)__atomic_add_fetch(&(x), (v), __ATOMIC_RELAXED))

uint64_t mon_pc_to_bin(uintptr_t pc, uintptr_t offset, unsigned scale)
{
	return mon_bin_of(pc, offset, scale);	/* format/bins.h owns the formula */
}

uint64_t mon_bin_add(unsigned short *bin, uint64_t weight)
{
	unsigned short old = __atomic_load_n(bin, __ATOMIC_RELAXED);
	unsigned short new;
	uint64_t over;
	do {
		uint64_t room = 0xffffu - old;
		if (room == 0)
			return weight;
		if (weight > room) {
			new = 0xffff;
			over = weight - room;
		} else {
			new = (unsigned short)(old + weight);
			over = 0;
		}
	} while (!__atomic_compare_exchange_n(bin, &old, new, 1, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return over;
}

int mon_writable(const void *p)
{
	static int wake_word;
	/* FUTEX_WAKE_OP atomically applies "add 0" to the aligned 32-bit word
	 * holding p (a write access, done by the kernel: EFAULT instead of a
	 * fault) and wakes nobody.  The word never leaves p's page. */
	int *word = (int *)((uintptr_t)p & ~(uintptr_t)3);
	long r = syscall(SYS_futex, &wake_word, FUTEX_WAKE_OP | FUTEX_PRIVATE_FLAG, 0,
			 (void *)0, word, FUTEX_OP(FUTEX_OP_ADD, 0, FUTEX_OP_CMP_EQ, 0));
	return r >= 0;
}

void mon_tick(uintptr_t pc, uint64_t weight)
{
	__atomic_add_fetch(&inflight, 1, __ATOMIC_SEQ_CST);

	/* The fields are read with acquire loads, so the second read of the
	 * sequence below cannot move before them (a seqlock reader's fence,
	 * in a form ThreadSanitizer understands). */
	unsigned seq = __atomic_load_n(&hist_seq, __ATOMIC_ACQUIRE);
	unsigned short *buf = __atomic_load_n(&hist.buf, __ATOMIC_ACQUIRE);
	uint64_t nbins = __atomic_load_n(&hist.nbins, __ATOMIC_ACQUIRE);
	uintptr_t offset = __atomic_load_n(&hist.offset, __ATOMIC_ACQUIRE);
	unsigned scale = __atomic_load_n(&hist.scale, __ATOMIC_ACQUIRE);
	int on = __atomic_load_n(&hist.on, __ATOMIC_ACQUIRE);
	int changing = (seq & 1) || seq != LOAD(hist_seq);
	if (!on) {
		int objects = mon_objhist_tick(pc, weight);
		if (objects < 0 && !changing)
			goto out;	/* sampling off: a signal pending from a clock
					 * just disarmed is no sample */
		ADD(stats.samples, weight);
		mon_facts_tick(weight);
		if (objects > 0)
			ADD(stats.counted, weight);
		else if (objects == 0)
			ADD(stats.dropped, weight);
		else
			ADD(stats.lost, weight);	/* profil() turning on */
		goto out;
	}
	ADD(stats.samples, weight);
	mon_facts_tick(weight);
	if (changing || LOAD(faulted)) {
		ADD(stats.lost, weight);
		goto out;
	}
	uint64_t bin = mon_pc_to_bin(pc, offset, scale);
	if (bin >= nbins) {
		if (mon_objhist_tick(pc, weight) > 0)
			ADD(stats.counted, weight);
		else
			ADD(stats.dropped, weight);
		goto out;
	}
	if (!mon_writable(buf + bin)) {
		STORE(faulted, 1);
		ADD(stats.lost, weight);
		goto out;
	}
	uint64_t over = mon_bin_add(buf + bin, weight);
	ADD(stats.counted, weight - over);
	if (over)
		ADD(stats.saturated, over);
out:
	__atomic_sub_fetch(&inflight, 1, __ATOMIC_RELEASE);
}

/* Wait until no handler is between entry and exit.  Bounded: a thread
 * stopped inside the handler (by a debugger) must not hang the caller. */
static void quiesce(void)
{
	struct timespec pause = { 0, 50000 };
	for (int i = 0; i < 20000 && __atomic_load_n(&inflight, __ATOMIC_ACQUIRE); i++) {
		if (i < 100)
			sched_yield();
		else
			nanosleep(&pause, NULL);
	}
}

static void publish(unsigned short *buf, size_t bufsiz, uintptr_t offset, unsigned scale, int on)
{
	__atomic_add_fetch(&hist_seq, 1, __ATOMIC_SEQ_CST);	/* odd */
	STORE(hist.buf, buf);
	STORE(hist.nbins, (uint64_t)bufsiz / 2);
	STORE(hist.offset, offset);
	STORE(hist.scale, scale);
	STORE(hist.on, on);
	STORE(faulted, 0);
	__atomic_add_fetch(&hist_seq, 1, __ATOMIC_SEQ_CST);	/* even */
}

/* Every page of [buf, buf + bufsiz) writable now? */
static int buffer_writable(unsigned short *buf, size_t bufsiz)
{
	uintptr_t lo = (uintptr_t)buf, hi = lo + (bufsiz & ~(size_t)1);
	if (hi < lo)
		return 0;
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t step = pg > 0 ? (uintptr_t)pg : 4096;
	for (uintptr_t p = lo; p < hi; p = (p & ~(step - 1)) + step)
		if (!mon_writable((void *)p))
			return 0;
	return hi == lo || mon_writable((void *)(hi - 2));
}

MON_EXPORT int profil(unsigned short *buf, size_t bufsiz, size_t offset, unsigned int scale)
{
	MON_LAUNDER(buf);
	if (scale > 65536)
		return mon_fail(EINVAL);
	int turn_on = scale >= 2;
	if (turn_on && mon_settings_check() < 0)
		return -1;	/* EINVAL, said on stderr (settings.c) */
	if (turn_on && bufsiz >= 2) {
		if (buf == NULL)
			return mon_fail(EFAULT);
		if ((uintptr_t)buf & 1)
			return mon_fail(EINVAL);
		if (!buffer_writable(buf, bufsiz))
			return mon_fail(EFAULT);
	}

	int rc = 0;
	mon_lock();
	int was_on = hist.on;
	if (!turn_on) {
		/* The clocks stop first, so that a tick until then is counted and
		 * one after finds profiling off and is no sample (mon_tick). */
		if (was_on)
			mon_sampling_release(MON_USER_PROFIL);
		publish(NULL, 0, 0, 0, 0);
		quiesce();
	} else if (was_on) {
		publish(buf, bufsiz, offset, scale, 1);
		quiesce();
	} else {
		publish(buf, bufsiz, offset, scale, 1);
		if (mon_sampling_acquire(MON_USER_PROFIL) < 0) {
			int e = errno;
			publish(NULL, 0, 0, 0, 0);
			quiesce();
			errno = e;
			rc = -1;
		}
	}
	mon_unlock();
	return rc;
}

void mon_stats_reset(void)
{
	STORE(stats.samples, 0);
	STORE(stats.counted, 0);
	STORE(stats.dropped, 0);
	STORE(stats.saturated, 0);
	STORE(stats.lost, 0);
}

/* Fills a whole struct of this library's size on the stack, then copies
 * the caller's size of it (mon.h: the struct only grows at its end). */
MON_EXPORT int mon_getstats(struct mon_stats *st, size_t size)
{
	struct mon_stats now;
	if (st == NULL)
		return mon_fail(EFAULT);
	memset(&now, 0, sizeof now);
	now.samples = LOAD(stats.samples);
	now.counted = LOAD(stats.counted);
	now.dropped = LOAD(stats.dropped);
	now.saturated = LOAD(stats.saturated);
	now.lost = LOAD(stats.lost) + mon_clock_unsampled();
	now.faulted = LOAD(faulted);
	now.on = LOAD(hist.on) && !now.faulted;
	now.clock = LOAD(mon_clock_active);
	now.rate_hz = LOAD(mon_clock_cfg.rate_hz);
	now.threads = mon_threads_armed();
	memcpy(st, &now, size < sizeof now ? size : sizeof now);
	if (size > sizeof now)
		memset((char *)st + sizeof now, 0, size - sizeof now);
	return 0;
}

MON_EXPORT const char *mon_clock_name(int clock)
{
	return mon_clock_str(clock);	/* format/clocks.h: the one table */
}

int mon_fail(int e)
{
	errno = e;
	return -1;
}

pid_t mon_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}
