/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * profil.c — the PC-sampling histogram of profil(2), a sink of the sampler.
 *
 * profil() publishes (buffer, bins, offset, scale) to the signal handler of
 * the profiling clock through a sequence lock: the writer makes the sequence
 * odd, stores the fields, makes it even again, and only then stores "on";
 * the sink (take, called by the sampler's dispatcher in the handler) reads
 * "on" first, then copies the fields and keeps them only if it saw the same
 * even sequence before and after.  A tick that races with a change of the
 * buffer while profil() is on is counted as lost rather than written to a
 * buffer the caller may be about to free; turning on from off loses none.
 * The writer then waits until no handler is in flight
 * (mon_sampler_quiesce), so that when profil() returns nothing writes to the
 * old buffer any more.  Turning off stops the clocks before "on" is
 * cleared, so no tick of a running clock finds profil() off.
 *
 * The sink never takes a lock, never allocates and touches only: the
 * published fields and the bin (with an atomic compare-and-swap, saturating
 * at 65535); the sampler keeps the counters.  Before writing a bin it asks
 * the kernel whether the bin's word is writable (mon_writable), so a buffer
 * the program unmaps or write-protects turns profiling off instead of
 * killing the program.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "bins.h"
#include "clocks.h"
#include "mon.h"
#include "runtime.h"
#include "sampler.h"
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
static int faulted;		/* set by a handler that found the buffer unwritable */

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

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

/* profil()'s sink (sampler.h): off while profil() is off; a tick that
 * races with a change of the buffer while on, or finds it unwritable, is
 * lost; a PC past the buffer's range is outside (the object histograms may
 * take it).
 *
 * "on" is read first (sequentially consistent, as it is stored, so it also
 * orders against the dispatcher's count of handlers in flight, which
 * mon_sampler_quiesce reads): a tick that sees profil() on sees the fields it was
 * turned on with, so only a change of the buffer while on (profil()
 * called again with another one) can meet an odd sequence.  Turning on
 * from off loses no tick: until "on" is stored the tick is not profil()'s
 * (the clocks start only after), and after it the fields are stable. */
static int take(const struct mon_sample *s, uint64_t *saturated)
{
	if (!__atomic_load_n(&hist.on, __ATOMIC_SEQ_CST))
		return MON_SINK_OFF;
	/* The fields are read with acquire loads, so the second read of the
	 * sequence below cannot move before them (a seqlock reader's fence,
	 * in a form ThreadSanitizer understands). */
	unsigned seq = __atomic_load_n(&hist_seq, __ATOMIC_ACQUIRE);
	unsigned short *buf = __atomic_load_n(&hist.buf, __ATOMIC_ACQUIRE);
	uint64_t nbins = __atomic_load_n(&hist.nbins, __ATOMIC_ACQUIRE);
	uintptr_t offset = __atomic_load_n(&hist.offset, __ATOMIC_ACQUIRE);
	unsigned scale = __atomic_load_n(&hist.scale, __ATOMIC_ACQUIRE);
	if ((seq & 1) || seq != LOAD(hist_seq) || LOAD(faulted))
		return MON_SINK_LOST;
	uint64_t bin = mon_pc_to_bin(s->pc, offset, scale);
	if (bin >= nbins)
		return MON_SINK_OUTSIDE;
	if (!mon_writable(buf + bin)) {
		STORE(faulted, 1);
		return MON_SINK_LOST;
	}
	*saturated = mon_bin_add(buf + bin, s->weight);
	return MON_SINK_TAKEN;
}

static const struct mon_sink sink = { take, 0 };

/* Publish the buffer and turn on: the fields change with the sequence odd
 * (a tick of profil() while on is lost then, not written to a buffer being
 * replaced), and "on" is stored last, so a tick that sees it
 * sees them.  Under mon_lock(). */
static void publish(unsigned short *buf, size_t bufsiz, uintptr_t offset, unsigned scale)
{
	__atomic_add_fetch(&hist_seq, 1, __ATOMIC_SEQ_CST);	/* odd */
	STORE(hist.buf, buf);
	STORE(hist.nbins, (uint64_t)bufsiz / 2);
	STORE(hist.offset, offset);
	STORE(hist.scale, scale);
	STORE(faulted, 0);
	__atomic_add_fetch(&hist_seq, 1, __ATOMIC_SEQ_CST);	/* even */
	__atomic_store_n(&hist.on, 1, __ATOMIC_SEQ_CST);
}

/* Turn off: only "on" changes; the fields stay until the next publish (no
 * tick reads them once it sees off, and none in flight is left when the
 * caller's mon_sampler_quiesce returns).  Under mon_lock(). */
static void unpublish(void)
{
	/* Sequentially consistent, as the dispatcher's count of handlers in
	 * flight is: the caller's mon_sampler_quiesce must not read that
	 * count before this store is seen (a store-load reordering would let
	 * a tick that entered after the count was read still see "on"). */
	__atomic_store_n(&hist.on, 0, __ATOMIC_SEQ_CST);
	STORE(faulted, 0);
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
	mon_sampler_set_sink(MON_SINK_PROFIL, &sink);
	if (!turn_on) {
		/* The clocks stop first (none runs for this user any more, and
		 * no tick of theirs is pending), then the buffer goes: a tick
		 * never sees profil() off while its clock runs for it. */
		if (was_on)
			mon_sampling_release(MON_USER_PROFIL);
		mon_sampler_quiesce();
		unpublish();
		mon_sampler_quiesce();
	} else if (was_on) {
		publish(buf, bufsiz, offset, scale);
		mon_sampler_quiesce();
	} else {
		publish(buf, bufsiz, offset, scale);
		if (mon_sampling_acquire(MON_USER_PROFIL) < 0) {
			int e = errno;
			unpublish();
			mon_sampler_quiesce();
			errno = e;
			rc = -1;
		}
	}
	mon_unlock();
	return rc;
}

/* Fills a whole struct of this library's size on the stack, then copies
 * the caller's size of it (mon.h: the struct only grows at its end). */
MON_EXPORT int mon_getstats(struct mon_stats *st, size_t size)
{
	struct mon_stats now;
	if (st == NULL)
		return mon_fail(EFAULT);
	memset(&now, 0, sizeof now);
	mon_sampler_stats(&now);
	now.faulted = LOAD(faulted);
	now.on = LOAD(hist.on) && !now.faulted;
	memcpy(st, &now, size < sizeof now ? size : sizeof now);
	if (size > sizeof now)
		memset((char *)st + sizeof now, 0, size - sizeof now);
	return 0;
}

MON_EXPORT const char *mon_clock_name(int clock)
{
	return mon_clock_str(clock);	/* format/clocks.h: the one table */
}
