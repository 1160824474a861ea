/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mcount.c — counting calls: what the compiler's instrumentation calls.
 *
 *   gcc -pg             calls mcount after each function's prologue (and
 *                       gcrt1.o calls __monstartup at start, registers
 *                       _mcleanup with atexit): selfpc is mcount's return
 *                       address, frompc the function's own return address,
 *                       read from the frame (8(%rbp)) that -pg guarantees.
 *   gcc -pg -mfentry    calls __fentry__ before the prologue: selfpc is the
 *                       return address, frompc the next word on the stack.
 *   -finstrument-functions  calls __cyg_profile_func_enter(this_fn,
 *                       call_site): selfpc = this_fn, frompc = call_site.
 *                       The first call starts profiling by itself.
 * libmon defines all of these, so `cc -pg prog.c -lmon` is counted here and
 * not by the C library's profiler (libmon comes before libc in symbol
 * lookup; with libmon.a the linker takes ours first).  This file only
 * counts (mcount, __fentry__ and mon_count); the hooks that start and stop
 * profiling (__monstartup, _mcleanup, __cyg_profile_func_*) live beside
 * monitor() in monitor.c, as FreeBSD's gmon.c holds monstartup and
 * _mcleanup apart from its mcount.c.
 *
 * Counting is exact under threads and signals and never blocks: arcs
 * (frompc, selfpc) live in open-addressed hash tables in memory mapped in
 * advance.  A cell is claimed by compare-and-swap of its selfpc word from 0
 * to a CLAIMING mark, keyed, then published; a thread that meets a cell
 * being claimed probes past it (a signal handler on the claiming thread
 * must not wait for it), so one arc may own two cells — the writer and the
 * reader add them up.  After MAX_PROBES probes a lookup goes on in the next,
 * twice larger table, mapped on demand (mmap is async-signal-safe); only if
 * that fails is a call lost, and counted as lost.  The count itself is one
 * atomic add: nothing is dropped, unlike the C library's mcount, which
 * skips calls made while another thread is inside it.
 *
 * The arc cells taken can be limited (MONPROF_ARCS, monrun -a: glibc's
 * glibc.gmon.maxarcs tunable, glibc manual "Tunables"): the call that would take one
 * more cell than the limit stops counting for good (glibc's
 * GMON_PROF_ERROR state) and the profile is not written, with one line on
 * stderr when the write is due (mon_write_profile), as glibc's
 * tst-mcount-overflow expects of gmon.out: a message, and no file whose
 * call graph is silently short.
 *
 * Functions are numbered in the order of their first call (a second table,
 * keyed by selfpc); the first ones get the struct cnt cells of the
 * monitor() buffers, as System V gave them out.  Per-function totals are
 * added up from the arcs only when the profile is written.
 *
 * The counting code uses general registers only: mcount saves just the
 * integer argument registers, so the floating-point arguments of the
 * instrumented function must survive untouched.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/single_threaded.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <stddef.h>

#include "mcount.h"
#include "monrt.h"

#define GPR __attribute__((target("general-regs-only")))

#define CLAIMING 1u		/* selfpc mark of an arc cell being keyed */
#define MAX_PROBES 16
#define FN_BITS0 13		/* first function table: 8192 cells */
#define MAX_TABLES 24

struct arctab {
	uint64_t mask;
	struct monout_arc *cell;
};

struct fntab {
	uint64_t mask;
	struct monout_call *cell;	/* selfpc, and the total at the last sync */
	uint32_t *order;		/* 1 + first-call rank, 0 until set */
};

int mon_counting;
static struct arctab arcs[MAX_TABLES];
/* arcs[0].cell, for mcount's assembly fast path. */
MON_HIDDEN struct monout_arc *mon_arc_cell0;
static struct fntab fns[MAX_TABLES];
static uint64_t lost;
static uint32_t next_order;
static uint64_t arc_limit;	/* MONPROF_ARCS: arc cells at most; 0: no limit */
static uint64_t arc_cells;	/* arc cells claimed (counted only under a limit) */
static int arcs_overflowed;	/* a call wanted a cell past arc_limit */
/* A cell of the arc (function) tables was ever claimed: until then the
 * tables are untouched, and what reads them all (a fork child's reset,
 * the sync, the cuts, the writer) skips them.  A program not built with
 * -pg never claims one, and its tables (786 KiB of arcs, 160 KiB of
 * functions, mapped at start) were read page by page in every fork
 * child, a page fault each: 630 us of CPU a child of bench/fork_exit.c
 * (issue 25, pgbench -C's backend per connection). */
static int arcs_any, fns_any;
static void part_reset(void);	/* interval profiles' readings (below) */

/* The cells of monitor() buffers, in the order they were handed in. */
#define MAX_BLOCKS 64
static struct {
	struct cnt *cells;
	size_t n;
} blocks[MAX_BLOCKS];
static unsigned nblocks;

GPR static void *map_zeroed(size_t bytes)
{
	long p = syscall(SYS_mmap, 0, bytes, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == -1 || (unsigned long)p > (unsigned long)-4096)
		return NULL;
	return (void *)p;
}

GPR static void unmap(void *p, size_t bytes)
{
	syscall(SYS_munmap, p, bytes);
}

/* Table i of the arc chain, mapping it if needed.  NULL when no memory. */
GPR static struct monout_arc *arc_table(unsigned i, uint64_t *mask)
{
	struct monout_arc *c = __atomic_load_n(&arcs[i].cell, __ATOMIC_ACQUIRE);
	if (c == NULL) {
		uint64_t n = (uint64_t)1 << (ARC_BITS0 + i);
		struct monout_arc *fresh = map_zeroed(n * sizeof *fresh);
		if (fresh == NULL)
			return NULL;
		__atomic_store_n(&arcs[i].mask, n - 1, __ATOMIC_RELAXED);
		if (!__atomic_compare_exchange_n(&arcs[i].cell, &c, fresh, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE)) {
			unmap(fresh, n * sizeof *fresh);	/* another thread won */
		} else {
			c = fresh;
			if (i == 0)
				__atomic_store_n(&mon_arc_cell0, fresh, __ATOMIC_RELEASE);
		}
	}
	*mask = ((uint64_t)1 << (ARC_BITS0 + i)) - 1;
	return c;
}

GPR static struct fntab *fn_table(unsigned i)
{
	struct monout_call *c = __atomic_load_n(&fns[i].cell, __ATOMIC_ACQUIRE);
	if (c == NULL) {
		uint64_t n = (uint64_t)1 << (FN_BITS0 + i);
		size_t bytes = n * (sizeof(struct monout_call) + sizeof(uint32_t));
		struct monout_call *fresh = map_zeroed(bytes);
		if (fresh == NULL)
			return NULL;
		/* order[] lives after the cells; publish it before the cells. */
		__atomic_store_n(&fns[i].order, (uint32_t *)(fresh + n), __ATOMIC_RELAXED);
		__atomic_store_n(&fns[i].mask, n - 1, __ATOMIC_RELAXED);
		if (!__atomic_compare_exchange_n(&fns[i].cell, &c, fresh, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
			unmap(fresh, bytes);
	}
	return &fns[i];
}

/* hash2's constants are mcount.h's: the machine's mcount entry computes
 * the same hash, so that its fast path finds the cells the C code fills. */
GPR static inline uint64_t hash2(uint64_t frompc, uint64_t selfpc)
{
	uint64_t h = (frompc ^ (selfpc * (uint64_t)HASH2_MUL1)) * (uint64_t)HASH2_MUL2;
	return h ^ (h >> HASH2_SHIFT);
}

GPR static inline uint64_t hash1(uint64_t selfpc)
{
	uint64_t h = selfpc * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 31);
}

/* Give selfpc its place in the function table (first-call order). */
GPR static void note_function(uint64_t selfpc)
{
	uint64_t h = hash1(selfpc);
	for (unsigned t = 0; t < MAX_TABLES; t++) {
		struct fntab *ft = fn_table(t);
		if (ft == NULL)
			return;	/* the arc still counts; the function has no rank */
		uint64_t mask = ((uint64_t)1 << (FN_BITS0 + t)) - 1;
		for (unsigned p = 0; p < MAX_PROBES; p++) {
			uint64_t i = (h + p) & mask;
			uint64_t cur = __atomic_load_n(&ft->cell[i].selfpc, __ATOMIC_ACQUIRE);
			if (cur == selfpc)
				return;
			if (cur == 0) {
				if (!__atomic_load_n(&fns_any, __ATOMIC_RELAXED))
					__atomic_store_n(&fns_any, 1, __ATOMIC_RELEASE);
				if (__atomic_compare_exchange_n(&ft->cell[i].selfpc, &cur, selfpc, 0,
								__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
					uint32_t rank = __atomic_add_fetch(&next_order, 1,
									   __ATOMIC_RELAXED);
					__atomic_store_n(&ft->order[i], rank, __ATOMIC_RELEASE);
					return;
				}
				if (cur == selfpc)
					return;
			}
		}
	}
}

/* The slow path: find or make the cell of a new arc, count one call. */
GPR __attribute__((noinline)) static void count_new(uint64_t frompc, uint64_t selfpc)
{
	uint64_t h = hash2(frompc, selfpc);
	int noted = 0;
	for (unsigned t = 0; t < MAX_TABLES; t++) {
		uint64_t mask;
		struct monout_arc *c = arc_table(t, &mask);
		if (c == NULL)
			break;
		for (unsigned p = 0; p < MAX_PROBES; p++) {
			struct monout_arc *a = &c[(h + p) & mask];
			uint64_t cur = __atomic_load_n(&a->selfpc, __ATOMIC_ACQUIRE);
			if (cur == selfpc && __atomic_load_n(&a->frompc, __ATOMIC_RELAXED) == frompc) {
				__atomic_add_fetch(&a->count, 1, __ATOMIC_RELAXED);
				return;
			}
			if (cur != 0)
				continue;
			if (!noted) {
				note_function(selfpc);
				noted = 1;
			}
			if (!__atomic_load_n(&arcs_any, __ATOMIC_RELAXED))
				__atomic_store_n(&arcs_any, 1, __ATOMIC_RELEASE);
			if (!__atomic_compare_exchange_n(&a->selfpc, &cur, CLAIMING, 0,
							 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				if (cur == selfpc &&
				    __atomic_load_n(&a->frompc, __ATOMIC_RELAXED) == frompc) {
					__atomic_add_fetch(&a->count, 1, __ATOMIC_RELAXED);
					return;
				}
				continue;
			}
			if (arc_limit != 0 &&
			    __atomic_add_fetch(&arc_cells, 1, __ATOMIC_RELAXED) > arc_limit) {
				/* Past the limit: give the cell back, stop for good. */
				__atomic_store_n(&a->selfpc, 0, __ATOMIC_RELEASE);
				__atomic_store_n(&arcs_overflowed, 1, __ATOMIC_RELEASE);
				__atomic_store_n(&mon_counting, 0, __ATOMIC_RELEASE);
				__atomic_add_fetch(&lost, 1, __ATOMIC_RELAXED);
				return;
			}
			__atomic_store_n(&a->frompc, frompc, __ATOMIC_RELAXED);
			__atomic_store_n(&a->selfpc, selfpc, __ATOMIC_RELEASE);
			__atomic_add_fetch(&a->count, 1, __ATOMIC_RELAXED);
			return;
		}
	}
	__atomic_add_fetch(&lost, 1, __ATOMIC_RELAXED);
}

/* Add one to a count.  While the process has a single thread (the C
 * library's __libc_single_threaded, cleared for good by the first
 * pthread_create) a plain add to memory is enough: it is one instruction,
 * so a signal handler that counts a call on the same thread cannot split
 * it, and the locked form's full barrier would be most of mcount's cost. */
GPR static inline void count_one(uint64_t *count)
{
#if defined(__x86_64__)
	if (__libc_single_threaded) {
		__asm__ volatile("addq $1, %0" : "+m"(*count));
		return;
	}
#endif
	__atomic_add_fetch(count, 1, __ATOMIC_RELAXED);
}

GPR void mon_count(uintptr_t frompc, uintptr_t selfpc)
{
	if (__builtin_expect(!__atomic_load_n(&mon_counting, __ATOMIC_RELAXED), 0))
		return;
	if (__builtin_expect(selfpc <= CLAIMING, 0))
		return;
	/* Fast path: the arc is already in the first table, near its home. */
	struct monout_arc *c = __atomic_load_n(&arcs[0].cell, __ATOMIC_ACQUIRE);
	if (__builtin_expect(c != NULL, 1)) {
		uint64_t mask = ((uint64_t)1 << ARC_BITS0) - 1;
		uint64_t h = hash2(frompc, selfpc);
		for (unsigned p = 0; p < 4; p++) {
			struct monout_arc *a = &c[(h + p) & mask];
			uint64_t cur = __atomic_load_n(&a->selfpc, __ATOMIC_ACQUIRE);
			if (cur == selfpc && __atomic_load_n(&a->frompc, __ATOMIC_RELAXED) == frompc) {
				count_one(&a->count);
				return;
			}
			if (cur == 0)
				break;
		}
	}
	count_new(frompc, selfpc);
}

int mon_count_init(void)
{
	/* Valid by now (settings.c checked it): decimal, in range. */
	const char *lim = mon_env("MONPROF_ARCS");
	arc_limit = 0;
	for (const char *c = lim; c != NULL && *c >= '0' && *c <= '9'; c++)
		arc_limit = arc_limit * 10 + (uint64_t)(*c - '0');
	uint64_t mask;
	if (arc_table(0, &mask) == NULL || fn_table(0) == NULL)
		return mon_fail(ENOMEM);
	return 0;
}

int mon_count_add_block(struct cnt *cells, size_t n)
{
	if (nblocks >= MAX_BLOCKS)
		return mon_fail(ENOSPC);
	blocks[nblocks].cells = cells;
	blocks[nblocks].n = n;
	__atomic_store_n(&nblocks, nblocks + 1, __ATOMIC_RELEASE);
	return 0;
}

void mon_count_restart(void)
{
	__atomic_store_n(&nblocks, 0, __ATOMIC_RELEASE);
	mon_count_reset();
}

void mon_count_reset(void)
{
	for (unsigned t = 0; __atomic_load_n(&arcs_any, __ATOMIC_ACQUIRE) && t < MAX_TABLES; t++) {
		struct monout_arc *c = __atomic_load_n(&arcs[t].cell, __ATOMIC_ACQUIRE);
		if (c == NULL)
			break;
		uint64_t n = (uint64_t)1 << (ARC_BITS0 + t);
		for (uint64_t i = 0; i < n; i++)
			if (c[i].count)
				__atomic_store_n(&c[i].count, 0, __ATOMIC_RELAXED);
	}
	for (unsigned b = 0; b < nblocks; b++)
		for (size_t i = 0; i < blocks[b].n; i++)
			blocks[b].cells[i].mcnt = 0;
	__atomic_store_n(&lost, 0, __ATOMIC_RELAXED);
	part_reset();
}

int mon_count_overflowed(uint64_t *limit)
{
	*limit = arc_limit;
	return __atomic_load_n(&arcs_overflowed, __ATOMIC_ACQUIRE);
}

/* Function-table cell of selfpc, or NULL. */
static struct monout_call *find_function(uint64_t selfpc, uint32_t *rank)
{
	uint64_t h = hash1(selfpc);
	for (unsigned t = 0; t < MAX_TABLES; t++) {
		struct monout_call *c = __atomic_load_n(&fns[t].cell, __ATOMIC_ACQUIRE);
		if (c == NULL)
			return NULL;
		uint64_t mask = ((uint64_t)1 << (FN_BITS0 + t)) - 1;
		for (unsigned p = 0; p < MAX_PROBES; p++) {
			uint64_t i = (h + p) & mask;
			uint64_t cur = __atomic_load_n(&c[i].selfpc, __ATOMIC_ACQUIRE);
			if (cur == selfpc) {
				*rank = __atomic_load_n(&fns[t].order[i], __ATOMIC_ACQUIRE);
				return &c[i];
			}
			if (cur == 0)
				return NULL;
		}
	}
	return NULL;
}

/* The monitor() cell of the function ranked rank (1-based), or NULL. */
static struct cnt *cell_of(uint32_t rank)
{
	size_t k = rank ? rank - 1 : SIZE_MAX;
	unsigned nb = __atomic_load_n(&nblocks, __ATOMIC_ACQUIRE);
	for (unsigned b = 0; b < nb && rank; b++) {
		if (k < blocks[b].n)
			return &blocks[b].cells[k];
		k -= blocks[b].n;
	}
	return NULL;
}

void mon_count_sync(void)
{
	/* Totals start from zero at every sync: they are sums over the arcs. */
	int fa = __atomic_load_n(&fns_any, __ATOMIC_ACQUIRE);
	int aa = __atomic_load_n(&arcs_any, __ATOMIC_ACQUIRE);
	for (unsigned t = 0; fa && t < MAX_TABLES; t++) {
		struct monout_call *c = __atomic_load_n(&fns[t].cell, __ATOMIC_ACQUIRE);
		if (c == NULL)
			break;
		uint64_t n = (uint64_t)1 << (FN_BITS0 + t);
		for (uint64_t i = 0; i < n; i++)
			if (c[i].count)
				__atomic_store_n(&c[i].count, 0, __ATOMIC_RELAXED);
	}
	for (unsigned t = 0; aa && t < MAX_TABLES; t++) {
		struct monout_arc *c = __atomic_load_n(&arcs[t].cell, __ATOMIC_ACQUIRE);
		if (c == NULL)
			break;
		uint64_t n = (uint64_t)1 << (ARC_BITS0 + t);
		for (uint64_t i = 0; i < n; i++) {
			uint64_t self = __atomic_load_n(&c[i].selfpc, __ATOMIC_ACQUIRE);
			uint64_t k = __atomic_load_n(&c[i].count, __ATOMIC_RELAXED);
			if (self <= CLAIMING || k == 0)
				continue;
			uint32_t rank = 0;
			struct monout_call *f = find_function(self, &rank);
			if (f != NULL)
				__atomic_add_fetch(&f->count, k, __ATOMIC_RELAXED);
		}
	}
	/* The monitor() cells: the first functions, in first-call order. */
	for (unsigned t = 0; fa && t < MAX_TABLES; t++) {
		struct monout_call *c = __atomic_load_n(&fns[t].cell, __ATOMIC_ACQUIRE);
		if (c == NULL)
			break;
		uint64_t n = (uint64_t)1 << (FN_BITS0 + t);
		for (uint64_t i = 0; i < n; i++) {
			uint32_t rank = __atomic_load_n(&fns[t].order[i], __ATOMIC_ACQUIRE);
			struct cnt *cell = cell_of(rank);
			if (cell == NULL)
				continue;
			cell->fnpc = (char *)(uintptr_t)c[i].selfpc;
			uint64_t k = __atomic_load_n(&c[i].count, __ATOMIC_RELAXED);
			cell->mcnt = k > (uint64_t)LONG_MAX ? LONG_MAX : (long)k;
		}
	}
}

/* ---- interval profiles: each file the calls of its own interval ------- */
/*
 * Counts only grow (mon_count adds, lock-free; nothing ever takes them), so
 * the calls of an interval are the difference of two readings.  At each
 * cut every arc cell's count is read once into now[] (mon_count_cut); the
 * file gets now - base; an advancing cut makes now the next base
 * (mon_count_cut_end).  A call counted before its cell is read is in this
 * interval's file, one counted after in the next: never lost, never in
 * both.  The arrays, one count a cell of each arc table, are mon_alloc'd
 * by mon_count_part_prepare outside signal handlers (the control thread's
 * cut).  A table without them:
 *  - at an advancing cut (its arrays could not be had): left out of the
 *    file, read nowhere; its calls go to a later interval's file;
 *  - at the last cut (from a signal handler or at exit, no allocation):
 *    no advancing cut has read it, so its base is zero and its cells are
 *    written as they are.
 * Cells whose count is 0 are never written in either array (both stay 0:
 * counts only grow), so only the pages of cells in use are touched.
 */
struct arcpart {
	uint64_t *base;		/* the counts the last advancing cut read (NULL: none yet) */
	uint64_t *now;		/* the counts this cut read */
};
static struct arcpart part[MAX_TABLES];
static int part_on;		/* mon_count_put writes the cut's part */
static int part_advance;	/* ... of an advancing cut */

/* Both arrays of every table back to zero (a fork child, a new run); no
 * cut in progress (a fork child of a thread that forked during the control
 * thread's cut). */
static void part_reset(void)
{
	part_on = 0;
	for (unsigned t = 0; __atomic_load_n(&arcs_any, __ATOMIC_ACQUIRE) && t < MAX_TABLES; t++) {
		if (part[t].base == NULL)
			continue;
		uint64_t n = (uint64_t)1 << (ARC_BITS0 + t);
		for (uint64_t i = 0; i < n; i++) {
			if (part[t].base[i])
				part[t].base[i] = 0;
			if (part[t].now[i])
				part[t].now[i] = 0;
		}
	}
}

int mon_count_part_prepare(void)
{
	/* No arc yet: nothing to read (made at a cut after the first). */
	for (unsigned t = 0; __atomic_load_n(&arcs_any, __ATOMIC_ACQUIRE) && t < MAX_TABLES; t++) {
		if (__atomic_load_n(&arcs[t].cell, __ATOMIC_ACQUIRE) == NULL)
			break;
		if (part[t].base != NULL)
			continue;
		uint64_t n = (uint64_t)1 << (ARC_BITS0 + t);
		uint64_t *v = mon_alloc(2 * n * sizeof *v);
		if (v == NULL)
			return mon_fail(ENOMEM);
		/* Zero without writing a page that is zero already: a fresh
		 * mapping stays unbacked but where cells are used. */
		for (uint64_t i = 0; i < 2 * n; i++)
			if (v[i])
				v[i] = 0;
		part[t].now = v + n;
		part[t].base = v;
	}
	return 0;
}

void mon_count_cut(int advance)
{
	mon_count_sync();	/* the monitor() cells keep the run's totals */
	int fa = __atomic_load_n(&fns_any, __ATOMIC_ACQUIRE);
	int aa = __atomic_load_n(&arcs_any, __ATOMIC_ACQUIRE);
	for (unsigned t = 0; fa && t < MAX_TABLES; t++) {
		struct monout_call *c = __atomic_load_n(&fns[t].cell, __ATOMIC_ACQUIRE);
		if (c == NULL)
			break;
		uint64_t n = (uint64_t)1 << (FN_BITS0 + t);
		for (uint64_t i = 0; i < n; i++)
			if (c[i].count)
				__atomic_store_n(&c[i].count, 0, __ATOMIC_RELAXED);
	}
	for (unsigned t = 0; aa && t < MAX_TABLES; t++) {
		struct monout_arc *c = __atomic_load_n(&arcs[t].cell, __ATOMIC_ACQUIRE);
		if (c == NULL)
			break;
		uint64_t *base = part[t].base, *now = part[t].now;
		if (base == NULL && advance)
			continue;	/* no arrays: its calls wait for a later file */
		uint64_t n = (uint64_t)1 << (ARC_BITS0 + t);
		for (uint64_t i = 0; i < n; i++) {
			/* selfpc first: a cell still being claimed may show its
			 * first count before its key (the count's add is not
			 * ordered after the key's store on every machine); it is
			 * read at the next cut. */
			uint64_t self = __atomic_load_n(&c[i].selfpc, __ATOMIC_ACQUIRE);
			uint64_t b = base != NULL ? base[i] : 0;
			if (self <= CLAIMING) {
				if (now != NULL && now[i] != b)
					now[i] = b;
				continue;
			}
			uint64_t k = __atomic_load_n(&c[i].count, __ATOMIC_RELAXED);
			if (now != NULL && (k || now[i]))
				now[i] = k;
			if (k <= b)
				continue;
			uint32_t rank = 0;
			struct monout_call *f = find_function(self, &rank);
			if (f != NULL)
				__atomic_add_fetch(&f->count, k - b, __ATOMIC_RELAXED);
		}
	}
	part_on = 1;
	part_advance = advance;
}

void mon_count_cut_end(int advance)
{
	for (unsigned t = 0; advance && t < MAX_TABLES; t++) {
		uint64_t *v = part[t].base;
		part[t].base = part[t].now;
		part[t].now = v;
	}
	part_on = 0;
}

int mon_count_put(struct monout_writer *w)
{
	/* A function whose arcs all went to a table that is not in the function
	 * table (memory exhausted) would be missing from CALLS: the arcs still
	 * carry its count. */
	/* Tables never claimed in: their records empty, unread. */
	int fa = __atomic_load_n(&fns_any, __ATOMIC_ACQUIRE);
	int aa = __atomic_load_n(&arcs_any, __ATOMIC_ACQUIRE);
	for (unsigned t = 0; t < MAX_TABLES; t++) {
		struct monout_call *c = __atomic_load_n(&fns[t].cell, __ATOMIC_ACQUIRE);
		if (c == NULL)
			break;
		if (monout_put_calls(w, c, fa ? (size_t)1 << (FN_BITS0 + t) : 0) < 0)
			return -1;
	}
	for (unsigned t = 0; t < MAX_TABLES; t++) {
		struct monout_arc *c = __atomic_load_n(&arcs[t].cell, __ATOMIC_ACQUIRE);
		if (c == NULL)
			break;
		size_t n = aa ? (size_t)1 << (ARC_BITS0 + t) : 0;
		int rc;
		if (!part_on || !aa)
			rc = monout_put_arcs(w, c, n);
		else if (part[t].base == NULL && part_advance)
			continue;	/* not read by the cut (mon_count_cut) */
		else
			rc = monout_put_arcs_part(w, c, part[t].now, part[t].base, n);
		if (rc < 0)
			return -1;
	}
	return 0;
}

uint64_t mon_count_lost(void)
{
	return __atomic_load_n(&lost, __ATOMIC_RELAXED);
}

/* ---- the compiler's entry points --------------------------------------- */

/*
 * mcount / _mcount (gcc -pg) and __fentry__ (-mfentry) are the machine's:
 * lib/arch/ARCH/mcount.S saves the registers that may hold arguments of
 * the instrumented function and calls mon_count, with a fast path for an
 * arc at its home cell.  The layouts that fast path is written for: an arc
 * cell is {frompc, selfpc, count} of 8 bytes each (it is the file's record
 * too: monout_put_arcs streams the tables), mon_counting is compared as a
 * 32-bit word, __libc_single_threaded as a byte.
 */
_Static_assert(offsetof(struct monout_arc, frompc) == ARC_FROMPC, "mcount: arc frompc offset");
_Static_assert(offsetof(struct monout_arc, selfpc) == ARC_SELFPC, "mcount: arc selfpc offset");
_Static_assert(offsetof(struct monout_arc, count) == ARC_COUNT, "mcount: arc count offset");
_Static_assert(sizeof(struct monout_arc) == ARC_CELL, "mcount: arc cell is 24 bytes");
_Static_assert(sizeof(((struct monout_arc *)0)->count) == 8, "mcount: addq on the count");
_Static_assert(sizeof mon_counting == 4, "mcount: cmpl on mon_counting");
_Static_assert(sizeof __libc_single_threaded == 1, "mcount: cmpb on __libc_single_threaded");
_Static_assert(sizeof mon_arc_cell0 == 8, "mcount: movq of mon_arc_cell0");
_Static_assert(ARC_BITS0 <= 31, "mcount: andl keeps the index in 32 bits");

