/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * objhist.h — whole-process histograms, one per loaded object's executable
 * segment (private to libmon; see objhist.c).  Used by the layer that starts
 * profiling of a whole process (monrun's preload) and by the file writer.
 */
#ifndef MON_OBJHIST_H
#define MON_OBJHIST_H

#include <stddef.h>
#include <stdint.h>

#include "runtime.h"

/* Bins per bit of a histogram's touched map: one 4 KiB page of 32-bit bins. */
#define MON_OBJHIST_SPAN 1024

struct mon_objhist {
	uintptr_t lowpc;	/* runtime address of the first byte covered */
	uintptr_t highpc;	/* first runtime address past the segment */
	uintptr_t load_bias;	/* runtime address - ELF virtual address */
	unsigned shift;		/* each bin covers 1 << shift bytes */
	size_t nbins;		/* ((highpc - lowpc) >> shift) + 1 bins */
	uint32_t *bins;		/* tick counts, saturating at UINT32_MAX */
	uint64_t *touched;	/* bit k set once a tick hit bins [k * MON_OBJHIST_SPAN,
				 * (k + 1) * MON_OBJHIST_SPAN): the writer skips the rest */
	char *path;		/* object's path ("/proc/self/exe" target for the program) */
	unsigned char build_id[64];
	size_t build_id_len;	/* 0: the object has no GNU build ID */
	uint32_t set;		/* the object set it was first seen in (mon_objhist_set_now) */
};

/* The snapshot the tick path searches: n histograms sorted by lowpc. */
struct mon_objhist_set {
	size_t n;
	uint32_t gen;		/* 0 for the first snapshot, + 1 for each later one */
	struct mon_objhist *h[];
};

/*
 * The object set now: the number of the snapshot the tick path searches
 * (0 before the first, and for the first; one more for each later snapshot,
 * made when objects were loaded).  A PC sampled now belongs to the object
 * covering it whose `set` is the largest not above this number (two objects
 * may have covered the same addresses one after the other: dlclose, then
 * dlopen).  Async-signal-safe (one atomic load); for the other sinks that
 * keep PCs (stacks.c), so that they resolve them as the histograms did.
 */
MON_HIDDEN uint32_t mon_objhist_set_now(void);

/*
 * Start whole-process sampling: a histogram for every executable segment of
 * every loaded object, bytes_per_bin rounded down to a power of two (2..65536;
 * 4 is a good default), and the profiling clock running in every thread.
 * Returns 0, or -1/errno (ENOMEM, ENOTSUP: no clock).
 */
MON_HIDDEN int mon_objhist_start(unsigned bytes_per_bin);
/* Add histograms for objects loaded since (dlopen calls this itself).
 * Returns 1 when it added some, 0 when none were new, -1/errno (ENOMEM
 * also when some new objects got theirs and others did not: those are
 * tried again at the next refresh). */
MON_HIDDEN int mon_objhist_refresh(void);
/*
 * Objects are being loaded: called from a library's _init (crti.o's call
 * of __gmon_start__, autostart.c), before its constructors, while dlopen
 * (or the C library's own loading of an NSS or iconv module) holds the
 * loader's lock.  Gives the new objects histograms and unwind tables now,
 * so that their constructors' samples are theirs (they were "[jit]" code
 * in no object, stacks ending there), but waits for no lock: another
 * thread holding the runtime's may be waiting for the loader's (fork's
 * handlers), and then this does nothing and dlopen's own refresh, when it
 * returns, does it.  Errno is kept.
 */
MON_HIDDEN void mon_objhist_loading(void);
/* Stop sampling into the object histograms (their counts stay). */
MON_HIDDEN void mon_objhist_stop(void);
MON_HIDDEN int mon_objhist_running(void);
/* Zero every bin (in a fork child, whose profile holds its own time). */
MON_HIDDEN void mon_objhist_reset(void);
/* Write what no object file describes: the vDSO's function symbols (SYMS
 * for OBJECT vdso_object at load bias vdso_bias; MONOUT_NO_OBJECT: none),
 * the samples at PCs in no object (PCS) and their names from the program's
 * /tmp/perf-PID.map (SYMS for no object).  Async-signal-safe; one writer
 * at a time.  0, or -1/errno of the writer. */
struct monout_writer;
MON_HIDDEN int mon_objhist_put_extra(struct monout_writer *w, uint32_t vdso_object,
				     uint64_t vdso_bias);
/* Every histogram made so far, including those of unloaded objects;
 * *n receives the count.  Counts may still grow while running. */
MON_HIDDEN struct mon_objhist *const *mon_objhist_all(size_t *n);

#endif /* MON_OBJHIST_H */
