/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * flame.c — the model as a flame graph ("flame"): one self-contained SVG
 * 1.1 document (no network, no outside script or style), after Brendan
 * Gregg's flame graphs (flamegraph.pl, "The Flame Graph", CACM 59(6),
 * 2016), readable in any browser and as a still picture.
 *
 * Each of the model's samples is a stack (its locations leaf first, each
 * location's lines innermost first, so inline frames are frames); the
 * stacks are merged into a tree from the root (all samples, at the bottom)
 * to the leaves, and every node is a rectangle whose width is its samples
 * (PROF_VAL_SAMPLES, over every sample whose stack passes through it),
 * (of the event --sample asks for: CPU samples by default, wall-clock or
 * off-CPU samples), whose height is one frame, and whose level is its depth; siblings are in
 * name order, as flamegraph.pl's sorted stacks put them.  A sample of a
 * flat-only file (no STACKS record) is a one-location stack, so its graph is
 * the root and one level of functions, each as wide as its own samples: the
 * subtitle says so.  Samples that count calls only (arcs, call counts) have
 * no samples and draw nothing.  With --threads, every stack sample's thread
 * is the frame on the root, "NAME-TID" (its name from the THREADS record),
 * as in the folded stacks; the callers' view ends in it.
 *
 * Each frame is a <g> holding <title>NAME (N samples, P%)</title> (the
 * tooltip, worded as flamegraph.pl words it: N with thousands separators, to
 * two decimals when System V's split made it fractional; P of all samples,
 * two decimals), a <rect> and, where it fits, a <text> label.  Frames
 * narrower than FLAME_MINWIDTH pixels are left out with everything above
 * them (flamegraph.pl's --minwidth), which bounds the file's size by the
 * picture's width rather than by the number of stacks; past FLAME_BUDGET
 * frames, wider ones too (0.2 .. 5 px) and then the callers' view, as the
 * subtitle says.
 *
 * Colours say which object a frame's code is in: the program (oranges),
 * the C library (greens), other libraries (blues), the kernel, the vDSO and
 * other system code (purples), unknown or anonymous code (greys), and in
 * a graph of wall-clock or off-CPU samples what a thread waited for, the
 * wait frames of off-CPU samples ("[futex queue_lock]", "[read pipe]",
 * "[runnable]"), in teals of their own; within a
 * family the shade comes from a hash of the name, so a function keeps its
 * colour across graphs.  A legend names the families drawn.  Under the
 * subtitle, in red, the first warning about the samples drawn (a CPU graph
 * does not give the wall sampler's, a wall graph not the CPU clocks':
 * prof_warning_concerns), and how many more prof gave.
 *
 * The inline script (ECMAScript 5, in CDATA; its source is flame.js beside
 * this file, linted by tests/integ/flame_js.sh): click a frame to zoom (it fills
 * the width, frames above it scale with it, its callers below span the width
 * half-faded, the rest hide); "Reset Zoom" undoes it; "Search" (or Ctrl-F)
 * asks for a regular expression, paints the matching frames magenta and
 * prints the share of all samples they cover (overlapping frames counted
 * once); Escape clears it.  "Callers" flips the picture to the reversed
 * view: the same frames as an icicle of callers, each leaf function at the
 * top with the functions that called it below (drawn from a second tree of
 * the stacks read root last).  The document's fragment drives the same code
 * for links and tests: #click=NAME dispatches a click on the widest frame
 * named NAME, #search=REGEX searches, #callers shows the reversed view.
 *
 * Over time: when the files read say when they ran (two or more: the
 * interval files of monrun --interval, the processes of a tree; o->spans,
 * timeline.c), a strip above the graph has one bar per file along the
 * run's wall-clock span, as tall as the file's samples of the event asked
 * (what prof --timeline prints), each titled "#N pid P: from S s, L s
 * long, C NOUN samples (FILE)" (#N where the file is an interval), the axis
 * in seconds from the run's start; hovering a bar shows its title in the
 * details line, and #slot=N in the fragment does it for the Nth bar.  With
 * one file, or none that says its time, there is no strip.
 *
 * XML: names are escaped (& < > " '); bytes that cannot be in an XML 1.0
 * document (control characters, malformed UTF-8) are written as '?'.
 */
#include "out.h"

#include "prof.h"	/* struct prof_warning */

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Tidy an absolute path in place as text: "." components and "x/.."
 * pairs removed, repeated slashes made one ("/tmp/w/../prog": "/tmp/prog").
 * A relative path is left as it is. */
static void tidy_path(char *p)
{
	if (p[0] != '/')
		return;
	char *out = p;	/* p[0..out): the tidied part, without its last '/' */
	const char *in = p;
	while (*in) {
		while (*in == '/')
			in++;
		const char *end = strchr(in, '/');
		size_t n = end ? (size_t)(end - in) : strlen(in);
		if (n == 0 || (n == 1 && in[0] == '.')) {
			/* nothing */
		} else if (n == 2 && in[0] == '.' && in[1] == '.') {
			while (out > p && *--out != '/')
				;
		} else {
			*out++ = '/';
			memmove(out, in, n);
			out += n;
		}
		in += n;
	}
	if (out == p)
		*out++ = '/';
	*out = '\0';
}

#define FLAME_WIDTH 1200	/* pixels */
#define FLAME_XPAD 10
#define FLAME_FRAMEH 16		/* one frame's height */
#define FLAME_FONT 12		/* font size, pixels */
#define FLAME_CHARW (FLAME_FONT * 0.59)	/* a character's mean width */
#define FLAME_MINWIDTH 0.1	/* pixels: narrower frames are left out */
#define FLAME_BUDGET 16000	/* frames in the file, both views (about 1.8 MB) */
#define FLAME_TOP 84		/* title, subtitle, legend and buttons */
#define FLAME_BOTTOM 34		/* details and the search result */
#define STRIP_H 80		/* the strip of samples over time, when drawn */
#define STRIP_BARH 44		/* its tallest bar */

/* The frame under samples no stack explains, in a file with stacks. */
#define FN_NOSTACK (SIZE_MAX - 1)

/* With --threads, a stack sample's thread is the frame on the root, as in
 * the folded stacks ("NAME-TID"): the frame of thread t is FN_THREAD0 - t,
 * named thread_labels[t] (made by prof_render_flame, for this render). */
#define FN_THREAD0 (SIZE_MAX - 2)
static char (*thread_labels)[48];

static int is_thread_frame(const struct prof_profile *p, size_t fn)
{
	return fn <= FN_THREAD0 && FN_THREAD0 - fn < p->nthreads;
}

static const char *fn_name(const struct prof_profile *p, size_t fn)
{
	if (thread_labels && is_thread_frame(p, fn))
		return thread_labels[FN_THREAD0 - fn];
	return fn == SIZE_MAX ? "all" : fn == FN_NOSTACK ? "[no call stack]" : p->functions[fn].name;
}

enum objclass { OC_PROGRAM, OC_LIBC, OC_LIBRARY, OC_SYSTEM, OC_UNKNOWN, OC_OFFCPU, OC_NCLASS };

static const char *const class_names[OC_NCLASS] = {
	"program", "C library", "other libraries", "kernel, vDSO, system", "unknown",
	"off-CPU: what a thread waited for"
};

struct node {
	size_t fn;		/* function; SIZE_MAX for the root */
	size_t parent, child, next;	/* SIZE_MAX: none */
	size_t depth;
	double value;		/* samples */
	double off;		/* of them off-CPU (wall-clock samples of threads not running) */
};

struct tree {
	struct node *n;
	size_t len, cap;
	size_t *hash;		/* open addressing on (parent, fn): node index or SIZE_MAX */
	size_t hcap;
};

static size_t hkey(size_t parent, size_t fn, size_t cap)
{
	uint64_t h = (uint64_t)parent * 0x9E3779B97F4A7C15ull ^ ((uint64_t)fn + 0x632BE59BD9B4E019ull);
	h ^= h >> 29;
	h *= 0xBF58476D1CE4E5B9ull;
	h ^= h >> 32;
	return (size_t)(h & (cap - 1));
}

static int tree_grow(struct tree *t)
{
	size_t cap = t->hcap ? t->hcap * 2 : 1024;
	size_t *h = malloc(cap * sizeof *h);
	if (!h)
		return -1;
	for (size_t i = 0; i < cap; i++)
		h[i] = SIZE_MAX;
	for (size_t i = 1; i < t->len; i++) {
		size_t k = hkey(t->n[i].parent, t->n[i].fn, cap);
		while (h[k] != SIZE_MAX)
			k = (k + 1) & (cap - 1);
		h[k] = i;
	}
	free(t->hash);
	t->hash = h;
	t->hcap = cap;
	return 0;
}

/* The child of parent for function fn, made if new; SIZE_MAX without memory. */
static size_t tree_child(struct tree *t, size_t parent, size_t fn)
{
	if ((t->len + 1) * 2 > t->hcap && tree_grow(t) < 0)
		return SIZE_MAX;
	size_t k = hkey(parent, fn, t->hcap);
	for (; t->hash[k] != SIZE_MAX; k = (k + 1) & (t->hcap - 1)) {
		const struct node *c = &t->n[t->hash[k]];
		if (c->parent == parent && c->fn == fn)
			return t->hash[k];
	}
	if (t->len == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;
		struct node *nn = realloc(t->n, cap * sizeof *nn);
		if (!nn)
			return SIZE_MAX;
		t->n = nn;
		t->cap = cap;
	}
	size_t i = t->len++;
	t->n[i] = (struct node){ fn, parent, SIZE_MAX, t->n[parent].child,
				 t->n[parent].depth + 1, 0, 0 };
	t->n[parent].child = i;
	t->hash[k] = i;
	return i;
}

static void tree_free(struct tree *t)
{
	free(t->n);
	free(t->hash);
	memset(t, 0, sizeof *t);
}

/* Adds every sample's stack to t: root first (reversed = 0: the outermost
 * caller next to the root, as a flame graph stands) or leaf first
 * (reversed = 1: the callers' view).  Returns 0, or -1 (ENOMEM). */
static int tree_build(const struct prof_profile *p, const struct prof_opts *o, int reversed,
		      struct tree *t)
{
	int vs = prof_event_of(p, o)->count, stacks = prof_event_facts_of(p, o)->have_stacks;
	memset(t, 0, sizeof *t);
	t->n = malloc(1024 * sizeof *t->n);
	if (!t->n)
		return -1;
	t->cap = 1024;
	t->len = 1;
	t->n[0] = (struct node){ SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX, 0, 0, 0 };
	int voff = p->event_types[PROF_EV_OFFCPU].count;
	if (tree_grow(t) < 0)
		return -1;
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];
		double v = s->value[vs];
		if (!(v > 0))
			continue;
		t->n[0].value += v;
		size_t at = 0;
		/* With stacks, a histogram row's time no stack explains has
		 * no known callers: under "[no call stack]". */
		int nostack = stacks && !s->stack;
		size_t thread = thread_labels && s->stack && s->thread < p->nthreads
				? FN_THREAD0 - s->thread : SIZE_MAX;
		if (nostack && !reversed) {
			if ((at = tree_child(t, at, FN_NOSTACK)) == SIZE_MAX)
				return -1;
			t->n[at].value += v;
		}
		if (thread != SIZE_MAX && !reversed) {
			if ((at = tree_child(t, at, thread)) == SIZE_MAX)
				return -1;
			t->n[at].value += v;
		}
		for (size_t j = 0; j < s->nlocations; j++) {
			size_t li = reversed ? j : s->nlocations - 1 - j;
			const struct prof_location *l = &p->locations[s->locations[li]];
			for (size_t k = 0; k < l->nlines; k++) {
				size_t ki = reversed ? k : l->nlines - 1 - k;
				if ((at = tree_child(t, at, l->lines[ki].function)) == SIZE_MAX)
					return -1;
				t->n[at].value += v;
				t->n[at].off += s->value[voff] > 0 ? v : 0;
			}
		}
		if (nostack && reversed) {
			if ((at = tree_child(t, at, FN_NOSTACK)) == SIZE_MAX)
				return -1;
			t->n[at].value += v;
		}
		if (thread != SIZE_MAX && reversed) {
			if ((at = tree_child(t, at, thread)) == SIZE_MAX)
				return -1;
			t->n[at].value += v;
		}
	}
	return 0;
}

/* ---- writing ------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if malformed. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n;
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		n = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4;
	else
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	if (c == 0xE0 && s[1] < 0xA0)
		return 0;
	if (c == 0xED && s[1] >= 0xA0)	/* UTF-16 surrogates */
		return 0;
	if (c == 0xF0 && s[1] < 0x90)
		return 0;
	if (c == 0xF4 && s[1] >= 0x90)
		return 0;
	return n;
}

/* Writes at most maxch characters of s (SIZE_MAX: all) as XML character
 * data or attribute text; returns the characters written. */
static size_t put_xml(FILE *out, const char *str, size_t maxch)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t ch = 0;
	while (*s && ch < maxch) {
		size_t n = utf8_len(s);
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default:
			if (n == 0 || (*s < 0x20 && *s != '\t'))
				fputc('?', out);
			else
				fwrite(s, 1, n, out);
		}
		s += n ? n : 1;
		ch++;
	}
	return ch;
}

static size_t utf8_chars(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t ch = 0;
	while (*s) {
		size_t n = utf8_len(s);
		s += n ? n : 1;
		ch++;
	}
	return ch;
}

/* flamegraph.pl's count: thousands separated by commas; two decimals when
 * fractional. */
static void put_count(FILE *out, double v)
{
	double r = floor(v + 0.5);
	int whole = fabs(v - r) < 0.005;
	char buf[64], sep[96];
	snprintf(buf, sizeof buf, whole ? "%.0f" : "%.2f", whole ? r : v);
	size_t dot = strcspn(buf, "."), o = 0;
	for (size_t i = 0; buf[i]; i++) {
		if (i > 0 && i < dot && (dot - i) % 3 == 0)
			sep[o++] = ',';
		sep[o++] = buf[i];
	}
	sep[o] = '\0';
	fputs(sep, out);
}

static int starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The colour family of a frame: by its object; a wait frame (what a
 * wall-clock sample's thread was doing instead of running) in its own when
 * its samples are off-CPU. */
static int object_class(const struct prof_profile *p, size_t fn, double off)
{
	if (fn == SIZE_MAX || fn == FN_NOSTACK || is_thread_frame(p, fn))
		return OC_UNKNOWN;
	const struct prof_function *f = &p->functions[fn];
	if (f->kind == PROF_FN_WAIT)
		return off > 0 ? OC_OFFCPU : OC_UNKNOWN;
	if (f->kind == PROF_FN_UNKNOWN || f->mapping >= p->nmappings)
		return OC_UNKNOWN;
	const struct prof_mapping *m = &p->mappings[f->mapping];
	if (m->is_main)
		return OC_PROGRAM;
	const char *path = m->path ? m->path : "", *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	if (starts(b, "[vdso") || starts(b, "[vsyscall") || starts(b, "[kernel") ||
	    starts(b, "linux-vdso") || starts(b, "linux-gate") || starts(b, "vmlinux"))
		return OC_SYSTEM;
	if (b[0] == '[')	/* [anon], [anonymous]: code of no file */
		return OC_UNKNOWN;
	if (starts(b, "libc.so") || starts(b, "libc-"))
		return OC_LIBC;
	return OC_LIBRARY;
}

static void colour(int cls, const char *name, int *r, int *g, int *b)
{
	uint32_t h = 2166136261u;	/* FNV-1a */
	for (const unsigned char *s = (const unsigned char *)name; *s; s++)
		h = (h ^ *s) * 16777619u;
	double v = (double)(h % 1000) / 999.0, w = (double)((h >> 10) % 1000) / 999.0;
	switch (cls) {
	case OC_PROGRAM: *r = 225 + (int)(25 * w); *g = 90 + (int)(110 * v); *b = 40 + (int)(30 * w); break;
	case OC_LIBC: *r = 80 + (int)(70 * v); *g = 180 + (int)(50 * w); *b = 70 + (int)(50 * v); break;
	case OC_LIBRARY: *r = 70 + (int)(60 * v); *g = 150 + (int)(60 * w); *b = 215 + (int)(35 * v); break;
	case OC_SYSTEM: *r = 165 + (int)(50 * v); *g = 110 + (int)(50 * w); *b = 215 + (int)(30 * v); break;
	case OC_OFFCPU: *r = 40 + (int)(30 * v); *g = 170 + (int)(40 * w); *b = 190 + (int)(30 * v); break;
	default: *r = *g = *b = 175 + (int)(40 * v); break;
	}
}

/* Characters of a label that fit w pixels (the script's rule too). */
static long label_chars(double w)
{
	return (long)floor((w - 6) / FLAME_CHARW);
}

struct layout {
	const struct prof_profile *p;
	const struct tree *t;
	double total, scale;	/* pixels per sample */
	int reversed;		/* icicle: root at the top */
	double y0;		/* root's y */
	double minw;		/* pixels: narrower frames are left out */
};

static const struct prof_profile *sort_p;
static const struct tree *sort_t;

static int cmp_children(const void *x, const void *y)
{
	const struct node *a = &sort_t->n[*(const size_t *)x], *b = &sort_t->n[*(const size_t *)y];
	int c = strcmp(fn_name(sort_p, a->fn), fn_name(sort_p, b->fn));
	if (c)
		return c;
	return a->fn < b->fn ? -1 : a->fn > b->fn;
}

static void put_frame(FILE *out, const struct layout *L, size_t ni, double x)
{
	const struct node *nd = &L->t->n[ni];
	const char *name = fn_name(L->p, nd->fn);
	double w = nd->value * L->scale;
	double y = L->reversed ? L->y0 + (double)nd->depth * FLAME_FRAMEH
			       : L->y0 - (double)nd->depth * FLAME_FRAMEH;
	int r, g, b;
	if (nd->fn == SIZE_MAX)
		r = g = b = 200;
	else
		colour(object_class(L->p, nd->fn, nd->off), name, &r, &g, &b);
	fputs("<g><title>", out);
	put_xml(out, name, SIZE_MAX);
	fputs(" (", out);
	put_count(out, nd->value);
	fprintf(out, " samples, %.2f%%)</title><rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" "
		"height=\"%d\" fill=\"#%02x%02x%02x\"/>", 100.0 * nd->value / L->total,
		FLAME_XPAD + x * L->scale, y, w, FLAME_FRAMEH - 1, r, g, b);
	long n = label_chars(w);
	if (n >= 3) {
		fprintf(out, "<text x=\"%.2f\" y=\"%.1f\">", FLAME_XPAD + x * L->scale + 3,
			y + FLAME_FRAMEH - 4.5);
		if ((size_t)n >= utf8_chars(name)) {
			put_xml(out, name, SIZE_MAX);
		} else {
			put_xml(out, name, (size_t)n - 2);
			fputs("..", out);
		}
		fputs("</text>", out);
	}
	fputs("</g>\n", out);
}

/* Writes the frames of L->t at least FLAME_MINWIDTH wide, depth first.
 * Returns 0, or -1 (ENOMEM). */
static int put_tree(FILE *out, const struct layout *L)
{
	const struct tree *t = L->t;
	size_t *stack = malloc(t->len * sizeof *stack), *kids = NULL;
	double *xs = malloc(t->len * sizeof *xs);
	size_t kcap = 0;
	if (!stack || !xs)
		goto nomem;
	size_t sp = 0;
	stack[sp] = 0;
	xs[sp++] = 0;
	sort_p = L->p;
	sort_t = t;
	while (sp) {
		sp--;
		size_t ni = stack[sp];
		double x = xs[sp];
		put_frame(out, L, ni, x);
		size_t nk = 0;
		for (size_t c = t->n[ni].child; c != SIZE_MAX; c = t->n[c].next) {
			if (nk == kcap) {
				size_t cap = kcap ? kcap * 2 : 64;
				size_t *nkids = realloc(kids, cap * sizeof *nkids);
				if (!nkids)
					goto nomem;
				kids = nkids;
				kcap = cap;
			}
			kids[nk++] = c;
		}
		qsort(kids, nk, sizeof *kids, cmp_children);
		/* Pushed last to first, so that the first is written first. */
		double cx = x;
		for (size_t k = 0; k < nk; k++)
			cx += t->n[kids[k]].value;
		for (size_t k = nk; k-- > 0;) {
			cx -= t->n[kids[k]].value;
			if (t->n[kids[k]].value * L->scale < L->minw)
				continue;
			stack[sp] = kids[k];
			xs[sp++] = cx;
		}
	}
	free(stack);
	free(xs);
	free(kids);
	return 0;
nomem:
	free(stack);
	free(xs);
	free(kids);
	errno = ENOMEM;
	return -1;
}

static size_t max_depth(const struct tree *t, double scale, double minw)
{
	size_t d = 0;
	for (size_t i = 0; i < t->len; i++)
		if (t->n[i].value * scale >= minw && t->n[i].depth > d)
			d = t->n[i].depth;
	return d;
}

/* Frames at least minw wide (a node's ancestors are as wide or wider, so
 * these are exactly the frames written). */
static size_t frames_at(const struct tree *t, double scale, double minw)
{
	size_t n = 0;
	for (size_t i = 0; i < t->len; i++)
		n += t->n[i].value * scale >= minw;
	return n;
}

/* A step for the strip's axis, seconds: 1, 2 or 5 times a power of ten,
 * the least that puts at most 12 ticks on span seconds (> 0). */
static double axis_step(double span)
{
	double step = pow(10, floor(log10(span / 12)));
	if (step * 12 < span)
		step *= 2;
	if (step * 12 < span)
		step *= 2.5;
	if (step * 12 < span)
		step *= 2;
	return step;
}

/* The strip of samples over time, above the flame graph, at y = top (its
 * STRIP_H pixels): when the files read say when they ran (o->spans, two
 * or more: a series of interval files, the processes of a tree), one bar
 * per file along the run's wall-clock span (the earliest start to the
 * latest end), as wide as the file's time, as tall as its samples of the
 * event asked (the count --timeline prints; the most STRIP_BARH pixels),
 * each titled with its interval's number (#N), its start from the run's
 * start, its length and its samples; the axis in seconds from the run's
 * start.  Bars of files that overlap in time (processes side by side)
 * overlap, half-transparent. */
static void put_strip(FILE *out, const struct prof_opts *o, const struct prof_event_type *ev,
		      int top)
{
	const struct prof_span *v = o->spans;
	size_t n = o->nspans;
	double t0 = v[0].start, t1 = v[0].end;
	uint64_t most = 1;
	for (size_t i = 0; i < n; i++) {
		if (v[i].start < t0)
			t0 = v[i].start;
		if (v[i].end > t1)
			t1 = v[i].end;
		if (v[i].samples > most)
			most = v[i].samples;
	}
	double span = t1 > t0 ? t1 - t0 : 1, inner = FLAME_WIDTH - 2.0 * FLAME_XPAD;
	double px = inner / span;	/* pixels per second */
	int base = top + 18 + STRIP_BARH;	/* the bars' foot, the axis */
	fprintf(out, "<g id=\"strip\" data-files=\"%zu\" data-most=\"%llu\">\n", n,
		(unsigned long long)most);
	fprintf(out, "<text class=\"s\" x=\"%d\" y=\"%d\">%s samples of each of the %zu files "
		"over the run's %.3f s (the most: %llu)", FLAME_XPAD, top + 12, ev->noun, n,
		t1 - t0, (unsigned long long)most);
	if (o->untimed)
		fprintf(out, "; %zu file%s without a time not shown", o->untimed,
			o->untimed == 1 ? "" : "s");
	fputs("</text>\n", out);
	for (size_t i = 0; i < n; i++) {
		double x = FLAME_XPAD + (v[i].start - t0) * px, w = (v[i].end - v[i].start) * px;
		double h = (double)STRIP_BARH * (double)v[i].samples / (double)most;
		/* A gap of a pixel between neighbours, where there is room;
		 * never narrower than a pixel, so that every file shows. */
		if (w > 3)
			w -= 1;
		else if (w < 1)
			w = 1;
		/* Each bar's title (the tooltip) over its whole column, so
		 * that a bar of few samples has one too. */
		fputs("<g class=\"slot\"><title>", out);
		if (v[i].seq)
			fprintf(out, "#%llu ", (unsigned long long)v[i].seq);
		fprintf(out, "pid %llu: from %.3f s, %.3f s long, ", (unsigned long long)v[i].pid,
			v[i].start - t0, v[i].end - v[i].start);
		put_count(out, (double)v[i].samples);
		fprintf(out, " %s samples (", ev->noun);
		put_xml(out, v[i].file, SIZE_MAX);
		fprintf(out, ")</title><rect class=\"col\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" "
			"height=\"%d\" fill=\"#000\" fill-opacity=\"0\"/>", x, base - STRIP_BARH, w,
			STRIP_BARH);
		fprintf(out, "<rect class=\"slot\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
			"height=\"%.2f\" data-seq=\"%llu\" data-samples=\"%llu\" data-start=\"%.3f\" "
			"data-length=\"%.3f\" fill=\"#5a7fa8\" fill-opacity=\"0.85\"/></g>\n", x,
			base - h, w, h, (unsigned long long)v[i].seq,
			(unsigned long long)v[i].samples, v[i].start - t0, v[i].end - v[i].start);
	}
	/* The axis: a line at the bars' foot, ticks in seconds from the
	 * run's start. */
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#555\" "
		"stroke-width=\"0.5\"/>\n", FLAME_XPAD, base, FLAME_WIDTH - FLAME_XPAD, base);
	double step = axis_step(span);
	int decimals = step >= 1 ? 0 : step >= 0.1 ? 1 : step >= 0.01 ? 2 : 3;
	for (int k = 0; k * step <= span * (1 + 1e-9); k++) {
		double x = FLAME_XPAD + k * step * px;
		fprintf(out, "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"#555\" "
			"stroke-width=\"0.5\"/><text class=\"s\" x=\"%.2f\" y=\"%d\" "
			"text-anchor=\"%s\">%.*f s</text>\n", x, base, x, base + 3, x, base + 14,
			k == 0 ? "start" : x > FLAME_WIDTH - FLAME_XPAD - 20 ? "end" : "middle",
			decimals, k * step);
	}
	fprintf(out, "<text class=\"s\" x=\"%d\" y=\"%d\" text-anchor=\"end\">seconds from the "
		"run's start</text>\n", FLAME_WIDTH - FLAME_XPAD, top + 12);
	fputs("</g>\n", out);
}

/* The inline script: tools/prof/out/flame.js, embedded at build time as
 * the C string flame_js (scripts/embed.sh writes $(B)/gen/flame_js.h, and
 * refuses a script holding "]]>", which would end its CDATA section). */
#include "flame_js.h"

int prof_render_flame(const struct prof_profile *p, const struct prof_opts *o, FILE *out)
{
	const struct prof_event_type *ev = prof_event_of(p, o);
	const struct prof_event_facts *ef = prof_event_facts_of(p, o);
	struct tree t, rt;
	memset(&rt, 0, sizeof rt);
	thread_labels = NULL;
	if (o->threads && p->nthreads &&
	    (thread_labels = calloc(p->nthreads, sizeof *thread_labels)) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	for (size_t i = 0; thread_labels && i < p->nthreads; i++)
		prof_thread_label(p, i, thread_labels[i], sizeof thread_labels[i]);
	if (tree_build(p, o, 0, &t) < 0 || tree_build(p, o, 1, &rt) < 0) {
		tree_free(&t);
		tree_free(&rt);
		free(thread_labels);
		thread_labels = NULL;
		errno = ENOMEM;
		return -1;
	}
	double total = t.n[0].value;
	double scale = total > 0 ? (FLAME_WIDTH - 2.0 * FLAME_XPAD) / total : 0;
	/* The size: frames under a tenth of a pixel are left out (as
	 * flamegraph.pl's minwidth); when even so there would be more than
	 * FLAME_BUDGET frames, the narrowest wider ones too, and the callers'
	 * view when it does not fit beside: the subtitle says so. */
	static const double widths[] = { FLAME_MINWIDTH, 0.2, 0.5, 1, 2, 5 };
	double minw = FLAME_MINWIDTH;
	for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
		minw = widths[i];
		if (frames_at(&t, scale, minw) <= FLAME_BUDGET)
			break;
	}
	size_t depth = max_depth(&t, scale, minw);
	/* One level (a flat file, or nothing but leaves): the reversed view
	 * would be the same picture. */
	int flat = depth <= 1, callers = !flat && total > 0, callers_cut = 0;
	if (callers && frames_at(&t, scale, minw) + frames_at(&rt, scale, minw) > FLAME_BUDGET) {
		callers = 0;
		callers_cut = 1;
	}
	size_t rdepth = callers ? max_depth(&rt, scale, minw) : 0;
	size_t levels = (depth > rdepth ? depth : rdepth) + 1;
	/* The strip of samples over time: of two or more files that say
	 * when they ran, between the buttons and the graph. */
	int strip = o->nspans >= 2, top = FLAME_TOP + (strip ? STRIP_H : 0);
	int height = top + (int)levels * FLAME_FRAMEH + FLAME_BOTTOM;

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" data-xpad=\"%d\" data-frameh=\"%d\" "
		"data-charw=\"%.2f\" onload=\"init()\">\n", FLAME_WIDTH, height, FLAME_WIDTH,
		height, FLAME_XPAD, FLAME_FRAMEH, FLAME_CHARW);
	fprintf(out, "<style>text { font-family: Verdana, sans-serif; font-size: %dpx; "
		"fill: #000; } #flame g, #callers g, .b { cursor: pointer; } "
		"#flame g:hover rect, #callers g:hover rect { stroke: #000; stroke-width: 0.5; } "
		".b { fill: #336; } .s { fill: #555; } "
		"#strip g:hover rect.slot { fill-opacity: 1; }</style>\n", FLAME_FONT);
	fprintf(out, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n", flame_js);
	fputs("<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"#f6f6f0\"/>\n", out);

	/* Title: the program; subtitle: what the picture holds. */
	const char *prog = NULL;
	for (size_t i = 0; i < p->nmappings; i++)
		if (p->mappings[i].is_main)
			prog = p->mappings[i].path;
	fprintf(out, "<text x=\"%d\" y=\"24\" text-anchor=\"middle\" style=\"font-size: 17px\">"
		"Flame graph", FLAME_WIDTH / 2);
	if (p->nprograms > 1) {
		/* Several programs, each the root frame of its stacks. */
		/* Named while they fit the width (about 90 characters at
		 * this size), then how many more. */
		fprintf(out, " of %zu programs: ", p->nprograms);
		size_t used = 0, i = 0;
		for (; i < p->nprograms; i++) {
			const char *nm = p->functions[p->programs_fn + i].name;
			if (i > 0 && used + strlen(nm) > 70)
				break;
			if (i)
				fputs(", ", out);
			put_xml(out, nm, 70);
			used += strlen(nm) + 2;
		}
		if (i < p->nprograms)
			fprintf(out, " and %zu more", p->nprograms - i);
	} else if (prog) {
		/* The name the program was run by, made absolute by the
		 * runtime ("/tmp/w/../prog"), tidied as text: a symbolic
		 * link's name stays the name (it was run by the link). */
		char *tidy = strdup(prog);
		if (tidy != NULL)
			tidy_path(tidy);
		fputs(" of ", out);
		put_xml(out, tidy ? tidy : prog, SIZE_MAX);
		free(tidy);
	}
	fputs("</text>\n", out);
	fprintf(out, "<text class=\"s\" x=\"%d\" y=\"42\" text-anchor=\"middle\">", FLAME_WIDTH / 2);
	put_count(out, total);
	fprintf(out, " %s (%.3f s of %s", prof_pl(fabs(total - 1) < 0.005 ? 1 : 2, "sample", "samples"), ef->total_seconds,
		ev->noun);
	if (ef->rate_hz > 0)
		fprintf(out, " at %.0f Hz%s", ef->rate_hz,
			ef->rates_differ ? " in the first file, other rates in others" : "");
	fputs(flat ? "); flat profile: the data hold no call stacks, so each frame is one "
		     "function's own samples" : "); callers below, callees above, width: samples",
	      out);
	if (minw > FLAME_MINWIDTH)
		fprintf(out, "; frames under %g px left out", minw);
	if (callers_cut)
		fputs("; no callers' view (too many frames)", out);
	fputs("</text>\n", out);
	/* The first warning about the samples drawn (not the wall sampler's
	 * in the CPU graph, nor the CPU clocks' in a wall or off-CPU one),
	 * and how many more there are. */
	int cpu_view = o->event != PROF_EV_WALL && o->event != PROF_EV_OFFCPU;
	const struct prof_warning *first = NULL;
	size_t nmore = 0;
	for (size_t i = 0; i < p->facts.nwarnings; i++)
		if (prof_warning_concerns(&p->facts.warnings[i], cpu_view)) {
			if (first)
				nmore++;
			else
				first = &p->facts.warnings[i];
		}
	if (first) {
		/* One line within the page's width (it was cut off at both
		 * ends past 1200 px): the first warning as far as it fits, with
		 * an ellipsis, whole in the line's tooltip. */
		char more[80] = "";
		if (nmore)
			snprintf(more, sizeof more, " (and %zu more: see prof's standard error)",
				 nmore);
		const char *text = first->text;
		size_t fit = (size_t)((FLAME_WIDTH - 2 * FLAME_XPAD) / FLAME_CHARW);
		size_t used = strlen("warning: ") + strlen(more) + 1;
		size_t room = fit > used ? fit - used : 0;
		fprintf(out, "<text class=\"s\" x=\"%d\" y=\"58\" text-anchor=\"middle\" "
			"fill=\"#a00\"><title>", FLAME_WIDTH / 2);
		put_xml(out, text, SIZE_MAX);
		fputs("</title>warning: ", out);
		put_xml(out, text, room);
		if (utf8_chars(text) > room)
			fputs("\u2026", out);
		fputs(more, out);
		fputs("</text>\n", out);
	}
	/* Legend: the object classes. */
	/* (The off-CPU family only in a graph of wall-clock or off-CPU
	 * samples: a CPU graph has no waits.) */
	int nclass = !cpu_view && p->events[PROF_EV_OFFCPU].present ? OC_NCLASS : OC_OFFCPU;
	for (int c = 0, x = FLAME_XPAD; c < nclass; c++) {
		int r, g, b;
		colour(c, "legend", &r, &g, &b);
		fprintf(out, "<rect x=\"%d\" y=\"66\" width=\"10\" height=\"10\" "
			"fill=\"rgb(%d,%d,%d)\"/><text x=\"%d\" y=\"75\">%s</text>\n", x, r, g, b,
			x + 14, class_names[c]);
		x += 14 + (int)(strlen(class_names[c]) * FLAME_CHARW) + 20;
	}
	fprintf(out, "<text id=\"unzoom\" class=\"b\" x=\"%d\" y=\"24\" display=\"none\">"
		"Reset Zoom</text>\n", FLAME_XPAD);
	fprintf(out, "<text id=\"search\" class=\"b\" x=\"%d\" y=\"24\" text-anchor=\"end\">"
		"Search</text>\n", FLAME_WIDTH - FLAME_XPAD);
	if (callers)
		fprintf(out, "<text id=\"flip\" class=\"b\" x=\"%d\" y=\"75\" text-anchor=\"end\">"
			"Callers</text>\n", FLAME_WIDTH - FLAME_XPAD);
	if (strip)
		put_strip(out, o, ev, FLAME_TOP);
	fprintf(out, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", FLAME_XPAD,
		height - 12);
	fprintf(out, "<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"></text>\n",
		FLAME_WIDTH - FLAME_XPAD, height - 12);

	int rc = 0;
	struct layout L = { p, &t, total > 0 ? total : 1, scale, 0,
			    (double)(height - FLAME_BOTTOM - FLAME_FRAMEH), minw };
	fputs("<g id=\"flame\">\n", out);
	if (total > 0)
		rc = put_tree(out, &L);
	else
		fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">no samples: "
			"nothing to draw</text>\n", FLAME_WIDTH / 2, top + FLAME_FRAMEH);
	fputs("</g>\n", out);
	if (rc == 0 && callers) {
		struct layout R = { p, &rt, total, scale, 1, (double)top, minw };
		fputs("<g id=\"callers\" display=\"none\">\n", out);
		rc = put_tree(out, &R);
		fputs("</g>\n", out);
	}
	fputs("</svg>\n", out);
	tree_free(&t);
	tree_free(&rt);
	free(thread_labels);
	thread_labels = NULL;
	return rc;
}
