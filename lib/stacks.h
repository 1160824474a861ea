/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stacks.h — the call stacks of whole-process profiling (private to libmon;
 * see stacks.c): a bounded, preallocated, lock-free table of unique
 * (thread, flags, PCs) with a sample count each, filled from the tick path
 * and written as mon.out's STACKS record.
 */
#ifndef MON_STACKS_H
#define MON_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "runtime.h"

/* MONPROF_STACK_DEPTH unset: 256 PCs, from bench/stacks_depth.sh (docs/
 * performance.md, "Stack depth limit"): a walk costs per frame it walks, so
 * a limit above a stack's depth costs that stack nothing; a python3 whose C
 * stacks reach 170 frames had 57 % of its samples cut at 64, 19 % at 128,
 * none at 256, for 1.2 / 2.6 / 6.6 us of walk on a stack deeper than all,
 * against a tick's 60 us in the kernel; the table maps 33.25 MiB of address
 * space (backed only where stacks are stored: +0.9 MiB RSS measured). */
#define MON_STACK_DEPTH_DEFAULT 256u
#define MON_STACK_DEPTH_MAX 512u	/* PCs kept per stack at most */
/* MONPROF_STACK_TABLE unset: unique stacks at most, the most there may be.
 * A compile by clang++ of 1100 CPU-seconds at 6000 Hz (6.4 million
 * samples, twice an hour's at 1000 Hz) made 1.95 million different stacks
 * (bench/clang_hour.sh; docs/performance.md section 20): with 1048576 in
 * all, 72 % of its samples lost their stack. */
#define MON_STACKS_DEFAULT (1u << 22)
#define MON_STACKS_FIRST 16384u		/* the first table's (grown up to the setting) */
#define MON_STACKS_MIN 16u
#define MON_STACKS_MAX (1u << 22)

/* ---- the table (also used directly by tests/unit/test_stacks.c) ---------- */

struct mon_stack_table;

/*
 * A table for at most max_stacks unique stacks (MON_STACKS_MIN ..
 * MON_STACKS_MAX) of at most depth PCs each (1 .. MON_STACK_DEPTH_MAX):
 * 2 * max_stacks rounded up to a power of two slots of 40 bytes, and a pool
 * of max_stacks * depth 8-byte PCs, all mapped now (pages are only backed
 * once touched).  NULL with errno EINVAL or ENOMEM.  Not async-signal-safe.
 */
MON_HIDDEN struct mon_stack_table *mon_stack_table_new(unsigned max_stacks, unsigned depth);
MON_HIDDEN void mon_stack_table_free(struct mon_stack_table *t);

/* The bytes mon_stack_table_new maps for these sizes. */
MON_HIDDEN size_t mon_stack_table_bytes(unsigned max_stacks, unsigned depth);

/*
 * Count weight samples for the stack pcs[0..n) (leaf first) of thread tid,
 * with flags MON_STACK_* (unwind.h).  n is cut to the table's depth (then
 * MON_STACK_DEPTH is added to flags); n == 0 is a stack of no frame.  An
 * identical (tid, flags, PCs) already there gets the weight added; else a
 * free slot is claimed with a compare-and-swap and the PCs copied to the
 * pool (atomic bump index).  No room (no free slot within the probe limit,
 * or the pool exhausted): the weight goes to lost.  Returns 1 counted,
 * 0 lost.  Async-signal-safe and reentrant: no lock, no allocation; any
 * number of threads at once.  Two threads adding the same new stack at the
 * same moment may make two entries (a reader adds them up).
 */
MON_HIDDEN int mon_stack_table_add(struct mon_stack_table *t, uint64_t tid, unsigned flags,
				   const uintptr_t *pcs, unsigned n, uint64_t weight);
/* The same, for samples taken in object set `set` (objhist.h's
 * mon_objhist_set_now): entries of different sets never merge, and the
 * writer puts each set's in a STACKS record of its own, so that a reader
 * resolves their PCs against the objects loaded when they were taken.
 * mon_stack_table_add is this with set 0. */
MON_HIDDEN int mon_stack_table_add_in(struct mon_stack_table *t, uint32_t set, uint64_t tid,
				      unsigned flags, const uintptr_t *pcs, unsigned n,
				      uint64_t weight);

/* Every entry: fn(count, tid, flags, pcs, depth, arg); a nonzero return
 * stops and is returned.  Entries being filled at that moment are left out.
 * Async-signal-safe (reads only). */
MON_HIDDEN int mon_stack_table_each(const struct mon_stack_table *t,
				    int (*fn)(uint64_t count, uint64_t tid, uint32_t flags,
					      const uint64_t *pcs, uint32_t depth, void *arg),
				    void *arg);

/* Samples with no room; samples of entries flagged MON_STACK_TRUNCATED;
 * entries in use; the table's depth and capacity. */
MON_HIDDEN uint64_t mon_stack_table_lost(const struct mon_stack_table *t);
MON_HIDDEN uint64_t mon_stack_table_truncated(const struct mon_stack_table *t);
MON_HIDDEN unsigned mon_stack_table_used(const struct mon_stack_table *t);
MON_HIDDEN unsigned mon_stack_table_depth(const struct mon_stack_table *t);
MON_HIDDEN unsigned mon_stack_table_capacity(const struct mon_stack_table *t);

/* Empty it (no tick may be adding: a fork child before its clocks run). */
MON_HIDDEN void mon_stack_table_reset(struct mon_stack_table *t);
/* The slots' mapping (slots, then the map of groups with a claimed slot):
 * its address in *at, its length in bytes returned.  For the tests. */
MON_HIDDEN size_t mon_stack_table_slot_map(const struct mon_stack_table *t, const void **at);

/* ---- the runtime's stacks (monitor.c) ------------------------------------ */

/* The depth MONPROF_STACK_DEPTH asks (0 = no stacks), and the table size
 * MONPROF_STACK_TABLE asks; valid by then (settings.c checked them). */
MON_HIDDEN unsigned mon_stacks_depth_setting(void);
MON_HIDDEN unsigned mon_stacks_table_setting(void);

/*
 * Start recording a stack for every sample the sampler takes (its observer
 * sink, slot MON_SINK_STACKS): the table is made the first time (its size
 * from the settings), the unwinder's tables compiled (mon_unwind_refresh:
 * an object it has no memory for is walked no further, flagged truncated).
 * Depth 0: nothing, returns 0.  Returns 0 or -1/errno (ENOMEM: no table;
 * profiling goes on without stacks).  Takes mon_lock().
 */
MON_HIDDEN int mon_stacks_start(void);
/* Stop recording (the table keeps its counts).  Takes mon_lock(). */
MON_HIDDEN void mon_stacks_stop(void);
/* Objects were loaded (dlopen): compile their unwind tables.  early: from
 * a loaded library's _init, dlopen still running: only if no other thread
 * is compiling (mon_unwind_refresh_try).  Returns 0 when the tables are
 * current (or stacks were never set up), -1 when not (a lock was busy, no
 * memory, or stacks set up but not recording now). */
MON_HIDDEN int mon_stacks_loaded(int early);
/* Empty the table (fork child, before its clocks run; takes no lock). */
MON_HIDDEN void mon_stacks_reset(void);

/* 1: a control thread will call mon_stacks_grow (control.c, before
 * profiling starts); 0: the first table is all there is. */
MON_HIDDEN void mon_stacks_set_grower(int yes);
/* Grow (see stacks.c): when the table ticks add to is three quarters full,
 * retire it and give the ticks one of twice its size.  Returns 1 grown, 0
 * not needed (or at the bound), -1/ENOMEM.  Not from a signal handler;
 * takes mon_lock(). */
MON_HIDDEN int mon_stacks_grow(void);
/* An interval ends (control.c, under monitor.c's writer lock): every
 * table is set aside for mon_stacks_put and the ticks get a fresh one;
 * _end frees the ones set aside.  0 or -1/ENOMEM (then nothing changed:
 * the interval's file holds the tables as they are).  Take mon_lock(). */
MON_HIDDEN int mon_stacks_cut_begin(void);
MON_HIDDEN void mon_stacks_cut_end(void);
/* Entries in use, capacity and lost samples over the tables of the run
 * (or interval), how many times the table grew, and the most entries the
 * tables may hold in all (MONPROF_STACK_TABLE as read at the start; 0
 * before). */
MON_HIDDEN void mon_stacks_usage(uint64_t *used, uint64_t *capacity, uint64_t *lost,
				 uint64_t *grew, uint64_t *most);

/* The runtime's table (NULL until stacks first started); for tests. */
MON_HIDDEN const struct mon_stack_table *mon_stacks_table(void);

/* Write the STACKS record (none when stacks were never on).  Async-signal-
 * safe; one writer at a time.  0 or -1/errno of the writer. */
struct monout_writer;
MON_HIDDEN int mon_stacks_put(struct monout_writer *w);

#endif /* MON_STACKS_H */
