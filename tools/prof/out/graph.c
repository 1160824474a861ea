/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * graph.c — the call graph ("graph", prof --graph), in the layout of
 * gprof's call graph (the GNU gprof manual, "The Call Graph"): one entry
 * per function, ordered by inclusive time, numbered [1], [2], ...; in each
 * entry the function's callers above its own line and its callees below:
 *
 *   index  %time     self  children         called  name
 *                    0.95      0.00          1/1001      hard [2]
 *                    0.05      0.00       1000/1001      easy [4]
 *   [1]     97.0     1.00      0.00           1001  work [1]
 *   -----------------------------------------------
 *
 * Times are seconds of the event --sample asks for (CPU by default,
 * wall-clock or off-CPU).  Unlike gprof, time comes from the sampled call stacks, not from call
 * counts: a caller's line says how much of the function's own time (self)
 * and of its callees' time (children) was spent while that caller called
 * it — samples whose stack holds the caller directly above the function —
 * so a function called once for a long job and 1000 times for short ones
 * is charged to the caller that made it work.  On the function's line,
 * self is its flat-profile time, children its inclusive time less self,
 * %time its inclusive share of all the samples.  Each sample counts once
 * per edge and once per function however often recursion repeats them;
 * calls of a function to itself are left out of the lines and shown as
 * "+N" on its called count.
 *
 * Calls are exact counts from the arcs (mcount / -finstrument-functions)
 * where the code was instrumented: "n/total" on a caller's line (its calls
 * of the function / all calls of it), on a callee's line (calls of the
 * callee from this function / all its calls); blank where no arc was
 * counted (the edge was only sampled).  A function with no caller is
 * called by "<spontaneous>".
 *
 * --callers=NAME is the graph of the samples whose stack holds NAME,
 * limited to NAME and the frames above it (its innermost call): how the
 * program reached it, each caller's time being the time it spent reaching
 * NAME.  --callees=NAME likewise NAME and the frames below it (from its
 * outermost call).  A function that calls NAME's callers, but never on a
 * stack through NAME, is not among them.  Counted calls (arcs) add NAME's
 * direct callers (callees), and go on where one end is a function no
 * stack holds (too quick to be sampled, or tail-called: stacks say nothing
 * of it).  Where no stack holds NAME (a
 * profile without call stacks, or a function too quick to be sampled),
 * the focus is the call graph's: NAME and every function reaching it
 * (reached from it) through the edges, each with its whole time.
 */
#include "out.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct edge {
	size_t from, to;	/* caller, callee: function indexes */
	double total;		/* seconds of samples with from directly above to */
	double self;		/* of which the leaf was to (its own time) */
	double calls;		/* counted calls (arcs) */
	int has_calls;
};

static int cmp_edge(const void *x, const void *y)
{
	const struct edge *p = x, *q = y;
	if (p->from != q->from)
		return p->from < q->from ? -1 : 1;
	return p->to < q->to ? -1 : p->to > q->to;
}

struct fnode {
	double self, incl;	/* seconds */
	double calls, rcalls;	/* counted calls from others, from itself */
	double flatcalls;	/* calls counted into it (CALLS), for want of arcs */
	int has_calls;
	size_t index;		/* 1-based entry number, 0: not in the graph */
	int keep;		/* in the focus */
	int on_stack;		/* in a sample's call stack (of two frames or more) */
};

static const struct prof_profile *gp;
static const struct fnode *gn;

static int cmp_fn(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	if (gn[a].incl != gn[b].incl)
		return gn[a].incl > gn[b].incl ? -1 : 1;
	if (gn[a].self != gn[b].self)
		return gn[a].self > gn[b].self ? -1 : 1;
	int c = strcmp(gp->functions[a].name, gp->functions[b].name);
	return c ? c : (a > b) - (a < b);
}

static const struct edge *ge;

/* Lines of an entry: by time, most first, then by the other end's entry. */
static int cmp_line(const void *x, const void *y)
{
	const struct edge *p = &ge[*(const size_t *)x], *q = &ge[*(const size_t *)y];
	if (p->total != q->total)
		return p->total > q->total ? -1 : 1;
	if (p->calls != q->calls)
		return p->calls > q->calls ? -1 : 1;
	return p->from != q->from ? (p->from < q->from ? -1 : 1) : (p->to < q->to ? -1 : p->to > q->to);
}

static int push(struct edge **v, size_t *n, size_t *cap, struct edge e)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 256;
		struct edge *nv = realloc(*v, c * sizeof *nv);
		if (!nv)
			return -1;
		*v = nv;
		*cap = c;
	}
	(*v)[(*n)++] = e;
	return 0;
}

/* Marks in keep every function reaching (up) or reached from (down) f
 * through the edges e: all of them (all), or only counted calls (arcs)
 * out of f, or between two functions of which a stack holds at most one
 * (where both are on stacks, the stacks through f said who is in). */
static void focus_edges(struct fnode *fn, const struct edge *e, size_t ne, size_t f, int up,
			int all)
{
	fn[f].keep = 1;
	for (int changed = 1; changed;) {
		changed = 0;
		for (size_t i = 0; i < ne; i++) {
			size_t a = up ? e[i].to : e[i].from, b = up ? e[i].from : e[i].to;
			if (!all && (!e[i].has_calls || (a != f && fn[a].on_stack && fn[b].on_stack)))
				continue;
			if (fn[a].keep && !fn[b].keep) {
				fn[b].keep = 1;
				changed = 1;
			}
		}
	}
}

/* The functions of sample s's stack, leaf first (inline frames too), into
 * (*seq)[0..*n), grown as needed.  Returns 0, or -1 without memory. */
static int frames_of(const struct prof_profile *p, const struct prof_sample *s, size_t **seq,
		     size_t *cap, size_t *n)
{
	*n = 0;
	for (size_t k = 0; k < s->nlocations; k++) {
		const struct prof_location *l = &p->locations[s->locations[k]];
		for (size_t j = 0; j < l->nlines; j++) {
			if (*n == *cap) {	/* deeper than the functions: grow */
				size_t *ns = realloc(*seq, (*cap *= 2) * sizeof **seq);
				if (!ns)
					return -1;
				*seq = ns;
			}
			(*seq)[(*n)++] = l->lines[j].function;
		}
	}
	return 0;
}

/* The frames [*lo, *hi) of the stack seq[0..n) (leaf first) that the
 * focus on f keeps: up (callers), from f's innermost frame outward; down
 * (callees), from the leaf to f's outermost frame.  Returns 0 when the
 * stack does not hold f. */
static int focus_frames(const size_t *seq, size_t n, size_t f, int up, size_t *lo, size_t *hi)
{
	size_t first = SIZE_MAX, last = 0;
	for (size_t k = 0; k < n; k++)
		if (seq[k] == f) {
			if (first == SIZE_MAX)
				first = k;
			last = k;
		}
	if (first == SIZE_MAX)
		return 0;
	*lo = up ? first : 0;
	*hi = up ? n : last + 1;
	return 1;
}

/* Before a "called" field of width 15: nothing, or one blank when the
 * field is wider and would run into the children column ("0.0065456509/
 * 65456509" for 65 M calls). */
static const char *gap(const char *called)
{
	return strlen(called) >= 15 ? " " : "";
}

static void put_calls(char *buf, size_t len, const struct edge *e, const struct fnode *other)
{
	if (e->has_calls)
		snprintf(buf, len, "%.0f/%.0f", e->calls, other->calls);
	else
		buf[0] = '\0';
}

int prof_render_graph(const struct prof_profile *p, const struct prof_opts *o, FILE *out)
{
	size_t nf = p->nfunctions ? p->nfunctions : 1;
	struct fnode *fn = calloc(nf, sizeof *fn);
	size_t seqcap = nf, *seq = malloc(seqcap * sizeof *seq), *order = malloc(nf * sizeof *order);
	size_t *stamp = calloc(nf, sizeof *stamp);	/* the last sample (+1) that counted it */
	size_t *ine = calloc(nf, sizeof *ine);	/* in an edge */
	size_t *to_start = calloc(nf + 1, sizeof *to_start), *from_start = calloc(nf + 1, sizeof *from_start);
	size_t *by_to = NULL;
	struct edge *e = NULL, *pe = NULL;
	size_t ne = 0, cap = 0, npe = 0, pcap = 0, *lines = NULL;
	int rc = -1, vt = prof_event_of(p, o)->time, up = o->callers != NULL, by_stacks = 0;
	size_t focus_fn = SIZE_MAX;
	if (!fn || !seq || !order || !stamp || !ine || !to_start || !from_start)
		goto out;
	if (o->callers || o->callees) {
		focus_fn = prof_function_find(p, o->callers ? o->callers : o->callees);
		if (focus_fn == SIZE_MAX) {
			rc = 0;	/* main.c checked the name: nothing to show */
			goto out;
		}
		fn[focus_fn].keep = 1;
		/* Which functions stacks hold (a stack: two locations or more;
		 * one location's inline frames are not one), and whether one
		 * holds NAME: then the focus follows the stacks through it. */
		for (size_t i = 0; i < p->nsamples; i++) {
			const struct prof_sample *s = &p->samples[i];
			size_t n;
			if ((s->value[PROF_VAL_ARC] > 0 && s->nlocations == 2) || s->nlocations < 2)
				continue;
			if (frames_of(p, s, &seq, &seqcap, &n) < 0)
				goto out;
			for (size_t k = 0; k < n; k++) {
				fn[seq[k]].on_stack = 1;
				by_stacks |= seq[k] == focus_fn;
			}
		}
	}
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];
		if (s->value[PROF_VAL_ARC] > 0 && s->nlocations == 2) {
			size_t to = p->locations[s->locations[0]].lines[0].function;
			size_t from = p->locations[s->locations[1]].lines[0].function;
			double k = s->value[PROF_VAL_ARC];
			if (from == to) {
				fn[to].rcalls += k;
			} else {
				fn[to].calls += k;
				if (push(&e, &ne, &cap, (struct edge){ from, to, 0, 0, k, 1 }))
					goto out;
			}
			fn[to].has_calls = 1;
			continue;
		}
		double v = s->value[vt];
		size_t n;
		if (frames_of(p, s, &seq, &seqcap, &n) < 0)
			goto out;
		fn[seq[0]].flatcalls += s->value[PROF_VAL_CALLS];
		/* The frames shown: all, or those the focus keeps. */
		size_t lo = 0, hi = n;
		if (by_stacks && !focus_frames(seq, n, focus_fn, up, &lo, &hi))
			continue;
		if (lo == 0)
			fn[seq[0]].self += v;
		if (v == 0)
			continue;
		/* Inclusive and edges: once per sample each (stamps for the
		 * functions, sort and merge for the edges). */
		npe = 0;
		size_t caller_of_leaf = SIZE_MAX;
		for (size_t k = lo; k < hi; k++) {
			fn[seq[k]].keep |= by_stacks;
			if (stamp[seq[k]] != i + 1) {
				stamp[seq[k]] = i + 1;
				fn[seq[k]].incl += v;
			}
			if (k + 1 < hi && seq[k + 1] != seq[k]) {
				if (lo == 0 && caller_of_leaf == SIZE_MAX && seq[k] == seq[0])
					caller_of_leaf = seq[k + 1];
				if (push(&pe, &npe, &pcap, (struct edge){ seq[k + 1], seq[k], v, 0, 0, 0 }))
					goto out;
			}
		}
		qsort(pe, npe, sizeof *pe, cmp_edge);
		for (size_t j = 0; j < npe; j++) {
			if (j && pe[j].from == pe[j - 1].from && pe[j].to == pe[j - 1].to)
				continue;
			if (pe[j].to == seq[0] && pe[j].from == caller_of_leaf)
				pe[j].self = v;
			if (push(&e, &ne, &cap, pe[j]))
				goto out;
		}
	}
	/* A function with call counts but no arcs: its count. */
	for (size_t i = 0; i < p->nfunctions; i++)
		if (!fn[i].has_calls && fn[i].flatcalls > 0) {
			fn[i].calls = fn[i].flatcalls;
			fn[i].has_calls = 1;
		}
	qsort(e, ne, sizeof *e, cmp_edge);
	size_t m = 0;
	for (size_t i = 0; i < ne; i++) {
		if (m && e[m - 1].from == e[i].from && e[m - 1].to == e[i].to) {
			e[m - 1].total += e[i].total;
			e[m - 1].self += e[i].self;
			e[m - 1].calls += e[i].calls;
			e[m - 1].has_calls |= e[i].has_calls;
		} else {
			e[m++] = e[i];
		}
	}
	ne = m;
	/* Sums on one grid, whatever order the samples came in (prof_quantum). */
	for (size_t i = 0; i < ne; i++) {
		e[i].total = prof_quantum(e[i].total);
		e[i].self = prof_quantum(e[i].self);
	}
	for (size_t i = 0; i < p->nfunctions; i++) {
		fn[i].self = prof_quantum(fn[i].self);
		fn[i].incl = prof_quantum(fn[i].incl);
	}
	/* Edges by caller (e is sorted so) and by callee (by_to). */
	by_to = malloc((ne ? ne : 1) * sizeof *by_to);
	if (!by_to)
		goto out;
	for (size_t i = 0; i < ne; i++) {
		from_start[e[i].from + 1]++;
		to_start[e[i].to + 1]++;
		ine[e[i].from] = ine[e[i].to] = 1;
	}
	for (size_t i = 0; i < p->nfunctions; i++) {
		from_start[i + 1] += from_start[i];
		to_start[i + 1] += to_start[i];
	}
	for (size_t i = 0, *fill = stamp; i < p->nfunctions; i++)
		fill[i] = to_start[i];
	for (size_t i = 0; i < ne; i++)
		by_to[stamp[e[i].to]++] = i;
	if (focus_fn != SIZE_MAX)
		focus_edges(fn, e, ne, focus_fn, up, !by_stacks);
	size_t n = 0;
	for (size_t i = 0; i < p->nfunctions; i++) {
		int in = fn[i].incl > 0 || fn[i].has_calls || ine[i];
		if (in && (focus_fn == SIZE_MAX || fn[i].keep))
			order[n++] = i;
	}
	gp = p;
	gn = fn;
	qsort(order, n, sizeof *order, cmp_fn);
	for (size_t i = 0; i < n; i++)
		fn[order[i]].index = i + 1;
	lines = malloc((ne ? ne : 1) * sizeof *lines);
	if (!lines)
		goto out;
	ge = e;
	double total = prof_event_facts_of(p, o)->total_seconds;
	if (!o->no_heading)
		fputs("index  %time     self  children         called  name\n", out);
	for (size_t i = 0; i < n; i++) {
		size_t f = order[i];
		const struct fnode *w = &fn[f];
		char idx[32], called[64];
		/* Callers. */
		size_t nl = 0;
		for (size_t k = to_start[f]; k < to_start[f + 1]; k++)
			if (fn[e[by_to[k]].from].index)
				lines[nl++] = by_to[k];
		qsort(lines, nl, sizeof *lines, cmp_line);
		if (nl == 0 && focus_fn == SIZE_MAX)
			fprintf(out, "%52s<spontaneous>\n", "");
		for (size_t k = 0; k < nl; k++) {
			const struct edge *x = &e[lines[k]];
			put_calls(called, sizeof called, x, w);
			fprintf(out, "%12s%9.2f%10.2f%s%15s      %s [%zu]\n", "", x->self,
				x->total - x->self, gap(called), called, p->functions[x->from].name,
				fn[x->from].index);
		}
		/* The function. */
		snprintf(idx, sizeof idx, "[%zu]", w->index);
		called[0] = '\0';
		if (w->calls > 0 || w->rcalls > 0) {
			if (w->rcalls > 0)
				snprintf(called, sizeof called, "%.0f+%.0f", w->calls, w->rcalls);
			else
				snprintf(called, sizeof called, "%.0f", w->calls);
		}
		fprintf(out, "%-6s%6.1f%9.2f%10.2f%s%15s  %s [%zu]\n", idx,
			total > 0 ? 100.0 * w->incl / total : 0.0, w->self, w->incl - w->self,
			gap(called), called, p->functions[f].name, w->index);
		/* Callees. */
		nl = 0;
		for (size_t k = from_start[f]; k < from_start[f + 1]; k++)
			if (fn[e[k].to].index)
				lines[nl++] = k;
		qsort(lines, nl, sizeof *lines, cmp_line);
		for (size_t k = 0; k < nl; k++) {
			const struct edge *x = &e[lines[k]];
			put_calls(called, sizeof called, x, &fn[x->to]);
			fprintf(out, "%12s%9.2f%10.2f%s%15s      %s [%zu]\n", "", x->self,
				x->total - x->self, gap(called), called, p->functions[x->to].name,
				fn[x->to].index);
		}
		fputs("-----------------------------------------------\n", out);
	}
	rc = 0;
out:
	free(fn);
	free(stamp);
	free(ine);
	free(to_start);
	free(from_start);
	free(by_to);
	free(seq);
	free(order);
	free(e);
	free(pe);
	free(lines);
	if (rc < 0)
		errno = ENOMEM;
	return rc;
}
