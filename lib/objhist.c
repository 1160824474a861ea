/*
 * objhist.c — whole-process histograms: one per loaded object.
 *
 * profil(2) samples one contiguous range of text.  A whole process (what
 * monrun profiles) is the executable plus every shared object, scattered
 * over the address space, so here each executable segment of each loaded
 * object (dl_iterate_phdr) gets a histogram of its own, of 32-bit bins
 * covering 1 << shift bytes each.  The tick path finds the object by binary
 * search in an immutable, sorted snapshot published through one atomic
 * pointer; objects loaded later (dlopen) make a new snapshot.  Snapshots
 * and histograms are never freed while the process runs: a handler may
 * still hold an old snapshot, and the file writer needs the histograms of
 * objects that were unloaded.  The memory is mmap'ed (zero pages cost
 * nothing until a bin is hit).
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mon.h"
#include "objhist.h"
#include "runtime.h"

static struct mon_objhist_set *current;	/* published to the tick path */
static struct mon_objhist **all;	/* every histogram ever made, in order */
static size_t nall, capall;
static unsigned bin_shift = 2;
static int started;

static void *zalloc(size_t size)
{
	void *p = mmap(NULL, size ? size : 1, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

int mon_objhist_tick(uintptr_t pc, uint64_t weight)
{
	const struct mon_objhist_set *set = __atomic_load_n(&current, __ATOMIC_ACQUIRE);
	if (set == NULL || !__atomic_load_n(&started, __ATOMIC_RELAXED))
		return 0;
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
			uint32_t old = __atomic_load_n(bin, __ATOMIC_RELAXED), new;
			do {
				new = UINT32_MAX - old < weight ? UINT32_MAX : old + (uint32_t)weight;
			} while (!__atomic_compare_exchange_n(bin, &old, new, 1, __ATOMIC_RELAXED,
							      __ATOMIC_RELAXED));
			size_t k = ((pc - h->lowpc) >> h->shift) / MON_OBJHIST_SPAN;
			uint64_t bit = (uint64_t)1 << (k % 64);
			if (!(__atomic_load_n(&h->touched[k / 64], __ATOMIC_RELAXED) & bit))
				__atomic_fetch_or(&h->touched[k / 64], bit, __ATOMIC_RELAXED);
			return 1;
		}
	}
	return 0;
}

size_t mon_build_id(const struct dl_phdr_info *info, unsigned char *out, size_t cap)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
		const unsigned char *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
			size_t namesz = (n->n_namesz + 3) & ~(size_t)3;
			size_t descsz = (n->n_descsz + 3) & ~(size_t)3;
			const unsigned char *name = p + sizeof *n, *desc = name + namesz;
			if (desc + descsz > end)
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    memcmp(name, "GNU", 4) == 0) {
				size_t len = n->n_descsz < cap ? n->n_descsz : cap;
				memcpy(out, desc, len);
				return len;
			}
			p = desc + descsz;
		}
	}
	return 0;
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

char *mon_self_exe(void)
{
	for (size_t cap = 256;; cap *= 2) {
		char *b = mon_alloc(cap);
		if (b == NULL)
			return NULL;
		ssize_t n = readlink("/proc/self/exe", b, cap);
		if (n >= 0 && (size_t)n < cap) {
			b[n] = '\0';
			return b;
		}
		mon_free(b);
		if (n < 0)
			return NULL;
	}
}

static int add_segments(struct dl_phdr_info *info, const char *name, struct scan *sc);

static int add_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	const char *name = info->dlpi_name;
	char *exe = NULL;
	if (name == NULL || name[0] == '\0') {
		exe = mon_self_exe();
		name = exe != NULL ? exe : "";
	}
	int rc = add_segments(info, name, arg);
	mon_free(exe);
	return rc;
}

/* One histogram per executable segment of the object named name. */
static int add_segments(struct dl_phdr_info *info, const char *name, struct scan *sc)
{
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

/* Scan the loaded objects and publish a snapshot with the new ones.
 * Histograms of objects whose range a new one overlaps leave the lookup
 * (the old object was unloaded) but stay in the full list.  Under lock. */
static int refresh(void)
{
	struct scan sc = { NULL, 0, 0, 0 };
	dl_iterate_phdr(add_object, &sc);
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
	return 0;
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
		rc = refresh();
		if (rc == 0) {
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
	int rc = 0;
	mon_lock();
	if (started)
		rc = refresh();
	mon_unlock();
	return rc;
}

void mon_objhist_stop(void)
{
	mon_lock();
	if (started) {
		__atomic_store_n(&started, 0, __ATOMIC_RELEASE);
		mon_sampling_release(MON_USER_OBJHIST);
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

/* dlopen — the C library's, then the new objects get histograms when
 * whole-process profiling is on.  Same arguments, results and errors as
 * dlopen(3); dlerror() is untouched. */
MON_EXPORT void *dlopen(const char *file, int mode)
{
	static void *(*real_dlopen)(const char *, int);
	if (real_dlopen == NULL)
		real_dlopen = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
	if (real_dlopen == NULL)
		return NULL;
	void *h = real_dlopen(file, mode);
	if (h != NULL && mon_objhist_running()) {
		int saved_errno = errno;
		mon_objhist_refresh();
		if (mon_hooks.after_dlopen)
			mon_hooks.after_dlopen();
		errno = saved_errno;
	}
	return h;
}
