/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * follow.c — exec is followed, as perf(1) follows it: in whole-process mode
 * (monrun, cc -pg / -finstrument-functions programs) a process that
 * replaces its program by exec(2) goes on being profiled in the new image.
 *
 * How: libmon's exec functions (exec.c) give the new image an environment
 * that preloads libmon.so and starts whole-process profiling in it
 * (autostart.c), built on the stack (exec may follow vfork, where nothing
 * may be allocated or changed):
 *   LD_PRELOAD        libmon.so's absolute path first, the program's own
 *                     entries after it
 *   MONPROF_AUTO      the pid the new image will have (ours), or
 *                     ppid:PID for a posix_spawn child (its parent's pid)
 *   MONPROF_FOLLOW    1 if this image profiles its fork children, else 0
 *   MONPROF_OUT       the -o file, absolute
 *   MONPROF_RATE, MONPROF_CLOCK, MONPROF_SIGNAL, MONPROF_SNAPSHOT,
 *   MONPROF_STACK_DEPTH, MONPROF_STACK_TABLE, MONPROF_WALL, MONPROF_ARCS,
 *   MONPROF_INTERVAL, MONPROF_KEEP, MONPROF_MAX_BYTES, MONPROF_DORMANT,
 *   MONPROF_CONTROL
 *                     the settings this image started with
 *   MONPROF_EXEC      the state the new image continues: netstrings
 *                     (LEN:BYTES,) holding the root pid (the process whose
 *                     file has the plain name), PROFDIR in effect (0/1),
 *                     the directory decided at the start, the new image's
 *                     number in its process (1, 2, ...), the process's
 *                     user and system CPU at the exec and the exec'ing
 *                     thread's ("USER.SYS.TUSER.TSYS", microseconds: the
 *                     kernel's counts go on across exec, and what the
 *                     earlier images used is in their own profiles, not in
 *                     this one's RUN, THREADS or start-up: runfacts.c), then
 *                     for each
 *                     earlier image of the process its executable and the
 *                     profile it wrote ("" if none)
 * The new image removes all of them from its environment before main()
 * (autostart.c), so the program sees the environment it was given and
 * what it executes in turn is given a fresh one by us again.
 *
 * Names: the image that execs writes its profile first, to its usual name
 * with ".execN" added (N its number in the process: mon.out.exec1,
 * DIR/PID.sh.exec1, FILE.exec1); the image that ends the process writes
 * the usual name.  Each file's IMAGES record lists the process's images
 * (monout.h), so prof can say which ran and which one it shows.
 *
 * Not followed: profiling by an explicit monitor()/monstartup()/profil()
 * call (profil(2): "turned off when an exec is executed"); a libmon that is
 * not a shared object (libmon.a linked in: there is nothing to preload);
 * fork and vfork children without monrun -f.  A new image that the loader
 * will not preload into (static, set-id) runs unprofiled and sees these
 * variables; the exec'ing image's FACTS say so (MONOUT_FACT_NEXT_STATIC,
 * _SETID: the file is looked at before the exec), and prof tells.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "monrt.h"
#include "objects.h"
#include "runfacts.h"

struct image {
	char *path, *file;
};

static char *libmon_path;	/* absolute path of the libmon.so we are in; NULL: cannot follow */
static pid_t root_pid;		/* the process with the plain file name */
static int inherited;		/* this image was started by a followed exec */
static int inh_with_pid;
static char *inh_dir;
static int image_no = 1;	/* this image's number in its process */
static struct image *chain;	/* earlier images of this process */
static size_t nchain;
static char *self_exe;		/* this image's executable */
static char *settings[13];	/* "NAME=value" as found at start, NULL if unset */
static const char *const setting_names[13] = { "MONPROF_RATE", "MONPROF_CLOCK",
					      "MONPROF_SIGNAL", "MONPROF_SNAPSHOT",
					      "MONPROF_STACK_DEPTH", "MONPROF_STACK_TABLE",
					      "MONPROF_WALL", "MONPROF_ARCS", "MONPROF_INTERVAL", "MONPROF_KEEP",
					      "MONPROF_MAX_BYTES", "MONPROF_DORMANT",
					      "MONPROF_CONTROL" };
/* Variables we set for the new image (and drop from the one given). */
static const char *const ours[] = { "MONPROF_AUTO=", "MONPROF_FOLLOW=", "MONPROF_OUT=",
				    "MONPROF_RATE=", "MONPROF_CLOCK=", "MONPROF_SIGNAL=",
				    "MONPROF_SNAPSHOT=", "MONPROF_STACK_DEPTH=",
				    "MONPROF_STACK_TABLE=", "MONPROF_WALL=", "MONPROF_ARCS=", "MONPROF_EXEC=",
				    "MONPROF_INTERVAL=", "MONPROF_KEEP=", "MONPROF_MAX_BYTES=",
				    "MONPROF_DORMANT=", "MONPROF_CONTROL=", "LD_PRELOAD=" };

/* At exec: what this image wrote (for the IMAGES record) and runs next. */
static char written[PATH_MAX + 64];
static char next_path[PATH_MAX];
static int ending;		/* 1 between before_exec and a failed exec */

/* ---- reading the inherited state --------------------------------------- */

/* Next netstring of s at *at: its bytes and length; 0 or -1 if malformed. */
static int netstring(const char *s, size_t *at, const char **out, size_t *len)
{
	const char *p = s + *at;
	if (*p < '0' || *p > '9')
		return -1;
	char *end;
	unsigned long n = strtoul(p, &end, 10);
	if (*end != ':' || n > strlen(end + 1) || end[1 + n] != ',')
		return -1;
	*out = end + 1;
	*len = n;
	*at = (size_t)(end + 1 + n + 1 - s);
	return 0;
}

static char *dupn(const char *s, size_t n)
{
	char *d = mon_alloc(n + 1);
	if (d != NULL) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/* Parse MONPROF_EXEC; on any damage the image starts a chain of its own. */
static void read_inherited(const char *v)
{
	size_t at = 0, len;
	const char *f;
	char num[24];
	long root = 0, wp = 0, no = 0;
	if (v == NULL || *v == '\0')
		return;
	uint64_t cpu[4] = { 0, 0, 0, 0 };
	for (int k = 0; k < 5; k++) {
		if (netstring(v, &at, &f, &len) < 0)
			return;
		if (k == 2) {
			mon_free(inh_dir);
			inh_dir = dupn(f, len);
			continue;
		}
		if (k == 4) {	/* USER.SYS.TUSER.TSYS, 20 digits each */
			char c[88], *end = c;
			if (len >= sizeof c)
				return;
			memcpy(c, f, len);
			c[len] = '\0';
			for (int i = 0; i < 4; i++) {
				cpu[i] = strtoull(end, &end, 10);
				if (*end != '.')
					break;
				end++;
			}
			continue;
		}
		if (len == 0 || len >= sizeof num)
			return;
		memcpy(num, f, len);
		num[len] = '\0';
		long x = strtol(num, NULL, 10);
		if (k == 0)
			root = x;
		else if (k == 1)
			wp = x;
		else
			no = x;
	}
	if (root <= 0 || no < 1 || inh_dir == NULL || inh_dir[0] != '/')
		return;
	while (v[at] != '\0') {
		const char *p, *fl;
		size_t pl, fll;
		if (netstring(v, &at, &p, &pl) < 0 || netstring(v, &at, &fl, &fll) < 0)
			break;
		struct image *nc = mon_realloc(chain, (nchain + 1) * sizeof *chain);
		if (nc == NULL)
			break;
		chain = nc;
		chain[nchain].path = dupn(p, pl);
		chain[nchain].file = dupn(fl, fll);
		if (chain[nchain].path == NULL || chain[nchain].file == NULL)
			break;
		nchain++;
	}
	root_pid = (pid_t)root;
	inh_with_pid = wp != 0;
	image_no = (int)no;
	inherited = 1;
	mon_facts_exec_cpu(cpu, cpu + 2);
}

void mon_follow_setup(void)
{
	static int done;
	if (done)
		return;
	done = 1;
	root_pid = getpid();
	read_inherited(mon_env("MONPROF_EXEC"));
	for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++) {
		const char *v = mon_env(setting_names[i]);
		if (v != NULL && *v != '\0') {
			size_t n = strlen(setting_names[i]);
			settings[i] = mon_alloc(n + 1 + strlen(v) + 1);
			if (settings[i] != NULL) {
				memcpy(settings[i], setting_names[i], n);
				settings[i][n] = '=';
				strcpy(settings[i] + n + 1, v);
			}
		}
	}
	self_exe = mon_self_exe();
	/* The libmon.so this code is in, if it is one. */
	Dl_info di;
	if (dladdr((void *)mon_follow_setup, &di) != 0 && di.dli_fname != NULL) {
		const char *slash = strrchr(di.dli_fname, '/');
		const char *base = slash ? slash + 1 : di.dli_fname;
		if (strncmp(base, "libmon.so", 9) == 0)
		{
			/* Into a buffer of ours: realpath(x, NULL) would call the
			 * program's malloc. */
			char rp[PATH_MAX];
			libmon_path = realpath(di.dli_fname, rp) ? mon_strdup(rp) : NULL;
		}
	}
}

int mon_follow_inherited(pid_t *root, const char **dir, int *with_pid)
{
	if (!inherited)
		return 0;
	*root = root_pid;
	*dir = inh_dir;
	*with_pid = inh_with_pid;
	return 1;
}

int mon_follow_possible(void)
{
	return libmon_path != NULL;
}

int mon_follow_image_no(void)
{
	return image_no;
}

void mon_follow_fork_child(void)
{
	/* A fork child is a process of its own: its first image is the copy
	 * of ours (that file's number 1). */
	for (size_t i = 0; i < nchain; i++) {
		mon_free(chain[i].path);
		mon_free(chain[i].file);
	}
	mon_free(chain);
	chain = NULL;
	nchain = 0;
	image_no = 1;
	ending = 0;
}

/* ---- at exec ------------------------------------------------------------ */

static size_t copy(char *d, const char *s, size_t cap)
{
	size_t n = strlen(s);
	if (n >= cap)
		n = cap - 1;
	memcpy(d, s, n);
	d[n] = '\0';
	return n;
}

/* The file execvpe(3) runs for name, which has no slash: the first regular
 * executable file of that name in PATH (glibc's default path when PATH is
 * unset; an empty entry is the working directory), into buf (cap bytes);
 * 0 if none. */
static int search_path(const char *name, char *buf, size_t cap)
{
	const char *p = getenv("PATH");
	if (p == NULL)
		p = "/bin:/usr/bin";
	size_t nl = strlen(name);
	while (*p) {
		const char *e = strchr(p, ':');
		size_t dl = e ? (size_t)(e - p) : strlen(p);
		struct stat st;
		if (dl + nl + 2 <= cap) {
			memcpy(buf, dl ? p : ".", dl ? dl : 1);
			size_t at = dl ? dl : 1;
			buf[at++] = '/';
			memcpy(buf + at, name, nl + 1);
			if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
				return 1;
		}
		p += dl + (e != NULL);
	}
	return 0;
}

/* Whether the program in regular file fd (positioned anywhere: read with
 * pread) will run in secure-execution mode, where the loader ignores a
 * LD_PRELOAD entry with a slash (ld.so(8)): its set-user-ID bit (or
 * set-group-ID with group execute) gives an effective ID other than this
 * process's real one, or the process's own effective IDs already differ
 * (the kernel's AT_SECURE: fs/exec.c, security/commoncap.c).  The bits
 * count unless the file's mount is nosuid or the process has no_new_privs
 * (prctl(2) PR_SET_NO_NEW_PRIVS).  File capabilities are not looked at. */
static int secure_exec(int fd, const struct stat *st)
{
	uid_t euid = geteuid();
	gid_t egid = getegid();
	struct statvfs fs;
	int bits = fstatvfs(fd, &fs) == 0 && !(fs.f_flag & ST_NOSUID) &&
		   prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1;
	if (bits && (st->st_mode & S_ISUID))
		euid = st->st_uid;
	if (bits && (st->st_mode & S_ISGID) && (st->st_mode & S_IXGRP))
		egid = st->st_gid;
	return euid != getuid() || egid != getgid();
}

/* Why the loader will not preload libmon into the program an exec runs
 * (path as how names it: MON_EXEC_*, with fd), as MONOUT_FACT_NEXT_* (0:
 * it will, or the file cannot tell: a script's interpreter is the kernel's
 * to find, and set-id bits on a script are ignored): an ELF executable
 * without PT_INTERP is static (no dynamic loader runs in it: ld.so(8));
 * one run in secure-execution mode (secure_exec) ignores LD_PRELOAD.  The
 * file is opened without blocking (a FIFO's open waits for a writer), and
 * only a regular file is read. */
static uint32_t unreachable(const char *path, int how, int fd)
{
	char file[PATH_MAX];
	int own = -1;
	if (how == MON_EXEC_FD)
		own = -2;	/* fd itself, not ours to close */
	else if (how == MON_EXEC_AT && (path == NULL || path[0] == '\0'))
		own = -2;
	else if (path == NULL || path[0] == '\0')
		return 0;
	else if (how == MON_EXEC_SEARCH && strchr(path, '/') == NULL) {
		if (!search_path(path, file, sizeof file))
			return 0;
		own = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	} else {
		own = openat(how == MON_EXEC_AT ? fd : AT_FDCWD, path,
			     O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	}
	if (own == -1)
		return 0;
	int f = own == -2 ? fd : own;
	uint32_t why = 0;
	struct stat st;
	ElfW(Ehdr) eh;
	if (fstat(f, &st) == 0 && S_ISREG(st.st_mode) &&
	    pread(f, &eh, sizeof eh, 0) == (ssize_t)sizeof eh &&
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0) {
		if (secure_exec(f, &st))
			why |= MONOUT_FACT_NEXT_SETID;
		int interp = 0, read_all = eh.e_phentsize == sizeof(ElfW(Phdr)) && eh.e_phnum > 0 &&
					   eh.e_phnum < 4096;
		for (unsigned i = 0; read_all && i < eh.e_phnum && !interp; i++) {
			ElfW(Phdr) ph;
			read_all = pread(f, &ph, sizeof ph, (off_t)(eh.e_phoff + i * sizeof ph)) ==
				   (ssize_t)sizeof ph;
			interp = read_all && ph.p_type == PT_INTERP;
		}
		/* (ET_DYN without PT_INTERP too: a static-pie program, or the
		 * dynamic loader itself run as a program) */
		if (read_all && !interp)
			why |= MONOUT_FACT_NEXT_STATIC;
	}
	if (own >= 0)
		close(own);
	return why;
}

void mon_follow_looks_at(const char *path, int how, int fd)
{
	mon_facts_next_image(unreachable(path, how, fd));
}

void mon_follow_ending(const char *path, const char *file)
{
	ending = 1;
	copy(next_path, path ? path : "", sizeof next_path);
	copy(written, file ? file : "", sizeof written);
}

void mon_follow_failed(int keep_file)
{
	if (ending && written[0] != '\0' && !keep_file)
		unlink(written);	/* the exec failed: this image goes on */
	mon_facts_next_image(0);
	ending = 0;
	written[0] = '\0';
}

int mon_follow_put(struct monout_writer *w)
{
	if (nchain == 0 && !ending)
		return 0;	/* one image: no record */
	struct monout_image v[nchain + 2];
	size_t n = 0;
	for (size_t i = 0; i < nchain; i++, n++) {
		v[n].role = MONOUT_IMAGE_EARLIER;
		v[n].path = chain[i].path;
		v[n].path_len = (uint32_t)strlen(chain[i].path);
		v[n].file = chain[i].file;
		v[n].file_len = (uint32_t)strlen(chain[i].file);
	}
	v[n].role = MONOUT_IMAGE_THIS;
	v[n].path = self_exe ? self_exe : "";
	v[n].path_len = (uint32_t)strlen(v[n].path);
	v[n].file = "";
	v[n].file_len = 0;
	n++;
	if (ending) {
		v[n].role = MONOUT_IMAGE_NEXT;
		v[n].path = next_path;
		v[n].path_len = (uint32_t)strlen(next_path);
		v[n].file = "";
		v[n].file_len = 0;
		n++;
	}
	return monout_put_images(w, v, n);
}

/* Decimal digits of v into b (no NUL); returns their number. */
static size_t digits(char *b, unsigned long v)
{
	char t[24];
	size_t n = 0;
	do
		t[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	for (size_t i = 0; i < n; i++)
		b[i] = t[n - 1 - i];
	return n;
}

/* Append s[0..n) to b at *at, or only count when b is NULL. */
static void put(char *b, size_t *at, const char *s, size_t n)
{
	if (b != NULL)
		memcpy(b + *at, s, n);
	*at += n;
}

static void put_net(char *b, size_t *at, const char *s)
{
	char num[24];
	size_t n = strlen(s);
	put(b, at, num, digits(num, n));
	put(b, at, ":", 1);
	put(b, at, s, n);
	put(b, at, ",", 1);
}

static void put_net_num(char *b, size_t *at, unsigned long v)
{
	char num[24];
	num[digits(num, v)] = '\0';
	put_net(b, at, num);
}

/* The strings of the new environment's additions, written back to back
 * (each NUL-terminated) at b, or only counted. */
static size_t additions(char *b, char *const envp[], int kind, int follow)
{
	size_t at = 0;
	char num[24];
	const char *pre = NULL;
	for (size_t i = 0; envp != NULL && envp[i] != NULL; i++)
		if (strncmp(envp[i], "LD_PRELOAD=", 11) == 0)
			pre = envp[i] + 11;
	put(b, &at, "LD_PRELOAD=", 11);
	put(b, &at, libmon_path, strlen(libmon_path));
	if (pre != NULL && *pre != '\0') {
		put(b, &at, ":", 1);
		put(b, &at, pre, strlen(pre));
	}
	put(b, &at, "", 1);
	/* The pid the new image will have; a spawned child's is not known
	 * yet: "ppid:PID" names it by its parent, us. */
	put(b, &at, "MONPROF_AUTO=", 13);
	if (kind == MON_FOLLOW_SPAWN)
		put(b, &at, "ppid:", 5);
	put(b, &at, num, digits(num, (unsigned long)getpid()));
	put(b, &at, "", 1);
	/* Fork children followed or not, as in this image (a cc -pg program
	 * follows them without MONPROF_FOLLOW). */
	put(b, &at, follow ? "MONPROF_FOLLOW=1" : "MONPROF_FOLLOW=0", 17);
	for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++)
		if (settings[i] != NULL)
			put(b, &at, settings[i], strlen(settings[i]) + 1);
	/* MONPROF_OUT as decided (absolute); MONPROF_EXEC: root, PROFDIR
	 * mode, directory, next number, chain. */
	const char *dir, *out;
	int with_pid;
	mon_file_decision(&dir, &with_pid, &out);
	if (out != NULL) {
		put(b, &at, "MONPROF_OUT=", 12);
		put(b, &at, out, strlen(out) + 1);
	}
	put(b, &at, "MONPROF_EXEC=", 13);
	put_net_num(b, &at, (unsigned long)root_pid);
	put_net_num(b, &at, (unsigned long)with_pid);
	put_net(b, &at, dir ? dir : "/");
	if (kind == MON_FOLLOW_SPAWN) {
		put_net_num(b, &at, 1);		/* a new process: its first image */
		put_net(b, &at, "0.0.0.0");	/* its CPU from 0 */
	} else if (kind == MON_FOLLOW_VFORK) {
		/* Our memory is the parent's: its chain is not this process's.
		 * This process's first image wrote nothing. */
		put_net_num(b, &at, 2);
		put_net(b, &at, "0.0.0.0");	/* the child's CPU, from the vfork */
		put_net(b, &at, self_exe ? self_exe : "");
		put_net(b, &at, "");
	} else {
		put_net_num(b, &at, (unsigned long)image_no + 1);
		/* The process's CPU and this thread's (it goes on as the new
		 * image's first thread), 20 digits each, whatever the value:
		 * the size pass (b NULL) and the writing pass read the CPU
		 * apart. */
		uint64_t us[4] = { 0, 0, 0, 0 };
		mon_facts_process_cpu(us);
		mon_facts_own_cpu(&us[2], &us[3]);
		char cpu[84];
		for (int i = 0; i < 4; i++) {
			for (int d = 19; d >= 0; d--, us[i] /= 10)
				cpu[i * 21 + d] = (char)('0' + us[i] % 10);
			cpu[i * 21 + 20] = '.';
		}
		cpu[83] = '\0';
		put_net(b, &at, cpu);
		for (size_t i = 0; i < nchain; i++) {
			put_net(b, &at, chain[i].path);
			put_net(b, &at, chain[i].file);
		}
		put_net(b, &at, self_exe ? self_exe : "");
		put_net(b, &at, written);
	}
	put(b, &at, "", 1);
	return at;
}

static int is_ours(const char *e)
{
	for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++)
		if (strncmp(e, ours[i], strlen(ours[i])) == 0)
			return 1;
	return 0;
}

size_t mon_follow_env_size(char *const envp[], int kind, int follow)
{
	if (libmon_path == NULL)
		return 0;
	size_t n = 0;
	for (size_t i = 0; envp != NULL && envp[i] != NULL; i++)
		n++;
	return (n + 16) * sizeof(char *) + additions(NULL, envp, kind, follow) + 16;
}

char **mon_follow_env_build(char *const envp[], int kind, int follow, void *buf, size_t size)
{
	size_t n = 0;
	for (size_t i = 0; envp != NULL && envp[i] != NULL; i++)
		n++;
	char **v = buf;
	char *s = (char *)buf + (n + 16) * sizeof(char *);
	size_t len = additions(s, envp, kind, follow);
	if ((n + 16) * sizeof(char *) + len > size)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!is_ours(envp[i]))
			v[k++] = envp[i];
	for (char *p = s; p < s + len; p += strlen(p) + 1)
		v[k++] = p;
	v[k] = NULL;
	return v;
}
