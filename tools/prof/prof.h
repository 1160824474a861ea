/*
 * prof.h — the private interfaces between prof(1)'s components.
 *
 * prof reads one or more profiles (monprof's mon.out through format/monout,
 * or the C library's gmon.out), maps every histogram bin and call count to
 * the functions of the objects the profiled process had loaded, and prints
 * System V's flat profile.  The pieces, one concern per file:
 *
 *   input.c      opening a data file, telling mon.out from gmon.out, and
 *                turning a mon.out (format/monout.h) into a struct prof_data
 *   gmon.c       the GNU "gmon" file of glibc's profiler into a prof_data
 *   symtab.c     an object's function symbols through libelf (with the
 *                dynamic table and separate debug files as fallbacks)
 *   attribute.c  bins and call counts to rows (functions, or unknown code)
 *   report.c     the System V columns, the -s summary, JSON and CSV
 *   demangle.c   -C, through the C++ runtime's __cxa_demangle
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
	uint64_t *bins;		/* nbins sample counts (ticks) */
};

struct prof_count {		/* a call count: calls into the function at selfpc */
	uint64_t selfpc;	/* runtime PC inside the callee */
	uint64_t count;
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
};

/* Facts of the run; a value the file does not carry is left at 0 and its
 * "have_" flag clear. */
struct prof_run {
	double rate_hz;		/* samples per CPU-second */
	char clock[32];		/* name of the profiling clock, "" if unknown */
	int have_stats;
	uint64_t samples, dropped, saturated, lost;
	int have_cpu;
	double user_s, sys_s;	/* CPU seconds of the run */
	int have_cells;
	uint64_t cells_used, cells_total;	/* call-count cells */
	uint64_t pid;
	char *command;		/* command line, or NULL */
	/* The process replaced its program by exec: which images ran and
	 * which one this file shows, as a sentence; NULL if one image. */
	char *images;
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
};

void prof_data_free(struct prof_data *d);

/* ---- input.c ------------------------------------------------------------- */

/* Reads the whole file into memory: *buf (malloc'd), *len.  Returns 0, or -1
 * with a message (naming nothing: the caller adds the file) in err. */
int prof_slurp(const char *path, unsigned char **buf, size_t *len, char *err, size_t errlen);

/* Reads the profile in path (mon.out or gmon.out, told apart by content)
 * into *d.  prog is the executable named on the command line (NULL: none);
 * a gmon.out needs one to know its byte order and address size.  Returns 0,
 * or -1 with one line in err saying what is wrong (without the file name). */
int prof_read(const char *path, const char *prog, struct prof_data *d, char *err, size_t errlen);

/* ---- gmon.c -------------------------------------------------------------- */

#define GMON_MAGIC "gmon"

/* Decodes a GNU gmon.out (FACTS §6.1, version 0 or 1) held in buf[0..len)
 * into *d.  elf64: addresses are 8 bytes (else 4); big: big-endian.
 * Addresses in gmon.out are link-time ones (glibc subtracts a PIE's load
 * address), so the main object gets bias 0.  Returns 0, or -1 with err. */
int gmon_decode(const unsigned char *buf, size_t len, int elf64, int big,
		struct prof_data *d, char *err, size_t errlen);

/* ---- symtab.c ------------------------------------------------------------ */

struct prof_sym {
	uint64_t addr;		/* ELF vaddr (link time) */
	uint64_t size;		/* st_size, 0 when unknown */
	const char *name;	/* the name printed (one of the synonyms) */
	unsigned char bind;	/* STB_* of the chosen name */
	unsigned nsyn;		/* symbols at this address */
};

struct prof_image {		/* an ELF object's functions, sorted by addr */
	char *path;		/* the file read */
	char *label;		/* short name for [label]+0xoff rows */
	unsigned char build_id[64];
	size_t build_id_len;
	int elf64, big;
	int etype;		/* ET_EXEC, ET_DYN, ... */
	int from;		/* enum prof_symsrc */
	struct prof_sym *syms;
	size_t nsyms;
	struct { uint64_t lo, hi; } *texts;	/* executable sections, sorted */
	size_t ntexts;
	char *strings;		/* owns the names */
	size_t strings_len;
};

enum prof_symsrc { PROF_SYMS_NONE, PROF_SYMS_SYMTAB, PROF_SYMS_DEBUG, PROF_SYMS_DYNSYM };

/* Opens path as an ELF object and reads its function symbols: .symtab, else
 * a separate debug file found by build ID, else .dynsym.  locals: keep
 * STB_LOCAL functions (prof's default; -l clears it).  Returns 0, or -1 with
 * err ("not an ELF file", "truncated ELF file", or strerror). */
int symtab_load(const char *path, int locals, struct prof_image *im, char *err, size_t errlen);

/* Only the build ID and ELF class/byte order (for gmon.out and for checking
 * prog).  Returns 0 or -1 with err. */
int symtab_probe(const char *path, struct prof_image *im, char *err, size_t errlen);

void symtab_free(struct prof_image *im);

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
 * to the bytes of the bin each segment covers (System V's rule, FACTS
 * §3.2): ticks[segs[k].row] += share.  The part of a bin no segment covers
 * goes to the row of the fallback segment containing the bin's first byte
 * (fallback sorted, disjoint: whole objects), else to unknown_row.  Returns
 * the sum of all bins. */
double binmap_spread(const struct prof_hist *h, const struct prof_seg *segs, size_t nsegs,
		     const struct prof_seg *fallback, size_t nfallback, size_t unknown_row,
		     double *ticks);

/* Index of the segment containing pc, or SIZE_MAX. */
size_t binmap_find(const struct prof_seg *segs, size_t nsegs, uint64_t pc);

/* ---- attribute.c --------------------------------------------------------- */

enum prof_rowkind { PROF_ROW_FUNC, PROF_ROW_GAP, PROF_ROW_OBJECT, PROF_ROW_UNKNOWN };

struct prof_row {
	int kind;		/* enum prof_rowkind */
	size_t image;		/* index in the attribution's images (not UNKNOWN) */
	uint64_t addr;		/* FUNC/GAP: ELF vaddr; OBJECT: offset 0 */
	const char *name;	/* FUNC: symbol name; else NULL (report builds it) */
	double ticks;		/* samples credited (fractional after splits) */
	double seconds;		/* ticks / rate of their file, summed */
	uint64_t calls;
};

/* Attribution over any number of profiles: rows are keyed by object image
 * and address, so runs with different load addresses (ASLR) add up. */
struct prof_attr {
	int locals;		/* include STB_LOCAL functions */
	int sysv_extent;	/* -l: a symbol owns everything up to the next one */
	struct prof_image **images;
	size_t nimages;
	struct prof_row *rows;
	size_t nrows;
	size_t unknown_row;	/* the [unknown] row */
	double total_ticks, total_seconds;
	/* summary facts over all files */
	size_t nfiles;
	double rate_hz;		/* of the first file (0 if none) */
	int rates_differ;
	uint64_t samples, dropped, saturated, lost;
	int have_stats, have_cpu, have_cells;
	double user_s, sys_s;
	uint64_t cells_used, cells_total;
	char clock[32];
	uint32_t scale_min, scale_max;	/* profil scales seen (0: none) */
	uint64_t counts_unmatched;	/* call counts on no function */
	int warned;		/* a warning was printed */
	/* private to attribute.c */
	struct imgsegs *isegs;	/* per image: its segments and [object] row */
	size_t rows_cap;
};

void attr_init(struct prof_attr *a, int locals, int sysv_extent);
/* Adds one profile.  prog: the executable given on the command line, used
 * instead of the recorded main object (its build ID must match when both
 * are known).  Returns 0, or -1 with err (a fatal data error). */
int attr_add(struct prof_attr *a, const struct prof_data *d, const char *prog,
	     char *err, size_t errlen);
void attr_free(struct prof_attr *a);

/* ---- report.c ------------------------------------------------------------ */

enum prof_sort { PROF_SORT_TIME, PROF_SORT_CALLS, PROF_SORT_ADDR, PROF_SORT_NAME };
enum prof_fmt { PROF_FMT_TEXT, PROF_FMT_JSON, PROF_FMT_CSV };

struct prof_opts {
	int sort;		/* enum prof_sort */
	int addr_radix;		/* 0, 8 (-o) or 16 (-x) */
	int zero;		/* -z */
	int no_heading;		/* -h */
	int summary;		/* -s */
	int demangle;		/* -C */
	int format;		/* enum prof_fmt */
};

/* Prints the report for a on out (the -s summary on err).  Returns 0 or -1
 * if writing failed. */
int report_print(const struct prof_attr *a, const struct prof_opts *o, FILE *out, FILE *err);

/* The printed name of row r (function name, "[label]+0xoff", "[label]",
 * "[unknown]"), demangled if asked; returns a pointer into buf or to a
 * constant string. */
const char *report_name(const struct prof_attr *a, const struct prof_row *r, int demangle,
			char *buf, size_t buflen);

/* ---- demangle.c ---------------------------------------------------------- */

/* The demangled form of a C++ (Itanium ABI) name into buf, or NULL if name
 * is not mangled or the C++ runtime is not available. */
const char *prof_demangle(const char *name, char *buf, size_t buflen);

#endif /* PROF_H */
