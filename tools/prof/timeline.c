/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * timeline.c — each data file's place in wall-clock time and its samples
 * (timeline.h): what prof --timeline prints, one line per file, and what
 * the flame graph's strip draws, one bar per file (out/flame.c).  main.c
 * makes one struct prof_span per file it reads; both views share them.
 */
#include "timeline.h"
#include "prof.h"
#include "profile.h"
#include "monout.h"

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <time.h>

int prof_file_span(const struct prof_data *d, double *start, double *end)
{
	/* INTERVAL's or SPAN's bounds, to the nanosecond; files before them
	 * have RUN's time, whole seconds (monout_span_ns). */
	if (!d->run.span_known)
		return -1;
	*start = (double)d->run.start_ns / 1e9;
	*end = (double)d->run.end_ns / 1e9;
	return 0;
}

uint64_t prof_span_samples(const struct prof_data *d, int event)
{
	if (event == PROF_EV_CPU)
		return d->run.samples;
	uint64_t n = 0;
	for (size_t i = 0; i < d->nwall_samples; i++)
		if (event == PROF_EV_WALL || (d->wall_samples[i].state != MONOUT_WALL_RUNNING &&
					      d->wall_samples[i].state != MONOUT_WALL_RUNNABLE))
			n += d->wall_samples[i].count;
	return n;
}

static int cmp_pid_start(const void *x, const void *y)
{
	const struct prof_span *p = *(const struct prof_span *const *)x,
			       *q = *(const struct prof_span *const *)y;
	if (p->pid != q->pid)
		return p->pid < q->pid ? -1 : 1;
	if (p->start != q->start)
		return p->start < q->start ? -1 : 1;
	return p->seq < q->seq ? -1 : p->seq > q->seq;
}

int prof_warn_series_gaps(const struct prof_span *v, size_t n, int whole)
{
	const struct prof_span **s = malloc((n ? n : 1) * sizeof *s);
	if (s == NULL)
		return -1;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i].seq)
			s[k++] = &v[i];
	qsort(s, k, sizeof *s, cmp_pid_start);
	for (size_t i = 1; i < k; i++) {
		const struct prof_span *a = s[i - 1], *b = s[i];
		if (a->pid != b->pid || b->seq <= a->seq + 1)
			continue;	/* another process, the next, or an exec's new series */
		unsigned long long lo = a->seq + 1, hi = b->seq - 1;
		prof_warn("intervals-missing",
			  "process %llu: %s %llu%s%.0llu of its series %s not among the files read (%s "
			  "is #%llu, %s #%llu): %.1f s of its run are not in this profile.  Their "
			  "files were not written (the program's standard error says why: a full "
			  "disk, PROFDIR removed or read-only) or were deleted since; keep PROFDIR "
			  "writable with room for the series (monrun --max-bytes, --keep bound it)",
			  (unsigned long long)a->pid, lo == hi ? "interval" : "intervals", lo,
			  lo == hi ? "" : " to ", lo == hi ? 0ull : hi, lo == hi ? "is" : "are",
			  a->file, (unsigned long long)a->seq, b->file, (unsigned long long)b->seq,
			  b->start > a->end ? b->start - a->end : 0.0);
	}
	/* Each process's newest interval file (the last of its run of the
	 * sorted array): the end of its series, unless flagged LAST. */
	for (size_t i = 0; i < k; i++) {
		const struct prof_span *a = s[i];
		if (!whole || (i + 1 < k && s[i + 1]->pid == a->pid) || a->last)
			continue;
		prof_warn("intervals-unfinished",
			  "process %llu: its series ends with %s (#%llu), which is not its last "
			  "interval: the process was still running, or it ended without writing "
			  "its last profile (killed by SIGKILL or the OOM killer, or by the "
			  "exit_group system call made by its own code, as Go's runtime does): up "
			  "to %.0f s of its run after that file's end are not in this profile; for "
			  "a program still running, read its files again when it has ended, or "
			  "ask for the rest with monctl PID snapshot",
			  (unsigned long long)a->pid, a->file, (unsigned long long)a->seq,
			  a->period_s > 0 ? a->period_s : 1.0);
	}
	free(s);
	return 0;
}

static int cmp_span(const void *x, const void *y)
{
	const struct prof_span *p = x, *q = y;
	if (p->start != q->start)
		return p->start < q->start ? -1 : 1;
	return strcmp(p->file, q->file);
}

void prof_spans_sort(struct prof_span *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_span);
}

void prof_print_timeline(struct prof_span *v, size_t n, size_t untimed)
{
	prof_spans_sort(v, n);
	uint64_t most = 1;
	for (size_t i = 0; i < n; i++)
		if (v[i].samples > most)
			most = v[i].samples;
	printf("%-23s %9s %8s %9s  %s\n", "start (UTC)", "seconds", "pid", "samples", "file");
	for (size_t i = 0; i < n; i++) {
		char when[48];
		/* milliseconds, rounded: files of one process tree start
		 * within a second */
		long long all_ms = llround(v[i].start * 1000);
		time_t t = (time_t)(all_ms / 1000);
		struct tm tm;
		int ms = (int)(all_ms % 1000);
		if (gmtime_r(&t, &tm) == NULL || strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
			snprintf(when, sizeof when, "%.3f", v[i].start);
		else
			snprintf(when + strlen(when), sizeof when - strlen(when), ".%03d",
				 ms < 0 ? 0 : ms > 999 ? 999 : ms);
		int bar = (int)(60 * v[i].samples / most);
		printf("%-23s %9.3f %8llu %9llu  %s %.*s\n", when, v[i].end - v[i].start,
		       (unsigned long long)v[i].pid, (unsigned long long)v[i].samples, v[i].file,
		       bar, "############################################################");
	}
	if (untimed)
		printf("(%zu %s without a time: written before mon.out minor 2, or gmon.out)\n",
		       untimed, prof_pl(untimed, "file", "files"));
}
