/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * unwind.c — the stack unwinder: the table cache and the walk.
 *
 * Four parts, each in its own place: cfi.c compiles .eh_frame bytes into
 * machine-neutral rows (a pure function); lib/arch/ARCH/ gives the
 * machine's registers, where a ucontext_t keeps them, its PLT and
 * signal-trampoline rules; memread.c reads the program's memory, every
 * read checked; this file keeps the compiled tables and walks.
 *
 * Compiling (mon_unwind_refresh, outside any handler).  For each loaded
 * object (objects.c's walk of dl_iterate_phdr(3)) PT_GNU_EH_FRAME gives
 * .eh_frame_hdr, whose eh_frame_ptr points at .eh_frame in memory (the
 * LSB's "Exception Frames"); .eh_frame ends at the end of its segment at
 * the latest.  An object without PT_GNU_EH_FRAME (a static program: gcc
 * -static links no .eh_frame_hdr here) has its .eh_frame found by its
 * file's section headers, read once (the section is loaded; only where
 * it lies is in the file).  cfi.c runs every FDE's CFA program into rows, kept sorted
 * by PC offset from the load bias.  A signal trampoline's row (an FDE
 * with augmentation 'S') gets the offset of the trampoline's code, found
 * by the machine's rule (arch.h).  Between FDEs a row says "no CFI":
 * there the frame pointer is followed, checked like every read.
 *
 * Tables are kept per file (path, build ID, PT_GNU_EH_FRAME's address, size
 * and a hash of its contents) in libmon's own memory (alloc.c), never freed:
 * an object loaded again (dlopen/dlclose in a loop) finds its table, so
 * memory grows with the distinct files only.  What walks read is a
 * snapshot: the objects' text ranges sorted, each with its load bias and
 * table, published with a release store.  A snapshot replaced is freed only
 * once no walk that may have read it is still running (two counters of
 * walkers, by parity of an epoch); a snapshot whose walkers do not drain in
 * time (a thread stopped in the handler) is kept, not freed.
 *
 * Walking (mon_unwind from a signal's ucontext, mon_unwind_regs from a
 * register set; both in walk()): per frame the object (binary search), the
 * row (binary search), the CFA, the return address and the saved frame
 * pointer, every read through a memory reader (memread.h).  A frame whose
 * CFA does not lie above the previous SP, or a read that fails, ends the
 * walk as truncated.  The signal trampoline means the kernel's signal
 * frame is at SP: its ucontext_t gives the interrupted registers and the
 * walk goes on there, with that frame's PC exact.  A PC in no object is
 * JIT code: recorded, flagged, the end.  The walk's own stack use is a few
 * hundred bytes (no arrays; tests/integ/stack_use.sh measures the handler's).
 *
 * Not done: .debug_frame (objects whose code has no .eh_frame fall back to
 * the frame pointer), DWARF expressions but the ones the machine knows.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "arch.h"
#include "cfi.h"
#include "memread.h"
#include "objects.h"
#include "runtime.h"
#include "unwind.h"

/* One compiled table, kept for the life of the process. */
struct utab {
	struct utab *next;
	char *path;
	unsigned char build_id[20];
	size_t build_id_len;
	uintptr_t hdr_vaddr, hdr_size;	/* PT_GNU_EH_FRAME's p_vaddr, p_memsz */
	uint64_t hdr_hash;		/* FNV-1a of .eh_frame_hdr's bytes */
	struct mon_cfi_row *rows;
	uint32_t nrows;
	size_t bytes;
	int compiled;		/* rows made (refresh's first pass publishes none) */
};

struct uobj {
	uintptr_t lo, hi;	/* runtime text range (executable PT_LOADs), hi excluded */
	uintptr_t bias;
	const struct mon_cfi_row *rows;
	uint32_t nrows;
	int interp;		/* the dynamic linker (loaded at AT_BASE) */
	uintptr_t init;		/* its _init (DT_INIT), runtime address; 0: none */
};

struct usnap {
	size_t n;
	struct uobj obj[];
};

static struct usnap *current;		/* published snapshot (release store) */
static unsigned long epoch;
static unsigned long walkers[2];	/* walks running, by parity of the epoch they saw */
static struct utab *tables;		/* every table compiled (refresh_lock) */
static pthread_mutex_t refresh_lock = PTHREAD_MUTEX_INITIALIZER;
#define RETIRED_MAX 64
static struct usnap *retired[RETIRED_MAX];	/* snapshots whose walkers did not drain */
static unsigned nretired;

/* ---- compiling an object's table ---------------------------------------- */

/* The object's loaded segments, to bound reads of pointers (indirect). */
static int in_object(const struct dl_phdr_info *info, uintptr_t a, size_t n)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && a >= lo && a + n >= a && a + n <= lo + ph->p_memsz)
			return 1;
	}
	return 0;
}

/* cfi.c's deref: an indirect pointer, read only inside the object. */
static int object_deref(void *arg, uint64_t addr, uint64_t *value)
{
	if (!in_object(arg, (uintptr_t)addr, sizeof(uintptr_t)))
		return 0;
	uintptr_t w;
	memcpy(&w, (const void *)(uintptr_t)addr, sizeof w);
	*value = w;
	return 1;
}

struct rowbuf {
	struct mon_cfi_row *r;
	size_t n, cap;
	uintptr_t bias;
	size_t signal;		/* 1 + the index of a signal row waiting for its FDE's end, or 0 */
};

/* cfi.c's emit: rows appended to a growing buffer in mon_alloc memory.  A
 * signal trampoline's row gets the offset of the trampoline's code, found
 * (arch.h) once the FDE's end is known (the MON_CFI_NONE row after it),
 * or becomes MON_CFI_STOP. */
static int push_row(void *arg, const struct mon_cfi_row *row)
{
	struct rowbuf *b = arg;
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 1024;
		struct mon_cfi_row *r = mon_realloc(b->r, cap * sizeof *r);
		if (r == NULL)
			return -1;
		b->r = r;
		b->cap = cap;
	}
	b->r[b->n++] = *row;
	if (row->kind == MON_CFI_SIGNAL) {
		b->signal = b->n;
	} else if (b->signal != 0) {
		struct mon_cfi_row *sr = &b->r[b->signal - 1];
		int at = row->pc > sr->pc ? mon_arch_sigreturn_at(b->bias + sr->pc, b->bias + row->pc)
					  : -1;
		if (at < 0)
			sr->kind = MON_CFI_STOP;
		else
			sr->cfa_off = at;
		b->signal = 0;
	}
	return 0;
}

/* FNV-1a over 8-byte words (the tail bytewise). */
static uint64_t fnv(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull, w;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ull;
	}
	for (; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* Where the object's .eh_frame lies in memory, from its file's section
 * headers (path; the program's: /proc/self/exe): *frame its address,
 * *size its bytes.  For an object without PT_GNU_EH_FRAME.  The file must
 * be the one mapped: the section's bytes in it are the bytes in memory (a
 * program run by naming ld.so has ld.so for /proc/self/exe; a library may
 * have been replaced or deleted since it was loaded).  One descriptor,
 * close-on-exec, closed before returning.  Returns 0, or -1. */
static int eh_frame_by_sections(const struct dl_phdr_info *info, const char *path, int main,
				uint64_t *frame, uint64_t *size)
{
	int fd = open(main || path == NULL || path[0] != '/' ? "/proc/self/exe" : path,
		      O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = -1;
	ElfW(Ehdr) eh;
	ElfW(Shdr) *sh = NULL;
	char *names = NULL;
	if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
	    eh.e_shentsize != sizeof *sh || eh.e_shnum == 0 || eh.e_shnum > 4096 ||
	    eh.e_shstrndx >= eh.e_shnum)
		goto out;
	size_t shbytes = (size_t)eh.e_shnum * sizeof *sh;
	if ((sh = mon_alloc(shbytes)) == NULL ||
	    pread(fd, sh, shbytes, (off_t)eh.e_shoff) != (ssize_t)shbytes)
		goto out;
	const ElfW(Shdr) *st = &sh[eh.e_shstrndx];
	if (st->sh_size == 0 || st->sh_size > (1u << 20) || (names = mon_alloc(st->sh_size + 1)) == NULL ||
	    pread(fd, names, st->sh_size, (off_t)st->sh_offset) != (ssize_t)st->sh_size)
		goto out;
	names[st->sh_size] = '\0';
	for (unsigned i = 0; i < eh.e_shnum; i++)
		if (sh[i].sh_name < st->sh_size && strcmp(names + sh[i].sh_name, ".eh_frame") == 0 &&
		    (sh[i].sh_flags & SHF_ALLOC) && sh[i].sh_type == SHT_PROGBITS &&
		    sh[i].sh_size > 0 && sh[i].sh_size <= (64u << 20) &&
		    in_object(info, info->dlpi_addr + sh[i].sh_addr, sh[i].sh_size)) {
			size_t n = (size_t)sh[i].sh_size;
			uint8_t *b = mon_alloc(n);
			if (b != NULL && pread(fd, b, n, (off_t)sh[i].sh_offset) == (ssize_t)n &&
			    memcmp(b, (const void *)(info->dlpi_addr + sh[i].sh_addr), n) == 0) {
				*frame = info->dlpi_addr + sh[i].sh_addr;
				*size = sh[i].sh_size;
				rc = 0;
			}
			mon_free(b);
			break;
		}
out:
	mon_free(names);
	mon_free(sh);
	close(fd);
	return rc;
}

/* Compile the object's .eh_frame into t->rows (none when it cannot be
 * read or memory runs out: the object is then walked no further): found
 * through .eh_frame_hdr (hdrph), else by the file's section headers. */
static void compile(const struct dl_phdr_info *info, const ElfW(Phdr) *hdrph,
		    const struct mon_object_info *o, uintptr_t lo, uintptr_t hi, struct utab *t)
{
	uint64_t frame, nfde = 0, size = 0;
	if (hdrph != NULL) {
		const uint8_t *hdr = (const uint8_t *)(info->dlpi_addr + hdrph->p_vaddr);
		if (mon_cfi_eh_frame_hdr(hdr, hdrph->p_memsz, (uintptr_t)hdr, object_deref,
					 (void *)info, &frame, &nfde) < 0 ||
		    !in_object(info, (uintptr_t)frame, 4))
			return;
	} else if (o->vdso || eh_frame_by_sections(info, o->path, o->main, &frame, &size) < 0) {
		return;
	}
	/* .eh_frame ends at the end of its segment at the latest (its
	 * terminator, a zero length, ends it earlier). */
	uintptr_t limit = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t slo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && frame >= slo && frame < slo + ph->p_filesz)
			limit = slo + ph->p_filesz;
	}
	if (limit == 0)
		return;
	if (size != 0 && frame + size < limit)
		limit = frame + size;	/* the section's own end */
	struct rowbuf b = { NULL, 0, 0, info->dlpi_addr, 0 };
	/* Room for a row per two bytes of .eh_frame, with room to spare: a
	 * row needs an advance and a rule (two bytes at least), an FDE a
	 * dozen bytes for at most two rows of its own.  Only the pages the
	 * rows fill are touched, and the rest is given back once they are
	 * in; growing the buffer instead copies it into new pages (glibc
	 * 2.36: 3 713 FDEs, over 5 rows each). */
	size_t want = (limit - (uintptr_t)frame) / 2 + 1024;
	if (want < ((size_t)1 << 26)) {
		b.r = mon_alloc(want * sizeof *b.r);
		b.cap = b.r ? want : 0;
	}
	struct mon_cfi_input in = {
		.data = (const uint8_t *)(uintptr_t)frame,
		.len = limit - (uintptr_t)frame,
		.vaddr = frame,
		.text_lo = lo,
		.text_hi = hi,
		.base = info->dlpi_addr,
		.machine = &mon_arch_cfi,
		.deref = object_deref,
		.deref_arg = (void *)info,
	};
	/* In the search table's order first: sorted as they come (see
	 * mon_cfi_compile_by_table); in .eh_frame's order, then sorted,
	 * where there is no table, it cannot be used, or FDEs overlap. */
	long got = -2;
	size_t nmarks = mon_cfi_table_marks(in.len);
	uint64_t *marks = hdrph != NULL ? mon_alloc(nmarks * sizeof *marks) : NULL;
	if (marks != NULL) {
		got = mon_cfi_compile_by_table(&in, (const uint8_t *)(info->dlpi_addr + hdrph->p_vaddr),
					       hdrph->p_memsz, info->dlpi_addr + hdrph->p_vaddr,
					       marks, nmarks, push_row, &b);
		mon_free(marks);
		if (got >= 0 && !mon_cfi_sorted(b.r, b.n))
			got = -2;
		if (got == -2)
			b.n = b.signal = 0;
	}
	if (got == -2)
		got = mon_cfi_compile(&in, push_row, &b);
	if (got < 0) {
		mon_free(b.r);
		return;
	}
	if (!mon_cfi_sorted(b.r, b.n)) {
		/* In mon_alloc memory: qsort(3) may call the program's malloc. */
		struct mon_cfi_row *tmp = mon_alloc(b.n * sizeof *tmp);
		if (tmp == NULL) {
			mon_free(b.r);
			return;
		}
		mon_cfi_sort(b.r, tmp, b.n);
		mon_free(tmp);
	}
	b.n = mon_cfi_squeeze(b.r, b.n);
	if (b.n == 0) {
		mon_free(b.r);
		return;
	}
	/* Shrink to fit, in place: a copy would fault in as many new pages. */
	mon_shrink(b.r, b.n * sizeof *b.r);
	t->rows = b.r;
	t->nrows = (uint32_t)b.n;
	t->bytes = b.n * sizeof *b.r;
}

/* ---- refresh: the objects, their tables, the snapshot ------------------ */

struct collect {
	struct uobj *obj;
	size_t n, cap;
	int nomem;
	int defer;		/* new objects: listed with no rows, compiled by a second pass */
	int deferred;		/* some were */
};

static int each_object(const struct mon_object_info *o, void *arg)
{
	struct collect *col = arg;
	const struct dl_phdr_info *info = o->phdr;
	uintptr_t lo = UINTPTR_MAX, hi = 0, init = 0;
	const ElfW(Phdr) *hdrph = NULL;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_DYNAMIC) {
			/* DT_INIT: an address ld.so leaves unrelocated in place
			 * (glibc elf/dl-init.c adds l_addr when it calls it). */
			for (const ElfW(Dyn) *d = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr);
			     d->d_tag != DT_NULL; d++)
				if (d->d_tag == DT_INIT && d->d_un.d_ptr != 0)
					init = info->dlpi_addr + d->d_un.d_ptr;
		} else if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && ph->p_memsz > 0) {
			uintptr_t a = info->dlpi_addr + ph->p_vaddr;
			if (a < lo)
				lo = a;
			if (a + ph->p_memsz > hi)
				hi = a + ph->p_memsz;
		} else if (ph->p_type == PT_GNU_EH_FRAME) {
			hdrph = ph;
		}
	}
	if (lo >= hi || hi - info->dlpi_addr > UINT32_MAX)
		return 0;	/* no code, or offsets that do not fit a row */
	unsigned char id[20];
	size_t idlen = mon_build_id(info, id, sizeof id);
	uintptr_t hv = hdrph ? hdrph->p_vaddr : 0, hs = hdrph ? hdrph->p_memsz : 0;
	uint64_t hh = hdrph ? fnv((const uint8_t *)(info->dlpi_addr + hv), hs) : 0;
	const char *path = o->path ? o->path : "";
	struct utab *t;
	for (t = tables; t != NULL; t = t->next)
		if (t->hdr_vaddr == hv && t->hdr_size == hs && t->hdr_hash == hh &&
		    t->build_id_len == idlen && memcmp(t->build_id, id, idlen) == 0 &&
		    strcmp(t->path, path) == 0)
			break;
	if (t == NULL) {
		t = mon_alloc(sizeof *t);
		char *p = mon_strdup(path);
		if (t == NULL || p == NULL) {
			mon_free(t);
			mon_free(p);
			col->nomem = 1;
			return 0;
		}
		t->path = p;
		memcpy(t->build_id, id, idlen);
		t->build_id_len = idlen;
		t->hdr_vaddr = hv;
		t->hdr_size = hs;
		t->hdr_hash = hh;
		t->next = tables;
		tables = t;
	}
	if (!t->compiled) {
		if (col->defer) {
			col->deferred = 1;
		} else {
			compile(info, hdrph, o, lo, hi, t);
			t->compiled = 1;
		}
	}
	if (col->n == col->cap) {
		size_t cap = col->cap ? col->cap * 2 : 32;
		struct uobj *a = mon_realloc(col->obj, cap * sizeof *a);
		if (a == NULL) {
			col->nomem = 1;
			return 0;
		}
		col->obj = a;
		col->cap = cap;
	}
	struct uobj *u = &col->obj[col->n++];
	u->lo = lo;
	u->hi = hi;
	u->bias = info->dlpi_addr;
	u->rows = t->rows;
	u->nrows = t->nrows;
	u->interp = info->dlpi_addr != 0 && info->dlpi_addr == getauxval(AT_BASE);
	u->init = init >= lo && init < hi ? init : 0;
	return 0;
}

/* fork(2) while another thread compiles: the child gets the lock free. */
static void fork_prepare(void)
{
	pthread_mutex_lock(&refresh_lock);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&refresh_lock);
}

static void fork_child(void)
{
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
	memcpy(&refresh_lock, &fresh, sizeof refresh_lock);
	walkers[0] = walkers[1] = 0;	/* the other threads' walks are not in the child */
	mon_memread_forked();
}

__attribute__((constructor)) void mon_unwind_init(void)
{
	MON_ONCE();
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}

static int refresh_tables(int try);


int mon_unwind_refresh(void)
{
	return refresh_tables(0);
}

int mon_unwind_refresh_try(void)
{
	return refresh_tables(1);
}

/* Publish the objects col holds as the walk's snapshot, and free the one
 * it replaces once no walk holds it.  Under refresh_lock.  0 or -1/ENOMEM. */
static int publish(struct collect *col)
{
	struct usnap *s = col->nomem ? NULL : mon_alloc(sizeof *s + col->n * sizeof(struct uobj));
	if (s == NULL) {
		mon_free(col->obj);
		return mon_fail(ENOMEM);
	}
	/* Sorted by text address (insertion sort: tens of objects). */
	for (size_t i = 0; i < col->n; i++) {
		size_t j = i;
		while (j > 0 && s->obj[j - 1].lo > col->obj[i].lo) {
			s->obj[j] = s->obj[j - 1];
			j--;
		}
		s->obj[j] = col->obj[i];
	}
	s->n = col->n;
	mon_free(col->obj);
	struct usnap *old = __atomic_exchange_n(&current, s, __ATOMIC_SEQ_CST);
	unsigned long e = __atomic_load_n(&epoch, __ATOMIC_SEQ_CST);
	__atomic_store_n(&epoch, e + 1, __ATOMIC_SEQ_CST);
	if (old != NULL) {
		/* Walks that may hold old counted in walkers[e & 1]; new ones see
		 * the new epoch and snapshot.  Wait (bounded) for them. */
		int drained = 0;
		for (int i = 0; i < 100000; i++) {
			if (__atomic_load_n(&walkers[e & 1], __ATOMIC_SEQ_CST) == 0) {
				drained = 1;
				break;
			}
			sched_yield();
		}
		if (drained)
			mon_free(old);
		else if (nretired < RETIRED_MAX)
			retired[nretired++] = old;	/* kept: a walk may still read it */
		/* else: leaked on purpose, for the same reason. */
	}
	return 0;
}

/* Two passes when objects are new: their ranges first, with no rows (a
 * walk through them goes by frame pointer and mon_arch_nocfi_cfa_off, as
 * through code without CFI), then their compiled rows.  Compiling takes
 * milliseconds, and from a library's _init during dlopen (autostart.c) the
 * samples taken meanwhile have that library's _init on their stack: with
 * the library unknown they stopped there as "[jit]" code. */
static int refresh_tables(int try)
{
	int saved_errno = errno;
	if (!try)
		pthread_mutex_lock(&refresh_lock);
	else if (pthread_mutex_trylock(&refresh_lock) != 0)
		return mon_fail(EBUSY);
	mon_memread_refresh();
	int rc = 0;
	for (int defer = 1; defer >= 0 && rc == 0; defer--) {
		struct collect col = { NULL, 0, 0, 0, defer, 0 };
		mon_objects_each(each_object, &col);
		if (defer && !col.deferred) {
			mon_free(col.obj);	/* nothing new: the second pass publishes */
			continue;
		}
		rc = publish(&col);
	}
	pthread_mutex_unlock(&refresh_lock);
	if (rc == 0)
		errno = saved_errno;
	return rc;
}

size_t mon_unwind_table_bytes(const char *part, unsigned *ntables)
{
	size_t bytes = 0;
	unsigned n = 0;
	pthread_mutex_lock(&refresh_lock);
	for (const struct utab *t = tables; t != NULL; t = t->next)
		if (part == NULL || strstr(t->path, part) != NULL) {
			bytes += t->bytes;
			n++;
		}
	pthread_mutex_unlock(&refresh_lock);
	if (ntables)
		*ntables = n;
	return bytes;
}


/* ---- the walk ---------------------------------------------------------- */

static const struct uobj *find_obj(const struct usnap *s, uintptr_t pc)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->obj[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const struct uobj *o = &s->obj[lo - 1];
	return pc < o->hi ? o : NULL;
}

#define RD(a, out) mon_memread_word(r, (a), (out))

/* How far above SP fp_search looks for a frame's record: a frame's locals
 * between its SP at a call and its frame pointer (bytes). */
#define FP_SEARCH_BYTES 4096u

/* Is ra, a word read from the stack, a return address into a frame that
 * called the frame at callee_look (0: not known)?  It must lie in an
 * object's text where the CFI has a row (returned), right after a call
 * instruction (mon_arch_after_call); a direct call's target in the
 * callee's object must be at or below callee_look, where a row starts (a
 * function's entry), or in a PLT; in another object, a stub (not a
 * function's entry).  A code pointer kept in a frame's locals
 * (a callback: a function's start, not after a call) or a stale return
 * address of another call site fails.  NULL when it is not. */
static const struct mon_cfi_row *return_row(const struct usnap *s, struct mon_memreader *r,
					    uintptr_t ra, uintptr_t callee_look)
{
	const struct uobj *o = find_obj(s, ra - 1);
	uintptr_t before;
	if (o == NULL || !RD(ra - 8, &before) || !mon_arch_after_call((uint64_t)before))
		return NULL;
	const struct mon_cfi_row *row = mon_cfi_find(o->rows, o->nrows, (uint32_t)(ra - 1 - o->bias));
	if (row == NULL || row->kind == MON_CFI_NONE)
		return NULL;
	uintptr_t t = mon_arch_call_target(ra, (uint64_t)before);
	if (t == 0 || callee_look == 0)
		return row;
	const struct uobj *to = find_obj(s, t);
	if (to == NULL)
		return NULL;	/* a call to no code */
	const struct mon_cfi_row *tr = mon_cfi_find(to->rows, to->nrows, (uint32_t)(t - to->bias));
	int entry = tr != NULL && tr->pc == (uint32_t)(t - to->bias);	/* a row starts there */
	if (tr != NULL && tr->kind == MON_CFI_PLT)
		return row;
	if (to != find_obj(s, callee_look)) {
		/* Another object is reached through a stub (a PLT row, or
		 * inside a stub section's one FDE, or code without CFI), not
		 * by a call to a function's entry: PostgreSQL's walk once took
		 * a stale return address after libm's call of its own ldexp
		 * helper for the caller of postgres code. */
		return entry && tr->kind != MON_CFI_NONE ? NULL : row;
	}
	if (t > callee_look || !entry)
		return NULL;
	return row;
}

/* The frame pointer of the frame at look (the walk's PC there, sp its SP)
 * whose row says its CFA is FP-based, when no frame below saved it: a
 * blocked thread's walk from the SP and PC of proc(5)'s syscall file,
 * which gives no RBP.  The frame's record (the caller's FP and the return
 * address, at the row's fp_off and ra_off from the CFA) lies above sp,
 * past its locals.  Candidates from sp up, 8 bytes apart, within
 * FP_SEARCH_BYTES: the first whose return address passes return_row and
 * whose caller's frame (its row's CFA, from the saved FP where that is
 * FP-based) holds a return address that passes too, or ends the stack.
 * 1 and *fp, or 0 (the walk ends truncated, as without the search). */
__attribute__((noinline)) static int fp_search(const struct usnap *s, struct mon_memreader *r,
					       uintptr_t look, uintptr_t sp,
					       const struct mon_cfi_row *row, uintptr_t *fp)
{
	for (uintptr_t b = (sp + 7) & ~(uintptr_t)7; b - sp < FP_SEARCH_BYTES; b += 8) {
		uintptr_t cfa = b + (uintptr_t)(intptr_t)row->cfa_off, ra, saved = 0, cfa2, ra2;
		if (cfa <= sp)
			continue;
		if (!RD(cfa + (uintptr_t)(intptr_t)row->ra_off, &ra))
			return 0;	/* past the stack's end */
		ra = mon_arch_strip_ra(ra);
		const struct mon_cfi_row *cr = return_row(s, r, ra, look);
		if (cr == NULL || (cr->aux & MON_CFI_RA_REG))
			continue;
		int saved_known = (row->aux & MON_CFI_FP_SAVED) &&
				  RD(cfa + (uintptr_t)(intptr_t)row->fp_off, &saved);
		if (cr->kind == MON_CFI_END) {
			*fp = b;
			return 1;
		}
		if (cr->kind == MON_CFI_SP)
			cfa2 = cfa + (uintptr_t)(intptr_t)cr->cfa_off;
		else if (cr->kind == MON_CFI_FP && saved_known && saved > b)
			cfa2 = saved + (uintptr_t)(intptr_t)cr->cfa_off;
		else
			continue;
		if (cfa2 <= cfa || !RD(cfa2 + (uintptr_t)(intptr_t)cr->ra_off, &ra2))
			continue;
		ra2 = mon_arch_strip_ra(ra2);
		if (ra2 == 0 || return_row(s, r, ra2, ra - 1) != NULL) {
			*fp = b;
			return 1;
		}
	}
	return 0;
}

/* The CFA's offset from SP in an object's _init at return address ra, by
 * the code there (mon_arch_nocfi_cfa_off), or 0. */
MON_BOUNDED_STACK static int init_cfa_off(struct mon_memreader *r, uintptr_t ra)
{
	uintptr_t w[(MON_ARCH_INIT_CODE + sizeof(uintptr_t) - 1) / sizeof(uintptr_t)];
	for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
		if (!RD(ra + i * sizeof w[0], &w[i]))
			return 0;
	return mon_arch_nocfi_cfa_off((const uint8_t *)w, sizeof w);
}

/* The walk from (pc exact, sp, fp if fp_known, the link register lr if
 * lr_known: a machine with one, arch.h's MON_ARCH_HAS_LR), reading
 * through r: see mon_unwind.  Stack use: these locals only. */
MON_BOUNDED_STACK static unsigned walk(uintptr_t pc, uintptr_t sp, uintptr_t fp, int fp_known,
				       int search, uintptr_t lr, int lr_known, struct mon_memreader *r,
				       uintptr_t *pcs, unsigned max, unsigned *flags)
{
	unsigned fl = 0, n = 0;
	int exact = 1;
	/* Count ourselves a walker of the epoch we saw (see refresh). */
	unsigned long e;
	for (;;) {
		e = __atomic_load_n(&epoch, __ATOMIC_SEQ_CST);
		__atomic_add_fetch(&walkers[e & 1], 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&epoch, __ATOMIC_SEQ_CST) == e)
			break;
		__atomic_sub_fetch(&walkers[e & 1], 1, __ATOMIC_SEQ_CST);
	}
	const struct usnap *s = __atomic_load_n(&current, __ATOMIC_ACQUIRE);
	if (s == NULL) {
		pcs[n++] = pc;
		fl |= MON_STACK_TRUNCATED;
		goto out;
	}
	for (;;) {
		if (n == max) {
			fl |= MON_STACK_DEPTH;
			break;
		}
		uintptr_t look = exact ? pc : pc - 1;
		const struct uobj *o = find_obj(s, look);
		if (o == NULL) {
			pcs[n++] = look;
			/* A library's _init that dlopen is running, before the
			 * runtime publishes the library (libmon's own work there,
			 * autostart.c): crti's code after the call says its
			 * frame, as in a known object's _init below.  Not code a
			 * JIT made: "[jit]" in 1-2 % of python3's samples. */
			uintptr_t ra;
			int off;
			if (!exact && (off = init_cfa_off(r, pc)) != 0 &&
			    RD(sp + (uintptr_t)off + MON_ARCH_RA_CFA_OFF, &ra) && ra != 0) {
				sp += (uintptr_t)off;
				pc = mon_arch_strip_ra(ra);
				continue;
			}
			fl |= MON_STACK_JIT;
			break;
		}
		const struct mon_cfi_row *row = mon_cfi_find(o->rows, o->nrows,
							     (uint32_t)(look - o->bias));
		unsigned kind = row ? row->kind : MON_CFI_NONE;
		if (kind == MON_CFI_SIGNAL) {
			uintptr_t at = o->bias + row->pc + (uint32_t)row->cfa_off;
			if (exact ? pc - at < MON_ARCH_SIGRETURN_LEN : pc == at) {
				/* The kernel's signal frame: ucontext_t at sp. */
				uintptr_t npc, nsp, nfp, nlr = 0;
				pcs[n++] = pc;
				if (!RD(sp + MON_ARCH_UC_PC, &npc) || !RD(sp + MON_ARCH_UC_SP, &nsp) ||
				    !RD(sp + MON_ARCH_UC_FP, &nfp) ||
				    (MON_ARCH_HAS_LR && !RD(sp + MON_ARCH_UC_LR, &nlr))) {
					fl |= MON_STACK_TRUNCATED;
					break;
				}
				pc = npc;
				sp = nsp;
				fp = nfp;
				fp_known = 1;
				lr = nlr;
				lr_known = MON_ARCH_HAS_LR;
				exact = 1;
				if ((sp < r->lo || sp >= r->hi) && r->at != NULL)
					r->at(r, sp);	/* another stack (sigaltstack) */
				continue;
			}
			kind = MON_CFI_STOP;
		}
		pcs[n++] = look;
		uintptr_t cfa, ra, nfp = fp;
		int nfp_known = fp_known;
		int ra_in_lr = kind != MON_CFI_NONE && (row->aux & MON_CFI_RA_REG);
		switch (kind) {
		case MON_CFI_END:
			goto out;
		case MON_CFI_SP:
			cfa = sp + (uintptr_t)(intptr_t)row->cfa_off;
			break;
		case MON_CFI_FP:
			if (!fp_known) {
				if (!search || !fp_search(s, r, look, sp, row, &fp))
					goto truncated;
				nfp = fp;	/* unless the row says where it saved it */
				fp_known = nfp_known = 1;
			}
			cfa = fp + (uintptr_t)(intptr_t)row->cfa_off;
			break;
		case MON_CFI_PLT:
			cfa = mon_arch_plt_cfa(sp, pc, row->cfa_off, row->fp_off);
			break;
		case MON_CFI_DEREF:
			if (!fp_known || !RD(fp + (uintptr_t)(intptr_t)row->cfa_off, &cfa))
				goto truncated;
			break;
		case MON_CFI_NONE:
			/* No CFI.  A machine whose PLT stubs have none (aarch64)
			 * and leave the return address in the link register: the
			 * stub's frame is empty. */
			if (MON_ARCH_HAS_LR && exact && lr_known && mon_arch_in_plt(pc)) {
				cfa = sp;
				ra_in_lr = 1;
				break;
			}
			/* A frame pointer of 0 in the dynamic linker's code without
			 * CFI: the outermost frame, as the psABI has a program mark
			 * it (x86-64 psABI 3.4.1, %rbp; AAPCS64 6.2.3, the frame
			 * chain's end).  The kernel starts a process with every
			 * register 0 and ld.so's _start and _dl_start_user, which
			 * run the libraries' constructors, have no CFI and leave it
			 * so: those stacks are whole, not ended early.  Only there:
			 * elsewhere code built without CFI and frame pointers may
			 * hold 0 in the register (a reviewer's XOR accumulator), and
			 * the stack ended early. */
			if (o->interp && fp_known && fp == 0)
				goto out;
			/* An object's _init (crti.o: no CFI), through which libmon
			 * starts (autostart.c): its frame, by the code after the
			 * call, whatever the frame pointer holds (a pointer into
			 * the stack, in call_init's frame). */
			uintptr_t saved;
			int off;
			if (!exact && o->init && look >= o->init && look - o->init < MON_ARCH_INIT_LEN &&
			    (off = init_cfa_off(r, pc)) != 0) {
				cfa = sp + (uintptr_t)off;
				break;
			}
			/* A return address that no call pushed: the byte before
			 * it has no CFI and a row starts exactly at it.
			 * makecontext(3) leaves one at the bottom of a context's
			 * stack (glibc's __start_context, which the context's
			 * function returns into): nothing above it is a frame,
			 * and the frame pointer there is whatever getcontext
			 * saved (the creator's, on another stack).  The walk
			 * ends; prof reads the PC as that function's and the
			 * stack as whole (attribute.c, pushed_return). */
			const struct mon_cfi_row *at;
			if (!exact &&
			    (at = mon_cfi_find(o->rows, o->nrows, (uint32_t)(pc - o->bias))) != NULL &&
			    at->pc == (uint32_t)(pc - o->bias) && at->kind != MON_CFI_NONE)
				goto truncated;
			/* Else the frame pointer, if it looks like one. */
			if (fp_known && fp >= sp && !(fp & 7) && RD(fp, &saved)) {
				nfp = saved;
				cfa = fp + MON_ARCH_FP_CFA_OFF;
				nfp_known = 1;
				break;
			}
			goto truncated;
		default:
			goto truncated;
		}
		/* The return address: in the link register (a leaf, or a prologue
		 * before it saves it: the frame may be empty, CFA = SP), or in
		 * memory at CFA + ra_off (the frame record's for a frame walked by
		 * its frame pointer), above the previous SP. */
		if (ra_in_lr) {
			if (!lr_known || cfa < sp)
				goto truncated;
			ra = lr;
		} else if (cfa <= sp ||
			   !RD(cfa + (uintptr_t)(intptr_t)(kind == MON_CFI_NONE ? MON_ARCH_RA_CFA_OFF
										: row->ra_off),
			       &ra)) {
			goto truncated;
		}
		/* The caller's link register is not known: it made a call, which
		 * set it, so its own return address is in its frame. */
		lr_known = 0;
		ra = mon_arch_strip_ra(ra);
		unsigned fpaux = kind != MON_CFI_NONE ? row->aux & (MON_CFI_FP_SAVED | MON_CFI_FP_AT_FP |
								      MON_CFI_FP_LOST)
						      : 0;
		if (fpaux) {
			if (fpaux & MON_CFI_FP_SAVED)
				nfp_known = RD(cfa + (uintptr_t)(intptr_t)row->fp_off, &nfp);
			else if (fpaux & MON_CFI_FP_AT_FP)
				nfp_known = fp_known && RD(fp + (uintptr_t)(intptr_t)row->fp_off, &nfp);
			else
				nfp_known = 0;
		}
		if (ra == 0)
			break;	/* the outermost frame */
		pc = ra;
		sp = cfa;
		fp = nfp;
		fp_known = nfp_known;
		exact = 0;
		continue;
truncated:
		fl |= MON_STACK_TRUNCATED;
		break;
	}
out:
	__atomic_sub_fetch(&walkers[e & 1], 1, __ATOMIC_RELEASE);
	if (flags)
		*flags = fl;
	return n;
}

MON_BOUNDED_STACK unsigned mon_unwind(const void *context, uintptr_t *pcs, unsigned max, unsigned *flags)
{
	if (context == NULL || max == 0) {
		if (flags)
			*flags = context == NULL ? MON_STACK_TRUNCATED : MON_STACK_DEPTH;
		return 0;
	}
	int saved_errno = errno;
	uintptr_t sp = mon_arch_context_sp(context);
	struct mon_memreader r;
	mon_memread_self(&r, sp);
	unsigned n = walk(mon_arch_context_pc(context), sp, mon_arch_context_fp(context), 1, 0,
			  mon_arch_context_lr(context), MON_ARCH_HAS_LR, &r, pcs, max, flags);
	errno = saved_errno;
	return n;
}

MON_BOUNDED_STACK unsigned mon_unwind_regs(const struct mon_unwind_regs *regs, struct mon_memreader *mem,
			 uintptr_t *pcs, unsigned max, unsigned *flags)
{
	if (regs == NULL || mem == NULL || max == 0) {
		if (flags)
			*flags = max == 0 ? MON_STACK_DEPTH : MON_STACK_TRUNCATED;
		return 0;
	}
	int saved_errno = errno;
	int known_fp = (regs->known & MON_REG_FP) != 0;
	unsigned n = walk(regs->pc, regs->sp, regs->fp, known_fp, !known_fp, regs->lr,
			  MON_ARCH_HAS_LR && (regs->known & MON_REG_LR) != 0, mem, pcs, max, flags);
	errno = saved_errno;
	return n;
}
