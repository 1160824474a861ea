/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * timeline.h — where each data file lies in wall-clock time and how many
 * samples it holds: the rows of prof --timeline (its text, timeline.c) and
 * of the flame graph's strip of samples over time (out/flame.c), computed
 * once in main.c as the files are read.
 */
#ifndef PROF_TIMELINE_H
#define PROF_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

struct prof_data;

/* One data file's place in time. */
struct prof_span {
	double start, end;	/* seconds since the Epoch (CLOCK_REALTIME); end >= start */
	uint64_t pid;		/* its process */
	uint64_t seq;		/* its INTERVAL record's sequence number (1, 2, ...); 0: no
				 * interval file */
	uint64_t samples;	/* prof_span_samples of the event asked */
	const char *file;	/* the data file's name as given (not owned) */
	int last;		/* an interval file flagged LAST (the process ended or exec'd) */
	double period_s;	/* an interval file's interval asked, seconds; else 0 */
};

/* A file's run in wall-clock time, seconds since the Epoch: an interval
 * file's INTERVAL record's start and end (nanoseconds), else from its
 * write time less its elapsed time to its write time (RUN's time, whole
 * seconds; FACTS' elapsed).  0, or -1 when the file does not say
 * (gmon.out, no FACTS). */
int prof_file_span(const struct prof_data *d, double *start, double *end);

/* A file's samples of event (enum prof_event): its CPU samples (RUN's
 * counted samples), or with PROF_EV_WALL its wall-clock samples (each
 * thread's, every state), with PROF_EV_OFFCPU those of threads neither
 * running nor runnable.  A count, >= 0. */
uint64_t prof_span_samples(const struct prof_data *d, int event);

/* Also warns (intervals-unfinished) of each process whose newest interval
 * file among v is not flagged LAST: the process was still running, or
 * ended without writing its last profile (SIGKILL; the exit_group system
 * call made by its own code, as Go's runtime does): up to an interval of
 * its run after that file is not in the profile.  Only when whole (no
 * --from/--to: the files read are all the series there is).
 * Warns (intervals-missing) of each run of sequence numbers missing
 * between two interval files of one process's series among v[0 .. n-1]
 * (any order; v is not changed): intervals whose files were not written
 * (the runtime skips the number of one it could not write) or were deleted
 * since.  Files of one pid whose numbers start again from a lower one are
 * the series of an exec'd image.  The first files of a series are not
 * looked for (--keep and --max-bytes remove the oldest).  0, or -1 without
 * memory (nothing said). */
int prof_warn_series_gaps(const struct prof_span *v, size_t n, int whole);

/* Puts v[0 .. n-1] in time order: by start, then by file name. */
void prof_spans_sort(struct prof_span *v, size_t n);

/* --timeline's text on stdout: the n spans of v in time order (sorted
 * here), one line each (start in UTC to the second, length in seconds,
 * process, samples, file and a bar of 60 characters for the most), then
 * how many files said no time (untimed), if any. */
void prof_print_timeline(struct prof_span *v, size_t n, size_t untimed);

#endif /* PROF_TIMELINE_H */
