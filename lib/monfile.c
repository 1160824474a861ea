/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * monfile.c — where the profile is written, and writing it safely.
 *
 * The name follows System V's PROFDIR rule (monitor.3), decided once when
 * profiling starts:
 *   PROFDIR unset        mon.out in the working directory of that moment
 *   PROFDIR set, empty   no profiling and no file
 *   PROFDIR=DIR          DIR/PID.progname when the compiler's
 *                        instrumentation started profiling (cc -pg,
 *                        -finstrument-functions) or monrun did, and
 *                        DIR/PID.mon.out for an explicit monitor() /
 *                        monstartup() call
 *   MONPROF_OUT=FILE     (monrun -o) FILE, and FILE.PID in a fork child
 *   GMON_OUT_PREFIX=P    where PROFDIR and MONPROF_OUT are unset: P.PID in
 *                        every process, as glibc's gmon.c names gmon.out
 *                        (glibc gmon/gmon.c, write_gmon; empty is unset here, and P is made
 *                        absolute at start like a relative PROFDIR)
 * A set-user-ID or set-group-ID program (AT_SECURE) ignores PROFDIR and
 * GMON_OUT_PREFIX (glibc ignores the latter under __libc_enable_secure).  A
 * fork child that goes on profiling never takes its parent's file: with
 * PROFDIR unset it writes PID.progname / PID.mon.out in the same directory,
 * with PROFDIR its own pid is in the name anyway.  Relative directories are
 * made absolute at start, so a later chdir() does not move the file.
 *
 * The directory is also held open from the start (an O_PATH descriptor of
 * ours, in fdguard.c's range, close-on-exec) and the file is written
 * relative to it (openat, renameat, unlinkat): a program that chroots
 * itself, as daemons do, or renames the directory, still gets its profile
 * where it was decided.  If that descriptor could not be opened (the
 * directory did not exist yet, no descriptor left) or no longer names the
 * directory (the program put another file on its number), the path is used.
 *
 * Interval profiles (control.c, monrun --interval): each interval's file
 * is named after the profile's place, the process, the program, the
 * interval's sequence number and its start (UTC):
 *   DIR/PID.PROGRAM.iSEQ.YYYYMMDDTHHMMSSZ     (PROFDIR, or the working
 *                                             directory when it is unset)
 *   FILE.PID.PROGRAM.iSEQ.YYYYMMDDTHHMMSSZ    (monrun -o FILE)
 * SEQ has at least six digits, so that names sort in time order.  The
 * interval an exec ends, when the exec is followed, has ".execN" after its
 * time, as the whole-image file has: the new image's series starts at 1 in
 * the same process, maybe in the same second, and would take its name.
 *
 * Writing: a temporary file beside the target (NAME.tmp.PID.N, created
 * exclusively, mode 0644 less the umask: a daemon that set umask(0), as
 * nginx's master does, gets no world-writable profiles in the sticky
 * PROFDIR its workers share), the records, then rename(2): a
 * reader sees the old file or the whole new one, never half of one.  A
 * target that is no regular file (monrun -o /dev/null, /dev/stdout's link,
 * a FIFO) is written in a memfd instead, whose bytes then go into it,
 * through links (format/monout.h, monout_place_kind); no temporary is
 * made beside it.  On any
 * failure the temporary file is removed and one line goes to stderr with
 * write(2): "monprof: cannot write profile NAME: REASON".  Everything on the
 * write path is async-signal-safe: the names are formatted into buffers
 * allocated at setup.  The file's descriptor is moved at once above
 * mon_fd_floor() (fdguard.c) and held as ours while it is written, so the
 * program's close_range or dup2 cannot hit it and its own opens never see
 * a number of ours (for the instant of the openat itself the number is the
 * lowest free one, as every open's is).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "monrt.h"

static int ready;		/* setup done and profiling allowed */
static char *explicit_path;	/* monrun -o FILE (MONPROF_OUT); fork children: FILE.PID */
static int with_pid;		/* PID.base form (PROFDIR set) */
static int prefix_form;		/* explicit_path is GMON_OUT_PREFIX: every process adds .PID */
static char *dir;		/* absolute (or ".") directory, no trailing slash */
static char *base;		/* "mon.out" or the program's name */
static char *prog_name;		/* the program's name as this image started (mon_file_program) */
static pid_t setup_pid;		/* the process that decided the name */
static char *name_buf, *tmp_buf;	/* formatted at write time */
static char *last_buf;		/* the name of the last file written, "" before */
static size_t buf_len;
static unsigned tmp_seq;
static int exec_suffix;		/* N > 0: this image execs another: NAME.execN */
static int dir_fd = -1;		/* O_PATH descriptor of the file's directory, ours */
static dev_t dir_dev;		/* what dir_fd named when opened */
static ino_t dir_ino;
static size_t leaf_at;		/* names from mon_file_name: the file's name starts here */

/* fdguard's question about a number of ours (mon_fd_add_verifier): is
 * fd still the directory we hold?  Async-signal-safe (fstat). */
static int dir_still_held(int fd)
{
	int held = __atomic_load_n(&dir_fd, __ATOMIC_ACQUIRE);
	if (held < 0 || fd != held)
		return -1;
	struct stat st;
	return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_dev == dir_dev &&
	       st.st_ino == dir_ino;
}

/* Hold the directory of the file (its first leaf_at bytes of path) open. */
static void hold_dir(const char *path, size_t len)
{
	if (dir_fd >= 0) {
		/* Never close a number the program took over behind our back. */
		if (dir_still_held(dir_fd) == 1)
			syscall(SYS_close, dir_fd);
		mon_fd_drop(dir_fd);
		__atomic_store_n(&dir_fd, -1, __ATOMIC_RELEASE);
	}
	char *d = mon_alloc(len + 2);
	if (d == NULL)
		return;
	memcpy(d, path, len);
	d[len] = '\0';
	if (len == 0)
		strcpy(d, ".");
	int fd = open(d, O_PATH | O_DIRECTORY | O_CLOEXEC);
	mon_free(d);
	if (fd < 0)
		return;
	struct stat st;
	if (fstat(fd, &st) < 0 || (fd = mon_fd_raise(fd)) < 0) {
		if (fd >= 0)
			syscall(SYS_close, fd);
		return;
	}
	dir_dev = st.st_dev;
	dir_ino = st.st_ino;
	mon_fd_add_verifier(dir_still_held);
	mon_fd_adopt(fd);
	__atomic_store_n(&dir_fd, fd, __ATOMIC_RELEASE);
}

/* The held directory, if it is still the one opened; else AT_FDCWD (names
 * are absolute paths then). */
static int held_dir(void)
{
	struct stat st;
	if (dir_fd < 0 || fstat(dir_fd, &st) < 0 || st.st_dev != dir_dev || st.st_ino != dir_ino ||
	    !S_ISDIR(st.st_mode))
		return AT_FDCWD;
	return dir_fd;
}

static char *absolute(const char *d)
{
	if (d[0] == '/')
		return mon_strdup(d);
	/* getcwd into a buffer of our own: getcwd(NULL, 0) would call the
	 * program's malloc. */
	char *cwd = NULL;
	for (size_t cap = 256; cap <= ((size_t)1 << 20); cap *= 2) {
		cwd = mon_alloc(cap);
		if (cwd == NULL || getcwd(cwd, cap) != NULL || errno != ERANGE)
			break;
		mon_free(cwd);
		cwd = NULL;
	}
	if (cwd == NULL || cwd[0] != '/') {
		mon_free(cwd);
		return mon_strdup(d);
	}
	size_t n = strlen(cwd) + 1 + strlen(d) + 1;
	char *r = mon_alloc(n);
	if (r != NULL) {
		strcpy(r, cwd);
		if (strcmp(d, ".") != 0) {
			if (r[strlen(r) - 1] != '/')
				strcat(r, "/");
			strcat(r, d);
		}
	}
	mon_free(cwd);
	return r;
}

int mon_file_setup(int mode, const struct mon_file_inherited *inherited)
{
	const char *pd = getauxval(AT_SECURE) ? NULL : getenv("PROFDIR");
	const char *out = getauxval(AT_SECURE) ? NULL : mon_env("MONPROF_OUT");
	/* An image started by a followed exec (follow.c) goes on with the
	 * decision its process made first: same directory, same form, the
	 * same process owning the plain name. */
	pid_t root = inherited ? inherited->root : getpid();
	const char *inh_dir = inherited ? inherited->dir : NULL;
	int inh_with_pid = inherited ? inherited->with_pid : 0, inh = inherited != NULL;
	if (inh)
		pd = inh_with_pid ? inh_dir : NULL;
	else if (pd != NULL && pd[0] == '\0')
		return mon_fail(ECANCELED);
	if (prefix_form) {	/* decided anew: the prefix may be gone */
		mon_free(explicit_path);
		explicit_path = NULL;
		prefix_form = 0;
	}
	/* glibc's name, where System V's PROFDIR and monrun's -o are not set;
	 * a followed exec reads it again (mon_file_decision does not pass it
	 * on as MONPROF_OUT). */
	const char *prefix = getauxval(AT_SECURE) ? NULL : getenv("GMON_OUT_PREFIX");
	if ((out == NULL || out[0] == '\0') && pd == NULL && prefix != NULL && prefix[0] != '\0') {
		out = prefix;
		prefix_form = 1;
	}
	if (out != NULL && out[0] != '\0') {
		mon_free(explicit_path);
		explicit_path = absolute(out);
		if (explicit_path == NULL)
			return mon_fail(ENOMEM);
	}
	char *d = absolute(inh ? inh_dir : pd != NULL ? pd : ".");
	/* The program's name, kept from the first setup of this image: a
	 * server rewrites its argv[0] memory for its process title (nginx's
	 * "worker process", postgres's "postgres: checkpointer"), and glibc's
	 * program_invocation_short_name points into that memory.  A new image
	 * (exec) starts with none. */
	if (prog_name == NULL && program_invocation_short_name != NULL &&
	    program_invocation_short_name[0] != '\0')
		prog_name = mon_strdup(program_invocation_short_name);
	const char *b = MON_OUT;
	if (mode == MON_MODE_AUTO && prog_name != NULL)
		b = prog_name;
	char *bb = mon_strdup(b);
	/* Past dir and base: "/", a pid, ".iNNNNNN.YYYYMMDDTHHMMSSZ.execN",
	 * ".tmp.PID.N" (at most 90 bytes). */
	size_t n = d ? strlen(d) + strlen(b) + 112 : 0;
	if (explicit_path != NULL)
		n += strlen(explicit_path);
	char *nb = mon_alloc(n), *tb = mon_alloc(n), *lb = mon_alloc(n);
	if (d == NULL || bb == NULL || nb == NULL || tb == NULL || lb == NULL) {
		mon_free(d);
		mon_free(bb);
		mon_free(nb);
		mon_free(tb);
		mon_free(lb);
		return mon_fail(ENOMEM);
	}
	/* Trailing slashes would give "DIR//name": harmless, but untidy. */
	for (size_t k = strlen(d); k > 1 && d[k - 1] == '/'; k--)
		d[k - 1] = '\0';
	mon_free(dir);
	mon_free(base);
	mon_free(name_buf);
	mon_free(tmp_buf);
	mon_free(last_buf);
	lb[0] = '\0';
	last_buf = lb;
	dir = d;
	base = bb;
	name_buf = nb;
	tmp_buf = tb;
	buf_len = n;
	with_pid = pd != NULL;
	setup_pid = root;
	exec_suffix = 0;
	if (explicit_path != NULL) {
		const char *slash = strrchr(explicit_path, '/');
		leaf_at = slash ? (size_t)(slash - explicit_path) + 1 : 0;
		hold_dir(explicit_path, leaf_at ? (leaf_at > 1 ? leaf_at - 1 : 1) : 0);
	} else {
		leaf_at = strcmp(dir, "/") == 0 ? 1 : strlen(dir) + 1;
		hold_dir(dir, strlen(dir));
	}
	ready = 1;
	return 0;
}

void mon_file_decision(const char **d, int *wp, const char **out)
{
	*d = dir;
	*wp = with_pid;
	*out = prefix_form ? NULL : explicit_path;
}

void mon_file_set_exec_suffix(int n)
{
	exec_suffix = n;
}

int mon_file_exec_suffix(void)
{
	return exec_suffix;
}

const char *mon_file_last_written(void)
{
	return ready && last_buf[0] ? last_buf : NULL;
}

/* ".execN" when this image is about to exec another. */
static void put_suffix(char *b, size_t *at);

/* Append s to b at *at (room was reserved at setup). */
static void put(char *b, size_t *at, const char *s)
{
	size_t n = strlen(s);
	memcpy(b + *at, s, n);
	*at += n;
	b[*at] = '\0';
}

static void put_num(char *b, size_t *at, unsigned long v)
{
	char d[24];
	int i = (int)sizeof d - 1;
	d[i] = '\0';
	do {
		d[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v && i > 0);
	put(b, at, d + i);
}

const char *mon_file_name(void)
{
	if (!ready)
		return NULL;
	pid_t pid = getpid();
	size_t at = 0;
	name_buf[0] = '\0';
	if (explicit_path != NULL) {
		put(name_buf, &at, explicit_path);
		if (pid != setup_pid || prefix_form) {
			put(name_buf, &at, ".");
			put_num(name_buf, &at, (unsigned long)pid);
		}
		put_suffix(name_buf, &at);
		return name_buf;
	}
	put(name_buf, &at, dir);
	if (strcmp(dir, "/") != 0)
		put(name_buf, &at, "/");
	if (with_pid || pid != setup_pid) {
		put_num(name_buf, &at, (unsigned long)pid);
		put(name_buf, &at, ".");
		put(name_buf, &at, base);
	} else {
		put(name_buf, &at, MON_OUT);	/* PROFDIR unset: plain mon.out */
	}
	put_suffix(name_buf, &at);
	return name_buf;
}

static void put_suffix(char *b, size_t *at)
{
	if (exec_suffix > 0) {
		put(b, at, ".exec");
		put_num(b, at, (unsigned long)exec_suffix);
	}
}

/* One line on stderr: "monprof: cannot write profile NAME: REASON". */
static void complain(const char *name, int e)
{
	const char *why = strerrordesc_np(e);
	char num[24];
	if (why == NULL) {
		size_t at = 0;
		num[0] = '\0';
		put(num, &at, "error ");
		put_num(num, &at, (unsigned long)e);
		why = num;
	}
	static const char lead[] = "monprof: cannot write profile ";
	struct iovec v[5] = {
		{ (void *)lead, sizeof lead - 1 },
		{ (void *)name, strlen(name) },
		{ (void *)": ", 2 },
		{ (void *)why, strlen(why) },
		{ (void *)"\n", 1 },
	};
	ssize_t r;
	do
		r = writev(STDERR_FILENO, v, 5);
	while (r < 0 && errno == EINTR);
}

/* While the file is written, the signals that could end the process half
 * way (SIGTERM from a pool's terminate() while a worker writes at _exit,
 * SIGPIPE, SIGHUP...) and the program's handlers that could call _exit are
 * held back: blocked in this thread and delivered when the file is
 * complete and renamed.  Not blocked: the faults a write itself could
 * cause (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS: the kernel would
 * kill the process anyway), SIGPROF, SIGIO and the real-time signals (the
 * profiling clocks' ticks, which must not pile up pending).  A write past
 * RLIMIT_FSIZE raises SIGXFSZ, a write into a FIFO whose reader left
 * SIGPIPE, whose default actions would kill the program: one we caused is
 * discarded. */
/* The mask is changed by the system call itself: sigguard.c's sigprocmask
 * never blocks a tick signal for real, so restoring through it would
 * unblock SIGPROF in the runtime's own threads, which block every signal
 * (control.c, wall.c), and the itimer clock's process-wide ticks would then
 * sample the control thread's writes as the program's. */
static void raw_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	syscall(SYS_rt_sigprocmask, how, set, old, (size_t)(_NSIG / 8));
}

/* The signals a write of ours may raise itself: SIGXFSZ (RLIMIT_FSIZE),
 * SIGPIPE (a FIFO whose reader left, monout_copy_into).  Bit 0 and 1 of
 * *was_pending: pending already when the write began (the program's). */
static const int own_raised[] = { SIGXFSZ, SIGPIPE };

static void hold_signals(sigset_t *old, int *was_pending)
{
	sigset_t s, pend;
	sigfillset(&s);
	static const int keep[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS, SIGPROF, SIGIO };
	for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
		sigdelset(&s, keep[i]);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		sigdelset(&s, sig);
	raw_sigmask(SIG_BLOCK, &s, old);
	*was_pending = 0;
	if (sigpending(&pend) == 0)
		for (size_t i = 0; i < sizeof own_raised / sizeof own_raised[0]; i++)
			if (sigismember(&pend, own_raised[i]))
				*was_pending |= 1 << i;
}

/* Discard a SIGXFSZ that came during the write, and a SIGPIPE if the
 * write itself met EPIPE (broken_pipe): another's SIGPIPE sent meanwhile
 * (a kill) takes its course. */
static void release_signals(const sigset_t *old, int was_pending, int broken_pipe)
{
	sigset_t s, pend;
	for (size_t i = 0; i < sizeof own_raised / sizeof own_raised[0]; i++)
		if (!(was_pending & (1 << i)) && (own_raised[i] != SIGPIPE || broken_pipe) &&
		    sigpending(&pend) == 0 &&
		    sigismember(&pend, own_raised[i])) {
			struct timespec zero = { 0, 0 };
			sigemptyset(&s);
			sigaddset(&s, own_raised[i]);
			sigtimedwait(&s, NULL, &zero);
		}
	raw_sigmask(SIG_SETMASK, old, NULL);
}

static int write_file(const char *name, uint32_t flags,
		      int (*fill)(struct monout_writer *, void *), void *arg, int *err,
		      uint64_t *bytes);

/* "YYYYMMDDTHHMMSSZ" of t (seconds since the Epoch, UTC): the civil date
 * from the day number (the proleptic Gregorian calendar; no locale, no
 * time zone file: async-signal-safe). */
static void put_utc(char *b, size_t *at, uint64_t t)
{
	int64_t z = (int64_t)(t / 86400) + 719468;
	int64_t era = z / 146097, doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t y = yoe + era * 400, doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
	int64_t d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
	y += m <= 2;
	unsigned s = (unsigned)(t % 86400);
	unsigned v[6] = { (unsigned)y, (unsigned)m, (unsigned)d, s / 3600, s / 60 % 60, s % 60 };
	for (int i = 0; i < 6; i++) {
		if (i == 3)
			put(b, at, "T");
		int width = i == 0 ? 4 : 2;
		char dd[5];
		for (int k = width - 1; k >= 0; k--, v[i] /= 10)
			dd[k] = (char)('0' + v[i] % 10);
		dd[width] = '\0';
		put(b, at, dd);
	}
	put(b, at, "Z");
}

const char *mon_file_program(void)
{
	return prog_name != NULL ? prog_name : "?";
}

size_t mon_file_name_room(void)
{
	return ready ? buf_len : 0;
}

const char *mon_file_interval_name(char *out, size_t cap, uint64_t seq, uint64_t start_sec,
				   int exec_no)
{
	if (!ready || cap < buf_len)
		return NULL;
	size_t at = 0;
	out[0] = '\0';
	if (explicit_path != NULL) {
		put(out, &at, explicit_path);
		put(out, &at, ".");
	} else {
		put(out, &at, dir);
		if (strcmp(dir, "/") != 0)
			put(out, &at, "/");
	}
	put_num(out, &at, (unsigned long)getpid());
	put(out, &at, ".");
	put(out, &at, prog_name != NULL ? prog_name : base);
	put(out, &at, ".i");
	for (uint64_t p = 100000; p > 1 && seq < p; p /= 10)
		put(out, &at, "0");
	put_num(out, &at, (unsigned long)seq);
	put(out, &at, ".");
	put_utc(out, &at, start_sec);
	if (exec_no > 0) {
		put(out, &at, ".exec");
		put_num(out, &at, (unsigned long)exec_no);
	}
	return out;
}

int mon_file_remove(const char *name)
{
	int at_dir = held_dir();
	const char *rel = at_dir == AT_FDCWD ? name : name + leaf_at;
	return unlinkat(at_dir, rel, 0);
}

int mon_file_write(uint32_t flags, int (*fill)(struct monout_writer *, void *), void *arg,
		   int quiet)
{
	return mon_file_write_as(mon_file_name(), flags, fill, arg, quiet, NULL);
}

int mon_file_write_as(const char *name, uint32_t flags, int (*fill)(struct monout_writer *, void *),
		      void *arg, int quiet, uint64_t *bytes)
{
	int saved_errno = errno;
	if (name == NULL)
		return mon_fail(ENOENT);
	sigset_t old;
	int was_pending, e = 0;
	hold_signals(&old, &was_pending);
	int rc = write_file(name, flags, fill, arg, &e, bytes);
	release_signals(&old, was_pending, rc != 0 && e == EPIPE);
	if (rc == 0) {
		errno = saved_errno;
		return 0;
	}
	if (!quiet)
		complain(name, e);
	errno = e;
	return -1;
}

static int write_file(const char *name, uint32_t flags,
		      int (*fill)(struct monout_writer *, void *), void *arg, int *err,
		      uint64_t *bytes)
{
	int fd = -1, e = 0;
	struct monout_writer w;
	int at_dir = held_dir();
	/* Relative to the held directory: the names past it. */
	const char *rel_name = at_dir == AT_FDCWD ? name : name + leaf_at;
	const char *rel_tmp = NULL;
	/* Into a device, FIFO or link (monrun -o /dev/null): written in a
	 * memfd, then copied into it; no temporary beside it, where the user
	 * may not create one (/dev). */
	int into = monout_place_kind(at_dir, rel_name);
	if (into < 0) {
		e = errno;
		goto fail;
	}
	if (into == MONOUT_PLACE_INTO)
		fd = (int)syscall(SYS_memfd_create, "monprof", MFD_CLOEXEC);
	for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
		size_t at = 0;
		tmp_buf[0] = '\0';
		put(tmp_buf, &at, name);
		put(tmp_buf, &at, ".tmp.");
		put_num(tmp_buf, &at, (unsigned long)getpid());
		put(tmp_buf, &at, ".");
		put_num(tmp_buf, &at, __atomic_add_fetch(&tmp_seq, 1, __ATOMIC_RELAXED));
		rel_tmp = at_dir == AT_FDCWD ? tmp_buf : tmp_buf + leaf_at;
		fd = openat(at_dir, rel_tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		e = errno;
		goto fail;
	}
	/* Up among ours (no room there: the number it has). */
	int high = fcntl(fd, F_DUPFD_CLOEXEC, mon_fd_floor());
	if (high >= 0) {
		mon_fd_adopt(high);
		syscall(SYS_close, fd);
		fd = high;
	}
	struct stat st;
	if (monout_begin(&w, fd, flags) < 0 || fill(&w, arg) < 0 || monout_end(&w) < 0 ||
	    (into == MONOUT_PLACE_INTO && monout_copy_into(fd, at_dir, rel_name, 0644) < 0)) {
		e = errno;
		syscall(SYS_close, fd);
		if (high >= 0)
			mon_fd_drop(high);
		if (rel_tmp != NULL)
			unlinkat(at_dir, rel_tmp, 0);
		goto fail;
	}
	if (bytes != NULL)
		*bytes = fstat(fd, &st) == 0 ? (uint64_t)st.st_size : 0;
	if (syscall(SYS_close, fd) < 0 && into == MONOUT_PLACE_RENAME) {
		e = errno;
		if (high >= 0)
			mon_fd_drop(high);
		unlinkat(at_dir, rel_tmp, 0);
		goto fail;
	}
	if (high >= 0)
		mon_fd_drop(high);
	if (into == MONOUT_PLACE_INTO) {
		if (rel_tmp != NULL)
			unlinkat(at_dir, rel_tmp, 0);	/* no memfd: a temporary was the source */
	} else if (renameat(at_dir, rel_tmp, at_dir, rel_name) < 0) {
		e = errno;
		unlinkat(at_dir, rel_tmp, 0);
		goto fail;
	}
	if (name != last_buf) {
		size_t k = 0;
		last_buf[0] = '\0';
		put(last_buf, &k, name);
	}
	return 0;
fail:
	*err = e;
	return -1;
}
