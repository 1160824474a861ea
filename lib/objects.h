/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * objects.h — the loaded objects: the one walk of dl_iterate_phdr(3) that
 * the object histograms (objhist.c) and the profile's object list
 * (monitor.c) share (private to libmon; see objects.c).
 */
#ifndef MON_OBJECTS_H
#define MON_OBJECTS_H

#include <stddef.h>
#include <stdint.h>

#include "runtime.h"

struct dl_phdr_info;

/* One loaded object, as the walk gives it to its callback. */
struct mon_object_info {
	const struct dl_phdr_info *phdr;	/* dl_iterate_phdr's: program headers,
						 * load bias (dlpi_addr); valid in the callback */
	const char *path;	/* the program: /proc/self/exe's target (NULL when
				 * out of memory); the vDSO: its name ("linux-vdso.so.1",
				 * "[vdso]" when it has none); others: absolute (a
				 * relative dlopen name resolved through /proc/self/maps) */
	int main;		/* the program itself (the first object) */
	int vdso;		/* the kernel's vDSO (no file) */
};

/* Call fn(o, arg) for every loaded object, the program first, in
 * dl_iterate_phdr(3)'s order, under the dynamic linker's lock (fn must not
 * dlopen).  Stops at the first nonzero return of fn and returns it; 0 when
 * every object was seen.  Allocates (the program's path), so not
 * async-signal-safe. */
/* How many objects the loader has loaded so far, counting those unloaded
 * since (dl_iterate_phdr(3)'s dlpi_adds): it changes when one is loaded.
 * 0 when the C library does not say.  Looks at one object: cheap. */
MON_HIDDEN unsigned long long mon_objects_loads(void);
MON_HIDDEN int mon_objects_each(int (*fn)(const struct mon_object_info *o, void *arg), void *arg);

/* The GNU build ID of a loaded object, read from its PT_NOTE segments in
 * memory: copies at most cap bytes to out and returns the length copied,
 * 0 when the object has none. */
MON_HIDDEN size_t mon_build_id(const struct dl_phdr_info *info, unsigned char *out, size_t cap);

/* 1 when a loaded object carries Go's build ID note (an executable or a
 * -buildmode=c-shared library of Go's: its runtime is in the process),
 * else 0.  *preempt: the address of that runtime's asyncPreempt, the
 * function its signal handler makes a goroutine call to preempt it (from
 * the object's symbol table, read from its file), or 0 when Go's runtime
 * is not here or its file has no symbol table (stripped: go build
 * -ldflags=-s).  Opens and maps the file for a moment; not
 * async-signal-safe. */
MON_HIDDEN int mon_objects_go_runtime(uintptr_t *preempt);

/* What tells the file of loaded object oi from a rebuilt one, for an
 * object without a build ID (mon.out(5), FILES): *size and *mtime_ns
 * (bytes; nanoseconds since the Epoch) from stat(2) of oi->path, and
 * *text_crc, the CRC-32 of the bytes of its executable PT_LOAD segments as
 * loaded (p_filesz each, program-header order: the code that runs, read
 * in memory; segments without PF_R are left out).  Returns the flags that
 * hold: MONOUT_FILE_STAT (stat succeeded), MONOUT_FILE_TEXT; 0 for the
 * vDSO or an object without a path.  Normal context (not a handler). */
MON_HIDDEN unsigned mon_object_file_id(const struct mon_object_info *oi, uint64_t *size,
				       uint64_t *mtime_ns, uint32_t *text_crc);

/* The program's own path, in mon_alloc memory (the caller frees it): the
 * name it was run by (AT_EXECFN made absolute) when that is /proc/self/exe's
 * file under another name (a symbolic link; not /proc/... or /dev/fd/...),
 * or names another ELF file (a program run through the dynamic loader), or
 * /proc is missing; else /proc/self/exe's target.  Found at the first call
 * and kept for the process image.  NULL if unknown or out of memory. */
MON_HIDDEN char *mon_self_exe(void);

/* Parse hexadecimal digits at *p (an optional 0x first) into *out; *p moves
 * past them.  1 if there was at least one digit, else 0. */
MON_HIDDEN int mon_hexval(const char **p, uint64_t *out);

#endif /* MON_OBJECTS_H */
