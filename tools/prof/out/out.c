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

const char *prof_kind_name(int k)
{
	switch (k) {
	case PROF_FN_FUNC: return "function";
	case PROF_FN_GAP: return "gap";
	case PROF_FN_UNWIND: return "unwind";
	case PROF_FN_OBJECT: return "object";
	case PROF_FN_MARKER: return "marker";
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

int prof_flat_make(const struct prof_profile *p, const struct prof_opts *o, struct prof_flat *f)
{
	size_t nf = p->nfunctions ? p->nfunctions : 1;
	f->all = calloc(nf, sizeof *f->all);
	f->order = malloc(nf * sizeof *f->order);
	size_t *seen = malloc(nf * sizeof *seen);	/* the last sample that counted it */
	f->n = 0;
	f->inclusive = p->facts.have_stacks;
	/* The rows' sum: with stacks a row's own time is its stacks' leaf
	 * samples plus the histogram time they leave unexplained, which adds up
	 * to a little more than the histograms hold (samples dropped or lost
	 * for the histograms still have a stack; System V's split of a bin is
	 * not where the stacks' exact PCs fell), so the shares of every format
	 * are of the same total. */
	int sum_rows = o->only_thread || p->facts.have_stacks;
	f->total_seconds = sum_rows ? 0 : p->facts.total_seconds;
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
		r->samples += s->value[PROF_VAL_SAMPLES];
		r->seconds += s->value[PROF_VAL_CPU];
		r->calls += (uint64_t)s->value[PROF_VAL_CALLS];
		if (sum_rows)
			f->total_seconds += s->value[PROF_VAL_CPU];
		/* Inclusive: once per sample for each function of its stack. */
		for (size_t k = 0; k < s->nlocations; k++) {
			const struct prof_location *l = &p->locations[s->locations[k]];
			for (size_t j = 0; j < l->nlines; j++) {
				size_t fn = l->lines[j].function;
				if (seen[fn] == i)
					continue;
				seen[fn] = i;
				f->all[fn].incl_samples += s->value[PROF_VAL_SAMPLES];
				f->all[fn].incl_seconds += s->value[PROF_VAL_CPU];
			}
		}
	}
	free(seen);
	for (size_t i = 0; i < p->nfunctions; i++) {
		const struct prof_flat_row *r = &f->all[i];
		int kind = p->functions[i].kind;
		if (kind == PROF_FN_MARKER)
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
