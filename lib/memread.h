/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * memread.h — checked reads of the program's memory for the stack walk
 * (private to libmon; see memread.c).  A reader knows a range it may read
 * directly (a stack verified mapped) and reads anything else through its
 * read function, which never faults: process_vm_readv(2) on our own pid
 * (EFAULT for an unmapped page).
 *
 * Two readers:
 *   mon_memread_self   the interrupted thread's own stack, from a signal
 *                      handler of that thread: the stack above sp is
 *                      verified once per thread and then read directly;
 *   mon_memread_other  another thread's stack (its memory may change or
 *                      go away under the reader): every read checked.
 * Async-signal-safe, reentrant (a reader lives on its caller's stack).
 */
#ifndef MON_MEMREAD_H
#define MON_MEMREAD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "runtime.h"

/* A function of the tick handler's path whose stack use must stay small and
 * bounded in every build: not instrumented by AddressSanitizer, whose
 * redzones around each local that has its address taken (the walk's
 * registers, the reader) would double its frames on the interrupted
 * thread's stack (tests/integ/stack_use.sh measures it).  Its reads are
 * checked by the reader, not by the sanitizer. */
#define MON_BOUNDED_STACK __attribute__((no_sanitize("address")))

struct mon_memreader {
	uintptr_t lo, hi;	/* [lo, hi) is read directly (lo == hi: nothing) */
	/* Read the 8 bytes at a into *out: 1 read, 0 not readable (never a fault).  Called for
	 * every address outside [lo, hi); may widen [lo, hi). */
	int (*read)(struct mon_memreader *r, uintptr_t a, uintptr_t *out);
	/* The walk went on to another stack at sp (a signal frame's): sets [lo, hi) for it.
	 * NULL: nothing is read directly. */
	void (*at)(struct mon_memreader *r, uintptr_t sp);
	pid_t pid;		/* for process_vm_readv: 0 until first needed */
};

/* The 8 bytes at a: 1 read into *out, 0 not readable.  Not instrumented by
 * the sanitizers: the direct reads are of other frames' stack slots
 * (AddressSanitizer's redzones among them), checked by the reader. */
__attribute__((no_sanitize("address", "thread"))) static inline int
mon_memread_word(struct mon_memreader *r, uintptr_t a, uintptr_t *out)
{
	if (a >= r->lo && a <= UINTPTR_MAX - 8 && a + 8 <= r->hi) {
		*out = *(const uintptr_t *)a;
		return 1;
	}
	return r->read(r, a, out);
}

/* A reader of this thread's own stack from sp (a signal handler of the
 * thread that was interrupted at sp).  Async-signal-safe. */
MON_HIDDEN void mon_memread_self(struct mon_memreader *r, uintptr_t sp);

/* A reader that checks every read (another thread's stack). */
MON_HIDDEN void mon_memread_other(struct mon_memreader *r);

/* Learn the process id and the main thread's stack top ("[stack]" in
 * /proc/self/maps).  Not async-signal-safe (opens a file); called outside
 * handlers (mon_unwind_refresh).  After fork(2), in the child. */
MON_HIDDEN void mon_memread_refresh(void);
MON_HIDDEN void mon_memread_forked(void);

#endif /* MON_MEMREAD_H */
