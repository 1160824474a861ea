/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sprofil.c — sprofil(3): profil(2) over several regions of text at once,
 * each with its own buffer, offset and scale, 16- or 32-bit bins; a sink of
 * the sampler of its own (slot MON_SINK_SPROFIL, offered right after
 * profil()'s buffer and before the whole-process histograms).
 *
 * The interface is glibc's <sys/profil.h> (which follows IRIX 6.5's
 * sprofil(2)); docs/sprofil.3 is its manual page.  What it does, as glibc's
 * gmon/sprofil.c does (read for its behaviour, nothing taken from it):
 *
 *   - a region whose pr_scale is below 2 is left out; one with pr_off 0
 *     and pr_scale 2 is the overflow bin: its first counter counts the
 *     samples whose PC no other region covers;
 *   - a sample at pc in a region goes to counter
 *     floor(floor((pc - pr_off) / W) * pr_scale / 65536), W the counter's
 *     size: 2 bytes (PROF_USHORT), 4 (PROF_UINT), so a scale of 65536 gives
 *     one counter per W bytes of text; the region ends where that index
 *     reaches pr_size / W;
 *   - where regions overlap, the one with the higher pr_off counts the
 *     sample (each PC is in at most one region's range);
 *   - a call while sprofil() profiling is on turns it off, whatever its
 *     arguments (glibc's rule), and returns 0;
 *   - tvp, when not NULL, gets the sampling period (1 / rate);
 *   - PROF_FAST has no effect (as in glibc): the rate is the profiling
 *     clock's, MONPROF_RATE or mon_setclock(3), 1000 Hz by default, which
 *     is already what IRIX called fast.
 * Counters saturate (65535, 4294967295), the overflow bin's too (glibc's
 * wraps), and the sampler counts what did not fit as saturated.
 *
 * The regions are cut into disjoint pieces sorted by start, published to
 * the handler with a sequence lock as profil.c publishes its buffer; the
 * sink binary-searches the pieces.  It never locks or allocates, asks the
 * kernel whether a counter is writable before writing it (mon_writable),
 * and turns itself off (faulted, samples lost) when one is not.  The piece
 * table is libmon's memory (mon_alloc), freed after the handlers left it
 * (mon_sampler_quiesce).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "mon.h"
#include "runtime.h"
#include "sampler.h"
#include "settings.h"

/* One disjoint piece [start, end) of a region's range. */
struct piece {
	uintptr_t start, end;
	uintptr_t off;		/* the region's pr_off */
	uint64_t scale;		/* its pr_scale, 2..UINT32_MAX */
	void *base;		/* its counters */
	uint64_t n;		/* counters in pr_size */
};

/* What the handler reads; changed only under mon_lock() with seq odd. */
static struct {
	const struct piece *pieces;
	size_t npieces;
	void *overflow;		/* the overflow bin's counter, or NULL */
	int wide;		/* PROF_UINT: 32-bit counters */
	int on;
} table;
static unsigned table_seq;	/* even: stable; odd: being changed */
static int faulted;		/* a counter was found unwritable */
static struct piece *owned;	/* the published pieces' memory */

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/* The counter of pc (>= off) for counters of w bytes at this scale:
 * floor(floor((pc - off) / w) * scale / 65536), exact without 128-bit
 * products (the quotient split at 16 bits, as format/bins.h does). */
static uint64_t index_of(uintptr_t pc, uintptr_t off, uint64_t scale, unsigned w)
{
	uint64_t d = (uint64_t)(pc - off) / w;
	return (d >> 16) * scale + (((d & 0xffff) * scale) >> 16);
}

/* The first pc past a region of n counters: off + w * ceil(n * 65536 /
 * scale), at most UINTPTR_MAX. */
static uintptr_t region_end(uintptr_t off, uint64_t scale, uint64_t n, unsigned w)
{
	unsigned __int128 d = ((unsigned __int128)n * 65536u + scale - 1) / scale;
	unsigned __int128 e = (unsigned __int128)off + d * w;
	return e > UINTPTR_MAX ? UINTPTR_MAX : (uintptr_t)e;
}

/* Saturating add of weight to a 32-bit counter; returns what did not fit. */
static uint64_t add32(unsigned *c, uint64_t weight)
{
	unsigned old = __atomic_load_n(c, __ATOMIC_RELAXED), new;
	uint64_t over;
	do {
		uint64_t room = 0xffffffffu - old;
		if (room == 0)
			return weight;
		new = weight > room ? 0xffffffffu : (unsigned)(old + weight);
		over = weight > room ? weight - room : 0;
	} while (!__atomic_compare_exchange_n(c, &old, new, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return over;
}

static int charge(void *counter, int wide, uint64_t weight, uint64_t *saturated)
{
	if (!mon_writable(counter)) {
		STORE(faulted, 1);
		return MON_SINK_LOST;
	}
	*saturated = wide ? add32(counter, weight) : mon_bin_add(counter, weight);
	return MON_SINK_TAKEN;
}

/* sprofil()'s sink (sampler.h): off while sprofil() is off; a tick that
 * finds a counter unwritable is lost; a PC in no region goes to the
 * overflow bin, or is outside when there is none.  "on" is read first and
 * stored last (publish), as profil.c does, so a tick that sees it on sees
 * the table it was turned on with; the sequence check guards the rest. */
static int take(const struct mon_sample *s, uint64_t *saturated)
{
	if (!__atomic_load_n(&table.on, __ATOMIC_SEQ_CST))
		return MON_SINK_OFF;
	unsigned seq = __atomic_load_n(&table_seq, __ATOMIC_ACQUIRE);
	const struct piece *p = __atomic_load_n(&table.pieces, __ATOMIC_ACQUIRE);
	size_t n = __atomic_load_n(&table.npieces, __ATOMIC_ACQUIRE);
	void *overflow = __atomic_load_n(&table.overflow, __ATOMIC_ACQUIRE);
	int wide = __atomic_load_n(&table.wide, __ATOMIC_ACQUIRE);
	if ((seq & 1) || seq != LOAD(table_seq) || LOAD(faulted))
		return MON_SINK_LOST;
	unsigned w = wide ? 4 : 2;
	size_t lo = 0, hi = n;
	while (lo < hi) {	/* the piece holding pc, if any */
		size_t mid = lo + (hi - lo) / 2;
		if (s->pc < p[mid].start) {
			hi = mid;
		} else if (s->pc >= p[mid].end) {
			lo = mid + 1;
		} else {
			uint64_t i = index_of(s->pc, p[mid].off, p[mid].scale, w);
			if (i >= p[mid].n)	/* cannot be: end is exact */
				break;
			return charge((char *)p[mid].base + i * w, wide, s->weight, saturated);
		}
	}
	if (overflow == NULL)
		return MON_SINK_OUTSIDE;
	return charge(overflow, wide, s->weight, saturated);
}

static const struct mon_sink sink = { take, 0 };

/* Publish a table and turn on: the fields change with the sequence odd,
 * and "on" is stored last (profil.c's order and orderings).  Under
 * mon_lock(). */
static void publish(const struct piece *p, size_t n, void *overflow, int wide)
{
	__atomic_add_fetch(&table_seq, 1, __ATOMIC_SEQ_CST);	/* odd */
	STORE(table.pieces, p);
	STORE(table.npieces, n);
	STORE(table.overflow, overflow);
	STORE(table.wide, wide);
	STORE(faulted, 0);
	__atomic_add_fetch(&table_seq, 1, __ATOMIC_SEQ_CST);	/* even */
	__atomic_store_n(&table.on, 1, __ATOMIC_SEQ_CST);
}

/* Turn off: only "on" changes, then, once no tick is in flight, the table
 * goes (no tick reads it after seeing off).  Under mon_lock(). */
static void unpublish(void)
{
	/* Sequentially consistent, as the dispatcher's count of handlers in
	 * flight is: the caller's mon_sampler_quiesce must not read that
	 * count before this store is seen (a store-load reordering would let
	 * a tick that entered after the count was read still see "on"). */
	__atomic_store_n(&table.on, 0, __ATOMIC_SEQ_CST);
	mon_sampler_quiesce();
	__atomic_add_fetch(&table_seq, 1, __ATOMIC_SEQ_CST);
	STORE(table.pieces, NULL);
	STORE(table.npieces, 0);
	STORE(table.overflow, NULL);
	STORE(faulted, 0);
	__atomic_add_fetch(&table_seq, 1, __ATOMIC_SEQ_CST);
}

/* Every page of [base, base + size) writable now? */
static int writable(void *base, size_t size)
{
	uintptr_t lo = (uintptr_t)base, hi = lo + size;
	if (hi < lo)
		return 0;
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t step = pg > 0 ? (uintptr_t)pg : 4096;
	for (uintptr_t a = lo; a < hi; a = (a & ~(step - 1)) + step)
		if (!mon_writable((void *)a))
			return 0;
	return hi == lo || mon_writable((void *)(hi - 1));
}

/* Is profp[k] the overflow bin? */
static int is_overflow(const struct prof *r)
{
	return r->pr_off == 0 && r->pr_scale == 2;
}

/* Add region r's range less what the pieces [0, *n) (sorted, disjoint)
 * already cover, keeping them sorted; room for 2 * nregions + 1 pieces is
 * enough (each region adds at most one piece per gap it fills, and the
 * gaps are at most the pieces before it plus one). */
static void add_region(struct piece *v, size_t *n, size_t cap, const struct prof *r, unsigned w)
{
	uint64_t cnt = r->pr_size / w;
	uintptr_t start = r->pr_off, end = region_end(r->pr_off, r->pr_scale, cnt, w);
	struct piece proto = { 0, 0, r->pr_off, r->pr_scale, r->pr_base, cnt };
	size_t i = 0;
	while (start < end && *n < cap) {
		while (i < *n && v[i].end <= start)
			i++;
		uintptr_t stop = i < *n && v[i].start < end ? v[i].start : end;
		if (stop > start) {
			memmove(v + i + 1, v + i, (*n - i) * sizeof *v);
			v[i] = proto;
			v[i].start = start;
			v[i].end = stop;
			(*n)++;
			i++;
		}
		if (i >= *n || v[i].start >= end)
			break;
		start = v[i].end;	/* skip the piece already there */
	}
}

/* Turn sprofil() profiling off: the clocks stop first (none runs for it
 * any more, and no tick of theirs is pending), then the table goes, as
 * profil() does.  Under mon_lock(), while on. */
static void turn_off(void)
{
	mon_sampling_release(MON_USER_SPROFIL);
	mon_sampler_quiesce();
	unpublish();
	mon_free(owned);
	owned = NULL;
}

MON_EXPORT int sprofil(struct prof *profp, int profcnt, struct timeval *tvp, unsigned int flags)
{
	int saved_errno = errno;
	mon_lock();
	if (tvp != NULL) {
		mon_clock_configure();	/* the rate the clocks run at (or will) */
		unsigned hz = mon_clock_cfg.rate_hz ? mon_clock_cfg.rate_hz : 1;
		tvp->tv_sec = (time_t)(1000000u / hz / 1000000u);
		tvp->tv_usec = (suseconds_t)(1000000u / hz % 1000000u);
	}
	if (table.on) {
		/* On: this call turns it off, whatever it asks (glibc's rule). */
		turn_off();
		mon_unlock();
		errno = saved_errno;
		return 0;
	}
	mon_unlock();

	/* Check every region before anything changes. */
	if (profcnt < 0 || (flags & ~(unsigned)(PROF_UINT | PROF_FAST)) != 0)
		return mon_fail(EINVAL);
	if (profcnt > 0 && profp == NULL)
		return mon_fail(EFAULT);
	int wide = (flags & PROF_UINT) != 0;
	unsigned w = wide ? 4 : 2;
	void *overflow = NULL;
	size_t used = 0;
	for (int k = 0; k < profcnt; k++) {
		const struct prof *r = &profp[k];
		if (r->pr_scale < 2 || r->pr_size < w)
			continue;	/* left out, as glibc leaves it */
		if (r->pr_scale > UINT32_MAX)
			return mon_fail(EINVAL);
		if (r->pr_base == NULL)
			return mon_fail(EFAULT);
		if ((uintptr_t)r->pr_base % w != 0)
			return mon_fail(EINVAL);
		if (!writable(r->pr_base, is_overflow(r) ? w : r->pr_size / w * w))
			return mon_fail(EFAULT);
		if (is_overflow(r))
			overflow = r->pr_base;	/* the last one given counts */
		else
			used++;
	}
	if (used == 0 && overflow == NULL)
		return 0;	/* nothing to sample into: stays off, as glibc does */
	if (mon_settings_check() < 0)
		return -1;	/* EINVAL, said on stderr (settings.c) */

	/* The regions by pr_off, highest first (an insertion sort: libmon
	 * calls no qsort, which may call the program's malloc), then their
	 * pieces, so that in an overlap the region starting higher counts. */
	const struct prof **order = mon_alloc((used ? used : 1) * sizeof *order);
	size_t cap = 2 * used + 1;
	struct piece *v = mon_alloc(cap * sizeof *v);
	if (order == NULL || v == NULL) {
		mon_free(order);
		mon_free(v);
		return mon_fail(ENOMEM);
	}
	size_t m = 0, n = 0;
	for (int k = 0; k < profcnt; k++) {
		const struct prof *r = &profp[k];
		if (r->pr_scale < 2 || r->pr_size < w || is_overflow(r))
			continue;
		size_t j = m++;
		for (; j > 0 && order[j - 1]->pr_off < r->pr_off; j--)
			order[j] = order[j - 1];
		order[j] = r;
	}
	for (size_t k = 0; k < m; k++)
		add_region(v, &n, cap, order[k], w);
	mon_free(order);

	mon_lock();
	if (table.on) {
		/* Another thread started it meanwhile: its table stays. */
		mon_unlock();
		mon_free(v);
		return mon_fail(EBUSY);
	}
	mon_sampler_set_sink(MON_SINK_SPROFIL, &sink);
	publish(v, n, overflow, wide);
	owned = v;
	int rc = 0;
	if (mon_sampling_acquire(MON_USER_SPROFIL) < 0) {
		int e = errno;
		unpublish();
		mon_free(owned);
		owned = NULL;
		errno = e;
		rc = -1;
	}
	mon_unlock();
	if (rc == 0)
		errno = saved_errno;
	return rc;
}
