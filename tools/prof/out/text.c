/*
 * text.c — System V's flat profile ("text", the default), as System V's
 * prof(1) prints it (the illumos manual page and
 * usr/src/cmd/sgs/prof/common/prof.c), one line per function, heading
 * unless -h:
 *
 *    %Time CPUsecs Cumsecs  #Calls   msec/call  Name
 *     61.5    1.23    1.23    1000      1.2300  busy
 *
 * (System V's heading said "Seconds"; the column is CPU time, samples
 * divided by the rate of the profiling clock, so it says so.)
 *
 * %Time, CPUsecs and Cumsecs are "%6.1f%8.2f%8.2f" (Cumsecs adds up in the
 * printed order); with calls, "%8llu" then msec/call with 0 to 4 decimals
 * (more decimals the more calls: 1, 10, 100, 1000 and up) in a field of 8 +
 * decimals, padded to 14 characters; without calls, 22 spaces.  -o/-x put
 * the address (the ELF symbol value, octal or hex) first, under " Address ".
 * %Time is relative to all samples in the histograms, including those shown
 * as [object]+0xoffset and [unknown], so the column adds up to 100.
 */
#include "out.h"

/* Fractional digits of msec/call: more calls, more digits (System V). */
static int call_digits(uint64_t calls)
{
	return calls < 10 ? 0 : calls < 100 ? 1 : calls < 1000 ? 2 : calls < 10000 ? 3 : 4;
}

int prof_render_text(const struct prof_profile *p, const struct prof_opts *o, FILE *out)
{
	struct prof_flat f;
	if (prof_flat_make(p, o, &f) < 0)
		return -1;
	double total = p->facts.total_seconds, cum = 0;
	/* System V's #Calls field is 8 wide; a count of 8 digits or more
	 * would run into Cumsecs, so the column widens for every row. */
	int cw = 8;
	for (size_t i = 0; i < f.n; i++) {
		int d = snprintf(NULL, 0, "%llu", (unsigned long long)f.all[f.order[i]].calls);
		if (d + 1 > cw)
			cw = d + 1;
	}
	if (!o->no_heading) {
		if (o->addr_radix)
			fputs(" Address ", out);
		fprintf(out, " %%Time CPUsecs Cumsecs%*s   msec/call  Name\n", cw, "#Calls");
	}
	for (size_t i = 0; i < f.n; i++) {
		const struct prof_flat_row *w = &f.all[f.order[i]];
		const struct prof_function *fn = &p->functions[w->function];
		cum += w->seconds;
		if (o->addr_radix == 8)
			fprintf(out, "%8llo ", (unsigned long long)fn->start);
		else if (o->addr_radix == 16)
			fprintf(out, "%8llx ", (unsigned long long)fn->start);
		fprintf(out, "%6.1f%8.2f%8.2f", total > 0 ? 100.0 * w->seconds / total : 0.0,
			w->seconds, cum);
		if (w->calls > 0) {
			int d = call_digits(w->calls);
			fprintf(out, "%*llu%#*.*f%*s", cw, (unsigned long long)w->calls, 8 + d, d,
				1000.0 * w->seconds / (double)w->calls, 6 - d, "");
		} else {
			fprintf(out, "%*s", cw + 14, "");
		}
		fprintf(out, "%s\n", fn->name);
	}
	prof_flat_free(&f);
	return 0;
}
