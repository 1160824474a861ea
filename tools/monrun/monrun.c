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

static const char usage_line[] =
	"usage: monrun [-f] [-r rate] [-o file] [-c perf|thread|itimer] [-d depth] [--wall[=HZ]] [--] command [args ...]\n";

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
	"  -d depth    PCs kept per call stack, 0 to 512 (default 64; 0: flat profile only)\n"
	"  --wall[=HZ] also sample every thread HZ times a second of wall-clock time, whatever\n"
	"              it is doing (running, waiting for a CPU, blocked, stopped): 1 to 10000,\n"
	"              default 100; 0: off\n"
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
};

static enum elf_kind elf_kind(const char *path)
{
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
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		ElfW(Phdr) ph;
		off_t off = (off_t)eh.e_phoff + (off_t)i * eh.e_phentsize;
		if (pread(fd, &ph, sizeof ph, off) != (ssize_t)sizeof ph)
			break;
		if (ph.p_type == PT_INTERP)
			kind = ELF_DYNAMIC;
	}
done:
	close(fd);
	return kind;
}

/* libmon.so beside us (bin/../lib, as installed and as built), else the
 * configured library directory. */
static char *find_libmon(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
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
	char *p;
	if (asprintf(&p, "%s/libmon.so", MON_LIBDIR) < 0 || access(p, R_OK) != 0)
		return NULL;
	return p;
}

int main(int argc, char **argv)
{
	const char *rate = NULL, *out = NULL, *clock = NULL, *depth = NULL, *wall = NULL;
	int follow = 0, c;
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'H' },
		{ "version", no_argument, NULL, 'V' },
		{ "wall", optional_argument, NULL, 'W' },
		{ NULL, 0, NULL, 0 }
	};
	opterr = 0;	/* our own messages, named "monrun:" whatever argv[0] is */
	while ((c = getopt_long(argc, argv, "+:fr:o:c:d:h", longopts, NULL)) != -1) {
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
		case 'W':
			if (optarg == NULL)
				optarg = "100";
			if (mon_setting_problem("MONPROF_WALL", optarg) != NULL || !*optarg)
				errx(2, "--wall=%s: the wall-clock rate is 0 to 10000 samples per "
				     "second (0: off)", optarg);
			wall = optarg;
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
		    (wall && !strcmp(n, "MONPROF_WALL")))
			continue;	/* replaced by monrun */
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
	enum elf_kind kind = elf_kind(path);
	struct stat st;
	const char *secure = kind != NOT_ELF && stat(path, &st) == 0 ? runs_secure(path, &st) : NULL;
	if (secure != NULL)
		errx(126, "%s: %s: the dynamic loader ignores LD_PRELOAD for it, "
			  "so libmon cannot be loaded; link it with -lmon instead", path, secure);
	switch (kind) {
	case ELF_STATIC:
		errx(126, "%s: statically linked: there is no dynamic loader to preload "
			  "libmon into it; link it with -lmon instead", path);
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
	case NOT_ELF:
	case ELF_DYNAMIC:
		break;
	}
	free(path);

	char *lib = find_libmon();
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
	    (wall && setenv("MONPROF_WALL", wall, 1)))
		err(1, "setenv");
	execvp(cmd, argv + optind);
	err(errno == ENOENT ? 127 : 126, "%s", cmd);
}
