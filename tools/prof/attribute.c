/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * attribute.c — from histogram bins and call counts to report rows.
 *
 * A row is a function of one object image, or a stretch of an object's code
 * that no symbol covers ([object]+0xoffset: PLT stubs, a stripped library's
 * internal functions), or a whole object whose file could not be read
 * ([object]), or [unknown] for PCs in no known object.  Every tick lands on
 * exactly one row (binmap.c shares a straddling bin), so %Time is relative
 * to all samples in the histograms.
 *
 * Rows are keyed by image (an ELF file, identified by path and build ID)
 * and link-time address, not by runtime PC: two runs of the same program
 * with different load addresses (ASLR, PIE, shared libraries) add up row by
 * row (-m a -m b).  Arcs (caller -> callee call counts) are resolved the
 * same way, both ends, and kept for the model's call graph (profile.c).
 *
 * Which bytes a function owns.  System V prof gave each symbol everything up
 * to the next qualifying symbol.  That is right for the alignment padding
 * after a function, but wrong whenever a function has no symbol in the
 * table (globals-only -l, a stripped object's .dynsym): its time then lands
 * on the neighbour below.  So a symbol owns [st_value, st_value + st_size)
 * (a symbol without a size: up to the next symbol or the next unwind
 * range), stretched over a gap shorter than PROF_PAD bytes (padding) in
 * which no unwind range begins.  -l only leaves local symbols out; it never
 * stretches a symbol over code it does not cover.  Code no symbol covers is
 * cut at the object's FDE ranges (unwind.c): each range is a row
 * [object]+0xSTART of its own size (kind "unwind"), and bytes between
 * ranges are a row [object]+0xSTART of kind "gap" (alignment shorter than
 * PROF_PAD stays with the range before it).  So no row ever spans two
 * functions that the object's own unwind data separates.
 */
#include "prof.h"

#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "monout.h"

/* Gaps shorter than this after a function's st_size are its padding. */
#define PROF_PAD 32

struct imgsegs {		/* an image's segments, link-time addresses */
	struct prof_seg *v;
	size_t n;
	size_t object_row;	/* the image's [object] row */
	int usable;		/* symbols may be used (readable, matching build ID) */
};

static struct imgsegs *img_segs(const struct prof_attr *a, size_t i)
{
	return &a->isegs[i];
}

/* --lines: the pieces of one file, runtime PCs made ELF vaddrs with the
 * bias its image had in that file. */
struct piece_ctx {
	struct prof_attr *a;
	const uint64_t *bias;	/* by image index; UINT64_MAX: not in this file */
	double rate;
	int nomem;
};

static void take_piece(void *arg, size_t row, uint64_t pc, double t)
{
	struct piece_ctx *c = arg;
	struct prof_attr *a = c->a;
	if (c->nomem || !(t > 0))
		return;
	const struct prof_row *r = &a->rows[row];
	uint64_t v = pc;
	if (r->kind != PROF_ROW_UNKNOWN && r->image < a->nimages && c->bias[r->image] != UINT64_MAX)
		v = pc - c->bias[r->image];
	if (a->npieces == a->pieces_cap) {
		size_t cap = a->pieces_cap ? a->pieces_cap * 2 : 256;
		struct prof_piece *np = realloc(a->pieces, cap * sizeof *np);
		if (!np) {
			c->nomem = 1;
			return;
		}
		a->pieces = np;
		a->pieces_cap = cap;
	}
	a->pieces[a->npieces++] = (struct prof_piece){ row, v, t, t / c->rate };
}

void attr_init(struct prof_attr *a, int locals)
{
	memset(a, 0, sizeof *a);
	a->locals = locals;
	a->unknown_row = SIZE_MAX;
	a->main_image = SIZE_MAX;
}

static size_t new_row(struct prof_attr *a, int kind, size_t image, uint64_t addr, const char *name)
{
	if (a->nrows == a->rows_cap) {
		size_t cap = a->rows_cap ? a->rows_cap * 2 : 64;
		struct prof_row *nr = realloc(a->rows, cap * sizeof *nr);
		if (!nr)
			return SIZE_MAX;
		a->rows = nr;
		a->rows_cap = cap;
	}
	struct prof_row *r = &a->rows[a->nrows];
	memset(r, 0, sizeof *r);
	r->kind = kind;
	r->image = image;
	r->addr = addr;
	r->name = name;
	return a->nrows++;
}

static int add_seg(struct imgsegs *s, size_t *cap, uint64_t lo, uint64_t hi, size_t row)
{
	if (hi <= lo)
		return 0;
	if (s->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		struct prof_seg *nv = realloc(s->v, ncap * sizeof *nv);
		if (!nv)
			return -1;
		s->v = nv;
		*cap = ncap;
	}
	s->v[s->n].lo = lo;
	s->v[s->n].hi = hi;
	s->v[s->n].row = row;
	s->n++;
	return 0;
}

/* First FDE range with hi > pc. */
static size_t fde_at(const struct prof_image *im, uint64_t pc)
{
	size_t lo = 0, hi = im->nfdes;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (im->fdes[mid].hi <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Start of the first FDE range beginning in (from, limit), else limit. */
static uint64_t next_fde_start(const struct prof_image *im, uint64_t from, uint64_t limit)
{
	/* fdes sorted by lo: binary search the first lo > from. */
	size_t lo = 0, hi = im->nfdes;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (im->fdes[mid].lo <= from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < im->nfdes && im->fdes[lo].lo < limit ? im->fdes[lo].lo : limit;
}

static int add_row_seg(struct prof_attr *a, struct imgsegs *s, size_t *cap, int kind,
		       size_t idx, uint64_t lo, uint64_t hi, const struct prof_sym *y)
{
	size_t r = new_row(a, kind, idx, lo, y ? y->name : NULL);
	if (r == SIZE_MAX || add_seg(s, cap, lo, hi, r) < 0)
		return -1;
	a->rows[r].size = hi - lo;
	a->rows[r].version = y ? y->version : NULL;
	return 0;
}

/* Code [lo, hi) that no symbol covers: cut at the FDE ranges. */
static int split_gap(struct prof_attr *a, struct imgsegs *s, size_t *cap, size_t idx,
		     uint64_t lo, uint64_t hi)
{
	const struct prof_image *im = a->images[idx];
	uint64_t p = lo;
	for (size_t k = fde_at(im, lo); k < im->nfdes && im->fdes[k].lo < hi; k++) {
		uint64_t flo = im->fdes[k].lo > p ? im->fdes[k].lo : p;
		uint64_t fhi = im->fdes[k].hi < hi ? im->fdes[k].hi : hi;
		if (flo >= fhi)
			continue;	/* nested in an earlier range */
		if (flo > p) {
			struct prof_seg *prev = s->n ? &s->v[s->n - 1] : NULL;
			if (prev && prev->hi == p && flo - p < PROF_PAD &&
			    a->rows[prev->row].kind == PROF_ROW_UNWIND) {
				prev->hi = flo;	/* alignment after a range */
				a->rows[prev->row].size = flo - prev->lo;
			} else if (add_row_seg(a, s, cap, PROF_ROW_GAP, idx, p, flo, NULL) < 0) {
				return -1;
			}
		}
		if (add_row_seg(a, s, cap, PROF_ROW_UNWIND, idx, flo, fhi, NULL) < 0)
			return -1;
		p = fhi;
	}
	if (p < hi) {
		struct prof_seg *prev = s->n ? &s->v[s->n - 1] : NULL;
		if (prev && prev->hi == p && hi - p < PROF_PAD &&
		    a->rows[prev->row].kind == PROF_ROW_UNWIND) {
			prev->hi = hi;
			a->rows[prev->row].size = hi - prev->lo;
		} else if (add_row_seg(a, s, cap, PROF_ROW_GAP, idx, p, hi, NULL) < 0) {
			return -1;
		}
	}
	return 0;
}

/* Lays out an image's executable sections as function, unwind-range and
 * gap segments. */
static int build_segments(struct prof_attr *a, size_t idx)
{
	struct prof_image *im = a->images[idx];
	struct imgsegs *s = img_segs(a, idx);
	size_t cap = 0;
	uint64_t only[2];
	const void *texts = im->texts;
	size_t ntexts = im->ntexts;

	if (ntexts == 0 && im->nsyms > 0) {
		/* No section headers: take the span of the symbols. */
		const struct prof_sym *last = &im->syms[im->nsyms - 1];
		only[0] = im->syms[0].addr;
		only[1] = last->addr + (last->size ? last->size : 1);
		texts = only;
		ntexts = 1;
	}
	size_t k = 0;
	for (size_t t = 0; t < ntexts; t++) {
		const uint64_t *sec = (const uint64_t *)texts + 2 * t;
		uint64_t slo = sec[0], shi = sec[1], cursor = slo;
		while (k < im->nsyms && im->syms[k].addr < slo)
			k++;
		for (; k < im->nsyms && im->syms[k].addr < shi; k++) {
			const struct prof_sym *y = &im->syms[k];
			if (y->addr < cursor)
				continue;	/* inside the previous symbol's st_size */
			uint64_t next = k + 1 < im->nsyms && im->syms[k + 1].addr < shi
					? im->syms[k + 1].addr : shi;
			uint64_t end;
			if (y->size > 0) {
				end = y->addr + y->size;
				if (end > shi || end < y->addr)
					end = shi;
				/* Alignment padding up to the next symbol, unless
				 * an unwind range starts in it. */
				if (end < next && next - end < PROF_PAD &&
				    next_fde_start(im, end - 1, next) == next)
					end = next;
				if (end > next) {
					/* Overlaps the next symbol (nested or an alias
					 * of part of it): up to the next one. */
					end = next;
				}
			} else {
				/* No size: up to the next symbol or unwind range. */
				end = next_fde_start(im, y->addr, next);
			}
			if (y->addr > cursor && split_gap(a, s, &cap, idx, cursor, y->addr) < 0)
				return -1;
			if (add_row_seg(a, s, &cap, PROF_ROW_FUNC, idx, y->addr, end, y) < 0)
				return -1;
			cursor = end;
		}
		if (cursor < shi && split_gap(a, s, &cap, idx, cursor, shi) < 0)
			return -1;
	}
	return 0;
}

static int same_id(const struct prof_image *im, const unsigned char *id, size_t len)
{
	return im->build_id_len == len && memcmp(im->build_id, id, len) == 0;
}

/* A time in nanoseconds since the Epoch as "2026-12-01 13:18:02 UTC". */
static void utc_words(uint64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000u);
	struct tm tm;
	if (gmtime_r(&t, &tm) == NULL || strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
		snprintf(buf, len, "%llu s after the Epoch", (unsigned long long)(ns / 1000000000u));
}

/*
 * Whether the file at path (read into im) is not the one object o of d
 * was when it ran: by GNU build ID when both have one; else, for an object
 * without one, by the CRC of its code that the runtime recorded (mon.out(5),
 * FILES: a program linked with --build-id=none and rebuilt since).  Then
 * 1 with why (why_len bytes) saying so, with both build IDs, or both sizes
 * and modification times; else 0 (also when there is nothing to compare).
 */
static int file_changed(const struct prof_data *d, const struct prof_object *o, const char *path,
			const struct prof_image *im, char *why, size_t why_len)
{
	if (o->build_id_len && im->build_id_len) {
		if (same_id(im, o->build_id, o->build_id_len))
			return 0;
		char want[129], have[129];
		prof_hex(o->build_id, o->build_id_len, want);
		prof_hex(im->build_id, im->build_id_len, have);
		snprintf(why, why_len, "build ID %s differs from %s recorded in %s", have, want,
			 d->file);
		return 1;
	}
	if (o->build_id_len || im->build_id_len || !(o->file_flags & MONOUT_FILE_TEXT))
		return 0;
	uint32_t crc;
	char cerr[128];
	if (symtab_text_crc(path, &crc, cerr, sizeof cerr) == 0 && crc == o->text_crc)
		return 0;
	char then[64] = "", now[64] = "";
	struct stat st;
	if (o->file_flags & MONOUT_FILE_STAT) {
		char t[40];
		utc_words(o->file_mtime_ns, t, sizeof t);
		snprintf(then, sizeof then, ": %llu bytes, modified %s",
			 (unsigned long long)o->file_size, t);
	}
	if (stat(path, &st) == 0) {
		char t[40];
		utc_words((uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec, t,
			  sizeof t);
		snprintf(now, sizeof now, ": %llu bytes, modified %s", (unsigned long long)st.st_size,
			 t);
	}
	snprintf(why, why_len, "its code differs from the code that ran, recorded in %s (no build "
		 "ID to compare; then%s; now%s)", d->file, then[0] ? then : ": unknown",
		 now[0] ? now : ": unknown");
	return 1;
}

/*
 * The image for an object of a profile: loaded on first use, shared by every
 * profile that names the same file with the same build ID.  main_prog: the
 * executable given on the command line, replacing the recorded path.
 * Returns its index, or SIZE_MAX with err set (only for the main program:
 * another object that cannot be read is warned about and kept as a bare
 * [object] row).
 */
static size_t image_for(struct prof_attr *a, const struct prof_data *d,
			const struct prof_object *o, const char *path,
			char *err, size_t errlen)
{
	struct stat st;
	int have_st = -1;	/* stat(path): not yet asked */
	for (size_t i = 0; i < a->nimages; i++) {
		struct prof_image *im = a->images[i];
		/* The same file: by path, and by build ID where both the
		 * profile and the file say one (a file whose ID cannot be
		 * read, or a note readelf too finds malformed, is its path). */
		if (strcmp(im->path, path) == 0 &&
		    (o->build_id_len == 0 || im->build_id_len == 0 || !img_segs(a, i)->usable ||
		     same_id(im, o->build_id, o->build_id_len)))
			return i;
		/* The same file by another name: /bin/sh and /usr/bin/sh where
		 * /bin is a link to /usr/bin (a fresh user saw both warned
		 * about as two stripped programs).  By build ID where both say
		 * one, else by device and inode. */
		if (!img_segs(a, i)->usable)
			continue;
		if (o->build_id_len && im->build_id_len) {
			if (same_id(im, o->build_id, o->build_id_len))
				return i;
			continue;
		}
		struct stat ist;
		if (have_st < 0)
			have_st = stat(path, &st) == 0;
		if (have_st && stat(im->path, &ist) == 0 && ist.st_dev == st.st_dev &&
		    ist.st_ino == st.st_ino)
			return i;
	}
	struct prof_image *im = calloc(1, sizeof *im);
	void *ni = realloc(a->images, (a->nimages + 1) * sizeof *a->images);
	if (ni)
		a->images = ni;
	void *ns = realloc(a->isegs, (a->nimages + 1) * sizeof *a->isegs);
	if (ns)
		a->isegs = ns;
	if (!im || !ni || !ns) {
		free(im);
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return SIZE_MAX;
	}
	size_t idx = a->nimages;
	struct imgsegs *s = img_segs(a, idx);
	memset(s, 0, sizeof *s);
	char lerr[512];
	int usable = 1;
	if (o->no_file || symtab_load(path, a->locals, &a->imports, im, lerr, sizeof lerr) < 0) {
		if (o->is_main) {
			snprintf(err, errlen, "%s: %s", path, lerr);
			free(im);
			return SIZE_MAX;
		}
		if (!o->no_file) {
			prof_warn("no-symbols", "%s: %s; its samples are shown as "
				  "[object]+offset", path, lerr);
			a->warned = 1;
		}
		usable = 0;
		memset(im, 0, sizeof *im);
		if (o->nxsyms && coverage_image_syms(im, o) < 0) {
			snprintf(err, errlen, "%s", strerror(ENOMEM));
			free(im);
			return SIZE_MAX;
		}
		im->path = strdup(path);
		const char *b = strrchr(path, '/');
		im->label = strdup(b && b[1] ? b + 1 : path);
		if (!im->path || !im->label) {
			symtab_free(im);
			free(im);
			snprintf(err, errlen, "%s", strerror(ENOMEM));
			return SIZE_MAX;
		}
	} else if (file_changed(d, o, path, im, lerr, sizeof lerr)) {
		if (o->is_main) {
			snprintf(err, errlen,
				 "%s: %s; not the program that was profiled: name the build the "
				 "files were made by, or read only the files of this one "
				 "(--program= the start of its build ID, 8 hex digits or more)",
				 path, lerr);
			symtab_free(im);
			free(im);
			return SIZE_MAX;
		}
		prof_warn(o->build_id_len ? "build-id" : "file-changed",
			  "%s: %s (file changed since the run); its samples are shown as "
			  "[object]+offset", path, lerr);
		a->warned = 1;
		usable = 0;
		free(im->syms);
		im->syms = NULL;
		im->nsyms = 0;
		free(im->dsyms);
		im->dsyms = NULL;
		im->ndsyms = 0;
		free(im->texts);
		im->texts = NULL;
		im->ntexts = 0;
		free(im->fdes);
		im->fdes = NULL;
		im->nfdes = 0;
	}
	a->images[idx] = im;
	a->nimages++;
	s->usable = usable;
	s->object_row = new_row(a, PROF_ROW_OBJECT, idx, 0, NULL);
	if (s->object_row == SIZE_MAX || build_segments(a, idx) < 0) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return SIZE_MAX;
	}
	return idx;
}

/* The row that owns runtime pc: a function's (or gap's) segment, else its
 * object's text range, else [unknown]. */
static size_t row_at(const struct prof_attr *a, const struct prof_seg *segs, size_t nsegs,
		     const struct prof_seg *fb, size_t nfb, uint64_t pc)
{
	size_t k = binmap_find(segs, nsegs, pc);
	if (k != SIZE_MAX)
		return segs[k].row;
	k = binmap_find(fb, nfb, pc);
	return k == SIZE_MAX ? a->unknown_row : fb[k].row;
}

/* pc as a link-time address of the row's image (runtime pc for [unknown]). */
static uint64_t link_pc(const struct prof_attr *a, const struct prof_data *d, const size_t *img,
			size_t row, uint64_t pc)
{
	if (a->rows[row].kind == PROF_ROW_UNKNOWN)
		return pc;
	for (size_t i = 0; i < d->nobjs; i++)
		if (img[i] == a->rows[row].image)
			return pc - d->objs[i].bias;
	return pc;
}

static int add_arc(struct prof_attr *a, const struct prof_arcrow *r)
{
	if (a->narcs == a->arcs_cap) {
		size_t cap = a->arcs_cap ? a->arcs_cap * 2 : 64;
		struct prof_arcrow *nv = realloc(a->arcs, cap * sizeof *nv);
		if (!nv)
			return -1;
		a->arcs = nv;
		a->arcs_cap = cap;
	}
	a->arcs[a->narcs++] = *r;
	return 0;
}

/* Grows v (elements of sz bytes, *cap of them) to hold need. */
static int reserve(void **v, size_t *cap, size_t need, size_t sz)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : 64;
	while (n < need)
		n *= 2;
	void *nv = realloc(*v, n * sz);
	if (!nv)
		return -1;
	*v = nv;
	*cap = n;
	return 0;
}

/* The row of pc in object i of d alone (its image's functions, else the
 * object's own row). */
static size_t row_in_object(const struct prof_attr *a, const struct prof_data *d, const size_t *img,
			    size_t i, uint64_t pc)
{
	const struct prof_object *o = &d->objs[i];
	const struct imgsegs *s = img_segs(a, img[i]);
	for (size_t k = 0; k < s->n; k++)
		if (pc >= s->v[k].lo + o->bias && pc < s->v[k].hi + o->bias)
			return s->v[k].row;
	return s->object_row;
}

/* The object of d that held pc when a sample of object set `set` was
 * taken, among those flagged in shared (objects that covered the same
 * addresses one after the other: mon.out(5), OBJECT): the one covering pc
 * whose set is the largest not above `set`.  SIZE_MAX when pc is in none of
 * them (then the merged segments decide). */
static size_t object_then(const struct prof_data *d, const unsigned char *shared, uint32_t set,
			  uint64_t pc)
{
	size_t best = SIZE_MAX;
	for (size_t i = 0; i < d->nobjs; i++) {
		const struct prof_object *o = &d->objs[i];
		if (!shared[i] || pc < o->text_lo || pc >= o->text_hi || o->set > set)
			continue;
		if (best == SIZE_MAX || o->set > d->objs[best].set)
			best = i;
	}
	return best;
}

/* Objects of d that share addresses with another (one unloaded, the other
 * loaded there later), flagged in a new array of d->nobjs bytes (freed by
 * the caller), whose PCs are resolved by object set (object_then); *any
 * is set when there is one.  NULL without memory. */
static unsigned char *objects_shared(const struct prof_data *d, int *any)
{
	unsigned char *shared = calloc(d->nobjs ? d->nobjs : 1, 1);
	*any = 0;
	if (!shared)
		return NULL;
	for (size_t i = 0; i < d->nobjs; i++)
		for (size_t j = i + 1; j < d->nobjs; j++)
			if (!d->objs[i].anon_cluster && !d->objs[j].anon_cluster &&
			    d->objs[i].text_lo < d->objs[i].text_hi &&
			    d->objs[j].text_lo < d->objs[j].text_hi &&
			    d->objs[i].text_lo < d->objs[j].text_hi &&
			    d->objs[j].text_lo < d->objs[i].text_hi)
				shared[i] = shared[j] = 1, *any = 1;
	return shared;
}

/* The row of pc, a PC sampled in object set `set`: in the object then
 * mapped there when objects shared its address (shared, any: as
 * objects_shared gives), else through the merged segments (row_at). */
static size_t row_then(struct prof_attr *a, const struct prof_data *d, const size_t *img,
		       const unsigned char *shared, int any, uint32_t set,
		       const struct prof_seg *segs, size_t nsegs, const struct prof_seg *fb,
		       size_t nfb, uint64_t pc)
{
	size_t o = any ? object_then(d, shared, set, pc) : SIZE_MAX;
	return o != SIZE_MAX ? row_in_object(a, d, img, o, pc) : row_at(a, segs, nsegs, fb, nfb, pc);
}

/* The last function symbol of im at or below ELF address addr, or NULL. */
static const struct prof_sym *sym_below(const struct prof_image *im, uint64_t addr)
{
	size_t lo = 0, hi = im->nsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (im->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &im->syms[lo - 1] : NULL;
}

/*
 * A caller frame's PC, as the runtime records it (mon.out(5), STACKS): its
 * return address - 1, inside the call instruction, so that a call at a
 * function's last instruction (a noreturn call, the next function starting
 * right after it) stays in its own function.  One return address is not
 * preceded by a call: the one makecontext(3) pushes on a new context's
 * stack (glibc's __start_context, which switches to uc_link or exits when
 * the context's function returns), whose address - 1 lies in the alignment
 * padding after the function before.  *pc (runtime) and *row are moved to
 * the function at the return address when the address - 1 is in no
 * function's symbol (st_size) and no unwind range (FDE) while the return
 * address starts one: code that no call reached, so not the caller.
 * Returns 1 when moved (the frame is such a pushed return address), else
 * 0.  row: row_at's answer for *pc; at1: the row of *pc + 1.
 */
static int pushed_return(const struct prof_attr *a, const struct prof_data *d, const size_t *img,
			 uint64_t *pc, size_t *row, size_t at1)
{
	const struct prof_row *r = &a->rows[*row], *n = &a->rows[at1];
	if (r->kind == PROF_ROW_UNKNOWN || r->kind == PROF_ROW_OBJECT || at1 == *row ||
	    n->kind == PROF_ROW_UNKNOWN || n->kind == PROF_ROW_OBJECT || n->image != r->image)
		return 0;
	const struct prof_image *im = a->images[r->image];
	uint64_t lpc = link_pc(a, d, img, *row, *pc);
	if (n->addr != lpc + 1)
		return 0;	/* the return address does not start a function */
	const struct prof_sym *y = sym_below(im, lpc);
	if (y && lpc - y->addr < y->size)
		return 0;	/* inside a function: a call's return address */
	size_t k = fde_at(im, lpc);
	if (k < im->nfdes && im->fdes[k].lo <= lpc)
		return 0;	/* inside an unwind range */
	*pc += 1;
	*row = at1;
	return 1;
}

/*
 * Is row where Go's runtime starts a stack, which has no caller to unwind
 * into?  Every goroutine's stack begins with a return address into
 * runtime.goexit, each thread's own stack with runtime.mstart, the first
 * thread's with runtime.rt0_go: Go's own traceback ends at these
 * (runtime/traceback.go, the funcIDs it takes for a stack's top).  Go's
 * code has no CFI, and the frame pointer walk past them reads what is not
 * a frame: such a stack is whole, not ended early.  The names carry
 * ".abi0" for the assembly ones since Go 1.17.
 */
static int go_stack_root(const struct prof_attr *a, size_t row)
{
	static const char *const roots[] = { "runtime.goexit", "runtime.mstart", "runtime.rt0_go" };
	const char *n = a->rows[row].kind == PROF_ROW_FUNC ? a->rows[row].name : NULL;
	if (n == NULL)
		return 0;
	for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++) {
		size_t k = strlen(roots[i]);
		if (strncmp(n, roots[i], k) == 0 && (n[k] == '\0' || strcmp(n + k, ".abi0") == 0))
			return 1;
	}
	return 0;
}

/* The stacks of one file over the rows: each PC through row_at (a caller's
 * PC through pushed_return too), as a link-time PC of its row's image; the
 * thread's name from THREADS.  A walk that the runtime flagged truncated at
 * a pushed return address (makecontext's bottom frame) or at a stack root
 * of Go's (go_stack_root) is complete: the stack ends there.  leaf[r] += the counts of the stacks whose leaf is in
 * row r.  0 or -1 (ENOMEM). */
static int add_stacks(struct prof_attr *a, const struct prof_data *d, const size_t *img,
		      const struct prof_seg *segs, size_t nsegs, const struct prof_seg *fb,
		      size_t nfb, double rate, double *leaf)
{
	a->have_stacks = 1;
	a->stacks_lost += d->stacks_lost;
	int any_shared;
	unsigned char *shared = objects_shared(d, &any_shared);
	if (!shared)
		return -1;
	for (size_t i = 0; i < d->nstacks; i++) {
		const struct prof_stack *st = &d->stacks[i];
		if (reserve((void **)&a->stacks, &a->stacks_cap, a->nstacks + 1, sizeof *a->stacks) ||
		    reserve((void **)&a->frames, &a->frames_cap, a->nframes + st->depth,
			    sizeof *a->frames)) {
			free(shared);
			return -1;
		}
		struct prof_stackrow *w = &a->stacks[a->nstacks++];
		memset(w, 0, sizeof *w);
		w->count = st->count;
		w->seconds = (double)st->count / rate;
		w->tid = st->tid;
		w->pid = d->run.pid;
		w->flags = st->flags;
		w->first = a->nframes;
		w->depth = st->depth;
		w->program = a->program_no;
		for (size_t t = 0; t < d->nthreads; t++)
			if (d->threads[t].tid == st->tid) {
				memcpy(w->thread, d->threads[t].name, sizeof w->thread);
				w->thread[sizeof w->thread - 1] = '\0';
				break;
			}
		int pushed = 0;
		for (uint32_t k = 0; k < st->depth; k++) {
			uint64_t pc = st->pcs[k];
			size_t row = row_then(a, d, img, shared, any_shared, st->set, segs, nsegs,
					      fb, nfb, pc);
			if (k > 0)
				pushed = pushed_return(a, d, img, &pc, &row,
						       row_then(a, d, img, shared, any_shared, st->set,
								segs, nsegs, fb, nfb, pc + 1));
			a->frames[a->nframes++] = (struct prof_frame){ row, link_pc(a, d, img, row, pc) };
		}
		if (pushed || (st->depth > 0 && go_stack_root(a, a->frames[a->nframes - 1].row)))
			w->flags &= ~(uint32_t)PROF_STACK_TRUNCATED;
		leaf[a->frames[w->first].row] += (double)st->count;
		a->stack_samples += (double)st->count;
		if (w->flags & PROF_STACK_TRUNCATED)
			a->stacks_truncated += st->count;
		if (st->flags & PROF_STACK_DEPTH)
			a->stacks_depth += st->count;
		if (st->flags & PROF_STACK_JIT)
			a->stacks_jit += st->count;
	}
	free(shared);
	return 0;
}

/* ---- wall-clock samples -------------------------------------------------- */

/* The index of reason name in a->reasons, added if new; SIZE_MAX without
 * memory. */
static size_t reason_id(struct prof_attr *a, const char *name)
{
	for (size_t i = a->nreasons; i-- > 0;)
		if (strcmp(a->reasons[i], name) == 0)
			return i;
	char *s = strdup(name);
	if (!s || reserve((void **)&a->reasons, &a->reasons_cap, a->nreasons + 1,
			  sizeof *a->reasons)) {
		free(s);
		return SIZE_MAX;
	}
	a->reasons[a->nreasons] = s;
	return a->nreasons++;
}

static int port_ephemeral(const char *addr)
{
	/* Linux's default ip_local_port_range, 32768..60999 (ip(7)). */
	const char *c = strrchr(addr, ':');
	long p = c ? strtol(c + 1, NULL, 10) : 0;
	return p >= 32768 && p <= 60999;
}

/* What a socket is, from the runtime's "PROTO LOCAL PEER": the service's
 * end, the one whose port is not ephemeral ("tcp 127.0.0.1:5432" for a
 * client of port 5432 and for that server alike), so that one service is
 * one frame whatever the clients' ports; a socket with no peer ("-": one
 * listening, or not connected) by its own address; the text as it is
 * otherwise. */
static void socket_words(const char *text, char *buf, size_t len)
{
	char proto[32], local[160], peer[160];
	if (sscanf(text, "%31s %159s %159s", proto, local, peer) == 3) {
		int le = port_ephemeral(local), pe = port_ephemeral(peer);
		if (strcmp(peer, "-") == 0 || (pe && !le)) {
			snprintf(buf, len, "%s %s", proto, local);
			return;
		}
		if (le && !pe) {
			snprintf(buf, len, "%s %s", proto, peer);
			return;
		}
	}
	snprintf(buf, len, "%s", text);
}

/* The futex word's name: the data symbol holding it ("queue_lock",
 * "table+0x40"), else its object and offset, else its address (heap,
 * stack). */
static void futex_words(const struct prof_attr *a, const struct prof_data *d, const size_t *img,
			const struct prof_wait *w, uint64_t back, char *buf, size_t len)
{
	if (w->object != SIZE_MAX && w->object < d->nobjs) {
		const struct prof_image *im = a->images[img[w->object]];
		uint64_t at = w->offset - back;
		const struct prof_sym *s = symtab_data_at(im, at);
		if (s && at == s->addr)
			snprintf(buf, len, "%s", s->name);
		else if (s)
			snprintf(buf, len, "%s+%#llx", s->name, (unsigned long long)(at - s->addr));
		else
			snprintf(buf, len, "%s+%#llx", im->label ? im->label : "?",
				 (unsigned long long)at);
		return;
	}
	snprintf(buf, len, "%#llx", (unsigned long long)(w->address - back));
}

/* Bytes from the start of the glibc pthread_cond_t holding a condition
 * wait's futex word (its __g_signals[0] at 40, [1] at 44 on 64-bit
 * machines: mon.out(5), WAIT flag 4), or UINT64_MAX when the word's data
 * symbol shows it is not in one: the pthread_cond_t would not lie wholly
 * inside the symbol (a symbol of 48 bytes or more holds it, as a variable
 * of that type or in a structure). */
static uint64_t condvar_back(const struct prof_attr *a, const struct prof_data *d,
			     const size_t *img, const struct prof_wait *w)
{
	uint64_t back = (w->address & 7) ? 44 : 40;
	if (w->object == SIZE_MAX || w->object >= d->nobjs)
		return back;
	const struct prof_sym *s = symtab_data_at(a->images[img[w->object]], w->offset);
	if (s == NULL || s->size == 0)
		return back;
	if (w->offset < s->addr + back || w->offset - back + 48 > s->addr + s->size)
		return UINT64_MAX;
	return back;
}

/* The leaf frame's name of a wall sample: what its thread waited for
 * (profile.h), into buf; "" for a running thread. */
/* One file's thread names by tid: its CPU facts' (THREADS) first, read by
 * each thread as it ended or at the write, so the name it ended with; then
 * its WALL threads', which the sampler reads as it finds a thread blocked
 * and a running one at most once a second (a thread that names itself as
 * it starts and runs less than that may keep the name it had); the first
 * row of a tid in file order; sorted by tid for bsearch.  Built once a file: a server's file has
 * thousands of threads and tens of thousands of wall samples. */
struct tid_name {
	uint64_t tid;
	size_t order;		/* the row's place: wall threads first */
	const char *name;
};

static int cmp_tid_name(const void *x, const void *y)
{
	const struct tid_name *a = x, *b = y;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* The index of d's names in *out (*n entries; NULL with none); -1 ENOMEM. */
static int tid_names(const struct prof_data *d, struct tid_name **out, size_t *n)
{
	size_t k = 0, cap = d->nwall_threads + d->nthreads;
	*out = NULL;
	*n = 0;
	if (cap == 0)
		return 0;
	struct tid_name *v = malloc(cap * sizeof *v);
	if (!v)
		return -1;
	for (size_t t = 0; t < d->nthreads; t++, k++)
		v[k] = (struct tid_name){ d->threads[t].tid, k, d->threads[t].name };
	for (size_t t = 0; t < d->nwall_threads; t++, k++)
		v[k] = (struct tid_name){ d->wall_threads[t].tid, k, d->wall_threads[t].name };
	/* Nameless rows out (a tid's name is its first named row's). */
	size_t m = 0;
	for (size_t i = 0; i < k; i++)
		if (v[i].name[0])
			v[m++] = v[i];
	k = m;
	qsort(v, k, sizeof *v, cmp_tid_name);
	*out = v;
	*n = k;
	return 0;
}

/* tid's name in the index (its first row's), or NULL. */
static const char *tid_name_of(const struct tid_name *v, size_t n, uint64_t tid)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {	/* the first entry with this tid */
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].tid == tid ? v[lo].name : NULL;
}

/* " (NAME)" for a thread named in a wait reason, in out (cap bytes): the
 * characters that would split a frame in the stack formats (';') or end
 * the reason (']') and control characters as '_'; "" without a name. */
static void holder_name(const struct tid_name *v, size_t n, uint64_t tid, char *out, size_t cap)
{
	const char *nm = tid_name_of(v, n, tid);
	out[0] = '\0';
	if (!nm || !nm[0] || cap < 4)
		return;
	size_t at = 0;
	out[at++] = ' ';
	out[at++] = '(';
	for (size_t i = 0; i < 15 && nm[i] && at + 2 < cap; i++) {
		unsigned char c = (unsigned char)nm[i];
		out[at++] = c < 0x20 || c == 0x7f || c == ';' || c == ']' || c == '[' ? '_' : (char)c;
	}
	out[at++] = ')';
	out[at] = '\0';
}

static void wait_reason(const struct prof_attr *a, const struct prof_data *d, const size_t *img,
			const struct tid_name *names, size_t nnames,
			const struct prof_wall_sample *s, char *buf, size_t len)
{
	const char *sc = s->syscall == MONOUT_NO_SYSCALL ? NULL
			 : monout_syscall_name(d->wall.machine, s->syscall);
	char scbuf[32], what[400];
	int disk = 0;	/* uninterruptible (D), in a descriptor's wait */
	if (!sc && s->syscall != MONOUT_NO_SYSCALL) {
		snprintf(scbuf, sizeof scbuf, "syscall %u", s->syscall);
		sc = scbuf;
	}
	switch (s->state) {
	case MONOUT_WALL_RUNNING:
		buf[0] = '\0';
		return;
	case MONOUT_WALL_RUNNABLE:
		snprintf(buf, len, "[runnable]");
		return;
	case MONOUT_WALL_DISK:
		/* A descriptor's wait (fsync, a read of a file) names the
		 * file as an interruptible one does. */
		if (s->wait < d->nwaits && d->waits[s->wait].kind == MONOUT_WAIT_FD) {
			disk = 1;
			break;
		}
		snprintf(buf, len, sc ? "[uninterruptible %s]" : "[uninterruptible]", sc);
		return;
	case MONOUT_WALL_STOPPED:
		snprintf(buf, len, "[stopped]");
		return;
	case MONOUT_WALL_BLOCKED:
		break;
	default:
		snprintf(buf, len, "[other state]");
		return;
	}
	const struct prof_wait *w = s->wait < d->nwaits ? &d->waits[s->wait] : NULL;
	if (w && w->kind == MONOUT_WAIT_FUTEX && (w->flags & MONOUT_WAIT_JOIN) &&
	    (w->flags & MONOUT_WAIT_OWNER)) {
		char nm[24];
		holder_name(names, nnames, w->owner, nm, sizeof nm);
		snprintf(buf, len, "[join tid %llu%s]", (unsigned long long)w->owner, nm);
		return;
	}
	uint64_t back = UINT64_MAX;
	if (w && w->kind == MONOUT_WAIT_FUTEX && (w->flags & MONOUT_WAIT_CONDVAR) &&
	    (back = condvar_back(a, d, img, w)) != UINT64_MAX) {
		futex_words(a, d, img, w, back, what, sizeof what);
		snprintf(buf, len, "[futex condvar %s]", what);
		return;
	}
	if (w && w->kind == MONOUT_WAIT_FUTEX) {
		futex_words(a, d, img, w, 0, what, sizeof what);
		char owner[72] = "", nm[24];
		if (w->flags & MONOUT_WAIT_OWNER) {
			holder_name(names, nnames, w->owner, nm, sizeof nm);
			snprintf(owner, sizeof owner, ", held by tid %llu%s",
				 (unsigned long long)w->owner, nm);
		}
		snprintf(buf, len, "[futex %s%s]", what, owner);
		return;
	}
	if (w && w->kind == MONOUT_WAIT_FD) {
		switch (w->fd_kind) {
		case MONOUT_FD_SOCKET: {
			char sw[360];
			socket_words(w->text, sw, sizeof sw);
			snprintf(what, sizeof what, "socket %s", sw);
			break;
		}
		case MONOUT_FD_PIPE: snprintf(what, sizeof what, "pipe"); break;
		case MONOUT_FD_EVENTFD: snprintf(what, sizeof what, "eventfd"); break;
		case MONOUT_FD_TIMERFD: snprintf(what, sizeof what, "timerfd"); break;
		case MONOUT_FD_SIGNALFD: snprintf(what, sizeof what, "signalfd"); break;
		case MONOUT_FD_EPOLL: what[0] = '\0'; break;	/* epoll_wait says it */
		case MONOUT_FD_FILE:
		case MONOUT_FD_DEVICE:
		case MONOUT_FD_OTHER:
			if (w->text[0]) {
				snprintf(what, sizeof what, "%s", w->text);
				break;
			}
			/* fall through */
		default:
			if (w->fd != MONOUT_NO_FD)
				snprintf(what, sizeof what, "fd %u", w->fd);
			else
				what[0] = '\0';
		}
		const char *verb = sc ? sc : disk ? NULL : "blocked";
		snprintf(buf, len, "[%s%s%s%s%s]", disk ? "uninterruptible" : "",
			 disk && verb ? " " : "", verb ? verb : "", what[0] ? " " : "", what);
		return;
	}
	snprintf(buf, len, "[%s]", sc ? sc : "blocked");
}

static int tstate_of(uint32_t s)
{
	switch (s) {
	case MONOUT_WALL_RUNNING: return PROF_TS_RUNNING;
	case MONOUT_WALL_RUNNABLE: return PROF_TS_RUNNABLE;
	case MONOUT_WALL_BLOCKED: return PROF_TS_BLOCKED;
	case MONOUT_WALL_DISK: return PROF_TS_DISK;
	case MONOUT_WALL_STOPPED: return PROF_TS_STOPPED;
	default: return PROF_TS_OTHER;
	}
}

/* A new wall row; NULL without memory. */
static struct prof_wallrow *new_wall(struct prof_attr *a, const struct prof_data *d,
				     const struct tid_name *names, size_t nnames, double count,
				     uint64_t tid, int state, size_t reason)
{
	if (reserve((void **)&a->walls, &a->walls_cap, a->nwalls + 1, sizeof *a->walls))
		return NULL;
	struct prof_wallrow *w = &a->walls[a->nwalls++];
	memset(w, 0, sizeof *w);
	w->count = count;
	w->seconds = count / (d->wall.rate_hz > 0 ? d->wall.rate_hz : 1);
	w->tid = tid;
	w->pid = d->run.pid;
	w->state = state;
	w->reason = reason;
	w->program = a->program_no;
	const char *nm = tid_name_of(names, nnames, tid);
	if (nm)
		snprintf(w->thread, sizeof w->thread, "%s", nm);
	return w;
}

static int cmp_place(const void *x, const void *y)
{
	const struct prof_wplace *a = x, *b = y;
	if (a->rem != b->rem)
		return a->rem > b->rem ? -1 : 1;
	return a->stack < b->stack ? -1 : a->stack > b->stack;
}

/* Places n wall-clock samples of thread tid (running or runnable, no
 * stack) on its CPU-clock stacks of this file, a->stacks[s0 ..), in
 * proportion to their samples, as whole samples: each stack gets the floor
 * of its share and the samples left over go one each to the largest
 * remainders (Hamilton's method; ties to the earlier stack), so that the
 * stacks' samples add up to n and each is within one sample of its share.
 * Whole samples keep every export (folded lines, pprof's and callgrind's
 * counts, the flame graph) equal to the model's totals: shares of a
 * sample, rounded one by one, did not add up (a wall profile's pprof
 * wall-samples 0.5 % short, rows with time and no sample).  The places in
 * a->wplace[0 .. *m) (stack index, samples).  Returns 1, 0 (the thread has
 * no CPU stack in this file), or -1 (ENOMEM). */
static int place_wall(struct prof_attr *a, size_t s0, uint64_t tid, uint64_t n, size_t *m)
{
	uint64_t c = 0;
	size_t k = 0;
	for (size_t i = s0; i < a->nstacks; i++)
		if (a->stacks[i].tid == tid && a->stacks[i].count > 0) {
			c += a->stacks[i].count;
			k++;
		}
	*m = 0;
	if (c == 0)
		return 0;
	if (reserve((void **)&a->wplace, &a->wplace_cap, k, sizeof *a->wplace))
		return -1;
	uint64_t given = 0;
	for (size_t i = s0; i < a->nstacks; i++) {
		if (a->stacks[i].tid != tid || a->stacks[i].count == 0)
			continue;
		/* n * count / c without overflow: n and count < 2^64, the
		 * product in 128 bits. */
		unsigned __int128 q = (unsigned __int128)n * a->stacks[i].count;
		struct prof_wplace *w = &a->wplace[(*m)++];
		w->stack = i;
		w->n = (uint64_t)(q / c);
		w->rem = (uint64_t)(q % c);
		given += w->n;
	}
	qsort(a->wplace, *m, sizeof *a->wplace, cmp_place);
	for (size_t j = 0; given < n && j < *m; j++, given++)
		a->wplace[j].n++;
	return 1;
}

/* The WALL record of one file over the rows.  Samples with a stack: its
 * frames as a CPU stack's.  A running or runnable thread's samples (no
 * stack: the runtime cannot read a running thread's registers without
 * stopping it), and a stopped one's that was running when the process was
 * stopped (lib/wall.c stopped_for), go to the thread's CPU-clock stacks of this file,
 * a->stacks[s0 ..), in proportion to their samples; with none, to a bare
 * "[running]" frame.  Rounds in which a thread's state could not be read
 * become samples of "[state not read]", so that they are seen.  0 or -1
 * (ENOMEM). */
static int add_wall(struct prof_attr *a, const struct prof_data *d, const size_t *img,
		    const struct prof_seg *segs, size_t nsegs, const struct prof_seg *fb,
		    size_t nfb, size_t s0)
{
	const struct prof_wall_head *h = &d->wall;
	if (!a->have_wall)
		a->wall_hz = h->rate_hz;
	else if (a->wall_hz != h->rate_hz)
		a->wall_rates_differ = 1;
	a->have_wall = 1;
	a->wall_files++;
	a->wall_rounds += h->rounds;
	a->wall_missed += h->missed;
	a->wall_lost += h->lost;
	a->wall_elapsed_s += h->elapsed_s;
	a->wall_user_s += h->user_s;
	a->wall_sys_s += h->sys_s;
	a->wall_flags |= h->flags;
	a->wall_threads_unlisted += h->threads_unlisted;
	if (reserve((void **)&a->wthreads, &a->wthreads_cap, a->nwthreads + d->nwall_threads + 1,
		    sizeof *a->wthreads))
		return -1;
	memcpy(a->wthreads + a->nwthreads, d->wall_threads, d->nwall_threads * sizeof *a->wthreads);
	a->nwthreads += d->nwall_threads;
	struct tid_name *names;
	size_t nnames;
	if (tid_names(d, &names, &nnames) < 0)
		return -1;
	int any_shared;
	unsigned char *shared = objects_shared(d, &any_shared);
	if (!shared) {
		free(names);
		return -1;
	}
	for (size_t i = 0; i < d->nwall_samples; i++) {
		const struct prof_wall_sample *s = &d->wall_samples[i];
		char name[512];
		wait_reason(a, d, img, names, nnames, s, name, sizeof name);
		size_t reason = SIZE_MAX;
		if (name[0] && (reason = reason_id(a, name)) == SIZE_MAX)
			goto fail;
		int state = tstate_of(s->state);
		if (s->depth == 0 &&
		    (s->state == MONOUT_WALL_RUNNING || s->state == MONOUT_WALL_RUNNABLE ||
		     s->state == MONOUT_WALL_STOPPED)) {
			size_t m = 0;
			int placed = place_wall(a, s0, s->tid, s->count, &m);
			if (placed < 0)
				goto fail;
			if (placed) {
				for (size_t j = 0; j < m; j++) {
					size_t k = a->wplace[j].stack;
					if (a->wplace[j].n == 0)
						continue;
					struct prof_wallrow *w = new_wall(a, d, names, nnames,
									  (double)a->wplace[j].n,
									  s->tid, state, reason);
					if (!w)
						goto fail;
					w->first = a->stacks[k].first;
					w->depth = a->stacks[k].depth;
					w->flags = a->stacks[k].flags;
				}
				continue;
			}
			if (s->state == MONOUT_WALL_RUNNING) {
				a->wall_running_unplaced += (double)s->count;
				if ((reason = reason_id(a, "[running]")) == SIZE_MAX)
					goto fail;
			}
		}
		if (reserve((void **)&a->frames, &a->frames_cap, a->nframes + s->depth,
			    sizeof *a->frames))
			goto fail;
		struct prof_wallrow *w = new_wall(a, d, names, nnames, (double)s->count, s->tid,
						  state, reason);
		if (!w)
			goto fail;
		w->flags = s->flags;
		w->first = a->nframes;
		w->depth = s->depth;
		int pushed = 0;
		for (uint32_t k = 0; k < s->depth; k++) {
			uint64_t pc = s->pcs[k];
			size_t row = row_then(a, d, img, shared, any_shared, s->set, segs, nsegs,
					      fb, nfb, pc);
			if (k > 0)
				pushed = pushed_return(a, d, img, &pc, &row,
						       row_then(a, d, img, shared, any_shared, s->set,
								segs, nsegs, fb, nfb, pc + 1));
			a->frames[a->nframes++] = (struct prof_frame){ row, link_pc(a, d, img, row, pc) };
		}
		if (pushed)
			w->flags &= ~(uint32_t)PROF_STACK_TRUNCATED;
	}
	for (size_t t = 0; t < d->nwall_threads; t++) {
		const struct prof_wall_thread *wt = &d->wall_threads[t];
		if (wt->unreadable == 0)
			continue;
		size_t reason = reason_id(a, "[state not read]");
		if (reason == SIZE_MAX ||
		    !new_wall(a, d, names, nnames, (double)wt->unreadable, wt->tid,
			      PROF_TS_UNKNOWN, reason))
			goto fail;
	}
	free(shared);
	free(names);
	return 0;
fail:
	free(shared);
	free(names);
	return -1;
}

static int cmp_seg(const void *x, const void *y)
{
	const struct prof_seg *a = x, *b = y;
	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/*
 * The runtime layout of one file's objects: every image's segments moved to
 * the object's load bias and sorted (segs), the objects' text ranges as the
 * fallback rows (fb), and per object the segments of its image alone (for a
 * histogram the file says is that object's; made on first use).  Building
 * it sorts every segment of every object, which for a program with large
 * libraries is most of the cost of a file; the files of a process tree (a
 * server's forked children) mostly share one layout, so the attribution
 * keeps the last LAYOUT_CACHE layouts and reuses one whose objects have the
 * same images, biases and text ranges.
 */
#define LAYOUT_CACHE 16

struct layout_obj {		/* what of an object the layout depends on */
	size_t img;
	uint64_t bias, text_lo, text_hi;
};

struct layout {
	size_t nobjs;
	struct layout_obj *key;	/* [nobjs] */
	struct prof_seg *segs, *fb;
	size_t nsegs, nfb;
	struct prof_seg **os;	/* [nobjs]: object i's own segments, sorted, or NULL */
	size_t *on;
};

static void layout_free(struct layout *l)
{
	if (l == NULL)
		return;
	for (size_t i = 0; i < l->nobjs; i++)
		free(l->os[i]);
	free(l->os);
	free(l->on);
	free(l->key);
	free(l->segs);
	free(l->fb);
	free(l);
}

static int layout_is(const struct layout *l, const struct prof_data *d, const size_t *img)
{
	if (l->nobjs != d->nobjs)
		return 0;
	for (size_t i = 0; i < d->nobjs; i++) {
		const struct prof_object *o = &d->objs[i];
		const struct layout_obj *k = &l->key[i];
		if (k->img != img[i] || k->bias != o->bias || k->text_lo != o->text_lo ||
		    k->text_hi != o->text_hi)
			return 0;
	}
	return 1;
}

static struct layout *layout_make(const struct prof_attr *a, const struct prof_data *d,
				  const size_t *img)
{
	struct layout *l = calloc(1, sizeof *l);
	if (l == NULL)
		return NULL;
	size_t n = d->nobjs ? d->nobjs : 1, nsegs = 0, nfb = 0;
	l->nobjs = d->nobjs;
	l->key = malloc(n * sizeof *l->key);
	l->os = calloc(n, sizeof *l->os);
	l->on = calloc(n, sizeof *l->on);
	for (size_t i = 0; i < d->nobjs; i++)
		nsegs += img_segs(a, img[i])->n;
	l->segs = malloc((nsegs ? nsegs : 1) * sizeof *l->segs);
	l->fb = malloc(n * sizeof *l->fb);
	if (!l->key || !l->os || !l->on || !l->segs || !l->fb) {
		layout_free(l);
		return NULL;
	}
	nsegs = 0;
	for (size_t i = 0; i < d->nobjs; i++) {
		const struct prof_object *o = &d->objs[i];
		const struct imgsegs *s = img_segs(a, img[i]);
		l->key[i] = (struct layout_obj){ img[i], o->bias, o->text_lo, o->text_hi };
		for (size_t k = 0; k < s->n; k++) {
			l->segs[nsegs].lo = s->v[k].lo + o->bias;
			l->segs[nsegs].hi = s->v[k].hi + o->bias;
			l->segs[nsegs].row = s->v[k].row;
			if (l->segs[nsegs].lo < l->segs[nsegs].hi)	/* no wrap-around */
				nsegs++;
		}
		if (o->text_hi > o->text_lo)
			l->fb[nfb++] = (struct prof_seg){ o->text_lo, o->text_hi, s->object_row };
	}
	qsort(l->segs, nsegs, sizeof *l->segs, cmp_seg);
	qsort(l->fb, nfb, sizeof *l->fb, cmp_seg);
	/* Objects recorded as overlapping would make segments overlap: keep
	 * the first of two that do (a corrupt object list must not crash). */
	size_t w = 0;
	for (size_t k = 0; k < nsegs; k++)
		if (w == 0 || l->segs[k].lo >= l->segs[w - 1].hi)
			l->segs[w++] = l->segs[k];
	l->nsegs = w;
	w = 0;
	for (size_t k = 0; k < nfb; k++)
		if (w == 0 || l->fb[k].lo >= l->fb[w - 1].hi)
			l->fb[w++] = l->fb[k];
	l->nfb = w;
	return l;
}

/* The layout of d's objects (img: their images), from the cache or made
 * and cached (most recent first).  NULL: out of memory. */
static struct layout *layout_for(struct prof_attr *a, const struct prof_data *d, const size_t *img)
{
	size_t i = 0;
	while (i < a->nlayouts && !layout_is(a->layouts[i], d, img))
		i++;
	struct layout *l;
	if (i < a->nlayouts) {
		l = a->layouts[i];
	} else {
		if (a->layouts == NULL &&
		    (a->layouts = calloc(LAYOUT_CACHE, sizeof *a->layouts)) == NULL)
			return NULL;
		if ((l = layout_make(a, d, img)) == NULL)
			return NULL;
		if (a->nlayouts == LAYOUT_CACHE)
			layout_free(a->layouts[--a->nlayouts]);
		i = a->nlayouts++;
	}
	memmove(a->layouts + 1, a->layouts, i * sizeof *a->layouts);
	a->layouts[0] = l;
	return l;
}

/* Object k's own segments in layout l (for a histogram of that object
 * only: another may have been mapped at the same addresses before or
 * after), made on first use.  -1: out of memory. */
static int layout_own(const struct prof_attr *a, struct layout *l, const struct prof_data *d,
		      size_t k)
{
	if (l->os[k])
		return 0;
	const struct prof_object *o = &d->objs[k];
	const struct imgsegs *s = img_segs(a, l->key[k].img);
	struct prof_seg *os = malloc((s->n ? s->n : 1) * sizeof *os);
	size_t on = 0;
	if (!os)
		return -1;
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].lo + o->bias < s->v[i].hi + o->bias)
			os[on++] = (struct prof_seg){ s->v[i].lo + o->bias, s->v[i].hi + o->bias,
						      s->v[i].row };
	qsort(os, on, sizeof *os, cmp_seg);
	l->os[k] = os;
	l->on[k] = on;
	return 0;
}

/* The per-file scratch arrays by row (ticks, stack leaves, marks) grown to
 * a->nrows, new entries zero; between files every entry is zero again (only
 * the rows a file touched are cleared, so a file costs what it holds, not
 * the number of rows).  -1: out of memory. */
static int scratch_grow(struct prof_attr *a)
{
	if (a->nrows <= a->scratch_cap)
		return 0;
	size_t c = a->nrows * 2, old = a->scratch_cap;
	double *t = realloc(a->fticks, c * sizeof *t);
	if (t)
		a->fticks = t;
	double *l = realloc(a->fleaf, c * sizeof *l);
	if (l)
		a->fleaf = l;
	unsigned char *m = realloc(a->fmark, c);
	if (m)
		a->fmark = m;
	size_t *u = realloc(a->touched, c * sizeof *u);
	if (u)
		a->touched = u;
	if (!t || !l || !m || !u)
		return -1;
	memset(a->fticks + old, 0, (c - old) * sizeof *t);
	memset(a->fleaf + old, 0, (c - old) * sizeof *l);
	memset(a->fmark + old, 0, c - old);
	a->scratch_cap = c;
	return 0;
}

static int ranged_row(const struct prof_row *w)
{
	return w->kind == PROF_ROW_FUNC || w->kind == PROF_ROW_GAP || w->kind == PROF_ROW_UNWIND;
}

/*
 * One file's histogram ticks (ticks[r]) against its stack samples by leaf
 * row (leaf[r]), after each touched row's stacked_ticks got min(leaf,
 * ticks).  A bin that straddles rows is split between them by bytes (System
 * V's split, binmap.c), but a stack's leaf is the exact PC: a row whose
 * stacks are more than its histogram share got too little of a straddling
 * bin, and the rows beside it, within one bin's width (binw bytes), got
 * that excess.  It is taken from their unexplained rest (their
 * stacked_ticks grow by it), nearest rows first, so that the flat view,
 * which gives the row its stacks' samples, does not count it twice: the
 * profile's samples add up to the histogram's ticks.  leaf[q] of a row
 * given up from grows by what it gave (the caller zeroes every touched
 * row's leaf after the file).
 */
static void take_split_excess(struct prof_attr *a, const double *ticks, double *leaf,
			      uint64_t binw, double rate)
{
	for (size_t u = 0; binw && u < a->ntouched; u++) {
		size_t r = a->touched[u];
		const struct prof_row *w = &a->rows[r];
		double x = leaf[r] - ticks[r];
		if (!(ticks[r] > 0 && x > 0) || !ranged_row(w))
			continue;
		int below = 1, above = 1;
		for (size_t dist = 1; x > 0 && (below || above); dist++) {
			for (int side = 0; side < 2 && x > 0; side++) {
				int *open = side ? &above : &below;
				if (!*open)
					continue;
				size_t q = side ? r + dist : r - dist;
				const struct prof_row *v = side ? (r + dist < a->nrows ? &a->rows[q] : NULL)
								: (dist <= r ? &a->rows[q] : NULL);
				if (!v || v->image != w->image || !ranged_row(v) ||
				    (side ? v->addr >= w->addr + w->size + binw
					  : v->addr + v->size + binw <= w->addr)) {
					*open = 0;
					continue;
				}
				double avail = ticks[q] - leaf[q];
				if (!(avail > 0))
					continue;
				double take = avail < x ? avail : x;
				leaf[q] += take;
				a->rows[q].stacked_ticks += take;
				a->rows[q].stacked_seconds += take / rate;
				x -= take;
			}
		}
	}
}

static void touch(struct prof_attr *a, size_t r)
{
	if (!a->fmark[r]) {
		a->fmark[r] = 1;
		a->touched[a->ntouched++] = r;
	}
}

/* Marks every row a share of histogram h's non-zero bins can go to: the
 * segments (sorted, disjoint) that overlap a non-zero bin's bytes (the
 * fallback and [unknown] rows the caller marks). */
static void touch_hist(struct prof_attr *a, const struct prof_hist *h, const struct prof_seg *segs,
		       size_t nsegs)
{
	size_t n = h->idx ? h->nnz : h->nbins;
	for (size_t k = 0; k < n; k++) {
		if (!h->idx && h->bins[k] == 0)
			continue;
		uint64_t bin = h->idx ? h->idx[k] : k;
		uint64_t lo = binmap_start(h, bin), hi = binmap_start(h, bin + 1);
		if (hi > h->highpc)
			hi = h->highpc;
		size_t l = 0, r = nsegs;
		while (l < r) {		/* the first segment ending above lo */
			size_t mid = l + (r - l) / 2;
			if (segs[mid].hi <= lo)
				l = mid + 1;
			else
				r = mid;
		}
		for (; l < nsegs && segs[l].lo < hi; l++)
			touch(a, segs[l].row);
	}
}

int attr_add(struct prof_attr *a, const struct prof_data *d, const char *prog,
	     char *err, size_t errlen)
{
	size_t *img = calloc(d->nobjs ? d->nobjs : 1, sizeof *img);
	struct prof_seg *segs = NULL, *fb = NULL;
	double *ticks = NULL, *leaf = NULL;
	uint64_t *pbias = NULL;	/* --lines: each image's bias in this file */
	size_t s0 = a->nstacks;	/* this file's stacks, for its wall samples */
	int rc = -1;

	if (!img)
		goto nomem;
	if (a->unknown_row == SIZE_MAX &&
	    (a->unknown_row = new_row(a, PROF_ROW_UNKNOWN, 0, 0, NULL)) == SIZE_MAX)
		goto nomem;

	/* The main program's imports first: they name the aliases of the
	 * objects it calls (symtab.c). */
	for (size_t i = 0; i < d->nobjs && a->imports.names == NULL; i++) {
		const struct prof_object *o = &d->objs[i];
		const char *path = o->is_main && prog ? prog : o->path;
		if (o->is_main && !o->no_file && path && symtab_imports(path, &a->imports) < 0)
			goto nomem;
	}
	/* Images, and the runtime segments of every object. */
	size_t nsegs = 0, nfb = 0;
	for (size_t i = 0; i < d->nobjs; i++) {
		const struct prof_object *o = &d->objs[i];
		const char *path = o->is_main && prog ? prog : o->path;
		if (path == NULL) {
			snprintf(err, errlen, "no executable: name the program that wrote %s",
				 d->file);
			goto out;
		}
		if ((img[i] = image_for(a, d, o, path, err, errlen)) == SIZE_MAX)
			goto out;
		if (o->is_main && a->main_image == SIZE_MAX)
			a->main_image = img[i];
		if (o->is_main)
			a->images[img[i]]->is_program = 1;
	}
	struct layout *lay = layout_for(a, d, img);
	if (lay == NULL)
		goto nomem;
	segs = lay->segs;
	nsegs = lay->nsegs;
	fb = lay->fb;
	nfb = lay->nfb;

	if (scratch_grow(a) < 0)
		goto nomem;
	ticks = a->fticks;
	a->ntouched = 0;
	touch(a, a->unknown_row);
	for (size_t k = 0; k < nfb; k++)
		touch(a, fb[k].row);
	double file_ticks = 0;
	uint64_t binw = 0;	/* the widest bin of the file's histograms, bytes */
	struct piece_ctx pctx = { a, NULL, d->run.rate_hz > 0 ? d->run.rate_hz : 1, 0 };
	struct prof_piece_sink psink = { take_piece, &pctx }, *ps = NULL;
	if (a->keep_pieces) {
		pbias = malloc((a->nimages ? a->nimages : 1) * sizeof *pbias);
		if (!pbias)
			goto nomem;
		for (size_t i = 0; i < a->nimages; i++)
			pbias[i] = UINT64_MAX;
		for (size_t i = 0; i < d->nobjs; i++)
			pbias[img[i]] = d->objs[i].bias;
		pctx.bias = pbias;
		ps = &psink;
	}
	for (size_t h = 0; h < d->nhists; h++) {
		const struct prof_hist *hi = &d->hists[h];
		if (hi->has_object && hi->object < d->nobjs) {
			/* Only the object the histogram was made for: another may
			 * have been mapped at the same addresses before or after. */
			const struct prof_object *o = &d->objs[hi->object];
			const struct imgsegs *s = img_segs(a, img[hi->object]);
			if (layout_own(a, lay, d, hi->object) < 0)
				goto nomem;
			touch(a, s->object_row);
			touch_hist(a, hi, lay->os[hi->object], lay->on[hi->object]);
			struct prof_seg ofb = { o->text_lo, o->text_hi, s->object_row };
			file_ticks += binmap_spread_pieces(hi, lay->os[hi->object], lay->on[hi->object],
							   &ofb, o->text_hi > o->text_lo,
							   a->unknown_row, ticks, ps);
		} else {
			touch_hist(a, hi, segs, nsegs);
			file_ticks += binmap_spread_pieces(hi, segs, nsegs, fb, nfb, a->unknown_row,
							   ticks, ps);
		}
		/* The scale, or for gmon.out's uniform bins the profil(2) scale
		 * that gives bins of the same width (4 bytes: 0x8000). */
		uint32_t sc = hi->scale;
		if (hi->binmap != PROF_BIN_PROFIL) {
			unsigned __int128 x = (unsigned __int128)hi->nbins * 131072u /
					      (hi->highpc - hi->lowpc);
			sc = x > 65536 ? 65536 : (uint32_t)x;
		}
		if (sc && (a->scale_min == 0 || sc < a->scale_min))
			a->scale_min = sc;
		if (sc && (131072u + sc - 1) / sc > binw)
			binw = (131072u + sc - 1) / sc;
		if (sc > a->scale_max)
			a->scale_max = sc;
	}
	if (pctx.nomem)
		goto nomem;
	double rate = d->run.rate_hz > 0 ? d->run.rate_hz : 1;
	/* The call stacks: each frame's row and link-time PC; leaf[r] the
	 * samples of the stacks whose leaf is in row r. */
	s0 = a->nstacks;
	if (d->have_stacks) {
		leaf = a->fleaf;
		if (add_stacks(a, d, img, segs, nsegs, fb, nfb, rate, leaf) < 0)
			goto nomem;
	}
	if (d->have_wall && add_wall(a, d, img, segs, nsegs, fb, nfb, s0) < 0)
		goto nomem;
	for (size_t u = 0; u < a->ntouched; u++) {
		size_t r = a->touched[u];
		if (ticks[r] == 0)
			continue;
		a->rows[r].ticks += ticks[r];
		a->rows[r].seconds += ticks[r] / rate;
		/* The histogram time the stacks explain: the rest stays a
		 * one-location sample of the model (profile.h). */
		if (leaf && leaf[r] > 0) {
			double k = leaf[r] < ticks[r] ? leaf[r] : ticks[r];
			a->rows[r].stacked_ticks += k;
			a->rows[r].stacked_seconds += k / rate;
		}
	}
	if (leaf)
		take_split_excess(a, ticks, leaf, binw, rate);
	a->total_ticks += file_ticks;
	a->total_seconds += file_ticks / rate;

	for (size_t c = 0; c < d->ncounts; c++) {
		size_t row = row_at(a, segs, nsegs, fb, nfb, d->counts[c].selfpc);
		if (a->rows[row].kind != PROF_ROW_FUNC)
			a->counts_unmatched += d->counts[c].count;
		a->rows[row].calls += d->counts[c].count;
	}
	for (size_t c = 0; c < d->narcs; c++) {
		const struct prof_arc *arc = &d->arcs[c];
		struct prof_arcrow r;
		/* frompc is a return address: the call is at frompc - 1, in
		 * the caller even when the call ends it (a noreturn call). */
		uint64_t call = arc->frompc ? arc->frompc - 1 : 0;
		r.from_row = row_at(a, segs, nsegs, fb, nfb, call);
		r.to_row = row_at(a, segs, nsegs, fb, nfb, arc->selfpc);
		r.frompc = link_pc(a, d, img, r.from_row, call);
		r.selfpc = link_pc(a, d, img, r.to_row, arc->selfpc);
		r.count = arc->count;
		if (add_arc(a, &r) < 0)
			goto nomem;
	}

	/* Facts for -s: the clock and rate of the first file whose clock ran
	 * (of the first file, if none did). */
	int clocked = prof_run_clocked(&d->run);
	if (a->nfiles == 0 || (clocked && !a->clocked)) {
		a->rate_hz = d->run.rate_hz;
		snprintf(a->clock, sizeof a->clock, "%s", d->run.clock);
		a->clocked = clocked;
	} else if (clocked && a->rate_hz != d->run.rate_hz) {
		a->rates_differ = 1;
	}
	a->nfiles++;
	if (d->run.have_stats) {
		a->have_stats = 1;
		a->samples += d->run.samples;
		a->dropped += d->run.dropped;
		a->saturated += d->run.saturated;
		a->lost += d->run.lost;
	}
	if (d->run.have_cpu) {
		a->have_cpu = 1;
		a->user_s += d->run.user_s;
		a->sys_s += d->run.sys_s;
	}
	if (coverage_add(a, d) < 0)
		goto nomem;
	a->cells_used += d->ncounts;
	if (d->run.have_cells) {
		a->have_cells = 1;
		a->cells_total += d->run.cells_total;
	}
	rc = 0;
	goto out;
nomem:
	snprintf(err, errlen, "%s", strerror(ENOMEM));
out:
	free(img);
	/* The scratch arrays zero again for the next file. */
	for (size_t u = 0; a->fmark && u < a->ntouched; u++) {
		a->fticks[a->touched[u]] = 0;
		a->fmark[a->touched[u]] = 0;
		if (leaf)
			leaf[a->touched[u]] = 0;	/* take_split_excess's marks */
	}
	a->ntouched = 0;
	for (size_t i = s0; leaf && i < a->nstacks; i++)
		if (a->stacks[i].depth)
			leaf[a->frames[a->stacks[i].first].row] = 0;
	free(pbias);
	return rc;
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0.0;
}

/* The wall-clock sampling's shortfalls, in plain words with the remedy:
 * rounds missed, threads that got fewer samples than were due, states that
 * could not be read, samples or threads the runtime's tables had no room
 * for, runnable time not told from running, running time with no stack. */
/* The share of one CPU the wall sampler's own thread may use before prof
 * warns (wall-cost). */
#define WALL_COST_WARN 0.05
#define WALL_COST_MIN_S 0.01	/* seconds of the sampler's CPU */

int prof_run_clocked(const struct prof_run *r)
{
	return r->rate_hz > 0 && strcmp(r->clock, "none") != 0;
}

static void wall_warn(const struct prof_attr *a)
{
	uint64_t due = a->wall_rounds + a->wall_missed;
	if (a->wall_missed)
		prof_warn("wall-missed", "%llu of %llu wall-clock sampling rounds (%.1f %%) ran "
			  "late: the sampler thread was not on a CPU at their instants (a busy "
			  "machine, or a rate too high for this many threads); their samples were "
			  "taken at its next look, so a state shorter than the delay may be "
			  "counted for longer or missed; lower the rate (monrun --wall=HZ, "
			  "MONPROF_WALL=HZ)",
			  (unsigned long long)a->wall_missed, (unsigned long long)due,
			  pct((double)a->wall_missed, (double)due));
	/* The sampler's own CPU, when it is a load of its own: it grows with
	 * the threads that ran between its looks (each is read whole: its
	 * stack copied and walked), and at 5 % of a CPU it competes with the
	 * program it measures (the goals: 1 % at 100 Hz with 64 threads
	 * mostly blocked, 2 % at 1 kHz with 8). */
	double own = a->wall_user_s + a->wall_sys_s;
	/* ... and is more than WALL_COST_MIN_S: less is within the kernel's
	 * tick-based accounting of it, and a run that short (a wrapper that
	 * exec'd at once: "31 % of one CPU (0.000 s in 0.00 s)") has no load
	 * to lower. */
	if (a->wall_elapsed_s > 0 && own >= WALL_COST_WARN * a->wall_elapsed_s &&
	    own >= WALL_COST_MIN_S)
		prof_warn("wall-cost", "the wall-clock sampler's own thread used %.0f %% of one "
			  "CPU (%.3f s in %.2f s; the profiler's cost, not in the profile): its "
			  "cost grows with the threads that ran between its looks and with the "
			  "rate; lower the rate (monrun --wall=HZ, MONPROF_WALL=HZ)",
			  100.0 * own / a->wall_elapsed_s, own, a->wall_elapsed_s);
	if (a->wall_flags & MONOUT_WALL_F_NOT_DUMPABLE)
		prof_warn("wall-not-dumpable", "the process was not dumpable (it changed its user "
			  "or group ID, which clears the flag, or called prctl(PR_SET_DUMPABLE, 0)): "
			  "its threads' /proc files are then root's, and the system call, wait "
			  "and stack of threads the sampler had not opened before could not be "
			  "read, only their state: their waits are shown as [blocked], with no "
			  "stack; run the program as the user it becomes (not as root dropping to "
			  "it), or have it call prctl(PR_SET_DUMPABLE, 1) after the change, as "
			  "nginx does");
	/* Threads whose samples (read or not) fall short of those due by more
	 * than a round's rounding: name the worst three. */
	size_t nshort = 0, worst[3] = { SIZE_MAX, SIZE_MAX, SIZE_MAX };
	uint64_t sum_due = 0, sum_got = 0, unread = 0;
	size_t nunread = 0;
	for (size_t i = 0; i < a->nwthreads; i++) {
		const struct prof_wall_thread *t = &a->wthreads[i];
		if (t->flags & MONOUT_WALL_THREAD_SAMPLER)
			continue;
		uint64_t got = t->taken + t->unreadable;
		if (t->unreadable) {
			unread += t->unreadable;
			nunread++;
		}
		sum_due += t->expected;
		sum_got += got < t->expected ? got : t->expected;
		if (got + 1 >= t->expected || (double)got >= 0.95 * (double)t->expected)
			continue;
		nshort++;
		double f = (double)got / (double)t->expected;
		for (int k = 0; k < 3; k++) {
			const struct prof_wall_thread *w = worst[k] == SIZE_MAX ? NULL
							  : &a->wthreads[worst[k]];
			if (!w || f < (double)(w->taken + w->unreadable) / (double)w->expected) {
				for (int j = 2; j > k; j--)
					worst[j] = worst[j - 1];
				worst[k] = i;
				break;
			}
		}
	}
	if (nshort) {
		char names[400] = "";
		size_t at = 0;
		for (int k = 0; k < 3 && worst[k] != SIZE_MAX && at < sizeof names; k++) {
			const struct prof_wall_thread *t = &a->wthreads[worst[k]];
			int n = snprintf(names + at, sizeof names - at, "%s%s-%llu %llu of %llu",
					 k ? ", " : "", t->name[0] ? t->name : "thread",
					 (unsigned long long)t->tid,
					 (unsigned long long)(t->taken + t->unreadable),
					 (unsigned long long)t->expected);
			at += n > 0 ? (size_t)n : 0;
		}
		prof_warn("wall-short", "%zu thread%s got fewer wall-clock samples than were due "
			  "(%s); in all %.1f %% of the %llu samples due were taken: their wall-clock "
			  "and off-CPU times are short by as much; lower the rate (monrun "
			  "--wall=HZ, MONPROF_WALL=HZ)", nshort, nshort == 1 ? "" : "s", names,
			  pct((double)sum_got, (double)sum_due), (unsigned long long)sum_due);
	}
	if (unread)
		prof_warn("wall-unreadable", "%llu wall-clock %s of %zu thread%s could not "
			  "read the thread's state (its /proc entry was gone or unreadable): shown "
			  "as [state not read], counted in wall-clock time, not in off-CPU time",
			  (unsigned long long)unread, prof_pl(unread, "sample", "samples"), nunread,
			  nunread == 1 ? "" : "s");
	if (a->wall_lost)
		prof_warn("wall-lost", "%llu wall-clock %s taken but not recorded: the "
			  "runtime's wall sample table was full (65536 different stacks and "
			  "waits); times are short by as much; cut the run into "
			  "intervals (monrun --interval=SEC, MONPROF_INTERVAL=SEC; if it was cut already, "
			  "into shorter ones): each cut gives back the entries its file holds",
			  (unsigned long long)a->wall_lost,
			  prof_pl(a->wall_lost, "sample was", "samples were"));
	if (a->wall_threads_unlisted)
		prof_warn("wall-threads-unlisted", "%u %s not wall-clock sampled: the "
			  "wall sampler's thread table was full (8192 threads); %s "
			  "wall-clock time is missing; cut the run into intervals (monrun "
			  "--interval=SEC, MONPROF_INTERVAL=SEC; if it was cut already, into shorter ones): each "
			  "cut gives back the entries of the threads that ended",
			  a->wall_threads_unlisted,
			  prof_pl(a->wall_threads_unlisted, "thread was", "threads were"),
			  prof_pl(a->wall_threads_unlisted, "its", "their"));
	if (a->wall_flags & MONOUT_WALL_F_NO_SCHEDSTAT)
		prof_warn("wall-no-schedstat", "runnable time cannot be told from running time: "
			  "the kernel gives no /proc/PID/task/TID/schedstat (CONFIG_SCHED_INFO), so "
			  "every sample of a thread in state R counts as running");
	/* Blocked threads' walks (from the SP and PC of /proc's syscall file,
	 * no frame pointer) that ended early. */
	double blocked = 0, cut = 0;
	for (size_t i = 0; i < a->nwalls; i++) {
		const struct prof_wallrow *w = &a->walls[i];
		if (w->state < PROF_TS_BLOCKED || w->state > PROF_TS_OTHER || w->depth == 0)
			continue;
		blocked += w->count;
		if (w->flags & PROF_STACK_TRUNCATED)
			cut += w->count;
	}
	if (cut > 0)
		prof_warn("wall-truncated", "%.0f off-CPU wall-clock %s (%.1f %% of the %.0f "
			  "with a stack) %s a call stack that ends early: the walk from a "
			  "blocked thread's SP and PC (the kernel gives no frame pointer) found "
			  "no frame record where a frame needs one, or met unreadable memory; "
			  "their callers are missing, shown as [truncated] in the call graph and the stack formats; CPU samples of the "
			  "same code have whole stacks (a signal gives the walk every register)",
			  cut, prof_pl(cut, "sample", "samples"), pct(cut, blocked), blocked,
			  prof_pl(cut, "has", "have"));
	if (a->wall_running_unplaced > 0)
		prof_warn("wall-no-stack", "%.0f wall-clock %s of running threads %s no "
			  "call stack: the CPU clock recorded none for their threads (they ran too "
			  "little for a CPU sample; no CPU clock was armed in them or could reach "
			  "them: a thread the C library starts itself blocks every signal; or "
			  "stacks were off: MONPROF_STACK_DEPTH=0), shown as [running]",
			  a->wall_running_unplaced,
			  prof_pl(a->wall_running_unplaced, "sample", "samples"),
			  prof_pl(a->wall_running_unplaced, "has", "have"));
}

void attr_finish(struct prof_attr *a)
{
	int taken = a->cov != NULL && (a->cov->flags & MONOUT_FACT_CLOCK_TAKEN);
	if (taken)
		prof_warn("clock-taken", "the program installed its own SIGPROF handler, which the "
			  "itimer clock needs (ITIMER_PROF and SIGPROF are one per process): the "
			  "clock stopped there, so the profile holds only the time before it and "
			  "the CPU after it is counted as lost; profile this program with the perf "
			  "or the thread clock (monrun -c perf, monrun -c thread, MONPROF_CLOCK)");
	if (a->cov != NULL && (a->cov->flags & MONOUT_FACT_CLOCK_CUT))
		prof_warn("clock-cut", "the itimer clock stopped early: a thread that blocked "
			  "SIGPROF used the CPU (one the C library starts itself for a SIGEV_THREAD "
			  "timer, mq_notify or POSIX AIO, which blocks every signal; a raw clone's; "
			  "one that blocked every signal itself with the raw rt_sigprocmask system "
			  "call, past libmon's pthread_sigmask; one in its last steps, which the C "
			  "library runs with every signal blocked; "
			  "or one in a signal handler of the program's installed with SA_ONSTACK, "
			  "in which libmon holds its ticks to spare the alternate stack), and the "
			  "kernel gave the process's SIGPROF to a waiting thread instead, ending its "
			  "system call with EINTR (once: the clock stopped there, so the profile "
			  "holds only the time before it and the CPU after it is counted as lost); "
			  "profile this program with the perf or the thread clock, which sample "
			  "each thread on its own (monrun -c perf, monrun -c thread, MONPROF_CLOCK)");
	if (a->cov != NULL && (a->cov->flags & MONOUT_FACT_SIGQ_SHORT))
		prof_warn("sigpending", "the thread clock's timers would have taken more than a "
			  "quarter of the program's pending-signal quota (RLIMIT_SIGPENDING, "
			  "ulimit -i), which its own timers and signals need: the runtime sampled "
			  "with the itimer clock instead, or left threads unsampled under the perf "
			  "clock; raise the limit (ulimit -i) for a per-thread clock");
	if (a->cov != NULL && (a->cov->flags & MONOUT_FACT_CLOCKS_FULL))
		prof_warn("clocks-full", "more threads were alive at once than the runtime's "
			  "per-thread clocks hold (4096): threads started then had no clock and "
			  "were not sampled (their CPU is in the process's totals, not in the "
			  "profile); the itimer clock samples every thread of the process "
			  "(monrun -c itimer, MONPROF_CLOCK=itimer)");
	double walls = 0;
	for (size_t i = 0; i < a->nwalls; i++)
		walls += a->walls[i].count;
	/* Why no sample: too little CPU, unless the facts say the program
	 * used more than a couple of ticks' worth (then no thread that used
	 * it was sampled: the coverage warning names them). */
	char why[160] = "the program used less CPU than one clock tick, or profiling was off";
	if (a->cov != NULL && a->cov->nfacts) {
		double used = a->cov->cpu_user_s - a->cov->cpu_before_s;
		if (used >= 2.0 / (a->rate_hz > 0 ? a->rate_hz : 100))
			snprintf(why, sizeof why, "the program used %.3f s of user CPU, but not in "
				 "a thread a clock sampled, or not while profiling was on", used);
	}
	if (a->total_ticks == 0 && !taken && walls > 0)
		/* A program that waited all along (a shell waiting for its
		 * child): its time is in the wall-clock samples. */
		prof_warn("no-samples", "no CPU samples: the CPU histograms are empty (%s); its "
			  "%.0f wall-clock %s are shown with --sample=wall and --sample=offcpu%s",
			  why, walls, prof_pl(walls, "sample", "samples"),
			  a->cells_used ? "; call counts are shown" : "");
	else if (a->total_ticks == 0 && !taken)
		prof_warn("no-samples", "no samples: the histograms are empty, so the report "
			  "has no time (%s)%s", why, a->cells_used ? "; call counts are shown" : "");
	uint64_t seen = a->samples ? a->samples : (uint64_t)a->total_ticks;
	if (a->saturated)
		prof_warn("saturated", "%llu %s (%.1f %% of %llu) %s not counted: "
			  "%s histogram %s full (saturated)",
			  (unsigned long long)a->saturated, prof_pl(a->saturated, "sample", "samples"),
			  pct((double)a->saturated, (double)seen), (unsigned long long)seen,
			  prof_pl(a->saturated, "was", "were"),
			  prof_pl(a->saturated, "its", "their"),
			  prof_pl(a->saturated, "bin was", "bins were"));
	if (a->dropped)
		prof_warn("dropped", "%llu %s (%.1f %% of %llu) %s dropped: %s PC "
			  "fell outside every histogram (past the end of the buffer, or "
			  "in code no histogram covered)",
			  (unsigned long long)a->dropped, prof_pl(a->dropped, "sample", "samples"),
			  pct((double)a->dropped, (double)seen), (unsigned long long)seen,
			  prof_pl(a->dropped, "was", "were"), prof_pl(a->dropped, "its", "their"));
	int cut = a->cov != NULL && (a->cov->flags & MONOUT_FACT_CLOCK_CUT);
	if (a->lost && (taken || cut))
		prof_warn("lost", "%llu %s lost: periods of CPU after %s, when no clock ran "
			  "(see above)", (unsigned long long)a->lost,
			  prof_pl(a->lost, "sample was", "samples were"),
			  taken ? "the program took SIGPROF" : "the itimer clock stopped");
	else if (a->lost)
		prof_warn("lost", "%llu %s (%.1f %% of %llu) %s lost while the "
			  "histogram was being changed or could not be written",
			  (unsigned long long)a->lost, prof_pl(a->lost, "sample", "samples"),
			  pct((double)a->lost, (double)seen), (unsigned long long)seen,
			  prof_pl(a->lost, "was", "were"));
	/* Call stacks: what the paths leave out, in plain words. */
	if (a->have_stacks) {
		double all = a->stack_samples + (double)a->stacks_lost;
		if (a->stacks_lost)
			prof_warn("stacks-lost", "%llu %s (%.1f %% of %.0f) %s no call stack: "
				  "the runtime's stack table was full; %s time is in the flat "
				  "profile but in no path (inclusive times, the call graph and "
				  "folded stacks leave it out); let the table hold more with "
				  "MONPROF_STACK_TABLE=N (monrun --stack-table=N; 4194304 at most, "
				  "the default), or cut the run with monrun --interval=SEC (each "
				  "interval's tables start empty)",
				  (unsigned long long)a->stacks_lost,
				  prof_pl(a->stacks_lost, "sample", "samples"),
				  pct((double)a->stacks_lost, all), all,
				  prof_pl(a->stacks_lost, "has", "have"),
				  prof_pl(a->stacks_lost, "its", "their"));
		if (a->stacks_truncated)
			prof_warn("stacks-truncated", "%llu %s (%.1f %% of the %.0f with a stack) "
				  "%s a call stack that ends early (the walk met unreadable memory "
				  "or code without unwind information): %s callers are missing, "
				  "shown as [truncated] in the call graph and the stack formats",
				  (unsigned long long)a->stacks_truncated,
				  prof_pl(a->stacks_truncated, "sample", "samples"),
				  pct((double)a->stacks_truncated, a->stack_samples), a->stack_samples,
				  prof_pl(a->stacks_truncated, "has", "have"),
				  prof_pl(a->stacks_truncated, "its", "their"));
		if (a->stacks_depth)
			prof_warn("stacks-depth", "%llu %s (%.1f %% of the %.0f with a stack) "
				  "%s a call stack deeper than the runtime kept "
				  "(MONPROF_STACK_DEPTH): %s outermost callers are missing, "
				  "shown as [truncated] in the call graph and the stack formats",
				  (unsigned long long)a->stacks_depth,
				  prof_pl(a->stacks_depth, "sample", "samples"),
				  pct((double)a->stacks_depth, a->stack_samples), a->stack_samples,
				  prof_pl(a->stacks_depth, "has", "have"),
				  prof_pl(a->stacks_depth, "its", "their"));
		if (a->stacks_jit)
			prof_warn("stacks-jit", "%llu %s (%.1f %% of the %.0f with a stack) "
				  "reached code in no loaded object (code a JIT compiler made): "
				  "the walk stopped there, so %s callers are missing, shown as [jit] in the call graph and the stack formats",
				  (unsigned long long)a->stacks_jit,
				  prof_pl(a->stacks_jit, "sample", "samples"),
				  pct((double)a->stacks_jit, a->stack_samples), a->stack_samples,
				  prof_pl(a->stacks_jit, "its", "their"));
	}
	if (a->have_wall)
		wall_warn(a);
	/* Objects whose time is shown by unwind ranges for want of symbols. */
	for (size_t i = 0; i < a->nimages; i++) {
		const struct prof_image *im = a->images[i];
		double t = 0;
		for (size_t r = 0; r < a->nrows; r++) {
			const struct prof_row *w = &a->rows[r];
			if (w->image != i || w->kind == PROF_ROW_UNKNOWN)
				continue;
			if (w->kind == PROF_ROW_UNWIND)
				t += w->ticks;
		}
		int full = (im->from & (PROF_SYMS_SYMTAB | PROF_SYMS_DEBUG | PROF_SYMS_DEBUGLINK |
					PROF_SYMS_MINIDEBUG | PROF_SYMS_DEBUGINFOD)) != 0;
		/* (-l asked for the globals only: its locals' ranges are expected;
		 * under a thousandth of the samples, the warning is noise: a
		 * stripped program whose work is in its libraries, said as
		 * "0.0 %" by a new user's xz) */
		if (t == 0 || a->total_ticks == 0 || (full && !a->locals) || 1000 * t < a->total_ticks)
			continue;
		/* With DEBUGINFOD_URLS set, its servers were asked (libdwfl) and
		 * gave nothing: say so rather than advise setting it. */
		const char *urls = getenv("DEBUGINFOD_URLS");
		prof_warn("unwind-only", "%s %s: %.1f %% of the samples are shown as "
			  "[%s]+0xSTART rows, one per function its unwind table (.eh_frame) "
			  "marks out; install its debug symbols%s for names",
			  im->path,
			  full ? "has functions its symbol table does not name"
			  : (im->from & PROF_SYMS_DYNSYM) ? "has only its exported symbols (stripped)"
			  : "has no symbols (stripped)",
			  pct(t, a->total_ticks), im->label,
			  !(urls && urls[0]) ? " (or set DEBUGINFOD_URLS)"
			  : im->build_id_len == 0 ? " (DEBUGINFOD_URLS is set, but a server is asked "
						    "by build ID and the object has none)"
						  : " (DEBUGINFOD_URLS is set, and its servers gave "
						    "none: they lack its build ID or were not reached)");
	}
	if (a->cov)
		coverage_threads_merge(a->cov);
	coverage_warn(a);
}

void attr_free(struct prof_attr *a)
{
	for (size_t i = 0; i < a->nimages; i++) {
		free(img_segs(a, i)->v);
		symtab_free(a->images[i]);
		free(a->images[i]);
	}
	free(a->images);
	free(a->isegs);
	for (size_t i = 0; i < a->nlayouts; i++)
		layout_free(a->layouts[i]);
	free(a->fticks);
	free(a->fleaf);
	free(a->fmark);
	free(a->touched);
	free(a->layouts);
	free(a->rows);
	free(a->arcs);
	free(a->pieces);
	free(a->stacks);
	free(a->frames);
	free(a->walls);
	free(a->wplace);
	for (size_t i = 0; i < a->nreasons; i++)
		free(a->reasons[i]);
	free(a->reasons);
	free(a->wthreads);
	coverage_free(a);
	symtab_imports_free(&a->imports);
	memset(a, 0, sizeof *a);
}
