/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * control.c — the runtime's control thread: interval profiles
 * (MONPROF_INTERVAL, monrun --interval) and the control socket monctl(1)
 * talks to (on, off, snapshot, status).
 *
 * The thread is the runtime's own (named "monprof-ctl"), made as wall.c's
 * sampler is: the C library's pthread_create (the one after libmon's, so
 * the CPU clocks' wrapper never arms it), every signal blocked
 * (pthread_attr_setsigmask_np(3)), 256 KiB of stack.  Its tid is
 * mon_control_tid: threads.c never arms a CPU clock in it, runfacts.c
 * never lists it as the program's; its CPU (CLOCK_THREAD_CPUTIME_ID) goes
 * in each interval's INTERVAL record and in `monctl status`.  It exists
 * when whole-process profiling runs (monrun, cc -pg, -finstrument-
 * functions) and MONPROF_INTERVAL is set, MONPROF_CONTROL is 1 (monrun
 * --control) or MONPROF_DORMANT is 1; the socket too with those, unless
 * MONPROF_CONTROL is 0 (then only the intervals' thread): never
 * by default, because pthread_create allocates the thread's DTV with the
 * program's calloc, before main when profiling starts there.
 * It sleeps in poll(2) on its socket: for the next interval's end, a
 * tenth of a second while sampling (to grow the call-stack table,
 * stacks.c's mon_stacks_grow), forever when nothing is sampled and no
 * interval runs.
 *
 * Intervals.  Every MONPROF_INTERVAL seconds (CLOCK_MONOTONIC) the thread
 * cuts one: under monitor.c's writer lock it takes the histograms' counts
 * (atomic exchange with zero, bin by bin: a tick adding meanwhile counts in
 * the next interval), moves the call stacks to a fresh table
 * (mon_stacks_cut_begin: a quiesce, never a lock a tick waits for), writes
 * the file with the counters less those of the last file (monitor.c's
 * fill; the wall sampler's samples too: wall.c's mon_wall_put, each count
 * less the files cut so far; the call counts: mcount.c's mon_count_cut,
 * each arc's count less the last file's reading), and renames it into place (monfile.c: temporary name, rename(2)).
 * The program's threads go on sampling throughout: what a cut costs them
 * is the quiesce (waiting for ticks in flight, not stopping new ones) and
 * the cache lines of the bins exchanged (bench/interval_pause.sh measures
 * the longest pause a spinning thread sees).  Each file is a whole mon.out
 * (objects, histograms, stacks, facts and threads of that interval, an
 * INTERVAL record: mon.out(5)); named by monfile.c's rule
 * (PID.PROGRAM.iSEQ.YYYYMMDDTHHMMSSZ).  Every other write of the profile
 * goes here too (monitor.c's mon_write_profile calls write_last): at exit,
 * exec, a fatal signal or monitor(0) the last interval is written (flag
 * MONOUT_INTERVAL_LAST) and no mon.out; a snapshot (monctl snapshot,
 * mon_write(), the MONPROF_SNAPSHOT signal) cuts the interval short (from
 * a signal handler: the thread cuts within a tenth of a second).  So a
 * SIGKILL or a raw exit_group loses at most the interval in progress.
 *
 * Rotation (MONPROF_KEEP, MONPROF_MAX_BYTES): the files this process wrote
 * are remembered (sequence number, start, size; at most RING files) and
 * after each write the oldest are removed (unlinkat relative to the held
 * directory) until at most KEEP remain and their bytes are within
 * MAX_BYTES; the newest is never removed.
 *
 * The control socket: a listening AF_UNIX stream socket in the abstract
 * namespace (unix(7)), named "\0monprof.PID" (no file anywhere, gone with
 * the process), close-on-exec, moved above mon_fd_floor() and adopted by
 * fdguard.c (the program cannot close it, dup2 onto it moves... it is
 * verified by its name: getsockname).  A connection is accepted
 * (accept4(SOCK_CLOEXEC), moved up too), its peer's credentials read
 * (SO_PEERCRED): a peer whose user ID is neither the process's real nor
 * effective one nor root is told "error: permission denied" and
 * dropped.  One command line ("on", "off", "snapshot", "status"; at most
 * 64 bytes, within one second), one reply (lines, the first "ok ..." or
 * "error ..."), then the connection is closed.  on/off are moncontrol(3);
 * a dormant start (MONPROF_DORMANT=1: monitor.c sets up everything but
 * starts no clock) is switched on by the first "on".
 *
 * fork: the thread does not come along.  A followed child (monrun -f)
 * gets its own thread, socket and series (monitor.c's fork hook calls
 * started); any child closes the parent's socket first (a pthread_atfork
 * child handler, and started itself: whichever runs first).  exec: the
 * last interval is written by the exec hook; if the exec fails, the series
 * goes on.  exit: the last interval is written at exit; the thread ends
 * with the process.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <stddef.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "monrt.h"
#include "runfacts.h"
#include "settings.h"
#include "stacks.h"
#include "wall.h"

#define RING 65536u		/* interval files remembered for rotation */
#define GROW_CHECK_NS 100000000ull	/* while sampling: the stack table's check */
#define ALONE_CHECK_NS 1000000000ull	/* at least this often: are ours the only threads left? */
#define CMD_MAX 64

static struct {
	unsigned interval_s;	/* 0: no intervals */
	unsigned keep;		/* 0: no bound on the count */
	unsigned long long max_bytes;	/* 0: no bound on the bytes */
	int control;		/* the socket */
} cfg;

static pid_t thread_pid;	/* the process whose thread runs (0: none) */
static int sock_fd = -1;
static pid_t sock_pid;		/* the process that made sock_fd */
static char sock_name[40];	/* abstract name, sock_name[0] == '\0' */
static socklen_t sock_len;

/* The series (guarded by cut_owner). */
static pid_t cut_owner;		/* tid cutting an interval, 0 if none */
static uint64_t seq;		/* the last interval written */
static uint64_t start_mono, start_real;	/* the interval in progress began */
static int ended;		/* the last interval was written: no more */
static int cut_asked;		/* a snapshot signal asked for a cut */
static uint32_t removed;	/* files removed by rotation */
static uint32_t unwritten;	/* intervals whose file could not be written */
static uint32_t failing;	/* of them, since the last file written */
static uint64_t retry_mono;	/* after a failed write: no cut before this */
static char *name_thread, *name_other;	/* name buffers: the thread's, everyone else's */
static size_t name_cap;

/* Costs, for the INTERVAL record and status. */
static uint64_t own_cpu_usec;	/* the thread's CPU, updated by it */
static uint64_t cut_longest_ns, cut_last_ns;	/* a cut's wall-clock time */

static uint64_t *watch_page;
static pid_t watch_pid;	/* the process the watcher watches */

/* The watcher's page, or NULL in a fork child: the page is MAP_SHARED and
 * a child inherits it, but the watcher watches its parent only (a child's
 * last write must not tell it the parent's was done).  getpid(2) is
 * async-signal-safe. */
static uint64_t *watch_mine(void)
{
	return watch_page != NULL && watch_pid == getpid() ? watch_page : NULL;
}

static void watch_set(uint64_t v)
{
	uint64_t *w = watch_mine();
	if (w != NULL)
		__atomic_store_n(&w[0], v, __ATOMIC_RELEASE);
}

static void wrote(void)
{
	watch_set(1);
}


struct written {
	uint64_t seq, start_sec, bytes;
	int exec_no;		/* its name's .execN (an exec's cut), 0 none */
};
static struct written *ring;	/* RING entries, mapped at the first write with rotation */
static unsigned ring_first, ring_n;
static uint64_t ring_bytes;

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;
	if (clock_gettime(c, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static unsigned setting(const char *name)
{
	const char *v = mon_env(name);
	return v && *v ? (unsigned)strtoul(v, NULL, 10) : 0;
}

/* Read the settings (monitor.c's setup: settings.c checked them). */
static void configure(void)
{
	cfg.interval_s = setting("MONPROF_INTERVAL");
	cfg.keep = setting("MONPROF_KEEP");
	cfg.max_bytes = 0;
	const char *mb = mon_env("MONPROF_MAX_BYTES");
	if (mb != NULL && *mb)
		mon_parse_bytes(mb, &cfg.max_bytes);
	/* The socket (and so the thread) only when asked: creating a thread
	 * calls the C library's pthread_create, which allocates the new
	 * thread's DTV with the program's calloc, and at start that is
	 * before main, when a program's allocator may not be ready
	 * (tests/integ/guest_alloc.sh).  A dormant start is for monctl. */
	const char *c = mon_env("MONPROF_CONTROL"), *d = mon_env("MONPROF_DORMANT");
	int asked = (d != NULL && strcmp(d, "1") == 0) || cfg.interval_s > 0;
	cfg.control = (c != NULL && strcmp(c, "1") == 0) ||
		      (asked && !(c != NULL && strcmp(c, "0") == 0));
	mon_stacks_set_grower(cfg.control || cfg.interval_s);
}

static int intervals(void)
{
	return cfg.interval_s > 0 && thread_pid == getpid();
}

/* The series' lock word: the tid of the thread cutting, as monitor.c's
 * writer lock (a handler never waits for its own thread).  0, or -1/EBUSY
 * after about two seconds. */
static int cut_lock(void)
{
	int outer = mon_clock_own_wait_begin();	/* a wait of ours (clock.c) */
	int rc = mon_owner_take(&cut_owner);
	mon_clock_own_wait_end(outer);
	return rc;
}

static void cut_unlock(void)
{
	__atomic_store_n(&cut_owner, 0, __ATOMIC_RELEASE);
}

/* Remember a file written; remove the oldest past --keep / --max-bytes.
 * Under cut_lock. */
static void rotate(uint64_t s, uint64_t start_sec, uint64_t bytes, int exec_no, char *buf)
{
	if (cfg.keep == 0 && cfg.max_bytes == 0)
		return;
	if (ring == NULL) {
		void *p = mmap(NULL, RING * sizeof *ring, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return;
		ring = p;
	}
	if (ring_n == RING) {
		/* More files than remembered: the oldest goes now. */
		struct written *o = &ring[ring_first];
		if (mon_file_interval_name(buf, name_cap, o->seq, o->start_sec, o->exec_no) != NULL &&
		    mon_file_remove(buf) == 0)
			removed++;
		ring_bytes -= o->bytes;
		ring_first = (ring_first + 1) % RING;
		ring_n--;
	}
	ring[(ring_first + ring_n) % RING] = (struct written){ s, start_sec, bytes, exec_no };
	ring_n++;
	ring_bytes += bytes;
	while (ring_n > 1 && ((cfg.keep && ring_n > cfg.keep) ||
			      (cfg.max_bytes && ring_bytes > cfg.max_bytes))) {
		struct written *o = &ring[ring_first];
		if (mon_file_interval_name(buf, name_cap, o->seq, o->start_sec, o->exec_no) != NULL &&
		    mon_file_remove(buf) == 0)
			removed++;
		ring_bytes -= o->bytes;
		ring_first = (ring_first + 1) % RING;
		ring_n--;
	}
}


/* A write succeeded after n failed: say so once (the first failure said
 * why). */
static void say_written_again(uint32_t n)
{
	static const char one[] = " interval before this one was lost (its file could not be written)\n",
			  more[] = " intervals before this one were lost (their files could not be "
				   "written)\n";
	char m[192] = "monprof: interval files are written again; ";
	char *p = mon_put_dec(m + strlen(m), n);
	memcpy(p, n == 1 ? one : more, n == 1 ? sizeof one : sizeof more);
	ssize_t r = write(STDERR_FILENO, m, strlen(m));
	(void)r;
}

/* Write the interval in progress: advance 1 (the series goes on: counts
 * taken, a new interval begins now) or 0 (the last; its counts are taken
 * too when take is 1 and not in a handler: an exec, which may fail and let
 * the series go on, whose next file must not hold them again).  buf: a name buffer
 * of name_cap bytes that this caller alone uses.  Under cut_lock.
 * *written_name the file's name (in buf) on success. */
static int cut(int advance, int take, int reason, int signo, uint32_t flags, int in_handler,
	       char *buf)
{
	if (ended)
		return mon_fail(ECANCELED);
	uint64_t t0 = clock_ns(CLOCK_MONOTONIC), now_real = clock_ns(CLOCK_REALTIME);
	struct mon_interval_cut c;
	memset(&c, 0, sizeof c);
	/* An exec's cut, when the exec is followed: NAME.execN, as the
	 * profile of a whole image that execs (monfile.c). */
	int exec_no = reason == MONOUT_WHY_EXEC ? mon_file_exec_suffix() : 0;
	c.name = mon_file_interval_name(buf, name_cap, seq + 1, start_real / 1000000000u, exec_no);
	if (c.name == NULL)
		return mon_fail(ENOENT);
	c.rec.seq = seq + 1;
	c.rec.start_ns = start_real;
	c.rec.end_ns = now_real > start_real ? now_real : start_real;
	c.rec.runtime_cpu_usec = __atomic_load_n(&own_cpu_usec, __ATOMIC_RELAXED);
	c.rec.period_ms = cfg.interval_s * 1000u;
	c.rec.flags = flags;
	c.rec.removed = removed;
	c.since_ns = start_mono;
	c.until_ns = t0;
	int last = !advance || in_handler;
	c.advance = (advance || take) && !in_handler;
	c.quiet = failing > 0;	/* said once, at the first of a row */
	if (last) {
		c.rec.flags |= MONOUT_INTERVAL_LAST;
		wrote();	/* before: a signal held during the write may end us after it */
	}
	int rc = mon_write_interval(&c, reason, signo, in_handler);
	if (rc < 0 && c.advance) {
		/* Not written (a full disk, PROFDIR gone or read-only...).  No
		 * second try at once, which would fail the same way many times
		 * a second: the next at the interval's end.  If the counts were
		 * taken, the interval is lost: its sequence number is skipped,
		 * so the series shows the gap (prof says so), and the next file
		 * begins now. */
		int e = errno;
		retry_mono = t0 + (uint64_t)cfg.interval_s * 1000000000u;
		if (c.taken) {
			seq++;
			start_mono = t0;
			start_real = c.rec.end_ns;
			unwritten++;
			failing++;
		}
		errno = e;
	}
	if (rc == 0 && failing) {
		say_written_again(failing);
		failing = 0;
	}
	if (rc == 0) {
		retry_mono = 0;
		seq++;
		start_mono = t0;
		start_real = c.rec.end_ns;
		rotate(c.rec.seq, c.rec.start_ns / 1000000000u, c.bytes, exec_no, buf);
		/* rotate may have used buf for an older name: give back ours */
		mon_file_interval_name(buf, name_cap, c.rec.seq, c.rec.start_ns / 1000000000u,
				       exec_no);
	}
	uint64_t *w = watch_mine();
	if (rc == 0 && w != NULL)
		__atomic_store_n(&w[1], c.rec.seq, __ATOMIC_RELEASE);
	if (last)
		ended = 1;
	uint64_t took = clock_ns(CLOCK_MONOTONIC) - t0;
	cut_last_ns = took;
	if (took > cut_longest_ns)
		cut_longest_ns = took;
	return rc;
}

/* monitor.c's mon_write_profile, while intervals run: every write of the
 * profile is an interval's file.  Async-signal-safe when in_handler. */
static int write_last(int reason, int signo, uint32_t flags, int in_handler)
{
	(void)flags;
	if (reason == MONOUT_WHY_SNAPSHOT && in_handler) {
		__atomic_store_n(&cut_asked, 1, __ATOMIC_RELEASE);	/* the thread cuts */
		return 0;
	}
	if (cut_lock() < 0)
		return -1;
	int advance = reason == MONOUT_WHY_SNAPSHOT || reason == MONOUT_WHY_INTERVAL;
	if (!advance && reason != MONOUT_WHY_EXEC && !ended && mon_interval_idle()) {
		/* The end of a series that has been off since its last file
		 * (monctl off, then exit): no file of nothing, which would show
		 * as an empty interval over the time it was off. */
		ended = 1;
		wrote();
		cut_unlock();
		return 0;
	}
	char *buf = mon_gettid() == mon_control_tid ? name_thread : name_other;
	int rc = cut(advance, reason == MONOUT_WHY_EXEC, reason, signo,
		     reason == MONOUT_WHY_SNAPSHOT ? MONOUT_INTERVAL_SHORT : 0,
		     in_handler, buf);
	int e = errno;
	cut_unlock();
	errno = e;
	return rc;
}

static void exec_failed(void)
{
	if (cut_lock() < 0)
		return;
	if (ended && intervals()) {
		ended = 0;	/* the series goes on in this image */
		start_mono = clock_ns(CLOCK_MONOTONIC);
		start_real = clock_ns(CLOCK_REALTIME);
	}
	cut_unlock();
}

/* ---- the socket ---------------------------------------------------------- */

/* fdguard's question (mon_fd_add_verifier): is fd still our socket? */
static int sock_still_held(int fd)
{
	int held = __atomic_load_n(&sock_fd, __ATOMIC_ACQUIRE);
	if (held < 0 || fd != held)
		return -1;
	struct sockaddr_un a;
	socklen_t n = sizeof a;
	return getsockname(fd, (struct sockaddr *)&a, &n) == 0 && n == sock_len &&
	       memcmp(a.sun_path, sock_name, n - offsetof(struct sockaddr_un, sun_path)) == 0;
}

static void sock_close(void)
{
	int fd = __atomic_load_n(&sock_fd, __ATOMIC_ACQUIRE);
	if (fd < 0)
		return;
	if (sock_still_held(fd) == 1)
		syscall(SYS_close, fd);
	mon_fd_drop(fd);
	__atomic_store_n(&sock_fd, -1, __ATOMIC_RELEASE);
}

static int sock_open(void)
{
	static int verifier;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	if ((fd = mon_fd_raise(fd)) < 0)
		return -1;
	struct sockaddr_un a;
	memset(&a, 0, sizeof a);
	a.sun_family = AF_UNIX;
	char *p = a.sun_path + 1;
	memcpy(p, "monprof.", 8);
	p = mon_put_dec(p + 8, (uint64_t)getpid());
	sock_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)(p - a.sun_path));
	memcpy(sock_name, a.sun_path, sizeof sock_name);
	if (bind(fd, (struct sockaddr *)&a, sock_len) < 0 || listen(fd, 8) < 0) {
		int e = errno;
		syscall(SYS_close, fd);
		return mon_fail(e);
	}
	if (!verifier) {
		verifier = 1;
		mon_fd_add_verifier(sock_still_held);
	}
	mon_fd_adopt(fd);
	sock_pid = getpid();
	__atomic_store_n(&sock_fd, fd, __ATOMIC_RELEASE);
	return 0;
}

/* Append s to the reply r (cap bytes). */
static void add(char *r, size_t cap, const char *s)
{
	size_t n = strlen(r), k = strlen(s);
	if (n + k >= cap)
		k = cap - n - 1;
	memcpy(r + n, s, k);
	r[n + k] = '\0';
}

static void add_num(char *r, size_t cap, uint64_t v)
{
	char d[24];
	mon_put_dec(d, v);
	add(r, cap, d);
}

static void status(char *r, size_t cap)
{
	int st = mon_profiling_state();
	struct mon_stats s;
	memset(&s, 0, sizeof s);
	mon_getstats(&s, sizeof s);
	add(r, cap, "ok\npid ");
	add_num(r, cap, (uint64_t)getpid());
	add(r, cap, "\nprogram ");
	add(r, cap, mon_file_program());
	add(r, cap, "\nstate ");
	add(r, cap, st == 1 ? "sampling" : st == 0 ? "finished" : mon_dormant() ? "dormant" : "off");
	add(r, cap, "\nclock ");
	add(r, cap, s.clock == MON_CLOCK_PERF ? "perf" : s.clock == MON_CLOCK_THREAD ? "thread"
		    : s.clock == MON_CLOCK_ITIMER ? "itimer" : "none");
	if (s.clock == MON_CLOCK_NONE) {
		/* None runs (dormant, off): the one "on" starts, as asked. */
		int k = mon_clock_cfg.kind;
		add(r, cap, " (");
		add(r, cap, k == MON_CLOCK_PERF ? "perf" : k == MON_CLOCK_THREAD ? "thread"
			    : k == MON_CLOCK_ITIMER ? "itimer" : "the default");
		add(r, cap, " clock at ");
		add_num(r, cap, mon_clock_cfg.rate_hz);
		add(r, cap, " Hz when on)");
	} else {
		add(r, cap, " ");
		add_num(r, cap, s.rate_hz);
		add(r, cap, " Hz");
	}
	/* The wall-clock sampler: running (its rate), paused with the CPU
	 * clock (off), or not started yet though asked for (--wall of a
	 * dormant start: "on" starts it), else off. */
	add(r, cap, "\nwall ");
	unsigned whz;
	if (mon_wall_running()) {
		add_num(r, cap, mon_wall_rate());
		add(r, cap, mon_wall_paused() ? " Hz, paused while profiling is off" : " Hz");
	} else if (st == 2 && (whz = mon_wall_setting()) != 0) {
		add(r, cap, "set to ");
		add_num(r, cap, whz);
		add(r, cap, " Hz, not running yet: it starts when profiling is turned on (monctl ");
		add_num(r, cap, (uint64_t)getpid());
		add(r, cap, " on)");
	} else {
		add(r, cap, "off");
	}
	/* The samples since profiling started; the stack table's entries,
	 * with intervals, are the running interval's (each cut empties it). */
	add(r, cap, "\nsamples ");
	add_num(r, cap, s.samples);
	add(r, cap, " since profiling started");
	uint64_t used, capacity, lost, grew, most;
	mon_stacks_usage(&used, &capacity, &lost, &grew, &most);
	add(r, cap, "\nstacks ");
	add_num(r, cap, used);
	add(r, cap, " of ");
	add_num(r, cap, capacity);
	add(r, cap, cfg.interval_s ? " entries in this interval (the table grows as needed to " :
				     " entries (the table grows as needed to ");
	add_num(r, cap, most);
	add(r, cap, ", --stack-table), ");
	add_num(r, cap, lost);
	add(r, cap, " samples without a stack, grown ");
	add_num(r, cap, grew);
	add(r, cap, " times\n");
	if (cfg.interval_s) {
		add(r, cap, "interval ");
		add_num(r, cap, cfg.interval_s);
		add(r, cap, " s, written ");
		add_num(r, cap, seq - unwritten);
		add(r, cap, ", not written ");
		add_num(r, cap, unwritten);
		add(r, cap, ", removed ");
		add_num(r, cap, removed);
		add(r, cap, ", longest cut ");
		add_num(r, cap, cut_longest_ns / 1000u);
		add(r, cap, " us\n");
	} else {
		add(r, cap, "output ");
		const char *n = mon_outname();
		add(r, cap, n ? n : "none");
		add(r, cap, "\n");
	}
	add(r, cap, "control thread CPU ");
	add_num(r, cap, __atomic_load_n(&own_cpu_usec, __ATOMIC_RELAXED));
	add(r, cap, " us\n");
}

static void command(const char *cmd, char *r, size_t cap)
{
	r[0] = '\0';
	if (strcmp(cmd, "status") == 0) {
		status(r, cap);
	} else if (strcmp(cmd, "on") == 0 || strcmp(cmd, "off") == 0) {
		int on = cmd[1] == 'n';
		int state = mon_profiling_state();
		/* Intervals: off ends the interval (its file holds what was
		 * sampled, cut once sampling stopped, so the next begins off
		 * and holds nothing: mon_interval_idle); on starts one afresh
		 * (the time it was off is in none). */
		if (on && mon_dormant())
			watch_set(0);	/* a profile is due from now */
		if (intervals() && on && state == 2 && cut_lock() == 0) {
			mon_interval_skip();
			start_mono = clock_ns(CLOCK_MONOTONIC);
			start_real = clock_ns(CLOCK_REALTIME);
			cut_unlock();
		}
		int was = moncontrol(on);
		if (was < 0) {
			add(r, cap, "error: profiling has ended in this process\n");
			return;
		}
		if (intervals() && !on && state == 1)
			write_last(MONOUT_WHY_SNAPSHOT, 0, 0, 0);
		add(r, cap, on ? (was ? "ok: already sampling\n" : "ok: sampling\n")
			       : (was ? "ok: off\n" : "ok: already off\n"));
	} else if (strcmp(cmd, "snapshot") == 0) {
		if (mon_dormant()) {
			add(r, cap, "error: dormant: nothing sampled yet (monctl PID on first)\n");
			return;
		}
		int rc;
		if (intervals()) {
			rc = write_last(MONOUT_WHY_SNAPSHOT, 0, 0, 0);
		} else {
			rc = mon_write();
		}
		if (rc < 0) {
			add(r, cap, "error: cannot write the profile: ");
			add(r, cap, strerrordesc_np(errno) ? strerrordesc_np(errno) : "unknown error");
			add(r, cap, "\n");
			return;
		}
		add(r, cap, "ok: wrote ");
		add(r, cap, intervals() ? name_thread : mon_outname());
		add(r, cap, "\n");
	} else {
		add(r, cap, "error: unknown command (on, off, snapshot, status)\n");
	}
}

static void reply(int fd, const char *r)
{
	size_t n = strlen(r), at = 0;
	while (at < n) {
		ssize_t k = send(fd, r + at, n - at, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		at += (size_t)k;
	}
}

/* One connection: credentials, one command, one reply. */
static void serve(void)
{
	int fd = accept4(sock_fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	int high = mon_fd_raise(fd);
	if (high < 0)
		return;
	fd = high;
	mon_fd_adopt(fd);
	struct ucred cr;
	socklen_t n = sizeof cr;
	static char r[1024];
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &n) != 0 ||
	    (cr.uid != getuid() && cr.uid != geteuid() && cr.uid != 0)) {
		reply(fd, "error: permission denied: the process belongs to another user\n");
		goto done;
	}
	char cmd[CMD_MAX + 1];
	size_t got = 0;
	uint64_t until = clock_ns(CLOCK_MONOTONIC) + 1000000000u;
	while (got < CMD_MAX && memchr(cmd, '\n', got) == NULL) {
		uint64_t now = clock_ns(CLOCK_MONOTONIC);
		struct pollfd p = { fd, POLLIN, 0 };
		if (now >= until)
			break;
		int ready = poll(&p, 1, (int)((until - now) / 1000000u) + 1);
		if (ready < 0 && errno == EINTR)
			continue;	/* a tick of the itimer clock (mon_sig_runtime_thread) */
		if (ready <= 0)
			break;
		ssize_t k = recv(fd, cmd + got, CMD_MAX - got, MSG_DONTWAIT);
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	cmd[got] = '\0';
	char *nl = memchr(cmd, '\n', got);
	if (nl == NULL) {
		reply(fd, "error: no command (a line: on, off, snapshot or status)\n");
		goto done;
	}
	*nl = '\0';
	command(cmd, r, sizeof r);
	reply(fd, r);
done:
	syscall(SYS_close, fd);
	mon_fd_drop(fd);
}

/* ---- the watcher ---------------------------------------------------------- */

/* A process of ours that outlives the program by a moment, to say so when
 * the program ended without writing its profile: killed by SIGKILL (the
 * OOM killer), or ended by an exit_group system call made by its own
 * instruction (Go's runtime: no library function runs, no handler).  Made
 * once per image at start in the profiled process itself (never in its
 * fork children): two clone(2) calls with no exit signal (the program gets
 * no SIGCHLD and its wait(2) never sees them; the first child is reaped
 * here with __WCLONE at once), so the watcher's parent is init or the
 * nearest subreaper.  It closes every descriptor but standard error and a
 * pidfd of the program (pidfd_open(2), polled until readable: the program
 * ended; without pidfd_open, kill(pid, 0) every 200 ms), blocks every
 * signal, moves to "/" (no mount kept busy), and reads one shared page
 * (MAP_SHARED, mapped before the clone): written[0] is 1 once the last
 * profile was written (or none was due: dormant), written[1] the last
 * interval's number.  Only raw system calls (sys: they take no lock) after
 * the clone. */

/* A system call as syscall(3) takes it, made by the instruction itself
 * (clone.c): not through libmon's syscall(3) (its clone would be a fork for
 * libmon) nor the C library's, which a static link's dlsym cannot find (a
 * cc -pg -static program's control thread called a null pointer). */
static long (*const sys)(long, ...) = mon_raw_syscall;

static void say_ended(pid_t pid)
{
	char m[512], *p = m;
	static const char a[] = "monprof: process ";
	memcpy(p, a, sizeof a - 1);
	p = mon_put_dec(p + sizeof a - 1, (uint64_t)pid);
	const char *prog = mon_file_program();
	size_t n = strlen(prog) < 64 ? strlen(prog) : 64;
	*p++ = ' ';
	*p++ = '(';
	memcpy(p, prog, n);
	p += n;
	static const char b[] = ") ended without writing its profile: it was killed (SIGKILL, "
				"the OOM killer) or made the exit_group system call itself (as Go's "
				"runtime does), which no library sees; ";
	memcpy(p, b, sizeof b - 1);
	p += sizeof b - 1;
	uint64_t last = __atomic_load_n(&watch_page[1], __ATOMIC_ACQUIRE);
	if (cfg.interval_s) {
		static const char c[] = "the interval after the one numbered ";
		static const char c0[] = "its first interval is lost\n";
		if (last == 0) {
			memcpy(p, c0, sizeof c0 - 1);
			p += sizeof c0 - 1;
		} else {
			memcpy(p, c, sizeof c - 1);
			p = mon_put_dec(p + sizeof c - 1, last);
			static const char d[] = " is lost\n";
			memcpy(p, d, sizeof d - 1);
			p += sizeof d - 1;
		}
	} else {
		static const char c[] = "run it with monrun --interval=SEC (MONPROF_INTERVAL) to "
					"lose at most the interval in progress\n";
		memcpy(p, c, sizeof c - 1);
		p += sizeof c - 1;
	}
	sys(SYS_write, 2, m, (long)(p - m));
}

/* The watcher's command line (/proc/PID/cmdline, what ps -f and pgrep -f
 * read) is the program's own, copied by the clone: pgrep -f "redis-server"
 * found it beside the server, and monctl $(pgrep -f ...) failed.  Its
 * argument area ([arg_start, arg_end), fields 48 and 49 of
 * /proc/self/stat, proc(5)) is our copy: written over with its name, as
 * setproctitle does.  Raw system calls only (the watcher's rule). */
static void retitle(void)
{
	char b[1024];
	long fd = sys(SYS_openat, AT_FDCWD, "/proc/self/stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	long n = sys(SYS_read, fd, b, sizeof b - 1);
	sys(SYS_close, fd);
	if (n <= 0)
		return;
	b[n] = '\0';
	char *p = strrchr(b, ')');	/* after the name, which may hold anything */
	if (p == NULL)
		return;
	uint64_t v[50] = { 0 };
	int field = 2;
	for (p++; *p && field < 49;) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		field++;
		uint64_t x = 0;
		for (; *p && *p != ' '; p++)
			x = x * 10 + (uint64_t)(*p >= '0' && *p <= '9' ? *p - '0' : 0);
		v[field] = x;
	}
	if (field < 49 || v[48] == 0 || v[49] <= v[48])
		return;
	static const char name[] = "monprof-watch";
	char *a = (char *)(uintptr_t)v[48];
	size_t len = (size_t)(v[49] - v[48]);
	memset(a, 0, len);
	memcpy(a, name, len > sizeof name - 1 ? sizeof name - 1 : len - 1);
}

static __attribute__((noreturn)) void watch(int pfd, pid_t pid)
{
	sigset_t all;
	sigfillset(&all);
	sys(SYS_rt_sigprocmask, SIG_SETMASK, &all, NULL, 8);
	sys(SYS_close_range, 0, 1, 0);
	if (pfd > 3)
		sys(SYS_close_range, 3, pfd - 1, 0);
	sys(SYS_close_range, pfd >= 3 ? pfd + 1 : 3, ~0u, 0);
	sys(SYS_chdir, "/");
	sys(SYS_prctl, PR_SET_NAME, "monprof-watch", 0, 0, 0);
	retitle();
	for (;;) {
		if (pfd >= 0) {
			struct pollfd p = { pfd, POLLIN, 0 };
			long r = sys(SYS_ppoll, &p, 1, NULL, NULL, (size_t)8);	/* ppoll(2): no timeout, no mask; aarch64 has no poll */
			if (r == 1)
				break;
			if (r < 0 && errno == EINTR)
				continue;
			pfd = -1;	/* poll refused it: fall back */
		}
		if (sys(SYS_kill, pid, 0) != 0 && errno == ESRCH)
			break;
		struct timespec t = { 0, 200000000 };
		sys(SYS_nanosleep, &t, NULL);
	}
	if (__atomic_load_n(&watch_page[0], __ATOMIC_ACQUIRE) == 0)
		say_ended(pid);
	for (;;)
		sys(SYS_exit_group, 0);
}

/* The middle process shares the program's memory (CLONE_VM), except under
 * ThreadSanitizer, whose clone interceptor runs its after-fork code in the
 * child on the parent's own state (clang 14: a CHECK fails in the
 * parent): there it is an ordinary copy, as before. */
#if defined(__SANITIZE_THREAD__)
#define MON_WATCH_MID_SHARES 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MON_WATCH_MID_SHARES 0
#endif
#endif
#ifndef MON_WATCH_MID_SHARES
#define MON_WATCH_MID_SHARES 1
#endif

struct watch_arg {
	int pfd;	/* a pidfd of the program, or -1 */
	pid_t pid;	/* the program */
};

/* The middle process: in the program's memory, on mid_stack, with the
 * program's thread suspended (CLONE_VFORK).  It makes the watcher, an
 * ordinary copy of the address space (no CLONE_VM: the watcher outlives
 * the program and must not share its memory), and ends, so that the
 * watcher's parent is init or the nearest subreaper.  Raw system calls
 * only; errno it may set is the suspended thread's, which
 * watcher_start restores.  Every signal blocked (by watcher_start): a
 * handler of libmon's or the program's run here would run in the
 * program's memory as another process.  Not instrumented by
 * AddressSanitizer: clang's would call __asan_handle_no_return before
 * watch() and warn, on the program's standard error, of a stack it does
 * not know. */
__attribute__((no_sanitize("address"))) static int watch_mid(void *arg)
{
	const struct watch_arg *a = arg;
	long g = sys(SYS_clone, 0L, 0L, NULL, NULL, 0L);
	if (g == 0)
		watch(a->pfd, a->pid);
	for (;;)
		sys(SYS_exit, 0);
	return 0;
}

static void watcher_start(void)
{
	if (watch_page == NULL) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return;
		watch_page = p;
	}
	pid_t pid = getpid();
	watch_pid = pid;
	watch_set(mon_dormant() ? 2 : 0);
	struct watch_arg a = { (int)sys(SYS_pidfd_open, pid, 0), pid };
	/* The middle process shares this one's memory and runs on a stack of
	 * its own while this thread waits (CLONE_VM | CLONE_VFORK, as
	 * posix_spawn does): one copy of the address space (the watcher's)
	 * where two were made, a millisecond of each short process's start
	 * in a guest.  No exit signal (the low byte 0): reaped with __WCLONE. */
	static char mid_stack[16384] __attribute__((aligned(16)));
	int saved_errno = errno;
	/* Every signal blocked, by the system call itself (libmon's own
	 * sigprocmask keeps its tick signal open), until the middle process
	 * is gone: the mask it inherits, and a signal for this process waits
	 * the millisecond.  The ticks meanwhile are the runtime's own start. */
	sigset_t all, was;
	sigfillset(&all);
	int masked = sys(SYS_rt_sigprocmask, SIG_SETMASK, &all, &was, (size_t)8) == 0;
#if MON_WATCH_MID_SHARES
	long mid = clone(watch_mid, mid_stack + sizeof mid_stack, CLONE_VM | CLONE_VFORK, &a);
#else
	(void)mid_stack;
	long mid = sys(SYS_clone, 0L, 0L, NULL, NULL, 0L);
	if (mid == 0)
		watch_mid(&a);
#endif
	if (mid > 0) {
		int st;
		while (sys(SYS_wait4, mid, &st, __WCLONE, NULL) < 0 && errno == EINTR)
			;
	}
	if (masked)
		sys(SYS_rt_sigprocmask, SIG_SETMASK, &was, NULL, (size_t)8);
	if (a.pfd >= 0)
		sys(SYS_close, a.pfd);
	errno = saved_errno;
}

/* ---- the thread ---------------------------------------------------------- */

static void *control_main(void *arg)
{
	(void)arg;
	__atomic_store_n(&mon_control_tid, mon_gettid(), __ATOMIC_RELEASE);
	sys(SYS_futex, (long)&mon_control_tid, FUTEX_WAKE_PRIVATE, 1L, 0L, 0L);	/* started() */
	prctl(PR_SET_NAME, "monprof-ctl", 0, 0, 0);
	uint64_t next_grow = 0;
	for (;;) {
		uint64_t now = clock_ns(CLOCK_MONOTONIC);
		int state = mon_profiling_state(), sampling = state == 1;
		int64_t wait_ms = -1;
		/* Not profiling (finished: in an exec under way, which may fail
		 * and go on) no cut is made when the interval is due: no wait
		 * for it either, or the loop spins at 100 % CPU until the state
		 * changes (a reviewer's finding). */
		if (cfg.interval_s && !ended && state != 0) {
			uint64_t end = start_mono + (uint64_t)cfg.interval_s * 1000000000u;
			if (end < retry_mono)
				end = retry_mono;
			wait_ms = end > now ? (int64_t)((end - now) / 1000000u) + 1 : 0;
		}
		if (sampling && (wait_ms < 0 || wait_ms > (int64_t)(GROW_CHECK_NS / 1000000u)))
			wait_ms = (int64_t)(GROW_CHECK_NS / 1000000u);
		if (wait_ms < 0 || wait_ms > (int64_t)(ALONE_CHECK_NS / 1000000u))
			wait_ms = (int64_t)(ALONE_CHECK_NS / 1000000u);
		/* Before the wait and after it: under the itimer clock our CPU's
		 * ticks are ours to take (sigguard.c mon_sig_runtime_thread). */
		mon_sig_runtime_thread(mon_clock_runtime_signal());
		struct pollfd p = { sock_fd, POLLIN, 0 };
		int k = poll(&p, sock_fd >= 0 ? 1 : 0, (int)wait_ms);
		mon_sig_runtime_thread(mon_clock_runtime_signal());
		if (k > 0 && (p.revents & POLLIN))
			serve();
		/* The program's threads all ended (its main thread by
		 * pthread_exit): the C library would end the process now, but
		 * ours are in its count of threads (util.c). */
		if (mon_only_runtime_left())
			mon_exit_for_program();
		now = clock_ns(CLOCK_MONOTONIC);
		if (sampling && now >= next_grow) {
			mon_stacks_grow();
			next_grow = now + GROW_CHECK_NS;
		}
		int due = now >= start_mono + (uint64_t)cfg.interval_s * 1000000000u &&
			  now >= retry_mono;
		int st = mon_profiling_state();
		if (cfg.interval_s && !ended && st == 1 &&
		    (due || __atomic_exchange_n(&cut_asked, 0, __ATOMIC_ACQ_REL))) {
			write_last(MONOUT_WHY_INTERVAL, 0, 0, 0);
		} else if (cfg.interval_s && !ended && st == 2 && due && !mon_interval_idle()) {
			/* Off since part of this interval: its samples from before
			 * are written (skipping it lost them, a reviewer found). */
			write_last(MONOUT_WHY_INTERVAL, 0, 0, 0);
		} else if (cfg.interval_s && !ended && st == 2 && due && cut_lock() == 0) {
			/* Off (moncontrol(0) by the program, or dormant) since the
			 * last file: no file for a time nothing was sampled in. */
			mon_interval_skip();
			start_mono = now;
			start_real = clock_ns(CLOCK_REALTIME);
			cut_unlock();
		}
		__atomic_store_n(&own_cpu_usec, clock_ns(CLOCK_THREAD_CPUTIME_ID) / 1000u,
				 __ATOMIC_RELAXED);
	}
	return NULL;
}

/* In any fork child: the parent's socket and thread are not this
 * process's. */
static void forget_parent(void)
{
	if (sock_fd >= 0 && sock_pid != getpid())
		sock_close();
	if (thread_pid != 0 && thread_pid != getpid()) {
		thread_pid = 0;
		__atomic_store_n(&mon_control_tid, 0, __ATOMIC_RELEASE);
		cut_owner = 0;
		seq = 0;
		ended = 0;
		cut_asked = 0;
		removed = 0;
		unwritten = failing = 0;
		retry_mono = 0;
		ring_first = ring_n = 0;
		ring_bytes = 0;
		own_cpu_usec = 0;
		cut_longest_ns = cut_last_ns = 0;
	}
}

/* Whole-process profiling is being set up in this image, its clocks not
 * yet started (monitor.c whole_started): the watcher, whose clone(2) and
 * wait4 are the runtime's own time, not the program's. */
static void starting(void)
{
	forget_parent();
	static int watched;	/* this image has its watcher (a fork child inherits the 1) */
	if (!watched) {
		watched = 1;
		watcher_start();
	}
}

/* Whole-process profiling was set up in this image, its clocks started
 * (or dormant), or goes on in a fork child, after starting(): start the
 * thread (after the clocks: a start that fails there leaves no thread, no
 * socket). */
static void started(void)
{
	if (thread_pid == getpid() || (!cfg.control && !cfg.interval_s))
		return;
	static int atfork;
	if (!atfork) {
		atfork = 1;
		pthread_atfork(NULL, NULL, forget_parent);
	}
	size_t room = mon_file_name_room();
	if (room > name_cap) {
		char *a = mon_alloc(room), *b = mon_alloc(room);
		if (a == NULL || b == NULL) {
			mon_free(a);
			mon_free(b);
			return;
		}
		mon_free(name_thread);
		mon_free(name_other);
		name_thread = a;
		name_other = b;
		name_cap = room;
	}
	if (cfg.interval_s && mon_facts_window_init() < 0)
		return;
	start_mono = clock_ns(CLOCK_MONOTONIC);
	start_real = clock_ns(CLOCK_REALTIME);
	if (cfg.control && sock_open() < 0) {
		static const char m[] = "monprof: no control socket (monctl cannot reach this "
					"process): cannot bind it\n";
		ssize_t r = write(STDERR_FILENO, m, sizeof m - 1);
		(void)r;
	}
	static int (*create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	if (create == NULL)
		create = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
				  void *))mon_libc_next("pthread_create");
	if (create == NULL)
		return;
	pthread_attr_t attr;
	sigset_t all;
	sigfillset(&all);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256u << 10);
	pthread_attr_setsigmask_np(&attr, &all);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_t t;
	int rc = create(&t, &attr, control_main, NULL);
	pthread_attr_destroy(&attr);
	if (rc != 0) {
		static const char m[] = "monprof: no control thread (pthread_create failed): no "
					"interval profiles, monctl cannot reach this process\n";
		ssize_t r = write(STDERR_FILENO, m, sizeof m - 1);
		(void)r;
		sock_close();
		return;
	}
	thread_pid = getpid();
	/* Until the thread has said its tid (at most a second, which a
	 * thread not scheduled for that long takes): the wall sampler starts
	 * after this (and the clocks, when monctl on starts them), and a
	 * listing of /proc/self/task that saw the thread before it had said
	 * so took it for the program's (wall.c's sampler listed monprof-ctl
	 * among 8400 threads).  The clocks of a whole-process start run
	 * already: the thread, made with every signal blocked and not through
	 * libmon's pthread_create, has none. */
	int outer = mon_clock_own_wait_begin();	/* the thread's start has
						 * every signal blocked */
	for (int i = 0; i < 100 && __atomic_load_n(&mon_control_tid, __ATOMIC_ACQUIRE) == 0; i++) {
		struct timespec ts = { 0, 10000000 };
		sys(SYS_futex, (long)&mon_control_tid, FUTEX_WAIT_PRIVATE, 0L, (long)&ts, 0L);
	}
	mon_clock_own_wait_end(outer);
}

/* Before autostart.c's constructor (default priority), which starts profiling. */
__attribute__((constructor(101))) void mon_control_init(void)
{
	MON_ONCE();
	mon_control_calls.configure = configure;
	mon_control_calls.starting = starting;
	mon_control_calls.started = started;
	mon_control_calls.intervals = intervals;
	mon_control_calls.write_last = write_last;
	mon_control_calls.exec_failed = exec_failed;
	mon_control_calls.wrote = wrote;
	/* Profiling may have started before this constructor ran: the first
	 * mcount of a cc -pg program whose own code runs before the shared
	 * libraries' constructors (an ASan program's, from its .preinit_array),
	 * when monitor.c's setup() and control_start found no calls to make.
	 * Its settings and its control thread now, or intervals (and monctl)
	 * were silently off: tests/integ/interval_calls.sh under ASan. */
	if (mon_profiling_state() != 0) {
		configure();
		starting();
		started();
	}
}
