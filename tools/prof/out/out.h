/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * out.h — prof's renderers: each reads only the model (../profile.h) and
 * writes one format; main.c picks one by name from prof_renderers, the one
 * table (as perf keeps its commands[]).  A renderer writes nothing but its
 * format on its stream: warnings go through prof_warn's sink (warn.c),
 * which is standard error, so that a binary format stays clean.
 */
#ifndef PROF_OUT_H
#define PROF_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile.h"
#include "timeline.h"

enum prof_sort { PROF_SORT_TIME, PROF_SORT_CALLS, PROF_SORT_ADDR, PROF_SORT_NAME };

struct prof_renderer;

/* --threads without a number: the text shows this many threads, the ones
 * with the most samples. */
#define PROF_THREADS_SHOWN 32

struct prof_opts {
	int sort;		/* enum prof_sort */
	int addr_radix;		/* 0, 8 (-o) or 16 (-x) */
	int zero;		/* -z */
	int no_heading;		/* -h */
	int summary;		/* -s */
	int demangle;		/* -C (the default); --no-demangle clears it */
	int threads;		/* --threads: a report per thread (stacks) */
	size_t threads_max;	/* --threads=N: the text shows the N threads with the most
				 * samples (0: every one, --threads=all) */
	int event;		/* --sample: enum prof_event (0: CPU, the default); every
				 * renderer shows this event's samples and seconds */
	const char *callers;	/* --callers=NAME: the call graph of NAME's callers */
	const char *callees;	/* --callees=NAME: the call graph of NAME's callees */
	/* Set by a renderer for prof_flat_make: only the stack samples of
	 * thread `thread` (an index in p->threads). */
	int only_thread;
	size_t thread;
	const struct prof_renderer *renderer;	/* NULL: the first, text */
	const struct prof_profile *base;	/* --base: the profile to compare with, or NULL */
	const char *base_file;	/* its data file's name, for headings */
	/* The data files read that say when they ran, in time order (main.c,
	 * prof_spans_sort), and how many did not: the flame graph draws their
	 * samples over time when there are two or more. */
	const struct prof_span *spans;
	size_t nspans;
	size_t untimed;
};

/* Writes p as one format on out.  Returns 0, or -1 with errno (ENOMEM). */
typedef int prof_render_fn(const struct prof_profile *p, const struct prof_opts *o, FILE *out);

struct prof_renderer {
	const char *name;	/* --format=NAME */
	prof_render_fn *render;
};

/* The renderers, text first (the default); ends with { NULL, NULL }. */
extern const struct prof_renderer prof_renderers[];

/* The renderer called name, or NULL. */
const struct prof_renderer *prof_renderer_find(const char *name);

/* "text, json or csv": the names, for messages, into buf. */
const char *prof_renderer_names(char *buf, size_t len);

/* The -s summary (if o->summary) on err, first, so that a reader of the
 * report that stops early (prof -s | head) cannot lose it; then the
 * chosen renderer on out.  Returns 0, or -1 with errno. */
int prof_render(const struct prof_profile *p, const struct prof_opts *o, FILE *out, FILE *err);

/* s as a JSON string, quoted and escaped (RFC 8259: " and \ escaped,
 * control characters as \u00XX; other bytes as they are). */
void prof_json_str(FILE *f, const char *s);
/* s as a CSV field (RFC 4180): as it is, or quoted with its quotes doubled
 * when it holds a comma, a quote or a line break. */
void prof_csv_str(FILE *f, const char *s);

/* The event o asks for (o->event), its words and sample types, and what p
 * holds of it. */
const struct prof_event_type *prof_event_of(const struct prof_profile *p, const struct prof_opts *o);
const struct prof_event_facts *prof_event_facts_of(const struct prof_profile *p,
						   const struct prof_opts *o);

/* Whether a format whose fields do not say which event they measure
 * (JSON's "seconds") names it: the profile holds more than the default
 * event, or another was asked. */
int prof_event_named(const struct prof_profile *p, const struct prof_opts *o);

/* ---- the flat profile: the model's samples added up by leaf function ----- */

struct prof_flat_row {
	size_t function;	/* index in p->functions */
	double samples, seconds;	/* of the event asked (o->event) */
	uint64_t calls;
	/* Inclusive: the samples (seconds) of every sample whose stack holds
	 * the function, each sample counted once even under recursion. */
	double incl_samples, incl_seconds;
};

struct prof_flat {
	struct prof_flat_row *all;	/* one per function, by index */
	size_t *order;			/* the rows shown, in the order asked */
	size_t n;
	int inclusive;		/* the event's samples have stacks: show inclusive time */
	double total_seconds;	/* what %Time is of: all the histograms' time (CPU
				 * without stacks), else the rows' sum (of a thread's
				 * stack samples with o->only_thread) */
};

/* Adds up p's samples by their leaf location's innermost function, and
 * each sample once to every function of its stack (inclusive), and orders
 * the functions with time or calls (with stacks also those with inclusive
 * time; with -z also every function of kind FUNC; never the markers) as
 * o->sort asks, ties by name, then address.  With o->only_thread, only
 * that thread's stack samples count.  0 or -1 (ENOMEM). */
int prof_flat_make(const struct prof_profile *p, const struct prof_opts *o, struct prof_flat *f);

void prof_flat_free(struct prof_flat *f);

/* A thread's time of the event o asks for, split by the thread's state in
 * its wall-clock samples, and its waiting time (blocked, uninterruptible,
 * stopped, other: not running, not runnable, not unread) by what it waited
 * for: the sample's wait frame (a function of kind PROF_FN_WAIT, its leaf),
 * most first.  thread: an index in p->threads, or SIZE_MAX for every
 * thread.  Seconds.  Without wall samples every state is 0. */
struct prof_split_reason {
	size_t function;	/* the wait frame; SIZE_MAX: the sample has none */
	double seconds;
};
struct prof_split {
	double total;			/* the thread's seconds of the event */
	double state[PROF_NTS];		/* by enum prof_tstate */
	double waiting;			/* of them not running or runnable */
	struct prof_split_reason *reasons;	/* malloc'd, most first */
	size_t nreasons;
};
int prof_thread_split(const struct prof_profile *p, const struct prof_opts *o, size_t thread,
		      struct prof_split *sp);
void prof_split_free(struct prof_split *sp);
/* The text form of thread's split (text.c): a line of its states' shares,
 * then its waiting time by reason, one per line; nothing for an event
 * without thread states (CPU).  0 or -1 (ENOMEM). */
int prof_thread_states(const struct prof_profile *p, const struct prof_opts *o, size_t thread,
		       FILE *out);

/* Kind names of the JSON and CSV "kind" field ("function", "gap", ...). */
const char *prof_kind_name(int kind);

/* The renderers (text.c, json.c, csv.c, graph, folded, pprof.c,
 * callgrind.c, flame.c), and the -s summary (summary.c).  pprof,
 * callgrind and flame read every sample (a stack of locations), not the
 * flat view. */
prof_render_fn prof_render_text, prof_render_json, prof_render_csv, prof_render_graph,
	prof_render_folded, prof_render_pprof, prof_render_callgrind, prof_render_flame;

/* "name-tid" of thread t of p (name "thread" when THREADS did not name
 * it) into buf. */
const char *prof_thread_label(const struct prof_profile *p, size_t t, char *buf, size_t len);

/* The function whose printed (or symbol) name is name, or SIZE_MAX. */
size_t prof_function_find(const struct prof_profile *p, const char *name);
/* The functions name may mean when none has it exactly: those whose
 * printed or symbol name is name followed by '.' (a copy the compiler
 * made: heavy.constprop.0, heavy.isra.0, heavy.part.0, heavy.cold) or '('
 * (a demangled C++ name's parameters), into out[0..cap); how many there
 * are (more than cap when the list was cut). */
size_t prof_function_like(const struct prof_profile *p, const char *name, size_t *out, size_t cap);
int prof_render_summary(const struct prof_profile *p, const struct prof_opts *o, FILE *err);

/* --base (diff.c): whether renderer r (NULL: text) can show a diff (text,
 * json, csv), and the diff of p against o->base in o->renderer's format:
 * every function with samples in either profile, matched by name and
 * object, its change in percentage points and seconds, largest change
 * first.  0, or -1 with errno (ENOMEM). */
int prof_diff_supported(const struct prof_renderer *r);

/* --annotate=FUNCTION (annotate.c): FUNCTION's source lines with the
 * samples (of the event o->event) at each and their percent of the function's samples, from a
 * model with lines (profile_lines, not split); its disassembly (Capstone)
 * where the source cannot be read.  Returns 0; 1 when no function has that
 * name; -1 with errno (ENOMEM). */
int prof_annotate(const struct prof_profile *p, const struct prof_opts *o, const char *name,
		  FILE *out);
prof_render_fn prof_render_diff;

#endif /* PROF_OUT_H */
