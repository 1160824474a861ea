/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stacks.c — the call stack of every sample in whole-process profiling.
 *
 * The sampler offers each tick to its charging sinks (profil()'s buffer,
 * the object histograms) and then, once the tick is a sample, to observer
 * sinks (sampler.h, MON_SINK_OBSERVE); this file's sink is one, in slot
 * MON_SINK_STACKS.  It walks the interrupted thread's user-space stack from
 * the signal's ucontext_t (mon_unwind, unwind.c) and counts the sample in a
 * table of unique (thread, flags, PCs).  The flat histograms count the
 * sample whatever happens here; a stack the table has no room for is
 * counted in `lost`, so that the STACKS record's counts plus lost are the
 * samples taken while stacks were on.
 *
 * Each table is made once and never grows: 2 * N slots (N unique stacks, MONPROF_STACK_TABLE, default
 * 16384; a power of two), open addressing with linear probing; each slot's
 * state goes EMPTY -> FILLING (a compare-and-swap claims it) -> READY (a
 * release store once its fields and PCs are written).  The PCs live in a
 * pool of N * depth 8-byte words taken with an atomic bump index; at most
 * N slots are ever claimed (an atomic count), so the pool cannot run out
 * before the count does.  A tick compares the stack's hash, thread, flags,
 * depth and PCs with each READY slot on its probe path; equal: an atomic
 * add to the slot's count.  A slot still FILLING is skipped: the same stack
 * may then get a second slot, which the reader adds up (mon.out.5).  No
 * lock, no allocation, no system call (the thread's id comes from the
 * sampler's per-thread cache, MON_SINK_TID): several threads' handlers
 * insert at once.  Measured (bench/stacks_walk.c): a walk of 45 frames
 * 0.8 us, the add 0.1 us.
 *
 * Memory: the slots and the pool are anonymous mappings, backed only where
 * a stack was stored; the defaults (16384 stacks of 256 PCs) map
 * 32768 * 40 B + 16384 * 256 * 8 B = 1.25 MiB + 32 MiB.  Behind the slots,
 * in their mapping, a bit per LIVE_GROUP slots says that one of them was
 * claimed: the readers (mon_stack_table_each, the writer's put_table) go
 * through those groups only.  Reading every slot of the 20 MiB table a
 * process without a control thread has took 5 ms at each exit, most of it
 * page faults on pages no stack was ever stored in, and a server that forks
 * a process per connection pays it per connection (docs/performance.md,
 * section 16: pgbench -C).
 *
 * Growing (issue 22): MONPROF_STACK_TABLE is the most unique stacks the
 * runtime's tables hold in all (default MON_STACKS_DEFAULT, 4194304); the
 * first table holds MON_STACKS_FIRST (16384), or a quarter of the setting
 * if that is less (at least MON_STACKS_MIN, 16).
 * When the table ticks add to is three quarters full, mon_stacks_grow
 * (called by the control thread, control.c, every tenth of a second; never
 * by a handler) retires it — it keeps its counts and is written with the
 * others — and makes a table of twice its size (within the setting) the
 * one ticks add to, until the tables hold the setting's stacks in all or
 * CHAIN_MAX tables exist.  Without a control thread (no interval, no
 * monctl: the default) the handler whose sample finds the table full makes
 * the next one and moves the ticks to it (advance(): two mmap(2) system
 * calls, no lock, no allocator), so plain monrun grows as --control does
 * and uses every table whole.  Before, that run had one table of 262144
 * stacks, and a compile by clang++ fills one in minutes: most of its
 * samples are a stack not seen before (bench/clang_hour.sh).  A stack
 * seen before and after the switch has an entry in both: the reader adds
 * them (mon.out.5).  A tick that finds no room before the switch counts in
 * lost, as before.
 *
 * Intervals (control.c): mon_stacks_cut_begin moves every table aside for
 * the interval's file and gives the ticks a fresh one, of the size the last
 * table had (mon_sampler_quiesce: no handler still adds to the old ones
 * when it returns); mon_stacks_cut_end frees them once written.  So each
 * interval's file holds exactly the stacks sampled in it, and a run of
 * weeks never fills a table.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "arch.h"
#include "mon.h"
#include "monout.h"
#include "objhist.h"
#include "sampler.h"
#include "stacks.h"
#include "unwind.h"

enum { EMPTY, FILLING, READY, DEAD };

#define PROBES 256u	/* slots looked at before a stack is lost */

struct slot {
	uint32_t state;		/* EMPTY, FILLING, READY, DEAD (claimed past the cap) */
	uint32_t hash;
	uint32_t depth;
	uint32_t flags;
	uint64_t tid;
	uint64_t count;		/* samples, atomic adds */
	uint32_t at;		/* index of the first PC in the pool (< 2^31: max * depth) */
	uint32_t set;		/* the object set the samples were taken in (objhist.h) */
};

struct mon_stack_table {
	struct slot *slots;
	size_t nslots;		/* a power of two, >= 2 * max */
	uint64_t *pool;
	size_t pool_len;	/* max * depth PCs */
	size_t pool_next;	/* atomic bump index */
	unsigned max, depth;
	unsigned used;		/* slots claimed, atomic; <= max are used */
	uint64_t lost, truncated;
	size_t bytes;		/* the two mappings' lengths */
	size_t slot_bytes;
	uint64_t *live;		/* bit g: a slot of group g was claimed (atomic ORs) */
	int fixed;		/* the struct is one of chain_store[] (advance), not mon_alloc's */
};

#define LIVE_GROUP 64u	/* slots per bit of live: 2560 bytes */

/* 64-bit words of the live map for n slots. */
static size_t live_words(size_t n)
{
	return ((n + LIVE_GROUP - 1) / LIVE_GROUP + 63) / 64;
}

/* The first slot index >= i in a group with a claimed slot, or t->nslots. */
static size_t live_from(const struct mon_stack_table *t, size_t i)
{
	size_t ng = (t->nslots + LIVE_GROUP - 1) / LIVE_GROUP;
	for (size_t g = i / LIVE_GROUP; g < ng;) {
		uint64_t w = __atomic_load_n(&t->live[g / 64], __ATOMIC_ACQUIRE) >> (g % 64);
		if (w == 0) {
			g = (g / 64 + 1) * 64;
			continue;
		}
		g += (size_t)__builtin_ctzll(w);
		if (g >= ng)
			break;
		size_t first = g * LIVE_GROUP;
		return first > i ? first : i;
	}
	return t->nslots;
}

/* A slot's state, read by a write: a compare-and-swap of EMPTY for EMPTY,
 * which faults as a write whatever it finds and leaves the state as it
 * was (an atomic OR or ADD of nothing compiles to a load and a
 * compare-and-swap loop with GCC, and to a fence and a load with clang:
 * a read first).  The slots
 * are zero-fill pages, backed as stacks first reach them, and a page's
 * first access must be a write: a page first read is mapped to the
 * kernel's zero page, whose replacement at the first write flushes the TLB
 * of every CPU the process runs on, an IPI each (1 to 3.5 ms of a handler
 * in a VM here; objhist.c zalloc says what a handler that long costs
 * under the itimer clock).  Every other field of a slot is written before
 * it is read (FILLING, then READY); the live map is backed at creation. */
static inline uint32_t state_of(const struct slot *s)
{
	/* The __sync form returns the value seen: no local whose address is
	 * taken, which AddressSanitizer gives a frame of its own on the tick's
	 * path (stack_use.sh stack_use_altstack_*: 16 bytes more).  A full
	 * barrier, more than the acquire needed. */
	return __sync_val_compare_and_swap((uint32_t *)(uintptr_t)&s->state, EMPTY, EMPTY);
}

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define ADD(x, v) ((void)__atomic_add_fetch(&(x), (v), __ATOMIC_RELAXED))

static size_t slots_for(unsigned max)
{
	size_t n = 1;
	while (n < 2 * (size_t)max)
		n <<= 1;
	return n;
}

static size_t page_size;	/* set by the first table made outside a handler */

static size_t page_round(size_t n)
{
	if (page_size == 0) {
		long pg = sysconf(_SC_PAGESIZE);
		page_size = pg > 0 ? (size_t)pg : 4096;
	}
	return (n + page_size - 1) & ~(page_size - 1);
}

size_t mon_stack_table_bytes(unsigned max_stacks, unsigned depth)
{
	size_t n = slots_for(max_stacks);
	return page_round(n * sizeof(struct slot) + live_words(n) * sizeof(uint64_t)) +
	       page_round((size_t)max_stacks * depth * sizeof(uint64_t));
}

/* Anonymous memory by the system call itself (no interposer: a
 * sanitizer's mmap is not for a signal handler).  Async-signal-safe. */
static void *map(size_t len)
{
	long p = mon_raw_syscall(SYS_mmap, 0L, (long)len, (long)(PROT_READ | PROT_WRITE),
				 (long)(MAP_PRIVATE | MAP_ANONYMOUS), -1L, 0L);
	return p == -1 ? NULL : (void *)p;
}

static void unmap(void *p, size_t len)
{
	mon_raw_syscall(SYS_munmap, (long)p, (long)len);
}

/* Map table t's memory (t zeroed but for fixed).  0, or -1 (nothing
 * mapped).  Async-signal-safe once page_size is set. */
static int table_map(struct mon_stack_table *t, unsigned max_stacks, unsigned depth)
{
	t->nslots = slots_for(max_stacks);
	t->max = max_stacks;
	t->depth = depth;
	t->pool_len = (size_t)max_stacks * depth;
	t->slot_bytes = page_round(t->nslots * sizeof(struct slot) +
				   live_words(t->nslots) * sizeof(uint64_t));
	t->bytes = t->slot_bytes + page_round(t->pool_len * sizeof(uint64_t));
	t->slots = map(t->slot_bytes);
	t->pool = t->slots ? map(t->bytes - t->slot_bytes) : NULL;
	if (t->pool == NULL) {
		if (t->slots)
			unmap(t->slots, t->slot_bytes);
		return -1;
	}
	t->live = (uint64_t *)(void *)(t->slots + t->nslots);
	/* backed now (state_of); a handful of pages even for the largest */
	for (size_t i = 0, n = live_words(t->nslots); i < n; i++)
		t->live[i] = 0;
	return 0;
}

struct mon_stack_table *mon_stack_table_new(unsigned max_stacks, unsigned depth)
{
	if (max_stacks < MON_STACKS_MIN || max_stacks > MON_STACKS_MAX || depth < 1 ||
	    depth > MON_STACK_DEPTH_MAX) {
		errno = EINVAL;
		return NULL;
	}
	struct mon_stack_table *t = mon_alloc(sizeof *t);
	if (t == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	memset(t, 0, sizeof *t);
	if (table_map(t, max_stacks, depth) < 0) {
		mon_free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

static void chain_store_put(struct mon_stack_table *t);

void mon_stack_table_free(struct mon_stack_table *t)
{
	if (t == NULL)
		return;
	unmap(t->slots, t->slot_bytes);
	unmap(t->pool, t->bytes - t->slot_bytes);
	if (t->fixed)
		chain_store_put(t);
	else
		mon_free(t);
}

/* A 64-bit mix of the stack (the thread, flags and every PC). */
static uint64_t hash_of(uint64_t tid, unsigned flags, const uintptr_t *pcs, unsigned n)
{
	uint64_t h = 0x9e3779b97f4a7c15u ^ tid ^ ((uint64_t)flags << 32) ^ ((uint64_t)n << 40);
	for (unsigned i = 0; i < n; i++) {
		h ^= (uint64_t)pcs[i];
		h *= 0xff51afd7ed558ccdu;
		h ^= h >> 32;
	}
	h *= 0xc4ceb9fe1a85ec53u;
	h ^= h >> 29;
	return h;
}

static int same(const struct mon_stack_table *t, const struct slot *s, uint32_t hash, uint32_t set,
		uint64_t tid, unsigned flags, const uintptr_t *pcs, unsigned n)
{
	if (s->hash != hash || s->set != set || s->tid != tid || s->flags != flags || s->depth != n)
		return 0;
	const uint64_t *p = t->pool + s->at;
	for (unsigned i = 0; i < n; i++)
		if (p[i] != (uint64_t)pcs[i])
			return 0;
	return 1;
}

int mon_stack_table_add(struct mon_stack_table *t, uint64_t tid, unsigned flags,
			const uintptr_t *pcs, unsigned n, uint64_t weight)
{
	return mon_stack_table_add_in(t, 0, tid, flags, pcs, n, weight);
}

int mon_stack_table_add_in(struct mon_stack_table *t, uint32_t set, uint64_t tid, unsigned flags,
			   const uintptr_t *pcs, unsigned n, uint64_t weight)
{
	if (n > t->depth) {
		n = t->depth;
		flags |= MON_STACK_DEPTH;
	}
	uint64_t h64 = hash_of(tid ^ ((uint64_t)set << 48), flags, pcs, n);
	uint32_t hash = (uint32_t)(h64 >> 32);
	size_t mask = t->nslots - 1;
	size_t i = (size_t)h64 & mask;
	for (unsigned probe = 0; probe < PROBES; probe++, i = (i + 1) & mask) {
		struct slot *s = &t->slots[i];
		uint32_t st = state_of(s);
		if (st == READY) {
			if (same(t, s, hash, set, tid, flags, pcs, n)) {
				ADD(s->count, weight);
				goto counted;
			}
			continue;
		}
		if (st != EMPTY)
			continue;	/* being filled by another handler, or dead */
		if (LOAD(t->used) >= t->max)
			break;		/* full */
		uint32_t empty = EMPTY;
		if (!__atomic_compare_exchange_n(&s->state, &empty, FILLING, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE)) {
			/* Taken by another handler just now: it may be this
			 * very stack once READY, but it is not now. */
			continue;
		}
		/* Before READY's release store: a reader that sees the slot
		 * READY sees its group live. */
		__atomic_fetch_or(&t->live[(i / LIVE_GROUP) / 64], 1ull << ((i / LIVE_GROUP) % 64),
				  __ATOMIC_RELEASE);
		size_t at;
		if (__atomic_fetch_add(&t->used, 1, __ATOMIC_RELAXED) >= t->max ||
		    (at = __atomic_fetch_add(&t->pool_next, n, __ATOMIC_RELAXED)) + n > t->pool_len) {
			__atomic_store_n(&s->state, DEAD, __ATOMIC_RELEASE);
			break;
		}
		for (unsigned k = 0; k < n; k++)
			t->pool[at + k] = (uint64_t)pcs[k];
		s->hash = hash;
		s->tid = tid;
		s->flags = flags;
		s->depth = n;
		s->at = (uint32_t)at;
		s->set = set;
		__atomic_store_n(&s->count, weight, __ATOMIC_RELAXED);
		__atomic_store_n(&s->state, READY, __ATOMIC_RELEASE);
		goto counted;
	}
	ADD(t->lost, weight);
	return 0;
counted:
	if (flags & MON_STACK_TRUNCATED)
		ADD(t->truncated, weight);
	return 1;
}

int mon_stack_table_each(const struct mon_stack_table *t,
			 int (*fn)(uint64_t count, uint64_t tid, uint32_t flags, const uint64_t *pcs,
				   uint32_t depth, void *arg),
			 void *arg)
{
	for (size_t i = live_from(t, 0); i < t->nslots; i = live_from(t, i + 1)) {
		const struct slot *s = &t->slots[i];
		if (state_of(s) != READY)	/* a group's other slots: maybe a page not yet backed */
			continue;
		int rc = fn(__atomic_load_n(&s->count, __ATOMIC_RELAXED), s->tid, s->flags,
			    t->pool + s->at, s->depth, arg);
		if (rc)
			return rc;
	}
	return 0;
}

uint64_t mon_stack_table_lost(const struct mon_stack_table *t)
{
	return __atomic_load_n(&t->lost, __ATOMIC_RELAXED);
}

uint64_t mon_stack_table_truncated(const struct mon_stack_table *t)
{
	return __atomic_load_n(&t->truncated, __ATOMIC_RELAXED);
}

unsigned mon_stack_table_used(const struct mon_stack_table *t)
{
	unsigned u = __atomic_load_n(&t->used, __ATOMIC_RELAXED);
	return u < t->max ? u : t->max;
}

unsigned mon_stack_table_depth(const struct mon_stack_table *t)
{
	return t->depth;
}

unsigned mon_stack_table_capacity(const struct mon_stack_table *t)
{
	return t->max;
}

void mon_stack_table_reset(struct mon_stack_table *t)
{
	/* Private anonymous mappings: dropping the pages gives zero pages
	 * back without copying a fork parent's. */
	if (madvise(t->slots, t->slot_bytes, MADV_DONTNEED) != 0)
		memset(t->slots, 0, t->nslots * sizeof *t->slots);
	memset(t->live, 0, live_words(t->nslots) * sizeof *t->live);	/* backed again */
	__atomic_store_n(&t->pool_next, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&t->used, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&t->lost, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&t->truncated, 0, __ATOMIC_RELAXED);
}

/* ---- the runtime's table: settings, the sink, the record -------------- */

static struct mon_stack_table *table;	/* the one ticks add to; kept for the writer */
static struct mon_stack_table *recording;	/* table while on, else NULL (the sink's) */
#define CHAIN_MAX 8u
/* Tables retired by mon_stacks_grow (written with table), and the tables
 * an interval's cut moved aside (written instead, until cut_end).  Each
 * array is filled, then its count published with a release store. */
static struct mon_stack_table *older[CHAIN_MAX];
static unsigned nolder;
static struct mon_stack_table *cutv[CHAIN_MAX + 1];
static unsigned ncut;
static uint64_t grown;	/* times mon_stacks_grow made a larger table */
static size_t bound;	/* MONPROF_STACK_TABLE: stacks in all the tables at most */
static int grower;	/* a control thread will grow the tables (control.c) */
/* Who is making the next table: a handler (advance) or the control
 * thread (mon_stacks_grow), never both; 1 while one is. */
static unsigned advancing;
/* The structs of the tables advance() makes (no allocator in a handler):
 * bit i of chain_used says chain_store[i] is taken. */
static struct mon_stack_table chain_store[CHAIN_MAX];
static uint32_t chain_used;

/* A free struct of chain_store, zeroed and marked fixed, or NULL.
 * Async-signal-safe, lock-free. */
static struct mon_stack_table *chain_store_get(void)
{
	uint32_t v = __atomic_load_n(&chain_used, __ATOMIC_RELAXED);
	while (~v & ((1u << CHAIN_MAX) - 1)) {
		unsigned b = (unsigned)__builtin_ctz(~v);
		if (__atomic_compare_exchange_n(&chain_used, &v, v | (1u << b), 1, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED)) {
			struct mon_stack_table *t = &chain_store[b];
			memset(t, 0, sizeof *t);
			t->fixed = 1;
			return t;
		}
	}
	return NULL;
}

static void chain_store_put(struct mon_stack_table *t)
{
	__atomic_and_fetch(&chain_used, ~(1u << (unsigned)(t - chain_store)), __ATOMIC_RELEASE);
}

void mon_stacks_set_grower(int yes)
{
	grower = yes;
}

/* The walk's PCs do not go on the interrupted thread's stack (a thread may
 * have 16 KiB of it, PTHREAD_STACK_MIN, most of it its own): they go in one
 * of WALK_SLOTS buffers of the table's depth, mapped with the table, that a
 * handler claims with a compare-and-swap on a bit of walk_busy and gives
 * back when its sample is counted.  A tick that interrupts another's walk
 * (a nested signal) claims another buffer.  When every buffer is held
 * (more handlers at once than WALK_SLOTS), the walk goes to WALK_SHORT PCs
 * on the stack, flagged MON_STACK_DEPTH if it had more.  A fork child
 * clears every bit (mon_stacks_reset): the other threads' walks are not in
 * it. */
#define WALK_SLOTS 128u
#define WALK_SHORT 16u
static uint64_t walk_busy[WALK_SLOTS / 64];
static uintptr_t *walk_pcs;		/* WALK_SLOTS * walk_depth PCs, or NULL */
static unsigned walk_depth;

/* 1 if the code a signal interrupted (context: its ucontext_t) ran on
 * the thread's alternate signal stack. */
static int on_altstack(const void *context)
{
	const stack_t *ss = &((const ucontext_t *)context)->uc_stack;
	uintptr_t sp = mon_arch_context_sp(context), lo = (uintptr_t)ss->ss_sp;
	return !(ss->ss_flags & SS_DISABLE) && ss->ss_size > 0 && sp - lo < ss->ss_size;
}

/* A free buffer's index, now held, or -1.  Async-signal-safe, lock-free. */
static int walk_claim(void)
{
	for (unsigned w = 0; w < WALK_SLOTS / 64; w++) {
		uint64_t v = __atomic_load_n(&walk_busy[w], __ATOMIC_RELAXED);
		while (~v != 0) {
			unsigned b = (unsigned)__builtin_ctzll(~v);
			if (__atomic_compare_exchange_n(&walk_busy[w], &v, v | (1ull << b), 1,
							__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				return (int)(w * 64 + b);
		}
	}
	return -1;
}

static void walk_release(int i)
{
	__atomic_and_fetch(&walk_busy[i / 64], ~(1ull << (i % 64)), __ATOMIC_RELEASE);
}

static unsigned setting(const char *name, unsigned dflt)
{
	const char *v = mon_env(name);
	if (v == NULL || *v == '\0')
		return dflt;
	char *end;
	unsigned long x = strtoul(v, &end, 10);
	return *end == '\0' && x <= 0xffffffffu ? (unsigned)x : dflt;
}

unsigned mon_stacks_depth_setting(void)
{
	unsigned d = setting("MONPROF_STACK_DEPTH", MON_STACK_DEPTH_DEFAULT);
	return d > MON_STACK_DEPTH_MAX ? MON_STACK_DEPTH_MAX : d;
}

unsigned mon_stacks_table_setting(void)
{
	unsigned n = setting("MONPROF_STACK_TABLE", MON_STACKS_DEFAULT);
	return n < MON_STACKS_MIN ? MON_STACKS_MIN : n > MON_STACKS_MAX ? MON_STACKS_MAX : n;
}

static size_t capacity_all(void);

/* Without a control thread: when the table ticks add to is full, make one
 * of twice its size (within the setting: the last of CHAIN_MAX tables
 * takes all that is left) the one they add to, the full one retired
 * (written with the others), as mon_stacks_grow does from the control
 * thread.  Returns the table to add to.  Async-signal-safe and lock-free:
 * the new table's memory comes from two mmap(2) system calls made by the
 * instruction itself (no interposer, no lock; about 10 us with the first
 * writes to its live map, once per doubling: at most CHAIN_MAX - 1 times a
 * run), its struct from chain_store.  A handler that finds another one
 * making it (advancing held: another thread's, the control thread's, or
 * the handler this one interrupted) adds to what ticks add to now; the few
 * samples that find the full table then count as lost.  Published in the
 * order mon_stacks_put reads: older[] and nolder first, then table. */
static struct mon_stack_table *advance(void)
{
	struct mon_stack_table *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
	if (t == NULL || LOAD(t->used) < t->max)
		return t;
	unsigned free_ = 0;
	if (!__atomic_compare_exchange_n(&advancing, &free_, 1, 0, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return t;
	int saved_errno = errno;
	unsigned n = __atomic_load_n(&nolder, __ATOMIC_RELAXED);
	if (__atomic_load_n(&table, __ATOMIC_ACQUIRE) == t && n + 1 < CHAIN_MAX && !grower) {
		size_t all = capacity_all(), room = all < bound ? bound - all : 0;
		size_t want = n + 2 == CHAIN_MAX || (size_t)t->max * 2 > room ? room
									    : (size_t)t->max * 2;
		struct mon_stack_table *next = want >= MON_STACKS_MIN ? chain_store_get() : NULL;
		if (next != NULL && table_map(next, (unsigned)want, t->depth) < 0) {
			chain_store_put(next);
			next = NULL;
		}
		if (next != NULL) {
			older[n] = t;
			__atomic_store_n(&nolder, n + 1, __ATOMIC_RELEASE);
			__atomic_store_n(&table, next, __ATOMIC_RELEASE);
			/* Only while recording: mon_stacks_stop's NULL stays. */
			struct mon_stack_table *was = t;
			__atomic_compare_exchange_n(&recording, &was, next, 0, __ATOMIC_ACQ_REL,
						    __ATOMIC_RELAXED);
			ADD(grown, 1);
		}
	}
	errno = saved_errno;
	__atomic_store_n(&advancing, 0, __ATOMIC_RELEASE);
	return __atomic_load_n(&table, __ATOMIC_ACQUIRE);
}

/* The observer: walk the interrupted stack, count it.  Never charges the
 * tick (the flat histograms did). */
MON_BOUNDED_STACK static int take(const struct mon_sample *s, uint64_t *saturated)
{
	(void)saturated;
	struct mon_stack_table *t = __atomic_load_n(&recording, __ATOMIC_ACQUIRE);
	if (t == NULL)
		return MON_SINK_OFF;
	uintptr_t few[WALK_SHORT], *pcs = few;
	unsigned flags = 0, n, max = WALK_SHORT;
	uintptr_t *bufs = __atomic_load_n(&walk_pcs, __ATOMIC_ACQUIRE);
	int slot = bufs != NULL ? walk_claim() : -1;
	if (slot >= 0) {
		pcs = bufs + (size_t)slot * walk_depth;
		max = walk_depth;
	}
	if (max > t->depth)
		max = t->depth;
	/* Was the interrupted code on its alternate signal stack?  The kernel's
	 * ucontext keeps the thread's sigaltstack(2) setting in uc_stack (its
	 * ss_flags do not say SS_ONSTACK: the interrupted SP does).  Then this
	 * handler runs on that stack too, the program's, sized for its own
	 * handler (16 KiB, most of it used, is common).  No walk there: the PC
	 * alone, flagged truncated, and the least stack. */
	if (s->context != NULL && !on_altstack(s->context)) {
		n = mon_unwind(s->context, pcs, max, &flags);
	} else {
		pcs[0] = s->pc;	/* no registers, or no room: the PC alone, and said so */
		n = 1;
		flags = MON_STACK_TRUNCATED;
	}
	/* Full, and no thread grows the tables: the next one, made now
	 * (none of the full one's room is left unused).  From the table ticks
	 * add to, not this tick's view of it (mon_stacks_start may have
	 * stored an older one while a tick moved on). */
	if (!grower && LOAD(t->used) >= t->max) {
		struct mon_stack_table *cur = advance();
		if (cur != NULL)
			t = cur;
	}
	mon_stack_table_add_in(t, mon_objhist_set_now(), (uint64_t)s->tid, flags, pcs, n, s->weight);
	if (slot >= 0)
		walk_release(slot);
	return MON_SINK_OUTSIDE;
}

static const struct mon_sink sink = { take, MON_SINK_TID | MON_SINK_OBSERVE };

int mon_stacks_start(void)
{
	unsigned depth = mon_stacks_depth_setting();
	if (depth == 0)
		return 0;
	int rc = 0;
	mon_lock();
	if (table == NULL) {
		bound = mon_stacks_table_setting();
		size_t first = bound / 4 < MON_STACKS_FIRST ? bound / 4 : MON_STACKS_FIRST;
		if (first < MON_STACKS_MIN)
			first = bound < MON_STACKS_MIN ? bound : MON_STACKS_MIN;
		struct mon_stack_table *t = mon_stack_table_new((unsigned)first, depth);
		/* The walks' buffers (see walk_claim), backed only once used. */
		void *w = t ? mmap(NULL, (size_t)WALK_SLOTS * depth * sizeof(uintptr_t),
				   PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
			    : MAP_FAILED;
		if (t == NULL) {
			rc = -1;
		} else {
			if (w != MAP_FAILED) {
				walk_depth = depth;
				__atomic_store_n(&walk_pcs, w, __ATOMIC_RELEASE);
			}
			__atomic_store_n(&table, t, __ATOMIC_RELEASE);
		}
	}
	mon_unlock();
	if (rc < 0)
		return mon_fail(ENOMEM);
	/* The loader's lock is taken here (dl_iterate_phdr): outside ours.
	 * Objects whose tables could not be compiled (ENOMEM) are walked no
	 * further than their frame: flagged truncated, counted in the record. */
	mon_unwind_refresh();
	mon_lock();
	mon_sampler_set_sink(MON_SINK_STACKS, &sink);
	__atomic_store_n(&recording, table, __ATOMIC_RELEASE);
	mon_unlock();
	return 0;
}

void mon_stacks_stop(void)
{
	mon_lock();
	if (__atomic_load_n(&recording, __ATOMIC_RELAXED) != NULL) {
		__atomic_store_n(&recording, NULL, __ATOMIC_RELEASE);
		mon_sampler_quiesce();
	}
	mon_unlock();
}

int mon_stacks_loaded(int early)
{
	/* Not recording: current if stacks were never set up (depth 0); if
	 * they were, not current, since an object loaded between
	 * mon_stacks_start's compile and its publish of the table would have
	 * no unwind table until some later refresh (a reviewer's finding). */
	if (__atomic_load_n(&recording, __ATOMIC_ACQUIRE) == NULL)
		return __atomic_load_n(&table, __ATOMIC_ACQUIRE) != NULL ? -1 : 0;
	return (early ? mon_unwind_refresh_try() : mon_unwind_refresh()) < 0 ? -1 : 0;
}

/* Capacity of every table ticks added to in this run (or interval). */
static size_t capacity_all(void)
{
	size_t n = table ? table->max : 0;
	for (unsigned i = 0; i < nolder; i++)
		n += older[i]->max;
	return n;
}

int mon_stacks_grow(void)
{
	struct mon_stack_table *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
	if (t == NULL || __atomic_load_n(&t->used, __ATOMIC_RELAXED) < t->max / 4 * 3 ||
	    nolder + 1 >= CHAIN_MAX)
		return 0;
	size_t all = capacity_all(), room = all < bound ? bound - all : 0;
	size_t want = (size_t)t->max * 2 < room ? (size_t)t->max * 2 : room;
	if (want < MON_STACKS_MIN)
		return 0;
	unsigned free_ = 0;	/* (a handler's advance, if grower came late: control.c) */
	if (!__atomic_compare_exchange_n(&advancing, &free_, 1, 0, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return 0;
	struct mon_stack_table *n = mon_stack_table_new((unsigned)want, t->depth);
	if (n == NULL || __atomic_load_n(&table, __ATOMIC_ACQUIRE) != t) {
		mon_stack_table_free(n);
		__atomic_store_n(&advancing, 0, __ATOMIC_RELEASE);
		return n == NULL ? -1 : 0;
	}
	mon_lock();
	older[nolder] = t;
	__atomic_store_n(&nolder, nolder + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&table, n, __ATOMIC_RELEASE);
	if (__atomic_load_n(&recording, __ATOMIC_RELAXED) != NULL) {
		__atomic_store_n(&recording, n, __ATOMIC_RELEASE);
		mon_sampler_quiesce();
	}
	grown++;
	mon_unlock();
	__atomic_store_n(&advancing, 0, __ATOMIC_RELEASE);
	return 1;
}

int mon_stacks_cut_begin(void)
{
	struct mon_stack_table *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
	if (t == NULL || ncut != 0)
		return 0;
	struct mon_stack_table *n = mon_stack_table_new(t->max, t->depth);
	if (n == NULL)
		return -1;
	/* Not while a handler's advance() makes a table (a grower set after
	 * profiling started: control.c's late configure): it ends within
	 * microseconds, and this thread takes no signal. */
	for (unsigned free_ = 0; !__atomic_compare_exchange_n(&advancing, &free_, 1, 0,
							     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
	     free_ = 0)
		sched_yield();
	t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
	mon_lock();
	unsigned k = 0;
	for (unsigned i = 0; i < nolder; i++)
		cutv[k++] = older[i];
	cutv[k++] = t;
	__atomic_store_n(&ncut, k, __ATOMIC_RELEASE);
	__atomic_store_n(&nolder, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&table, n, __ATOMIC_RELEASE);
	if (__atomic_load_n(&recording, __ATOMIC_RELAXED) != NULL) {
		__atomic_store_n(&recording, n, __ATOMIC_RELEASE);
		mon_sampler_quiesce();
	}
	mon_unlock();
	__atomic_store_n(&advancing, 0, __ATOMIC_RELEASE);
	return 0;
}

void mon_stacks_cut_end(void)
{
	mon_lock();
	unsigned k = ncut;
	__atomic_store_n(&ncut, 0, __ATOMIC_RELEASE);
	mon_unlock();
	for (unsigned i = 0; i < k; i++)
		mon_stack_table_free(cutv[i]);
}

void mon_stacks_usage(uint64_t *used, uint64_t *capacity, uint64_t *lost, uint64_t *grew,
		      uint64_t *most)
{
	struct mon_stack_table *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
	*used = *capacity = *lost = 0;
	*grew = grown;
	*most = bound;
	if (t == NULL)
		return;
	*used = mon_stack_table_used(t);
	*capacity = t->max;
	*lost = mon_stack_table_lost(t);
	unsigned n = __atomic_load_n(&nolder, __ATOMIC_ACQUIRE);
	for (unsigned i = 0; i < n; i++) {
		*used += mon_stack_table_used(older[i]);
		*capacity += older[i]->max;
		*lost += mon_stack_table_lost(older[i]);
	}
}

void mon_stacks_reset(void)
{
	struct mon_stack_table *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
	advancing = 0;
	if (t != NULL)
		mon_stack_table_reset(t);
	/* A fork child: the parent's retired and cut tables are copies of no
	 * use here (no handler runs yet: the clocks are not armed). */
	for (unsigned i = 0; i < nolder; i++)
		if (older[i] != t)	/* (a fork in another thread's advance) */
			mon_stack_table_free(older[i]);
	for (unsigned i = 0; i < ncut; i++)
		mon_stack_table_free(cutv[i]);
	nolder = ncut = 0;
	/* chain_store: only the table kept (a struct another thread's advance
	 * had taken when the fork came is the child's again; its mapping is
	 * not, a rare leak). */
	chain_used = t != NULL && t->fixed ? 1u << (unsigned)(t - chain_store) : 0;
	for (unsigned w = 0; w < WALK_SLOTS / 64; w++)
		__atomic_store_n(&walk_busy[w], 0, __ATOMIC_RELAXED);
}

size_t mon_stack_table_slot_map(const struct mon_stack_table *t, const void **at)
{
	*at = t->slots;
	return t->slot_bytes;
}

const struct mon_stack_table *mon_stacks_table(void)
{
	return __atomic_load_n(&table, __ATOMIC_ACQUIRE);
}

/* The smallest object set above `after` (any, when first) among the
 * entries in use: 1 and *set, or 0 when there is none. */
static int next_set(const struct mon_stack_table *t, int first, uint32_t after, uint32_t *set)
{
	int found = 0;
	for (size_t i = live_from(t, 0); i < t->nslots; i = live_from(t, i + 1)) {
		const struct slot *s = &t->slots[i];
		if (state_of(s) != READY ||
		    (!first && s->set <= after) || (found && s->set >= *set))
			continue;
		*set = s->set;
		found = 1;
	}
	return found;
}

/* One STACKS record per object set among one table's entries
 * (mon.out(5)); the first holds the table's lost samples; each its own
 * truncated ones. */
static int put_table(struct monout_writer *w, const struct mon_stack_table *t)
{
	uint32_t set = 0;
	int first = 1, more = next_set(t, 1, 0, &set);
	do {
		struct monout_stacks_head h;
		memset(&h, 0, sizeof h);
		h.max_depth = t->depth;
		h.set = set;
		if (first)
			h.lost = mon_stack_table_lost(t);
		for (size_t i = live_from(t, 0); i < t->nslots; i = live_from(t, i + 1)) {
			const struct slot *s = &t->slots[i];
			if (state_of(s) == READY && s->set == set &&
			    (s->flags & MON_STACK_TRUNCATED))
				h.truncated += __atomic_load_n(&s->count, __ATOMIC_RELAXED);
		}
		if (monout_stacks_open(w, &h) < 0)
			return -1;
		for (size_t i = live_from(t, 0); more && i < t->nslots; i = live_from(t, i + 1)) {
			const struct slot *s = &t->slots[i];
			if (state_of(s) == READY && s->set == set &&
			    monout_stacks_add(w, __atomic_load_n(&s->count, __ATOMIC_RELAXED), s->tid,
					      s->flags, t->pool + s->at, s->depth) < 0)
				return -1;
		}
		if (monout_stacks_close(w) < 0)
			return -1;
		first = 0;
	} while (more && (more = next_set(t, 0, set, &set)));
	return 0;
}

/* Every table of the run (or of the interval being cut): the retired ones,
 * then the one ticks add to. */
int mon_stacks_put(struct monout_writer *w)
{
	unsigned k = __atomic_load_n(&ncut, __ATOMIC_ACQUIRE);
	if (k > 0) {
		for (unsigned i = 0; i < k; i++)
			if (put_table(w, cutv[i]) < 0)
				return -1;
		return 0;
	}
	struct mon_stack_table *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
	if (t == NULL)
		return 0;
	unsigned n = __atomic_load_n(&nolder, __ATOMIC_ACQUIRE);
	for (unsigned i = 0; i < n; i++)
		if (older[i] != t && put_table(w, older[i]) < 0)
			return -1;
	return put_table(w, t);
}
