/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * monrun — profile an unmodified program: run it with libmon.so preloaded
 * and whole-process profiling started before main().
 *
 *   monrun [-f] [-r RATE] [-o FILE] [-c CLOCK] [--] command [args...]
 *
 * monrun checks what it can before it starts anything (the command exists
 * and is executable, is dynamically linked — the loader preloads nothing into
 * a static program —, is of libmon.so's class and machine, and does not run
 * with other IDs or added capabilities — the loader ignores LD_PRELOAD for
 * those), puts its settings in the environment and execs the
 * command in its own process: the command's exit status, or the signal that
 * ended it, is monrun's.  libmon (lib/autostart.c) reads:
 *   MONPROF_AUTO=PID     start whole-process profiling in process PID
 *   MONPROF_FOLLOW=1     also in forked children, each writing its own file
 *   MONPROF_OUT=FILE     the file to write instead of mon.out / PROFDIR's
 *   MONPROF_RATE, MONPROF_CLOCK   the profiling clock (see profil.3)
 *   MONPROF_STACK_DEPTH  PCs per call stack (-d; 0: no stacks)
 *   MONPROF_WALL=HZ      wall-clock samples of every thread (--wall; 0: off)
 *   MONPROF_INTERVAL=SEC each SEC seconds a profile of its own (--interval)
 *   MONPROF_KEEP, MONPROF_MAX_BYTES   interval files kept (--keep, --max-bytes)
 *   MONPROF_STACK_TABLE  unique call stacks the table holds (--stack-table)
 *   MONPROF_DORMANT=1    loaded, sampling nothing until monctl PID on (--dormant)
 *   MONPROF_CONTROL=1|0  the control socket for monctl(1) (--control,
 *                        --no-control; default: only with --dormant)
 */
#include <elf.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "settings.h"

#ifndef MON_LIBDIR
#define MON_LIBDIR "/usr/local/lib"
#endif
#ifndef MON_SONAME
#define MON_SONAME "libmon.so.0"
#endif

static const char usage_line[] =
	"usage: monrun [-f] [-r rate] [-o file] [-c perf|thread|itimer] [-d depth] [-a arcs] [--wall[=HZ]]\n"
	"              [--interval=SEC [--keep=N] [--max-bytes=BYTES]] [--stack-table=N]\n"
	"              [--dormant] [--control|--no-control] [--] command [args ...]\n";

#ifndef MONPROF_VERSION
#define MONPROF_VERSION "unknown"
#endif

static const char help_text[] =
	"Run a command with whole-process profiling (libmon.so preloaded); the\n"
	"profile goes to mon.out (PROFDIR/PID.program if PROFDIR is set).\n"
	"  -f          also profile forked children (and what they exec), each in a file of its own\n"
	"  -r rate     samples per CPU-second, 1 to 20000 (default 1000)\n"
	"  -o file     write the profile to file\n"
	"  -c clock    the profiling clock: perf, thread or itimer\n"
	"  -d depth    PCs kept per call stack, 0 to 512 (default 256; 0: flat profile only)\n"
	"  -a arcs     call-graph arcs a -pg program may count, 50 to 1073741824 (default: no\n"
	"              limit); past it no profile is written, as glibc's maxarcs\n"
	"  --wall[=HZ] also sample every thread HZ times a second of wall-clock time, whatever\n"
	"              it is doing (running, waiting for a CPU, blocked, stopped): 1 to 10000,\n"
	"              default 100; 0: off\n"
	"  --interval=SEC  each SEC seconds (1 to 86400) a profile of its own, written to\n"
	"              PID.program.iSEQ.TIME beside where the profile goes (a kill loses at most\n"
	"              the current interval)\n"
	"  --keep=N    keep the newest N interval files, removing the oldest\n"
	"  --max-bytes=BYTES  keep the interval files within BYTES (K, M, G), removing the oldest\n"
	"  --stack-table=N  unique call stacks the runtime's tables hold per interval or run,\n"
	"              16 to 4194304 (default 4194304)\n"
	"  --dormant   load the profiler but sample nothing until `monctl PID on`\n"
	"  --control   listen for monctl(1) (on, off, snapshot, status); also with --dormant\n"
	"              and --interval\n"
	"  --no-control  no control socket, even with --dormant\n"
	"  --help      this text\n"
	"  --version   monrun's version\n"
	"The command's exit status is monrun's.  See monrun(1).\n";

static void usage(void)
{
	fputs(usage_line, stderr);
	exit(2);
}

/* The command's path as execvp would find it.  NULL if nowhere, with *why
 * the exit status to give: 127 nothing of that name, 126 there but not
 * something we can run (not executable, a directory); *what says which. */
static char *find_command(const char *cmd, int *why, const char **what)
{
	struct stat st;
	*why = 127;
	*what = "command not found";
	if (strchr(cmd, '/')) {
		if (stat(cmd, &st) != 0) {
			*what = "no such file";
			return NULL;
		}
		*why = 126;
		if (S_ISDIR(st.st_mode)) {
			*what = "is a directory";
			return NULL;
		}
		if (access(cmd, X_OK) != 0) {
			*what = "not executable (permission denied)";
			return NULL;
		}
		return strdup(cmd);
	}
	const char *path = getenv("PATH");
	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	char *denied = NULL;
	while (*path) {
		size_t len = strcspn(path, ":");
		char *full;
		if (asprintf(&full, "%.*s%s%s", (int)len, path, len ? "/" : "", cmd) < 0)
			break;
		if (stat(full, &st) == 0 && S_ISREG(st.st_mode)) {
			if (access(full, X_OK) == 0) {
				free(denied);
				return full;
			}
			/* As execvp: a later executable one wins, else EACCES. */
			if (denied == NULL) {
				denied = full;
				full = NULL;
			}
		}
		free(full);
		path += len;
		if (*path == ':')
			path++;
	}
	if (denied != NULL) {
		free(denied);
		*why = 126;
		*what = "not executable (permission denied)";
	}
	return NULL;
}

/* Would the kernel run this file "securely" (AT_SECURE), so that the
 * dynamic loader ignores LD_PRELOAD?  That is when it changes the effective
 * user or group ID — set-uid to a user other than our real one, set-gid to
 * a group other than our real one, on a file system that honours those
 * bits — or, for anyone but root, when it carries file capabilities.
 * Returns NULL, or the reason for the message. */
static const char *runs_secure(const char *path, const struct stat *st)
{
	struct statvfs vfs;
	int honoured = statvfs(path, &vfs) != 0 || !(vfs.f_flag & ST_NOSUID);
	if (honoured && (st->st_mode & S_ISUID) && st->st_uid != getuid())
		return "set-uid program (to another user)";
	if (honoured && (st->st_mode & S_ISGID) && (st->st_mode & S_IXGRP) &&
	    st->st_gid != getgid())
		return "set-gid program (to another group)";
	if (geteuid() != 0 && getxattr(path, "security.capability", NULL, 0) > 0)
		return "program with file capabilities";
	return NULL;
}

/* What kind of file the kernel will run. */
enum elf_kind {
	NOT_ELF,	/* a script: its interpreter is what runs (the kernel checks it) */
	ELF_STATIC,	/* no program interpreter: nothing can be preloaded */
	ELF_DYNAMIC,	/* ours to profile */
	ELF_FOREIGN,	/* ELF of another class or machine than libmon.so's */
	ELF_LOADER,	/* glibc's dynamic loader run as a command: the program follows */
	ELF_MUSL,	/* a program for musl's loader, which cannot load libmon.so */
};

/* What monrun needs to know of an ELF file besides its kind: its program
 * interpreter (PT_INTERP) and whether a sanitizer runtime is among its
 * DT_NEEDED libraries (elf(5)). */
struct elf_facts {
	char interp[256];
	int asan;	/* libasan.so.* needed: ASan checks that it comes first */
	int go;		/* Go's build ID note: Go's runtime ends it by exit_group */
	int pthreads;	/* pthread_create among its dynamic names (Go: with cgo) */
};

/* Go's linker puts its build ID in a note named "Go" (n_namesz 4, padding
 * counted), of type 4, in a PT_NOTE segment (cmd/link's elf.go). */
#define NOTE_GO_BUILD_ID 4u

/* 1 if the PT_NOTE segment ph holds Go's build ID note. */
static int has_go_note(int fd, const ElfW(Phdr) *ph)
{
	unsigned char b[4096];
	size_t len = ph->p_filesz < sizeof b ? (size_t)ph->p_filesz : sizeof b;
	if (pread(fd, b, len, (off_t)ph->p_offset) != (ssize_t)len)
		return 0;
	for (size_t at = 0; at + sizeof(ElfW(Nhdr)) <= len;) {
		ElfW(Nhdr) n;
		memcpy(&n, b + at, sizeof n);
		size_t name = at + sizeof n, desc = name + ((n.n_namesz + 3u) & ~3u);
		if (n.n_namesz > len || desc > len)
			break;
		if (n.n_type == NOTE_GO_BUILD_ID && n.n_namesz >= 3 && memcmp(b + name, "Go", 3) == 0)
			return 1;
		at = desc + ((n.n_descsz + 3u) & ~3u);
	}
	return 0;
}

/* The file offset of virtual address va (PT_LOAD segments), or -1. */
static off_t va_offset(int fd, const ElfW(Ehdr) *eh, uint64_t va)
{
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		ElfW(Phdr) ph;
		if (pread(fd, &ph, sizeof ph, (off_t)eh->e_phoff + (off_t)i * eh->e_phentsize) !=
		    (ssize_t)sizeof ph)
			return -1;
		if (ph.p_type == PT_LOAD && va >= ph.p_vaddr && va < ph.p_vaddr + ph.p_filesz)
			return (off_t)(ph.p_offset + (va - ph.p_vaddr));
	}
	return -1;
}

/* Read the string at file offset off into out (cap bytes, NUL-terminated). */
static void read_str(int fd, off_t off, char *out, size_t cap)
{
	ssize_t n = off >= 0 ? pread(fd, out, cap - 1, off) : -1;
	out[n > 0 ? (size_t)n : 0] = '\0';
}

/* The dynamic section: sets f->asan from DT_NEEDED; 1 if DT_SONAME names
 * glibc's dynamic loader ("ld-linux-*" or "ld64.so.*"). */
static int read_dynamic(int fd, const ElfW(Ehdr) *eh, const ElfW(Phdr) *dyn, struct elf_facts *f)
{
	size_t n = dyn->p_filesz / sizeof(ElfW(Dyn));
	if (n == 0 || n > 4096)
		return 0;
	ElfW(Dyn) *d = calloc(n, sizeof *d);
	if (d == NULL || pread(fd, d, n * sizeof *d, (off_t)dyn->p_offset) != (ssize_t)(n * sizeof *d)) {
		free(d);
		return 0;
	}
	uint64_t strtab = 0, strsz = 0;
	for (size_t i = 0; i < n && d[i].d_tag != DT_NULL; i++) {
		if (d[i].d_tag == DT_STRTAB)
			strtab = d[i].d_un.d_ptr;
		if (d[i].d_tag == DT_STRSZ)
			strsz = d[i].d_un.d_val;
	}
	off_t str = strtab ? va_offset(fd, eh, strtab) : -1;
	/* A Go program makes its threads with pthread_create only with cgo
	 * (runtime/cgo); without, with the clone system call, past libmon. */
	char *names = str >= 0 && strsz > 0 && strsz < (1u << 24) ? malloc(strsz + 1) : NULL;
	if (names != NULL && pread(fd, names, strsz, str) == (ssize_t)strsz) {
		names[strsz] = '\0';
		/* As a string's tail: linkers share one ("_cgo_try_pthread_create"). */
		static const char want[] = "pthread_create";
		for (size_t at = 0; at < strsz; at += strlen(names + at) + 1) {
			size_t len = strlen(names + at);
			if (len >= sizeof want - 1 && strcmp(names + at + len - (sizeof want - 1), want) == 0)
				f->pthreads = 1;
		}
	}
	free(names);
	int loader = 0;
	for (size_t i = 0; str >= 0 && i < n && d[i].d_tag != DT_NULL; i++) {
		char name[256];
		if (d[i].d_tag != DT_NEEDED && d[i].d_tag != DT_SONAME)
			continue;
		read_str(fd, str + (off_t)d[i].d_un.d_val, name, sizeof name);
		if (d[i].d_tag == DT_NEEDED && strncmp(name, "libasan.so", 10) == 0)
			f->asan = 1;
		if (d[i].d_tag == DT_SONAME &&
		    (strncmp(name, "ld-linux", 8) == 0 || strncmp(name, "ld64.so", 7) == 0))
			loader = 1;
	}
	free(d);
	return loader;
}

static enum elf_kind elf_kind(const char *path, struct elf_facts *f)
{
	memset(f, 0, sizeof *f);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NOT_ELF;
	unsigned char ident[EI_NIDENT];
	ElfW(Ehdr) eh;
	enum elf_kind kind = NOT_ELF;
	if (pread(fd, ident, sizeof ident, 0) != (ssize_t)sizeof ident ||
	    memcmp(ident, ELFMAG, SELFMAG) != 0)
		goto done;
	kind = ELF_FOREIGN;
	if (ident[EI_CLASS] != (__ELF_NATIVE_CLASS == 64 ? ELFCLASS64 : ELFCLASS32) ||
	    pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh)
		goto done;
#if defined(__x86_64__)
	if (eh.e_machine != EM_X86_64)
		goto done;
#elif defined(__aarch64__)
	if (eh.e_machine != EM_AARCH64)
		goto done;
#endif
	kind = ELF_STATIC;
	ElfW(Phdr) dyn = { 0 };
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		ElfW(Phdr) ph;
		off_t off = (off_t)eh.e_phoff + (off_t)i * eh.e_phentsize;
		if (pread(fd, &ph, sizeof ph, off) != (ssize_t)sizeof ph)
			break;
		if (ph.p_type == PT_INTERP) {
			kind = ELF_DYNAMIC;
			read_str(fd, (off_t)ph.p_offset, f->interp,
				 ph.p_filesz < sizeof f->interp ? ph.p_filesz + 1 : sizeof f->interp);
		}
		if (ph.p_type == PT_DYNAMIC)
			dyn = ph;
		if (ph.p_type == PT_NOTE && !f->go)
			f->go = has_go_note(fd, &ph);
	}
	int loader = dyn.p_type == PT_DYNAMIC && read_dynamic(fd, &eh, &dyn, f);
	if (kind == ELF_STATIC && eh.e_type == ET_DYN && loader)
		kind = ELF_LOADER;
	else if (kind == ELF_DYNAMIC && strstr(f->interp, "ld-musl") != NULL)
		kind = ELF_MUSL;
done:
	close(fd);
	return kind;
}

/* The program glibc's loader is asked to run: the first argument after its
 * own options (ld.so(8): those that take a value are listed), or NULL. */
static const char *loader_program(char **args)
{
	static const char *const with_value[] = { "--library-path", "--preload", "--audit",
						  "--argv0", "--inhibit-rpath",
						  "--glibc-hwcaps-prepend", "--glibc-hwcaps-mask", NULL };
	for (size_t i = 1; args[i] != NULL; i++) {
		if (strncmp(args[i], "--", 2) != 0)
			return args[i];
		if (strcmp(args[i], "--") == 0)
			return args[i + 1];
		for (size_t k = 0; with_value[k] != NULL; k++)
			if (strcmp(args[i], with_value[k]) == 0 && args[i + 1] != NULL) {
				i++;
				break;
			}
	}
	return NULL;
}

/* libmon.so beside us (bin/../lib, as installed and as built), else the
 * configured library directory's libmon.so.0 (MON_SONAME: the runtime
 * package's one file, as a distribution installs it without the
 * development link) or libmon.so.  Where we are: /proc/self/exe, or without
 * /proc (a container or jail that has none) argv0 as execvp found it. */
static char *find_libmon(const char *argv0)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0 && argv0 != NULL) {
		int why;
		const char *what;
		char *p = strchr(argv0, '/') ? strdup(argv0) : find_command(argv0, &why, &what);
		char *real = p ? realpath(p, NULL) : NULL;
		free(p);
		if (real != NULL && strlen(real) < sizeof self) {
			strcpy(self, real);
			n = (ssize_t)strlen(self);
		}
		free(real);
	}
	if (n > 0) {
		self[n] = '\0';
		char *slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			char *p;
			if (asprintf(&p, "%s/../lib/libmon.so", self) >= 0) {
				char *real = realpath(p, NULL);
				free(p);
				if (real)
					return real;
			}
		}
	}
	static const char *const names[] = { MON_SONAME, "libmon.so" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char *p;
		if (asprintf(&p, "%s/%s", MON_LIBDIR, names[i]) < 0)
			return NULL;
		if (access(p, R_OK) == 0)
			return p;
		free(p);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *rate = NULL, *out = NULL, *clock = NULL, *depth = NULL, *wall = NULL,
		   *arcs = NULL;
	int follow = 0, c;
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'H' },
		{ "version", no_argument, NULL, 'V' },
		{ "wall", optional_argument, NULL, 'W' },
		{ "interval", required_argument, NULL, 'I' },
		{ "keep", required_argument, NULL, 'K' },
		{ "max-bytes", required_argument, NULL, 'M' },
		{ "stack-table", required_argument, NULL, 'S' },
		{ "dormant", no_argument, NULL, 'D' },
		{ "no-control", no_argument, NULL, 'N' },
		{ "control", no_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 }
	};
	/* The long options that set one MONPROF_* variable each, checked with
	 * settings.c's rules (the words are libmon's). */
	static const struct {
		int opt;
		const char *name, *var;
	} simple[] = { { 'I', "--interval", "MONPROF_INTERVAL" }, { 'K', "--keep", "MONPROF_KEEP" },
		       { 'M', "--max-bytes", "MONPROF_MAX_BYTES" },
		       { 'S', "--stack-table", "MONPROF_STACK_TABLE" },
		       { 'D', "--dormant", "MONPROF_DORMANT" },
		       { 'N', "--no-control", "MONPROF_CONTROL" },
		       { 'C', "--control", "MONPROF_CONTROL" } };
	const char *simple_val[sizeof simple / sizeof simple[0]] = { NULL };
	opterr = 0;	/* our own messages, named "monrun:" whatever argv[0] is */
	while ((c = getopt_long(argc, argv, "+:fr:o:c:d:a:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			follow = 1;
			break;
		case 'r': {
			char *end;
			unsigned long r = strtoul(optarg, &end, 10);
			if (*end || r < 1 || r > 20000)
				errx(2, "-r %s: the rate is 1 to 20000 samples per CPU-second", optarg);
			rate = optarg;
			break;
		}
		case 'o':
			out = optarg;
			break;
		case 'c':
			if (strcmp(optarg, "perf") && strcmp(optarg, "thread") && strcmp(optarg, "itimer"))
				errx(2, "-c %s: the clock is perf, thread or itimer", optarg);
			clock = optarg;
			break;
		case 'd':
			if (mon_setting_problem("MONPROF_STACK_DEPTH", optarg) != NULL || !*optarg)
				errx(2, "-d %s: the stack depth is 0 to 512 PCs (0: no call stacks)",
				     optarg);
			depth = optarg;
			break;
		case 'a':
			if (mon_setting_problem("MONPROF_ARCS", optarg) != NULL || !*optarg)
				errx(2, "-a %s: the arc table holds 50 to 1073741824 arcs", optarg);
			arcs = optarg;
			break;
		case 'W':
			if (optarg == NULL)
				optarg = "100";
			if (mon_setting_problem("MONPROF_WALL", optarg) != NULL || !*optarg)
				errx(2, "--wall=%s: the wall-clock rate is 0 to 10000 samples per "
				     "second (0: off)", optarg);
			wall = optarg;
			break;
		case 'I':
		case 'K':
		case 'M':
		case 'S':
		case 'D':
		case 'N':
		case 'C':
			for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++) {
				if (simple[i].opt != c)
					continue;
				const char *v = c == 'D' || c == 'C' ? "1" : c == 'N' ? "0" : optarg;
				const char *why = mon_setting_problem(simple[i].var, v);
				if (why != NULL || !*v)
					errx(2, "%s=%s: %s", simple[i].name, v, why ? why : "empty");
				simple_val[i] = v;
			}
			break;
		case 'h':
		case 'H':
			fputs(usage_line, stdout);
			fputs(help_text, stdout);
			return 0;
		case 'V':
			printf("monrun (monprof) %s\n", MONPROF_VERSION);
			return 0;
		case ':':
			warnx("-%c needs an argument", optopt);
			usage();
			break;
		default:
			if (optopt)
				warnx("unknown option -%c", optopt);
			else
				warnx("unknown option %s", argv[optind - 1]);
			usage();
		}
	}
	if (optind >= argc)
		usage();
	const char *cmd = argv[optind];
	/* A setting from the environment that an option does not replace is
	 * checked as the option would be (settings.c: the same rules as
	 * libmon's), before anything is started. */
	for (size_t i = 0; mon_setting_names[i] != NULL; i++) {
		const char *n = mon_setting_names[i];
		if ((rate && !strcmp(n, "MONPROF_RATE")) || (clock && !strcmp(n, "MONPROF_CLOCK")) ||
		    (follow && !strcmp(n, "MONPROF_FOLLOW")) || !strcmp(n, "MONPROF_AUTO") ||
		    (depth && !strcmp(n, "MONPROF_STACK_DEPTH")) ||
		    (wall && !strcmp(n, "MONPROF_WALL")) || (arcs && !strcmp(n, "MONPROF_ARCS")))
			continue;	/* replaced by monrun */
		int replaced = 0;
		for (size_t k = 0; k < sizeof simple / sizeof simple[0]; k++)
			replaced |= simple_val[k] != NULL && !strcmp(n, simple[k].var);
		if (replaced)
			continue;
		const char *v = getenv(n), *why = mon_setting_problem(n, v);
		if (why != NULL)
			errx(2, "%s=%s: %s", n, v, why);
	}

	int why;
	const char *what;
	char *path = find_command(cmd, &why, &what);
	if (path == NULL)
		errx(why, "%s: %s", cmd, what);
	/* The kernel ignores set-uid and set-gid bits on scripts. */
	struct elf_facts facts;
	enum elf_kind kind = elf_kind(path, &facts);
	struct stat st;
	const char *secure = kind != NOT_ELF && stat(path, &st) == 0 ? runs_secure(path, &st) : NULL;
	if (secure != NULL)
		errx(126, "%s: %s: the dynamic loader ignores LD_PRELOAD for it, "
			  "so libmon cannot be loaded; build it with -pg and link it with -lmon "
			  "instead (cc -pg ... -lmon)", path, secure);
	if (kind == ELF_LOADER) {
		/* "monrun /lib64/ld-linux-x86-64.so.2 ./prog": the loader honours
		 * LD_PRELOAD; what must be checked is the program it runs. */
		const char *prog = loader_program(argv + optind);
		if (prog == NULL)
			errx(2, "%s: the dynamic loader, with no program to run", path);
		int pwhy;
		const char *pwhat;
		char *ppath = strchr(prog, '/') ? strdup(prog) : find_command(prog, &pwhy, &pwhat);
		if (ppath == NULL || access(ppath, R_OK) != 0)
			errx(127, "%s: %s", prog, ppath ? strerror(errno) : pwhat);
		free(path);
		path = ppath;
		kind = elf_kind(path, &facts);
		if (kind == NOT_ELF || kind == ELF_LOADER)
			errx(126, "%s: not a dynamically linked program the loader can run", path);
	}
	/* Go without cgo: its runtime makes its threads (clone) and sets its
	 * signal handlers (rt_sigaction) with system calls of its own, past
	 * the C library and so past libmon: the clock's signal would go to
	 * Go's handler and nothing be sampled. */
	if (facts.go && (kind == ELF_STATIC || (kind == ELF_DYNAMIC && !facts.pthreads)))
		errx(126, "%s: a Go program built without cgo: Go's runtime makes its threads "
			  "and signal handlers with system calls of its own, which libmon cannot "
			  "follow; build it with cgo (CGO_ENABLED=1 and cgo code, or import _ "
			  "\"runtime/cgo\"): it is then linked with the C library, dynamically",
		     path);
	switch (kind) {
	case ELF_STATIC:
		errx(126, "%s: statically linked: there is no dynamic loader to preload "
			  "libmon into it; build it with -pg and link it with -lmon instead "
			  "(cc -pg ... -lmon; -lmon alone only provides profil and monitor)", path);
	case ELF_FOREIGN:
		errx(126, "%s: not a %d-bit %s program like libmon.so, which cannot be "
			  "loaded into it", path, __ELF_NATIVE_CLASS,
#if defined(__x86_64__)
		     "x86-64"
#elif defined(__aarch64__)
		     "AArch64"
#else
		     "native"
#endif
		);
	case ELF_MUSL:
		errx(126, "%s: built for the musl C library (loader %s): libmon.so is built for "
			  "glibc and cannot be loaded into it; build the program against glibc to "
			  "profile it", path, facts.interp);
	case NOT_ELF:
	case ELF_DYNAMIC:
	case ELF_LOADER:
		break;
	}
	free(path);
	/* AddressSanitizer checks that its runtime is the first library of the
	 * process ("ASan runtime does not come first in initial library
	 * list") and aborts when LD_PRELOAD put libmon.so before it.  libmon
	 * interposes nothing ASan intercepts first-come (its signal and exec
	 * wrappers pass through), so that check is turned off, added to
	 * what the user set; an explicit verify_asan_link_order of the user's
	 * is left as it is. */
	if (facts.asan) {
		const char *ao = getenv("ASAN_OPTIONS");
		if (ao == NULL || strstr(ao, "verify_asan_link_order") == NULL) {
			char *v;
			if (asprintf(&v, "%s%sverify_asan_link_order=0", ao && *ao ? ao : "",
				     ao && *ao ? ":" : "") < 0 ||
			    setenv("ASAN_OPTIONS", v, 1) != 0)
				err(1, "ASAN_OPTIONS");
			free(v);
		}
	}

	char *lib = find_libmon(argv[0]);
	if (lib == NULL)
		errx(1, "libmon.so not found beside monrun nor in %s", MON_LIBDIR);
	const char *old = getenv("LD_PRELOAD");
	char *preload;
	if (asprintf(&preload, "%s%s%s", lib, old && *old ? ":" : "", old ? old : "") < 0)
		err(1, "LD_PRELOAD");
	char pid[32];
	snprintf(pid, sizeof pid, "%ld", (long)getpid());
	if (setenv("LD_PRELOAD", preload, 1) || setenv("MONPROF_AUTO", pid, 1) ||
	    (follow && setenv("MONPROF_FOLLOW", "1", 1)) || (out && setenv("MONPROF_OUT", out, 1)) ||
	    (rate && setenv("MONPROF_RATE", rate, 1)) || (clock && setenv("MONPROF_CLOCK", clock, 1)) ||
	    (depth && setenv("MONPROF_STACK_DEPTH", depth, 1)) ||
	    (wall && setenv("MONPROF_WALL", wall, 1)) || (arcs && setenv("MONPROF_ARCS", arcs, 1)))
		err(1, "setenv");
	for (size_t k = 0; k < sizeof simple / sizeof simple[0]; k++)
		if (simple_val[k] != NULL && setenv(simple[k].var, simple_val[k], 1) != 0)
			err(1, "setenv");
	if ((simple_val[1] || simple_val[2]) && !simple_val[0] && !getenv("MONPROF_INTERVAL"))
		errx(2, "--keep and --max-bytes rotate interval files: give --interval=SEC too");
	/* Go's runtime ends the process with the exit_group system call made
	 * by its own instruction: no library sees the end, and no profile
	 * would be written (lib/control.c's watcher says so).  Profiles by
	 * interval lose at most the last second instead of all of it.  Not
	 * when the profile goes to a device or FIFO (-o /dev/null): interval
	 * files would be made beside it, in /dev. */
	const char *dest = out ? out : getenv("MONPROF_OUT");
	struct stat dst;
	int discard = dest != NULL && stat(dest, &dst) == 0 && !S_ISREG(dst.st_mode);
	if (facts.go && !simple_val[0] && !getenv("MONPROF_INTERVAL") && !discard) {
		if (setenv("MONPROF_INTERVAL", "1", 1) != 0)
			err(1, "setenv");
		warnx("%s is a Go program, whose runtime ends the process with the exit_group "
		      "system call, which no library sees: its profile is written each second "
		      "instead (--interval=1; another with --interval=SEC), one file an interval, "
		      "which prof reads together from their directory (prof PROGRAM DIR)",
		      cmd);
	}
	execvp(cmd, argv + optind);
	err(errno == ENOENT ? 127 : 126, "%s", cmd);
}
