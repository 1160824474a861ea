/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * out.c — the renderers' table, and the flat view of the model that the
 * System V, JSON and CSV renderers share.
 */
#include "out.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const struct prof_renderer prof_renderers[] = {
	{ "text", prof_render_text },
	{ "json", prof_render_json },
	{ "csv", prof_render_csv },
	{ "graph", prof_render_graph },
	{ "folded", prof_render_folded },
	{ "pprof", prof_render_pprof },
	{ "callgrind", prof_render_callgrind },
	{ "flame", prof_render_flame },
	{ NULL, NULL }
};

const struct prof_renderer *prof_renderer_find(const char *name)
{
	for (const struct prof_renderer *r = prof_renderers; r->name; r++)
		if (strcmp(r->name, name) == 0)
			return r;
	return NULL;
}

const char *prof_renderer_names(char *buf, size_t len)
{
	size_t n = 0, at = 0;
	while (prof_renderers[n].name)
		n++;
	buf[0] = '\0';
	for (size_t i = 0; i < n && at < len; i++) {
		int w = snprintf(buf + at, len - at, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ",
				 prof_renderers[i].name);
		if (w < 0)
			break;
		at += (size_t)w;
	}
	return buf;
}

int prof_render(const struct prof_profile *p, const struct prof_opts *o, FILE *out, FILE *err)
{
	const struct prof_renderer *r = o->renderer ? o->renderer : &prof_renderers[0];
	if (o->summary && prof_render_summary(p, o, err) < 0)
		return -1;
	if (o->base)
		return prof_render_diff(p, o, out);
	return r->render(p, o, out);
}

const struct prof_event_type *prof_event_of(const struct prof_profile *p, const struct prof_opts *o)
{
	int e = o->event >= 0 && o->event < PROF_NEV ? o->event : PROF_EV_CPU;
	return &(p->event_types ? p->event_types : prof_events)[e];
}

const struct prof_event_facts *prof_event_facts_of(const struct prof_profile *p,
						   const struct prof_opts *o)
{
	return &p->events[o->event >= 0 && o->event < PROF_NEV ? o->event : PROF_EV_CPU];
}

int prof_event_named(const struct prof_profile *p, const struct prof_opts *o)
{
	int named = o->event != 0;
	for (int e = 1; e < PROF_NEV; e++)
		named |= p->events[e].present;
	return named;
}

const char *prof_kind_name(int k)
{
	switch (k) {
	case PROF_FN_FUNC: return "function";
	case PROF_FN_GAP: return "gap";
	case PROF_FN_UNWIND: return "unwind";
	case PROF_FN_OBJECT: return "object";
	case PROF_FN_MARKER: return "marker";
	case PROF_FN_WAIT: return "wait";
	case PROF_FN_PROGRAM: return "program";
	default: return "unknown";
	}
}

/* ---- ordering ------------------------------------------------------------- */

struct sortctx {
	const struct prof_profile *p;
	const struct prof_flat *f;
	int sort;
};

static const struct sortctx *ctx;	/* qsort has no context argument in C11 */

static int by_name(size_t x, size_t y)
{
	return strcmp(ctx->p->functions[x].name, ctx->p->functions[y].name);
}

static int by_addr(const struct prof_function *p, const struct prof_function *q)
{
	/* [unknown] last; otherwise object order, then address, the object
	 * row of an object after its code. */
	if ((p->kind == PROF_FN_UNKNOWN) != (q->kind == PROF_FN_UNKNOWN))
		return p->kind == PROF_FN_UNKNOWN ? 1 : -1;
	if (p->kind != PROF_FN_UNKNOWN && p->mapping != q->mapping)
		return p->mapping < q->mapping ? -1 : 1;
	if ((p->kind == PROF_FN_OBJECT) != (q->kind == PROF_FN_OBJECT))
		return p->kind == PROF_FN_OBJECT ? 1 : -1;
	return p->start < q->start ? -1 : p->start > q->start;
}

static int cmp_rows(const void *xa, const void *ya)
{
	size_t x = *(const size_t *)xa, y = *(const size_t *)ya;
	const struct prof_flat_row *p = &ctx->f->all[x], *q = &ctx->f->all[y];
	const struct prof_function *fp = &ctx->p->functions[x], *fq = &ctx->p->functions[y];
	int c = 0;
	switch (ctx->sort) {
	case PROF_SORT_CALLS:
		if (p->calls != q->calls)
			return p->calls > q->calls ? -1 : 1;
		if (p->samples != q->samples)
			return p->samples > q->samples ? -1 : 1;
		break;
	case PROF_SORT_ADDR:
		c = by_addr(fp, fq);
		break;
	case PROF_SORT_NAME:
		c = by_name(x, y);
		break;
	default:
		if (p->seconds != q->seconds)
			return p->seconds > q->seconds ? -1 : 1;
		if (p->calls != q->calls)
			return p->calls > q->calls ? -1 : 1;
		break;
	}
	if (c == 0)
		c = by_name(x, y);
	if (c == 0)
		c = by_addr(fp, fq);
	return c;
}

const char *prof_thread_label(const struct prof_profile *p, size_t t, char *buf, size_t len)
{
	if (t >= p->nthreads)
		snprintf(buf, len, "[no thread]");
	else
		snprintf(buf, len, "%s-%llu", p->threads[t].name[0] ? p->threads[t].name : "thread",
			 (unsigned long long)p->threads[t].tid);
	return buf;
}

size_t prof_function_find(const struct prof_profile *p, const char *name)
{
	for (size_t i = 0; i < p->nfunctions; i++)
		if (strcmp(p->functions[i].name, name) == 0)
			return i;
	for (size_t i = 0; i < p->nfunctions; i++)
		if (p->functions[i].system_name && strcmp(p->functions[i].system_name, name) == 0)
			return i;
	return SIZE_MAX;
}

static int name_then(const char *full, const char *name, size_t n)
{
	return full != NULL && strncmp(full, name, n) == 0 && (full[n] == '.' || full[n] == '(');
}

size_t prof_function_like(const struct prof_profile *p, const char *name, size_t *out, size_t cap)
{
	size_t n = strlen(name), found = 0;
	for (size_t i = 0; n > 0 && i < p->nfunctions; i++)
		if (name_then(p->functions[i].name, name, n) ||
		    name_then(p->functions[i].system_name, name, n)) {
			if (found < cap)
				out[found] = i;
			found++;
		}
	return found;
}

int prof_flat_make(const struct prof_profile *p, const struct prof_opts *o, struct prof_flat *f)
{
	size_t nf = p->nfunctions ? p->nfunctions : 1;
	f->all = calloc(nf, sizeof *f->all);
	f->order = malloc(nf * sizeof *f->order);
	size_t *seen = malloc(nf * sizeof *seen);	/* the last sample that counted it */
	f->n = 0;
	const struct prof_event_type *ev = prof_event_of(p, o);
	const struct prof_event_facts *ef = prof_event_facts_of(p, o);
	int vs = ev->count, vt = ev->time;
	f->inclusive = ef->have_stacks;
	/* The rows' sum: with stacks a row's own time is its stacks' leaf
	 * samples plus the histogram time they leave unexplained, which adds up
	 * to a little more than the histograms hold (samples dropped or lost
	 * for the histograms still have a stack; System V's split of a bin is
	 * not where the stacks' exact PCs fell), so the shares of every format
	 * are of the same total. */
	int sum_rows = o->only_thread || ef->have_stacks;
	f->total_seconds = sum_rows ? 0 : ef->total_seconds;
	if (!f->all || !f->order || !seen) {
		free(seen);
		prof_flat_free(f);
		errno = ENOMEM;
		return -1;
	}
	for (size_t i = 0; i < p->nfunctions; i++) {
		f->all[i].function = i;
		seen[i] = SIZE_MAX;
	}
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];
		if (o->only_thread && (!s->stack || s->thread != o->thread))
			continue;
		const struct prof_location *leaf = &p->locations[s->locations[0]];
		struct prof_flat_row *r = &f->all[leaf->lines[0].function];
		r->samples += s->value[vs];
		r->seconds += s->value[vt];
		r->calls += (uint64_t)s->value[PROF_VAL_CALLS];
		if (sum_rows)
			f->total_seconds += s->value[vt];
		/* Inclusive: once per sample for each function of its stack. */
		for (size_t k = 0; k < s->nlocations; k++) {
			const struct prof_location *l = &p->locations[s->locations[k]];
			for (size_t j = 0; j < l->nlines; j++) {
				size_t fn = l->lines[j].function;
				if (seen[fn] == i)
					continue;
				seen[fn] = i;
				f->all[fn].incl_samples += s->value[vs];
				f->all[fn].incl_seconds += s->value[vt];
			}
		}
	}
	free(seen);
	f->total_seconds = prof_quantum(f->total_seconds);
	for (size_t i = 0; i < p->nfunctions; i++) {
		struct prof_flat_row *q = &f->all[i];
		q->samples = prof_quantum(q->samples);
		q->seconds = prof_quantum(q->seconds);
		q->incl_samples = prof_quantum(q->incl_samples);
		q->incl_seconds = prof_quantum(q->incl_seconds);
	}
	for (size_t i = 0; i < p->nfunctions; i++) {
		const struct prof_flat_row *r = &f->all[i];
		int kind = p->functions[i].kind;
		if (kind == PROF_FN_MARKER || kind == PROF_FN_PROGRAM)
			continue;
		if (r->samples > 0 || r->calls > 0 || (f->inclusive && r->incl_samples > 0) ||
		    (o->zero && kind == PROF_FN_FUNC))
			f->order[f->n++] = i;
	}
	struct sortctx c = { p, f, o->sort };
	ctx = &c;
	qsort(f->order, f->n, sizeof *f->order, cmp_rows);
	ctx = NULL;
	return 0;
}

static int cmp_reason(const void *x, const void *y)
{
	const struct prof_split_reason *a = x, *b = y;
	if (a->seconds != b->seconds)
		return a->seconds > b->seconds ? -1 : 1;
	return a->function < b->function ? -1 : a->function > b->function;
}

int prof_thread_split(const struct prof_profile *p, const struct prof_opts *o, size_t thread,
		      struct prof_split *sp)
{
	const struct prof_event_type *ev = prof_event_of(p, o);
	memset(sp, 0, sizeof *sp);
	/* One slot per function, and one for samples without a wait frame. */
	double *by = calloc(p->nfunctions + 1, sizeof *by);
	if (!by) {
		errno = ENOMEM;
		return -1;
	}
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];
		if (!s->stack || (thread != SIZE_MAX && s->thread != thread))
			continue;
		double v = s->value[ev->time];
		sp->total += v;
		if (s->state <= PROF_TS_NONE || s->state >= PROF_NTS)
			continue;
		sp->state[s->state] += v;
		if (s->state == PROF_TS_RUNNING || s->state == PROF_TS_RUNNABLE ||
		    s->state == PROF_TS_UNKNOWN || !(v > 0))
			continue;	/* not known to be waiting */
		sp->waiting += v;
		const struct prof_location *leaf = &p->locations[s->locations[0]];
		size_t fn = leaf->lines[0].function;
		by[p->functions[fn].kind == PROF_FN_WAIT ? fn : p->nfunctions] += v;
	}
	size_t n = 0;
	for (size_t f = 0; f <= p->nfunctions; f++)
		n += by[f] > 0;
	if (n && !(sp->reasons = malloc(n * sizeof *sp->reasons))) {
		free(by);
		errno = ENOMEM;
		return -1;
	}
	for (size_t f = 0; f <= p->nfunctions; f++)
		if (by[f] > 0)
			sp->reasons[sp->nreasons++] = (struct prof_split_reason){
				f == p->nfunctions ? SIZE_MAX : f, by[f] };
	qsort(sp->reasons, sp->nreasons, sizeof *sp->reasons, cmp_reason);
	free(by);
	return 0;
}

void prof_split_free(struct prof_split *sp)
{
	free(sp->reasons);
	memset(sp, 0, sizeof *sp);
}

int prof_thread_states(const struct prof_profile *p, const struct prof_opts *o, size_t thread,
		       FILE *out)
{
	struct prof_split sp;
	if (prof_thread_split(p, o, thread, &sp) < 0)
		return -1;
	double st = 0;
	for (int k = PROF_TS_RUNNING; k < PROF_NTS; k++)
		st += sp.state[k];
	if (st > 0) {
		const char *sep = ": ";
		fprintf(out, "  %s %.2f s", prof_event_of(p, o)->noun, sp.total);
		for (int k = PROF_TS_RUNNING; k < PROF_NTS; k++) {
			if (!(sp.state[k] > 0))
				continue;
			fprintf(out, "%s%s %.2f s (%.1f %%)", sep, prof_tstate_name(k), sp.state[k],
				sp.total > 0 ? 100.0 * sp.state[k] / sp.total : 0.0);
			sep = ", ";
		}
		fputc('\n', out);
		for (size_t r = 0; r < sp.nreasons; r++)
			fprintf(out, "  %9.2f s %5.1f %%  %s\n", sp.reasons[r].seconds,
				sp.total > 0 ? 100.0 * sp.reasons[r].seconds / sp.total : 0.0,
				sp.reasons[r].function == SIZE_MAX
					? "[no wait reason recorded]"
					: p->functions[sp.reasons[r].function].name);
	}
	prof_split_free(&sp);
	return 0;
}

void prof_flat_free(struct prof_flat *f)
{
	free(f->all);
	free(f->order);
	f->all = NULL;
	f->order = NULL;
	f->n = 0;
}

void prof_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

void prof_csv_str(FILE *f, const char *s)
{
	if (strpbrk(s, ",\"\r\n") == NULL) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}
