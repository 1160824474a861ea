/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * csv.c — the flat profile as CSV ("csv"; columns in prof(1), FORMATS): a
 * header line, then the rows in the order the text report has them.
 * Fields with a comma, quote or line break are quoted (RFC 4180).  With
 * call stacks two columns follow: inclusive_percent, inclusive_seconds;
 * with --threads also a "thread" column (NAME-TID; empty on the rows of the
 * whole run), each thread's flat view after the whole run's.
 */
#include "out.h"

#include <string.h>

static int csv_rows(const struct prof_profile *p, const struct prof_opts *o, const char *thread,
		    FILE *out)
{
	struct prof_flat f;
	if (prof_flat_make(p, o, &f) < 0)
		return -1;
	double total = f.total_seconds, cum = 0;
	for (size_t i = 0; i < f.n; i++) {
		const struct prof_flat_row *w = &f.all[f.order[i]];
		const struct prof_function *fn = &p->functions[w->function];
		int ranged = fn->kind == PROF_FN_FUNC || fn->kind == PROF_FN_GAP ||
			     fn->kind == PROF_FN_UNWIND;
		cum += w->seconds;
		prof_csv_str(out, fn->name);
		fprintf(out, ",%s,", prof_kind_name(fn->kind));
		if (fn->kind != PROF_FN_UNKNOWN && fn->mapping < p->nmappings)
			prof_csv_str(out, p->mappings[fn->mapping].path);
		fputc(',', out);
		if (ranged)
			fprintf(out, "%#llx", (unsigned long long)fn->start);
		fprintf(out, ",%.6f,%.6f,%.6f,%.3f,%llu,",
			total > 0 ? 100.0 * w->seconds / total : 0.0, w->seconds, cum,
			w->samples, (unsigned long long)w->calls);
		if (w->calls)
			fprintf(out, "%.6f", 1000.0 * w->seconds / (double)w->calls);
		fputc(',', out);
		if (ranged)
			fprintf(out, "%llu", (unsigned long long)fn->size);
		fputc(',', out);
		if (fn->version)
			prof_csv_str(out, fn->version);
		if (f.inclusive)
			fprintf(out, ",%.6f,%.6f", total > 0 ? 100.0 * w->incl_seconds / total : 0.0,
				w->incl_seconds);
		if (thread) {
			fputc(',', out);
			prof_csv_str(out, thread);
		}
		fputc('\n', out);
	}
	prof_flat_free(&f);
	return 0;
}

int prof_render_csv(const struct prof_profile *p, const struct prof_opts *o, FILE *out)
{
	int stacks = prof_event_facts_of(p, o)->have_stacks;
	int threads = o->threads && stacks;
	fputs("name,kind,object,address,percent,seconds,cumsecs,ticks,calls,msec_per_call,"
	      "size,version", out);
	if (stacks)
		fputs(",inclusive_percent,inclusive_seconds", out);
	fputs(threads ? ",thread\n" : "\n", out);
	if (csv_rows(p, o, threads ? "" : NULL, out) < 0)
		return -1;
	struct prof_opts t = *o;
	t.only_thread = 1;
	for (size_t i = 0; threads && i < p->nthreads; i++) {
		char label[64];
		t.thread = i;
		if (csv_rows(p, &t, prof_thread_label(p, i, label, sizeof label), out) < 0)
			return -1;
	}
	return 0;
}
