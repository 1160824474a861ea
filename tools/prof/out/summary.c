/*
 * summary.c — prof -s: the facts of the run after System V's summary
 * lines (call counts used, symbols qualified), on standard error before
 * the report.
 */
#include "out.h"

#include "prof.h"	/* coverage_summary */

int prof_render_summary(const struct prof_profile *p, const struct prof_opts *o, FILE *e)
{
	const struct prof_facts *a = &p->facts;
	struct prof_flat f;
	if (prof_flat_make(p, o, &f) < 0)
		return -1;
	size_t funcs = 0, idle = 0;
	for (size_t i = 0; i < p->nfunctions; i++) {
		if (p->functions[i].kind != PROF_FN_FUNC)
			continue;
		funcs++;
		if (f.all[i].samples == 0 && f.all[i].calls == 0)
			idle++;
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
	if (a->counts_unmatched)
		fprintf(e, "%5llu calls counted outside any known function\n",
			(unsigned long long)a->counts_unmatched);
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
	fprintf(e, "clock %s, rate %g Hz (samples per CPU-second)%s\n",
		a->clock[0] ? a->clock : "unknown", a->rate_hz,
		a->rates_differ ? " (files differ; each file's own rate is used)" : "");
	if (a->have_stats)
		fprintf(e, "samples: %llu taken, %llu dropped (PC outside every histogram), "
			"%llu saturated (bin full), %llu lost\n",
			(unsigned long long)a->samples, (unsigned long long)a->dropped,
			(unsigned long long)a->saturated, (unsigned long long)a->lost);
	fprintf(e, "%.0f samples in the histograms = %.2f CPU seconds (samples / rate)\n",
		a->total_samples, a->total_seconds);
	if (a->have_stacks)
		fprintf(e, "call stacks: %.0f samples with a stack, %llu without (the runtime's "
			"table was full), %llu ended early, %llu cut at the depth limit, %llu "
			"stopped at JIT code\n", a->stack_samples, (unsigned long long)a->stacks_lost,
			(unsigned long long)a->stacks_truncated, (unsigned long long)a->stacks_depth,
			(unsigned long long)a->stacks_jit);
	if (a->have_cpu)
		fprintf(e, "run: %.2f s user CPU, %.2f s system CPU\n", a->user_s, a->sys_s);
	coverage_summary(a->cov, a->rate_hz, e);
	if (a->nfiles > 1)
		fprintf(e, "%zu data files summed\n", a->nfiles);
	fputs("columns: %Time share of all samples; CPUsecs CPU seconds sampled there; "
	      "Cumsecs running sum of CPUsecs; #Calls call count; msec/call CPU "
	      "milliseconds per call", e);
	if (a->have_stacks)
		fputs("; %Incl, InclSecs inclusive time: the function and all it called, "
		      "from the call stacks", e);
	fputc('\n', e);
	fflush(e);
	return 0;
}
