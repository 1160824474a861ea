/*
 * monrun — profile an unmodified program: run it with libmon.so preloaded
 * and whole-process profiling started before main().
 *
 *   monrun [-f] [-r RATE] [-o FILE] [-c CLOCK] [--] command [args...]
 *
 * monrun checks what it can before it starts anything (the command exists
 * and is executable, is dynamically linked — the loader preloads nothing into
 * a static program — and is not set-uid or set-gid — the loader ignores
 * LD_PRELOAD for those), puts its settings in the environment and execs the
 * command in its own process: the command's exit status, or the signal that
 * ended it, is monrun's.  libmon (lib/autostart.c) reads:
 *   MONPROF_AUTO=PID     start whole-process profiling in process PID
 *   MONPROF_FOLLOW=1     also in forked children, each writing its own file
 *   MONPROF_OUT=FILE     the file to write instead of mon.out / PROFDIR's
 *   MONPROF_RATE, MONPROF_CLOCK   the profiling clock (see profil.3)
 */
#include <elf.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MON_LIBDIR
#define MON_LIBDIR "/usr/local/lib"
#endif

static void usage(void)
{
	fprintf(stderr, "usage: monrun [-f] [-r rate] [-o file] [-c perf|thread|itimer] "
			"[--] command [args ...]\n");
	exit(2);
}

/* The command's path as execvp would find it; NULL if nowhere. */
static char *find_command(const char *cmd)
{
	if (strchr(cmd, '/'))
		return access(cmd, X_OK) == 0 ? strdup(cmd) : NULL;
	const char *path = getenv("PATH");
	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");
		char *full;
		if (asprintf(&full, "%.*s%s%s", (int)len, path, len ? "/" : "", cmd) < 0)
			return NULL;
		struct stat st;
		if (stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0)
			return full;
		free(full);
		path += len;
		if (*path == ':')
			path++;
	}
	return NULL;
}

/* 1: ELF with a program interpreter (dynamic); 0: static ELF; -1: not ELF
 * (a script: its interpreter is what runs, and is checked by the kernel). */
static int elf_is_dynamic(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	Elf64_Ehdr eh;
	int result = -1;
	if (pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh &&
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64) {
		result = 0;
		for (unsigned i = 0; i < eh.e_phnum; i++) {
			Elf64_Phdr ph;
			off_t off = (off_t)eh.e_phoff + (off_t)i * eh.e_phentsize;
			if (pread(fd, &ph, sizeof ph, off) != (ssize_t)sizeof ph)
				break;
			if (ph.p_type == PT_INTERP)
				result = 1;
		}
	}
	close(fd);
	return result;
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
	const char *rate = NULL, *out = NULL, *clock = NULL;
	int follow = 0, c;
	while ((c = getopt(argc, argv, "+fr:o:c:h")) != -1) {
		switch (c) {
		case 'f':
			follow = 1;
			break;
		case 'r': {
			char *end;
			unsigned long r = strtoul(optarg, &end, 10);
			if (*end || r < 1 || r > 100000)
				errx(2, "-r %s: the rate is 1 to 100000 samples per CPU-second", optarg);
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
		default:
			usage();
		}
	}
	if (optind >= argc)
		usage();
	const char *cmd = argv[optind];

	char *path = find_command(cmd);
	if (path == NULL)
		errx(127, "%s: command not found or not executable", cmd);
	struct stat st;
	if (stat(path, &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID)) &&
	    (st.st_uid != getuid() || st.st_gid != getgid() || getuid() == 0))
		errx(126, "%s: set-%cid program: the dynamic loader ignores LD_PRELOAD for it, "
			  "so libmon cannot be loaded; link it with -lmon instead",
		     path, (st.st_mode & S_ISUID) ? 'u' : 'g');
	if (elf_is_dynamic(path) == 0)
		errx(126, "%s: statically linked: libmon cannot be preloaded into it; "
			  "link it with -lmon instead", path);
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
	    (rate && setenv("MONPROF_RATE", rate, 1)) || (clock && setenv("MONPROF_CLOCK", clock, 1)))
		err(1, "setenv");
	execvp(cmd, argv + optind);
	err(errno == ENOENT ? 127 : 126, "%s", cmd);
}
