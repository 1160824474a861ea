/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * diff.c — prof --base=FILE: each function's change from a base profile
 * of the same program to this one, in the text, JSON and CSV formats (the
 * flat view of both models, as perf diff and pprof -diff_base compare).
 *
 * A function is the same in both profiles when its name and its object
 * are: the object by path, except the program itself, which matches the
 * other profile's program whatever path each run recorded.  A wait frame
 * (--sample=wall, offcpu) names threads by id, which differ from run to
 * run: its name is compared without them ("[futex queue_lock, held by tid
 * 4242 (holder)]" is the other run's "... held by tid 5151 (holder)]"),
 * and the row shows this profile's; waits that then have one name (joins
 * of threads of one name) are paired in the order of their shares.  Its
 * share is
 * percent of each profile's own sampled time of the event asked
 * (--sample: CPU by default; prof's %Time column); the change in
 * percentage points is this profile's share minus the base's, and the
 * change in seconds this profile's seconds minus the base's.  The seconds'
 * column is titled as the model titles the event (Seconds, Wallsecs, ...).
 * Rows are every function with samples in either profile, the largest
 * change in percentage points first (by magnitude), then the largest
 * change in seconds, then by name.
 *
 *   text:  %Time   Base  Change  Seconds   Base  Change  Name
 *           60.0   40.0   +20.0     0.60   0.40   +0.20  heavy
 *   JSON: {"schema":"monprof-prof-diff","version":1,"base":FILE,...,
 *          "rows":[{"name":"heavy",...,"percent":60,"base_percent":40,
 *          "delta_percent":20,"seconds":0.6,"base_seconds":0.4,
 *          "delta_seconds":0.2}]}
 *   CSV:  name,kind,object,percent,base_percent,delta_percent,seconds,
 *         base_seconds,delta_seconds
 */
#include "out.h"

#include "prof.h"	/* struct prof_warning */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct drow {
	const struct prof_profile *from;	/* the profile that names it */
	size_t fn;
	double pct, bpct, secs, bsecs;
};

static const char *object_key(const struct prof_profile *p, size_t fn)
{
	const struct prof_function *f = &p->functions[fn];
	if (f->kind == PROF_FN_UNKNOWN || f->mapping >= p->nmappings)
		return "";
	if (p->mappings[f->mapping].is_main)
		return "\001program";
	return p->mappings[f->mapping].path ? p->mappings[f->mapping].path : "";
}

/* The next byte of a function's name as compared, from *at on: in a wait
 * frame's name, a thread id ("tid " and its digits) is passed over.  0 at
 * the end. */
static unsigned char name_next(const char **at, int wait)
{
	const char *c = *at;
	if (wait && strncmp(c, "tid ", 4) == 0 && c[4] >= '0' && c[4] <= '9') {
		c += 4;
		while (*c >= '0' && *c <= '9')
			c++;
	}
	*at = *c ? c + 1 : c;
	return (unsigned char)*c;
}

/* Names equal as compared (key_hash hashes the same bytes). */
static int same_name(const struct prof_function *a, const struct prof_function *b)
{
	const char *x = a->name, *y = b->name;
	for (;;) {
		unsigned char cx = name_next(&x, a->kind == PROF_FN_WAIT);
		unsigned char cy = name_next(&y, b->kind == PROF_FN_WAIT);
		if (cx != cy)
			return 0;
		if (cx == 0)
			return 1;
	}
}

static int same_fn(const struct prof_profile *p, size_t i, const struct prof_profile *q, size_t j)
{
	return same_name(&p->functions[i], &q->functions[j]) &&
	       strcmp(object_key(p, i), object_key(q, j)) == 0;
}

static int cmp_drow(const void *x, const void *y)
{
	const struct drow *a = x, *b = y;
	double da = fabs(a->pct - a->bpct), db = fabs(b->pct - b->bpct);
	if (da != db)
		return da > db ? -1 : 1;
	da = fabs(a->secs - a->bsecs);
	db = fabs(b->secs - b->bsecs);
	if (da != db)
		return da > db ? -1 : 1;
	return strcmp(a->from->functions[a->fn].name, b->from->functions[b->fn].name);
}

/* A hash of (name, object) over q's functions, for matching. */
static size_t key_hash(const struct prof_profile *p, size_t fn)
{
	uint64_t h = 1469598103934665603ull;
	const struct prof_function *f = &p->functions[fn];
	const char *at = f->name;
	for (unsigned char c; (c = name_next(&at, f->kind == PROF_FN_WAIT)) != 0;)
		h = (h ^ c) * 1099511628211ull;
	for (const unsigned char *s = (const unsigned char *)object_key(p, fn); *s; s++)
		h = (h ^ *s) * 1099511628211ull;
	return (size_t)h;
}

/* The rows of the diff of p against base, ordered; *rows malloc'd. */
static int diff_make(const struct prof_profile *p, const struct prof_profile *base,
		     const struct prof_opts *o, struct drow **rows, size_t *nrows)
{
	struct prof_flat f, g;
	struct drow *r = NULL;
	size_t *tab = NULL, cap = 1, n = 0;
	if (prof_flat_make(p, o, &f) < 0)
		return -1;
	if (prof_flat_make(base, o, &g) < 0) {
		prof_flat_free(&f);
		return -1;
	}
	while (cap < 2 * (g.n + 1))
		cap *= 2;
	r = malloc((f.n + g.n + 1) * sizeof *r);
	tab = malloc(cap * sizeof *tab);
	char *used = calloc(g.n + 1, 1);
	if (!r || !tab || !used)
		goto nomem;
	for (size_t i = 0; i < cap; i++)
		tab[i] = SIZE_MAX;
	for (size_t k = 0; k < g.n; k++) {
		size_t h = key_hash(base, g.order[k]) & (cap - 1);
		while (tab[h] != SIZE_MAX)
			h = (h + 1) & (cap - 1);
		tab[h] = k;
	}
	double tp = prof_event_facts_of(p, o)->total_seconds;
	double tb = prof_event_facts_of(base, o)->total_seconds;
	for (size_t i = 0; i < f.n; i++) {
		const struct prof_flat_row *w = &f.all[f.order[i]];
		struct drow d = { p, w->function, tp > 0 ? 100.0 * w->seconds / tp : 0, 0, w->seconds, 0 };
		for (size_t h = key_hash(p, w->function) & (cap - 1); tab[h] != SIZE_MAX;
		     h = (h + 1) & (cap - 1)) {
			size_t k = tab[h];
			if (!used[k] && same_fn(p, w->function, base, g.order[k])) {
				const struct prof_flat_row *b = &g.all[g.order[k]];
				d.bsecs = b->seconds;
				d.bpct = tb > 0 ? 100.0 * b->seconds / tb : 0;
				used[k] = 1;
				break;
			}
		}
		r[n++] = d;
	}
	for (size_t k = 0; k < g.n; k++) {
		if (used[k])
			continue;
		const struct prof_flat_row *b = &g.all[g.order[k]];
		r[n++] = (struct drow){ base, b->function, 0, tb > 0 ? 100.0 * b->seconds / tb : 0,
					0, b->seconds };
	}
	qsort(r, n, sizeof *r, cmp_drow);
	free(tab);
	free(used);
	prof_flat_free(&f);
	prof_flat_free(&g);
	*rows = r;
	*nrows = n;
	return 0;
nomem:
	free(r);
	free(tab);
	free(used);
	prof_flat_free(&f);
	prof_flat_free(&g);
	errno = ENOMEM;
	return -1;
}

static const char *object_path(const struct drow *d)
{
	const struct prof_function *fn = &d->from->functions[d->fn];
	if (fn->kind == PROF_FN_UNKNOWN || fn->mapping >= d->from->nmappings)
		return NULL;
	return d->from->mappings[fn->mapping].path;
}

int prof_diff_supported(const struct prof_renderer *r)
{
	const char *n = r ? r->name : prof_renderers[0].name;
	return strcmp(n, "text") == 0 || strcmp(n, "json") == 0 || strcmp(n, "csv") == 0;
}

int prof_render_diff(const struct prof_profile *p, const struct prof_opts *o, FILE *out)
{
	const char *fmt = o->renderer ? o->renderer->name : "text";
	const struct prof_event_type *ev = prof_event_of(p, o);
	const struct prof_event_facts *ef = prof_event_facts_of(p, o), *bf = prof_event_facts_of(o->base, o);
	/* The seconds' columns: 7 wide (Seconds), wider for a longer title. */
	int sw = strlen(ev->column) > 7 ? (int)strlen(ev->column) : 7;
	struct drow *r;
	size_t n;
	if (diff_make(p, o->base, o, &r, &n) < 0)
		return -1;
	if (strcmp(fmt, "json") == 0) {
		fputs("{\"schema\":\"monprof-prof-diff\",\"version\":1,\"base\":", out);
		prof_json_str(out, o->base_file ? o->base_file : "");
		if (prof_event_named(p, o)) {
			fputs(",\"sample\":", out);
			prof_json_str(out, ev->name);
		}
		fprintf(out, ",\"total_seconds\":%.15g,\"base_total_seconds\":%.15g,"
			"\"total_ticks\":%.15g,\"base_total_ticks\":%.15g,\"warnings\":[",
			ef->total_seconds, bf->total_seconds, ef->total_samples, bf->total_samples);
		for (size_t i = 0; i < p->facts.nwarnings; i++) {
			fputs(i ? ",{\"code\":" : "{\"code\":", out);
			prof_json_str(out, p->facts.warnings[i].code);
			fputs(",\"message\":", out);
			prof_json_str(out, p->facts.warnings[i].text);
			fputc('}', out);
		}
		fputs("],\"rows\":[", out);
		for (size_t i = 0; i < n; i++) {
			const struct prof_function *fn = &r[i].from->functions[r[i].fn];
			const char *obj = object_path(&r[i]);
			fputs(i ? ",\n{\"name\":" : "\n{\"name\":", out);
			prof_json_str(out, fn->name);
			fprintf(out, ",\"kind\":\"%s\",\"object\":", prof_kind_name(fn->kind));
			if (obj)
				prof_json_str(out, obj);
			else
				fputs("null", out);
			fprintf(out, ",\"percent\":%.15g,\"base_percent\":%.15g,\"delta_percent\":%.15g,"
				"\"seconds\":%.15g,\"base_seconds\":%.15g,\"delta_seconds\":%.15g}",
				r[i].pct, r[i].bpct, r[i].pct - r[i].bpct, r[i].secs, r[i].bsecs,
				r[i].secs - r[i].bsecs);
		}
		fputs("\n]}\n", out);
	} else if (strcmp(fmt, "csv") == 0) {
		fputs("name,kind,object,percent,base_percent,delta_percent,seconds,base_seconds,"
		      "delta_seconds\n", out);
		for (size_t i = 0; i < n; i++) {
			const struct prof_function *fn = &r[i].from->functions[r[i].fn];
			const char *obj = object_path(&r[i]);
			prof_csv_str(out, fn->name);
			fprintf(out, ",%s,", prof_kind_name(fn->kind));
			if (obj)
				prof_csv_str(out, obj);
			fprintf(out, ",%.6f,%.6f,%+.6f,%.6f,%.6f,%+.6f\n", r[i].pct, r[i].bpct,
				r[i].pct - r[i].bpct, r[i].secs, r[i].bsecs, r[i].secs - r[i].bsecs);
		}
	} else {
		if (!o->no_heading)
			fprintf(out, " %%Time   Base  Change %*s %*s %*s  Name"
				"   (change: this profile minus %s)\n", sw, ev->column, sw, "Base", sw,
				"Change", o->base_file ? o->base_file : "the base");
		for (size_t i = 0; i < n; i++)
			fprintf(out, "%6.1f %6.1f %+7.1f %*.2f %*.2f %+*.2f  %s\n", r[i].pct, r[i].bpct,
				r[i].pct - r[i].bpct, sw, r[i].secs, sw, r[i].bsecs, sw,
				r[i].secs - r[i].bsecs, r[i].from->functions[r[i].fn].name);
	}
	free(r);
	return 0;
}
