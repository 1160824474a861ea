/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * text.c — System V's flat profile ("text", the default), as System V's
 * prof(1) prints it (the illumos manual page and
 * usr/src/cmd/sgs/prof/common/prof.c), one line per function, heading
 * unless -h:
 *
 *    %Time Seconds Cumsecs  #Calls   msec/call  Name
 *     61.5    1.23    1.23    1000      1.2300  busy
 *
 * System V's five columns, headings and order, which scripts read by
 * position (the illumos prof(1) page, usr/src/cmd/sgs/prof/common/prof.c): Seconds is CPU time, samples
 * divided by the rate of the profiling clock.  With --sample=wall or offcpu
 * the column is the event's, as the model titles it (prof_events[].column:
 * Wallsecs, OffCPUsecs), and so are all the times: shares of wall-clock
 * (off-CPU) time, msec/call wall-clock milliseconds per call.
 *
 * %Time, Seconds and Cumsecs are "%6.1f%8.2f%8.2f" (Cumsecs adds up in the
 * printed order); with calls, "%8llu" then msec/call with 0 to 4 decimals
 * (more decimals the more calls: 1, 10, 100, 1000 and up) in a field of 8 +
 * decimals, padded to 14 characters; without calls, 22 spaces.  -o/-x put
 * the address (the ELF symbol value, octal or hex) first, under " Address ".
 * %Time is relative to all samples in the histograms, including those shown
 * as [object]+0xoffset and [unknown], so the column adds up to 100.  A
 * name that functions of two objects share (the vDSO's clock_gettime and
 * the C library's) is followed by each one's object, "(label)".
 *
 * With call stacks (a STACKS record) two columns follow msec/call (so that
 * System V's five keep their places), "%6.1f%9.2f": %Incl and InclSecs,
 * then two spaces before Name; the inclusive time (the function and everything it
 * called, each sample once); functions with inclusive time only (main) are
 * listed too.  With --threads, one such table per thread of the stacks,
 * under "Thread NAME-TID: S samples", %Time of that thread's samples; with
 * --sample=wall that line gives the thread's wall-clock time split by its
 * state (running, runnable, blocked, ...) and, below it, its blocked time
 * by what it waited for (the wait reason frames, most first).
 */
#include "out.h"

#include <stdlib.h>
#include <string.h>

/* qsort's order of row numbers by their functions' names (text_table's). */
static const struct prof_profile *by_name_p;
static const struct prof_flat *by_name_f;

static int by_name(const void *x, const void *y)
{
	const struct prof_flat_row *a = &by_name_f->all[*(const size_t *)x],
				   *b = &by_name_f->all[*(const size_t *)y];
	return strcmp(by_name_p->functions[a->function].name, by_name_p->functions[b->function].name);
}

/* same[i] = 1 for each row i (an index in f->all) shown whose function's
 * name a function of another object shown has too (the vDSO's clock_gettime and the C
 * library's): those rows get their object's label after the name.  NULL
 * without memory (names left as they are). */
static unsigned char *same_names(const struct prof_profile *p, const struct prof_flat *f)
{
	unsigned char *same = calloc(p->nfunctions ? p->nfunctions : 1, 1);
	size_t *v = malloc((f->n ? f->n : 1) * sizeof *v);
	if (same == NULL || v == NULL) {
		free(same);
		free(v);
		return NULL;
	}
	for (size_t i = 0; i < f->n; i++)
		v[i] = f->order[i];	/* rows shown, by their index in all */
	by_name_p = p;
	by_name_f = f;
	qsort(v, f->n, sizeof *v, by_name);
	for (size_t i = 1; i < f->n; i++) {
		const struct prof_function *a = &p->functions[f->all[v[i - 1]].function],
					   *b = &p->functions[f->all[v[i]].function];
		if (strcmp(a->name, b->name) == 0 && a->mapping != b->mapping)
			same[v[i - 1]] = same[v[i]] = 1;
	}
	free(v);
	return same;
}

/* Fractional digits of msec/call: more calls, more digits (System V). */
static int call_digits(uint64_t calls)
{
	return calls < 10 ? 0 : calls < 100 ? 1 : calls < 1000 ? 2 : calls < 10000 ? 3 : 4;
}

static int text_table(const struct prof_profile *p, const struct prof_opts *o, FILE *out)
{
	struct prof_flat f;
	if (prof_flat_make(p, o, &f) < 0)
		return -1;
	double total = f.total_seconds, cum = 0;
	const struct prof_event_type *ev = prof_event_of(p, o);
	/* The seconds columns: System V's 8 characters, wider for a longer
	 * title than "Seconds". */
	int sw = (int)strlen(ev->column) + 1 > 8 ? (int)strlen(ev->column) + 1 : 8;
	/* System V's #Calls field is 8 wide; a count of 8 digits or more
	 * would run into Cumsecs, so the column widens for every row. */
	int cw = 8;
	for (size_t i = 0; i < f.n; i++) {
		int d = snprintf(NULL, 0, "%llu", (unsigned long long)f.all[f.order[i]].calls);
		if (d + 1 > cw)
			cw = d + 1;
	}
	unsigned char *same = same_names(p, &f);
	if (!o->no_heading) {
		if (o->addr_radix)
			fputs(" Address ", out);
		fprintf(out, " %%Time%*s%*s%*s   msec/call%s  Name\n", sw, ev->column, sw,
			"Cumsecs", cw, "#Calls", f.inclusive ? "   %Incl InclSecs" : "");
	}
	for (size_t i = 0; i < f.n; i++) {
		const struct prof_flat_row *w = &f.all[f.order[i]];
		const struct prof_function *fn = &p->functions[w->function];
		cum += w->seconds;
		if (o->addr_radix == 8)
			fprintf(out, "%8llo ", (unsigned long long)fn->start);
		else if (o->addr_radix == 16)
			fprintf(out, "%8llx ", (unsigned long long)fn->start);
		fprintf(out, "%6.1f%*.2f%*.2f", total > 0 ? 100.0 * w->seconds / total : 0.0,
			sw, w->seconds, sw, cum);
		if (w->calls > 0) {
			int d = call_digits(w->calls);
			fprintf(out, "%*llu%#*.*f%*s", cw, (unsigned long long)w->calls, 8 + d, d,
				1000.0 * w->seconds / (double)w->calls, 6 - d, "");
		} else {
			fprintf(out, "%*s", cw + 14, "");
		}
		if (f.inclusive)
			fprintf(out, "%6.1f%9.2f  ",
				total > 0 ? 100.0 * w->incl_seconds / total : 0.0, w->incl_seconds);
		if (same != NULL && same[f.order[i]] && fn->mapping < p->nmappings &&
		    p->mappings[fn->mapping].label != NULL)
			fprintf(out, "%s (%s)\n", fn->name, p->mappings[fn->mapping].label);
		else
			fprintf(out, "%s\n", fn->name);
	}
	free(same);
	prof_flat_free(&f);
	return 0;
}

struct thread_total {
	size_t index;	/* in p->threads */
	double n;	/* the event's samples */
	int any;	/* any sample of the event's (a wall state counts) */
};

/* The most samples first; equal ones in the threads' order. */
static int by_samples(const void *x, const void *y)
{
	const struct thread_total *a = x, *b = y;
	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

static int thread_report(const struct prof_profile *p, const struct prof_opts *o,
			 struct prof_opts *t, const struct prof_event_type *ev, size_t i, double n,
			 size_t nth, FILE *out);

int prof_render_text(const struct prof_profile *p, const struct prof_opts *o, FILE *out)
{
	const struct prof_event_type *ev = prof_event_of(p, o);
	if (!o->threads || !prof_event_facts_of(p, o)->have_stacks)
		return text_table(p, o, out);
	struct prof_opts t = *o;
	t.only_thread = 1;
	/* Each thread's samples of the event, in one pass; the threads with
	 * any, the most first (a server's thousands of threads: its busiest
	 * at the top, the rest counted, not printed). */
	struct thread_total *tt = calloc(p->nthreads ? p->nthreads : 1, sizeof *tt);
	if (tt == NULL)
		return -1;
	for (size_t i = 0; i < p->nthreads; i++)
		tt[i].index = i;
	for (size_t k = 0; k < p->nsamples; k++) {
		const struct prof_sample *s = &p->samples[k];
		if (!s->stack || s->thread >= p->nthreads)
			continue;
		tt[s->thread].n += s->value[ev->count];
		tt[s->thread].any |= s->value[ev->count] > 0 ||
				     (ev->wall && s->state != PROF_TS_NONE);
	}
	size_t nany = 0;
	double all = 0;
	for (size_t i = 0; i < p->nthreads; i++)
		if (tt[i].any) {	/* a thread with none of the event's samples: left out */
			all += tt[i].n;
			tt[nany++] = tt[i];
		}
	qsort(tt, nany, sizeof *tt, by_samples);
	size_t shown = o->threads_max && o->threads_max < nany ? o->threads_max : nany;
	int rc = 0;
	for (size_t j = 0; j < shown && rc == 0; j++)
		rc = thread_report(p, o, &t, ev, tt[j].index, tt[j].n, j, out);
	if (rc == 0 && shown < nany) {
		double rest = 0;
		for (size_t j = shown; j < nany; j++)
			rest += tt[j].n;
		fprintf(out, "\n%zu more %s with %.0f %s (%.1f %%) not shown: prof --threads=all "
			"shows every one, --threads=N the N with the most\n", nany - shown,
			prof_pl(nany - shown, "thread", "threads"), rest,
			prof_pl(rest >= 0.5 && rest < 1.5 ? 1 : 2, "sample", "samples"),
			all > 0 ? 100.0 * rest / all : 0.0);
	}
	free(tt);
	return rc;
}

/* One thread's heading, states and flat profile (prof_render_text). */
static int thread_report(const struct prof_profile *p, const struct prof_opts *o,
			 struct prof_opts *t, const struct prof_event_type *ev, size_t i, double n,
			 size_t nth, FILE *out)
{
	char label[64];
	fprintf(out, "%sThread %s: %.0f %s", nth ? "\n" : "",
		prof_thread_label(p, i, label, sizeof label), n,
		prof_pl(n >= 0.5 && n < 1.5 ? 1 : 2, "sample", "samples"));
	/* Wall-clock: against the samples due over its lifetime. */
	if (p->threads[i].wall_listed && ev->wall)
		fprintf(out, " of %llu due", (unsigned long long)p->threads[i].wall_expected);
	fputc('\n', out);
	if (prof_thread_states(p, o, i, out) < 0)
		return -1;
	t->thread = i;
	return text_table(p, t, out);
}
