/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * json.c — the flat profile as one JSON object ("json"; schema
 * "monprof-prof-flat" version 1, in prof(1), FORMATS): the run's facts, the
 * warnings given, and the rows in the order the text report has them, with
 * full precision (%.15g).  With call stacks each row also has
 * "inclusive_ticks", "inclusive_seconds" and "inclusive_percent", and the
 * object a "stacks" member (samples with a stack, lost, truncated,
 * depth_limited, jit); with --threads a "threads" array, one flat view
 * ({tid, name, rows}) per thread of the stacks; with --sample=wall or
 * offcpu each thread also has "samples_due", "states_unread", "states"
 * (seconds by thread state) and "waits" (its waiting seconds by reason).
 */
#include "out.h"

#include "prof.h"	/* struct prof_warning */

/* The rows of one flat view (all samples, or one thread's) as an array. */
static int json_rows(const struct prof_profile *p, const struct prof_opts *o, FILE *out)
{
	struct prof_flat f;
	if (prof_flat_make(p, o, &f) < 0)
		return -1;
	double total = f.total_seconds, cum = 0;
	fputc('[', out);
	for (size_t i = 0; i < f.n; i++) {
		const struct prof_flat_row *w = &f.all[f.order[i]];
		const struct prof_function *fn = &p->functions[w->function];
		cum += w->seconds;
		fputs(i ? ",\n{" : "\n{", out);
		fputs("\"name\":", out);
		prof_json_str(out, fn->name);
		fprintf(out, ",\"kind\":\"%s\",\"object\":", prof_kind_name(fn->kind));
		int nomap = fn->kind == PROF_FN_UNKNOWN || fn->mapping >= p->nmappings;
		if (nomap)	/* [unknown], and a wait frame: no object */
			fputs("null,\"address\":null", out);
		else {
			prof_json_str(out, p->mappings[fn->mapping].path);
			if (fn->kind == PROF_FN_OBJECT)
				fputs(",\"address\":null,\"size\":null", out);
			else
				fprintf(out, ",\"address\":%llu,\"size\":%llu",
					(unsigned long long)fn->start, (unsigned long long)fn->size);
		}
		if (nomap)
			fputs(",\"size\":null", out);
		fputs(",\"symbol\":", out);
		if (fn->system_name)
			prof_json_str(out, fn->system_name);
		else
			fputs("null", out);
		fputs(",\"version\":", out);
		if (fn->version)
			prof_json_str(out, fn->version);
		else
			fputs("null", out);
		fprintf(out, ",\"percent\":%.15g,\"seconds\":%.15g,\"cumsecs\":%.15g,"
			"\"ticks\":%.15g,\"calls\":%llu,\"msec_per_call\":",
			total > 0 ? 100.0 * w->seconds / total : 0.0, w->seconds, cum,
			w->samples, (unsigned long long)w->calls);
		if (w->calls)
			fprintf(out, "%.15g", 1000.0 * w->seconds / (double)w->calls);
		else
			fputs("null", out);
		if (f.inclusive)
			fprintf(out, ",\"inclusive_ticks\":%.15g,\"inclusive_seconds\":%.15g,"
				"\"inclusive_percent\":%.15g", w->incl_samples, w->incl_seconds,
				total > 0 ? 100.0 * w->incl_seconds / total : 0.0);
		fputc('}', out);
	}
	fputs("\n]", out);
	prof_flat_free(&f);
	return 0;
}

/* A thread's wall-clock accounting and its time by state and by wait
 * reason (--sample=wall or offcpu): "samples_due", "states" {name:
 * seconds}, "waits" [{name, seconds}], most first. */
static int json_split(const struct prof_profile *p, const struct prof_opts *o, size_t t, FILE *out)
{
	struct prof_split sp;
	if (prof_thread_split(p, o, t, &sp) < 0)
		return -1;
	const struct prof_thread_name *th = &p->threads[t];
	if (th->wall_listed)
		fprintf(out, ",\"samples_due\":%llu,\"states_unread\":%llu",
			(unsigned long long)th->wall_expected, (unsigned long long)th->wall_unreadable);
	fputs(",\"states\":{", out);
	for (int k = PROF_TS_RUNNING, n = 0; k < PROF_NTS; k++) {
		if (!(sp.state[k] > 0))
			continue;
		fputs(n++ ? "," : "", out);
		prof_json_str(out, prof_tstate_name(k));
		fprintf(out, ":%.15g", sp.state[k]);
	}
	fputs("},\"waits\":[", out);
	for (size_t r = 0; r < sp.nreasons; r++) {
		fputs(r ? ",{\"name\":" : "{\"name\":", out);
		if (sp.reasons[r].function == SIZE_MAX)
			fputs("null", out);
		else
			prof_json_str(out, p->functions[sp.reasons[r].function].name);
		fprintf(out, ",\"seconds\":%.15g}", sp.reasons[r].seconds);
	}
	fputc(']', out);
	prof_split_free(&sp);
	return 0;
}

int prof_render_json(const struct prof_profile *p, const struct prof_opts *o, FILE *out)
{
	const struct prof_facts *a = &p->facts;
	const struct prof_event_facts *ef = prof_event_facts_of(p, o);
	fprintf(out, "{\"schema\":\"monprof-prof-flat\",\"version\":1,");
	if (prof_event_named(p, o)) {	/* which event the seconds are of */
		fputs("\"sample\":", out);
		prof_json_str(out, prof_event_of(p, o)->name);
		fputc(',', out);
	}
	fprintf(out, "\"rate_hz\":%.15g,\"total_ticks\":%.15g,\"total_seconds\":%.15g,",
		ef->rate_hz, ef->total_samples, ef->total_seconds);
	fprintf(out, "\"files\":%zu,\"call_counts_used\":%llu,", a->nfiles,
		(unsigned long long)a->cells_used);
	if (a->have_stats)
		fprintf(out, "\"samples\":%llu,\"dropped\":%llu,\"saturated\":%llu,"
			"\"lost\":%llu,", (unsigned long long)a->samples,
			(unsigned long long)a->dropped, (unsigned long long)a->saturated,
			(unsigned long long)a->lost);
	if (a->have_cpu)
		fprintf(out, "\"user_seconds\":%.6f,\"system_seconds\":%.6f,", a->user_s, a->sys_s);
	fputs("\"clock\":", out);
	prof_json_str(out, a->clock[0] ? a->clock : "unknown");
	fputs(",\"warnings\":[", out);
	for (size_t i = 0; i < a->nwarnings; i++) {
		fputs(i ? ",{\"code\":" : "{\"code\":", out);
		prof_json_str(out, a->warnings[i].code);
		fputs(",\"message\":", out);
		prof_json_str(out, a->warnings[i].text);
		fputc('}', out);
	}
	fputs("],\"rows\":", out);
	if (json_rows(p, o, out) < 0)
		return -1;
	if (a->have_stacks)
		fprintf(out, ",\n\"stacks\":{\"samples\":%.15g,\"lost\":%llu,\"truncated\":%llu,"
			"\"depth_limited\":%llu,\"jit\":%llu}", a->stack_samples,
			(unsigned long long)a->stacks_lost, (unsigned long long)a->stacks_truncated,
			(unsigned long long)a->stacks_depth, (unsigned long long)a->stacks_jit);
	if (o->threads && ef->have_stacks) {
		struct prof_opts t = *o;
		t.only_thread = 1;
		fputs(",\n\"threads\":[", out);
		for (size_t i = 0; i < p->nthreads; i++) {
			fprintf(out, "%s{\"tid\":%llu,\"name\":", i ? ",\n" : "\n",
				(unsigned long long)p->threads[i].tid);
			prof_json_str(out, p->threads[i].name);
			if (prof_event_of(p, o)->wall && json_split(p, o, i, out) < 0)
				return -1;
			fputs(",\"rows\":", out);
			t.thread = i;
			if (json_rows(p, &t, out) < 0)
				return -1;
			fputc('}', out);
		}
		fputs("\n]", out);
	}
	fputs("}\n", out);
	return 0;
}
