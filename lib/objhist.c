/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * objhist.c — whole-process histograms: one per loaded object.
 *
 * profil(2) samples one contiguous range of text.  A whole process (what
 * monrun profiles) is the executable plus every shared object, scattered
 * over the address space, so here each executable segment of each loaded
 * object (dl_iterate_phdr) gets a histogram of its own, of 32-bit bins
 * covering 1 << shift bytes each.  The tick path finds the object by binary
 * search in an immutable, sorted snapshot published through one atomic
 * pointer; objects loaded later (dlopen) make a new snapshot.  The tick path
 * is a sink of the sampler (sampler.h), after profil()'s.  Snapshots
 * and histograms are never freed while the process runs: a handler may
 * still hold an old snapshot, and the file writer needs the histograms of
 * objects that were unloaded.  The memory is mmap'ed (zero pages cost
 * nothing until a bin is hit).
 *
 * A PC in no loaded object is code in anonymous executable memory (a JIT's)
 * or in a mapping the dynamic linker does not know: such samples are kept
 * per PC in a small lock-free table (open addressing, a compare-and-swap
 * claims a slot) and written as mon.out's PCS record, with the names the
 * program gave that code in /tmp/perf-PID.map (the convention perf reads,
 * tools/perf/Documentation/jit-interface.txt) as a SYMS record.  The vDSO is
 * not a file a report could read: its function symbols are copied from
 * memory into a SYMS record of its own.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <sys/auxv.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mon.h"
#include "monout.h"
#include "objects.h"
#include "objhist.h"
#include "runtime.h"
#include "sampler.h"

static struct mon_objhist_set *current;	/* published to the tick path */
static struct mon_objhist **all;	/* every histogram ever made, in order */
static size_t nall, capall;
static unsigned bin_shift = 2;
static int started;

/* Samples at PCs in no object: {pc, count} slots, pc 0 = free. */
#define MON_ANON_SLOTS 16384u
#define MON_ANON_PROBES 64u
static struct monout_call *anon;
static uint64_t *anon_sorted;	/* scratch for the writer: the sampled PCs, sorted */
/* Slots taken since the table was last zeroed (at least: a slot is
 * counted once taken): with none, the writer need not read the table's
 * 64 pages, which a short process would fault in for nothing. */
static unsigned anon_taken;

static int anon_tick(uintptr_t pc, uint64_t weight)
{
	struct monout_call *t = __atomic_load_n(&anon, __ATOMIC_ACQUIRE);
	if (t == NULL || pc == 0)
		return 0;
	uint64_t h = ((uint64_t)pc * 0x9e3779b97f4a7c15ull) >> 50;	/* 14 bits */
	for (unsigned i = 0; i < MON_ANON_PROBES; i++) {
		struct monout_call *c = &t[(h + i) & (MON_ANON_SLOTS - 1)];
		/* A compare-and-swap first, not a load (first_write below):
		 * on failure it gives the slot's PC.  (The __sync forms here
		 * return the value seen: no local whose address is taken, which
		 * AddressSanitizer gives a frame of its own on the tick's path,
		 * stack_use.sh stack_use_altstack_*.) */
		uint64_t cur = __sync_val_compare_and_swap(&c->selfpc, 0, (uint64_t)pc);
		if (cur == 0) {
			__atomic_add_fetch(&anon_taken, 1, __ATOMIC_RELEASE);
			cur = pc;
		}
		if (cur == pc) {
			__atomic_add_fetch(&c->count, weight, __ATOMIC_RELAXED);
			return 1;
		}
	}
	return 0;	/* table full around this PC: the caller counts it dropped */
}

/* The bins, the anonymous table and the span map are zero-fill pages,
 * backed as ticks first reach them.  A tick's first access to such a page
 * is a write (a compare-and-swap, which faults as a write even when it
 * fails), never a load: a page first read is mapped to the kernel's shared
 * zero page, and the write after it replaces that with a copy and flushes
 * the page from the TLB of every CPU the process runs on (an IPI to each:
 * in a VM here 1 to 3.5 ms of a handler, perf record -g, do_wp_page under
 * charge and mon_stack_table_add_in).  Under the itimer clock a handler
 * that long is still running at the kernel's next tick, whose SIGPROF
 * then goes to another thread, one waiting in nanosleep ending with EINTR
 * (tests/integ/monrun_itimer_stolen.sh itimer_runtime_no_eintr: 10 runs of
 * 40 here; kernel/signal.c complete_signal).  A write to a page never
 * mapped takes a fresh zeroed page and flushes nothing. */
static void *zalloc(size_t size)
{
	void *p = mmap(NULL, size ? size : 1, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static int charge(const struct mon_objhist_set *set, uintptr_t pc, uint64_t weight);

/* The sink (sampler.h): off until started; a PC in a loaded object's
 * segment is charged to its bin, any other to the anonymous table; outside
 * only when that table has no room for it. */
static int take(const struct mon_sample *s, uint64_t *saturated)
{
	(void)saturated;	/* 32-bit bins saturate without counting (objhist.h) */
	if (!__atomic_load_n(&started, __ATOMIC_ACQUIRE))
		return MON_SINK_OFF;
	const struct mon_objhist_set *set = __atomic_load_n(&current, __ATOMIC_ACQUIRE);
	if (set == NULL)
		return MON_SINK_OFF;
	return charge(set, s->pc, s->weight) ? MON_SINK_TAKEN : MON_SINK_OUTSIDE;
}

static const struct mon_sink sink = { take, 0 };

/* Charge weight ticks to the histogram holding pc, or the anonymous table:
 * 1 if done, 0 if neither had room. */
static int charge(const struct mon_objhist_set *set, uintptr_t pc, uint64_t weight)
{
	size_t lo = 0, hi = set->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct mon_objhist *h = set->h[mid];
		if (pc < h->lowpc)
			hi = mid;
		else if (pc >= h->highpc)
			lo = mid + 1;
		else {
			uint32_t *bin = &h->bins[(pc - h->lowpc) >> h->shift];
			uint32_t old = 0, seen;	/* no load first (zalloc) */
			for (;;) {
				uint32_t new = UINT32_MAX - old < weight ? UINT32_MAX : old + (uint32_t)weight;
				seen = __sync_val_compare_and_swap(bin, old, new);	/* (anon_tick) */
				if (seen == old)
					break;
				old = seen;
			}
			size_t k = ((pc - h->lowpc) >> h->shift) / MON_OBJHIST_SPAN;
			uint64_t bit = (uint64_t)1 << (k % 64);
			if (!(__atomic_load_n(&h->touched[k / 64], __ATOMIC_RELAXED) & bit))
				__atomic_fetch_or(&h->touched[k / 64], bit, __ATOMIC_RELAXED);
			return 1;
		}
	}
	return anon_tick(pc, weight);
}

static int known(uintptr_t lowpc, uintptr_t highpc, const char *path)
{
	const struct mon_objhist_set *set = current;
	for (size_t i = 0; set && i < set->n; i++)
		if (set->h[i]->lowpc == lowpc && set->h[i]->highpc == highpc &&
		    strcmp(set->h[i]->path, path) == 0)
			return 1;
	return 0;
}

struct scan {
	struct mon_objhist **found;
	size_t n, cap;
	int err;
};

static int add_segments(const struct mon_object_info *o, void *arg);

/* One histogram per executable segment of object o (mon_objects_each). */
static int add_segments(const struct mon_object_info *o, void *arg)
{
	struct scan *sc = arg;
	const struct dl_phdr_info *info = o->phdr;
	const char *name = o->path != NULL ? o->path : "";
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || ph->p_memsz == 0)
			continue;
		uintptr_t lowpc = info->dlpi_addr + ph->p_vaddr;
		uintptr_t highpc = lowpc + ph->p_memsz;
		lowpc &= ~(((uintptr_t)1 << bin_shift) - 1);
		if (known(lowpc, highpc, name))
			continue;
		struct mon_objhist *h = mon_alloc(sizeof *h);
		size_t nbins = ((highpc - lowpc) >> bin_shift) + 1;
		size_t nwords = (nbins / MON_OBJHIST_SPAN) / 64 + 1;
		if (h == NULL || (h->path = mon_strdup(name)) == NULL ||
		    (h->bins = zalloc(nbins * sizeof *h->bins)) == NULL ||
		    (h->touched = zalloc(nwords * sizeof *h->touched)) == NULL) {
			if (h)
				mon_free(h->path);
			mon_free(h);
			sc->err = ENOMEM;
			return 1;
		}
		/* The span map is read by every tick: backed now, by writes
		 * (zalloc). */
		memset(h->touched, 0, nwords * sizeof *h->touched);
		h->lowpc = lowpc;
		h->highpc = highpc;
		h->load_bias = info->dlpi_addr;
		h->shift = bin_shift;
		h->nbins = nbins;
		h->build_id_len = mon_build_id(info, h->build_id, sizeof h->build_id);
		if (sc->n == sc->cap) {
			size_t cap = sc->cap ? 2 * sc->cap : 16;
			struct mon_objhist **f = mon_realloc(sc->found, cap * sizeof *f);
			if (f == NULL) {
				mon_free(h->path);
				mon_free(h);
				sc->err = ENOMEM;
				return 1;
			}
			sc->found = f;
			sc->cap = cap;
		}
		sc->found[sc->n++] = h;
	}
	return 0;
}

/* Insertion sort by lowpc (qsort may call the program's malloc). */
static void sort_by_lowpc(struct mon_objhist **h, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct mon_objhist *x = h[i];
		size_t j = i;
		for (; j > 0 && h[j - 1]->lowpc > x->lowpc; j--)
			h[j] = h[j - 1];
		h[j] = x;
	}
}

/* The loader's count of objects loaded when refresh last scanned them
 * (mon_objects_loads): mon_objhist_loading scans only when it changed. */
static unsigned long long loads_seen;

/* Scan the loaded objects and publish a snapshot with the new ones.
 * Histograms of objects whose range a new one overlaps leave the lookup
 * (the old object was unloaded) but stay in the full list.  Under lock.
 * Returns 1 when it added some, 0 when none were new, -1/errno.  *missed
 * (if not NULL) 1 when some new object got no histogram (no memory for it)
 * though others did, else 0. */
static int refresh_and(int *missed)
{
	__atomic_store_n(&loads_seen, mon_objects_loads(), __ATOMIC_RELAXED);	/* before the scan */
	struct scan sc = { NULL, 0, 0, 0 };
	mon_objects_each(add_segments, &sc);
	if (missed)
		*missed = sc.err != 0;
	if (sc.err && sc.n == 0) {
		mon_free(sc.found);
		return mon_fail(sc.err);
	}
	if (sc.n == 0) {
		mon_free(sc.found);
		return 0;
	}
	const struct mon_objhist_set *old = current;
	size_t nold = old ? old->n : 0;
	struct mon_objhist_set *set = zalloc(sizeof *set + (nold + sc.n) * sizeof set->h[0]);
	if (set != NULL)
		set->gen = old ? old->gen + 1 : 0;
	if (nall + sc.n > capall) {
		size_t cap = (nall + sc.n) * 2;
		struct mon_objhist **a = mon_realloc(all, cap * sizeof *a);
		if (a == NULL)
			set = NULL;
		else {
			all = a;
			capall = cap;
		}
	}
	if (set == NULL) {
		mon_free(sc.found);
		return mon_fail(ENOMEM);
	}
	for (size_t i = 0; i < sc.n; i++) {
		sc.found[i]->set = set->gen;
		all[nall++] = sc.found[i];
		set->h[set->n++] = sc.found[i];
	}
	for (size_t i = 0; i < nold; i++) {
		const struct mon_objhist *o = old->h[i];
		int overlapped = 0;
		for (size_t j = 0; j < sc.n; j++)
			if (o->lowpc < sc.found[j]->highpc && sc.found[j]->lowpc < o->highpc)
				overlapped = 1;
		if (!overlapped)
			set->h[set->n++] = old->h[i];
	}
	mon_free(sc.found);
	sort_by_lowpc(set->h, set->n);
	__atomic_store_n(&current, set, __ATOMIC_RELEASE);
	return 1;
}

static int refresh(void)
{
	return refresh_and(NULL);
}

uint32_t mon_objhist_set_now(void)
{
	const struct mon_objhist_set *set = __atomic_load_n(&current, __ATOMIC_ACQUIRE);
	return set ? set->gen : 0;
}

int mon_objhist_start(unsigned bytes_per_bin)
{
	int rc = 0;
	mon_lock();
	if (!started) {
		unsigned shift = 0;
		while (shift < 16 && (2u << shift) <= bytes_per_bin)
			shift++;
		if (all == NULL)
			bin_shift = shift ? shift : 1;
		if (anon == NULL) {
			anon_sorted = zalloc(MON_ANON_SLOTS * sizeof *anon_sorted);
			__atomic_store_n(&anon, anon_sorted ? zalloc(MON_ANON_SLOTS * sizeof *anon)
							    : NULL, __ATOMIC_RELEASE);
		}
		rc = refresh() < 0 ? -1 : 0;
		if (rc == 0) {
			mon_sampler_set_sink(MON_SINK_OBJHIST, &sink);
			__atomic_store_n(&started, 1, __ATOMIC_RELEASE);
			if (mon_sampling_acquire(MON_USER_OBJHIST) < 0) {
				__atomic_store_n(&started, 0, __ATOMIC_RELEASE);
				rc = -1;
			}
		}
	}
	mon_unlock();
	return rc;
}

int mon_objhist_refresh(void)
{
	int rc = 0, missed = 0;
	mon_lock();
	if (started)
		rc = refresh_and(&missed);
	mon_unlock();
	return missed ? mon_fail(ENOMEM) : rc;
}

void mon_objhist_stop(void)
{
	mon_lock();
	if (started) {
		/* The clocks stop first, then the histograms: a tick never
		 * finds them off while a clock runs for them. */
		mon_sampling_release(MON_USER_OBJHIST);
		mon_sampler_quiesce();
		__atomic_store_n(&started, 0, __ATOMIC_RELEASE);
	}
	mon_unlock();
}

void mon_objhist_reset(void)
{
	/* The bins are private anonymous mappings: dropping their pages gives
	 * zero pages back without copying the parent's (fork child). */
	long pg = sysconf(_SC_PAGESIZE);
	size_t page = pg > 0 ? (size_t)pg : 4096;
	for (size_t i = 0; i < nall; i++) {
		size_t len = (all[i]->nbins * sizeof all[i]->bins[0] + page - 1) & ~(page - 1);
		if (madvise(all[i]->bins, len, MADV_DONTNEED) != 0)
			memset(all[i]->bins, 0, all[i]->nbins * sizeof all[i]->bins[0]);
		size_t nwords = (all[i]->nbins / MON_OBJHIST_SPAN) / 64 + 1;
		memset(all[i]->touched, 0, nwords * sizeof all[i]->touched[0]);
	}
	if (anon != NULL) {
		/* The count first: a slot taken meanwhile is counted after it. */
		__atomic_store_n(&anon_taken, 0, __ATOMIC_RELEASE);
		mon_zero_pages(anon, MON_ANON_SLOTS * sizeof *anon);	/* zalloc's: private anonymous */
	}
}

/* ---- what no file describes: anonymous code, the vDSO ------------------- */

static void sift(uint64_t *v, size_t i, size_t n)
{
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			return;
		if (c + 1 < n && v[c + 1] > v[c])
			c++;
		if (v[i] >= v[c])
			return;
		uint64_t t = v[i];
		v[i] = v[c];
		v[c] = t;
		i = c;
	}
}

/* Heapsort: no allocation, so the writer stays async-signal-safe. */
static void sort_u64(uint64_t *v, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift(v, i, n);
	for (size_t k = n; k-- > 1;) {
		uint64_t t = v[0];
		v[0] = v[k];
		v[k] = t;
		sift(v, 0, k);
	}
}

static int any_in(const uint64_t *v, size_t n, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = n;
	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (v[m] < lo)
			a = m + 1;
		else
			b = m;
	}
	return a < n && v[a] < hi;
}

struct perfmap {
	struct monout_writer *w;
	const uint64_t *pcs;	/* the sampled anonymous PCs, sorted */
	size_t npcs;
};

/* One line of a perf map, "START SIZE name" (hex, hex, the rest): written
 * as a SYMS entry when a sampled PC lies in it.  mon_fd_each_line's
 * callback: always 0 (go on). */
static int perfmap_line(char *l, size_t len, void *arg)
{
	(void)len;
	const struct perfmap *pm = arg;
	const char *c = l;
	uint64_t start, size;
	if (!mon_hexval(&c, &start) || *c != ' ')
		return 0;
	c++;
	if (!mon_hexval(&c, &size) || *c != ' ' || size == 0)
		return 0;
	c++;
	if (*c != '\0' && any_in(pm->pcs, pm->npcs, start, start + size))
		monout_syms_add(pm->w, start, size, c, (uint32_t)strlen(c));
	return 0;
}

/* /tmp/perf-PID.map, read through a fixed buffer. */
static void perfmap_put(struct monout_writer *w, const uint64_t *pcs, size_t npcs)
{
	char path[64] = "/tmp/perf-";
	char *p = mon_put_dec(path + 10, (uint64_t)getpid());
	memcpy(p, ".map", 5);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	struct perfmap pm = { w, pcs, npcs };
	if (monout_syms_open(w, MONOUT_NO_OBJECT) == 0) {
		mon_fd_each_line(fd, perfmap_line, &pm);
		monout_syms_close(w);
	}
	close(fd);
}

static int32_t s32(const unsigned char *p)
{
	int32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* The functions the vDSO's unwind table separates that no .dynsym symbol
 * starts (its internal helpers): SYMS entries with an empty name, so that a
 * report gives them rows of their own ([vdso]+0xSTART) instead of lumping
 * them with the symbol before.  From .eh_frame_hdr's binary-search table
 * (LSB, "Exception Frame Header"): pairs of (initial location, FDE address)
 * encoded DW_EH_PE_datarel | DW_EH_PE_sdata4 (0x3b); each FDE's PC range
 * follows its PC begin (encoded DW_EH_PE_pcrel | DW_EH_PE_sdata4, 0x1b,
 * checked against the table). */
static void vdso_fdes(struct monout_writer *w, const ElfW(Ehdr) *eh, const ElfW(Shdr) *sh,
		      uint64_t bias, const ElfW(Sym) *sym, size_t nsym)
{
	const unsigned char *base = (const unsigned char *)eh;
	const char *names = (const char *)base + sh[eh->e_shstrndx].sh_offset;
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if (eh->e_shstrndx >= eh->e_shnum || strcmp(names + sh[i].sh_name, ".eh_frame_hdr") != 0)
			continue;
		const unsigned char *hdr = base + sh[i].sh_offset;
		if (sh[i].sh_size < 12 || hdr[0] != 1 || hdr[2] != 0x03 || hdr[3] != 0x3b)
			return;
		uint32_t count;
		memcpy(&count, hdr + 8, 4);
		if (12 + (uint64_t)count * 8 > sh[i].sh_size)
			return;
		for (uint32_t k = 0; k < count; k++) {
			const unsigned char *e = hdr + 12 + k * 8;
			uint64_t start = (uint64_t)(sh[i].sh_addr + (int64_t)s32(e));
			const unsigned char *fde = hdr + s32(e + 4);
			uint64_t begin = (uint64_t)(fde - base) + 8 + (uint64_t)(int64_t)s32(fde + 8);
			if (begin != start)
				continue;	/* not the encoding assumed */
			uint32_t range;
			memcpy(&range, fde + 12, 4);
			int named = 0;
			for (size_t j = 0; j < nsym && !named; j++)
				named = sym[j].st_value == start && ELF64_ST_TYPE(sym[j].st_info) == STT_FUNC;
			if (!named && range > 0)
				monout_syms_add(w, bias + start, range, "", 0);
		}
		return;
	}
}

/* The vDSO's function symbols from its image in memory (its section
 * headers and .dynsym are mapped with it: getauxval(AT_SYSINFO_EHDR),
 * vdso(7)). */
static void vdso_put(struct monout_writer *w, uint32_t object, uint64_t bias)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)getauxval(AT_SYSINFO_EHDR);
	if (eh == NULL || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_shoff == 0 ||
	    eh->e_shentsize != sizeof(ElfW(Shdr)))
		return;
	const char *base = (const char *)eh;
	const ElfW(Shdr) *sh = (const ElfW(Shdr) *)(const void *)(base + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum ||
		    sh[i].sh_entsize != sizeof(ElfW(Sym)))
			continue;
		const ElfW(Sym) *sym = (const ElfW(Sym) *)(const void *)(base + sh[i].sh_offset);
		const char *str = base + sh[sh[i].sh_link].sh_offset;
		size_t strsz = sh[sh[i].sh_link].sh_size;
		size_t n = sh[i].sh_size / sizeof *sym;
		if (monout_syms_open(w, object) < 0)
			return;
		for (size_t k = 0; k < n; k++) {
			if (ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC || sym[k].st_value == 0 ||
			    sym[k].st_shndx == SHN_UNDEF || sym[k].st_name >= strsz)
				continue;
			const char *nm = str + sym[k].st_name;
			size_t len = strnlen(nm, strsz - sym[k].st_name);
			monout_syms_add(w, bias + sym[k].st_value, sym[k].st_size, nm, (uint32_t)len);
		}
		vdso_fdes(w, eh, sh, bias, sym, n);
		monout_syms_close(w);
		return;
	}
}

int mon_objhist_put_extra(struct monout_writer *w, uint32_t vdso_object, uint64_t vdso_bias)
{
	if (vdso_object != MONOUT_NO_OBJECT)
		vdso_put(w, vdso_object, vdso_bias);
	struct monout_call *t = __atomic_load_n(&anon, __ATOMIC_ACQUIRE);
	if (t == NULL || __atomic_load_n(&anon_taken, __ATOMIC_ACQUIRE) == 0)
		return w->error ? -1 : 0;
	size_t n = 0;
	for (size_t i = 0; i < MON_ANON_SLOTS; i++) {
		uint64_t pc = __atomic_load_n(&t[i].selfpc, __ATOMIC_ACQUIRE);
		if (pc != 0 && __atomic_load_n(&t[i].count, __ATOMIC_RELAXED) != 0)
			anon_sorted[n++] = pc;
	}
	if (n == 0)
		return w->error ? -1 : 0;
	if (monout_put_pcs(w, t, MON_ANON_SLOTS) < 0)
		return -1;
	sort_u64(anon_sorted, n);
	perfmap_put(w, anon_sorted, n);
	return w->error ? -1 : 0;
}

int mon_objhist_running(void)
{
	return __atomic_load_n(&started, __ATOMIC_RELAXED);
}

struct mon_objhist *const *mon_objhist_all(size_t *n)
{
	*n = nall;
	return all;
}

/* The loader's count of objects loaded (mon_objects_loads) read before the
 * last refresh after a dlopen that brought everything up to date: the
 * histograms, the unwind tables and the file's object list.  A dlopen that
 * loads nothing (the object is open already: the loader only raises its
 * count; RTLD_NOLOAD; dlopen(NULL)) leaves the count where it was and
 * needs no refresh, which read /proc/self/maps four times: 14 system
 * calls where the C library makes none (a plug-in host reopening its
 * plug-ins; two threads opening one library in turns made 16 thousand
 * dlopen calls in 3 s instead of 10 million; tests/integ/guest_dlopen.sh). */
static unsigned long long loads_current;

/* dlopen — the C library's, then the new objects get histograms when
 * whole-process profiling is on.  Same arguments, results and errors as
 * dlopen(3); dlerror() is untouched. */
/* dlopen's work after the C library's, out of line (as loading_take_in
 * below: no guarded local in dlopen's own frame).  The profiler's work,
 * not the program's (a plug-in's tables: 7.6 % of nginx's profile was
 * NSS's module, loaded by initgroups). */
__attribute__((noinline)) static void dlopen_take_in(unsigned long long loads)
{
	struct mon_own_work own;
	mon_clock_own_begin(&own);
	int whole = mon_objhist_refresh() >= 0;
	if (mon_hooks.after_dlopen && !mon_hooks.after_dlopen(0))
		whole = 0;
	/* Only forward: a later dlopen may have stored more. */
	unsigned long long was = __atomic_load_n(&loads_current, __ATOMIC_RELAXED);
	while (whole && loads != 0 && was < loads &&
	       !__atomic_compare_exchange_n(&loads_current, &was, loads, 1, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED))
		;
	mon_clock_own_end(&own);
}

MON_EXPORT void *dlopen(const char *file, int mode)
{
	static void *(*real_dlopen)(const char *, int);
	if (real_dlopen == NULL)
		real_dlopen = (void *(*)(const char *, int))mon_libc_next("dlopen");
	if (real_dlopen == NULL)
		return NULL;
	void *h = real_dlopen(file, mode);
	/* A Go library (-buildmode=c-shared) brings Go's runtime and its
	 * goroutine stacks: ticks go to the alternate stack from now on
	 * (sigguard.c).  Its own initialisation ran inside real_dlopen. */
	static int go_here;
	uintptr_t preempt;
	if (h != NULL && !__atomic_load_n(&go_here, __ATOMIC_RELAXED)) {
		int saved_errno = errno;
		if (mon_objects_go_runtime(&preempt)) {
			__atomic_store_n(&go_here, 1, __ATOMIC_RELAXED);
			mon_sig_onstack_all();
			mon_sig_injected_call(preempt);
		}
		errno = saved_errno;
	}
	if (h != NULL && mon_objhist_running()) {
		int saved_errno = errno;
		/* (every time the count moved: the objects' own _init may have
		 * found the lock busy, mon_objhist_loading) */
		unsigned long long loads = mon_objects_loads();
		if (loads == 0 || loads != __atomic_load_n(&loads_current, __ATOMIC_ACQUIRE))
			dlopen_take_in(loads);
		errno = saved_errno;
	}
	return h;
}

/* mon_objhist_loading's work, out of line: its window's record is a local
 * whose address is taken, which AddressSanitizer guards with its shadow
 * memory, and mon_objhist_loading runs from libasan's own _init (crti.o
 * calls __gmon_start__) before ASan has mapped that memory: with the local
 * in mon_objhist_loading's frame, a -lmon program built without the
 * sanitizer but linked with a sanitized libmon crashed there, profiling or
 * not (robust_fuzz_replay's seeds). */
__attribute__((noinline)) static void loading_take_in(void)
{
	struct mon_own_work own;	/* (as in dlopen above) */
	mon_clock_own_begin(&own);
	if (!mon_trylock()) {
		mon_clock_own_end(&own);
		return;
	}
	int added = started ? refresh() : 0;
	mon_unlock();
	if (added > 0 && mon_hooks.after_dlopen)
		mon_hooks.after_dlopen(1);
	mon_clock_own_end(&own);
}

void mon_objhist_loading(void)
{
	if (!mon_objhist_running())
		return;
	int saved_errno = errno;
	/* Called from every library's _init: most find nothing new (at
	 * start-up, all were listed when profiling started). */
	unsigned long long loads = mon_objects_loads();
	if (loads == 0 || loads != __atomic_load_n(&loads_seen, __ATOMIC_RELAXED))
		loading_take_in();
	errno = saved_errno;
}
