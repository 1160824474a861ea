/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * callgrind.c — the model in callgrind's format ("callgrind"), the text
 * format Valgrind's callgrind writes and callgrind_annotate and KCachegrind
 * read (Valgrind's manual, "Callgrind Format Specification", version 1).
 *
 *   # callgrind format
 *   version: 1
 *   creator: monprof prof
 *   positions: line
 *   events: Samples CPU_ns
 *   ob=(1) /path/prog             object (mapping), name compression:
 *   fl=(1) /src/prog.c            "(id) name" the first time, "(id)" after
 *   fn=(2) heavy
 *   31 60 600000000               self cost at line 31 (0: not known)
 *   cob=(1)
 *   cfi=(1)
 *   cfn=(3) light
 *   calls=41 0                    calls from heavy into light (target 0),
 *   33                            from its line 33; the inclusive cost of
 *                                 those calls: not known without stacks
 *   ...
 *   totals: 100 1000000000
 *
 * Events: one per sample type of each event the profile holds, as the
 * model names them (prof_sample_types[].event): Samples, profiling-clock
 * samples, rounded to integers per line (System V's split makes fractional
 * ones); CPU_ns, the samples over the rate, in nanoseconds; with wall-clock
 * samples also Wall_samples, Wall_ns, OffCPU_samples and OffCPU_ns.  The
 * event --sample asks for comes first (callgrind_annotate sorts by the
 * first event; KCachegrind shows it first).  Self costs come from each sample's leaf (so they
 * are prof's flat profile); calls lines from the frames of each sample's
 * stack, caller above callee: the count is the sample's arc-calls value on
 * its first (leaf) edge, and the inclusive cost the sample's samples and
 * CPU on every edge of its stack, once per sample however often recursion
 * repeats the edge.  Today a sample is one location (time) or a {callee,
 * caller} arc (calls, no time), so every inclusive cost is 0 and the header
 * says that it is not known; with stacks (a STACKS record) the same code
 * writes true inclusive costs: each stack's cost once on the call out of
 * each function it holds (the innermost frame's; none for the leaf's
 * function), so that self plus calls, which callgrind_annotate
 * --inclusive=yes adds, is prof's inclusive time, recursion included.  An
 * edge seen in stacks but never counted is written calls=1 (callgrind_
 * annotate 3.19 reads the cost after calls=0 as the caller's self cost);
 * edges with neither calls nor cost are left out.  The source file is the
 * one DWARF names (main.c reads the line tables for this format: lines.c
 * PROF_LINES_OUTER, the functions prof's own, each at its line), "???"
 * where it names none (as valgrind writes an unknown file), and the line 0
 * where the model has none.  A calls= line's position is the caller's line
 * of the call; its target position is 0 (where the callee was entered is
 * not known).
 */
#include "out.h"

#include "prof.h"	/* struct prof_warning */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The events written: two sample types (samples, time) per event. */
#define NCOST (2 * PROF_NEV)

struct cost {			/* a self cost at one position of one function */
	size_t fn;
	int64_t line;
	double c[NCOST];	/* by the events' order (the file's "events:" line) */
};

struct edge {			/* calls from one position into one function */
	size_t fn, cfn;
	int64_t line, cline;
	double calls, c[NCOST];
};

static int cmp_cost(const void *x, const void *y)
{
	const struct cost *p = x, *q = y;
	if (p->fn != q->fn)
		return p->fn < q->fn ? -1 : 1;
	return p->line < q->line ? -1 : p->line > q->line;
}

static int cmp_edge(const void *x, const void *y)
{
	const struct edge *p = x, *q = y;
	if (p->fn != q->fn)
		return p->fn < q->fn ? -1 : 1;
	if (p->line != q->line)
		return p->line < q->line ? -1 : 1;
	if (p->cfn != q->cfn)
		return p->cfn < q->cfn ? -1 : 1;
	return p->cline < q->cline ? -1 : p->cline > q->cline;
}

struct frame {
	size_t fn;
	int64_t line;
};

/* The names written so far, for name compression: one flag per id; and
 * each function's file id (1: "???", a file no line table named). */
struct names {
	unsigned char *ob, *fn, *fl;
	size_t *flid;		/* per function (and [no call stack]) */
};

static const struct prof_profile *sort_p;

static int cmp_file(const void *x, const void *y)
{
	const char *a = sort_p->functions[*(const size_t *)x].filename;
	const char *b = sort_p->functions[*(const size_t *)y].filename;
	return strcmp(a, b);
}

/* Number the source files the functions name (--lines and --annotate fill
 * them from DWARF): equal names, equal ids, from 2. */
static int number_files(const struct prof_profile *p, struct names *nm)
{
	size_t n = 0, *v = malloc((p->nfunctions + 1) * sizeof *v);
	if (v == NULL)
		return -1;
	for (size_t f = 0; f <= p->nfunctions; f++) {
		nm->flid[f] = 1;
		if (f < p->nfunctions && p->functions[f].filename)
			v[n++] = f;
	}
	sort_p = p;
	qsort(v, n, sizeof *v, cmp_file);
	size_t id = 1;
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || strcmp(p->functions[v[i]].filename, p->functions[v[i - 1]].filename))
			id++;
		nm->flid[v[i]] = id;
	}
	free(v);
	return 0;
}

static void put_ob(FILE *out, const char *key, const struct prof_profile *p, size_t m,
		   struct names *nm)
{
	size_t id = m == SIZE_MAX ? p->nmappings + 1 : m + 1;
	fprintf(out, "%s=(%zu)", key, id);
	if (!nm->ob[id]) {
		fprintf(out, " %s", m == SIZE_MAX ? "???" : p->mappings[m].path);
		nm->ob[id] = 1;
	}
	fputc('\n', out);
}

static void put_fl(FILE *out, const char *key, const struct prof_profile *p, size_t f,
		   struct names *nm)
{
	size_t id = nm->flid[f];
	fprintf(out, "%s=(%zu)", key, id);
	if (!nm->fl[id]) {
		fprintf(out, " %s", id == 1 ? "???" : p->functions[f].filename);
		nm->fl[id] = 1;
	}
	fputc('\n', out);
}

static void put_fn(FILE *out, const char *key, const struct prof_profile *p, size_t f,
		   struct names *nm)
{
	fprintf(out, "%s=(%zu)", key, f + 1);
	if (!nm->fn[f + 1]) {
		fprintf(out, " %s", f == p->nfunctions ? "[no call stack]" : p->functions[f].name);
		nm->fn[f + 1] = 1;
	}
	fputc('\n', out);
}

static int64_t rounded(double v)
{
	return v > 0 ? (int64_t)llround(v) : 0;
}

/* Whether every one of the n costs is 0 (as rounded when written). */
static int no_cost(const double *c, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (rounded(c[k]) != 0)
			return 0;
	return 1;
}

/* The self costs v[0..n) of one function (its lines) made whole samples
 * that add up to the function's total rounded once (the flat profile's
 * row, as callgrind_annotate adds them): each line's part rounded down,
 * and what the total still lacks given one each to the lines whose parts
 * lost the most (the earlier line of a tie).  Rounded line by line, two
 * lines of 0.5 (System V's split of a bin at a function's edge) made 2 of
 * the function's 1.  frac: room for n doubles. */
static void whole_parts(struct cost *v, size_t n, size_t nct, double *frac)
{
	for (size_t k = 0; k < nct; k++) {
		double sum = 0;
		int64_t floors = 0;
		for (size_t i = 0; i < n; i++) {
			sum += v[i].c[k];
			floors += v[i].c[k] > 0 ? (int64_t)floor(v[i].c[k]) : 0;
		}
		int64_t left = (sum > 0 ? llround(sum) : 0) - floors;
		for (size_t i = 0; i < n; i++) {
			frac[i] = v[i].c[k] > 0 ? v[i].c[k] - floor(v[i].c[k]) : 0;
			v[i].c[k] = v[i].c[k] > 0 ? floor(v[i].c[k]) : 0;
		}
		for (; left > 0; left--) {
			size_t best = 0;
			for (size_t i = 1; i < n; i++)
				if (frac[i] > frac[best])
					best = i;
			v[best].c[k] += 1;
			frac[best] = -1;
		}
	}
}

/* Writes line and the n costs, rounded; adds them to tot (NULL: not). */
static void put_costs(FILE *out, int64_t line, const double *c, size_t n, int64_t *tot)
{
	fprintf(out, "%lld", (long long)line);
	for (size_t k = 0; k < n; k++) {
		fprintf(out, " %lld", (long long)rounded(c[k]));
		if (tot)
			tot[k] += rounded(c[k]);
	}
	fputc('\n', out);
}

int prof_render_callgrind(const struct prof_profile *p, const struct prof_opts *o, FILE *out)
{
	/* The costs: the asked event's sample types first, then every other
	 * event the profile holds; each in its export unit (nanoseconds). */
	int ct[NCOST];
	size_t nct = 0;
	int stacks = 0;	/* some event has stacks: time no stack explains has
			 * the caller [no call stack] */
	for (int pass = 0; pass < 2; pass++)
		for (int e = 0; e < PROF_NEV; e++) {
			if ((pass == 0) != (e == o->event) || !p->events[e].present)
				continue;
			ct[nct++] = p->event_types[e].count;
			ct[nct++] = p->event_types[e].time;
			stacks |= p->events[e].have_stacks;
		}
	size_t nframes = 0, maxframes = 0;
	for (size_t i = 0; i < p->nsamples; i++) {
		size_t n = 0;
		for (size_t j = 0; j < p->samples[i].nlocations; j++)
			n += p->locations[p->samples[i].locations[j]].nlines;
		nframes += n;	/* edges, and one from [no call stack] */
		maxframes = n > maxframes ? n : maxframes;
	}
	struct cost *self = malloc((p->nsamples ? p->nsamples : 1) * sizeof *self);
	struct edge *edges = malloc((nframes ? nframes : 1) * sizeof *edges);
	struct frame *fr = malloc((maxframes + 1) * sizeof *fr);
	struct names nm = { calloc(p->nmappings + 2, 1), calloc(p->nfunctions + 2, 1),
			    calloc(p->nfunctions + 3, 1), malloc((p->nfunctions + 1) * sizeof(size_t)) };
	if (!self || !edges || !fr || !nm.ob || !nm.fn || !nm.fl || !nm.flid ||
	    number_files(p, &nm) < 0) {
		free(self), free(edges), free(fr), free(nm.ob), free(nm.fn), free(nm.fl), free(nm.flid);
		errno = ENOMEM;
		return -1;
	}

	/* Each sample: its frames, leaf first (a location's lines innermost
	 * first); the self cost at the leaf; an edge per pair of frames. */
	size_t nself = 0, nedges = 0;
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];
		size_t n = 0;
		for (size_t j = 0; j < s->nlocations; j++) {
			const struct prof_location *lc = &p->locations[s->locations[j]];
			for (size_t k = 0; k < lc->nlines; k++)
				fr[n++] = (struct frame){ lc->lines[k].function, lc->lines[k].line };
		}
		double c[NCOST];
		int costs = 0;
		for (size_t k = 0; k < nct; k++) {
			c[k] = s->value[ct[k]] * p->sample_types[ct[k]].export_scale;
			costs |= c[k] > 0;
		}
		/* With stacks, time no stack explains is called from
		 * "[no call stack]": its callers are not known, and the calls
		 * into the function still add up to its inclusive time. */
		if (stacks && !s->stack && n == 1 && costs)
			fr[n++] = (struct frame){ p->nfunctions, 0 };
		if (costs) {
			struct cost *sc = &self[nself++];
			*sc = (struct cost){ .fn = fr[0].fn, .line = fr[0].line };
			memcpy(sc->c, c, sizeof c);
		}
		size_t first = nedges;
		for (size_t j = 0; j + 1 < n; j++) {
			/* The stack's cost goes to one call into each function
			 * it holds but the root: the call into its outermost
			 * frame, so that the costs of the calls into a function
			 * add up to its inclusive cost under recursion too
			 * (callgrind_annotate --inclusive=yes adds them so). */
			int charged = 1;
			for (size_t k = j + 1; k < n && charged; k++)
				charged = fr[k].fn != fr[j].fn;
			/* The call's position is the caller's line; its target
			 * position (where in the callee it arrives) 0, not
			 * known: the callee's frame line is where that
			 * function was, not where the call came in, and would
			 * split one call into as many (callgrind_annotate
			 * counted main called 4 times). */
			struct edge e = { fr[j + 1].fn, fr[j].fn, fr[j + 1].line, 0,
					  j == 0 ? s->value[PROF_VAL_ARC] : 0, { 0 } };
			if (charged)
				memcpy(e.c, c, sizeof c);
			/* Recursion: an edge already in this stack costs once. */
			size_t d = first;
			while (d < nedges && cmp_edge(&edges[d], &e) != 0)
				d++;
			if (d < nedges)
				edges[d].calls += e.calls;
			else
				edges[nedges++] = e;
		}
	}
	qsort(self, nself, sizeof *self, cmp_cost);
	qsort(edges, nedges, sizeof *edges, cmp_edge);
	size_t u = 0;
	for (size_t i = 0; i < nself; i++) {
		if (u && cmp_cost(&self[u - 1], &self[i]) == 0) {
			for (size_t k = 0; k < nct; k++)
				self[u - 1].c[k] += self[i].c[k];
		} else {
			self[u++] = self[i];
		}
	}
	nself = u;
	double *frac = malloc((nself ? nself : 1) * sizeof *frac);
	if (!frac) {
		free(self), free(edges), free(fr), free(nm.ob), free(nm.fn), free(nm.fl), free(nm.flid);
		errno = ENOMEM;
		return -1;
	}
	for (size_t i = 0, j; i < nself; i = j) {
		for (j = i + 1; j < nself && self[j].fn == self[i].fn; j++)
			;
		whole_parts(&self[i], j - i, nct, frac);
	}
	free(frac);
	u = 0;
	for (size_t i = 0; i < nedges; i++) {
		if (u && cmp_edge(&edges[u - 1], &edges[i]) == 0) {
			edges[u - 1].calls += edges[i].calls;
			for (size_t k = 0; k < nct; k++)
				edges[u - 1].c[k] += edges[i].c[k];
		} else {
			edges[u++] = edges[i];
		}
	}
	nedges = u;

	/* Header. */
	const struct prof_facts *fa = &p->facts;
	fputs("# callgrind format\nversion: 1\ncreator: monprof prof\n", out);
	fputs("# Written by prof --format=callgrind.  Self costs are prof's flat profile.\n"
	      "# The calls= lines are the call counts of the arcs (caller to callee).\n", out);
	if (stacks)
		fputs("# The inclusive cost of each call is from the call stacks: each stack's\n"
		      "# samples once on the call out of each function in it, so self plus calls\n"
		      "# is prof's inclusive time.  A call seen in stacks but never counted is\n"
		      "# written calls=1 (its count is not known; callgrind_annotate would read\n"
		      "# the cost after calls=0 as the caller's self cost).\n", out);
	else
		fputs("# The inclusive cost of those calls is NOT KNOWN without call stacks, so it\n"
		      "# is written as 0: inclusive views (callgrind_annotate --inclusive=yes,\n"
		      "# KCachegrind's Incl.) understate every caller.\n", out);
	for (size_t i = 0; i < fa->nwarnings; i++)
		fprintf(out, "# warning: %s\n", fa->warnings[i].text);
	if (p->nmappings)
		fprintf(out, "cmd: %s\n", p->mappings[0].path);
	/* The rates: the profiling clock's, and the wall-clock sampler's
	 * (which off-CPU time shares). */
	const struct prof_event_facts *cf = &p->events[PROF_EV_CPU], *wf = &p->events[PROF_EV_WALL];
	if (cf->rate_hz > 0)
		fprintf(out, "desc: Profiling clock: %s, %.6g samples per %s\n",
			fa->clock[0] ? fa->clock : "unknown", cf->rate_hz,
			p->event_types[PROF_EV_CPU].per);
	if (wf->present && wf->rate_hz > 0)
		fprintf(out, "desc: Wall-clock sampling: %.6g samples per %s of each thread\n",
			wf->rate_hz, p->event_types[PROF_EV_WALL].per);
	fprintf(out, "desc: Data files: %zu\n", fa->nfiles);
	/* (No "event:" long names: callgrind_annotate 3.19 takes them for
	 * malformed lines.) */
	for (size_t k = 0; k < nct; k++)
		fprintf(out, "%s%s: %s", k ? "; " : "# ", p->sample_types[ct[k]].event,
			p->sample_types[ct[k]].event_desc);
	fputs("\npositions: line\nevents:", out);
	for (size_t k = 0; k < nct; k++)
		fprintf(out, " %s", p->sample_types[ct[k]].event);
	fputs("\n\n", out);

	/* Per function, in the model's order: self costs, then calls out. */
	int64_t tot[NCOST] = { 0 };
	size_t a = 0, b = 0;
	while (a < nself || b < nedges) {
		size_t f = a < nself ? self[a].fn : SIZE_MAX;
		if (b < nedges && edges[b].fn < f)
			f = edges[b].fn;
		put_ob(out, "ob", p, f == p->nfunctions ? SIZE_MAX : p->functions[f].mapping, &nm);
		put_fl(out, "fl", p, f, &nm);
		put_fn(out, "fn", p, f, &nm);
		for (; a < nself && self[a].fn == f; a++)
			put_costs(out, self[a].line, self[a].c, nct, tot);
		for (; b < nedges && edges[b].fn == f; b++) {
			const struct edge *e = &edges[b];
			int none = no_cost(e->c, nct);
			if (rounded(e->calls) == 0 && none)
				continue;	/* nothing to say */
			put_ob(out, "cob", p, e->cfn == p->nfunctions ? SIZE_MAX : p->functions[e->cfn].mapping, &nm);
			put_fl(out, "cfi", p, e->cfn, &nm);
			put_fn(out, "cfn", p, e->cfn, &nm);
			int64_t calls = rounded(e->calls);
			if (calls == 0 && !none)
				calls = 1;	/* seen in stacks, not counted */
			fprintf(out, "calls=%lld %lld\n", (long long)calls, (long long)e->cline);
			if (!none)
				put_costs(out, e->line, e->c, nct, NULL);
			else
				fprintf(out, "%lld\n", (long long)e->line);
		}
		fputc('\n', out);
	}
	fputs("totals:", out);
	for (size_t k = 0; k < nct; k++)
		fprintf(out, " %lld", (long long)tot[k]);
	fputc('\n', out);
	free(self), free(edges), free(fr), free(nm.ob), free(nm.fn), free(nm.fl), free(nm.flid);
	return 0;
}
