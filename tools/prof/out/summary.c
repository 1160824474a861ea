/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * summary.c — prof -s: the facts of the run after System V's summary
 * lines (call counts used, symbols qualified), on standard error before
 * the report.
 */
#include "out.h"

#include "prof.h"	/* coverage_summary */

/* The wall-clock lines: what was sampled, at which rate, how much of it
 * off-CPU. */
static void wall_summary(const struct prof_profile *p, FILE *e)
{
	const struct prof_event_facts *w = &p->events[PROF_EV_WALL], *off = &p->events[PROF_EV_OFFCPU];
	if (!w->present)
		return;
	fprintf(e, "%s: %.0f %s = %.2f thread-seconds at %g Hz (samples per %s of each "
		"thread), %.2f s of them %s (the thread not running)\n",
		p->event_types[PROF_EV_WALL].noun, w->total_samples,
		prof_pl(w->total_samples, "sample", "samples"), w->total_seconds, w->rate_hz,
		p->event_types[PROF_EV_WALL].per, off->total_seconds,
		p->event_types[PROF_EV_OFFCPU].noun);
	const struct prof_facts *a = &p->facts;
	if (!a->have_wall)
		return;
	uint64_t due = a->wall_rounds + a->wall_missed;
	fprintf(e, "wall-clock sampler: %llu %s on time, %llu late (%.1f %% of those due; their "
		"samples taken at its next look) in "
		"%.2f s; its own thread used %.3f s user + %.3f s system CPU (%.2f %% of one CPU: "
		"the profiler's cost for wall-clock sampling)\n",
		(unsigned long long)a->wall_rounds, prof_pl(a->wall_rounds, "round", "rounds"),
		(unsigned long long)a->wall_missed,
		due ? 100.0 * (double)a->wall_missed / (double)due : 0.0, a->wall_elapsed_s,
		a->wall_user_s, a->wall_sys_s,
		a->wall_elapsed_s > 0 ? 100.0 * (a->wall_user_s + a->wall_sys_s) / a->wall_elapsed_s
				      : 0.0);
	uint64_t exp = 0, got = 0, unread = 0;
	for (size_t i = 0; i < p->nthreads; i++) {
		exp += p->threads[i].wall_expected;
		got += p->threads[i].wall_taken;
		unread += p->threads[i].wall_unreadable;
	}
	fprintf(e, "wall-clock samples: %llu taken of %llu due over the threads' lifetimes, "
		"%llu whose state could not be read, %llu not recorded (table full)\n",
		(unsigned long long)got, (unsigned long long)exp, (unsigned long long)unread,
		(unsigned long long)a->wall_lost);
}

int prof_render_summary(const struct prof_profile *p, const struct prof_opts *o, FILE *e)
{
	const struct prof_facts *a = &p->facts;
	const struct prof_event_type *cpu = &p->event_types[PROF_EV_CPU], *ev = prof_event_of(p, o);
	struct prof_flat f;
	if (prof_flat_make(p, o, &f) < 0)
		return -1;
	size_t funcs = 0, idle = 0, unnamed = 0;
	for (size_t i = 0; i < p->nfunctions; i++) {
		int k = p->functions[i].kind, busy = f.all[i].samples > 0 || f.all[i].calls > 0;
		if (k == PROF_FN_FUNC) {
			funcs++;
			idle += !busy;
		} else if (busy && (k == PROF_FN_UNWIND || k == PROF_FN_GAP || k == PROF_FN_OBJECT ||
				    k == PROF_FN_UNKNOWN)) {
			unnamed++;	/* a row of the flat profile, but no symbol's */
		}
	}
	prof_flat_free(&f);
	fputs("summary (System V's prof -s):\n", e);
	if (a->have_cells)
		fprintf(e, "%5llu/%llu call counts used    (call-count cells filled / "
			"available)\n", (unsigned long long)a->cells_used,
			(unsigned long long)a->cells_total);
	else
		fprintf(e, "%5llu call counts used    (functions with a call count)\n",
			(unsigned long long)a->cells_used);
	fprintf(e, "%5zu/%zu symbols qualified", funcs - idle, funcs);
	if (idle)
		fprintf(e, ", %zu had zero time and zero call-counts", idle);
	fputs("    (functions with time or calls / all)\n", e);
	if (unnamed)
		fprintf(e, "%5zu %s of code no symbol names had time or calls ([object]+0x..., "
			"[object] or [unknown] in the report)\n", unnamed, prof_pl(unnamed, "row", "rows"));
	if (a->counts_unmatched)
		fprintf(e, "%5llu %s counted outside any known function\n",
			(unsigned long long)a->counts_unmatched,
			prof_pl(a->counts_unmatched, "call", "calls"));
	if (a->scale_min == 0)
		fprintf(e, "no histogram\n");
	else if (a->scale_min == a->scale_max)
		fprintf(e, "%#x scale factor (%.3g bytes of text per bin: a bin counts "
			"every sample whose PC fell in its bytes)\n", a->scale_min,
			131072.0 / a->scale_min);
	else
		fprintf(e, "%#x..%#x scale factors (%.3g..%.3g bytes of text per bin)\n",
			a->scale_min, a->scale_max, 131072.0 / a->scale_max,
			131072.0 / a->scale_min);
	fprintf(e, "clock %s, rate %g Hz (samples per %s)%s\n",
		a->clock[0] ? a->clock : "unknown", a->rate_hz, cpu->per,
		a->rates_differ ? " (files differ; each file's own rate is used)" : "");
	if (a->have_stats)
		fprintf(e, "samples: %llu taken, %llu dropped (PC outside every histogram), "
			"%llu saturated (bin full), %llu lost\n",
			(unsigned long long)a->samples, (unsigned long long)a->dropped,
			(unsigned long long)a->saturated, (unsigned long long)a->lost);
	fprintf(e, "%.0f %s in the histograms = %.2f %s seconds (samples / rate)\n",
		a->total_samples, prof_pl(a->total_samples, "sample", "samples"), a->total_seconds,
		cpu->noun);
	if (a->have_stacks)
		fprintf(e, "call stacks: %.0f %s with a stack, %llu without (the runtime's "
			"table was full), %llu ended early, %llu cut at the depth limit, %llu "
			"stopped at JIT code\n", a->stack_samples,
			prof_pl(a->stack_samples, "sample", "samples"), (unsigned long long)a->stacks_lost,
			(unsigned long long)a->stacks_truncated, (unsigned long long)a->stacks_depth,
			(unsigned long long)a->stacks_jit);
	if (a->have_cpu)
		fprintf(e, "run: %.2f s user CPU, %.2f s system CPU\n", a->user_s, a->sys_s);
	coverage_summary(a->cov, a->rate_hz, e);
	if (a->nfiles > 1)
		fprintf(e, "%zu data files summed\n", a->nfiles);
	wall_summary(p, e);
	fprintf(e, "columns: %%Time share of all samples; %s %s seconds sampled there; "
		"Cumsecs running sum of %s; #Calls call count; msec/call %s "
		"milliseconds per call", ev->column, ev->noun, ev->column, ev->noun);
	if (prof_event_facts_of(p, o)->have_stacks)
		fputs("; %Incl, InclSecs inclusive time: the function and all it called, "
		      "from the call stacks", e);
	fputc('\n', e);
	fflush(e);
	return 0;
}
