/*
 * report.c — printing the flat profile: System V's columns, the -s summary,
 * and the same numbers as JSON or CSV for tools.
 *
 * Text (as System V's prof(1) prints it: the illumos manual page and
 * usr/src/cmd/sgs/prof/common/prof.c), one line per row, heading unless -h:
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
 *
 * JSON and CSV carry the rows in the same order, with full precision; the
 * schema is in prof.1 (FORMATS).
 */
#include "prof.h"

#include <stdlib.h>
#include <string.h>

const char *report_name(const struct prof_attr *a, const struct prof_row *r, int demangle,
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

/* ---- ordering ------------------------------------------------------------- */

struct sortctx {
	const struct prof_attr *a;
	int sort, demangle;
	const char **names;
};

static const struct sortctx *ctx;	/* qsort has no context argument in C11 */

static int by_name(size_t x, size_t y)
{
	return strcmp(ctx->names[x], ctx->names[y]);
}

static int by_addr(const struct prof_row *p, const struct prof_row *q)
{
	/* [unknown] last; otherwise image order, then address, the object
	 * row of an image after its code. */
	if ((p->kind == PROF_ROW_UNKNOWN) != (q->kind == PROF_ROW_UNKNOWN))
		return p->kind == PROF_ROW_UNKNOWN ? 1 : -1;
	if (p->image != q->image)
		return p->image < q->image ? -1 : 1;
	if ((p->kind == PROF_ROW_OBJECT) != (q->kind == PROF_ROW_OBJECT))
		return p->kind == PROF_ROW_OBJECT ? 1 : -1;
	return p->addr < q->addr ? -1 : p->addr > q->addr;
}

static int cmp_rows(const void *xa, const void *ya)
{
	size_t x = *(const size_t *)xa, y = *(const size_t *)ya;
	const struct prof_row *p = &ctx->a->rows[x], *q = &ctx->a->rows[y];
	int c = 0;
	switch (ctx->sort) {
	case PROF_SORT_CALLS:
		if (p->calls != q->calls)
			return p->calls > q->calls ? -1 : 1;
		if (p->ticks != q->ticks)
			return p->ticks > q->ticks ? -1 : 1;
		break;
	case PROF_SORT_ADDR:
		c = by_addr(p, q);
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
		c = by_addr(p, q);
	return c;
}

/* ---- output helpers -------------------------------------------------------- */

static void json_str(FILE *f, const char *s)
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

static void csv_str(FILE *f, const char *s)
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

static const char *kind_name(int k)
{
	switch (k) {
	case PROF_ROW_FUNC: return "function";
	case PROF_ROW_GAP: return "gap";
	case PROF_ROW_UNWIND: return "unwind";
	case PROF_ROW_OBJECT: return "object";
	default: return "unknown";
	}
}

/* Fractional digits of msec/call: more calls, more digits (System V). */
static int call_digits(uint64_t calls)
{
	return calls < 10 ? 0 : calls < 100 ? 1 : calls < 1000 ? 2 : calls < 10000 ? 3 : 4;
}

static void summary(const struct prof_attr *a, FILE *e)
{
	size_t funcs = 0, idle = 0;
	for (size_t r = 0; r < a->nrows; r++) {
		if (a->rows[r].kind != PROF_ROW_FUNC)
			continue;
		funcs++;
		if (a->rows[r].ticks == 0 && a->rows[r].calls == 0)
			idle++;
	}
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
		a->total_ticks, a->total_seconds);
	if (a->have_cpu)
		fprintf(e, "run: %.2f s user CPU, %.2f s system CPU\n", a->user_s, a->sys_s);
	coverage_summary(a, e);
	if (a->nfiles > 1)
		fprintf(e, "%zu data files summed\n", a->nfiles);
	fputs("columns: %Time share of all samples; CPUsecs CPU seconds sampled there; "
	      "Cumsecs running sum of CPUsecs; #Calls call count; msec/call CPU "
	      "milliseconds per call\n", e);
	fflush(e);
}

int report_print(const struct prof_attr *a, const struct prof_opts *o, FILE *out, FILE *err)
{
	size_t *order = malloc((a->nrows ? a->nrows : 1) * sizeof *order);
	const char **names = malloc((a->nrows ? a->nrows : 1) * sizeof *names);
	char *namebuf = NULL;
	size_t n = 0;
	int rc = -1;
	if (!order || !names)
		goto out;

	/* Names first (sorting by name needs them; demangling is costly). */
	size_t pool = 0;
	for (size_t r = 0; r < a->nrows; r++) {
		char b[4096];
		pool += strlen(report_name(a, &a->rows[r], o->demangle, b, sizeof b)) + 1;
	}
	namebuf = malloc(pool ? pool : 1);
	if (!namebuf)
		goto out;
	char *p = namebuf;
	for (size_t r = 0; r < a->nrows; r++) {
		char b[4096];
		const char *nm = report_name(a, &a->rows[r], o->demangle, b, sizeof b);
		size_t l = strlen(nm) + 1;
		memcpy(p, nm, l);
		names[r] = p;
		p += l;
	}

	for (size_t r = 0; r < a->nrows; r++) {
		const struct prof_row *w = &a->rows[r];
		if (w->ticks > 0 || w->calls > 0 || (o->zero && w->kind == PROF_ROW_FUNC))
			order[n++] = r;
	}
	struct sortctx c = { a, o->sort, o->demangle, names };
	ctx = &c;
	qsort(order, n, sizeof *order, cmp_rows);
	ctx = NULL;

	/* The summary first, on its own stream: a reader of the report that
	 * stops early (prof -s | head) cannot lose it. */
	if (o->summary)
		summary(a, err);

	double total = a->total_seconds, cum = 0;
	if (o->format == PROF_FMT_TEXT) {
		/* System V's #Calls field is 8 wide; a count of 8 digits or more
		 * would run into Cumsecs, so the column widens for every row. */
		int cw = 8;
		for (size_t i = 0; i < n; i++) {
			int d = snprintf(NULL, 0, "%llu", (unsigned long long)a->rows[order[i]].calls);
			if (d + 1 > cw)
				cw = d + 1;
		}
		if (!o->no_heading) {
			if (o->addr_radix)
				fputs(" Address ", out);
			fprintf(out, " %%Time CPUsecs Cumsecs%*s   msec/call  Name\n", cw, "#Calls");
		}
		for (size_t i = 0; i < n; i++) {
			const struct prof_row *w = &a->rows[order[i]];
			cum += w->seconds;
			if (o->addr_radix == 8)
				fprintf(out, "%8llo ", (unsigned long long)w->addr);
			else if (o->addr_radix == 16)
				fprintf(out, "%8llx ", (unsigned long long)w->addr);
			fprintf(out, "%6.1f%8.2f%8.2f", total > 0 ? 100.0 * w->seconds / total : 0.0,
				w->seconds, cum);
			if (w->calls > 0) {
				int f = call_digits(w->calls);
				fprintf(out, "%*llu%#*.*f%*s", cw, (unsigned long long)w->calls, 8 + f, f,
					1000.0 * w->seconds / (double)w->calls, 6 - f, "");
			} else {
				fprintf(out, "%*s", cw + 14, "");
			}
			fprintf(out, "%s\n", names[order[i]]);
		}
	} else if (o->format == PROF_FMT_JSON) {
		fprintf(out, "{\"schema\":\"monprof-prof-flat\",\"version\":1,");
		fprintf(out, "\"rate_hz\":%.15g,\"total_ticks\":%.15g,\"total_seconds\":%.15g,",
			a->rate_hz, a->total_ticks, a->total_seconds);
		fprintf(out, "\"files\":%zu,\"call_counts_used\":%llu,", a->nfiles,
			(unsigned long long)a->cells_used);
		if (a->have_stats)
			fprintf(out, "\"samples\":%llu,\"dropped\":%llu,\"saturated\":%llu,"
				"\"lost\":%llu,", (unsigned long long)a->samples,
				(unsigned long long)a->dropped, (unsigned long long)a->saturated,
				(unsigned long long)a->lost);
		if (a->have_cpu)
			fprintf(out, "\"user_seconds\":%.6f,\"system_seconds\":%.6f,", a->user_s,
				a->sys_s);
		fputs("\"clock\":", out);
		json_str(out, a->clock[0] ? a->clock : "unknown");
		fputs(",\"warnings\":[", out);
		size_t nw;
		const struct prof_warning *wv = prof_warnings(&nw);
		for (size_t i = 0; i < nw; i++) {
			fputs(i ? ",{\"code\":" : "{\"code\":", out);
			json_str(out, wv[i].code);
			fputs(",\"message\":", out);
			json_str(out, wv[i].text);
			fputc('}', out);
		}
		fputs("],\"rows\":[", out);
		for (size_t i = 0; i < n; i++) {
			const struct prof_row *w = &a->rows[order[i]];
			cum += w->seconds;
			fputs(i ? ",\n{" : "\n{", out);
			fputs("\"name\":", out);
			json_str(out, names[order[i]]);
			fprintf(out, ",\"kind\":\"%s\",\"object\":", kind_name(w->kind));
			if (w->kind == PROF_ROW_UNKNOWN)
				fputs("null,\"address\":null", out);
			else {
				json_str(out, a->images[w->image]->path);
				if (w->kind == PROF_ROW_OBJECT)
					fputs(",\"address\":null,\"size\":null", out);
				else
					fprintf(out, ",\"address\":%llu,\"size\":%llu",
						(unsigned long long)w->addr,
						(unsigned long long)w->size);
			}
			if (w->kind == PROF_ROW_UNKNOWN)
				fputs(",\"size\":null", out);
			fputs(",\"symbol\":", out);
			if (w->kind == PROF_ROW_FUNC)
				json_str(out, w->name);
			else
				fputs("null", out);
			fputs(",\"version\":", out);
			if (w->version)
				json_str(out, w->version);
			else
				fputs("null", out);
			fprintf(out, ",\"percent\":%.15g,\"seconds\":%.15g,\"cumsecs\":%.15g,"
				"\"ticks\":%.15g,\"calls\":%llu,\"msec_per_call\":",
				total > 0 ? 100.0 * w->seconds / total : 0.0, w->seconds, cum,
				w->ticks, (unsigned long long)w->calls);
			if (w->calls)
				fprintf(out, "%.15g}", 1000.0 * w->seconds / (double)w->calls);
			else
				fputs("null}", out);
		}
		fputs("\n]}\n", out);
	} else {
		fputs("name,kind,object,address,percent,seconds,cumsecs,ticks,calls,msec_per_call,"
		      "size,version\n", out);
		for (size_t i = 0; i < n; i++) {
			const struct prof_row *w = &a->rows[order[i]];
			cum += w->seconds;
			csv_str(out, names[order[i]]);
			fprintf(out, ",%s,", kind_name(w->kind));
			if (w->kind != PROF_ROW_UNKNOWN)
				csv_str(out, a->images[w->image]->path);
			fputc(',', out);
			if (w->kind == PROF_ROW_FUNC || w->kind == PROF_ROW_GAP ||
			    w->kind == PROF_ROW_UNWIND)
				fprintf(out, "%#llx", (unsigned long long)w->addr);
			fprintf(out, ",%.6f,%.6f,%.6f,%.3f,%llu,",
				total > 0 ? 100.0 * w->seconds / total : 0.0, w->seconds, cum,
				w->ticks, (unsigned long long)w->calls);
			if (w->calls)
				fprintf(out, "%.6f", 1000.0 * w->seconds / (double)w->calls);
			fputc(',', out);
			if (w->kind == PROF_ROW_FUNC || w->kind == PROF_ROW_GAP ||
			    w->kind == PROF_ROW_UNWIND)
				fprintf(out, "%llu", (unsigned long long)w->size);
			fputc(',', out);
			if (w->version)
				csv_str(out, w->version);
			fputc('\n', out);
		}
	}
	rc = 0;
out:
	free(order);
	free(names);
	free(namebuf);
	return rc;
}
