/*
 * main.c — prof(1): the command line, the order of work, the exit status.
 *
 *   prof [-ChsVz] [-a|c|n|t] [-o|x] [-g|l] [-m mdata]... [--format=FORMAT]
 *        [--graph] [--callers=NAME] [--callees=NAME] [--threads] [--base=FILE]
 *        [--lines] [--annotate=FUNCTION] [--sample=cpu|wall|offcpu] [prog]
 *
 * after System V's prof (the prof(1) manual page of illumos,
 * usr/src/man/man1/prof.1, and of UnixWare; docs/prof.1).  Reads each data file
 * (./mon.out by default, or ./gmon.out when there is no mon.out), maps it to
 * the symbols of the objects it names, sums the files row by row and prints
 * the flat profile.  Of -a/-c/-n/-t, of -o/-x and of -g/-l the last one
 * given wins, with a warning, as System V's did.
 *
 * The program may be named as monrun(1) takes one: a name without a slash
 * is a file in the current directory if there is one (System V's
 * "prof a.out"), else is looked for in PATH as execvp(3) does.
 *
 * Warnings (warn.c) go to standard error as they arise, then -s's summary,
 * then the report on standard output.
 *
 * Exit status: 0 report printed; 1 a data error (a file missing, truncated,
 * foreign; the executable missing, unreadable or not the one that ran); 2 a
 * usage error.  Every error is one line: "prof: FILE: what is wrong".
 */
#include "prof.h"
#include "out/out.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MONPROF_VERSION
#define MONPROF_VERSION "0.1.0"
#endif

static const char usage_line[] =
	"usage: prof [-ChsVz] [-a|c|n|t] [-o|x] [-g|l] [-m mdata]... "
	"[--format=text|json|csv|graph|folded|pprof|callgrind|flame] [--graph] "
	"[--callers=NAME|--callees=NAME] [--threads] [--base=FILE] [--lines] "
	"[--annotate=FUNCTION] [--sample=cpu|wall|offcpu] [--no-demangle] [--merge] [prog]\n";

static void usage(void)
{
	fputs(usage_line, stderr);
	exit(2);
}

/* Records one of a set of exclusive options; warns when it replaces an
 * earlier, different one. */
static void choose(int *slot, int *seen, int letter, int value)
{
	if (*seen && *seen != letter)
		fprintf(stderr, "prof: warning: -%c overrides previous -%c\n", letter, *seen);
	*seen = letter;
	*slot = value;
}

/* The program named on the command line: a path as given; a bare name
 * in the current directory if there (System V), else the first executable
 * regular file of that name in PATH (execvp's search, as monrun does).
 * Returns a malloc'd path, or NULL when nothing was found (the caller then
 * reports the name as given). */
static char *find_program(const char *name)
{
	struct stat st;
	if (strchr(name, '/') || stat(name, &st) == 0)
		return strdup(name);
	const char *path = getenv("PATH");
	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");
		char *full;
		if (asprintf(&full, "%.*s%s%s", (int)len, path, len ? "/" : "", name) < 0)
			return NULL;
		if (stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0)
			return full;
		free(full);
		path += len;
		if (*path == ':')
			path++;
	}
	return NULL;
}

/* Which program a profile is of: its main object's build ID (hex), else
 * its recorded path; "" when the file does not say (gmon.out). */
static void program_of(const struct prof_data *d, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; i < d->nobjs; i++) {
		const struct prof_object *o = &d->objs[i];
		if (!o->is_main)
			continue;
		if (o->build_id_len) {
			char hex[sizeof o->build_id * 2 + 1];
			prof_hex(o->build_id, o->build_id_len, hex);
			snprintf(buf, len, "build ID %s", hex);
		} else if (o->path) {
			snprintf(buf, len, "%s", o->path);
		}
		return;
	}
}

static const char *main_path(const struct prof_data *d)
{
	for (size_t i = 0; i < d->nobjs; i++)
		if (d->objs[i].is_main && d->objs[i].path)
			return d->objs[i].path;
	return "an unnamed program";
}

/* --base: reads the base profile into *ba after checking that it is a
 * profile of the program the first data file (file0, of first_prog at
 * first_path) is of: the same build ID where both files record one, else
 * the same recorded path.  Returns 0, or 1 (the exit status) with one line
 * on stderr. */
static int load_base(const char *base, const char *prog, const char *first_prog,
		     const char *first_path, const char *file0, struct prof_attr *ba)
{
	struct prof_data d;
	char err[512], this_prog[160];
	if (prof_read(base, prog, &d, err, sizeof err) < 0) {
		fprintf(stderr, "prof: %s: %s\n", base, err);
		return 1;
	}
	program_of(&d, this_prog, sizeof this_prog);
	int differ = 0;
	if (first_prog[0] && this_prog[0]) {
		/* Build IDs when both have one; else the paths. */
		int bid0 = strncmp(first_prog, "build ID ", 9) == 0;
		int bid1 = strncmp(this_prog, "build ID ", 9) == 0;
		if (bid0 && bid1)
			differ = strcmp(first_prog, this_prog) != 0;
		else
			differ = strcmp(first_path, main_path(&d)) != 0;
	}
	if (differ) {
		fprintf(stderr, "prof: %s: a profile of %s (%s), not of %s (%s) as %s is; "
			"--base compares two profiles of one program\n", base, main_path(&d),
			this_prog, first_path, first_prog, file0);
		prof_data_free(&d);
		return 1;
	}
	int rc = 0;
	if (attr_add(ba, &d, prog, err, sizeof err) < 0) {
		fprintf(stderr, "prof: %s: %s\n", base, err);
		rc = 1;
	}
	prof_data_free(&d);
	return rc;
}

int main(int argc, char **argv)
{
	struct prof_opts o = { .sort = PROF_SORT_TIME, .demangle = 1 };
	int sort_seen = 0, radix_seen = 0, scope_seen = 0, locals = 1, version = 0, merge = 0;
	const char *base_file = NULL, *annotate = NULL;
	int by_lines = 0;
	const char **files = NULL;
	size_t nfiles = 0;
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'H' },
		{ "version", no_argument, NULL, 'v' },
		{ "no-demangle", no_argument, NULL, 'R' },
		{ "merge", no_argument, NULL, 'M' },
		{ "base", required_argument, NULL, 'B' },
		{ "lines", no_argument, NULL, 'L' },
		{ "annotate", required_argument, NULL, 'A' },
		{ "graph", no_argument, NULL, 'G' },
		{ "callers", required_argument, NULL, 'P' },
		{ "callees", required_argument, NULL, 'Q' },
		{ "threads", no_argument, NULL, 'T' },
		{ "sample", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "ChsVzacntoxglm:", longopts, NULL)) != -1) {
		switch (c) {
		case 'C': o.demangle = 1; break;	/* the default; kept for scripts */
		case 'R': o.demangle = 0; break;
		case 'M': merge = 1; break;
		case 'B': base_file = optarg; break;
		case 'L': by_lines = 1; break;
		case 'A': annotate = optarg; break;
		case 'G': o.renderer = prof_renderer_find("graph"); break;
		case 'P': o.callers = optarg; o.callees = NULL; break;
		case 'Q': o.callees = optarg; o.callers = NULL; break;
		case 'T': o.threads = 1; break;
		case 'S':
			if ((o.event = prof_event_find(optarg)) < 0) {
				fprintf(stderr, "prof: --sample=%s: not a sample type (%s, %s or %s)\n",
					optarg, prof_events[0].name, prof_events[1].name,
					prof_events[2].name);
				usage();
			}
			break;
		case 'h': o.no_heading = 1; break;
		case 's': o.summary = 1; break;
		case 'V': version = 1; break;
		case 'z': o.zero = 1; break;
		case 't': choose(&o.sort, &sort_seen, c, PROF_SORT_TIME); break;
		case 'c': choose(&o.sort, &sort_seen, c, PROF_SORT_CALLS); break;
		case 'a': choose(&o.sort, &sort_seen, c, PROF_SORT_ADDR); break;
		case 'n': choose(&o.sort, &sort_seen, c, PROF_SORT_NAME); break;
		case 'o': choose(&o.addr_radix, &radix_seen, c, 8); break;
		case 'x': choose(&o.addr_radix, &radix_seen, c, 16); break;
		case 'g': choose(&locals, &scope_seen, c, 1); break;
		case 'l': choose(&locals, &scope_seen, c, 0); break;
		case 'm': {
			const char **nf = realloc(files, (nfiles + 1) * sizeof *files);
			if (!nf) {
				fprintf(stderr, "prof: %s\n", strerror(ENOMEM));
				return 1;
			}
			files = nf;
			files[nfiles++] = optarg;
			break;
		}
		case 'F':
			if ((o.renderer = prof_renderer_find(optarg)) == NULL) {
				char names[256];
				fprintf(stderr, "prof: unknown format '%s' (%s)\n", optarg,
					prof_renderer_names(names, sizeof names));
				usage();
			}
			break;
		case 'v':	/* --version: on standard output, as GNU tools do */
			printf("prof (monprof) %s\n", MONPROF_VERSION);
			return 0;
		case 'H':
			fputs(usage_line, stdout);
			fputs("  -t|-c|-a|-n  sort by time (default), calls, address, name\n"
			      "  -o|-x        add the symbol address, octal or hex\n"
			      "  -l|-g        global functions only (System V) | include locals (default)\n"
			      "  -z           also rows with no time and no calls\n"
			      "  -h           no heading (System V's -h; --help is this text)\n"
			      "  -s           summary of the run (first, on standard error)\n"
			      "  -C           demangle C++ names (the default)\n"
			      "  --no-demangle  C++ names as the symbol table spells them\n"
			      "  --merge      allow summing profiles of different programs\n"
			      "  --base=FILE  each function's change from the profile FILE (same\n"
			      "               program): percentage points and seconds; text, json, csv\n"
			      "  --lines      rows are source lines (file.c:123 function), inline frames\n"
			      "               resolved, in every format (DWARF line tables, libdw)\n"
			      "  --annotate=FUNCTION  that function's source lines with their samples\n"
			      "               (its disassembly where the source is missing)\n"
			      "  -V           print the version (on standard error, as System V)\n"
			      "  --version    print the version on standard output and exit\n"
			      "  -m mdata     data file (default ./mon.out, else ./gmon.out); repeat to sum\n"
			      "  --format=    text (default), json, csv, graph (the call graph),\n"
			      "               folded (collapsed stacks), pprof (gzipped profile.proto),\n"
			      "               callgrind or flame (an SVG flame graph); see prof(1)\n"
			      "  --graph      the call graph (--format=graph), from the call stacks\n"
			      "  --callers=NAME  the call graph of NAME and what calls it\n"
			      "  --callees=NAME  the call graph of NAME and what it calls\n"
			      "  --threads    a report per thread (flat, json, csv; folded: the thread\n"
			      "               as the root frame), from the call stacks\n"
			      "  --sample=cpu|wall|offcpu  what every view and export shows: CPU time\n"
			      "               (default), wall-clock time of every thread, or off-CPU\n"
			      "               time (wall-clock samples of threads not running: waiting\n"
			      "               for a lock, I/O, a sleep, a CPU); wall and offcpu need a\n"
			      "               run with wall-clock sampling (monrun --wall, MONPROF_WALL)\n"
			      "  prog         the program, a path or a name looked for in PATH\n"
			      "               (default: the one mon.out names)\n",
			      stdout);
			return 0;
		default:
			if (optopt == 'm')
				fprintf(stderr, "prof: -m needs a data file\n");
			else if (optopt)
				fprintf(stderr, "prof: unknown option -%c\n", optopt);
			else
				fprintf(stderr, "prof: unknown option %s\n", argv[optind - 1]);
			usage();
		}
	}
	if (version) {
		fprintf(stderr, "prof: monprof %s\n", MONPROF_VERSION);
		if (argc == 2)
			return 0;
	}
	if ((o.callers || o.callees) && o.renderer && o.renderer != prof_renderer_find("graph")) {
		fprintf(stderr, "prof: --callers and --callees focus the call graph: not with "
			"--format=%s\n", o.renderer->name);
		usage();
	}
	if (o.callers || o.callees)
		o.renderer = prof_renderer_find("graph");
	if (base_file && !prof_diff_supported(o.renderer)) {
		fprintf(stderr, "prof: --base works with --format=text, json or csv, not %s\n",
			o.renderer->name);
		free(files);
		return 2;
	}
	if (argc - optind > 1) {
		fprintf(stderr, "prof: more than one program given\n");
		usage();
	}
	char *progpath = NULL;
	if (optind < argc) {
		progpath = find_program(argv[optind]);
		if (progpath == NULL) {
			fprintf(stderr, "prof: %s: no such file in the current directory or "
				"in PATH\n", argv[optind]);
			free(files);
			return 1;
		}
	}
	const char *prog = progpath;
	static const char *deflt[1];
	if (nfiles == 0) {
		/* System V's mon.out; the C library's gmon.out when that is all
		 * there is. */
		deflt[0] = access("mon.out", F_OK) != 0 && access("gmon.out", F_OK) == 0
			   ? "gmon.out" : "mon.out";
		files = deflt;
		nfiles = 1;
	}

	struct prof_attr a;
	attr_init(&a, locals);
	a.keep_pieces = by_lines || annotate;
	int status = 0;
	char first_prog[160] = "", first_path[512] = "";
	for (size_t i = 0; i < nfiles && status == 0; i++) {
		struct prof_data d;
		char err[512], this_prog[160];
		if (prof_read(files[i], prog, &d, err, sizeof err) < 0) {
			fprintf(stderr, "prof: %s: %s\n", files[i], err);
			status = 1;
			break;
		}
		/* Never silent: the process ran several programs (exec). */
		if (d.run.images != NULL)
			prof_warn("exec-images", "%s: %s", files[i], d.run.images);
		/* Profiles of different programs do not add up row by row:
		 * refused unless asked for (with a program named, attr_add
		 * checks every file against it instead). */
		program_of(&d, this_prog, sizeof this_prog);
		if (i == 0) {
			snprintf(first_prog, sizeof first_prog, "%s", this_prog);
			snprintf(first_path, sizeof first_path, "%s", main_path(&d));
		} else if (!prog && first_prog[0] && this_prog[0] &&
			   strcmp(first_prog, this_prog) != 0) {
			if (!merge) {
				fprintf(stderr, "prof: %s: a profile of %s, not of %s as %s is; "
					"give --merge to sum profiles of different programs\n",
					files[i], main_path(&d), first_path, files[0]);
				prof_data_free(&d);
				status = 1;
				break;
			}
			prof_warn("merged-programs", "%s is a profile of %s, %s of %s: summed "
				  "as asked (--merge)", files[i], main_path(&d), files[0],
				  first_path);
		}
		if (attr_add(&a, &d, prog, err, sizeof err) < 0) {
			fprintf(stderr, "prof: %s\n", err);
			status = 1;
		}
		prof_data_free(&d);
	}
	struct prof_attr ba;
	struct prof_profile bp;
	attr_init(&ba, locals);
	ba.keep_pieces = by_lines;
	memset(&bp, 0, sizeof bp);
	if (status == 0 && base_file) {
		status = load_base(base_file, prog, first_prog, first_path, files[0], &ba);
		if (status == 0) {
			attr_finish(&ba);
			if (profile_build(&ba, o.demangle, &bp) < 0 ||
			    (by_lines && profile_lines(&bp, 1) < 0)) {
				fprintf(stderr, "prof: %s\n", strerror(ENOMEM));
				status = 1;
			}
			o.base = &bp;
			o.base_file = base_file;
		}
	}
	if (status == 0) {
		struct prof_profile p;
		attr_finish(&a);
		const char *focus = o.callers ? o.callers : o.callees;
		int arc = 0;
		if (profile_build(&a, o.demangle, &p) < 0 ||
		    ((by_lines || annotate) && profile_lines(&p, by_lines && !annotate) < 0)) {
			fprintf(stderr, "prof: %s\n", strerror(ENOMEM));
			status = 1;
		} else if (!p.events[o.event].present ||
			   (o.base && !bp.events[o.event].present)) {
			/* Asked for wall-clock (off-CPU) time of a run that took
			 * no such samples: say so, and how to take them. */
			fprintf(stderr, "prof: %s: no %s samples in this profile (it was recorded "
				"without wall-clock sampling); run the program under 'monrun --wall' "
				"or with MONPROF_WALL=HZ (e.g. 100) to record them\n",
				p.events[o.event].present ? base_file : files[0],
				p.event_types[o.event].noun);
			status = 1;
		} else if (focus && prof_function_find(&p, focus) == SIZE_MAX) {
			fprintf(stderr, "prof: --%s=%s: no function of that name in the profile\n",
				o.callers ? "callers" : "callees", focus);
			status = 1;
		} else if (annotate ? (arc = prof_annotate(&p, &o, annotate, stdout)) < 0
				    : prof_render(&p, &o, stdout, stderr) < 0) {
			fprintf(stderr, "prof: %s\n", strerror(ENOMEM));
			status = 1;
		} else if (arc == 1) {
			fprintf(stderr, "prof: %s: no function of that name in the profile\n", annotate);
			status = 1;
		} else if (fflush(stdout) != 0 || ferror(stdout)) {
			fprintf(stderr, "prof: standard output: %s\n", strerror(errno));
			status = 1;
		}
		profile_free(&p);
	}
	attr_free(&a);
	profile_free(&bp);
	attr_free(&ba);
	prof_warnings_clear();
	free(progpath);
	if (files != deflt)
		free(files);
	return status;
}
