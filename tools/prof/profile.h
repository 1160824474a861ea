/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * profile.h — prof's model of a profile, the one thing every renderer
 * reads.
 *
 * Its shape is pprof's profile.proto (github.com/google/pprof, proto/
 * profile.proto): objects (mappings, with build IDs), functions, locations
 * (an address and the lines there, innermost first, so inline frames fit),
 * and samples (a stack of locations, leaf first, with one value per sample
 * type).  It is built once per run of prof, after every data file has been
 * read and attributed (attribute.c: mon.out histograms through System V's
 * split of a bin over the functions it covers, call counts, arcs, gmon.out;
 * later the stacks of a STACKS record), by profile_build; the renderers
 * (out/) see nothing else.
 *
 * Addresses are link-time (ELF vaddr) addresses of the mapping's file, so
 * runs loaded at different addresses add up; [unknown] code has no mapping
 * and keeps the runtime PC.
 *
 * The sample types, in order (pprof's sample_type), each with its unit;
 * prof_sample_types[] names them, and the renderers ask it (and
 * prof_events[] below) rather than knowing them:
 *   PROF_VAL_SAMPLES  "samples"/"count": profiling-clock samples that fell
 *                     in the location; fractional where System V's rule
 *                     shares a bin between functions;
 *   PROF_VAL_CPU      "cpu"/"seconds": the samples over the rate of the file
 *                     they came from (summed over files); exports that want
 *                     integers write nanoseconds ("cpu/nanoseconds");
 *   PROF_VAL_CALLS    "calls"/"count": calls counted into the leaf's
 *                     function (mcount's or glibc's per-callee counts);
 *   PROF_VAL_ARC      "arc-calls"/"count": on a two-location sample {callee
 *                     PC, caller PC}, the calls counted on that arc (mon.out
 *                     ARCS, gmon.out CG_ARC).  Kept apart from PROF_VAL_CALLS
 *                     so that a flat view adding up samples by leaf counts
 *                     each call once;
 *   PROF_VAL_WALL_SAMPLES  "wall-samples"/"count": wall-clock samples of a
 *                     thread (taken at the wall rate whatever the thread was
 *                     doing: running, runnable, blocked);
 *   PROF_VAL_WALL     "wall"/"seconds": those samples over the wall rate;
 *   PROF_VAL_OFFCPU_SAMPLES  "off-cpu-samples"/"count": the wall-clock
 *                     samples of a thread that was not running (runnable,
 *                     blocked, in uninterruptible sleep, stopped);
 *   PROF_VAL_OFFCPU   "off-cpu"/"seconds": those over the wall rate.
 * A CPU sample has no wall values and a wall sample no CPU values, so each
 * view adds up only its own (profile.proto's way: every sample has a value
 * per type, most of them 0).  Which types a profile holds: prof_has_type.
 *
 * Events: what `prof --sample=cpu|wall|offcpu` chooses, each a pair of
 * sample types (its samples, its seconds) with the words the renderers
 * print for it (prof_events[]); the profile's facts about each (present,
 * rate, totals, stacks) are in prof_profile.events[].
 *
 * Wall-clock samples (mon.out WALL records) are stack samples like the
 * CPU's, with the thread's state (prof_sample.state) and, above the PC
 * where the thread stood, a leaf frame naming what it waited for, a
 * function of kind PROF_FN_WAIT: "[futex queue_lock, held by tid 4242 (worker)]",
 * "[read pipe]", "[epoll_wait]", "[runnable]", "[uninterruptible]".
 *
 * Call stacks (mon.out STACKS records).  Each distinct sampled stack of a
 * thread is a sample (stack set) whose locations are its frames, leaf
 * first, one location per PC (the leaf at the interrupted PC, a caller at
 * its return address - 1, inside the call instruction), with
 * PROF_VAL_SAMPLES its count and PROF_VAL_CPU count / rate.  A walk that
 * ended early gets a root frame "[truncated]" above its last frame, one
 * that stopped at code in no object "[jit]" (both functions of kind
 * PROF_FN_MARKER, no mapping).  So that adding up samples by leaf still
 * gives the flat profile, a row's one-location sample then holds only the
 * histogram time its stacks do not explain (per file: histogram samples
 * minus the stack samples whose leaf is in the row, when positive: stacks
 * lost to a full table, or time the histogram's split gave the row).  So a
 * row's own time in the flat view is its histogram time, or its stacks'
 * leaf samples where those are more (a bin split at a function's edge
 * gave it less than the exact PCs of the stacks say); that excess is then
 * taken from the rest of the rows beside it, which the split gave it to
 * (attribute.c, take_split_excess), so the samples add up to the
 * histogram's ticks.
 * Inclusive time of a function: the samples of every sample whose stack
 * holds it, each sample once however often recursion repeats it.
 */
#ifndef PROF_PROFILE_H
#define PROF_PROFILE_H

#include <stddef.h>
#include <stdint.h>

struct prof_cov;
struct prof_warning;

enum prof_val { PROF_VAL_SAMPLES, PROF_VAL_CPU, PROF_VAL_CALLS, PROF_VAL_ARC,
		PROF_VAL_WALL_SAMPLES, PROF_VAL_WALL, PROF_VAL_OFFCPU_SAMPLES, PROF_VAL_OFFCPU,
		PROF_NVAL };

struct prof_sample_type {
	const char *type, *unit;	/* pprof's ValueType, as the model holds the values:
					 * unit "seconds" or "count" */
	const char *export_unit;	/* as exports of integers write it: "nanoseconds"
					 * for seconds (value x export_scale), else unit */
	double export_scale;	/* 1e9 for seconds, 1 for counts */
	const char *event;	/* its callgrind event name ("Samples", "CPU_ns"), NULL:
				 * not a cost (calls) */
	const char *event_desc;	/* what that event counts, for callgrind's header */
};
extern const struct prof_sample_type prof_sample_types[PROF_NVAL];

/* What --sample chooses: CPU time (the profiling clock's samples, the
 * default), wall-clock time (every thread's wall-clock samples, whatever
 * its state), off-CPU time (the wall-clock samples of threads that were
 * not running). */
enum prof_event { PROF_EV_CPU, PROF_EV_WALL, PROF_EV_OFFCPU, PROF_NEV };

struct prof_event_type {
	const char *name;	/* --sample=NAME: "cpu", "wall", "offcpu" */
	int count, time;	/* enum prof_val: its samples, its seconds */
	const char *column;	/* the text report's title for its seconds ("Seconds", System V's; "Wallsecs") */
	const char *noun;	/* in sentences: "CPU", "wall-clock", "off-CPU" */
	const char *per;	/* what its rate is per: "CPU-second", "second" */
	int wall;		/* its samples are the wall-clock sampler's */
};
extern const struct prof_event_type prof_events[PROF_NEV];

/* The event named name ("cpu", "wall", "offcpu"; "off-cpu" too, pprof's
 * spelling), or -1. */
int prof_event_find(const char *name);

/* What a function of the model stands for (enum prof_rowkind's values):
 * FUNC a symbol's function; UNWIND code no symbol names, one FDE range of
 * the object's unwind table; GAP other code no symbol covers; OBJECT a
 * whole object whose file could not be read; UNKNOWN code in no object. */
enum prof_fnkind { PROF_FN_FUNC, PROF_FN_GAP, PROF_FN_OBJECT, PROF_FN_UNKNOWN, PROF_FN_UNWIND,
		   PROF_FN_MARKER,	/* "[truncated]", "[jit]" (no mapping) */
		   PROF_FN_WAIT,	/* what a wall sample's thread waited for, its leaf:
					 * "[read pipe]", "[runnable]" (no mapping) */
		   PROF_FN_PROGRAM };	/* a profile of several programs: the program
					 * a stack sample's file is of, its root frame
					 * (no mapping) */

struct prof_mapping {		/* one object (ELF file) of the profiled process */
	const char *path;	/* the file read (the program named to prof, or as recorded) */
	const char *label;	/* short name, for "[label]+0xoff" */
	const unsigned char *build_id;
	size_t build_id_len;	/* 0: none known */
	int is_main;		/* the executable itself (of the first file that names one;
				 * in a profile of several programs, each one's) */
};

struct prof_function {
	int kind;		/* enum prof_fnkind */
	const char *name;	/* as printed: demangled if asked, "[label]+0xoff", "[label]",
				 * "[unknown]" */
	const char *system_name;	/* FUNC: the symbol as the table spells it; else NULL */
	const char *version;	/* FUNC: its symbol version ("GLIBC_2.3"), or NULL */
	size_t mapping;		/* index in mappings; SIZE_MAX for UNKNOWN */
	uint64_t start, size;	/* FUNC/GAP/UNWIND: ELF vaddr and bytes it owns; else 0 */
	const char *filename;	/* its source file as DWARF names it (absolute when the
				 * compilation directory is known), or NULL (lines.c
				 * fills it for --lines and --annotate) */
};

struct prof_line {
	size_t function;	/* index in functions */
	int64_t line;		/* source line, 0: not known */
};

struct prof_location {
	size_t mapping;		/* index in mappings; SIZE_MAX: none */
	uint64_t address;	/* ELF vaddr (runtime PC when no mapping) */
	struct prof_line *lines;	/* innermost first (inline frames, then the
					 * function they are inlined in) */
	size_t nlines;		/* >= 1 */
};

struct prof_sample {
	size_t *locations;	/* indexes in locations, leaf first */
	size_t nlocations;	/* >= 1 */
	double value[PROF_NVAL];
	int stack;		/* 1: a sampled call stack (STACKS); 0: a histogram row,
				 * call count or arc */
	size_t thread;		/* stack: index in threads (SIZE_MAX: none) */
	uint32_t stack_flags;	/* stack: the walk's PROF_STACK_* (mon.out's flags) */
	int state;		/* a wall sample: the thread's state (enum prof_tstate);
				 * PROF_TS_NONE for every other sample */
};

/* A thread's state in a wall-clock sample (the kernel's letters of
 * /proc/PID/task/TID/stat, proc(5)). */
enum prof_tstate { PROF_TS_NONE,	/* not a wall sample */
		   PROF_TS_RUNNING,	/* R, on a CPU */
		   PROF_TS_RUNNABLE,	/* R, waiting for a CPU */
		   PROF_TS_BLOCKED,	/* S, in a system call (the leaf frame says which) */
		   PROF_TS_DISK,	/* D, uninterruptible sleep (I/O, page faults) */
		   PROF_TS_STOPPED,	/* T or t, stopped or traced */
		   PROF_TS_OTHER,	/* another letter (Z, X, P, I) */
		   PROF_TS_UNKNOWN,	/* its state could not be read */
		   PROF_NTS };
/* "running", "runnable", "blocked", ... for state s. */
const char *prof_tstate_name(int s);

#define PROF_STACK_TRUNCATED 1u	/* the walk ended before the outermost frame */
#define PROF_STACK_JIT 2u	/* it reached code in no object and stopped there */
#define PROF_STACK_DEPTH 4u	/* it stopped at the depth limit */

struct prof_thread_name {	/* a thread stacks (or wall samples) were sampled in */
	uint64_t tid;
	uint64_t pid;		/* its process (0: not recorded); threads are told
				 * apart by (pid, tid): files of several processes */
	char name[16];		/* from THREADS (or WALL), "" when not listed */
	/* Wall-clock sampling of it (WALL THREAD entries, summed over files):
	 * samples due (its time alive while the sampler ran x rate), taken,
	 * and rounds whose read of its state failed. */
	int wall_listed;
	uint64_t wall_expected, wall_taken, wall_unreadable;
};

/* Facts of the whole run (all files), for headers and the -s summary. */
struct prof_facts {
	size_t nfiles;
	double rate_hz;		/* samples per CPU-second, of the first file (0: none) */
	int rates_differ;
	double total_samples, total_seconds;	/* in the histograms */
	int have_stats, have_cpu, have_cells;
	uint64_t samples, dropped, saturated, lost;	/* the runtime's counters, summed */
	double user_s, sys_s;	/* CPU of the runs */
	uint64_t cells_used, cells_total;	/* call-count cells */
	uint64_t counts_unmatched;	/* calls counted on no function */
	uint32_t scale_min, scale_max;	/* profil(2) scales of the histograms, 0: none */
	char clock[32];		/* profiling clock's name, "" unknown */
	const struct prof_cov *cov;	/* coverage facts (coverage.c), or NULL */
	const struct prof_warning *warnings;	/* every warning given, in order */
	size_t nwarnings;
	/* Call stacks (a file with STACKS records). */
	int have_stacks;
	double stack_samples;	/* summed counts of the stacks */
	uint64_t stacks_lost;	/* samples whose stack the runtime's table could not keep */
	uint64_t stacks_truncated, stacks_depth, stacks_jit;	/* samples of such walks */
	/* Wall-clock sampling (mon.out WALL records): its rate, Hz of
	 * wall-clock time (0: none). */
	double wall_hz;
	int wall_rates_differ;
	int have_wall;
	size_t wall_files;	/* files with a WALL record */
	uint64_t wall_rounds, wall_missed;	/* rounds taken, rounds due not taken */
	uint64_t wall_lost;	/* samples taken but not recorded (table full) */
	uint32_t wall_threads_unlisted;	/* threads the sampler's table had no room for */
	uint32_t wall_flags;	/* MONOUT_WALL_F_* of every file, or'ed */
	double wall_elapsed_s;	/* the sampler's running time, summed over files */
	double wall_user_s, wall_sys_s;	/* the sampler thread's own CPU: the profiler's cost */
	double wall_running_unplaced;	/* running samples of threads without CPU stacks */
};

/* What the profile holds of one event (enum prof_event). */
struct prof_event_facts {
	int present;		/* it has samples of this event (CPU: always) */
	int have_stacks;	/* they have call stacks (CPU: a STACKS record) */
	double rate_hz;		/* samples per second of the event (CPU: per CPU-second,
				 * of the first file; 0: not known) */
	int rates_differ;	/* the files' rates differ (each file's own is used) */
	double total_samples, total_seconds;	/* what shares are of: CPU, the
				 * histograms' (facts.total_*); else every sample's sum */
};

struct prof_profile {
	const struct prof_sample_type *sample_types;	/* PROF_NVAL of them */
	const struct prof_event_type *event_types;	/* PROF_NEV of them */
	struct prof_event_facts events[PROF_NEV];	/* by enum prof_event */
	struct prof_mapping *mappings;
	size_t nmappings;
	struct prof_function *functions;
	size_t nfunctions;
	struct prof_location *locations;
	size_t nlocations;
	struct prof_sample *samples;
	size_t nsamples;
	struct prof_facts facts;
	struct prof_thread_name *threads;	/* of the stack samples, by pid then tid */
	size_t nthreads;
	/* A profile of several programs (prof_attr.programs, two or more):
	 * their functions (kind PROF_FN_PROGRAM), functions[programs_fn ..
	 * programs_fn + nprograms); every stack and wall sample has its
	 * file's as its root location.  Samples without a stack (histogram
	 * time no stack explains, call counts, arcs) have none: their rows
	 * are an object's, shared by the programs.  0: one program. */
	size_t programs_fn, nprograms;
	/* private to profile.c */
	char *names;
	size_t *stackpool;
	struct prof_line *linepool;
	char **extra;		/* strings lines.c added */
	size_t nextra;
};

void profile_free(struct prof_profile *p);

/* Fills p->sample_types, p->event_types and p->events from p's samples and
 * facts (profile_build calls it; so may a model made by hand).  CPU is
 * always present, its totals the histograms' (facts.total_*), its rate
 * facts.rate_hz, its stacks facts.have_stacks; wall and off-CPU are present
 * when a sample has wall-clock samples (facts.wall_hz their rate). */
void profile_events(struct prof_profile *p);

/* Whether p holds sample type k (enum prof_val): the CPU's four always,
 * the wall and off-CPU ones when their event is present.  Exports write
 * the types p holds, in enum order. */
int prof_has_type(const struct prof_profile *p, int k);

/* A sum of samples or seconds on a grid of 1e-9 (a nanosecond, or a
 * billionth of a sample), so that the same samples added up in another
 * order (a profile read as several files or as their sum, prof --output)
 * give the same value, ties sort alike and a value at a rounding boundary
 * prints alike; far below any digit printed.  The grid holds while v * 1e9
 * is below 2^53 (v under about 9e6) and the sums' own rounding errors stay
 * below half of it, as for any run's samples and seconds; above, v is
 * returned as it is, within an ulp. */
double prof_quantum(double v);

/* lines.c: gives every location in an object the source lines its address
 * has in the object's DWARF (libdw), innermost inline frame first, adding
 * the functions that were only inlined, and each function its source file
 * (mode PROF_LINES_INLINE: prof --annotate).  PROF_LINES_SPLIT (prof
 * --lines): then every (function, line) becomes a function of its own
 * named "file.c:123 function".  PROF_LINES_OUTER (callgrind's format): the
 * location's own function alone, at its line there, with its source file;
 * no function added.  Locations DWARF does not cover are left as they are.
 * Returns 0, or -1 with errno (ENOMEM). */
enum { PROF_LINES_INLINE, PROF_LINES_SPLIT, PROF_LINES_OUTER };
int profile_lines(struct prof_profile *p, int mode);

/* one when n is 1, else many: a count's noun or verb ("1 sample was",
 * "2 samples were"). */
static inline const char *prof_pl(double n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

#endif /* PROF_PROFILE_H */
