/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * prof.h — the private interfaces between prof(1)'s components.
 *
 * prof reads one or more profiles (monprof's mon.out through format/monout,
 * or the C library's gmon.out), maps every histogram bin, call count and arc
 * to the functions of the objects the profiled process had loaded, and
 * renders the result: System V's flat profile, JSON, CSV.  The pipeline
 * (docs/architecture.md draws it):
 *
 *   readers  ->  prof_data  ->  attribution  ->  model  ->  renderers
 *   input.c      one file's      attribute.c     profile.c   out/NAME.c, chosen
 *   gmon.c       records         (binmap.c,      profile.h   by name from
 *                                symtab.c, ...)              out/out.c's table
 *
 *   input.c      opening a data file, telling mon.out from gmon.out, and
 *                turning a mon.out (format/monout.h) into a struct prof_data
 *   gmon.c       the GNU "gmon" file of glibc's profiler into a prof_data
 *   symtab.c     an object's function symbols through libelf (with the
 *                dynamic table and separate debug files as fallbacks)
 *   attribute.c  bins, call counts and arcs to rows (functions, or unknown
 *                code), over every file
 *   profile.c    the rows into the model (profile.h), pprof's shape
 *   out/         the renderers: text.c (System V's columns), json.c, csv.c,
 *                summary.c (-s); out.c the table and the flat view
 *   timeline.c   each file's place in time and its samples (timeline.h):
 *                --timeline's text and the flame graph's strip
 *   warn.c       every warning, through one sink
 *   demangle.c   C++ names, through the C++ runtime's __cxa_demangle
 *   main.c       options, the order of work, exit status
 *
 * prof_data is prof's own view of one profile: small, and independent of
 * the on-disk formats, so both readers feed the same attribution.  All
 * addresses in it are the profiled process's runtime virtual addresses; an
 * object's load bias turns an ELF symbol value (link-time vaddr) into one:
 * runtime = vaddr + bias.
 */
#ifndef PROF_H
#define PROF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile.h"

/* ---- the profile model --------------------------------------------------- */

/* How a histogram's bins tile its PC range. */
enum prof_binmap {
	/* profil(2): bin of pc = ((pc - lowpc) / 2) * scale / 65536, scale a
	 * 16.16 fraction in 1..65536.  Bin i starts at
	 * lowpc + 2 * ceil(i * 65536 / scale). */
	PROF_BIN_PROFIL = 1,
	/* gprof's rule for gmon.out: nbins equal bins over [lowpc, highpc) in
	 * 2-byte units, truncated: bin i starts at
	 * 2 * (lowpc/2 + floor(i * ((highpc - lowpc)/2) / nbins)). */
	PROF_BIN_UNIFORM = 2
};

struct prof_hist {
	uint64_t lowpc;		/* runtime address of bin 0's first byte */
	uint64_t highpc;	/* first address past the range */
	int binmap;		/* enum prof_binmap */
	uint32_t scale;		/* PROF_BIN_PROFIL: 16.16 scale, 1..65536 */
	size_t nbins;
	/* The counts (ticks).  Dense (idx NULL): bins[0..nbins).  Sparse: the
	 * nnz non-zero bins only, bin idx[k] holding bins[k], idx increasing
	 * (mon.out: memory in proportion to the bins a run touched). */
	uint64_t *bins;
	uint64_t *idx;
	size_t nnz;
	int has_object;		/* the file says which object the range held */
	size_t object;		/* then: its index in prof_data.objs */
};

struct prof_count {		/* a call count: calls into the function at selfpc */
	uint64_t selfpc;	/* runtime PC inside the callee */
	uint64_t count;
};

struct prof_arc {		/* a call-graph arc: calls from the call site frompc */
	uint64_t frompc;	/* runtime PC in the caller (the return address) */
	uint64_t selfpc;	/* runtime PC inside the callee */
	uint64_t count;
};

struct prof_xsym {		/* a function symbol recorded in the profile itself */
	uint64_t start, size;	/* runtime address, bytes */
	char *name;
};

struct prof_object {		/* one loaded ELF object */
	char *path;		/* as recorded (absolute when the runtime knew it) */
	unsigned char build_id[64];
	size_t build_id_len;	/* 0: not recorded */
	uint64_t bias;		/* load bias: runtime = ELF vaddr + bias */
	uint64_t text_lo;	/* runtime text range [text_lo, text_hi); 0,0: unknown */
	uint64_t text_hi;
	int is_main;		/* the executable itself */
	int no_file;		/* nothing to read (the vDSO): no warning */
	int anon_cluster;	/* prof's own "[anon]" object of a cluster of PCS entries
				 * (code in no object when sampled): its PCs are an
				 * object's of the file that covers them, by address */
	struct prof_xsym *xsyms;	/* no_file: its functions as the runtime recorded
					 * them (vDSO, perf map names of anonymous code) */
	size_t nxsyms;
	uint32_t set;		/* mon.out's object set it was first seen loaded in (0: at start) */
	/* mon.out's FILES entry (an object without a build ID): what tells
	 * the file that ran from a rebuilt one.  file_flags 0: none. */
	uint32_t file_flags;	/* MONOUT_FILE_* */
	uint64_t file_size;	/* bytes */
	uint64_t file_mtime_ns;	/* nanoseconds since the Epoch */
	uint32_t text_crc;	/* CRC-32 of its executable segments' bytes */
};

/* One thread of the run (mon.out's THREADS record). */
struct prof_thread {
	uint64_t tid;
	uint64_t pid;		/* its process (coverage.c sets it from RUN) */
	size_t seq;		/* coverage.c: its place in the files' order (file, then entry) */
	size_t file;		/* coverage.c: the file it came from (1, 2, ...) */
	double user_s, sys_s;	/* CPU as the kernel counted it */
	uint64_t samples;
	uint64_t late;		/* of samples, those of ticks standing for more than 20 ms of
				 * its CPU each (THREADS' late) */
	double rate_hz;		/* its file's rate */
	int cpu_known;
	double before_s;	/* of its CPU, spent before profiling started */
	int user_only;		/* its clock counted user time only */
	int ended;		/* it ended before the write (MONOUT_THREAD_ENDED) */
	char name[16];
};

/* Facts of the run; a value the file does not carry is left at 0 and its
 * "have_" flag clear. */
struct prof_run {
	int summed;		/* the file is a sum of profiles (MONOUT_F_SUMMED: prof --output) */
	double rate_hz;		/* samples per CPU-second */
	char clock[32];		/* name of the profiling clock, "" if unknown */
	int have_stats;
	uint64_t samples, dropped, saturated, lost;
	int have_cpu;
	double user_s, sys_s;	/* CPU seconds of the run */
	int have_cells;
	uint64_t cells_used, cells_total;	/* call-count cells */
	uint64_t pid, ppid;
	int span_known;		/* when the profile began and ended: 2 to the nanosecond
				 * (INTERVAL, SPAN), 1 in RUN's whole seconds, 0 not
				 * recorded (gmon.out, no FACTS) */
	uint64_t start_ns, end_ns;	/* then: CLOCK_REALTIME ns since the Epoch */
	char *command;		/* command line, or NULL */
	uint64_t forks_unfollowed;	/* fork calls whose children were not profiled (FORKS) */
	uint64_t interval_seq;	/* INTERVAL's sequence number (1, 2, ...: the file is that
				 * interval of its process), 0: not an interval file */
	uint64_t interval_start_ns, interval_end_ns;	/* INTERVAL's start and end:
				 * CLOCK_REALTIME nanoseconds since the Epoch; 0 without */
	uint32_t interval_flags;	/* INTERVAL's flags (MONOUT_INTERVAL_LAST...); 0 without */
	uint32_t interval_period_ms;	/* INTERVAL's interval asked; 0 without */
	int have_facts;		/* mon.out minor 2: the rest of this block */
	double elapsed_s;	/* wall-clock time of the profiled run */
	uint32_t rate_asked, rate_set;	/* Hz */
	uint32_t tick_cost_ns;	/* CPU a tick cost, 0 if not measured */
	uint32_t fact_flags;	/* MONOUT_FACT_* */
	uint32_t threads_unlisted;
	uint64_t anon_samples;	/* samples in anonymous code (PCS) */
	double cpu_before_s;	/* process CPU before profiling started */
	/* Of it, start-up alone (FACTS cpu_before_usec, without the rate
	 * check); 0 where it also holds time profiling was off. */
	double startup_s;
	/* The process replaced its program by exec and its profile is in
	 * other files too: which images ran and which one this file shows,
	 * as a sentence; NULL if one image, or if the images before this
	 * one wrote no profile (they took no sample) and it exec'd none. */
	char *images;
	/* How many images the process ran before the one shown (IMAGES), and
	 * so the highest N of its NAME.execN files; 0 without the record. */
	uint32_t images_before;
};

/* 1 when the file's profiling clock ran: a rate, and a clock other than
 * "none" (a process that never started one, a dormant start never
 * switched on, says nothing of the clock and rate of a sum of files;
 * a gmon.out, clock "", is named by its rate alone); else 0. */
int prof_run_clocked(const struct prof_run *r);

/* One sampled call stack (mon.out STACKS). */
struct prof_stack {
	uint64_t count;		/* samples */
	uint64_t tid;
	uint32_t flags;		/* PROF_STACK_* (MONOUT_STACK_*) */
	uint32_t depth;		/* >= 1 */
	uint64_t *pcs;		/* leaf first, runtime PCs (callers: return address - 1) */
	uint32_t set;		/* object set the samples were taken in (prof_object.set) */
};

/* Wall-clock sampling (mon.out WALL, minor 5): the sampler's facts. */
struct prof_wall_head {
	double rate_hz;		/* Hz of wall-clock time */
	double elapsed_s;	/* from the sampler's start to the write */
	uint64_t rounds, missed;	/* rounds taken; rounds due that were not taken */
	double user_s, sys_s;	/* the sampler thread's own CPU */
	uint32_t flags;		/* MONOUT_WALL_F_* */
	uint32_t threads_unlisted;
	uint64_t lost;		/* samples taken but not recorded */
	uint32_t machine;	/* ELF e_machine of the syscall numbers */
};

struct prof_wall_thread {	/* one sampled thread (a WALL THREAD entry) */
	uint64_t tid;
	uint64_t pid;		/* its process (RUN's pid) */
	uint64_t expected, taken, unreadable;	/* samples due, taken, unreadable */
	double alive_s;		/* its time alive while the sampler ran */
	uint32_t flags;		/* MONOUT_WALL_THREAD_* */
	char name[16];
};

struct prof_wait {		/* what a blocked thread waited on (WALL WAIT) */
	uint32_t kind;		/* MONOUT_WAIT_FD or _FUTEX */
	uint32_t fd, fd_kind;	/* MONOUT_NO_FD; MONOUT_FD_* */
	uint64_t address;	/* futex word, runtime address */
	size_t object;		/* index in prof_data.objs holding it, SIZE_MAX none */
	uint32_t flags;		/* MONOUT_WAIT_* */
	uint64_t offset;	/* address - the object's load bias (ELF address) */
	uint64_t owner;		/* the holder's tid (MONOUT_WAIT_OWNER) */
	char *text;		/* the descriptor's link or socket addresses, "" none */
};

struct prof_wall_sample {	/* wall samples of one (tid, state, syscall, wait, stack) */
	uint64_t count;
	uint64_t tid;
	uint32_t state;		/* MONOUT_WALL_* */
	uint32_t syscall;	/* MONOUT_NO_SYSCALL: none or not known */
	size_t wait;		/* index in prof_data.waits, SIZE_MAX: none */
	uint32_t flags;		/* PROF_STACK_* */
	uint32_t depth;		/* 0: no stack (a running or runnable thread) */
	uint32_t set;		/* object set its PCs were taken in (prof_object.set) */
	uint64_t *pcs;		/* leaf first, runtime PCs (callers: return address - 1) */
};

struct prof_data {
	const char *file;	/* the data file's name, for messages */
	const char *format;	/* "mon.out" or "gmon.out" */
	struct prof_run run;
	struct prof_object *objs;
	size_t nobjs;
	struct prof_hist *hists;
	size_t nhists;
	struct prof_count *counts;
	size_t ncounts;
	struct prof_arc *arcs;	/* mon.out ARCS, gmon.out CG_ARC records */
	size_t narcs;
	struct prof_thread *threads;
	size_t nthreads;
	int have_stacks;	/* the file has STACKS records */
	uint64_t stacks_lost;	/* samples whose stack the table had no room for */
	struct prof_stack *stacks;
	size_t nstacks;
	int have_wall;		/* the file has a WALL record */
	struct prof_wall_head wall;
	struct prof_wall_thread *wall_threads;
	size_t nwall_threads;
	struct prof_wait *waits;
	size_t nwaits;
	struct prof_wall_sample *wall_samples;	/* pcs in one pool after them */
	size_t nwall_samples;
};

void prof_data_free(struct prof_data *d);

/* ---- warn.c -------------------------------------------------------------- */

/* A warning: code is a short fixed identifier ("no-samples", "saturated",
 * "dropped", "lost", "unwind-only", "no-symbols", "build-id", "merged-programs",
 * "assumed-rate", ...; listed in prof.1, WARNINGS), text one plain sentence. */
struct prof_warning {
	const char *code;	/* a string constant */
	char *text;
};

typedef void prof_warn_sink(const struct prof_warning *w, void *arg);

/* Records a warning (printf-style text, at most 1023 bytes kept) and gives
 * it to the sink: by default "prof: warning: TEXT\n" on stderr.  Never
 * fails (without memory the warning is still shown, not kept). */
void prof_warn(const char *code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The warnings given from now on are about the file (or files) name, in
 * role role (NULL or "": none; e.g. " (--base)"): their text is "NAME ROLE:
 * TEXT" (a text that already begins "NAME: " gets the role after the name).
 * name NULL: no file named (the default).  prof --base names the file of
 * each warning so; the strings must outlive their use. */
void prof_warn_about(const char *name, const char *role);
/* Replaces the sink (NULL: the default). */
void prof_warn_set_sink(prof_warn_sink *fn, void *arg);
/* Holds the warnings given from now on (those of a file read before it is
 * known to be kept: --program, --from/--to) until prof_warn_release, which
 * gives them in order (show 1) or drops them (show 0: the file is left
 * out, its warnings are not the report's). */
void prof_warn_hold(void);
void prof_warn_release(int show);
/* The warnings given for each file alike ("exec-images", "unfollowed-forks")
 * are shown for the first file of each program only: program (a string
 * that outlives the warnings given until the next call; NULL: none) is the
 * one of the warnings given from now on.  prof_warn_repeats then gives one
 * more for each, "N more profiles of PROGRAM read ...", for those not
 * shown since its last call. */
void prof_warn_scope(const char *program);
void prof_warn_repeats(void);
/* The warnings given so far, in order. */
const struct prof_warning *prof_warnings(size_t *n);
void prof_warnings_clear(void);
/* 1 if w concerns a view of the CPU samples (cpu 1) or of the wall-clock
 * and off-CPU samples (cpu 0), else 0: the wall sampler's warnings
 * ("wall-*" codes) concern only the second, the CPU clocks' (their
 * histograms, counters, rate, coverage and stack table) only the first,
 * the others (files, programs, symbols) both.  For a renderer that has room
 * for one warning of the view it draws (the flame graph's title). */
int prof_warning_concerns(const struct prof_warning *w, int cpu);

/* ---- input.c ------------------------------------------------------------- */

/* Reads the whole file into memory: *buf (malloc'd), *len.  Returns 0, or -1
 * with a message (naming nothing: the caller adds the file) in err. */
int prof_slurp(const char *path, unsigned char **buf, size_t *len, char *err, size_t errlen);

/* Reads the profile in path (mon.out or gmon.out, told apart by content)
 * into *d.  prog is the executable named on the command line (NULL: none);
 * a gmon.out needs one to know its byte order and address size.  Returns 0,
 * or -1 with one line in err saying what is wrong (without the file name). */
int prof_read(const char *path, const char *prog, struct prof_data *d, char *err, size_t errlen);

/* Whether path holds a profile by its first bytes: gmon.out's magic, or
 * mon.out's (or the start of it: a truncated file is one, reported when
 * read).  0 when it cannot be opened or is shorter than 4 bytes. */
int prof_is_profile(const char *path);

/* The profiles in directory dir (a PROFDIR: regular files whose first bytes
 * are a profile's, names starting with '.' left out, as a writer's
 * temporary file), "dir/name" each, malloc'd, sorted by name in version
 * order (strverscmp(3): 9.x before 10.x) into *names[0..*n).  Returns 0,
 * or -1 with err (opendir(3)'s errno as strerror, or ENOMEM). */
int prof_dir_files(const char *dir, char ***names, size_t *n, char *err, size_t errlen);

/* ---- intervals.c --------------------------------------------------------- */

struct monout;
/* m, read from path: when it is an interval file of an older series (no
 * INTERVAL flag 4: its CALLS, ARCS and calls lost are the process's so
 * far), they become its interval's own, less those of the process's
 * previous interval file beside it.  Returns 0 (done, or nothing to do:
 * not such a file, or interval 1), 1 when no previous file fits (the
 * calls are then left out of m, and a warning "interval-calls" says so),
 * -1 ENOMEM. */
int prof_interval_calls(const char *path, struct monout *m);
/* An interval file m at path cut for an exec (IMAGES ends with the image
 * it exec'd, NEXT) whose exec failed: beside it, the same process's next
 * interval, begun when m ended, without that image (intervals.c).  1, 0
 * (no such file: the exec succeeded, or its files are not beside), -1
 * without memory. */
int prof_exec_failed(const char *path, const struct monout *m);

/* ---- save.c ------------------------------------------------------------- */

/* Sums the mon.out files files[0..n) into one mon.out written to out
 * (through a temporary file beside it, renamed: never half a file).  The
 * files must share one address layout (each object at one load bias and
 * text range, no two over the same addresses: a fork tree's processes),
 * one clock and rate, and hold no WALL or IMAGES record.  Returns 0, or -1
 * with one line in err naming the file and what is wrong (ENOMEM, the
 * write's errno). */
int prof_save(const char *out, const char *const *files, size_t n, char *err, size_t errlen);

/* ---- gmon.c -------------------------------------------------------------- */

#define GMON_MAGIC "gmon"

/* Decodes a GNU gmon.out (the gprof manual's "Profiling Data File Format",
 * version 0 or 1) held in buf[0..len)
 * into *d.  elf64: addresses are 8 bytes (else 4); big: big-endian.
 * Addresses in gmon.out are link-time ones (glibc subtracts a PIE's load
 * address), so the main object gets bias 0.  Returns 0, or -1 with err. */
int gmon_decode(const unsigned char *buf, size_t len, int elf64, int big,
		struct prof_data *d, char *err, size_t errlen);

/* ---- symtab.c ------------------------------------------------------------ */

struct prof_sym {
	uint64_t addr;		/* ELF vaddr (link time) */
	uint64_t size;		/* st_size, 0 when unknown */
	const char *name;	/* the name printed (one of the synonyms), no @VERSION */
	const char *version;	/* its symbol version ("GLIBC_2.3"), or NULL */
	unsigned char bind;	/* STB_* of the chosen name */
	unsigned char plt;	/* a PLT stub, named "callee@plt" */
	unsigned nsyn;		/* symbols at this address */
};

struct prof_range {		/* [lo, hi), link-time addresses */
	uint64_t lo, hi;
};

/* Where an image's function symbols came from (bits; see symtab.c). */
enum prof_symsrc {
	PROF_SYMS_NONE = 0,
	PROF_SYMS_SYMTAB = 1,		/* the object's own .symtab */
	PROF_SYMS_DEBUG = 2,		/* a separate debug file by build ID */
	PROF_SYMS_DEBUGLINK = 4,	/* a separate debug file by .gnu_debuglink */
	PROF_SYMS_MINIDEBUG = 8,	/* MiniDebugInfo (.gnu_debugdata) */
	PROF_SYMS_DEBUGINFOD = 16,	/* a debug file from a debuginfod server */
	PROF_SYMS_DYNSYM = 32,		/* the dynamic symbol table */
	PROF_SYMS_PLT = 64		/* PLT stubs named from relocations */
};

struct prof_image {		/* an ELF object's functions, sorted by addr */
	char *path;		/* the file read */
	char *label;		/* short name for [label]+0xoff rows */
	unsigned char build_id[64];
	size_t build_id_len;
	int elf64, big;
	int etype;		/* ET_EXEC, ET_DYN, ... */
	int is_program;		/* some file read names it its main program */
	int from;		/* enum prof_symsrc bits */
	char *debug_path;	/* the separate debug file read, or NULL */
	struct prof_sym *syms;
	size_t nsyms;
	struct prof_range *fdes;	/* unwind (FDE) ranges, sorted by lo, distinct lo */
	size_t nfdes;
	struct { uint64_t lo, hi; } *texts;	/* executable sections, sorted */
	size_t ntexts;
	char *strings;		/* owns the names */
	size_t strings_len;
	/* Data symbols (STT_OBJECT with a size, not in code; locals too): the
	 * variables a futex address is named by, sorted by addr, one per
	 * address. */
	struct prof_sym *dsyms;
	size_t ndsyms;
	char *dstrings;		/* owns their names */
};

/* The data symbol of im holding ELF address addr (addr in [sym, sym+size)),
 * or NULL. */
const struct prof_sym *symtab_data_at(const struct prof_image *im, uint64_t addr);

/* The names a program imports: the undefined symbols of its .dynsym (the
 * functions it calls in shared objects, as it spells them), sorted by
 * strcmp, unversioned.  Chooses among aliases (symtab.c). */
struct prof_imports {
	char **names;
	size_t n;
};

/* The imports of the ELF program at path into *out (empty for a static
 * program or a file that cannot be read).  0, or -1 (ENOMEM). */
int symtab_imports(const char *path, struct prof_imports *out);
void symtab_imports_free(struct prof_imports *imp);

/* Opens path as an ELF object and reads its function boundaries, from every
 * source it has, best first: .symtab; a separate debug file (by build ID
 * under /usr/lib/debug/.build-id, then by .gnu_debuglink); MiniDebugInfo
 * (.gnu_debugdata, merged with .dynsym); a debuginfod server when
 * DEBUGINFOD_URLS is set; .dynsym; PLT stubs from the PLT relocations; and
 * the FDE ranges of .eh_frame/.debug_frame (im->fdes) for code no symbol
 * covers.  locals: keep STB_LOCAL functions (prof's default; -l clears
 * it).  imports (NULL: none): the program's imports, which name aliases
 * (symtab.c, top).  Returns 0, or -1 with err ("not an ELF file", "truncated ELF
 * file", or strerror). */
int symtab_load(const char *path, int locals, const struct prof_imports *imports,
		struct prof_image *im, char *err, size_t errlen);

/* The one search for an object's separate debug file, for its names
 * (symtab.c) and its lines (lines.c): a libdwfl session (libdwfl.h) with
 * the object at path reported offline and libdwfl's standard callbacks
 * (dwfl_standard_find_debuginfo: by build ID under /usr/lib/debug/.build-id,
 * by .gnu_debuglink next to the object, in its .debug/ and under
 * /usr/lib/debug, its build ID or CRC checked; then, when DEBUGINFOD_URLS
 * is set, the debuginfod servers).  *mod: the module.  NULL when libdwfl
 * cannot read path.  The caller ends it with dwfl_end. */
struct Dwfl;
struct Dwfl_Module;
struct Dwfl *prof_dwfl_offline(const char *path, struct Dwfl_Module **mod);

/* The CRC-32 (monout_crc32) of the file bytes of the executable PT_LOAD
 * segments of the ELF file at path, p_filesz bytes each in program-header
 * order (segments without PF_R left out): what the runtime records of a
 * loaded object without a build ID (mon.out(5), FILES).  0 with *crc, or
 * -1 with err (the file cannot be read, has no such segment, or a segment
 * runs past its end). */
int symtab_text_crc(const char *path, uint32_t *crc, char *err, size_t errlen);

/* Only the build ID and ELF class/byte order (for gmon.out and for checking
 * prog).  Returns 0 or -1 with err. */
int symtab_probe(const char *path, struct prof_image *im, char *err, size_t errlen);

void symtab_free(struct prof_image *im);

/* ---- unwind.c ------------------------------------------------------------ */

#include <libelf.h>
/* Appends the FDE ranges of elf's .eh_frame and .debug_frame to *out (a
 * malloc'd array of *nout ranges), then sorts them by start and keeps one
 * range per start.  Returns 0, or -1 when out of memory (what was read is
 * kept). */
int unwind_ranges(Elf *elf, struct prof_range **out, size_t *nout);
/* A section's bytes in the file (elf_getdata, or elf_rawdata if raw), or
 * NULL when it has none (SHT_NOBITS, empty, unreadable): symtab.c.  Every
 * section prof reads goes through it. */
Elf_Data *prof_section_bytes(Elf_Scn *scn, int raw);

/* "0123abcd..." of a build ID into buf (2*len+1 bytes). */
void prof_hex(const unsigned char *id, size_t len, char *buf);

/* ---- binmap.c ------------------------------------------------------------ */

/* A PC range [lo, hi) charged to one row. */
struct prof_seg {
	uint64_t lo, hi;
	size_t row;
};

/* First PC of bin i of h (i == nbins: the end of the last bin). */
uint64_t binmap_start(const struct prof_hist *h, uint64_t i);

/* Spreads every bin of h over segs (sorted by lo, disjoint) in proportion
 * to the bytes of the bin each segment covers (System V's rule: illumos
 * usr/src/cmd/sgs/prof/common/prof.c): ticks[segs[k].row] += share.  Bytes of a bin no segment covers
 * but a fallback range does (fallback sorted, disjoint: whole objects'
 * code) share for the fallback's row; bytes in neither, and bytes past
 * h->highpc, take no share; a bin with no such byte goes to unknown_row.
 * Returns the sum of all bins. */
double binmap_spread(const struct prof_hist *h, const struct prof_seg *segs, size_t nsegs,
		     const struct prof_seg *fallback, size_t nfallback, size_t unknown_row,
		     double *ticks);

/* Where binmap_spread_pieces reports each share it gives: piece(arg, row,
 * pc, ticks), pc the runtime address of the first byte of the part of a
 * bin the share stands for (the bin's start for a bin given whole). */
struct prof_piece_sink {
	void (*piece)(void *arg, size_t row, uint64_t pc, double ticks);
	void *arg;
};

/* binmap_spread that also reports every share to pieces (NULL: none), for
 * prof --lines: where inside a function its samples fell, to the bin. */
double binmap_spread_pieces(const struct prof_hist *h, const struct prof_seg *segs, size_t nsegs,
			    const struct prof_seg *fallback, size_t nfallback, size_t unknown_row,
			    double *ticks, const struct prof_piece_sink *pieces);

/* Index of the segment containing pc, or SIZE_MAX. */
size_t binmap_find(const struct prof_seg *segs, size_t nsegs, uint64_t pc);

/* ---- attribute.c --------------------------------------------------------- */

/* FUNC: a symbol's function; UNWIND: a function no symbol names, one FDE
 * range of the object's unwind table; GAP: other code no symbol covers;
 * OBJECT: a whole object whose file could not be read; UNKNOWN: no object. */
enum prof_rowkind { PROF_ROW_FUNC = PROF_FN_FUNC, PROF_ROW_GAP = PROF_FN_GAP,
		    PROF_ROW_OBJECT = PROF_FN_OBJECT, PROF_ROW_UNKNOWN = PROF_FN_UNKNOWN,
		    PROF_ROW_UNWIND = PROF_FN_UNWIND };

/* An arc between two rows, at link-time addresses (runtime PCs for
 * [unknown]), as the model keeps it. */
struct prof_arcrow {
	size_t from_row, to_row;
	uint64_t frompc, selfpc;	/* frompc: inside the call (the return address - 1) */
	uint64_t count;
};

struct prof_row {
	int kind;		/* enum prof_rowkind */
	size_t image;		/* index in the attribution's images (not UNKNOWN) */
	uint64_t addr;		/* FUNC/GAP/UNWIND: ELF vaddr; OBJECT: offset 0 */
	uint64_t size;		/* FUNC/GAP/UNWIND: bytes the row owns; else 0 */
	const char *name;	/* FUNC: symbol name; else NULL (report builds it) */
	const char *version;	/* FUNC: its symbol version, or NULL */
	double ticks;		/* samples credited (fractional after splits) */
	double seconds;		/* ticks / rate of their file, summed */
	uint64_t calls;
	/* Of ticks (seconds), what call stacks of the same file explain (0
	 * without stacks): the model's one-location sample of the row holds
	 * the rest, ticks - stacked_ticks (profile.h). */
	double stacked_ticks, stacked_seconds;
};

/* A call stack over rows (attribute.c): frames[first .. first + depth),
 * leaf first, each a row and a link-time PC. */
struct prof_frame {
	size_t row;
	uint64_t pc;
};

struct prof_stackrow {
	uint64_t count;		/* samples */
	double seconds;		/* count / rate of its file */
	uint64_t tid;
	uint64_t pid;		/* its process (RUN's pid; 0: not recorded) */
	char thread[16];	/* its name in THREADS, "" if none */
	uint32_t flags;		/* PROF_STACK_* */
	size_t first, depth;
	size_t program;		/* its file's program (prof_attr.program_no when added) */
};

/* Wall-clock samples of one thread in one state over rows (attribute.c):
 * frames[first .. first + depth), leaf first, as a stack's; the leaf frame
 * the model adds above them, naming what the thread waited for, is
 * reasons[reason].  A running (runnable) thread's samples carry no stack:
 * they are placed on the thread's CPU-clock stacks of the same file, in
 * proportion to those stacks' samples, so count may be fractional. */
struct prof_wallrow {
	double count;		/* wall samples */
	double seconds;		/* count / the file's wall rate */
	uint64_t tid;
	uint64_t pid;		/* its process (RUN's pid; 0: not recorded) */
	char thread[16];	/* its name, "" if none */
	int state;		/* enum prof_tstate */
	uint32_t flags;		/* PROF_STACK_* of the walk */
	size_t first, depth;
	size_t reason;		/* index in prof_attr.reasons; SIZE_MAX: none (running) */
	size_t program;		/* its file's program (prof_attr.program_no when added) */
};

struct prof_piece {		/* samples of a row at one address (a bin's part) */
	size_t row;
	uint64_t vaddr;		/* ELF vaddr of the row's image; runtime PC for [unknown] */
	double ticks, seconds;
};

/* Attribution over any number of profiles: rows are keyed by object image
 * and address, so runs with different load addresses (ASLR) add up. */
struct prof_attr {
	int locals;		/* include STB_LOCAL functions */
	struct prof_image **images;
	size_t nimages;
	size_t main_image;	/* the executable's image, SIZE_MAX: none yet */
	int keep_pieces;	/* --lines: keep where in each row its samples fell */
	struct prof_piece *pieces;	/* then: (row, ELF vaddr, ticks, seconds) */
	size_t npieces, pieces_cap;
	struct prof_row *rows;
	size_t nrows;
	size_t unknown_row;	/* the [unknown] row */
	double total_ticks, total_seconds;
	/* summary facts over all files */
	size_t nfiles;
	double rate_hz;		/* of the first file whose clock ran (prof_run_clocked),
				 * else of the first file (0 if none) */
	int clocked;		/* rate_hz and clock are a clocked file's */
	int rates_differ;	/* clocked files' rates differ */
	uint64_t samples, dropped, saturated, lost;
	int have_stats, have_cpu, have_cells;
	double user_s, sys_s;
	uint64_t cells_used, cells_total;
	char clock[32];		/* as rate_hz */
	uint32_t scale_min, scale_max;	/* profil scales seen (0: none) */
	uint64_t counts_unmatched;	/* call counts on no function */
	int warned;		/* a warning was printed */
	struct prof_cov *cov;	/* coverage facts (coverage.c), NULL if none */
	struct prof_arcrow *arcs;	/* every file's arcs, in file order */
	size_t narcs;
	/* Call stacks of every file (STACKS), in file order. */
	int have_stacks;
	struct prof_stackrow *stacks;
	size_t nstacks;
	struct prof_frame *frames;
	size_t nframes;
	double stack_samples;
	uint64_t stacks_lost, stacks_truncated, stacks_depth, stacks_jit;
	/* Wall-clock samples of every file (WALL), in file order. */
	int have_wall;
	struct prof_wallrow *walls;
	size_t nwalls;
	char **reasons;		/* the wait reasons' names ("[read pipe]"), each once */
	size_t nreasons;
	struct prof_wall_thread *wthreads;	/* every file's WALL threads, in file order */
	size_t nwthreads;
	double wall_hz;		/* of the first file with a WALL record */
	int wall_rates_differ;
	uint64_t wall_rounds, wall_missed, wall_lost, wall_files;
	double wall_elapsed_s, wall_user_s, wall_sys_s;
	uint32_t wall_flags, wall_threads_unlisted;
	double wall_running_unplaced;	/* running samples of threads with no CPU stack */
	/* Several programs in one profile (prof --merge, and the stack
	 * formats of several programs): the caller sets program_no to the
	 * program of the file it adds next (an index in programs), and, before
	 * profile_build, programs[0 .. nprograms) to their names.  With two or
	 * more, each stack and wall sample gets its program as its root frame
	 * (a function of kind PROF_FN_PROGRAM); with 0 or 1, none. */
	size_t program_no;
	const char *const *programs;
	size_t nprograms;
	/* private to attribute.c */
	struct imgsegs *isegs;	/* per image: its segments and [object] row */
	struct prof_imports imports;	/* the main program's, read with its image */
	struct layout **layouts;	/* the last files' runtime layouts, most recent first */
	size_t nlayouts;
	double *fticks, *fleaf;	/* one file's ticks and stack leaves by row, zero between files */
	unsigned char *fmark;	/* rows in touched */
	size_t *touched, ntouched, scratch_cap;
	size_t rows_cap, arcs_cap, stacks_cap, frames_cap, walls_cap, reasons_cap, wthreads_cap;
	struct prof_wplace {	/* place_wall's: a stack's whole samples of one thread's */
		size_t stack;
		uint64_t n, rem;
	} *wplace;
	size_t wplace_cap;
};

void attr_init(struct prof_attr *a, int locals);
/* Adds one profile.  prog: the executable given on the command line, used
 * instead of the recorded main object (its build ID must match when both
 * are known).  Returns 0, or -1 with err (a fatal data error). */
int attr_add(struct prof_attr *a, const struct prof_data *d, const char *prog,
	     char *err, size_t errlen);
/* After the last attr_add: the warnings about the whole picture (no
 * samples; saturated, dropped, lost samples; objects shown by unwind
 * ranges) through prof_warn. */
void attr_finish(struct prof_attr *a);
void attr_free(struct prof_attr *a);

/* ---- profile.c ----------------------------------------------------------- */

/* The model of everything attributed in a (after attr_finish): a mapping per
 * image, a function and a location per row, a sample per row with time or
 * calls (its samples, CPU seconds and calls), a sample {callee, caller} per
 * arc.  demangle: C++ names as printed in the functions' names.  The model
 * points into a (paths, symbol names) and into the warnings list: it lives
 * no longer than they do.  Returns 0, or -1 (ENOMEM) with *p empty. */
int profile_build(const struct prof_attr *a, int demangle, struct prof_profile *p);

/* ---- coverage.c: how much of the CPU the samples cover ------------------- */

struct prof_cov {
	size_t nfiles, nfacts;	/* files, files with run facts */
	double cpu_user_s, cpu_sys_s;	/* CPU of the runs, the runtime's own thread left out */
	double runtime_s;	/* CPU of the wall-clock sampler's thread (WALL's user + system) */
	double sampled_s;	/* samples / rate, summed over files */
	double sys_unsampled_s;	/* system CPU of runs whose clock counted user only */
	/* Wall-clock time of the run: each file's start and end
	 * (prof_file_span: SPAN's or INTERVAL's, nanoseconds; a file before
	 * minor 7 that is not an interval, its write time, whole seconds,
	 * less its elapsed time) give the span from the earliest start to the
	 * latest end; elapsed_s is that span (never below the longest file's
	 * elapsed time: write times are truncated to the second), or the
	 * longest elapsed time when a file has no time.  One file: its
	 * elapsed time. */
	double elapsed_s;
	double elapsed_sum, elapsed_max;	/* summed, longest over files */
	double start_s, end_s;	/* seconds since the Epoch; 0: no file said */
	size_t ntimes;		/* files with facts and a write time */
	int spanned;		/* elapsed_s is end_s - start_s */
	int coarse;		/* a file's span is from its write time (whole seconds),
				 * not an interval's bounds (nanoseconds) */
	double cpu_before_s;	/* CPU before profiling started (start-up) */
	double startup_s;	/* of it, start-up alone (prof_run's), summed */
	uint32_t rate_asked, rate_set, tick_cost_ns;	/* of the first file with facts
							 * whose clock ran (else the first) */
	int clocked;		/* they are such a file's */
	uint32_t flags;		/* MONOUT_FACT_* of every file, or'ed */
	uint32_t threads_unlisted;
	uint64_t anon_samples;
	struct prof_thread *threads;
	size_t nthreads, cap;
	uint64_t *pids;		/* the processes of the files with facts, each once */
	size_t npids, pidcap;
};

/* Adds one profile's facts to a->cov (made on first use).  0 or -1 ENOMEM. */
int coverage_add(struct prof_attr *a, const struct prof_data *d);
/* The -s lines: CPU against samples and elapsed time, asked against
 * achieved rate, the threads. */
void coverage_summary(const struct prof_cov *c, double rate_hz, FILE *e);
/* The warnings given by default (prof_warn): samples that cover less than
 * 90 % of the CPU ("coverage", naming the threads missing), start-up CPU
 * that is a tenth of the program's or more ("start-up"), system time not
 * sampled ("system-unsampled"), a rate lowered ("rate-lowered").  Returns
 * 1 if it gave any. */
int coverage_warn(const struct prof_attr *a);
/* After the last coverage_add: a thread in several files (an interval
 * series; a process's file and its snapshot's are not read together) is one
 * entry, its CPU and samples summed, where its files' rates agree. */
void coverage_threads_merge(struct prof_cov *c);
void coverage_free(struct prof_attr *a);

/* Symbols the profile recorded for an object with no file (the vDSO,
 * anonymous code) into im (ELF addresses: runtime - bias).  0 or -1. */
int coverage_image_syms(struct prof_image *im, const struct prof_object *o);

/* ---- demangle.c ---------------------------------------------------------- */

/* The demangled form of a mangled name (C++, Rust legacy and v0, D:
 * demangle.c) into buf (buflen bytes, truncated to fit, NUL-terminated),
 * or NULL if name is not one libiberty's demangler reads. */
const char *prof_demangle(const char *name, char *buf, size_t buflen);

#endif /* PROF_H */
