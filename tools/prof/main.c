/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * main.c — prof(1): the command line, the order of work, the exit status.
 *
 *   prof [-ChsVz] [-a|c|n|t] [-o|x] [-g|l] [-m mdata]... [--format=FORMAT]
 *        [--graph] [--callers=NAME] [--callees=NAME] [--threads[=N|all]]
 *        [--base=FILE|DIR]... [--lines] [--annotate=FUNCTION]
 *        [--sample=cpu|wall|offcpu] [--merge] [--program=NAME] [--from=TIME|#N]
 *        [--to=TIME|#N] [--base-from=TIME|#N] [--base-to=TIME|#N] [--timeline]
 *        [--output=FILE] [prog] [mdata|DIR]...
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
#include "monout.h"
#include "timeline.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <time.h>
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
	"[--callers=NAME|--callees=NAME] [--threads[=N|all]] [--base=FILE|DIR]... [--lines] "
	"[--annotate=FUNCTION] [--sample=cpu|wall|offcpu] [--no-demangle] [--merge] "
	"[--program=NAME] [--from=TIME|#N] [--to=TIME|#N] [--base-from=TIME|#N] [--base-to=TIME|#N] "
	"[--timeline] [--output=FILE] [prog] "
	"[mdata|DIR]...\n";

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

/* Opens the directory that holds the file name ("." for a bare name), its
 * path into dir (len bytes); NULL if that is longer or cannot be opened. */
static DIR *open_dir_of(const char *name, char *dir, size_t len)
{
	const char *slash = strrchr(name, '/');
	if (slash != NULL && (size_t)(slash - name) >= len)
		return NULL;
	snprintf(dir, len, "%.*s", slash ? (int)(slash - name) + (slash == name) : 1,
		 slash ? name : ".");
	return opendir(dir);
}

/* Never silent: monrun -f writes each followed child's profile beside its
 * parent's, named PID.PROGRAM (PID.PROGRAM.iSEQ.TIME with intervals; with
 * -o FILE, FILE.PID), and a report of one of them alone leaves the others
 * out.  Counts the files of those forms in the directory of name (not name,
 * not process pid's) last written at or after t0 (seconds since the Epoch:
 * the run's start), and warns when there are any. */
static void warn_profiles_beside(const char *name, const struct prof_data *d, double t0)
{
	char dir[4096], prog[256];
	uint64_t pid = d->run.pid;
	const char *slash = strrchr(name, '/'), *base = slash ? slash + 1 : name;
	/* The program's name as the files have it: this file's own (PID.PROGRAM),
	 * else the command's first word, without its directory. */
	char *after;
	strtoull(base, &after, 10);
	if (after != base && *after == '.' && after[1] != '\0') {
		snprintf(prog, sizeof prog, "%s", after + 1);
		char *iv = strstr(prog, ".i");
		if (iv != NULL)
			*iv = '\0';
	} else if (d->run.command != NULL) {
		size_t w = strcspn(d->run.command, " ");
		const char *c = d->run.command, *cs = memrchr(c, '/', w);
		if (cs != NULL) {
			w -= (size_t)(cs + 1 - c);
			c = cs + 1;
		}
		snprintf(prog, sizeof prog, "%.*s", (int)(w < 255 ? w : 255), c);
	} else {
		return;
	}
	size_t nprog = strlen(prog);
	DIR *dp = nprog ? open_dir_of(name, dir, sizeof dir) : NULL;
	if (dp == NULL)
		return;
	size_t n = 0;
	char first[3][256];
	struct dirent *e;
	while ((e = readdir(dp)) != NULL) {
		const char *q = e->d_name;
		char *end;
		unsigned long long other = strtoull(q, &end, 10);
		size_t nb = strlen(base);
		int named = end != q && *end == '.' && other != pid &&
			    strncmp(end + 1, prog, nprog) == 0 &&
			    (end[1 + nprog] == '\0' || strncmp(end + 1 + nprog, ".i", 2) == 0);
		/* monrun -f -o FILE: FILE.PID */
		int suffixed = strncmp(q, base, nb) == 0 && q[nb] == '.' && q[nb + 1] >= '0' &&
			       q[nb + 1] <= '9' && strspn(q + nb + 1, "0123456789") == strlen(q + nb + 1);
		if (!named && !suffixed)
			continue;
		char path[8192];
		struct stat st;
		snprintf(path, sizeof path, "%s/%s", dir, q);
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || (double)st.st_mtime + 1 < t0 ||
		    strcmp(path, name) == 0)
			continue;
		if (n < 3)
			snprintf(first[n], sizeof first[n], "%.255s", q);
		n++;
	}
	closedir(dp);
	if (n == 0)
		return;
	prof_warn("profiles-beside", "%s is the profile of process %llu alone: %zu more profile%s "
		  "of %s written since it started %s beside it (%s%s%s%s%s: other processes' "
		  "profiles of %s, such as its children's or siblings', or its intervals'), left "
		  "out; read them all as one profile with prof %s (its directory) or prof -m "
		  "FILE...", name,
		  (unsigned long long)pid, n, n == 1 ? "" : "s", prog, n == 1 ? "is" : "are",
		  first[0], n > 1 ? ", " : "", n > 1 ? first[1] : "", n > 2 ? ", " : "",
		  n > 3 ? "..." : n > 2 ? first[2] : "", prog, dir);
}

/* Never silent: a process that execs leaves the profile of each image
 * before its last as NAME.execN, N from 1 (monitor.c, follow.c), and a later
 * run writing NAME overwrites only its own.  The NAME.execN files beside
 * name whose N is past the images its process ran before (IMAGES) are
 * another run's; says so, naming at most three of them. */
static void warn_exec_files_beside(const char *name, const struct prof_data *d)
{
	const char *slash = strrchr(name, '/'), *base = slash ? slash + 1 : name;
	char dir[4096];
	DIR *dp = open_dir_of(name, dir, sizeof dir);
	if (dp == NULL)
		return;
	size_t nb = strlen(base), n = 0;
	unsigned long long low[3];	/* the three lowest N, in order */
	uint32_t k = d->run.images_before;
	struct dirent *e;
	while ((e = readdir(dp)) != NULL) {
		const char *q = e->d_name, *num = q + nb + 5;
		if (strncmp(q, base, nb) != 0 || strncmp(q + nb, ".exec", 5) != 0 ||
		    *num < '1' || *num > '9' || strspn(num, "0123456789") != strlen(num))
			continue;
		unsigned long long v = strtoull(num, NULL, 10);
		if (v <= k)
			continue;
		size_t at = n < 3 ? n : 3;
		while (at > 0 && low[at - 1] > v) {
			if (at < 3)
				low[at] = low[at - 1];
			at--;
		}
		if (at < 3)
			low[at] = v;
		n++;
	}
	closedir(dp);
	if (n == 0)
		return;
	char first[3][300];
	for (size_t i = 0; i < 3 && i < n; i++)
		snprintf(first[i], sizeof first[i], "%s.exec%llu", base, low[i]);
	char ran[600];
	if (k == 0)
		snprintf(ran, sizeof ran, "ran no program before the one it shows, so no %s.execN "
			 "file is of its run", base);
	else if (k == 1)
		snprintf(ran, sizeof ran, "ran one program before the one it shows, whose profile "
			 "is %s.exec1", base);
	else
		snprintf(ran, sizeof ran, "ran %u programs before the one it shows, whose "
			 "profiles are %s.exec1 to %s.exec%u", k, base, base, k);
	prof_warn("stale-exec-files", "%zu file%s beside %s (%s%s%s%s%s) %s of an earlier run, "
		  "not of this one: the process that wrote %s %s; this report leaves them "
		  "out (remove them, so that they are not taken for this run's)", n, n == 1 ? "" : "s", name,
		  first[0], n > 1 ? ", " : "", n > 1 ? first[1] : "", n > 2 ? ", " : "",
		  n > 3 ? "..." : n > 2 ? first[2] : "", n == 1 ? "is" : "are", base, ran);
}

/* The data files to read: -m's, positional data files, and the profiles of
 * the directories named (from_dir: a file that cannot be read is left out
 * with a warning rather than ending the run, as a PROFDIR may hold the
 * file of a process killed while writing). */
struct input {
	const char *name;
	int from_dir;
};

struct inputs {
	struct input *v;
	size_t n, cap;
	char **owned;		/* names read from directories */
	size_t nowned;
};

static int inputs_push(struct inputs *in, const char *name, int from_dir)
{
	if (in->n == in->cap) {
		size_t c = in->cap ? 2 * in->cap : 16;
		struct input *v = realloc(in->v, c * sizeof *v);
		if (v == NULL)
			return -1;
		in->v = v;
		in->cap = c;
	}
	in->v[in->n++] = (struct input){ name, from_dir };
	return 0;
}

/* Whether base (a file name without directory) is one of the files
 * written in the place of the -o file named named: an interval's
 * (NAMED.PID.PROGRAM.iNNNNNN.STAMP, lib/monfile.c) or an exec'ing image's
 * (NAMED.execN, NAMED.PID.PROGRAM.iNNNNNN.STAMP.execN). */
static int of_series(const char *base, const char *named)
{
	size_t l = strlen(named);
	if (strncmp(base, named, l) != 0 || base[l] != '.')
		return 0;
	const char *p = base + l + 1;
	if (strncmp(p, "exec", 4) == 0 && p[4] >= '0' && p[4] <= '9') {
		p += 4;
		while (*p >= '0' && *p <= '9')
			p++;
		return *p == '\0';	/* NAME.execN, not a copy NAME.exec1.bak */
	}
	char *end;
	if (strtoul(p, &end, 10) == 0 || *end != '.')
		return 0;	/* the pid */
	const char *i = strstr(end + 1, ".i");
	return i != NULL && i[2] >= '0' && i[2] <= '9';
}

/* name does not exist: the files written in its place (of_series), in
 * its directory, into *names[0..*n) as prof_dir_files gives them; 0 when
 * there are none. */
static size_t series_beside(const char *name, char ***names)
{
	char *dup = strdup(name), err[256];
	if (dup == NULL)
		return 0;
	char *slash = strrchr(dup, '/');
	const char *dir = ".", *base = dup;
	if (slash != NULL) {
		*slash = '\0';
		dir = slash == dup ? "/" : dup;
		base = slash + 1;
	}
	size_t n = 0, k = 0;
	char **all;
	if (*base != '\0' && prof_dir_files(dir, &all, &n, err, sizeof err) == 0) {
		for (size_t i = 0; i < n; i++) {
			const char *b = strrchr(all[i], '/');
			if (of_series(b ? b + 1 : all[i], base))
				all[k++] = all[i];
			else
				free(all[i]);
		}
		if (k == 0)
			free(all);
		else
			*names = all;
	}
	free(dup);
	return k;
}

/* Adds name: a directory's profiles, or name itself; when name does not
 * exist, the files written in its place beside it (an interval series:
 * monrun -o NAME --interval, as monrun gives a Go program by itself; an
 * exec'ing image's), said in one line.  0, or 1 (the exit status) with one
 * line on stderr. */
static int inputs_add(struct inputs *in, const char *name)
{
	struct stat st;
	char **names, err[256];
	size_t n;
	int missing = stat(name, &st) != 0 && errno == ENOENT;
	if (missing && (n = series_beside(name, &names)) > 0) {
		fprintf(stderr, "prof: %s does not exist: reading the %zu file%s written in its "
			"place beside it (%s%s)\n", name, n, n == 1 ? "" : "s", names[0],
			n > 1 ? ", ..." : "");
	} else if (missing || !S_ISDIR(st.st_mode)) {
		if (inputs_push(in, name, 0) == 0)
			return 0;
		fprintf(stderr, "prof: %s\n", strerror(ENOMEM));
		return 1;
	} else if (prof_dir_files(name, &names, &n, err, sizeof err) < 0) {
		fprintf(stderr, "prof: %s: %s\n", name, err);
		return 1;
	}
	if (n == 0) {
		fprintf(stderr, "prof: %s: no profile in this directory (no mon.out or gmon.out "
			"file)\n", name);
		free(names);
		return 1;
	}
	char **o = realloc(in->owned, (in->nowned + n) * sizeof *o);
	if (o == NULL) {
		for (size_t i = 0; i < n; i++)
			free(names[i]);
		free(names);
		fprintf(stderr, "prof: %s\n", strerror(ENOMEM));
		return 1;
	}
	in->owned = o;
	memcpy(in->owned + in->nowned, names, n * sizeof *names);
	in->nowned += n;
	free(names);
	for (size_t i = 0; i < n; i++)
		if (inputs_push(in, in->owned[in->nowned - n + i], 1) < 0) {
			fprintf(stderr, "prof: %s\n", strerror(ENOMEM));
			return 1;
		}
	return 0;
}

static void inputs_free(struct inputs *in)
{
	for (size_t i = 0; i < in->nowned; i++)
		free(in->owned[i]);
	free(in->owned);
	free(in->v);
	memset(in, 0, sizeof *in);
}

/* Reads input x into *d.  Returns 1 read, 0 left out (a file of a
 * directory that cannot be read: warned), -1 an error (one line on
 * stderr). */
static int read_input(const struct input *x, const char *prog, struct prof_data *d)
{
	char err[512];
	if (prof_read(x->name, prog, d, err, sizeof err) == 0) {
		/* Never silent: the process ran several programs (exec). */
		if (d->run.images != NULL)
			prof_warn("exec-images", "%s: %s", x->name, d->run.images);
		/* Never silent: children that were not profiled. */
		if (d->run.forks_unfollowed)
			prof_warn("unfollowed-forks", "%s: the process forked %llu time%s without "
				  "following its children (monrun without -f): their time is not "
				  "in this profile; monrun -f profiles each child in a file of its "
				  "own", x->name, (unsigned long long)d->run.forks_unfollowed,
				  d->run.forks_unfollowed == 1 ? "" : "s");
		return 1;
	}
	if (!x->from_dir) {
		fprintf(stderr, "prof: %s: %s\n", x->name, err);
		return -1;
	}
	prof_warn("unreadable-file", "%s: %s; left out, the directory's other profiles are read",
		  x->name, err);
	return 0;
}

/* No data file named and neither mon.out nor gmon.out here: when the
 * working directory holds profiles named for their process (monrun
 * --interval or -f without PROFDIR writes PID.PROGRAM.iSEQ.TIME or
 * PID.PROGRAM here), say so and how to read them, and return 1; else 0
 * (mon.out's own error follows). */
static int no_default_input(void)
{
	DIR *d = opendir(".");
	size_t n = 0;
	char first[256] = "";
	for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
		struct stat st;
		/* (a regular file only: opening a FIFO would wait for a writer;
		 * not a file still being written, NAME.tmp.PID.N) */
		if (e->d_name[0] < '0' || e->d_name[0] > '9' || strchr(e->d_name, '.') == NULL ||
		    strstr(e->d_name, ".tmp.") != NULL || stat(e->d_name, &st) != 0 ||
		    !S_ISREG(st.st_mode) || !prof_is_profile(e->d_name))
			continue;
		if (n++ == 0)
			snprintf(first, sizeof first, "%s", e->d_name);
	}
	if (d != NULL)
		closedir(d);
	if (n == 0)
		return 0;
	fprintf(stderr, "prof: mon.out: no such file; this directory holds %zu %s named for %s "
		"process (%s%s: monrun --interval, or -f, writes them here when PROFDIR is unset): "
		"'prof .' reads them\n", n, n == 1 ? "profile" : "profiles",
		n == 1 ? "its" : "their", first, n > 1 ? ", ..." : "");
	return 1;
}

/* Two programs (program_of's words, main_path's paths) are different: by
 * build ID when both have one, else by path; "" (not said) matches any. */
static int programs_differ(const char *prog0, const char *path0, const char *prog1,
			   const char *path1)
{
	if (!prog0[0] || !prog1[0])
		return 0;
	if (strncmp(prog0, "build ID ", 9) == 0 && strncmp(prog1, "build ID ", 9) == 0)
		return strcmp(prog0, prog1) != 0;
	return strcmp(path0, path1) != 0;
}

/* Is NAME the last part of the first word of command (argv[0], the name
 * the program was started by: a symbolic link's, as redis-server's to
 * redis-check-rdb, which PROFDIR's file names and monctl status use)? */
static int started_as(const char *name, const char *command)
{
	if (command == NULL)
		return 0;
	size_t len = strcspn(command, " ");
	const char *b = command;
	for (size_t i = 0; i < len; i++)
		if (command[i] == '/')
			b = command + i + 1;
	size_t n = (size_t)(command + len - b);
	return n > 0 && strlen(name) == n && strncmp(name, b, n) == 0;
}

/* Is NAME the last part of the file path resolves to (realpath(3)): a
 * program the runtime recorded by the symbolic link it was run by, chosen
 * by its target's name? */
static int target_is(const char *name, const char *path)
{
	char *r = realpath(path, NULL);
	if (r == NULL)
		return 0;
	const char *b = strrchr(r, '/');
	int yes = strcmp(name, r) == 0 || (b && strcmp(name, b + 1) == 0);
	free(r);
	return yes;
}

/* --program=NAME: the program's path, the last part of it, the name it was
 * started by (argv[0]'s last part, as PROFDIR's file names spell it), the
 * path or last part of the file a link path names, or the start of its
 * build ID in hex (8 digits or more). */
static int program_is(const char *name, const char *this_prog, const char *path,
		      const char *command)
{
	const char *b = strrchr(path, '/');
	size_t n = strlen(name);
	return strcmp(name, path) == 0 || (b && strcmp(name, b + 1) == 0) ||
	       started_as(name, command) || target_is(name, path) ||
	       (n >= 8 && strncmp(this_prog, "build ID ", 9) == 0 &&
		strncmp(this_prog + 9, name, n) == 0);
}

/* "prof: Cannot allocate memory" on stderr; returns 1, the exit status. */
static int nomem(void)
{
	fprintf(stderr, "prof: %s\n", strerror(ENOMEM));
	return 1;
}

/* Makes room for one more element of size sz after the n of the array
 * *(void **)pv (realloc(3)).  0, or -1 (ENOMEM: the array as it was). */
static int grow_one(void *pv, size_t n, size_t sz)
{
	void **v = pv;
	void *nv = realloc(*v, (n + 1) * sz);
	if (nv == NULL)
		return -1;
	*v = nv;
	return 0;
}

/* One program's files (or, with --merge, every file): what is read into
 * its attribution, and what its report is headed with. */
struct group {
	char prog[160];		/* program_of's words for its first file */
	char path[512];		/* main_path of its first file */
	const char *file0;	/* its first file */
	size_t nfiles;
	struct prof_attr a;
};

/* The NAME of --program=NAME that chooses group k of the n: the last part
 * of its path, or its path when another group's path ends alike, or the
 * start of its build ID (16 hex digits) when another group has that path
 * too (a program rebuilt between runs). */
static void program_option(const struct group *g, size_t n, size_t k, char *buf, size_t len)
{
	const char *p = g[k].path, *s = strrchr(p, '/'), *b = s ? s + 1 : p;
	int same_base = 0, same_path = 0;
	for (size_t i = 0; i < n; i++) {
		if (i == k)
			continue;
		const char *q = g[i].path, *t = strrchr(q, '/');
		same_base |= strcmp(t ? t + 1 : q, b) == 0;
		same_path |= strcmp(q, p) == 0;
	}
	if (same_path && strncmp(g[k].prog, "build ID ", 9) == 0)
		snprintf(buf, len, "%.16s", g[k].prog + 9);
	else
		snprintf(buf, len, "%s", same_base ? p : b);
}

/* --from/--to: a time as seconds since the Epoch ("1764590000",
 * fractions allowed), seconds before now ("-60": the last minute), or a
 * UTC date and time ("2026-12-01T13:00:00", "Z" allowed; strptime(3)'s
 * %Y-%m-%dT%H:%M:%S, timegm(3)).  Returns 0 with *t, or -1. */
static int parse_time(const char *s, double *t)
{
	char *end;
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	const char *e = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (e && (*e == '\0' || (e[0] == 'Z' && e[1] == '\0'))) {
		*t = (double)timegm(&tm);
		return 0;
	}
	double v = strtod(s, &end);
	if (end == s || *end != '\0' || !(v == v))
		return -1;
	if (s[0] == '-') {
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		v += (double)now.tv_sec + now.tv_nsec / 1e9;
	}
	*t = v;
	return 0;
}

/* --from=#N, --to=#N: an interval's sequence number, N decimal from 1
 * (the INTERVAL record's, monrun --interval: 1 the first interval of its
 * process), "#" so that it reads as no time does.  Returns 0 with *seq,
 * or -1. */
static int parse_seq(const char *s, uint64_t *seq)
{
	char *end;
	if (s[0] != '#' || s[1] < '0' || s[1] > '9')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s + 1, &end, 10);
	if (*end != '\0' || errno || v == 0)
		return -1;
	*seq = v;
	return 0;
}

/* Is a file that ran over [t0, t1] in the window [from, to] (seconds since
 * the Epoch)?  It overlaps the window by more than 1 % of its span (or,
 * a file of no span, lies in it): an interval is cut a few milliseconds
 * after the second it ends on, so the file before a window that begins at
 * a time --timeline shows (to the second) overlaps it by those
 * milliseconds, and would be read on both sides of a --base comparison of
 * two adjacent windows. */
static int in_window(double t0, double t1, double from, double to)
{
	if (t1 < from || t0 > to)
		return 0;
	double lo = t0 > from ? t0 : from, hi = t1 < to ? t1 : to;
	return t1 <= t0 || hi - lo > 0.01 * (t1 - t0);
}

/* The monrun -c word of a clock prof names as its files do (mon_clock_str),
 * NULL for none. */
static const char *clock_option(const char *clock)
{
	return strcmp(clock, "perf-cpu-clock") == 0 ? "perf"
	       : strcmp(clock, "thread-cputime") == 0 ? "thread"
	       : strcmp(clock, "itimer-prof") == 0 ? "itimer" : NULL;
}

/* --base: a warning when this profile (a, named name) and the base (b,
 * named bname) were taken with different profiling clocks (each side's
 * first file's, as -s shows it): the clocks count different CPU (the perf
 * clock user time only; the itimer clock the process's, given to the
 * thread that runs at its tick), so part of every change would be the
 * clocks'.  Rates are no matter: each file's samples are seconds by its
 * own rate. */
static void warn_clocks_differ(const struct prof_attr *a, const char *name,
			       const struct prof_attr *b, const char *bname)
{
	if (!a->clock[0] || !b->clock[0] || strcmp(a->clock, "none") == 0 ||
	    strcmp(b->clock, "none") == 0 || strcmp(a->clock, b->clock) == 0)
		return;
	const char *opt = clock_option(a->clock);
	if (opt == NULL)
		opt = clock_option(b->clock);
	int perf = strcmp(a->clock, "perf-cpu-clock") == 0 || strcmp(b->clock, "perf-cpu-clock") == 0;
	prof_warn("clocks-differ", "%s was profiled with the clock %s, the base %s with the "
		  "clock %s: the two clocks count CPU time differently%s, so a change shown "
		  "may be the clocks' and not the program's; profile both runs with the same "
		  "clock (monrun -c %s for both, or MONPROF_CLOCK=%s)",
		  name, a->clock, bname, b->clock,
		  perf ? " (the perf clock counts user time only, the others system time too)" : "",
		  opt ? opt : "CLOCK", opt ? opt : "CLOCK");
}

/* --base: reads the base profiles (a file, several, or directories) into
 * *ba after checking that each is a profile of the program of g (the first
 * data files): the same build ID where both files record one, else the
 * same recorded path.  Returns 0, or 1 (the exit status) with one line on
 * stderr. */
static int load_base(const struct inputs *base, const char *prog, const struct group *g,
		     double from, double to, uint64_t seq_from, uint64_t seq_to,
		     struct prof_attr *ba)
{
	size_t nread = 0;
	for (size_t i = 0; i < base->n; i++) {
		struct prof_data d;
		char err[512], this_prog[160];
		int r = read_input(&base->v[i], prog, &d);
		if (r < 0)
			return 1;
		if (r == 0)
			continue;
		double t0, t1;
		uint64_t sq = d.run.interval_seq;
		if (((from > -HUGE_VAL || to < HUGE_VAL) &&
		     (prof_file_span(&d, &t0, &t1) < 0 || !in_window(t0, t1, from, to))) ||
		    ((seq_from > 0 || seq_to < UINT64_MAX) &&
		     (sq == 0 || sq < seq_from || sq > seq_to))) {
			prof_data_free(&d);
			continue;	/* outside --base-from/--base-to */
		}
		program_of(&d, this_prog, sizeof this_prog);
		if (programs_differ(g->prog, g->path, this_prog, main_path(&d))) {
			fprintf(stderr, "prof: %s: a profile of %s (%s), not of %s (%s) as %s is; "
				"--base compares two profiles of one program\n", base->v[i].name,
				main_path(&d), this_prog, g->path, g->prog, g->file0);
			prof_data_free(&d);
			return 1;
		}
		int rc = attr_add(ba, &d, prog, err, sizeof err);
		prof_data_free(&d);
		if (rc < 0) {
			fprintf(stderr, "prof: %s: %s\n", base->v[i].name, err);
			return 1;
		}
		nread++;
	}
	if (nread == 0) {
		fprintf(stderr, "prof: --base: no readable profile among the %zu %s given "
			"(in the window of --base-from/--base-to, if given)\n", base->n,
			prof_pl(base->n, "file", "files"));
		return 1;
	}
	return 0;
}

/* Builds g's model and renders it as o asks on standard output (the -s
 * summary first, on stderr).  Returns the exit status: 0, or 1 with one
 * line on stderr. */
/* The group of *v (*n of them) whose program is prog at path, or, when
 * any is nonzero, the first; a new one (zeroed, its first file file0)
 * when none is.  Its index, or SIZE_MAX with errno ENOMEM. */
static size_t group_for(struct group **v, size_t *n, const char *prog, const char *path,
			const char *file0, int any)
{
	size_t k = 0;
	while (k < *n && !any && programs_differ((*v)[k].prog, (*v)[k].path, prog, path))
		k++;
	if (k < *n)
		return k;
	if (grow_one(v, *n, sizeof **v) < 0)
		return SIZE_MAX;
	struct group *g = &(*v)[(*n)++];
	memset(g, 0, sizeof *g);
	snprintf(g->prog, sizeof g->prog, "%s", prog);
	snprintf(g->path, sizeof g->path, "%s", path);
	g->file0 = file0;
	return k;
}

/* Says on stderr that the n programs of g cannot be one profile of what
 * the user asked: what ("--output writes"), else --format=NAME of r; why
 * ("which hold no call stacks"), or NULL; and names each program's
 * --program= and --merge. */
static void refuse_programs(const struct group *g, size_t n, const char *what,
			    const struct prof_renderer *r, const char *why)
{
	fprintf(stderr, "prof: the files are profiles of %zu programs (", n);
	for (size_t k = 0; k < n; k++)
		fprintf(stderr, "%s%s: %zu file%s", k ? ", " : "", g[k].path, g[k].nfiles,
			g[k].nfiles == 1 ? "" : "s");
	fprintf(stderr, ")%s%s, and ", why ? ", " : "", why ? why : "");
	if (what)
		fputs(what, stderr);
	else
		fprintf(stderr, "--format=%s makes", r->name);
	fprintf(stderr, " one program's profile (the text report shows each apart): "
		"choose one with ");
	for (size_t k = 0; k < n; k++) {
		char opt[600];
		program_option(g, n, k, opt, sizeof opt);
		fprintf(stderr, "%s--program=%s", k == 0 ? "" : k + 1 < n ? ", " : " or ", opt);
	}
	fprintf(stderr, ", or give --merge to sum them\n");
}

/* The function opt's NAME means in p: the one of that name, else the one
 * copy the compiler made of it (heavy.constprop.0: said on stderr), else
 * NULL, with the error said and the names that come near. */
static const char *function_named(const struct prof_profile *p, const char *opt, const char *name)
{
	if (prof_function_find(p, name) != SIZE_MAX)
		return name;
	size_t like[8];
	size_t n = prof_function_like(p, name, like, 8);
	if (n == 1) {
		fprintf(stderr, "prof: %s=%s: the function is %s\n", opt, name,
			p->functions[like[0]].name);
		return p->functions[like[0]].name;
	}
	fprintf(stderr, "prof: %s=%s: no function of that name in the profile", opt, name);
	if (n == 0) {
		/* Names that hold it, as a hint. */
		size_t shown = 0;
		for (size_t i = 0; i < p->nfunctions && shown < 5; i++)
			if (strstr(p->functions[i].name, name) != NULL)
				fprintf(stderr, "%s%s", shown++ ? ", " : "; names that hold it: ",
					p->functions[i].name);
	} else {
		fprintf(stderr, "; it may be any of %zu copies the compiler made: ", n);
		for (size_t k = 0; k < n && k < 8; k++)
			fprintf(stderr, "%s%s", k ? ", " : "", p->functions[like[k]].name);
		fprintf(stderr, "%s; give one", n > 8 ? ", ..." : "");
	}
	fputc('\n', stderr);
	return NULL;
}

/* lines: 0 no line tables read, else 1 + profile_lines' mode: each
 * (function, line) a function of its own, "file:line name" (--lines); the
 * inline frames as functions (--annotate); the locations' own functions
 * with their files and lines (--format=callgrind: fl= and positions). */
static int report(struct group *g, const struct prof_opts *o, int lines, const char *annotate,
		  const char *base_arg)
{
	struct prof_profile p;
	int status = 0, arc = 0;
	attr_finish(&g->a);
	const char *focus = o->callers ? o->callers : o->callees;
	if (profile_build(&g->a, o->demangle, &p) < 0 ||
	    (lines && profile_lines(&p, lines - 1) < 0)) {
		fprintf(stderr, "prof: %s\n", strerror(ENOMEM));
		return 1;
	}
	if (!p.events[o->event].present || (o->base && !o->base->events[o->event].present)) {
		/* Asked for wall-clock (off-CPU) time of a run that took no
		 * such samples: say so, and how to take them. */
		fprintf(stderr, "prof: %s: no %s samples in this profile (it was recorded "
			"without wall-clock sampling); run the program under 'monrun --wall' "
			"or with MONPROF_WALL=HZ (e.g. 100) to record them\n",
			p.events[o->event].present ? base_arg : g->file0,
			p.event_types[o->event].noun);
		status = 1;
	} else if (focus && !(focus = function_named(&p, o->callers ? "--callers" : "--callees",
						      focus))) {
		status = 1;
	} else if (annotate && !(annotate = function_named(&p, "--annotate", annotate))) {
		status = 1;
	} else {
		/* The name as resolved (heavy: heavy.constprop.0). */
		struct prof_opts named = *o;
		if (o->callers)
			named.callers = focus;
		else if (o->callees)
			named.callees = focus;
		if (annotate ? (arc = prof_annotate(&p, &named, annotate, stdout)) < 0
			     : prof_render(&p, &named, stdout, stderr) < 0) {
			fprintf(stderr, "prof: %s\n", strerror(ENOMEM));
			status = 1;
		} else if (arc == 1) {
			fprintf(stderr, "prof: %s: no function of that name in the profile\n",
				annotate);
			status = 1;
		} else if (fflush(stdout) != 0 || ferror(stdout)) {
			fprintf(stderr, "prof: standard output: %s\n", strerror(errno));
			status = 1;
		}
	}
	profile_free(&p);
	return status;
}

int main(int argc, char **argv)
{
	struct prof_opts o = { .sort = PROF_SORT_TIME, .demangle = 1 };
	int sort_seen = 0, radix_seen = 0, scope_seen = 0, locals = 1, version = 0, merge = 0;
	const char *annotate = NULL, *program = NULL, *base_arg = NULL;
	const char **base_files = NULL;
	size_t nbase = 0;
	double from = -HUGE_VAL, to = HUGE_VAL, bfrom = -HUGE_VAL, bto = HUGE_VAL;
	uint64_t seq_from = 0, seq_to = UINT64_MAX;	/* --from=#N, --to=#N */
	uint64_t bseq_from = 0, bseq_to = UINT64_MAX;	/* --base-from=#N, --base-to=#N */
	const char *output = NULL;
	int timeline = 0;
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
		{ "program", required_argument, NULL, 'N' },
		{ "from", required_argument, NULL, 'W' },
		{ "to", required_argument, NULL, 'U' },
		{ "base-from", required_argument, NULL, 'X' },
		{ "base-to", required_argument, NULL, 'Y' },
		{ "timeline", no_argument, NULL, 'I' },
		{ "output", required_argument, NULL, 'O' },
		{ "lines", no_argument, NULL, 'L' },
		{ "annotate", required_argument, NULL, 'A' },
		{ "graph", no_argument, NULL, 'G' },
		{ "callers", required_argument, NULL, 'P' },
		{ "callees", required_argument, NULL, 'Q' },
		{ "threads", optional_argument, NULL, 'T' },
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
		case 'B': {	/* a file or directory; several may be given */
			const char **nb = realloc(base_files, (nbase + 1) * sizeof *nb);
			if (!nb) {
				fprintf(stderr, "prof: %s\n", strerror(ENOMEM));
				return 1;
			}
			base_files = nb;
			base_files[nbase++] = optarg;
			base_arg = base_arg ? "the --base profiles" : optarg;
			break;
		}
		case 'N': program = optarg; break;
		case 'W':
		case 'U':
		case 'X':
		case 'Y': {
			double *t = c == 'W' ? &from : c == 'U' ? &to : c == 'X' ? &bfrom : &bto;
			if (optarg[0] == '#') {
				uint64_t *q = c == 'W' ? &seq_from : c == 'U' ? &seq_to
					    : c == 'X' ? &bseq_from : &bseq_to;
				if (parse_seq(optarg, q) < 0) {
					fprintf(stderr, "prof: --%s=%s: not an interval's number "
						"(#N, N from 1)\n", c == 'W' ? "from" : c == 'U' ? "to"
						: c == 'X' ? "base-from" : "base-to", optarg);
					usage();
				}
			} else if (parse_time(optarg, t) < 0) {
				fprintf(stderr, "prof: --%s=%s: not a time (seconds since the Epoch, "
					"-SECONDS before now, or YYYY-MM-DDTHH:MM:SS in UTC)\n",
					c == 'W' ? "from" : c == 'U' ? "to" : c == 'X' ? "base-from"
					: "base-to", optarg);
				usage();
			}
			break;
		}
		case 'I': timeline = 1; break;
		case 'O': output = optarg; break;
		case 'L': by_lines = 1; break;
		case 'A': annotate = optarg; break;
		case 'G': o.renderer = prof_renderer_find("graph"); break;
		case 'P': o.callers = optarg; o.callees = NULL; break;
		case 'Q': o.callees = optarg; o.callers = NULL; break;
		case 'T': {
			o.threads = 1;
			o.threads_max = PROF_THREADS_SHOWN;
			if (optarg == NULL)
				break;
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);
			if (strcmp(optarg, "all") == 0) {
				o.threads_max = 0;
			} else if (end != optarg && *end == '\0' && v >= 1 && v <= 1000000) {
				o.threads_max = v;
			} else {
				fprintf(stderr, "prof: --threads=%s: not a number of threads (1 to "
					"1000000) or all\n", optarg);
				usage();
			}
			break;
		}
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
			      "  --merge      sum profiles of different programs (without it, the\n"
			      "               text report shows each program's files apart, and\n"
			      "               folded, flame and pprof put each program's stacks\n"
			      "               under a root frame of its own)\n"
			      "  --program=NAME  only the profiles of that program: its path, file\n"
			      "               name, or the start of its build ID in hex (8 digits or more)\n"
			      "  --from=TIME, --to=TIME  only the files whose run overlaps the window:\n"
			      "               seconds since the Epoch, -SECONDS before now, or\n"
			      "               YYYY-MM-DDTHH:MM:SS (UTC); or #N: only the interval\n"
			      "               files (monrun --interval) numbered from (to) N\n"
			      "  --base-from=TIME|#N, --base-to=TIME|#N  the same for the --base files:\n"
			      "               two windows of one series compared\n"
			      "  --timeline   each file's start, length, process and samples, in time\n"
			      "               order (intervals: when the work happened), no report\n"
			      "  --output=FILE  the files read (one program's, or --merge) summed into\n"
			      "               one mon.out, FILE (-: standard output), instead of a\n"
			      "               report\n"
			      "  --base=FILE|DIR  each function's change from the profile FILE, or the\n"
			      "               sum of a directory's (same program; repeat to sum files):\n"
			      "               percentage points and seconds; text, json, csv\n"
			      "  --lines      rows are source lines (file.c:123 function), inline frames\n"
			      "               resolved, in every format (DWARF line tables, libdw)\n"
			      "  --annotate=FUNCTION  that function's source lines with their samples\n"
			      "               (its disassembly where the source is missing)\n"
			      "  -V           print the version (on standard error, as System V)\n"
			      "  --version    print the version on standard output and exit\n"
			      "  -m mdata     data file (default ./mon.out, else ./gmon.out); repeat to sum\n"
			      "  mdata|DIR    data files and directories of them (a PROFDIR), summed\n"
			      "               as -m's: the files of a process tree are one profile\n"
			      "  --format=    text (default), json, csv, graph (the call graph),\n"
			      "               folded (collapsed stacks), pprof (gzipped profile.proto),\n"
			      "               callgrind or flame (an SVG flame graph; of several\n"
			      "               timed files, their samples over time above it); see prof(1)\n"
			      "  --graph      the call graph (--format=graph), from the call stacks\n"
			      "  --callers=NAME  the call graph of NAME and what calls it\n"
			      "  --callees=NAME  the call graph of NAME and what it calls\n"
			      "  --threads[=N|all]  a report per thread (flat, json, csv; folded: the\n"
			      "               thread as the root frame), from the call stacks; the\n"
			      "               text shows the N (default 32) with the most samples first\n"
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
	if (o.threads && o.renderer == prof_renderer_find("graph")) {
		/* (the call graph is the process's: said, not ignored) */
		fprintf(stderr, "prof: --threads splits the flat profile, the folded stacks and the "
			"flame graph by thread: not with --graph, --callers or --callees\n");
		usage();
	}
	if (nbase && !prof_diff_supported(o.renderer)) {
		fprintf(stderr, "prof: --base works with --format=text, json or csv, not %s\n",
			o.renderer->name);
		free(files);
		free(base_files);
		return 2;
	}
	/* The line tables: --lines splits functions by line; --annotate and
	 * callgrind's format (whose readers show source files: fl=, and
	 * positions by line, as valgrind writes them) read them whole. */
	int lines = annotate ? 1 + PROF_LINES_INLINE
		    : by_lines ? 1 + PROF_LINES_SPLIT
		    : o.renderer == prof_renderer_find("callgrind") ? 1 + PROF_LINES_OUTER
								     : 0;
	/* Positional arguments: data files (told by their first bytes) and
	 * directories of them (a PROFDIR) are read as -m's are; at most one
	 * other, the program. */
	struct inputs in = { 0 }, base_in = { 0 };
	const char *progarg = NULL, *data0 = nfiles ? files[0] : NULL;
	size_t ndata = nfiles;	/* data arguments (files, directories) */
	int status = 0;
	for (size_t i = 0; i < nfiles && status == 0; i++)
		status = inputs_add(&in, files[i]);
	for (int i = optind; i < argc && status == 0; i++) {
		struct stat st;
		char **beside;
		size_t nb = 0;
		if (stat(argv[i], &st) != 0 && errno == ENOENT && (nb = series_beside(argv[i], &beside)) > 0) {
			/* (a -o name whose files are a series beside it) */
			for (size_t k = 0; k < nb; k++)
				free(beside[k]);
			free(beside);
		}
		if (nb > 0 || (stat(argv[i], &st) == 0 && (S_ISDIR(st.st_mode) || prof_is_profile(argv[i])))) {
			status = inputs_add(&in, argv[i]);
			if (ndata++ == 0)
				data0 = argv[i];
		} else if (progarg) {
			fprintf(stderr, "prof: more than one program given (%s, %s)\n", progarg,
				argv[i]);
			usage();
		} else {
			progarg = argv[i];
		}
	}
	for (size_t i = 0; i < nbase && status == 0; i++)
		status = inputs_add(&base_in, base_files[i]);
	free(files);
	free(base_files);
	char *progpath = NULL;
	if (status == 0 && progarg) {
		progpath = find_program(progarg);
		if (progpath == NULL) {
			fprintf(stderr, "prof: %s: no such file in the current directory or "
				"in PATH\n", progarg);
			status = 1;
		}
	}
	const char *prog = progpath;
	if (status == 0 && in.n == 0 && access("mon.out", F_OK) != 0 &&
	    access("gmon.out", F_OK) != 0 && (status = no_default_input()) != 0) {
		;	/* said: profiles named for their process are here */
	} else if (status == 0 && in.n == 0) {
		/* System V's mon.out; the C library's gmon.out when that is all
		 * there is. */
		status = inputs_push(&in, access("mon.out", F_OK) != 0 &&
				     access("gmon.out", F_OK) == 0 ? "gmon.out" : "mon.out", 0);
		data0 = in.n ? in.v[0].name : NULL;
		ndata = 1;
	}
	/* --base: each warning names the file it is about, this profile's or
	 * the base's (both give theirs). */
	const char *this_label = ndata == 1 ? data0 : "the profiles compared";
	if (base_in.n)
		prof_warn_about(this_label, NULL);

	/* Each file into the attribution of its program (one for all with
	 * --merge or a program named: attr_add then checks every file against
	 * it); with --program, only that program's. */
	struct group *groups = NULL;
	size_t ngroups = 0, nother = 0, nread = 0, noutside = 0, nspans = 0, untimed = 0;
	int twindow = from > -HUGE_VAL || to < HUGE_VAL;
	int swindow = seq_from > 0 || seq_to < UINT64_MAX;
	int window = twindow || swindow;
	struct prof_span *spans = NULL;
	/* The stack formats (folded, flame graph, pprof) show several
	 * programs as one profile, each program the root frame of its
	 * stacks; so does --merge.  mprogs: the programs of that profile, in
	 * the order their first files were read. */
	int by_program = !output && !base_in.n && !annotate && !prog && o.renderer &&
			 (o.renderer == prof_renderer_find("folded") ||
			  o.renderer == prof_renderer_find("flame") ||
			  o.renderer == prof_renderer_find("pprof"));
	struct group *mprogs = NULL;
	size_t nmprogs = 0;
	const char **kept = NULL;	/* --output: the files summed */
	const char *summed_name = NULL;	/* the first file read that is a sum (prof --output) */
	size_t nread_files = 0;		/* files read for the report (after --program, --from) */
	size_t nkept = 0;
	for (size_t i = 0; i < in.n && status == 0; i++) {
		struct prof_data d;
		char err[512], this_prog[160];
		/* Its warnings shown once it is kept: those of a file left out
		 * (another program, outside the window) are not this report's. */
		prof_warn_hold();
		int r = read_input(&in.v[i], prog, &d);
		if (r <= 0) {
			prof_warn_release(1);
			status = r < 0;
			continue;
		}
		nread++;
		program_of(&d, this_prog, sizeof this_prog);
		const char *path = main_path(&d);
		double t0, t1;
		int timed = prof_file_span(&d, &t0, &t1) == 0;
		if (in.n == 1 && !in.v[i].from_dir && timed)
			warn_profiles_beside(in.v[i].name, &d, t0);
		if (in.n == 1 && !in.v[i].from_dir)
			warn_exec_files_beside(in.v[i].name, &d);
		if (program && !program_is(program, this_prog, path, d.run.command)) {
			prof_warn_release(0);
			nother++;
			prof_data_free(&d);
			continue;
		}
		/* --from/--to: the files whose run overlaps the window. */
		uint64_t sq = d.run.interval_seq;
		if ((twindow && (!timed || !in_window(t0, t1, from, to))) ||
		    (swindow && (sq == 0 || sq < seq_from || sq > seq_to))) {
			prof_warn_release(0);
			noutside++;
			prof_data_free(&d);
			continue;
		}
		prof_warn_scope(path);
		prof_warn_release(1);
		prof_warn_scope(NULL);
		/* A sum (prof --output) read with other files may hold them. */
		if (d.run.summed && summed_name == NULL)
			summed_name = in.v[i].name;
		nread_files++;
		/* Its place in time: --timeline's line, the flame graph's bar. */
		if (timed) {
			if (grow_one(&spans, nspans, sizeof *spans) < 0) {
				prof_data_free(&d);
				status = nomem();
				break;
			}
			spans[nspans++] = (struct prof_span){
				t0, t1, d.run.pid, sq, prof_span_samples(&d, o.event), in.v[i].name,
				(d.run.interval_flags & MONOUT_INTERVAL_LAST) != 0,
				d.run.interval_period_ms / 1000.0
			};
		} else {
			untimed++;
		}
		if (timeline) {
			prof_data_free(&d);
			continue;
		}
		size_t had = ngroups;
		size_t k = group_for(&groups, &ngroups, this_prog, path, in.v[i].name,
				     merge || by_program || prog);
		if (k == SIZE_MAX) {
			prof_data_free(&d);
			status = nomem();
			break;
		}
		if (ngroups > had) {
			attr_init(&groups[k].a, locals);
			groups[k].a.keep_pieces = lines != 0;
		} else if (merge && !by_program &&
			   programs_differ(groups[k].prog, groups[k].path, this_prog, path)) {
			prof_warn("merged-programs", "%s is a profile of %s, %s of %s: summed "
				  "as asked (--merge)", in.v[i].name, path, groups[k].file0,
				  groups[k].path);
		}
		struct group *g = &groups[k];
		g->nfiles++;
		if (by_program) {
			size_t j = group_for(&mprogs, &nmprogs, this_prog, path, in.v[i].name, 0);
			if (j == SIZE_MAX) {
				prof_data_free(&d);
				status = nomem();
				break;
			}
			mprogs[j].nfiles++;
			g->a.program_no = j;
		}
		if (output) {
			if (grow_one(&kept, nkept, sizeof *kept) < 0) {
				prof_data_free(&d);
				status = nomem();
				break;
			}
			kept[nkept++] = in.v[i].name;
		}
		if (attr_add(&g->a, &d, prog, err, sizeof err) < 0) {
			fprintf(stderr, "prof: %s\n", err);
			status = 1;
		}
		prof_data_free(&d);
	}
	prof_warn_repeats();
	if (status == 0 && summed_name != NULL && nread_files > 1)
		prof_warn("summed-read-again",
			  "%s is a sum of profiles (written by prof --output), read here with %zu "
			  "other file%s: the samples, CPU and calls of any profile it already holds "
			  "count twice in this report; read the sum alone (prof -m %s), or keep it "
			  "out of the directory its profiles are in",
			  summed_name, nread_files - 1, nread_files - 1 == 1 ? "" : "s", summed_name);
	if (status == 0 && prof_warn_series_gaps(spans, nspans, !twindow && !swindow) < 0)
		status = nomem();
	if (status == 0 && timeline) {
		prof_print_timeline(spans, nspans, untimed);
		free(spans);
		free(progpath);
		inputs_free(&in);
		inputs_free(&base_in);
		prof_warnings_clear();
		return fflush(stdout) != 0 || ferror(stdout);
	}
	/* The files' places in time, in time order, for the flame graph's
	 * strip (one program's files, or --merge's: the other formats refuse
	 * several programs below). */
	prof_spans_sort(spans, nspans);
	/* Several programs in one profile: each named as --program would
	 * name it, the root frame of its stacks. */
	char (*plabels)[600] = NULL;
	const char **pnames = NULL;
	if (status == 0 && ngroups == 1 && nmprogs > 1 && o.event == PROF_EV_CPU &&
	    !groups[0].a.have_stacks) {
		/* No stacks to put each program's under its own root: the
		 * programs' functions would be summed, those of the objects they
		 * share as one. */
		if (merge) {
			prof_warn("merged-programs", "the files are profiles of %zu programs and hold "
				  "no call stacks to show each program's apart: summed as asked "
				  "(--merge)", nmprogs);
			nmprogs = 0;
		} else {
			refuse_programs(mprogs, nmprogs, NULL, o.renderer,
					"which hold no call stacks");
			status = 1;
		}
	}
	if (status == 0 && ngroups == 1 && nmprogs > 1) {
		plabels = calloc(nmprogs, sizeof *plabels);
		pnames = calloc(nmprogs, sizeof *pnames);
		if (!plabels || !pnames) {
			status = nomem();
		} else {
			for (size_t k = 0; k < nmprogs; k++) {
				program_option(mprogs, nmprogs, k, plabels[k], sizeof plabels[k]);
				pnames[k] = plabels[k];
			}
			groups[0].a.programs = pnames;
			groups[0].a.nprograms = nmprogs;
			fprintf(stderr, "prof: the files are profiles of %zu programs, shown as one "
				"profile with each program the root frame of its stacks (", nmprogs);
			for (size_t k = 0; k < nmprogs; k++)
				fprintf(stderr, "%s%s: %zu file%s", k ? ", " : "", pnames[k],
					mprogs[k].nfiles, mprogs[k].nfiles == 1 ? "" : "s");
			fprintf(stderr, "); --program=NAME shows one\n");
		}
	}
	o.spans = spans;
	o.nspans = nspans;
	o.untimed = untimed;
	if (status == 0 && noutside && ngroups)
		fprintf(stderr, "prof: %zu of the %zu %s read %s outside --from/--to "
			"(or %s no time%s): left out\n", noutside, nread,
			prof_pl(nread, "profile", "profiles"), prof_pl(noutside, "lies", "lie"),
			prof_pl(noutside, "says", "say"),
			swindow ? prof_pl(noutside, ", or is not an interval file",
					  ", or are not interval files") : "");
	if (status == 0 && ngroups == 0) {
		if (window)
			fprintf(stderr, "prof: no profile read lies in the window of --from/--to "
				"(%zu %s)\n", nread, prof_pl(nread, "file", "files"));
		else if (program)
			fprintf(stderr, nread == 1 ? "prof: --program=%s: the %zu profile read is "
				"not of that program\n" : "prof: --program=%s: none of the %zu "
				"profiles read is of that program\n", program, nread);
		else
			fprintf(stderr, "prof: no profile could be read (%zu %s)\n", in.n,
				prof_pl(in.n, "file", "files"));
		status = 1;
	}
	if (status == 0 && ngroups > 1 &&
	    (output || base_in.n || annotate ||
	     (o.renderer && o.renderer != prof_renderer_find("text")))) {
		/* One report per program fits the text format only: the
		 * others name each program's option. */
		const char *what = output ? "--output writes" : base_in.n ? "--base compares" :
				   annotate ? "--annotate shows" : NULL;
		refuse_programs(groups, ngroups, what, o.renderer, NULL);
		status = 1;
	}
	if (status == 0 && nother)
		fprintf(stderr, "prof: %zu of the %zu %s read %s of other programs than %s "
			"(--program): left out\n", nother, nread,
			prof_pl(nread, "profile", "profiles"), prof_pl(nother, "is", "are"), program);

	if (status == 0 && output) {
		/* --output: the files summed into one mon.out, no report. */
		char err[1024];
		if (prof_save(output, kept, nkept, err, sizeof err) < 0) {
			fprintf(stderr, "prof: --output: %s\n", err);
			status = 1;
		} else {
			fprintf(stderr, "prof: %s: %zu profile%s summed\n", output, nkept,
				nkept == 1 ? "" : "s");
		}
		for (size_t k = 0; k < ngroups; k++)
			attr_free(&groups[k].a);
		ngroups = 0;
	}
	free(kept);
	struct prof_attr ba;
	struct prof_profile bp;
	attr_init(&ba, locals);
	ba.keep_pieces = by_lines;
	memset(&bp, 0, sizeof bp);
	if (status == 0 && base_in.n) {
		prof_warn_about(base_arg, nbase == 1 ? " (--base)" : NULL);
		status = load_base(&base_in, prog, &groups[0], bfrom, bto, bseq_from, bseq_to, &ba);
		prof_warn_repeats();
		if (status == 0) {
			attr_finish(&ba);
			if (profile_build(&ba, o.demangle, &bp) < 0 ||
			    (by_lines && profile_lines(&bp, PROF_LINES_SPLIT) < 0)) {
				fprintf(stderr, "prof: %s\n", strerror(ENOMEM));
				status = 1;
			}
			o.base = &bp;
			o.base_file = base_in.n == 1 ? base_in.v[0].name : base_arg;
			prof_warn_about(NULL, NULL);
			warn_clocks_differ(&groups[0].a, this_label, &ba, o.base_file);
		}
		prof_warn_about(this_label, NULL);
	}
	for (size_t k = 0; k < ngroups && status == 0 && !output; k++) {
		if (ngroups > 1) {
			printf("%sprogram %s: %zu file%s (--program=NAME shows one)\n\n",
			       k ? "\n" : "", groups[k].path, groups[k].nfiles,
			       groups[k].nfiles == 1 ? "" : "s");
			/* Its warnings name it: stderr has no headings. */
			prof_warn_about(groups[k].path, NULL);
			/* The heading before the program's warnings and summary
			 * (stderr) where both streams go to one pipe or file:
			 * stdout is fully buffered there. */
			fflush(stdout);
		}
		status = report(&groups[k], &o, lines, annotate, base_arg);
		if (ngroups > 1)
			fflush(stdout);
	}
	if (ngroups > 1)
		prof_warn_about(NULL, NULL);
	for (size_t k = 0; k < ngroups; k++)
		attr_free(&groups[k].a);
	free(groups);
	free(mprogs);
	free(plabels);
	free(pnames);
	attr_free(&ba);
	profile_free(&bp);
	prof_warnings_clear();
	prof_warn_about(NULL, NULL);
	free(progpath);
	free(spans);
	inputs_free(&in);
	inputs_free(&base_in);
	return status;
}
