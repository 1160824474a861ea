/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * profile.c — prof's model (profile.h) made from the attribution
 * (attribute.c): the one step between what the data files say and what the
 * renderers (out/) print.
 *
 * Each image becomes a mapping; each row (a function, an unwind range, a
 * gap, a whole object, [unknown]) a function and a location at its start
 * address; each row with samples or calls a sample of one location holding
 * them.  Each arc becomes a sample of two locations {callee PC, caller PC}
 * with its count as PROF_VAL_ARC; arcs between the same two PCs (from
 * several files) add up, and a PC gets one location however many arcs
 * name it.  Each call stack (STACKS) becomes a sample of its frames' PCs,
 * leaf first, one location per (row, PC) shared with the arcs', and the
 * markers "[truncated]" and "[jit]" (functions after the rows) as root
 * frames of walks that ended early or at JIT code.  The names are made
 * here, once: demangled when asked, and "[label]+0xSTART", "[label]" or
 * "[unknown]" for code no symbol names.
 */
#include "prof.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const struct prof_sample_type prof_sample_types[PROF_NVAL] = {
	[PROF_VAL_SAMPLES] = { "samples", "count", "count", 1, "Samples",
			       "samples of the profiling clock" },
	[PROF_VAL_CPU] = { "cpu", "seconds", "nanoseconds", 1e9, "CPU_ns",
			   "CPU time (samples / rate)" },
	[PROF_VAL_CALLS] = { "calls", "count", "count", 1, NULL, NULL },
	[PROF_VAL_ARC] = { "arc-calls", "count", "count", 1, NULL, NULL },
	[PROF_VAL_WALL_SAMPLES] = { "wall-samples", "count", "count", 1, "Wall_samples",
				    "wall-clock samples of every thread, whatever its state" },
	[PROF_VAL_WALL] = { "wall", "seconds", "nanoseconds", 1e9, "Wall_ns",
			    "wall-clock time (wall samples / wall rate)" },
	[PROF_VAL_OFFCPU_SAMPLES] = { "off-cpu-samples", "count", "count", 1, "OffCPU_samples",
				      "wall-clock samples of threads not running" },
	[PROF_VAL_OFFCPU] = { "off-cpu", "seconds", "nanoseconds", 1e9, "OffCPU_ns",
			      "off-CPU time (those samples / wall rate)" },
};

const struct prof_event_type prof_events[PROF_NEV] = {
	[PROF_EV_CPU] = { "cpu", PROF_VAL_SAMPLES, PROF_VAL_CPU, "Seconds", "CPU", "CPU-second", 0 },
	[PROF_EV_WALL] = { "wall", PROF_VAL_WALL_SAMPLES, PROF_VAL_WALL, "Wallsecs", "wall-clock",
			   "second", 1 },
	[PROF_EV_OFFCPU] = { "offcpu", PROF_VAL_OFFCPU_SAMPLES, PROF_VAL_OFFCPU, "OffCPUsecs",
			     "off-CPU", "second", 1 },
};

int prof_event_find(const char *name)
{
	if (strcmp(name, "off-cpu") == 0)
		return PROF_EV_OFFCPU;
	for (int e = 0; e < PROF_NEV; e++)
		if (strcmp(name, prof_events[e].name) == 0)
			return e;
	return -1;
}

const char *prof_tstate_name(int s)
{
	static const char *const names[PROF_NTS] = {
		[PROF_TS_NONE] = "", [PROF_TS_RUNNING] = "running", [PROF_TS_RUNNABLE] = "runnable",
		[PROF_TS_BLOCKED] = "blocked", [PROF_TS_DISK] = "uninterruptible",
		[PROF_TS_STOPPED] = "stopped", [PROF_TS_OTHER] = "other state",
		[PROF_TS_UNKNOWN] = "state not read",
	};
	return s >= 0 && s < PROF_NTS ? names[s] : "state unknown";
}

void profile_events(struct prof_profile *p)
{
	p->sample_types = prof_sample_types;
	p->event_types = prof_events;
	memset(p->events, 0, sizeof p->events);
	struct prof_event_facts *c = &p->events[PROF_EV_CPU];
	c->present = 1;
	c->have_stacks = p->facts.have_stacks;
	c->rate_hz = p->facts.rate_hz;
	c->rates_differ = p->facts.rates_differ;
	c->total_samples = p->facts.total_samples;
	c->total_seconds = p->facts.total_seconds;
	for (int e = PROF_EV_WALL; e < PROF_NEV; e++) {
		p->events[e].rate_hz = p->facts.wall_hz;
		p->events[e].rates_differ = p->facts.wall_rates_differ;
	}
	int wall = 0;
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];
		wall |= s->state != PROF_TS_NONE;
		for (int e = PROF_EV_WALL; e < PROF_NEV; e++) {
			struct prof_event_facts *f = &p->events[e];
			f->total_samples += s->value[prof_events[e].count];
			f->total_seconds += s->value[prof_events[e].time];
			f->have_stacks |= s->stack && s->value[prof_events[e].count] > 0;
		}
	}
	/* Off-CPU is a part of wall-clock time: present with it, even when
	 * every thread ran all the time (then it is 0, which is a finding). */
	for (int e = PROF_EV_WALL; e < PROF_NEV; e++) {
		p->events[e].present = wall || p->facts.wall_hz > 0;
		p->events[e].total_samples = prof_quantum(p->events[e].total_samples);
		p->events[e].total_seconds = prof_quantum(p->events[e].total_seconds);
	}
}

int prof_has_type(const struct prof_profile *p, int k)
{
	for (int e = 0; e < PROF_NEV; e++)
		if (k == p->event_types[e].count || k == p->event_types[e].time)
			return p->events[e].present;
	return k >= 0 && k < PROF_NVAL;	/* calls, arc-calls: always */
}

/* The printed name of row r into buf, or a pointer to the symbol's name or
 * a constant string. */
static const char *row_name(const struct prof_attr *a, const struct prof_row *r, int demangle,
			    char *buf, size_t buflen)
{
	const char *label = r->kind == PROF_ROW_UNKNOWN ? NULL : a->images[r->image]->label;
	int bracketed = label && label[0] == '[';
	switch (r->kind) {
	case PROF_ROW_FUNC:
		if (demangle) {
			const char *dn = prof_demangle(r->name, buf, buflen);
			if (dn)
				return dn;
		}
		return r->name;
	case PROF_ROW_GAP:
	case PROF_ROW_UNWIND:
		snprintf(buf, buflen, bracketed ? "%s+%#llx" : "[%s]+%#llx", label,
			 (unsigned long long)r->addr);
		return buf;
	case PROF_ROW_OBJECT:
		snprintf(buf, buflen, bracketed ? "%s" : "[%s]", label);
		return buf;
	default:
		return "[unknown]";
	}
}

struct pckey {			/* a PC an arc names: its row and address */
	size_t row;
	uint64_t pc;
};

static int cmp_pckey(const void *x, const void *y)
{
	const struct pckey *p = x, *q = y;
	if (p->row != q->row)
		return p->row < q->row ? -1 : 1;
	return p->pc < q->pc ? -1 : p->pc > q->pc;
}

static size_t find_pckey(const struct pckey *v, size_t n, size_t row, uint64_t pc)
{
	struct pckey k = { row, pc };
	const struct pckey *f = bsearch(&k, v, n, sizeof *v, cmp_pckey);
	return f ? (size_t)(f - v) : SIZE_MAX;
}

struct arcsample {		/* an arc by its two locations */
	size_t to, from;
	uint64_t count;
};

static int cmp_arcsample(const void *x, const void *y)
{
	const struct arcsample *p = x, *q = y;
	if (p->to != q->to)
		return p->to < q->to ? -1 : 1;
	return p->from < q->from ? -1 : p->from > q->from;
}

static int cmp_piece(const void *x, const void *y)
{
	const struct prof_piece *p = x, *q = y;
	if (p->row != q->row)
		return p->row < q->row ? -1 : 1;
	return p->vaddr < q->vaddr ? -1 : p->vaddr > q->vaddr;
}

/* Row w has histogram time its stacks do not explain (a difference of
 * sums of the same fractions: a rounding error is not time). */
static int has_rest(const struct prof_row *w)
{
	double rest = w->ticks - w->stacked_ticks;
	return w->stacked_ticks > 0 ? rest > 1e-9 * (w->ticks > 1 ? w->ticks : 1) : rest > 0;
}

static int cmp_tid(const void *x, const void *y)
{
	const struct prof_thread_name *p = x, *q = y;
	if (p->pid != q->pid)
		return p->pid < q->pid ? -1 : 1;
	return p->tid < q->tid ? -1 : p->tid > q->tid;
}

void profile_free(struct prof_profile *p)
{
	free(p->threads);
	free(p->mappings);
	free(p->functions);
	free(p->locations);
	free(p->samples);
	free(p->names);
	free(p->stackpool);
	free(p->linepool);
	for (size_t i = 0; i < p->nextra; i++)
		free(p->extra[i]);
	free(p->extra);
	memset(p, 0, sizeof *p);
}

int profile_build(const struct prof_attr *a, int demangle, struct prof_profile *p)
{
	struct pckey *keys = NULL;
	struct arcsample *arcs = NULL;
	struct prof_piece *pcs = NULL;
	size_t nkeys = 0, narcs = 0, npcs = 0;

	memset(p, 0, sizeof *p);
	profile_events(p);	/* the tables, until the samples are made */

	/* Mappings: the images. */
	p->mappings = calloc(a->nimages ? a->nimages : 1, sizeof *p->mappings);
	if (!p->mappings)
		goto nomem;
	for (size_t i = 0; i < a->nimages; i++) {
		const struct prof_image *im = a->images[i];
		/* Several programs: each one's executable is a main one. */
		p->mappings[i] = (struct prof_mapping){ im->path, im->label, im->build_id,
							im->build_id_len,
							a->nprograms > 1 ? im->is_program
									 : i == a->main_image };
	}
	p->nmappings = a->nimages;

	/* Functions: the rows, with their printed names in one pool. */
	size_t pool = 0;
	for (size_t r = 0; r < a->nrows; r++) {
		char b[4096];
		pool += strlen(row_name(a, &a->rows[r], demangle, b, sizeof b)) + 1;
	}
	/* The markers of stacks: "[truncated]" above a walk that ended early
	 * (or at the depth limit), "[jit]" above one that stopped at JIT code. */
	int want_trunc = 0, want_jit = 0;
	for (size_t i = 0; i < a->nstacks; i++) {
		want_trunc |= (a->stacks[i].flags & (PROF_STACK_TRUNCATED | PROF_STACK_DEPTH)) != 0;
		want_jit |= (a->stacks[i].flags & PROF_STACK_JIT) != 0;
	}
	for (size_t i = 0; i < a->nwalls; i++) {
		want_trunc |= (a->walls[i].flags & (PROF_STACK_TRUNCATED | PROF_STACK_DEPTH)) != 0;
		want_jit |= (a->walls[i].flags & PROF_STACK_JIT) != 0;
	}
	/* After the markers, the wait reasons of wall samples (functions of
	 * kind WAIT, one location each), then the programs of a profile of
	 * several (kind PROGRAM, the root frame of their stack samples). */
	size_t nprog = a->nprograms > 1 ? a->nprograms : 0;
	for (size_t i = 0; i < nprog; i++)
		pool += strlen(a->programs[i]) + 1;
	size_t nmark = (size_t)want_trunc + (size_t)want_jit + a->nreasons + nprog;
	size_t trunc_fn = SIZE_MAX, jit_fn = SIZE_MAX;
	p->names = malloc(pool ? pool : 1);
	p->functions = calloc(a->nrows + nmark ? a->nrows + nmark : 1, sizeof *p->functions);
	if (!p->names || !p->functions)
		goto nomem;
	char *q = p->names;
	for (size_t r = 0; r < a->nrows; r++) {
		const struct prof_row *w = &a->rows[r];
		char b[4096];
		const char *nm = row_name(a, w, demangle, b, sizeof b);
		size_t l = strlen(nm) + 1;
		memcpy(q, nm, l);
		p->functions[r] = (struct prof_function){
			.kind = w->kind, .name = q,
			.system_name = w->kind == PROF_ROW_FUNC ? w->name : NULL,
			.version = w->version,
			.mapping = w->kind == PROF_ROW_UNKNOWN ? SIZE_MAX : w->image,
			.start = w->addr, .size = w->size };
		q += l;
	}
	p->nfunctions = a->nrows;
	if (want_trunc) {
		trunc_fn = p->nfunctions++;
		p->functions[trunc_fn] = (struct prof_function){ .kind = PROF_FN_MARKER,
			.name = "[truncated]", .mapping = SIZE_MAX };
	}
	if (want_jit) {
		jit_fn = p->nfunctions++;
		p->functions[jit_fn] = (struct prof_function){ .kind = PROF_FN_MARKER,
			.name = "[jit]", .mapping = SIZE_MAX };
	}
	size_t reason_fn = p->nfunctions;
	for (size_t i = 0; i < a->nreasons; i++)
		p->functions[p->nfunctions++] = (struct prof_function){ .kind = PROF_FN_WAIT,
			.name = a->reasons[i], .mapping = SIZE_MAX };
	p->programs_fn = p->nfunctions;
	p->nprograms = nprog;
	for (size_t i = 0; i < nprog; i++) {
		size_t l = strlen(a->programs[i]) + 1;
		memcpy(q, a->programs[i], l);
		p->functions[p->nfunctions++] = (struct prof_function){ .kind = PROF_FN_PROGRAM,
			.name = q, .mapping = SIZE_MAX };
		q += l;
	}

	/* The PCs the arcs and the stacks name, each once. */
	keys = malloc((2 * a->narcs + a->nframes ? 2 * a->narcs + a->nframes : 1) * sizeof *keys);
	arcs = malloc((a->narcs ? a->narcs : 1) * sizeof *arcs);
	if (!keys || !arcs)
		goto nomem;
	for (size_t i = 0; i < a->narcs; i++) {
		keys[nkeys++] = (struct pckey){ a->arcs[i].to_row, a->arcs[i].selfpc };
		keys[nkeys++] = (struct pckey){ a->arcs[i].from_row, a->arcs[i].frompc };
	}
	for (size_t i = 0; i < a->nframes; i++)
		keys[nkeys++] = (struct pckey){ a->frames[i].row, a->frames[i].pc };
	qsort(keys, nkeys, sizeof *keys, cmp_pckey);
	size_t u = 0;
	for (size_t i = 0; i < nkeys; i++)
		if (u == 0 || cmp_pckey(&keys[u - 1], &keys[i]) != 0)
			keys[u++] = keys[i];
	nkeys = u;

	/* --lines: where in its row each sample of the histograms fell, the
	 * same address added up over files. */
	if (a->npieces) {
		if (!(pcs = malloc(a->npieces * sizeof *pcs)))
			goto nomem;
		memcpy(pcs, a->pieces, a->npieces * sizeof *pcs);
		qsort(pcs, a->npieces, sizeof *pcs, cmp_piece);
		for (size_t i = 0; i < a->npieces; i++) {
			if (npcs && pcs[npcs - 1].row == pcs[i].row &&
			    pcs[npcs - 1].vaddr == pcs[i].vaddr) {
				pcs[npcs - 1].ticks += pcs[i].ticks;
				pcs[npcs - 1].seconds += pcs[i].seconds;
			} else {
				pcs[npcs++] = pcs[i];
			}
		}
	}

	/* Locations: one per row at its start, then one per arc or stack PC,
	 * then one per marker, then one per piece. */
	size_t nmloc = a->nrows + nkeys + nmark, nloc = nmloc + npcs;
	p->locations = calloc(nloc ? nloc : 1, sizeof *p->locations);
	p->linepool = calloc(nloc ? nloc : 1, sizeof *p->linepool);
	if (!p->locations || !p->linepool)
		goto nomem;
	for (size_t i = a->nrows + nkeys; i < nmloc; i++) {
		size_t fn = a->nrows + (i - a->nrows - nkeys);
		p->linepool[i] = (struct prof_line){ fn, 0 };
		p->locations[i] = (struct prof_location){ .mapping = SIZE_MAX, .address = 0,
							  .lines = &p->linepool[i], .nlines = 1 };
	}
	for (size_t i = nmloc; i < nloc; i++) {
		size_t fn = pcs[i - nmloc].row;
		p->linepool[i] = (struct prof_line){ fn, 0 };
		p->locations[i] = (struct prof_location){ .mapping = p->functions[fn].mapping,
							  .address = pcs[i - nmloc].vaddr,
							  .lines = &p->linepool[i], .nlines = 1 };
	}
	size_t trunc_loc = trunc_fn == SIZE_MAX ? SIZE_MAX : a->nrows + nkeys + (trunc_fn - a->nrows);
	size_t jit_loc = jit_fn == SIZE_MAX ? SIZE_MAX : a->nrows + nkeys + (jit_fn - a->nrows);
	size_t program_loc = a->nrows + nkeys + (p->programs_fn - a->nrows);
	for (size_t i = 0; i < a->nrows + nkeys; i++) {
		size_t fn = i < a->nrows ? i : keys[i - a->nrows].row;
		p->linepool[i] = (struct prof_line){ fn, 0 };
		p->locations[i] = (struct prof_location){
			.mapping = p->functions[fn].mapping,
			.address = i < a->nrows ? a->rows[i].addr : keys[i - a->nrows].pc,
			.lines = &p->linepool[i], .nlines = 1 };
	}
	p->nlocations = nloc;

	/* Arcs by their two locations, the same pair added up. */
	for (size_t i = 0; i < a->narcs; i++) {
		const struct prof_arcrow *r = &a->arcs[i];
		arcs[i].to = a->nrows + find_pckey(keys, nkeys, r->to_row, r->selfpc);
		arcs[i].from = a->nrows + find_pckey(keys, nkeys, r->from_row, r->frompc);
		arcs[i].count = r->count;
	}
	qsort(arcs, a->narcs, sizeof *arcs, cmp_arcsample);
	for (size_t i = 0; i < a->narcs; i++) {
		if (narcs && arcs[narcs - 1].to == arcs[i].to && arcs[narcs - 1].from == arcs[i].from)
			arcs[narcs - 1].count += arcs[i].count;
		else
			arcs[narcs++] = arcs[i];
	}

	/* The threads of the stacks and of the wall samples, by tid. */
	size_t nth = a->nstacks + a->nwalls + a->nwthreads;
	if (nth) {
		p->threads = calloc(nth, sizeof *p->threads);
		if (!p->threads)
			goto nomem;
		for (size_t i = 0; i < a->nstacks; i++) {
			p->threads[i].tid = a->stacks[i].tid;
			p->threads[i].pid = a->stacks[i].pid;
			memcpy(p->threads[i].name, a->stacks[i].thread, sizeof p->threads[i].name);
		}
		for (size_t i = 0; i < a->nwalls; i++) {
			p->threads[a->nstacks + i].tid = a->walls[i].tid;
			p->threads[a->nstacks + i].pid = a->walls[i].pid;
			memcpy(p->threads[a->nstacks + i].name, a->walls[i].thread,
			       sizeof p->threads[i].name);
		}
		for (size_t i = 0; i < a->nwthreads; i++) {
			struct prof_thread_name *t = &p->threads[a->nstacks + a->nwalls + i];
			t->tid = a->wthreads[i].tid;
			t->pid = a->wthreads[i].pid;
			memcpy(t->name, a->wthreads[i].name, sizeof t->name);
			t->wall_listed = 1;
			t->wall_expected = a->wthreads[i].expected;
			t->wall_taken = a->wthreads[i].taken;
			t->wall_unreadable = a->wthreads[i].unreadable;
		}
		qsort(p->threads, nth, sizeof *p->threads, cmp_tid);
		size_t k = 0;
		for (size_t i = 0; i < nth; i++) {
			if (k && cmp_tid(&p->threads[k - 1], &p->threads[i]) == 0) {
				struct prof_thread_name *t = &p->threads[k - 1];
				const struct prof_thread_name *v = &p->threads[i];
				if (!t->name[0])
					memcpy(t->name, v->name, sizeof t->name);
				t->wall_listed |= v->wall_listed;
				t->wall_expected += v->wall_expected;
				t->wall_taken += v->wall_taken;
				t->wall_unreadable += v->wall_unreadable;
			} else {
				p->threads[k++] = p->threads[i];
			}
		}
		p->nthreads = k;
	}

	/* Samples: the rows with time the stacks do not explain or calls,
	 * then the arcs, then the stacks. */
	size_t nrs = 0;
	for (size_t r = 0; r < a->nrows; r++)
		nrs += has_rest(&a->rows[r]) || a->rows[r].calls > 0;
	/* Frames and markers (a wall sample reuses a CPU stack's frames, or
	 * has its own in a->frames, and adds its reason). */
	size_t nstk = a->nframes + 3 * a->nstacks + 4 * a->nwalls;
	for (size_t i = 0; i < a->nwalls; i++)
		nstk += a->walls[i].depth;
	size_t ns = nrs + narcs + a->nstacks + a->nwalls + npcs;
	size_t npool = nrs + 2 * narcs + nstk + npcs;
	p->samples = calloc(ns ? ns : 1, sizeof *p->samples);
	p->stackpool = malloc((npool ? npool : 1) * sizeof *p->stackpool);
	if (!p->samples || !p->stackpool)
		goto nomem;
	size_t *st = p->stackpool;
	for (size_t r = 0, k = 0; r < a->nrows; r++) {
		const struct prof_row *w = &a->rows[r];
		double rest = has_rest(w) ? w->ticks - w->stacked_ticks : 0;
		double rsec = has_rest(w) ? w->seconds - w->stacked_seconds : 0;
		/* With pieces (--lines), the rest where it fell: each piece's
		 * share of the row's histogram time, scaled to the part no
		 * stack explains; the row's own sample keeps the calls. */
		double frac = w->ticks > 0 ? rest / w->ticks : 0;
		size_t k0 = k;
		for (; k < npcs && pcs[k].row == r; k++) {
			rest -= pcs[k].ticks * frac;
			rsec -= pcs[k].seconds * frac;
		}
		if (k > k0 && rest < 1e-9 * (w->ticks + 1)) {	/* rounding of the shares */
			rest = 0;
			rsec = 0;
		}
		for (size_t j = k0; j < k; j++) {
			if (!(pcs[j].ticks * frac > 0))
				continue;
			struct prof_sample *s = &p->samples[p->nsamples++];
			*st = nmloc + j;
			s->locations = st++;
			s->nlocations = 1;
			s->value[PROF_VAL_SAMPLES] = pcs[j].ticks * frac;
			s->value[PROF_VAL_CPU] = pcs[j].seconds * frac;
			s->thread = SIZE_MAX;
		}
		if (!(rest > 0 || w->calls > 0))
			continue;
		struct prof_sample *s = &p->samples[p->nsamples++];
		*st = r;
		s->locations = st++;
		s->nlocations = 1;
		s->value[PROF_VAL_SAMPLES] = rest > 0 ? rest : 0;
		s->value[PROF_VAL_CPU] = rest > 0 ? rsec : 0;
		s->value[PROF_VAL_CALLS] = (double)w->calls;
		s->thread = SIZE_MAX;
	}
	for (size_t i = 0; i < narcs; i++) {
		struct prof_sample *s = &p->samples[p->nsamples++];
		st[0] = arcs[i].to;
		st[1] = arcs[i].from;
		s->locations = st;
		s->nlocations = 2;
		st += 2;
		s->value[PROF_VAL_ARC] = (double)arcs[i].count;
		s->thread = SIZE_MAX;
	}
	for (size_t i = 0; i < a->nstacks; i++) {
		const struct prof_stackrow *w = &a->stacks[i];
		struct prof_sample *s = &p->samples[p->nsamples++];
		s->locations = st;
		for (size_t k = 0; k < w->depth; k++) {
			const struct prof_frame *fr = &a->frames[w->first + k];
			*st++ = a->nrows + find_pckey(keys, nkeys, fr->row, fr->pc);
		}
		if (w->flags & PROF_STACK_JIT)
			*st++ = jit_loc;
		if (w->flags & (PROF_STACK_TRUNCATED | PROF_STACK_DEPTH))
			*st++ = trunc_loc;
		if (w->program < nprog)
			*st++ = program_loc + w->program;
		s->nlocations = (size_t)(st - s->locations);
		s->value[PROF_VAL_SAMPLES] = (double)w->count;
		s->value[PROF_VAL_CPU] = w->seconds;
		s->stack = 1;
		s->stack_flags = w->flags;
		struct prof_thread_name key = { .tid = w->tid, .pid = w->pid };
		const struct prof_thread_name *t = bsearch(&key, p->threads, p->nthreads,
							   sizeof *p->threads, cmp_tid);
		s->thread = t ? (size_t)(t - p->threads) : SIZE_MAX;
	}

	size_t reason_loc = a->nrows + nkeys + (reason_fn - a->nrows);
	for (size_t i = 0; i < a->nwalls; i++) {
		const struct prof_wallrow *w = &a->walls[i];
		struct prof_sample *s = &p->samples[p->nsamples++];
		s->locations = st;
		if (w->reason != SIZE_MAX)
			*st++ = reason_loc + w->reason;
		for (size_t k = 0; k < w->depth; k++) {
			const struct prof_frame *fr = &a->frames[w->first + k];
			*st++ = a->nrows + find_pckey(keys, nkeys, fr->row, fr->pc);
		}
		if (w->flags & PROF_STACK_JIT)
			*st++ = jit_loc;
		if (w->flags & (PROF_STACK_TRUNCATED | PROF_STACK_DEPTH))
			*st++ = trunc_loc;
		if (w->program < nprog)
			*st++ = program_loc + w->program;
		s->nlocations = (size_t)(st - s->locations);
		s->value[PROF_VAL_WALL_SAMPLES] = w->count;
		s->value[PROF_VAL_WALL] = w->seconds;
		/* Off-CPU: not running (a state that could not be read is
		 * neither). */
		if (w->state != PROF_TS_RUNNING && w->state != PROF_TS_UNKNOWN) {
			s->value[PROF_VAL_OFFCPU_SAMPLES] = w->count;
			s->value[PROF_VAL_OFFCPU] = w->seconds;
		}
		s->stack = 1;
		s->stack_flags = w->flags;
		s->state = w->state;
		struct prof_thread_name key = { .tid = w->tid, .pid = w->pid };
		const struct prof_thread_name *t = bsearch(&key, p->threads, p->nthreads,
							   sizeof *p->threads, cmp_tid);
		s->thread = t ? (size_t)(t - p->threads) : SIZE_MAX;
	}

	struct prof_facts *f = &p->facts;
	f->nfiles = a->nfiles;
	f->rate_hz = a->rate_hz;
	f->rates_differ = a->rates_differ;
	f->total_samples = a->total_ticks;
	f->total_seconds = prof_quantum(a->total_seconds);
	f->have_stats = a->have_stats;
	f->have_cpu = a->have_cpu;
	f->have_cells = a->have_cells;
	f->samples = a->samples;
	f->dropped = a->dropped;
	f->saturated = a->saturated;
	f->lost = a->lost;
	f->user_s = a->user_s;
	f->sys_s = a->sys_s;
	f->cells_used = a->cells_used;
	f->cells_total = a->cells_total;
	f->counts_unmatched = a->counts_unmatched;
	f->scale_min = a->scale_min;
	f->scale_max = a->scale_max;
	memcpy(f->clock, a->clock, sizeof f->clock);
	f->cov = a->cov;
	f->warnings = prof_warnings(&f->nwarnings);
	f->have_stacks = a->have_stacks;
	f->stack_samples = a->stack_samples;
	f->stacks_lost = a->stacks_lost;
	f->stacks_truncated = a->stacks_truncated;
	f->stacks_depth = a->stacks_depth;
	f->stacks_jit = a->stacks_jit;
	f->have_wall = a->have_wall;
	f->wall_hz = a->wall_hz;
	f->wall_rates_differ = a->wall_rates_differ;
	f->wall_files = a->wall_files;
	f->wall_rounds = a->wall_rounds;
	f->wall_missed = a->wall_missed;
	f->wall_lost = a->wall_lost;
	f->wall_threads_unlisted = a->wall_threads_unlisted;
	f->wall_flags = a->wall_flags;
	f->wall_elapsed_s = a->wall_elapsed_s;
	f->wall_user_s = a->wall_user_s;
	f->wall_sys_s = a->wall_sys_s;
	f->wall_running_unplaced = a->wall_running_unplaced;
	profile_events(p);
	free(keys);
	free(arcs);
	free(pcs);
	return 0;
nomem:
	free(keys);
	free(arcs);
	free(pcs);
	profile_free(p);
	errno = ENOMEM;
	return -1;
}

double prof_quantum(double v)
{
	return nearbyint(v * 1e9) / 1e9;
}
