/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * unwind.h — the runtime's stack unwinder (private to libmon; see
 * unwind.c): walks a thread's user-space call stack from a signal's
 * ucontext_t, or from a register set, over tables compiled from each
 * loaded object's CFI (.eh_frame, located through PT_GNU_EH_FRAME; cfi.c)
 * when the object is loaded.  Linux; the machine's part in lib/arch/ARCH/.
 */
#ifndef MON_UNWIND_H
#define MON_UNWIND_H

#include <stddef.h>
#include <stdint.h>

#include "memread.h"
#include "runtime.h"

#define MON_STACK_TRUNCATED 1u	/* the walk ended before the outermost frame (unreadable memory,
				 * no unwind rule, a frame that does not move up the stack) */
#define MON_STACK_JIT 2u	/* the walk reached code in no loaded object and stopped there */
#define MON_STACK_DEPTH 4u	/* the walk stopped at the depth limit */

/* Walk the interrupted thread's user-space stack from a signal's ucontext_t.  Writes at most max PCs
 * to pcs, leaf first; returns how many (>= 1 when context != NULL and max >= 1); *flags gets
 * MON_STACK_*.  pcs[0] is the interrupted PC.  Every other entry is an address INSIDE the
 * instruction its frame was executing: the return address minus 1 for a caller, the exact
 * interrupted PC for a frame a signal interrupted (the walk goes through signal frames).
 * Async-signal-safe: no locks, no allocation, every memory read checked (never a fault).
 * Reentrant: several threads may walk at once.  errno is left as it was.  Before the first
 * mon_unwind_refresh every walk is pcs[0] alone, flagged MON_STACK_TRUNCATED. */
MON_HIDDEN unsigned mon_unwind(const void *context, uintptr_t *pcs, unsigned max, unsigned *flags);

/* A thread's registers where a walk starts, when they do not come from a
 * signal's ucontext_t (a blocked thread's, from /proc/self/task/TID/syscall:
 * proc(5), "the stack pointer and program counter"). */
struct mon_unwind_regs {
	uintptr_t pc;		/* where the thread is stopped: the walk's pcs[0], exact */
	uintptr_t sp;		/* its stack pointer */
	uintptr_t fp;		/* its frame pointer (rbp on x86-64), if known */
	uintptr_t lr;		/* its link register (aarch64's x30), if known; unused on a
				 * machine without one (x86-64) */
	unsigned known;		/* MON_REG_FP: fp is known; else it is not used until a frame
				 * restores it.  MON_REG_LR: lr is known; else a frame whose
				 * return address is still in it ends the walk, truncated */
};
#define MON_REG_FP 1u
#define MON_REG_LR 2u

/* Walk a stack from regs, reading memory only through mem (memread.h:
 * mon_memread_other for another thread's stack, which may change under the
 * walk: every read is checked, a read that fails ends the walk flagged
 * MON_STACK_TRUNCATED).  pcs, max, flags and the return value as
 * mon_unwind's: at most max PCs, leaf first, pcs[0] = regs->pc; returns 0
 * (flags MON_STACK_TRUNCATED, or MON_STACK_DEPTH when max is 0) when regs
 * or mem is NULL.  The walk reaches through signal frames (the memory
 * reader's at() is called, if set, when one moves to another stack).
 * Async-signal-safe, reentrant, no lock, no allocation; errno is left as it
 * was; may be called from any thread of the process, at any time after
 * mon_unwind_refresh (before: pcs[0] alone, flagged MON_STACK_TRUNCATED).
 * Stack use: a few hundred bytes. */
MON_HIDDEN unsigned mon_unwind_regs(const struct mon_unwind_regs *regs, struct mon_memreader *mem,
				    uintptr_t *pcs, unsigned max, unsigned *flags);

/* Compile the unwind tables (.eh_frame / .debug_frame CFI) of objects loaded since the last call
 * and publish them to mon_unwind.  Not async-signal-safe (allocates, takes the loader's lock
 * through dl_iterate_phdr).  Called when whole-process profiling starts and after dlopen.
 * Returns 0 or -1/errno (ENOMEM). */
MON_HIDDEN int mon_unwind_refresh(void);
/* The same, unless another thread is refreshing: then nothing, -1/EBUSY
 * (from a library's _init while dlopen holds the loader's lock, where
 * waiting could deadlock; the refresh after dlopen returns does it). */
MON_HIDDEN int mon_unwind_refresh_try(void);

/* For measurements and tests: the bytes of compiled tables (rows, in mon_alloc memory) kept for
 * objects whose path contains part (NULL: all), and in *ntables (may be NULL) how many such
 * tables are kept.  Tables are kept per file (path, build ID, PT_GNU_EH_FRAME): an object
 * loaded again reuses its table.  Not async-signal-safe. */
MON_HIDDEN size_t mon_unwind_table_bytes(const char *part, unsigned *ntables);

#endif /* MON_UNWIND_H */
