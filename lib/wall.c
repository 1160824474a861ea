/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wall.c — wall-clock and off-CPU sampling of every thread, whatever its
 * state, without stopping it, signalling it or touching its system calls.
 *
 * The wall sampler is a thread of the runtime's own (named "monprof-wall"),
 * made with the C library's pthread_create (the one after libmon's, so the
 * CPU clocks' wrapper never sees it) with every signal blocked
 * (pthread_attr_setsigmask_np(3): the C library keeps its own internal
 * signals open).  Its tid is mon_runtime_tid (util.c): threads.c never
 * arms a CPU clock in it and runfacts.c never lists it as the program's.
 * At MONPROF_WALL rounds a second of CLOCK_MONOTONIC (a periodic timerfd,
 * timerfd_create(2), the round timer below; else absolute deadlines,
 * FUTEX_WAIT_BITSET on the stop word: futex(2)) a round lists
 * /proc/self/task (getdents64 on a descriptor kept open) and samples each
 * thread once:
 *
 *   1. The thread's CPU clock (clock_gettime of its CPU-time clock id, as
 *      pthread_getcpuclockid(3) makes it: no descriptor, ~0.5 us).  If it
 *      has not moved since the last full read, the thread has not run since
 *      then: it is still where it was (blocked: the same sample again;
 *      running then: it has been waiting for a CPU since, runnable, once
 *      its stat's state letter still says R: the clock leaves out time a
 *      hypervisor stole, and a short run to a blocking call may not move
 *      it, left_r).
 *   2. Otherwise a full read of /proc/self/task/TID/syscall (proc(5)):
 *      "running" for a thread on a CPU or runnable; else the system call
 *      number, its six arguments, SP and PC of a blocked thread ("-1 SP PC"
 *      when blocked outside a system call), read by the kernel without
 *      stopping the thread.  Running is split from runnable by the
 *      thread's schedstat (CPU time and run-queue wait, nanoseconds): an R
 *      sample is runnable with probability wait / (CPU + wait) over the
 *      time since the previous full read, rounded by error diffusion per
 *      thread, so that the counts follow the ratio.  A blocked thread gets
 *      its state letter from /proc/self/task/TID/stat (S, D, T/t), what it
 *      waits on (below), and its stack: up to 32 KiB of its stack from SP
 *      copied with process_vm_readv(2) (every byte checked by the kernel:
 *      the thread may wake, and its stack go, meanwhile) into a buffer of
 *      ours, and mon_unwind_regs (unwind.h) walks from that PC and SP
 *      through a memory reader that takes the words of [SP, SP + copied)
 *      from the copy and reads any other address checked (the addresses
 *      stay the thread's own: a saved RBP points into its stack).  RBP is
 *      not known (proc(5) gives SP and PC only): a frame whose CFA is
 *      RSP-based goes on, RBP becomes known where a frame's CFI says it
 *      saved it, and a frame whose CFA needs RBP before then ends the walk,
 *      flagged truncated.  If the
 *      thread's CPU clock moved during all this, it ran: the read is done
 *      again once, and a second race keeps the PC alone, flagged truncated.
 *
 * A running or runnable thread's stack is not read (that would take a
 * signal, and a signal is not certain to land in user space: a thread that
 * blocks meanwhile would see EINTR): its samples say how much of its wall
 * time it ran or waited for a CPU, and the CPU clock's stacks of the same
 * thread say where (prof spreads them so).
 *
 * What a blocked thread waits on (mon.out(5) WAIT): for read, write,
 * recv*, send*, accept*, connect, readv/writev, pread/pwrite, the
 * descriptor in the first argument; for poll/ppoll the first pollfd's
 * (read with process_vm_readv), for select/pselect6 the first descriptor
 * set in the first set given; for epoll_wait/epoll_pwait(2) the epoll
 * descriptor.  It is described by readlink(2) of /proc/self/fd/N and, for
 * a socket, getsockname(2)/getpeername(2)/getsockopt(SO_TYPE) (read-only
 * queries).  For futex(2) waits: the word's address, the loaded object
 * whose PT_LOAD segment holds it (dl_iterate_phdr(3), in this thread) and
 * its offset from the load bias, and for a glibc mutex (FUTEX_WAIT with
 * value 2 on a word followed by struct __pthread_mutex_s's __owner, a
 * thread of this process, and a plausible __kind; or a PI futex, whose
 * word holds the owner) the tid of the thread that holds it, read checked;
 * a pthread_join (the word is a thread's tid in its descriptor: is_join)
 * with the joined thread's tid; a condition wait (the word is a
 * pthread_cond_t's group-signal word by its layout: is_condvar) flagged.
 *
 * Budgets.  Descriptors: the task directory, and per thread the syscall
 * and schedstat files kept open (moved above mon_fd_floor, adopted by
 * fdguard.c: the program cannot close them and dup2 onto one moves it) up
 * to an eighth of the numbers above the floor; beyond that a read opens,
 * reads and closes (the number is taken from the program's range for that
 * instant, as every open is).  A blocked thread that has not run costs one
 * clock_gettime a round and no descriptor.  Memory: tables mapped once
 * (mon_alloc), nothing allocated in a round; the program's malloc is
 * never called by this file (pthread_create's own bookkeeping aside).
 *
 * Tables.  Only the sampler thread adds entries; each is filled, then
 * published by a release store of the table's count, so the writer — also
 * from a fatal-signal handler while the sampler runs — reads whole entries
 * (counts with atomic loads).  Threads: MAX_THREADS seen over the run
 * (more: counted in threads_unlisted).  Samples: MAX_SAMPLES unique keys,
 * POOL_PCS PCs (no room: counted in lost).  Waits: MAX_WAITS.
 *
 * Intervals (control.c): an interval's file takes what was counted since
 * the last cut, not a fresh table: each entry's count is loaded once and
 * written less sample_cut[] (thread entries and the header likewise, less
 * their cut_* fields and cut_base), which a cut then sets to what it
 * wrote.  The sampler never waits for the writer nor the writer for it; a
 * round adding after the load counts in the next file.  Keys accumulate
 * (MAX_SAMPLES of them; more: lost, counted per interval) until a cut finds
 * a table over half full: the sampler then copies what the files to come
 * still need into a second table and publishes it (compact()), so a long
 * interval run with threads that come and go never fills them.
 *
 * fork: the child has no sampler; monitor.c's child hook calls
 * mon_wall_fork_child, which forgets the parent's tables and descriptors
 * and starts the child's own.  exec: monitor.c stops the sampler before
 * the profile is written (mon_wall_stop joins it) and resumes it if the
 * exec fails.  exit: mon_finish stops it before the write; _exit and fatal
 * signals write while it runs (the kernel ends it with the process).
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <linux/futex.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "objhist.h"
#include "arch.h"
#include "unwind.h"
#include "wall.h"

#define MAX_THREADS 8192u	/* threads seen over a run */
#define THREAD_SLOTS 16384u	/* tid hash, a power of two */
#define MAX_SAMPLES 65536u	/* unique sample keys */
#define SAMPLE_SLOTS 131072u	/* their hash, a power of two */
#define POOL_PCS (1u << 21)	/* PCs of all samples' stacks (16 MiB) */
#define MAX_WAITS 4096u
#define WAIT_TEXT 120u		/* bytes of a wait's description kept */
#define COPY_BYTES (32u << 10)	/* stack copied per blocked thread */
#define PAGE 4096u
#define RACE_RETRIES 1
#define LOOK_HZ 250u		/* the sampler looks at the threads at most this often */
#define LIST_EVERY 8u		/* count the threads every 8th look, list them if the table lacks one */
#define RING 4096u		/* threads announced by pthread_create, not yet listed */
#define NAME_EVERY_NS 1000000000u	/* a running thread's name read again after this */
#define BLOCKED_KEPT 8u		/* a thread's last blocked samples found, for time_pick's charges */

struct wthread {
	pid_t tid;
	uint32_t serial;	/* the run's count of threads made when it was (never reused) */
	int fd_sys, fd_sched, fd_stat;	/* kept open, or -1 */
	int ended;
	uint32_t ready;		/* seen() has set its start (flags, first_usec): release */
	int keep;		/* compact(): copied into the new table */
	uint64_t cpu_ns;	/* CPU clock at the last full read; UINT64_MAX: none yet */
	uint64_t name_ns;	/* when a running thread's name was last read (CLOCK_MONOTONIC) */
	uint64_t announced_ns;	/* when our pthread_create announced it, 0: not announced */
	uint64_t sched_cpu, sched_wait;	/* schedstat at the last read of it */
	uint64_t sched_runs;	/* schedstat's third field then: times put on a CPU */
	uint64_t sched_ns;	/* when (CLOCK_MONOTONIC), 0: never */
	uint32_t last;		/* sample index + 1 counted at the last full read, 0: none */
	uint32_t r_still;	/* looks since it, R then, without a full read (left_r) */
	uint32_t last_state;
	int64_t credit;		/* runnable credit, 1/65536 of a sample */
	uint64_t again;		/* rounds charged to last since the full read that found it blocked */
	uint64_t block_wait;	/* schedstat's run-queue wait at that read; UINT64_MAX: not known */
	uint64_t block_runs;	/* and its count of runs on a CPU */
	uint64_t obs_ns;	/* when (CLOCK_MONOTONIC) cpu_ns was last found current, 0: never */
	uint64_t obs_wait;	/* schedstat's run-queue wait at the last full read; UINT64_MAX: none */
	uint64_t obs_runs;	/* and its run count */
	uint64_t queued_ns;	/* time since then charged runnable by rounds it had not run */
	int64_t share_credit;	/* time_share's error diffusion, 1/65536 of a sample */
	uint32_t blocked[BLOCKED_KEPT];	/* the last blocked samples found (index + 1), 0: none */
	uint32_t blocked_at, blocked_pick;	/* the next of blocked[] to write, to charge */
	int64_t wake_credit;	/* woken_wait's error diffusion, ns x Hz (1e9: one round) */
	int64_t ratio;		/* runnable share of its last R interval, 1/65536 */
	uint64_t seen_round;	/* the last round that listed it */
	uint64_t seen_ns;	/* the last round instant that look stands for (CLOCK_MONOTONIC) */
	uint64_t counted_ns;	/* seen_ns once that look's samples are in out.taken
				 * (stored after them, release): a writer's expected
				 * count ends there, so a file cut while a look is
				 * under way has as many rounds due for each thread as
				 * it has samples taken (the look's last instant
				 * counted a thread the look had already sampled one
				 * sample over its due count, and the next file one
				 * under: 7759 threads of 8400 when a look took half
				 * a second) */
	uint64_t before_ns, before_taken, before_unreadable;	/* counted_ns and the
				 * counts before the look now under way added to them
				 * (stored before it adds; counted_ns's release
				 * publishes them): a file's rows end at the last
				 * look that had ended (look_done), and a thread the
				 * look under way has sampled gives these */
	struct monout_wall_thread out;
	struct monout_wall_thread row;	/* the writer's: put()'s row of it, read
					 * under cut_hold and written after (tid 0:
					 * none), so that the sampler is not held
					 * back while the file is written */
	/* What the interval files cut so far held (mon_wall_put with
	 * MON_WALL_CUT; the writer's alone, under monitor.c's writer lock). */
	uint64_t cut_taken, cut_unreadable, cut_expected;
	unsigned char cut_listed;	/* a cut file listed it */
	unsigned char cut_ended;	/* a cut file listed it as ended */
};

struct wsample {
	uint64_t count;		/* atomic */
	uint64_t tid;
	uint32_t serial;	/* its thread's (wthread.serial): a tid is reused, a serial not */
	uint32_t state, syscall, wait, depth, flags;
	uint32_t set;		/* the object set its PCs were taken in (objhist.h) */
	uint32_t pc_at;		/* index of pcs[0] in the pool */
};

struct wwait {
	struct monout_wait w;	/* id = index; text points to text */
	uint64_t bias;		/* load bias of the object holding address, when found */
	uint32_t set;		/* the object set then (objhist.h): which object had that bias */
	int has_object;
	char text[WAIT_TEXT];
};

struct wall {
	unsigned nthreads, nsamples, nwaits, npool;	/* published counts (release) */
	struct wthread threads[MAX_THREADS];
	uint32_t thread_slot[THREAD_SLOTS];	/* index + 1 */
	struct wsample samples[MAX_SAMPLES];
	uint32_t sample_slot[SAMPLE_SLOTS];
	uint64_t pool[POOL_PCS];
	struct wwait waits[MAX_WAITS];
	uint64_t sample_cut[MAX_SAMPLES];	/* each sample's count in the files cut so far */
	uint32_t sample_map[MAX_SAMPLES], wait_map[MAX_WAITS];	/* compact()'s scratch */
};

static struct wall *tab;	/* the sampler's (published: release store) */
static struct wall *spare;	/* the other one, mapped at the first compaction */
/* Compaction (compact()): an advancing cut asks for it when a table is over
 * half full; the sampler copies what is still wanted into the spare table
 * and publishes that.  compacting and cut_busy, compacting and movers are
 * each a Dekker pair (store, then load the other, both sequentially
 * consistent): a cut that moves the cut bases, or a wall_fd_move, never runs
 * while the sampler copies. */
static int compact_asked, compacting, cut_busy, movers;
static unsigned char *copy_area;	/* COPY_BYTES: a blocked thread's stack from its SP */
/* The threads the table had no room for: gen << 32 | count, one word, so
 * that a cut takes the count and moves the generation on at once (an
 * exchange: a count the sampler adds is in exactly one interval's file).
 * unlisted_seen holds which threads the count has, gen << 32 | tid, the
 * sampler's alone (linear probing; a slot of another generation is
 * empty), so that a thread without room counts once an interval (once a
 * run without intervals), not once a round. */
#define UNLISTED_SLOTS 8192u
#define UNLISTED_PROBE 64u
static uint64_t unlisted = 1ull << 32;
static uint64_t unlisted_seen[UNLISTED_SLOTS];
static uint64_t lost;		/* samples without room */
static uint64_t rounds, missed;
static uint32_t thread_serial;		/* threads made (thread_find): the sampler's */
static uint64_t looks;			/* the sampler's looks at the threads (its own) */
static uint64_t look_rounds = 1;	/* rounds a look stands for: rate / LOOK_HZ, rounded up */
static uint64_t look_due_ns;		/* the last round instant the look stands for (its
					 * deadline: the looks' grid is the rounds') */
static uint64_t start_ns;	/* the sampler's start (CLOCK_MONOTONIC) */
/* The last look that ended: its instant and the rounds and missed rounds
 * counted through it, published together (a sequence count, odd while the
 * sampler writes them).  A file's rows and rounds end there, never inside a
 * look: the rows of the threads a look had not reached when the file was
 * cut were counted to the look before it while the file's rounds held it,
 * and the next file held them one round over its own rounds (6692 threads
 * of 8400 in a CI run under ASan, where a look took longer than the
 * writer's 2 s wait for it to end). */
static struct {
	unsigned seq;
	uint64_t ns, rounds, missed;
} look_done;
/* A cut reading the rows (cut_hold nonzero): the sampler starts no look
 * meanwhile, so a row is sampled by at most one look after look_done
 * (the one under way), whose counts before it a row keeps (before_ns). */
static unsigned cut_hold;
static unsigned put_depth;	/* writes under way (put): 2 when one is nested in another */
static uint64_t own_user_us, own_sys_us;	/* the sampler's CPU, rusage at each round */
static unsigned rate, depth_max;
static int have_schedstat = 1;
static int ever_started;
static int fork_go_due;		/* a fork child's sampler is to start (mon_wall_fork_go) */
/* A stop of the whole process (stopped_for): the sampler's reference (its
 * run-queue wait, its CPU and the process's at ref_ns), and the stop the current
 * look found, [stop_lo_us, stop_hi_us] microseconds after start_ns (lo >
 * hi: none). */
static uint64_t stop_ref_ns, stop_ref_wait, stop_ref_own, stop_ref_cpu;
static uint64_t stop_lo_us = 1, stop_hi_us;
static uint64_t stop_len_ns;		/* its length */
static int stop_pending;		/* found on the way into a pause: for the next look */
static uint64_t look_end_ns;		/* when the last look ended (the sampler's sleep began) */
static unsigned online_cpus = 1;

static pthread_t sampler;
static int sampler_joinable;
static int stop_word;		/* futex: 1 asks the sampler to end */
static int pause_word;		/* futex: 1 while moncontrol(0) has sampling paused */
/* The pauses, microseconds after start_ns: [pause_lo[i], pause_hi[i]) for
 * i < npauses (published with release stores; hi is UINT64_MAX while the
 * pause lasts).  More than PAUSES_MAX: the last one grows to cover the rest. */
#define PAUSES_MAX 256u
static uint64_t pause_lo[PAUSES_MAX], pause_hi[PAUSES_MAX];
static unsigned npauses;
/* The interval files cut so far (mon_wall_put's MON_WALL_CUT, the writer's
 * alone): their rounds, missed rounds, lost samples, the sampler's CPU and
 * the end of the last one, microseconds after start_ns. */
static struct {
	uint64_t rounds, missed, lost, user_us, sys_us, end_us;
} cut_base;
static int running;
static int task_fd = -1;
static dev_t task_dev;		/* what task_fd was opened on: a number the program */
static ino_t task_ino;		/* took over (raw close, open) is not counted from */
static int timer_fd = -1;	/* the rounds' periodic timer (timerfd), or -1: futex sleeps */
static uint64_t timer_period;	/* its interval, ns */
static unsigned fds_kept, fds_budget;
static pid_t own_pid;
static unsigned nalive;		/* threads listed and not ended */
static pid_t ring[RING];	/* announced tids; ring_head counts them all */
static uint64_t ring_ns[RING];	/* when each was announced (CLOCK_MONOTONIC) */
static unsigned ring_head, ring_tail;

/* ---- small helpers ------------------------------------------------------- */

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CPU time of thread tid (ns), UINT64_MAX if it is gone.  The clock id
 * encoding is pthread_getcpuclockid's: ~tid << 3 | CPUCLOCK_SCHED (2) |
 * CPUCLOCK_PERTHREAD (4) (the kernel's posix-cpu-timers). */
static uint64_t thread_cpu_ns(pid_t tid)
{
	struct timespec ts;
	clockid_t c = (clockid_t)((~(unsigned)tid) << 3) | 6;
	if (syscall(SYS_clock_gettime, c, &ts) < 0)
		return UINT64_MAX;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* "/proc/self/task/TID/name" in buf (64 bytes). */
static void task_path(char *buf, pid_t tid, const char *name)
{
	char *p = memcpy(buf, "/proc/self/task/", 16);
	p = mon_put_dec(p + 16, (uint64_t)tid);
	*p++ = '/';
	strcpy(p, name);
}

/* 1 if fd still names a /proc file: a program that closed ours with the raw
 * close_range system call (no wrapper of fdguard.c sees it) may hold the
 * number now, and then it is never ours to close. */
static int still_proc(int fd)
{
	struct statfs fs;
	return syscall(SYS_fstatfs, fd, &fs) == 0 && fs.f_type == 0x9fa0 /* PROC_SUPER_MAGIC, statfs(2) */;
}

static void close_ours(int fd)
{
	if (fd < 0)
		return;
	mon_fd_drop(fd);
	if (still_proc(fd))
		syscall(SYS_close, fd);
}

/* Open a /proc file of ours: kept (moved above the floor, adopted) when
 * keep and the budget allows, *kept set then. */
static int open_proc(const char *path, int keep, int *kept)
{
	*kept = 0;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !keep || fds_kept >= fds_budget)
		return fd;
	int nfd = mon_fd_raise(fd);
	if (nfd < 0)
		return (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	mon_fd_adopt(nfd);
	fds_kept++;
	*kept = 1;
	return nfd;
}

/* Read the /proc file name of thread t into buf (cap bytes, NUL-ended):
 * bytes read, or -1 with errno (ENOENT/ESRCH: the thread is gone). */
static ssize_t read_task(struct wthread *t, const char *name, int *cached, int keep, char *buf,
			 size_t cap)
{
	ssize_t n;
	if (*cached >= 0) {
		n = (ssize_t)syscall(SYS_pread64, *cached, buf, cap - 1, (off_t)0);
		int e = errno;
		if (n > 0 || (n == 0 && still_proc(*cached))) {
			buf[n] = '\0';
			return n;
		}
		if (n < 0 && e != EBADF && still_proc(*cached)) {
			errno = e;
			return -1;
		}
		/* Taken over: the program closed ours with the raw close_range
		 * system call (EBADF), and may hold the number now (another
		 * file).  Forget it, never close it, and tell fdguard it is no
		 * longer ours (else the program's close of its own file on that
		 * number failed with EBADF: guest_fds_raw_close_range_wall). */
		mon_fd_drop(*cached);
		fds_kept -= fds_kept > 0;
		*cached = -1;
	}
	char path[64];
	task_path(path, t->tid, name);
	int kept;
	int fd = open_proc(path, keep, &kept);
	if (fd < 0)
		return -1;
	n = (ssize_t)syscall(SYS_pread64, fd, buf, cap - 1, (off_t)0);
	int e = errno;
	if (kept)
		*cached = fd;
	else
		syscall(SYS_close, fd);
	if (n < 0) {
		errno = e;
		return -1;
	}
	buf[n] = '\0';
	return n;
}

static int hexnum(const char **p, uint64_t *out)
{
	const char *s = *p;
	while (*s == ' ')
		s++;
	if (s[0] == '0' && s[1] == 'x')
		s += 2;
	uint64_t v = 0;
	int any = 0;
	for (;; s++, any = 1) {
		unsigned c = (unsigned char)*s, d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else
			break;
		v = v << 4 | d;
	}
	*p = s;
	*out = v;
	return any;
}

static int decnum(const char **p, int64_t *out)
{
	const char *s = *p;
	while (*s == ' ')
		s++;
	int neg = *s == '-';
	s += neg;
	if (*s < '0' || *s > '9')
		return 0;
	int64_t v = 0;
	while (*s >= '0' && *s <= '9')
		v = v * 10 + (*s++ - '0');
	*p = s;
	*out = neg ? -v : v;
	return 1;
}

/* Checked read of n bytes at a in our own memory (process_vm_readv(2) on
 * our pid: EFAULT for unmapped memory, never a fault).  1 if all read. */
static int peek(uintptr_t a, void *out, size_t n)
{
	struct iovec l = { out, n }, r = { (void *)a, n };
	return syscall(SYS_process_vm_readv, own_pid, &l, 1ul, &r, 1ul, 0ul) == (long)n;
}

/* ---- the tables ---------------------------------------------------------- */

static uint32_t mix32(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return (uint32_t)h;
}

/* Thread tid found no room: count it, once since the last cut (past
 * UNLISTED_PROBE taken slots, each time: a bound, never a loss). */
static void count_unlisted(pid_t tid)
{
	for (;;) {
		uint64_t w = __atomic_load_n(&unlisted, __ATOMIC_ACQUIRE), gen = w >> 32;
		uint64_t want = gen << 32 | (uint32_t)tid;
		uint32_t h = mix32((uint64_t)tid) & (UNLISTED_SLOTS - 1), slot = UINT32_MAX;
		for (unsigned probe = 0; probe < UNLISTED_PROBE && slot == UINT32_MAX;
		     probe++, h = (h + 1) & (UNLISTED_SLOTS - 1)) {
			uint64_t v = unlisted_seen[h];
			if (v == want)
				return;	/* counted in this generation */
			if (v >> 32 != gen)
				slot = h;
		}
		/* A cut between the load and here: counted in the next one. */
		if (!__atomic_compare_exchange_n(&unlisted, &w, w + 1, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
			continue;
		if (slot != UINT32_MAX)
			unlisted_seen[slot] = want;
		return;
	}
}

/* The count of threads without room: read, or (take 1: an interval's
 * file that ends it, or a cut that skips a time) taken, the generation
 * moved on in the same exchange. */
static uint32_t unlisted_take(int take)
{
	uint64_t w = __atomic_load_n(&unlisted, __ATOMIC_ACQUIRE);
	while (take && !__atomic_compare_exchange_n(&unlisted, &w, ((w >> 32) + 1) << 32, 0,
						    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		;
	return (uint32_t)w;
}

static struct wthread *thread_find(pid_t tid, int make)
{
	uint32_t h = mix32((uint64_t)tid) & (THREAD_SLOTS - 1);
	for (unsigned probe = 0; probe < THREAD_SLOTS; probe++, h = (h + 1) & (THREAD_SLOTS - 1)) {
		uint32_t ix = tab->thread_slot[h];
		if (ix == 0) {
			if (!make)
				return NULL;
			unsigned n = tab->nthreads;
			if (n >= MAX_THREADS) {
				count_unlisted(tid);
				return NULL;
			}
			struct wthread *t = &tab->threads[n];
			memset(t, 0, sizeof *t);
			t->tid = tid;
			t->serial = ++thread_serial;
			t->fd_sys = t->fd_sched = t->fd_stat = -1;
			t->cpu_ns = UINT64_MAX;
			t->block_wait = UINT64_MAX;
			t->obs_wait = UINT64_MAX;
			t->out.tid = (uint64_t)tid;
			tab->thread_slot[h] = n + 1;
			__atomic_store_n(&tab->nthreads, n + 1, __ATOMIC_RELEASE);
			return t;
		}
		struct wthread *t = &tab->threads[ix - 1];
		if (t->tid == tid && !t->ended)
			return t;
	}
	return NULL;
}

static uint32_t sample_hash(uint64_t tid, uint32_t serial, uint32_t state, uint32_t sc, uint32_t wait,
			    uint32_t flags, uint32_t set, const uintptr_t *pcs, unsigned n)
{
	uint64_t h = tid * 0x9e3779b97f4a7c15ull ^ ((uint64_t)state << 40 | (uint64_t)sc << 8 | flags);
	h = h * 0x100000001b3ull ^ serial;
	h = h * 0x100000001b3ull ^ wait;
	h = h * 0x100000001b3ull ^ set;
	for (unsigned i = 0; i < n; i++)
		h = (h ^ pcs[i]) * 0x100000001b3ull;
	return mix32(h ^ n);
}

/* Count weight samples of thread t with this key (set: the object set
 * pcs[0..n) were taken in, mon_objhist_set_now; 0 when n is 0); the
 * entry's index + 1, or 0 (no room: the weight goes to lost).  Entries are
 * the thread's (its serial), not its tid's: keyed by tid, a new thread
 * that took a dead one's tid counted into the dead one's entries, its
 * samples then written under a row not its own; and a cut tells by the
 * serial which samples' threads it has rows for (put). */
static uint32_t sample_count(const struct wthread *t, uint32_t state, uint32_t sc, uint32_t wait,
			     uint32_t flags, uint32_t set, const uintptr_t *pcs, unsigned n,
			     uint64_t weight)
{
	uint64_t tid = t->out.tid;
	uint32_t h = sample_hash(tid, t->serial, state, sc, wait, flags, set, pcs, n) &
		     (SAMPLE_SLOTS - 1);
	for (unsigned probe = 0; probe < 64; probe++, h = (h + 1) & (SAMPLE_SLOTS - 1)) {
		uint32_t ix = tab->sample_slot[h];
		if (ix == 0)
			break;
		struct wsample *s = &tab->samples[ix - 1];
		if (s->serial == t->serial && s->tid == tid && s->state == state && s->syscall == sc && s->wait == wait &&
		    s->flags == flags && s->set == set && s->depth == n &&
		    (n == 0 || memcmp(&tab->pool[s->pc_at], pcs, n * sizeof *pcs) == 0)) {
			__atomic_add_fetch(&s->count, weight, __ATOMIC_RELAXED);
			return ix;
		}
	}
	unsigned k = tab->nsamples;
	if (k >= MAX_SAMPLES || tab->npool + n > POOL_PCS ||
	    tab->sample_slot[h] != 0) {
		lost += weight;
		return 0;
	}
	struct wsample *s = &tab->samples[k];
	s->tid = tid;
	s->serial = t->serial;
	s->state = state;
	s->syscall = sc;
	s->wait = wait;
	s->flags = flags;
	s->set = set;
	s->depth = n;
	s->pc_at = tab->npool;
	memcpy(&tab->pool[tab->npool], pcs, n * sizeof *pcs);
	tab->npool += n;
	s->count = weight;
	tab->sample_cut[k] = 0;	/* a compacted table's old entry */
	tab->sample_slot[h] = k + 1;
	__atomic_store_n(&tab->nsamples, k + 1, __ATOMIC_RELEASE);
	return k + 1;
}

/* Count weight more samples of the entry of index + 1 ix. */
static void sample_again(uint32_t ix, uint64_t weight)
{
	__atomic_add_fetch(&tab->samples[ix - 1].count, weight, __ATOMIC_RELAXED);
}

/* The id of the wait equal to *v (text in v->text), made if new;
 * MONOUT_NO_WAIT when the table is full. */
static uint32_t wait_id(const struct wwait *v)
{
	unsigned n = tab->nwaits;
	for (unsigned i = 0; i < n; i++) {
		const struct wwait *o = &tab->waits[i];
		if (o->w.kind == v->w.kind && o->w.fd == v->w.fd && o->w.fd_kind == v->w.fd_kind &&
		    o->w.address == v->w.address && o->w.flags == v->w.flags &&
		    o->w.owner == v->w.owner && o->w.text_len == v->w.text_len &&
		    o->has_object == v->has_object && o->bias == v->bias && o->set == v->set &&
		    memcmp(o->text, v->text, v->w.text_len) == 0)
			return i;
	}
	if (n >= MAX_WAITS)
		return MONOUT_NO_WAIT;
	struct wwait *o = &tab->waits[n];
	*o = *v;
	o->w.id = n;
	o->w.text = o->text;
	__atomic_store_n(&tab->nwaits, n + 1, __ATOMIC_RELEASE);
	return n;
}

/* ---- what a blocked thread waits on -------------------------------------- */

static void text_set(struct wwait *v, const char *s, size_t n)
{
	if (n > WAIT_TEXT)
		n = WAIT_TEXT;
	memcpy(v->text, s, n);
	v->w.text_len = (uint32_t)n;
}

/* "ADDR:PORT" of a socket address into p (room for 64 bytes). */
static char *put_addr(char *p, const struct sockaddr_storage *ss, socklen_t len)
{
	if (len == 0) {
		strcpy(p, "-");
		return p + 1;
	}
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const void *)ss;
		inet_ntop(AF_INET, &a->sin_addr, p, 48);
		p += strlen(p);
		*p++ = ':';
		return mon_put_dec(p, ntohs(a->sin_port));
	}
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const void *)ss;
		*p++ = '[';
		inet_ntop(AF_INET6, &a->sin6_addr, p, 48);
		p += strlen(p);
		*p++ = ']';
		*p++ = ':';
		return mon_put_dec(p, ntohs(a->sin6_port));
	}
	if (ss->ss_family == AF_UNIX) {
		const struct sockaddr_un *a = (const void *)ss;
		size_t n = len > offsetof(struct sockaddr_un, sun_path)
				   ? len - offsetof(struct sockaddr_un, sun_path) : 0;
		if (n == 0) {
			strcpy(p, "-");
			return p + 1;
		}
		const char *s = a->sun_path;
		if (s[0] == '\0') {	/* abstract */
			*p++ = '@';
			s++;
			n--;
		}
		size_t k = strnlen(s, n);
		if (k > 56)
			k = 56;
		memcpy(p, s, k);
		p[k] = '\0';
		return p + k;
	}
	return mon_put_dec(p, ss->ss_family);
}

/* Describe descriptor fd of the program into v (kind, text). */
static void describe_fd(int fd, struct wwait *v)
{
	char path[40], link[WAIT_TEXT];
	char *p = memcpy(path, "/proc/self/fd/", 14);
	mon_put_dec(p + 14, (uint64_t)fd);
	v->w.kind = MONOUT_WAIT_FD;
	v->w.fd = (uint32_t)fd;
	v->w.object = MONOUT_NO_OBJECT;
	ssize_t n = (ssize_t)syscall(SYS_readlinkat, AT_FDCWD, path, link, sizeof link);
	if (n <= 0) {
		v->w.fd_kind = MONOUT_FD_UNKNOWN;
		return;
	}
	if (n >= 7 && memcmp(link, "socket:", 7) == 0) {
		struct sockaddr_storage a, b;
		socklen_t la = sizeof a, lb = sizeof b;
		int type = 0;
		socklen_t lt = sizeof type;
		v->w.fd_kind = MONOUT_FD_SOCKET;
		if (syscall(SYS_getsockname, fd, &a, &la) < 0 ||
		    syscall(SYS_getsockopt, fd, SOL_SOCKET, SO_TYPE, &type, &lt) < 0) {
			text_set(v, link, (size_t)n);
			return;
		}
		if (syscall(SYS_getpeername, fd, &b, &lb) < 0)
			lb = 0;
		char t[WAIT_TEXT + 160], *q = t;
		const char *proto = a.ss_family == AF_UNIX ? "unix"
				    : type == SOCK_STREAM ? (a.ss_family == AF_INET6 ? "tcp6" : "tcp")
				    : type == SOCK_DGRAM ? (a.ss_family == AF_INET6 ? "udp6" : "udp")
				    : "socket";
		q = stpcpy(q, proto);
		*q++ = ' ';
		q = put_addr(q, &a, la);
		*q++ = ' ';
		q = put_addr(q, &b, lb);
		text_set(v, t, (size_t)(q - t));
		return;
	}
	if (n >= 5 && memcmp(link, "pipe:", 5) == 0)
		v->w.fd_kind = MONOUT_FD_PIPE;
	else if (n >= 11 && memcmp(link, "anon_inode:", 11) == 0) {
		const char *k = link + 11;
		size_t kl = (size_t)n - 11;
		v->w.fd_kind = kl >= 9 && !memcmp(k, "[eventfd]", 9) ? MONOUT_FD_EVENTFD
			       : kl >= 9 && !memcmp(k, "[timerfd]", 9) ? MONOUT_FD_TIMERFD
			       : kl >= 11 && !memcmp(k, "[eventpoll]", 11) ? MONOUT_FD_EPOLL
			       : kl >= 10 && !memcmp(k, "[signalfd]", 10) ? MONOUT_FD_SIGNALFD
			       : MONOUT_FD_OTHER;
	} else if (n >= 5 && memcmp(link, "/dev/", 5) == 0)
		v->w.fd_kind = MONOUT_FD_DEVICE;
	else if (link[0] == '/')
		v->w.fd_kind = MONOUT_FD_FILE;
	else
		v->w.fd_kind = MONOUT_FD_OTHER;
	text_set(v, link, (size_t)n);
}

/* Held while the sampler is inside dl_iterate_phdr (the loader's lock):
 * a fork waits for it (at most 50 ms: a constructor that forks under the
 * loader's lock must not wait for a sampler that waits for that lock), so
 * that no child inherits the loader's lock taken by a thread it has not. */
static pthread_mutex_t in_loader = PTHREAD_MUTEX_INITIALIZER;
static int loader_held;

static void fork_prepare(void)
{
	for (int i = 0; i < 50; i++) {
		if (pthread_mutex_trylock(&in_loader) == 0) {
			loader_held = 1;
			return;
		}
		mon_clock_own_nap(1000000);
	}
}

static void fork_parent(void)
{
	if (loader_held) {
		loader_held = 0;
		pthread_mutex_unlock(&in_loader);
	}
}

/* In a fork child, before its sampler starts (mon_wall_fork_child). */
static void fork_child_unlock(void)
{
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
	memcpy(&in_loader, &fresh, sizeof in_loader);
	loader_held = 0;
}

struct find_obj {
	uintptr_t addr;
	uint64_t bias;
	int found;
};

static int find_obj_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct find_obj *f = arg;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && f->addr >= lo && f->addr - lo < ph->p_memsz) {
			f->bias = info->dlpi_addr;
			f->found = 1;
			return 1;
		}
	}
	return 0;
}

/* The loaded object whose PT_LOAD segment holds uaddr (dl_iterate_phdr,
 * under in_loader), into *f.  The last FUTEX_CACHE answers are kept while
 * dl_iterate_phdr(3)'s counts of objects loaded and unloaded (dlpi_adds,
 * dlpi_subs) stay as they were: a futex waited on again
 * costs no walk of the loader's list then. */
#define FUTEX_CACHE 64u
static struct {
	uintptr_t addr;
	struct find_obj f;
} futex_cache[FUTEX_CACHE];
static unsigned futex_cached;
static unsigned long long cache_adds, cache_subs;

static int loads_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	unsigned long long *v = arg;
	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
		v[0] = info->dlpi_adds;
		v[1] = info->dlpi_subs;
	}
	return 1;	/* the counts are the same in every entry: the first is enough */
}

static void object_of(uintptr_t uaddr, struct find_obj *f)
{
	unsigned long long v[2] = { ~0ull, ~0ull };
	pthread_mutex_lock(&in_loader);
	dl_iterate_phdr(loads_cb, v);
	if (v[0] != cache_adds || v[1] != cache_subs || v[0] == ~0ull) {
		futex_cached = 0;
		cache_adds = v[0];
		cache_subs = v[1];
	}
	for (unsigned i = 0; i < futex_cached; i++)
		if (futex_cache[i].addr == uaddr) {
			*f = futex_cache[i].f;
			pthread_mutex_unlock(&in_loader);
			return;
		}
	*f = (struct find_obj){ uaddr, 0, 0 };
	dl_iterate_phdr(find_obj_cb, f);
	pthread_mutex_unlock(&in_loader);
	unsigned k = futex_cached < FUTEX_CACHE ? futex_cached++ : uaddr % FUTEX_CACHE;
	futex_cache[k].addr = uaddr;
	futex_cache[k].f = *f;
}

static int thread_of_ours(pid_t tid)
{
	return tid > 0 && syscall(SYS_tgkill, own_pid, tid, 0) == 0;
}

/* Where glibc's thread descriptor (struct pthread, the pthread_t) keeps
 * its thread's tid, bytes from its start: found once, in the sampler, as
 * the first int of its own descriptor equal to its tid (0: not found).
 * pthread_join(3) waits on that word (futex(2) FUTEX_WAIT with the tid as
 * the value) until the kernel clears it when the thread ends
 * (CLONE_CHILD_CLEARTID, clone(2); set_tid_address(2)). */
static size_t tid_offset;

static void find_tid_offset(void)
{
	const unsigned char *self = (const unsigned char *)pthread_self();
	pid_t me = mon_gettid();
	for (size_t off = 0; off < 2048; off += sizeof(pid_t)) {
		pid_t v;
		memcpy(&v, self + off, sizeof v);
		if (v == me) {
			tid_offset = off;
			return;
		}
	}
}

/* 1 if the futex word at uaddr, waited on for value val, is the tid word
 * of a thread's descriptor (pthread_join's wait): val is a thread of ours,
 * the word holds it, and the descriptor it would be part of starts with
 * x86-64's TCB header, whose first and third words point at the TCB itself
 * (glibc's tcbhead_t: tcb, dtv, self). */
static int is_join(uintptr_t uaddr, uint64_t val)
{
	if (tid_offset == 0 || uaddr < tid_offset || (uaddr & 3) || val == 0 || val > INT32_MAX)
		return 0;
	uintptr_t pd = uaddr - tid_offset, head[3];
	int32_t word;
	return peek(uaddr, &word, sizeof word) && (uint64_t)(uint32_t)word == val &&
	       peek(pd, head, sizeof head) && head[0] == pd && head[2] == pd &&
	       thread_of_ours((pid_t)val);
}

/* 1 if the futex word at uaddr, waited on with futex operation op, is one
 * of the two group-signal words of a glibc pthread_cond_t (struct
 * __pthread_cond_s, 64-bit, since glibc 2.25: __wseq u64 at 0, __g1_start
 * u64 at 8, __g_refs[2] at 16, __g_size[2] at 24, __g1_orig_size at 32,
 * __wrefs at 36, __g_signals[2] at 40) with a waiter registered: __wrefs
 * counts the waiters in units of 8 (at least 1, and no more than __wseq
 * has started, in units of 2), its bit 0 says process-shared, which the
 * wait's FUTEX_PRIVATE_FLAG must agree with.  A heuristic of the layout,
 * confirmed by prof where a data symbol holds the word. */
static int is_condvar(uintptr_t uaddr, unsigned op)
{
	if (uaddr & 3)
		return 0;
	uintptr_t base = (uaddr & 7) ? uaddr - 44 : uaddr - 40;
	uint64_t c[6];
	if (base >= uaddr || !peek(base, c, sizeof c))
		return 0;
	uint32_t wrefs = (uint32_t)(c[4] >> 32);
	int shared = (wrefs & 1) != 0, private_op = (op & FUTEX_PRIVATE_FLAG) != 0;
	return (wrefs >> 3) >= 1 && (wrefs >> 3) <= c[0] >> 1 && shared != private_op;
}

/* The futex word at uaddr, waited on with operation op (futex(2): a
 * command and flags) and value val. */
static void describe_futex(uintptr_t uaddr, unsigned op, uint64_t val, struct wwait *v)
{
	unsigned cmd = op & FUTEX_CMD_MASK;
	v->w.kind = MONOUT_WAIT_FUTEX;
	v->w.fd = MONOUT_NO_FD;
	v->w.address = uaddr;
	v->w.object = MONOUT_NO_OBJECT;
	v->w.offset = uaddr;
	struct find_obj f;
	object_of(uaddr, &f);
	if (f.found) {
		v->has_object = 1;
		v->bias = f.bias;
		v->set = mon_objhist_set_now();
		v->w.offset = uaddr - f.bias;
	}
	/* struct __pthread_mutex_s (x86_64 glibc): int __lock, unsigned
	 * __count, int __owner, unsigned __nusers, int __kind. */
	int32_t m[5];
	if (cmd == FUTEX_LOCK_PI || cmd == FUTEX_LOCK_PI2) {
		if (peek(uaddr, m, 4) && thread_of_ours(m[0] & FUTEX_TID_MASK)) {
			v->w.owner = (uint64_t)(m[0] & FUTEX_TID_MASK);
			v->w.flags |= MONOUT_WAIT_OWNER | MONOUT_WAIT_MUTEX;
		}
		return;
	}
	if (cmd != FUTEX_WAIT && cmd != FUTEX_WAIT_BITSET)
		return;
	if (val == 2 && (uaddr & 3) == 0 && peek(uaddr, m, sizeof m) && m[0] != 0 &&
	    (m[4] & ~0x7f) == 0 && thread_of_ours(m[2])) {
		v->w.owner = (uint64_t)m[2];
		v->w.flags |= MONOUT_WAIT_OWNER | MONOUT_WAIT_MUTEX;
	} else if (is_join(uaddr, val)) {
		v->w.owner = val;
		v->w.flags |= MONOUT_WAIT_OWNER | MONOUT_WAIT_JOIN;
	} else if (is_condvar(uaddr, op)) {
		v->w.flags |= MONOUT_WAIT_CONDVAR;
	}
}

/* Fill v for system call nr with arguments a[6]; 0 if it waits on nothing
 * described here. */
static int describe_wait(long nr, const uint64_t *a, struct wwait *v)
{
	memset(v, 0, sizeof *v);
#ifndef __x86_64__
	/* The numbers below are x86-64's: elsewhere no wait is described yet. */
	(void)a;
	(void)describe_fd;
	(void)describe_futex;
#endif
	switch (nr) {
#ifdef __x86_64__
	case SYS_read: case SYS_write: case SYS_readv: case SYS_writev:
	case SYS_pread64: case SYS_pwrite64: case SYS_preadv: case SYS_pwritev:
	case SYS_preadv2: case SYS_pwritev2:
	case SYS_recvfrom: case SYS_sendto: case SYS_recvmsg: case SYS_sendmsg:
	case SYS_recvmmsg: case SYS_sendmmsg: case SYS_accept: case SYS_accept4:
	case SYS_connect: case SYS_epoll_wait: case SYS_epoll_pwait:
#ifdef SYS_epoll_pwait2
	case SYS_epoll_pwait2:
#endif
	case SYS_flock: case SYS_fsync: case SYS_fdatasync: case SYS_sendfile:
		describe_fd((int)a[0], v);
		return 1;
	case SYS_poll: case SYS_ppoll: {
		struct pollfd pf;
		if (a[1] == 0 || !peek((uintptr_t)a[0], &pf, sizeof pf) || pf.fd < 0)
			return 0;
		describe_fd(pf.fd, v);
		return 1;
	}
	case SYS_select: case SYS_pselect6: {
		unsigned nfds = (unsigned)a[0];
		uint64_t word;
		for (int set = 1; set <= 3; set++) {
			if (a[set] == 0)
				continue;
			for (unsigned w = 0; w * 64 < nfds && w < FD_SETSIZE / 64; w++) {
				if (!peek((uintptr_t)a[set] + w * 8, &word, 8))
					break;
				if (w * 64 + 64 > nfds && nfds % 64)
					word &= ((uint64_t)1 << (nfds % 64)) - 1;
				if (word) {
					describe_fd((int)(w * 64 + (unsigned)__builtin_ctzll(word)), v);
					return 1;
				}
			}
		}
		return 0;
	}
	case SYS_futex:
		describe_futex((uintptr_t)a[0], (unsigned)a[1], a[2], v);
		return 1;
#endif
	}
	return 0;
}

/* ---- one thread, one round ----------------------------------------------- */

struct sysread {
	int running;		/* "running" */
	long nr;		/* -1: blocked outside a system call */
	uint64_t args[6], sp, pc;
};

static int parse_syscall(const char *s, struct sysread *r)
{
	memset(r, 0, sizeof *r);
	if (strncmp(s, "running", 7) == 0) {
		r->running = 1;
		return 1;
	}
	int64_t nr;
	if (!decnum(&s, &nr))
		return 0;
	r->nr = (long)nr;
	if (nr >= 0)
		for (int i = 0; i < 6; i++)
			if (!hexnum(&s, &r->args[i]))
				return 0;
	return hexnum(&s, &r->sp) && hexnum(&s, &r->pc);
}

/* State letter and start time (clock ticks after boot) from stat; name into
 * the thread's entry.  keep: the descriptor is kept open (a blocked
 * thread's, read again each time it blocks anew), when the budget allows.
 * 0 if unreadable. */
static int read_stat(struct wthread *t, int keep, char *letter, uint64_t *start_ticks)
{
	char buf[1024];
	int none = -1;
	if (read_task(t, "stat", keep ? &t->fd_stat : &none, keep, buf, sizeof buf) <= 0)
		return 0;
	char *open_p = strchr(buf, '('), *close_p = strrchr(buf, ')');
	if (open_p == NULL || close_p == NULL || close_p[1] != ' ')
		return 0;
	size_t nl = (size_t)(close_p - open_p - 1);
	if (nl > MONOUT_THREAD_NAME_LEN - 1)
		nl = MONOUT_THREAD_NAME_LEN - 1;
	char name[MONOUT_THREAD_NAME_LEN] = { 0 };
	memcpy(name, open_p + 1, nl);
	memcpy(t->out.name, name, sizeof name);
	*letter = close_p[2];
	/* Field 22 (starttime) is the 20th after the state (field 3). */
	const char *s = close_p + 3;
	for (int f = 4; f < 22 && *s; f++) {
		while (*s && *s != ' ')
			s++;
		while (*s == ' ')
			s++;
	}
	int64_t st = 0;
	*start_ticks = decnum(&s, &st) && st > 0 ? (uint64_t)st : 0;
	return 1;
}

/* A memory reader (memread.h) of a blocked thread's stack: the words in
 * [sp, sp + got) from the copy of them in copy_area (one moment's, taken
 * by one process_vm_readv), any other address read checked from the live
 * memory (peek).  Addresses are the thread's own: a saved RBP or a CFA
 * points into its stack, not into the copy. */
struct copy_reader {
	struct mon_memreader r;	/* first: read() gets &r */
	uintptr_t sp;
	size_t got;
};

static int copy_read(struct mon_memreader *m, uintptr_t a, uintptr_t *out)
{
	const struct copy_reader *c = (const struct copy_reader *)(void *)m;
	if (a >= c->sp && a - c->sp <= c->got && c->got - (a - c->sp) >= sizeof *out) {
		memcpy(out, copy_area + (a - c->sp), sizeof *out);
		return 1;
	}
	return peek(a, out, sizeof *out);
}

/* Walk the blocked thread's stack from sp/pc (proc(5)'s syscall file: no
 * frame pointer): pcs[0..return), *flags MON_STACK_*.  mon_unwind_regs
 * with RBP unknown: a frame whose CFA is RSP-based goes on; RBP becomes
 * known where a frame's CFI says it saved it; a frame whose CFA needs RBP
 * before then has its frame record searched for above its SP (unwind.c's
 * fp_search), and the walk ends, flagged truncated, only where none is
 * found. */
static unsigned walk_blocked(uintptr_t sp, uintptr_t pc, uintptr_t *pcs, unsigned max,
			     unsigned *flags)
{
	struct copy_reader c;
	struct iovec l = { copy_area, COPY_BYTES }, r = { (void *)sp, COPY_BYTES };
	long got = syscall(SYS_process_vm_readv, own_pid, &l, 1ul, &r, 1ul, 0ul);
	mon_memread_other(&c.r);
	c.r.read = copy_read;
	c.sp = sp;
	c.got = got > 0 ? (size_t)got : 0;
	struct mon_unwind_regs regs = { .pc = pc, .sp = sp };
	unsigned fl = 0;
	unsigned n = mon_unwind_regs(&regs, &c.r, pcs, max, &fl);
	if (n == 0) {
		pcs[0] = pc;
		n = 1;
		fl |= MON_STACK_TRUNCATED;
	}
	*flags = fl;
	return n;
}

static uint32_t state_of(char letter)
{
	switch (letter) {
	case 'S':
		return MONOUT_WALL_BLOCKED;
	case 'D':
		return MONOUT_WALL_DISK;
	case 'T':
	case 't':
		return MONOUT_WALL_STOPPED;
	case 'R':
		return MONOUT_WALL_BLOCKED;	/* woke between the two reads: it was blocked */
	}
	return MONOUT_WALL_OTHER;
}

/* Thread t's schedstat (proc(5): its CPU time, run-queue wait, times put on
 * a CPU) read once a full read, for all that uses it; ok 0 when the kernel
 * has none or the read failed. */
struct sched {
	int ok;
	uint64_t cpu, wait, runs, ns;	/* ns: when read, CLOCK_MONOTONIC */
};

static void sched_read(struct wthread *t, struct sched *s)
{
	char buf[128];
	memset(s, 0, sizeof *s);
	s->ns = mono_ns();
	if (!have_schedstat || read_task(t, "schedstat", &t->fd_sched, 1, buf, sizeof buf) <= 0)
		return;
	const char *p = buf;
	int64_t cpu, wait, runs;
	if (!decnum(&p, &cpu) || !decnum(&p, &wait) || cpu < 0 || wait < 0)
		return;
	if (!decnum(&p, &runs) || runs < 0)
		runs = -1;
	s->cpu = (uint64_t)cpu;
	s->wait = (uint64_t)wait;
	s->runs = runs < 0 ? UINT64_MAX : (uint64_t)runs;	/* UINT64_MAX: unknown */
	s->ok = 1;
}

/* RUNNABLE with probability share (1/65536), else RUNNING: error diffusion
 * in t->credit. */
static uint32_t runnable_next(struct wthread *t, int64_t share)
{
	t->credit += share;
	if (t->credit >= 32768) {
		t->credit -= 65536;
		return MONOUT_WALL_RUNNABLE;
	}
	return MONOUT_WALL_RUNNING;
}

/* The split of a thread's time over the last round, from the kernel's own
 * accounting (its CPU clock and schedstat), for time_pick.  A round looks
 * at a thread at one moment, and that moment is not independent of what
 * the thread does: the sampler, woken on a CPU the thread is running on,
 * is often not run until the thread blocks (no wakeup preemption), so a
 * thread working and sleeping in turns shorter than the period was found
 * blocked at 80 % of the rounds for 50 % of its time (wall_duty.sh). */
struct share {
	int have;		/* 0: not known (see time_share) */
	int64_t on;		/* on a CPU or wanting one: (dc + dw) / d, 1/65536 */
	int64_t queued;		/* of that, waiting for one: dw / (dc + dw), 1/65536 */
	int stayed;		/* never put on a CPU again: on it all along if R at both ends */
};

/* An R thread: running or runnable.  Over the time since its last
 * schedstat read (d, CLOCK_MONOTONIC) it ran dc and waited in a run queue
 * dw (schedstat, in *ss).  Seen R at both ends (prev_r) and never put on a
 * CPU again meanwhile (schedstat's run count unchanged: it stayed on its
 * CPU), it wanted a CPU all along: runnable for d - dc, the time its CPU
 * was taken from it by the hypervisor's steal (in neither dc nor dw on a
 * virtual machine).  Else it may have blocked in between (a server's
 * thread, R at each round, in epoll_wait between them: taken for d - dc,
 * those sleeps were counted runnable, and redis under load showed 2.2 s
 * runnable and 0.8 s less running than its CPU): runnable for
 * dw / (dc + dw) of its R time.  The sample is runnable with that
 * probability, by error diffusion in t->credit; but when the round's own
 * split is known (*sh, time_share) and it did not stay on its CPU, with
 * that round's: the rounds it had not run since its last read were each
 * charged runnable already, and their wait, in dw too, was counted twice
 * (16 threads on 2 CPUs: 6.6 % running against 12.8 %, wall_turns.sh). */
static uint32_t split_running(struct wthread *t, int prev_r, const struct sched *ss,
			      const struct share *sh)
{
	if (!ss->ok)
		return MONOUT_WALL_RUNNING;
	uint64_t dc = ss->cpu - t->sched_cpu, dw = ss->wait - t->sched_wait;
	uint64_t d = ss->ns - t->sched_ns;
	int first = t->sched_ns == 0;
	int stayed = ss->runs != UINT64_MAX && ss->runs == t->sched_runs;
	t->sched_cpu = ss->cpu;
	t->sched_wait = ss->wait;
	t->sched_runs = ss->runs;
	t->sched_ns = ss->ns;
	if (first || dc + dw == 0) {
		t->ratio = 0;
		return MONOUT_WALL_RUNNING;
	}
	if (prev_r && stayed && d > dc)
		t->ratio = (int64_t)((double)(d - dc) / (double)d * 65536.0);
	else
		t->ratio = (int64_t)((double)dw / (double)(dc + dw) * 65536.0);
	if (sh->have && !(prev_r && stayed))
		return runnable_next(t, sh->queued);	/* this round's own split */
	return runnable_next(t, t->ratio);
}

/* Thread t was found blocked at its last full read, and at the t->again
 * rounds since it had not run (each charged to that blocked sample again).
 * Now it has run: it was woken at some point of those rounds and waited in
 * a run queue until its first run, and schedstat's run-queue wait grew by
 * that wait and by those before each later run since (its run count says
 * how many; they are taken as equal).  So many of those rounds found it
 * runnable, not blocked: moved (by error diffusion of wait x rate, in
 * t->wake_credit) from the blocked sample to a runnable one, as far as the
 * files cut so far have not taken them.  Without it a thread woken often on
 * a busy machine is blocked at every round it waits for a CPU: a server's
 * loop under redis-benchmark at load 6, 7.1 s blocked against perf's 2.7 s
 * (bench/wall_server_vs_perf.sh); tests/integ/wall_woken.sh's thread, 85 %
 * blocked against a truth of 32 % (26 % with it, against 26 %).  *ss: its
 * schedstat now.  Returns the run-queue wait (ns) the rounds moved stand
 * for, which this round's split (time_share) leaves out. */
static uint64_t woken_wait(struct wthread *t, const struct sched *ss)
{
	uint64_t w = t->block_wait;
	if (t->again == 0 || t->last == 0 || w == UINT64_MAX || !ss->ok || ss->runs == UINT64_MAX)
		return 0;
	uint64_t runs = ss->runs, now = ss->wait;
	if (now < w || runs <= t->block_runs)
		return 0;
	/* The wait before its first run: the waits before each of its runs
	 * since are taken as equal. */
	uint64_t first = (now - w) / (runs - t->block_runs);
	t->wake_credit += (int64_t)(first * rate);
	int64_t k = (t->wake_credit + 500000000) / 1000000000;
	if (k <= 0)
		return 0;
	t->wake_credit -= k * 1000000000;
	uint64_t moved = (uint64_t)k < t->again ? (uint64_t)k : t->again;
	uint64_t taken = moved * 1000000000u / rate;	/* the wait those rounds account for */
	struct wsample *e = &tab->samples[t->last - 1];
	uint64_t c = __atomic_load_n(&e->count, __ATOMIC_RELAXED);
	uint64_t cut = __atomic_load_n(&tab->sample_cut[t->last - 1], __ATOMIC_RELAXED);
	if (moved > c - (cut < c ? cut : c))
		moved = c - (cut < c ? cut : c);
	if (moved == 0)
		return taken;
	__atomic_sub_fetch(&e->count, moved, __ATOMIC_RELAXED);
	if (sample_count(t, MONOUT_WALL_RUNNABLE, MONOUT_NO_SYSCALL, MONOUT_NO_WAIT, 0, 0,
			 NULL, 0, moved) == 0)
		__atomic_add_fetch(&e->count, moved, __ATOMIC_RELAXED);	/* no room: left as it was */
	t->again = 0;
	return taken;
}

/* Thread t's share of the round that ends now: its CPU clock went from
 * was_cpu (found at was_ns, the last round) to cpu, and schedstat (*ss)
 * from its last full read's.  The wait schedstat counted since that read
 * less what the rounds since, which found it had not run, stand for: those
 * charged runnable (t->queued_ns) and the wait woken_wait moved out of
 * those charged blocked (woken, ns) is this round's.  Known when a round
 * has seen it before and the kernel has schedstat (without it a wait for a
 * CPU would count blocked). */
static void time_share(struct wthread *t, uint64_t was_cpu, uint64_t cpu, uint64_t was_ns,
		       uint64_t woken, const struct sched *ss, struct share *sh)
{
	uint64_t ow = t->obs_wait, orun = t->obs_runs, q = t->queued_ns;
	memset(sh, 0, sizeof *sh);
	t->obs_wait = ss->ok ? ss->wait : UINT64_MAX;
	t->obs_runs = ss->runs;
	t->queued_ns = 0;
	if (!ss->ok || ow == UINT64_MAX || ss->wait < ow || was_cpu == UINT64_MAX ||
	    cpu < was_cpu || was_ns == 0 || ss->ns <= was_ns)
		return;
	uint64_t d = ss->ns - was_ns, dc = cpu - was_cpu, dw = ss->wait - ow;
	q += woken;
	dw = dw > q ? dw - q : 0;	/* the rounds it had not run, charged runnable */
	sh->have = 1;
	sh->on = dc + dw >= d ? 65536 : (int64_t)((double)(dc + dw) / (double)d * 65536.0);
	sh->queued = dc + dw ? (int64_t)((double)dw / (double)(dc + dw) * 65536.0) : 0;
	sh->stayed = ss->runs != UINT64_MAX && ss->runs == orun;
}

/* Whether this round's sample of the thread is on a CPU or wanting one (1)
 * or blocked (0), by error diffusion of its share (t->share_credit), so
 * that its samples split as its time did; the read found it R (found_r) or
 * blocked, and gives the stack when they agree.  -1: no share known, the
 * read says.  Rounded to the nearest (on at half a sample of credit): on at
 * any credit above 0, each thread's first share counted on, and threads of
 * ten samples were 15.3 % running against 9.7 % (wall_turns_short). */
static int time_pick(struct wthread *t, const struct share *sh, int found_r, int prev_r)
{
	if (!sh->have)
		return -1;
	int64_t on = found_r && prev_r && sh->stayed ? 65536 : sh->on;
	t->share_credit += on;
	if (t->share_credit >= 32768) {
		t->share_credit -= 65536;
		return 1;
	}
	return 0;
}

/* A thread in restart_syscall(2): a timed call (nanosleep, poll,
 * epoll_wait, futex with a timeout) that a stop (SIGSTOP, SIGTSTP, a
 * tracer) or a handler interrupted, resumed by the kernel from its restart
 * block, whose number and arguments /proc's "syscall" no longer shows.  The
 * PC is that call's (the kernel rewinds to its instruction), so the thread's
 * last blocked sample, if it has one, names the call and its wait: into *nr
 * and *wid, 1; else 0 (prof shows [restart_syscall]). */
static int resumed_call(const struct wthread *t, long *nr, uint32_t *wid)
{
	if (t->blocked_at == 0)
		return 0;
	uint32_t ix = t->blocked[(t->blocked_at - 1) % BLOCKED_KEPT];
	if (ix == 0 || ix > tab->nsamples)
		return 0;
	const struct wsample *s = &tab->samples[ix - 1];
	if (s->serial != t->serial || s->syscall == MONOUT_NO_SYSCALL ||
	    s->syscall == (uint32_t)SYS_restart_syscall)
		return 0;
	*nr = (long)s->syscall;
	*wid = s->wait;
	return 1;
}

/* Set once a thread's system call could not be read because the process
 * is not dumpable (MONOUT_WALL_F_NOT_DUMPABLE); cleared at each interval's
 * cut, so that an interval's file says it only of its own reads (a process
 * that becomes dumpable again, prctl(PR_SET_DUMPABLE, 1), is read whole
 * from then on). */
static int not_dumpable;

/* full_read of a thread whose system call file cannot be opened: a process
 * that is not dumpable (it changed its user or group IDs, which makes the
 * kernel clear the flag, or it called prctl(PR_SET_DUMPABLE, 0)) has its
 * /proc/PID files owned by root, and "syscall" is readable by its owner
 * only (proc(5); fs/proc/base.c task_dump_owner); without CAP_DAC_OVERRIDE
 * the open fails with EACCES.  "stat" is readable by all: the state from
 * it, the thread on a CPU or waiting as its letter says, with no system
 * call, wait or stack (the user SP and PC come from "syscall").  Returns as
 * full_read. */
static long state_only_read(struct wthread *t, int prev_r, const struct sched *ss,
			    const struct share *sh)
{
	__atomic_store_n(&not_dumpable, 1, __ATOMIC_RELAXED);
	char letter;
	uint64_t st;
	if (!read_stat(t, 1, &letter, &st))
		return errno == ENOENT || errno == ESRCH ? -2 : -1;
	t->again = 0;
	t->block_wait = UINT64_MAX;
	if (letter == 'R') {
		t->last_state = split_running(t, prev_r, ss, sh);
		return sample_count(t, t->last_state, MONOUT_NO_SYSCALL, MONOUT_NO_WAIT, 0, 0, NULL,
				    0, 0);
	}
	t->last_state = state_of(letter);
	t->block_wait = ss->ok && ss->runs != UINT64_MAX ? ss->wait : UINT64_MAX;
	t->block_runs = ss->runs;
	uint32_t ix = sample_count(t, t->last_state, MONOUT_NO_SYSCALL, MONOUT_NO_WAIT, 0, 0, NULL,
				   0, 0);
	if (ix)
		t->blocked[t->blocked_at++ % BLOCKED_KEPT] = ix;
	return ix;
}

/* A full read of thread t (*ss: its schedstat now, *sh: its share of the
 * round, for an R thread's split): the sample it finds, made in the table
 * and not counted (count_units counts).  Returns its index + 1, 0 if the
 * table had no room; -1 if its state could not be read; -2 if the thread
 * is gone. */
static long full_read(struct wthread *t, uint64_t cpu, const struct sched *ss,
		      const struct share *sh)
{
	int prev_r = t->last && (t->last_state == MONOUT_WALL_RUNNING ||
				 t->last_state == MONOUT_WALL_RUNNABLE);
	uintptr_t pcs[MON_WALL_DEPTH_MAX];
	for (int attempt = 0;; attempt++) {
		char buf[256];
		struct sysread sr;
		ssize_t got = read_task(t, "syscall", &t->fd_sys, 1, buf, sizeof buf);
		if (got == 0)
			return -2;	/* nothing to say: the thread is exiting */
		if (got < 0 && (errno == EACCES || errno == EPERM))
			return state_only_read(t, prev_r, ss, sh);
		if (got < 0)
			return errno == ENOENT || errno == ESRCH ? -2 : -1;
		if (!parse_syscall(buf, &sr))
			return -1;
		t->again = 0;
		t->block_wait = UINT64_MAX;
		if (sr.running) {
			/* A blocked thread's name comes with each read of its
			 * stat; a running one's is read again at its first full
			 * read after its first sight (which is often before it
			 * names itself: pthread_setname_np(3) as it starts),
			 * then at most once a second (NAME_EVERY_NS): a worker
			 * that names itself and never blocks is shown by the
			 * name it took. */
			uint64_t now = mono_ns();
			int named = t->out.name[0] != '\0';
			if (!named || t->name_ns == 0 || now - t->name_ns >= NAME_EVERY_NS) {
				char letter;
				uint64_t st;
				read_stat(t, 0, &letter, &st);
				/* The first name read is that first one: the
				 * next full read reads it again. */
				t->name_ns = named ? now : 0;
			}
			t->last_state = split_running(t, prev_r, ss, sh);
			return sample_count(t, t->last_state, MONOUT_NO_SYSCALL,
					    MONOUT_NO_WAIT, 0, 0, pcs, 0, 0);
		}
		char letter = 'S';
		uint64_t st = 0;
		read_stat(t, 1, &letter, &st);
		struct wwait v;
		uint32_t wid = MONOUT_NO_WAIT;
		if (sr.nr == SYS_restart_syscall && resumed_call(t, &sr.nr, &wid))
			;	/* the call a stop interrupted, resumed: as it was */
		else if (sr.nr >= 0 && describe_wait(sr.nr, sr.args, &v))
			wid = wait_id(&v);
		uint32_t set = mon_objhist_set_now();	/* the objects the walk's PCs are in */
		unsigned fl = 0, n = walk_blocked((uintptr_t)sr.sp, (uintptr_t)sr.pc, pcs, depth_max,
					       &fl);
		if (thread_cpu_ns(t->tid) != cpu) {
			/* It ran while we read: the stack may be of another moment. */
			if (attempt < RACE_RETRIES) {
				cpu = thread_cpu_ns(t->tid);
				t->cpu_ns = cpu;
				continue;
			}
			n = 1;
			pcs[0] = (uintptr_t)sr.pc;
			fl = MON_STACK_TRUNCATED;
		}
		t->last_state = state_of(letter);
		t->block_wait = ss->ok && ss->runs != UINT64_MAX ? ss->wait : UINT64_MAX;
		t->block_runs = ss->runs;
		uint32_t ix = sample_count(t, t->last_state,
					   sr.nr >= 0 ? (uint32_t)sr.nr : MONOUT_NO_SYSCALL, wid, fl, set,
					   pcs, n, 0);
		if (ix)
			t->blocked[t->blocked_at++ % BLOCKED_KEPT] = ix;
		return ix;
	}
}

/* One of the last blocked samples thread t was found in (t->blocked, the
 * last BLOCKED_KEPT, each in turn) into *ix; 0 if none.  The last alone is
 * where the thread blocked before this turn on a CPU: a thread sleeping at
 * a short and at a long place in turns was found R just after the long one
 * more often, and its short place had 8.2 % of its blocked samples against
 * 15.3 % of its blocked time (wall_turns_places); those found over several
 * looks are where it blocks as often as its time there says. */
static int blocked_next(struct wthread *t, uint32_t *ix)
{
	uint32_t kept = t->blocked_at < BLOCKED_KEPT ? t->blocked_at : BLOCKED_KEPT;
	if (kept == 0 || (*ix = t->blocked[t->blocked_pick % kept]) == 0)
		return 0;
	t->blocked_pick++;
	return 1;
}

/* Count w samples of thread t whose full read found sample ix (index + 1;
 * found_r: R, running or runnable; prev_r: R at its last read, as
 * the late rounds take them), each where time_pick puts
 * it: on a CPU or wanting one, the read's sample when it found the thread
 * R, else running or runnable as schedstat split its time (sh->queued);
 * blocked, the read's sample when it found it blocked, else one of its
 * last blocked samples (blocked_next).  With no share known
 * (first read, no schedstat), all go to the read's sample, but for a
 * thread R at both reads: the rounds after the first split as its last R
 * interval's (t->ratio).  Returns the samples counted. */
static uint64_t count_units(struct wthread *t, uint32_t ix, int found_r, int prev_r,
			    const struct share *sh, uint64_t w)
{
	if (ix == 0) {
		lost += w;
		return 0;
	}
	uint64_t n = 0;
	uint32_t bl;
	for (uint64_t u = 0; u < w; u++) {
		int pick = time_pick(t, sh, found_r, prev_r);
		uint32_t at = ix;
		if (pick < 0 ? u > 0 && found_r && prev_r : pick == 1 && (u > 0 || !found_r))
			at = sample_count(t,
					  runnable_next(t, pick < 0 ? t->ratio : sh->queued),
					  MONOUT_NO_SYSCALL, MONOUT_NO_WAIT, 0, 0, NULL, 0, 1);
		else if (pick == 0 && found_r && blocked_next(t, &bl))
			sample_again(bl, 1);
		else
			sample_again(ix, 1);
		n += at != 0;
	}
	return n;
}

/* 1 if thread t, R (running or runnable) at its last full read, is not R
 * now though its CPU clock has not moved: it ran and blocked in a stretch
 * its clock did not count.  The clock is the scheduler's task time, which
 * leaves out the time the hypervisor stole from the virtual CPU
 * (CONFIG_PARAVIRT_TIME_ACCOUNTING: kernel/sched/core.c
 * update_rq_clock_task), so on a guest whose host is busy a short run to a
 * blocking call can add nothing to it.  Without this look at its state
 * letter the thread was "waiting for a CPU" for as long as it slept (CI of
 * e4e77c5: a thread blocked 1 s in read(2) had 251 of 251 samples
 * runnable).  Costs one pread of its stat (kept open) at the first look
 * after the full read that found it R, then at every 8th, and only while
 * its clock stands still. */
static int left_r(struct wthread *t)
{
	if (t->last_state != MONOUT_WALL_RUNNING && t->last_state != MONOUT_WALL_RUNNABLE)
		return 0;
	/* At the first look after the read (a run cut short by a blocking
	 * call), then every 8th: a thread that waits long for a CPU, whose
	 * clock stands still too, costs an eighth of a read a look. */
	if (++t->r_still != 1 && t->r_still % 8 != 0)
		return 0;
	char letter;
	uint64_t st;
	return read_stat(t, 1, &letter, &st) && letter != 'R';
}

/* Sample thread t.  weight: the rounds since the last look at it (the
 * sampler looks once every look_rounds rounds, and more when it was
 * late).  A thread that has not run since its last full read was where
 * that read found it for the whole time: it gets them all.  One that ran
 * gets them split as its time since the last look was (count_units).
 * stopped: of those, the rounds of a stop of the whole process
 * (stopped_for): [stopped] where its last sample was, and the time of the
 * stop out of what schedstat's split spans. */
static int sample_thread(struct wthread *t, uint64_t weight, uint64_t cpu, uint64_t stopped)
{
	if (cpu == UINT64_MAX)
		cpu = thread_cpu_ns(t->tid);
	if (cpu == UINT64_MAX)
		return 0;	/* gone */
	if (stopped > 0 && t->last) {
		const struct wsample *e = &tab->samples[t->last - 1];
		if (sample_count(t, MONOUT_WALL_STOPPED, e->syscall, e->wait, e->flags, e->set,
				 &tab->pool[e->pc_at], e->depth, stopped) != 0)
			__atomic_add_fetch(&t->out.taken, stopped, __ATOMIC_RELAXED);
		weight -= stopped;
		uint64_t now = mono_ns();
		if (t->sched_ns)
			t->sched_ns = t->sched_ns + stop_len_ns < now ? t->sched_ns + stop_len_ns : now;
		if (t->obs_ns)
			t->obs_ns = t->obs_ns + stop_len_ns < now ? t->obs_ns + stop_len_ns : now;
		if (weight == 0)
			return 1;
	}
	if (cpu == t->cpu_ns && t->last && !left_r(t)) {
		if (t->last_state == MONOUT_WALL_RUNNING || t->last_state == MONOUT_WALL_RUNNABLE) {
			/* Seen R, has not run since: waiting for a CPU. */
			t->last_state = MONOUT_WALL_RUNNABLE;
			t->last = sample_count(t, MONOUT_WALL_RUNNABLE, MONOUT_NO_SYSCALL,
					       MONOUT_NO_WAIT, 0, 0, NULL, 0, weight);
		} else {
			sample_again(t->last, weight);
			t->again += weight;
		}
		if (t->last)
			__atomic_add_fetch(&t->out.taken, weight, __ATOMIC_RELAXED);
		uint64_t now = mono_ns();
		if (t->last_state == MONOUT_WALL_RUNNABLE && t->obs_ns && now > t->obs_ns)
			t->queued_ns += now - t->obs_ns;
		t->obs_ns = now;
		return 1;
	}
	t->r_still = 0;
	uint64_t was_cpu = t->last ? t->cpu_ns : UINT64_MAX, was_ns = t->obs_ns;
	int prev_r = t->last && (t->last_state == MONOUT_WALL_RUNNING ||
				 t->last_state == MONOUT_WALL_RUNNABLE);
	struct sched ss;
	struct share sh;
	sched_read(t, &ss);
	t->cpu_ns = cpu;
	t->obs_ns = ss.ns;
	uint64_t woken = woken_wait(t, &ss);
	time_share(t, was_cpu, cpu, was_ns, woken, &ss, &sh);
	long r = full_read(t, cpu, &ss, &sh);
	if (r == -2) {
		/* Exiting (it ran to its end since the last look): the rounds
		 * split as its time was, the blocked ones where it was last
		 * seen blocked. */
		t->last_state = MONOUT_WALL_RUNNING;
		uint32_t ix = sample_count(t, MONOUT_WALL_RUNNING, MONOUT_NO_SYSCALL,
					   MONOUT_NO_WAIT, 0, 0, NULL, 0, 0);
		uint64_t n = count_units(t, ix, 1, prev_r, &sh, weight);
		if (n)
			__atomic_add_fetch(&t->out.taken, n, __ATOMIC_RELAXED);
		t->last = 0;
		return 1;
	}
	if (r < 0) {
		t->last = 0;
		__atomic_add_fetch(&t->out.unreadable, 1, __ATOMIC_RELAXED);
		return 1;
	}
	t->last = (uint32_t)r;
	int found_r = t->last_state == MONOUT_WALL_RUNNING || t->last_state == MONOUT_WALL_RUNNABLE;
	uint64_t n = count_units(t, (uint32_t)r, found_r, prev_r, &sh, weight);
	if (n)
		__atomic_add_fetch(&t->out.taken, n, __ATOMIC_RELAXED);
	return 1;
}

/* A thread listed for the first time: its name and, when it started
 * after the sampler (since_ns, the last round that did not list it, is
 * not 0), when: the later of since_ns and its start time (stat's
 * starttime, clock ticks after boot: CLOCK_BOOTTIME). */
static void first_sight(struct wthread *t, uint64_t since_ns, uint64_t now_ns)
{
	char letter;
	uint64_t st = 0;
	int read = read_stat(t, 0, &letter, &st);
	if (since_ns == 0)
		return;
	/* Not there at the last look: started since, even when gone before
	 * its stat could be read (a row ended and never started, else). */
	__atomic_or_fetch(&t->out.flags, MONOUT_WALL_THREAD_STARTED, __ATOMIC_RELAXED);
	uint64_t at = since_ns;
	if (read && st) {
		long tck = sysconf(_SC_CLK_TCK);
		struct timespec bt;
		clock_gettime(CLOCK_BOOTTIME, &bt);
		uint64_t boot_now = (uint64_t)bt.tv_sec * 1000000000u + (uint64_t)bt.tv_nsec;
		uint64_t born = st * (1000000000u / (uint64_t)(tck > 0 ? tck : 100));
		uint64_t age = boot_now > born ? boot_now - born : 0;
		uint64_t when = now_ns > age ? now_ns - age : 0;
		if (when > at)
			at = when;
	}
	t->out.first_usec = at > start_ns ? (at - start_ns) / 1000 : 0;
}

static void thread_ended(struct wthread *t)
{
	t->ended = 1;
	if (t->fd_sys >= 0) {
		close_ours(t->fd_sys);
		fds_kept -= fds_kept > 0;
	}
	if (t->fd_sched >= 0) {
		close_ours(t->fd_sched);
		fds_kept -= fds_kept > 0;
	}
	if (t->fd_stat >= 0) {
		close_ours(t->fd_stat);
		fds_kept -= fds_kept > 0;
	}
	t->fd_sys = t->fd_sched = t->fd_stat = -1;
	t->out.last_usec = t->seen_ns > start_ns ? (t->seen_ns - start_ns) / 1000 : 0;
	__atomic_or_fetch(&t->out.flags, MONOUT_WALL_THREAD_ENDED, __ATOMIC_RELEASE);
}

static uint64_t due_between(uint64_t lo, uint64_t hi);
static uint64_t stopped_rounds(uint64_t lo, uint64_t hi, uint64_t w);

/* A thread listed (or announced at born_ns, else 0) in round r. */
static void seen(struct wthread *t, uint64_t r, uint64_t since_ns, uint64_t now_ns,
		 uint64_t born_ns, uint64_t cpu)
{
	if (t->seen_round == r)
		return;
	int fresh = t->seen_round == 0;
	if (fresh) {
		if (born_ns && looks > 0) {
			/* Its start is known: its name comes with a later read of stat. */
			__atomic_or_fetch(&t->out.flags, MONOUT_WALL_THREAD_STARTED,
					  __ATOMIC_RELAXED);
			t->out.first_usec = born_ns > start_ns ? (born_ns - start_ns) / 1000 : 0;
		} else {
			first_sight(t, looks > 0 ? since_ns : 0, now_ns);
		}
		nalive++;
		__atomic_store_n(&t->ready, 1, __ATOMIC_RELEASE);
	}
	/* Its samples: the round instants since those counted for it (its
	 * last look's, or its start), to the last this look stands for, but
	 * those of pauses; what its expected count has, so a thread started
	 * just before a look and seen at the next has them all, and one
	 * started just after a look's last instant none yet. */
	uint64_t due_ns = look_due_ns ? look_due_ns : now_ns, was_ns = t->seen_ns;
	uint64_t hi = due_ns > start_ns ? (due_ns - start_ns) / 1000 : 0;
	/* was_ns is start_ns for a thread the first look (at start_ns) saw:
	 * its instant 0 is counted, not again. */
	uint64_t lo = !fresh && was_ns >= start_ns ? (was_ns - start_ns) / 1000 + 1 : 0;
	if (lo < t->out.first_usec)
		lo = t->out.first_usec;
	uint64_t w = hi >= lo ? due_between(lo, hi) : 0;
	t->seen_round = r;
	t->seen_ns = due_ns;
	__atomic_store_n(&t->before_ns, t->counted_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&t->before_taken, __atomic_load_n(&t->out.taken, __ATOMIC_RELAXED),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&t->before_unreadable,
			 __atomic_load_n(&t->out.unreadable, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
	if (!sample_thread(t, w, cpu, fresh ? 0 : stopped_rounds(lo, hi, w))) {
		/* Listed, gone before its clock was read: it ended after the
		 * last look that found it, and this look's rounds are not its. */
		t->seen_ns = was_ns;
		thread_ended(t);
		nalive -= nalive > 0;
		return;
	}
	__atomic_store_n(&t->counted_ns, due_ns, __ATOMIC_RELEASE);
}

/* Called in each thread our pthread_create starts (threads.c's hook). */
static void announce(pid_t tid)
{
	unsigned k = __atomic_fetch_add(&ring_head, 1, __ATOMIC_ACQ_REL);
	__atomic_store_n(&ring_ns[k % RING], mono_ns(), __ATOMIC_RELAXED);
	__atomic_store_n(&ring[k % RING], tid, __ATOMIC_RELEASE);
}

/* One look: sample every thread (the rounds it stands for: seen) and note
 * those gone.  The threads are the ones known and those our pthread_create
 * announced; a thread whose CPU clock is refused (EINVAL: no such thread of
 * this process) has ended.  A thread made otherwise (a raw clone, the C
 * library's pthread_create called past ours) is found by listing
 * /proc/self/task (getdents64: a cost that grows with the threads, a fifth
 * of the sampler's CPU with 64 blocked threads at 100 Hz, and half of a
 * look with eight at 1 kHz).  It is listed at the first look; every
 * LIST_EVERY looks the threads are counted (task_count: one fstat) before
 * the known ones are read, and listed only when the count is not the
 * table's live threads and ours.  Counting first makes a thread that ended
 * since and one unknown that started since differ from the table, not
 * cancel out: the end is found in the same look. */
struct listed {		/* a round's listing: seen()'s arguments */
	pid_t self;
	uint64_t r, since_ns, now_ns;
};

/* mon_task_each's callback in a round that lists /proc/self/task. */
static void listed_one(pid_t tid, void *arg)
{
	const struct listed *l = arg;
	if (tid == l->self || tid == __atomic_load_n(&mon_control_tid, __ATOMIC_ACQUIRE))
		return;	/* ours: this sampler, control.c's thread */
	struct wthread *t = thread_find(tid, 1);
	if (t != NULL)
		seen(t, l->r, l->since_ns, l->now_ns, 0, UINT64_MAX);
}

/* Note what the task directory's descriptor is (task_count checks it). */
static void task_dir_noted(void)
{
	struct stat st;
	task_dev = 0;
	task_ino = 0;
	if (task_fd >= 0 && syscall(SYS_fstat, task_fd, &st) == 0) {
		task_dev = st.st_dev;
		task_ino = st.st_ino;
	}
}

/* The task directory's descriptor failed: if the program took it over (the
 * raw close_range system call; maybe its own file on the number now), forget
 * it as read_task does and open the directory again.  1 when there is a new
 * one to list. */
static int task_dir_still(void)
{
	struct stat st;
	return task_fd >= 0 && syscall(SYS_fstat, task_fd, &st) == 0 && st.st_dev == task_dev &&
	       st.st_ino == task_ino && still_proc(task_fd);
}

static int task_dir_again(void)
{
	if (task_dir_still())
		return 0;	/* ours still: another failure */
	if (task_fd >= 0) {
		mon_fd_drop(task_fd);
		fds_kept -= fds_kept > 0;
	}
	int kept;
	task_fd = open_proc("/proc/self/task", 1, &kept);
	task_dir_noted();
	return task_fd >= 0;
}

/* The process's threads now, from the link count of /proc/self/task (the
 * kernel gives it as 2 plus the threads: proc_task_getattr in
 * fs/proc/base.c), one fstat(2) against a listing's getdents64 and a
 * dcache lookup per thread; -1 when it cannot be had. */
static long task_count(void)
{
	struct stat st;
	if (task_fd < 0 || syscall(SYS_fstat, task_fd, &st) < 0)
		return -1;
	if ((st.st_dev != task_dev || st.st_ino != task_ino) &&
	    (!task_dir_again() || syscall(SYS_fstat, task_fd, &st) < 0))
		return -1;	/* the number is the program's now: ours opened again */
	return st.st_nlink < 3 ? -1 : (long)st.st_nlink - 2;
}

/* Threads of ours that the count has and the table does not: this sampler,
 * and control.c's thread while it lives (its CPU clock answers; after a
 * fork its tid is the parent's). */
static unsigned ours_alive(void)
{
	pid_t c = __atomic_load_n(&mon_control_tid, __ATOMIC_ACQUIRE);
	return 1u + (c > 0 && thread_cpu_ns(c) != UINT64_MAX);
}

static int program_gone;	/* the program's threads have all ended (round_all) */

static void round_all(uint64_t since_ns, uint64_t now_ns)
{
	char buf[16384] __attribute__((aligned(8)));
	pid_t self = mon_gettid();
	uint64_t r = looks + 1;
	unsigned head = __atomic_load_n(&ring_head, __ATOMIC_ACQUIRE);
	int list = r == 1 || head - ring_tail > RING;
	long counted = -1;	/* the process's threads, when a listing may be spared */
	if (!list && r % LIST_EVERY == 1 && (counted = task_count()) < 0)
		list = 1;
	if (list) {
		if ((!task_dir_still() && !task_dir_again()) ||
		    (syscall(SYS_lseek, task_fd, 0L, SEEK_SET) < 0 && !task_dir_again()))
			return;
		struct listed l = { self, r, since_ns, now_ns };
		if (mon_task_each(task_fd, buf, sizeof buf, listed_one, &l) < 0 && task_dir_again() &&
		    syscall(SYS_lseek, task_fd, 0L, SEEK_SET) == 0)
			mon_task_each(task_fd, buf, sizeof buf, listed_one, &l);
		ring_tail = head;
	} else {
		for (; ring_tail != head; ring_tail++) {
			pid_t tid = __atomic_load_n(&ring[ring_tail % RING], __ATOMIC_ACQUIRE);
			if (tid <= 0 || tid == self || thread_cpu_ns(tid) == UINT64_MAX)
				continue;
			uint64_t born = __atomic_load_n(&ring_ns[ring_tail % RING], __ATOMIC_RELAXED);
			struct wthread *t = thread_find(tid, 0);
			if (t != NULL && t->announced_ns && t->announced_ns < born) {
				/* Announced before: that thread has ended (a tid is
				 * not reused while its thread lives), and this is a
				 * new one with its tid, not more of the old one's row. */
				thread_ended(t);
				nalive -= nalive > 0;
			}
			t = thread_find(tid, 1);
			if (t != NULL) {
				if (!t->announced_ns)
					t->announced_ns = born;
				seen(t, r, since_ns, now_ns, born, UINT64_MAX);
			}
		}
	}
	unsigned k = __atomic_load_n(&tab->nthreads, __ATOMIC_ACQUIRE);
	for (unsigned i = 0; i < k; i++) {
		struct wthread *t = &tab->threads[i];
		if (t->ended || t->seen_round == 0)
			continue;
		if (t->seen_round != r) {
			/* Neither listed nor announced: its CPU clock says whether
			 * it lives.  A listing alone cannot: getdents64 on
			 * /proc/self/task resumes by position when the thread it
			 * stopped at has ended, so threads ending during a listing
			 * hide live ones listed after them. */
			uint64_t cpu = thread_cpu_ns(t->tid);
			if (cpu != UINT64_MAX)
				seen(t, r, since_ns, now_ns, 0, cpu);
		}
		if (t->seen_round != r) {
			thread_ended(t);
			nalive -= nalive > 0;
		}
	}
	if (counted >= 0 && counted <= 3 && nalive <= 1 && mon_only_runtime_left())
		program_gone = 1;	/* sampler_main ends the process, between looks */
	if (counted >= 0 && (unsigned long)counted != nalive + ours_alive()) {
		/* A thread the table does not have (a raw clone's, one made
		 * before libmon's pthread_create was in place, one the full
		 * table could not take): list.  Threads seen above are not
		 * sampled again (seen: once a round). */
		struct listed l = { self, r, since_ns, now_ns };
		if (syscall(SYS_lseek, task_fd, 0L, SEEK_SET) == 0 || task_dir_again())
			mon_task_each(task_fd, buf, sizeof buf, listed_one, &l);
		ring_tail = head;
	}
}

static void own_cpu(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru) == 0) {
		__atomic_store_n(&own_user_us, (uint64_t)ru.ru_utime.tv_sec * 1000000u +
				 (uint64_t)ru.ru_utime.tv_usec, __ATOMIC_RELAXED);
		__atomic_store_n(&own_sys_us, (uint64_t)ru.ru_stime.tv_sec * 1000000u +
				 (uint64_t)ru.ru_stime.tv_usec, __ATOMIC_RELAXED);
	}
}

static int thread_out(struct wthread *t, uint64_t lr, uint64_t last_us, uint64_t lo, int part,
		      struct monout_wall_thread *out);

/* 1 when a table is over half full: the cut that sees it asks the sampler
 * to compact (t: the table the cut read). */
static int tables_half_full(const struct wall *t)
{
	return t->nthreads > MAX_THREADS / 2 || t->nsamples > MAX_SAMPLES / 2 ||
	       t->npool > POOL_PCS / 2 || t->nwaits > MAX_WAITS / 2;
}

static struct wall *table_map(void)
{
	void *p = mmap(NULL, sizeof(struct wall), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* Copy into the spare table what the interval files still need, and make it
 * the sampler's: the threads that have not ended or have something not yet
 * cut, the samples with counts not yet cut or that a kept thread's last
 * read counted (a thread that has not run is charged to it again), their
 * PCs and waits.  Entries keep their counts and cut bases, so the files
 * that follow hold what they would have held; what is left out was in the
 * files already.  Without it the tables fill over a long interval run
 * (MAX_THREADS threads, MAX_SAMPLES keys over the run; a server that starts
 * a thread per connection fills them in hours) and every later sample is
 * lost.  The old table is left as it was: a write from a fatal signal's
 * handler that loaded it reads whole entries.  Sampler only, between rounds. */
static void compact(void)
{
	__atomic_store_n(&compacting, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&cut_busy, __ATOMIC_SEQ_CST) ||
	    __atomic_load_n(&movers, __ATOMIC_SEQ_CST)) {
		__atomic_store_n(&compacting, 0, __ATOMIC_RELEASE);
		return;	/* the next round tries again */
	}
	if (spare == NULL && (spare = table_map()) == NULL) {
		__atomic_store_n(&compact_asked, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&compacting, 0, __ATOMIC_RELEASE);
		return;	/* no memory: the tables fill as before, lost counted */
	}
	struct wall *o = tab, *n = spare;
	uint64_t lo = cut_base.end_us;
	n->nthreads = n->nsamples = n->nwaits = n->npool = 0;
	memset(n->thread_slot, 0, sizeof n->thread_slot);
	memset(n->sample_slot, 0, sizeof n->sample_slot);
	for (unsigned i = 0; i < o->nsamples; i++)
		o->sample_map[i] = o->samples[i].count > o->sample_cut[i];	/* 1: kept */
	for (unsigned i = 0; i < o->nwaits; i++)
		o->wait_map[i] = MONOUT_NO_WAIT;
	for (unsigned i = 0; i < o->nthreads; i++) {
		struct monout_wall_thread spent;
		struct wthread *t = &o->threads[i];
		t->keep = !t->ended || thread_out(t, 0, 0, lo, MON_WALL_SINCE_CUT, &spent);
		if (t->keep && t->last)
			o->sample_map[t->last - 1] = 1;
		for (unsigned b = 0; t->keep && b < BLOCKED_KEPT; b++)
			if (t->blocked[b])
				o->sample_map[t->blocked[b] - 1] = 1;
	}
	for (unsigned i = 0; i < o->nsamples; i++) {
		if (!o->sample_map[i])
			continue;
		const struct wsample *s = &o->samples[i];
		unsigned k = n->nsamples++;
		struct wsample *c = &n->samples[k];
		*c = *s;
		c->pc_at = n->npool;
		memcpy(&n->pool[n->npool], &o->pool[s->pc_at], s->depth * sizeof n->pool[0]);
		n->npool += s->depth;
		n->sample_cut[k] = o->sample_cut[i];
		if (s->wait != MONOUT_NO_WAIT && s->wait < o->nwaits) {
			if (o->wait_map[s->wait] == MONOUT_NO_WAIT) {
				struct wwait *v = &n->waits[n->nwaits];
				*v = o->waits[s->wait];
				v->w.id = n->nwaits;
				v->w.text = v->text;
				o->wait_map[s->wait] = n->nwaits++;
			}
			c->wait = o->wait_map[s->wait];
		}
		uint32_t h = sample_hash(c->tid, c->serial, c->state, c->syscall, c->wait, c->flags, c->set,
					 (const uintptr_t *)&n->pool[c->pc_at], c->depth);
		for (unsigned probe = 0; probe < SAMPLE_SLOTS; probe++) {
			uint32_t *slot = &n->sample_slot[(h + probe) & (SAMPLE_SLOTS - 1)];
			if (*slot == 0) {
				*slot = k + 1;
				break;
			}
		}
		o->sample_map[i] = k + 1;
	}
	for (unsigned i = 0; i < o->nthreads; i++) {
		struct wthread *t = &o->threads[i];
		if (!t->keep)
			continue;
		unsigned j = n->nthreads++;
		n->threads[j] = *t;
		n->threads[j].last = t->last ? o->sample_map[t->last - 1] : 0;
		for (unsigned b = 0; b < BLOCKED_KEPT; b++)
			n->threads[j].blocked[b] = t->blocked[b] ? o->sample_map[t->blocked[b] - 1] : 0;
		if (t->ended)
			continue;	/* listed, never found again */
		uint32_t h = mix32((uint64_t)t->tid);
		for (unsigned probe = 0; probe < THREAD_SLOTS; probe++) {
			uint32_t *slot = &n->thread_slot[(h + probe) & (THREAD_SLOTS - 1)];
			if (*slot == 0) {
				*slot = j + 1;
				break;
			}
		}
	}
	__atomic_store_n(&tab, n, __ATOMIC_RELEASE);
	spare = o;
	__atomic_store_n(&compact_asked, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&compacting, 0, __ATOMIC_RELEASE);
}

/* The sampler's side of cut_hold: publish look_done at a look's end. */
static void look_done_publish(uint64_t ns)
{
	/* (release stores and acquire loads, not fences: gcc's
	 * ThreadSanitizer refuses atomic_thread_fence) */
	__atomic_store_n(&look_done.seq, look_done.seq + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&look_done.ns, ns, __ATOMIC_RELEASE);
	__atomic_store_n(&look_done.rounds, __atomic_load_n(&rounds, __ATOMIC_RELAXED),
			 __ATOMIC_RELEASE);
	__atomic_store_n(&look_done.missed, __atomic_load_n(&missed, __ATOMIC_RELAXED),
			 __ATOMIC_RELEASE);
	__atomic_store_n(&look_done.seq, look_done.seq + 1, __ATOMIC_SEQ_CST);
}

/* A writer's look_done: *ns (0 before the first look ended), *r, *m.
 * Call with cut_hold raised: a look that ended before the raise is seen
 * (the sampler checks the hold before each look, after publishing the
 * last: seq_cst both sides). */
static void look_done_read(uint64_t *ns, uint64_t *r, uint64_t *m)
{
	for (int i = 0;; i++) {
		unsigned a = __atomic_load_n(&look_done.seq, __ATOMIC_SEQ_CST);
		*ns = __atomic_load_n(&look_done.ns, __ATOMIC_ACQUIRE);
		*r = __atomic_load_n(&look_done.rounds, __ATOMIC_ACQUIRE);
		*m = __atomic_load_n(&look_done.missed, __ATOMIC_ACQUIRE);
		if (!(a & 1) && __atomic_load_n(&look_done.seq, __ATOMIC_RELAXED) == a)
			return;
		if (i > 1000)	/* in the sampler's own thread (a program's
				 * handler run there), inside the publish */
			return;
		sched_yield();
	}
}

/* Wait (at most about 2 s: a sampler that died copying) while the sampler
 * compacts; busy: the caller's half of the Dekker pair, set on return. */
static void compaction_wait(int *busy)
{
	for (int i = 0; i < 20000; i++) {
		__atomic_add_fetch(busy, 1, __ATOMIC_SEQ_CST);
		if (!__atomic_load_n(&compacting, __ATOMIC_SEQ_CST))
			return;
		__atomic_sub_fetch(busy, 1, __ATOMIC_SEQ_CST);
		mon_clock_own_nap(100000);
	}
	__atomic_add_fetch(busy, 1, __ATOMIC_SEQ_CST);
}

/* The rounds' clock.  A timerfd with the round's period: the kernel re-arms
 * it at each expiry, where a sleep to each deadline (futex, clock_nanosleep)
 * arms a timer in every call; on a virtual machine, where arming a timer
 * traps to the hypervisor, a round cost 13 to 16 us of the sampler's CPU
 * asleep this way against 25 to 29 us (the same 1 kHz loop each way, this
 * VM).  The descriptor is ours (above the floor, adopted by fdguard.c);
 * mon_wall_stop and mon_wall_pause wake a read by firing it at once.  None
 * (a futex sleep to each deadline) when it cannot be made. */
static void round_timer_open(uint64_t period)
{
	int fd = (int)syscall(SYS_timerfd_create, CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (fd < 0)
		return;
	int nfd = mon_fd_raise(fd);
	if (nfd < 0)
		return;	/* no room above the floor: mon_fd_raise closed it */
	mon_fd_adopt(nfd);
	timer_period = period;
	__atomic_store_n(&timer_fd, nfd, __ATOMIC_RELEASE);
}

/* Arm the round timer: first at next (CLOCK_MONOTONIC ns), then every
 * period.  0, or -1 (no timer, or the descriptor is no longer ours). */
static int round_timer_arm(uint64_t next)
{
	int fd = __atomic_load_n(&timer_fd, __ATOMIC_ACQUIRE);
	struct itimerspec its = {
		{ (time_t)(timer_period / 1000000000u), (long)(timer_period % 1000000000u) },
		{ (time_t)(next / 1000000000u), (long)(next % 1000000000u) },
	};
	if (fd < 0 || syscall(SYS_timerfd_settime, fd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		return -1;
	return 0;
}

/* 1 if fd is still a timerfd (timerfd_gettime: EINVAL for any other file,
 * EBADF for none); stopped (mon_wall_stop, a pause) it has no period. */
static int timer_still_ours(int fd)
{
	struct itimerspec cur;
	return syscall(SYS_timerfd_gettime, fd, &cur) == 0;
}

/* Sleep until the round timer fires (or a stop fires it).  0, or -1 when
 * there is no timer to sleep on: the descriptor is not a timerfd any more
 * (a program's raw close_range and a new descriptor on its number: never
 * read, nor closed, it is the program's), or reading failed.  The check is
 * one timerfd_gettime a round. */
static int round_timer_wait(void)
{
	int fd = __atomic_load_n(&timer_fd, __ATOMIC_ACQUIRE);
	uint64_t n;
	if (fd < 0)
		return -1;
	if (!timer_still_ours(fd)) {
		mon_fd_drop(fd);
		__atomic_store_n(&timer_fd, -1, __ATOMIC_RELEASE);
		return -1;
	}
	if (syscall(SYS_read, fd, &n, sizeof n) != (ssize_t)sizeof n && errno != EINTR)
		return -1;
	return 0;
}

/* Fire the round timer now (a sampler asleep on it wakes); async-signal-safe. */
static void round_timer_kick(void)
{
	int fd = __atomic_load_n(&timer_fd, __ATOMIC_ACQUIRE);
	struct itimerspec now = { { 0, 0 }, { 0, 1 } };
	if (fd >= 0)
		syscall(SYS_timerfd_settime, fd, 0, &now, NULL);
}

/* ---- a stop of the whole process ----------------------------------------- */

/* A stop of the whole process (SIGSTOP, a terminal's ^Z, SIGTTIN) stops the
 * sampler too: its next look comes late, when the process is continued,
 * and without this the rounds of the stop were charged as the look found
 * each thread (a thread seen running, not run since, was runnable for
 * the whole stop, and the late rounds raised the busy-machine warning).
 * Late because the machine was busy, the sampler waited in a run queue
 * (its schedstat wait grew by about the delay); late because the process
 * was stopped, it did not, and no thread of the process ran meanwhile
 * (the process's CPU grew by no more than its CPUs give the time it was
 * not stopped).  A paused virtual machine looks the same, and is counted
 * the same (nothing of the process ran); a stolen CPU alone is told apart
 * by the threads that ran on the others, and by the bound: at least
 * STOP_MIN_NS not explained.  The reference is taken at most every
 * STOP_REF_NS (two system calls and a file read), so a stop's first part
 * may count as the sampler's wait: shorter, never longer. */
#define STOP_MIN_NS 100000000u	/* 100 ms */
#define STOP_REF_NS 50000000u	/* 50 ms */
#define STOP_SLACK_NS 5000000u	/* 5 ms of the process's CPU */

static uint64_t process_cpu_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The sampler's own CPU time and run-queue wait (schedstat's first two
 * fields, ns) in *cpu and *wait: 1, or 0 when unreadable (no schedstat). */
static int own_sched(uint64_t *cpu, uint64_t *wait)
{
	static struct wthread self_w;	/* only its tid is read (task_path) */
	char buf[128];
	int fd = -1;
	self_w.tid = mon_gettid();
	if (!have_schedstat || read_task(&self_w, "schedstat", &fd, 0, buf, sizeof buf) <= 0)
		return 0;
	const char *p = buf;
	int64_t c, w;
	if (!decnum(&p, &c) || !decnum(&p, &w) || c < 0 || w < 0)
		return 0;
	*cpu = (uint64_t)c;
	*wait = (uint64_t)w;
	return 1;
}

static void stop_ref_take(uint64_t now)
{
	uint64_t o, w;
	stop_ref_ns = 0;
	if (!own_sched(&o, &w) || (stop_ref_cpu = process_cpu_ns()) == 0)
		return;
	stop_ref_own = o;
	stop_ref_wait = w;
	stop_ref_ns = now;
}

/* The sampler, asleep from the end of its last look and due to wake at
 * due (the later of the two), runs at now.  How long the process was
 * stopped meanwhile (ns), 0 if it was not (or not known); the reference
 * taken anew.  The delay less what the sampler spent on a CPU or waiting
 * for one since the reference (which may be before that look: less, never
 * more).  A delay within a look is not judged: a look blocks in the kernel
 * at times (its memory reads wait for the address space's lock while the
 * program forks a large process, 110-170 ms a fork), and that time is in
 * neither figure. */
static uint64_t stopped_for(uint64_t now, uint64_t due)
{
	uint64_t o, w, c, ref = stop_ref_ns;
	uint64_t ref_own = stop_ref_own, ref_wait = stop_ref_wait, ref_cpu = stop_ref_cpu;
	if (ref == 0 || now <= ref || !own_sched(&o, &w) || (c = process_cpu_ns()) == 0) {
		stop_ref_take(now);
		return 0;
	}
	stop_ref_ns = now;
	stop_ref_own = o;
	stop_ref_wait = w;
	stop_ref_cpu = c;
	uint64_t late = now - due;
	uint64_t busy = (w > ref_wait ? w - ref_wait : 0) + (o > ref_own ? o - ref_own : 0);
	uint64_t u = late > busy ? late - busy : 0;
	uint64_t span = now - ref, awake = span > u ? span - u : 0;
	uint64_t ran = c > ref_cpu ? c - ref_cpu : 0;
	if (u < STOP_MIN_NS || ran > awake * online_cpus + STOP_SLACK_NS)
		return 0;
	return u;
}

/* The stop the next look charges: the stop ns long that ended at now;
 * stop 0: none. */
static void stop_window(uint64_t now, uint64_t stop)
{
	stop_pending = stop != 0;
	stop_lo_us = stop ? (now - stop - start_ns) / 1000 : 1;
	stop_hi_us = stop ? (now - start_ns) / 1000 : 0;
	stop_len_ns = stop;
}

/* Of thread t's w rounds in [lo, hi] (microseconds after start_ns), those
 * of the stop this look found. */
static uint64_t stopped_rounds(uint64_t lo, uint64_t hi, uint64_t w)
{
	uint64_t a = lo > stop_lo_us ? lo : stop_lo_us, b = hi < stop_hi_us ? hi : stop_hi_us;
	uint64_t n = a <= b ? due_between(a, b) : 0;
	return n < w ? n : w;
}

static void *sampler_main(void *arg)
{
	(void)arg;
	__atomic_store_n(&mon_runtime_tid, mon_gettid(), __ATOMIC_RELEASE);
	__atomic_store_n(&mon_runtime_live, 1, __ATOMIC_RELEASE);
	prctl(PR_SET_NAME, "monprof-wall", 0, 0, 0);
	find_tid_offset();
	/* Looks at the threads LOOK_HZ times a second at most, each for
	 * look_rounds rounds: above that the wake-up itself was most of the
	 * cost (47.5 us a wake-up here, 4.75 % of a CPU at 1 kHz for a bare
	 * loop), and a look loses nothing a round would have had but the
	 * moments between: a thread that did not run since the last look was
	 * where it was for every round, and one that ran has its rounds split
	 * as its time was (count_units). */
	look_rounds = (rate + LOOK_HZ - 1) / LOOK_HZ;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	online_cpus = ncpu > 0 ? (unsigned)ncpu : 1;
	stop_ref_ns = 0;
	uint64_t period = 1000000000u / rate * look_rounds;
	uint64_t next = mono_ns(), prev = next;
	int first = 1;		/* the first look (or the first after a pause): one round */
	int paused_seen = 0;	/* the pause under way was looked at (stopped_for) */
	unsigned held = 0;	/* 100 µs waits for a cut_hold so far */
	if (start_ns == 0)
		start_ns = next;
	look_end_ns = 0;
	stop_pending = 0;
	if (timer_fd < 0)
		round_timer_open(period);
	timer_period = period;	/* a start after a stop may ask another rate */
	int armed = round_timer_arm(next) == 0;
	for (;;) {
		/* Awake: under the itimer clock our CPU's ticks are ours to take
		 * (sigguard.c mon_sig_runtime_thread). */
		mon_sig_runtime_thread(mon_clock_runtime_signal());
		if (__atomic_load_n(&stop_word, __ATOMIC_ACQUIRE))
			break;
		if (__atomic_load_n(&pause_word, __ATOMIC_ACQUIRE)) {
			/* Paused: no rounds until mon_wall_pause(0) or mon_wall_stop wakes us
			 * (at most 1 s asleep: a stop that came between the two loads); the
			 * round timer stopped meanwhile, not firing for nothing. */
			if (armed) {
				round_timer_kick();
				armed = 0;
			}
			if (!paused_seen) {
				/* A stop that ended just before the pause (monctl off
				 * sent while stopped): for the look after it. */
				paused_seen = 1;
				uint64_t now = mono_ns(), from = next > look_end_ns ? next : look_end_ns;
				uint64_t stop = now > from && now - from >= STOP_MIN_NS ? stopped_for(now, from) : 0;
				if (stop)
					stop_window(now, stop);
			}
			struct timespec s1 = { 1, 0 };
			syscall(SYS_futex, &pause_word, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 1, &s1, NULL, 0);
			if (__atomic_load_n(&pause_word, __ATOMIC_ACQUIRE)) {
				if (mon_only_runtime_left())
					mon_exit_for_program();	/* as below, paused */
				continue;
			}
			/* Resumed: the next round is the first instant start + k / rate
			 * from now; the rounds of the pause are neither due nor missed. */
			uint64_t now = mono_ns();
			next = start_ns + (now - start_ns + period - 1) / period * period;
			prev = now;
			first = 1;
			paused_seen = 0;
			armed = round_timer_arm(next) == 0;
			continue;
		}
		uint64_t now = mono_ns();
		if (now < next && armed && round_timer_wait() == 0)
			continue;
		if (now < next) {
			armed = 0;
			struct timespec ts = { (time_t)(next / 1000000000u),
					       (long)(next % 1000000000u) };
			/* Sleep to the deadline, or until mon_wall_stop wakes us. */
			syscall(SYS_futex, &stop_word, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, 0,
				&ts, NULL, FUTEX_BITSET_MATCH_ANY);
			continue;
		}
		/* A cut reading the rows holds the next look back: at most
		 * about 2 s (a writer stopped, or left by a handler's
		 * longjmp), and then not again until the hold was seen
		 * lowered.  The wait is not taken for a stop of the process
		 * (look_end_ns: the sampler's delay is judged from there). */
		if (__atomic_load_n(&cut_hold, __ATOMIC_SEQ_CST)) {
			if (held < 20000) {
				held++;
				struct timespec ts = { 0, 100000 };
				nanosleep(&ts, NULL);
				continue;
			}
		} else if (held) {
			if (held < 20000)
				look_end_ns = mono_ns();
			held = 0;
		}
		uint64_t late = 0, w = first ? 1 : look_rounds;
		if (!stop_pending)
			stop_window(0, 0);
		if (now - next >= period) {
			late = (now - next) / period;	/* looks */
			uint64_t from = next > look_end_ns ? next : look_end_ns, gone = 0;
			uint64_t stop = now > from && now - from >= STOP_MIN_NS ? stopped_for(now, from) : 0;
			if (stop) {
				/* Its rounds are [stopped] (seen): taken, not missed. */
				stop_window(now, stop);
				gone = due_between(stop_lo_us, stop_hi_us);
			}
			gone = gone < late * look_rounds ? gone : late * look_rounds;
			__atomic_add_fetch(&missed, late * look_rounds - gone, __ATOMIC_RELAXED);
			w += gone;
			next += late * period;
		} else if (now - stop_ref_ns >= STOP_REF_NS) {
			stop_ref_take(now);
		}
		look_due_ns = next;
		/* The look's rounds: a file cut while it is under way ends at
		 * the look before (look_done), its rows too (before_ns). */
		__atomic_add_fetch(&rounds, w, __ATOMIC_RELAXED);
		round_all(prev, now);
		look_done_publish(next);
		if (__atomic_load_n(&compact_asked, __ATOMIC_ACQUIRE))
			compact();
		if (program_gone) {
			/* Only ours are left, and the ended main thread: as
			 * the C library's last thread would, end the process
			 * (its atexit handlers, our profile written). */
			own_cpu();
			mon_exit_for_program();
			program_gone = 0;
		}
		prev = now;
		first = 0;
		stop_pending = 0;	/* the window is this look's */
		if (++looks % 16 == 1)
			own_cpu();	/* for a write while it runs; exact at the end */
		next += period;
		look_end_ns = mono_ns();
	}
	own_cpu();
	/* Gone: the tid may be a program thread's soon (mon_only_runtime_left;
	 * the writer still names it in the sampler's own row). */
	__atomic_store_n(&mon_runtime_live, 0, __ATOMIC_RELEASE);
	return NULL;
}

/* ---- the program's descriptors: dup2 onto one of ours -------------------- */

static int move_one(int *slot, int fd)
{
	if (__atomic_load_n(slot, __ATOMIC_ACQUIRE) != fd)
		return 0;
	int nfd = fcntl(fd, F_DUPFD_CLOEXEC, mon_fd_floor());
	if (nfd < 0 || nfd >= MON_FD_MAX) {
		if (nfd >= 0)
			syscall(SYS_close, nfd);
		__atomic_store_n(slot, -1, __ATOMIC_RELEASE);	/* the program's now */
		mon_fd_drop(fd);
		return 1;
	}
	mon_fd_adopt(nfd);
	int cur = fd;
	if (__atomic_compare_exchange_n(slot, &cur, nfd, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		mon_fd_drop(fd);
	else {
		mon_fd_drop(nfd);
		syscall(SYS_close, nfd);
	}
	return 1;
}

static void wall_fd_move(int fd)
{
	if (tab == NULL)
		return;
	compaction_wait(&movers);
	struct wall *T = __atomic_load_n(&tab, __ATOMIC_ACQUIRE);
	if (!move_one(&task_fd, fd) && !move_one(&timer_fd, fd)) {
		unsigned k = __atomic_load_n(&T->nthreads, __ATOMIC_ACQUIRE);
		for (unsigned i = 0; i < k; i++)
			if (move_one(&T->threads[i].fd_sys, fd) || move_one(&T->threads[i].fd_sched, fd) ||
			    move_one(&T->threads[i].fd_stat, fd))
				break;
	}
	__atomic_sub_fetch(&movers, 1, __ATOMIC_RELEASE);
}

/* fdguard's question (mon_fd_add_verifier), asked when the program closes or
 * duplicates onto a number marked ours: -1 if fd is none of the sampler's;
 * else 1 if it still holds what the sampler put there (its round timer, a
 * /proc file), 0 if not — a program that closed ours with the raw
 * close_range system call (no wrapper sees it) and opened a file of its own
 * on the number.  Without it that file's close() failed with EBADF
 * (guest_fds.sh guest_fds_raw_close_range_wall).  Async-signal-safe. */
static int wall_fd_held(int fd)
{
	if (fd < 0)
		return -1;
	if (fd == __atomic_load_n(&timer_fd, __ATOMIC_ACQUIRE))
		return timer_still_ours(fd);
	int mine = fd == __atomic_load_n(&task_fd, __ATOMIC_ACQUIRE);
	struct wall *T = __atomic_load_n(&tab, __ATOMIC_ACQUIRE);
	unsigned k = T != NULL ? __atomic_load_n(&T->nthreads, __ATOMIC_ACQUIRE) : 0;
	for (unsigned i = 0; i < k && !mine; i++)
		mine = __atomic_load_n(&T->threads[i].fd_sys, __ATOMIC_RELAXED) == fd ||
		       __atomic_load_n(&T->threads[i].fd_sched, __ATOMIC_RELAXED) == fd ||
		       __atomic_load_n(&T->threads[i].fd_stat, __ATOMIC_RELAXED) == fd;
	return mine ? still_proc(fd) : -1;
}

/* ---- starting, stopping, fork -------------------------------------------- */

unsigned mon_wall_setting(void)
{
	const char *v = mon_env("MONPROF_WALL");
	if (v == NULL || *v < '0' || *v > '9')
		return 0;
	unsigned long x = 0;
	for (; *v >= '0' && *v <= '9' && x <= MON_WALL_RATE_MAX; v++)
		x = x * 10 + (unsigned long)(*v - '0');
	return *v == '\0' && x <= MON_WALL_RATE_MAX ? (unsigned)x : 0;
}

static int tables(void)
{
	if (tab == NULL) {
		void *p = mmap(NULL, sizeof *tab, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED)
			return mon_fail(ENOMEM);
		tab = p;
	}
	if (copy_area == NULL) {
		void *p = mmap(NULL, COPY_BYTES, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return mon_fail(ENOMEM);
		copy_area = p;
	}
	return 0;
}

static int launch(void)
{
	own_pid = getpid();
	if (task_fd < 0) {
		int kept = 0;
		int budget_save = (int)fds_budget;
		fds_budget = fds_kept + 1;
		task_fd = open_proc("/proc/self/task", 1, &kept);
		task_dir_noted();
		fds_budget = (unsigned)budget_save;
		if (task_fd < 0)
			return -1;
		if (kept)
			fds_kept--;	/* not counted against the threads' budget */
	}
	struct rlimit rl;
	unsigned room = 64;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		room = (unsigned)(rl.rlim_cur - (rlim_t)mon_fd_floor());
	fds_budget = room / 8;
	if (fds_budget > 256)
		fds_budget = 256;
	char probe[64];
	task_path(probe, mon_gettid(), "schedstat");
	have_schedstat = access(probe, R_OK) == 0;
	mon_fd_set_wall_mover(wall_fd_move);
	mon_fd_add_verifier(wall_fd_held);
	ring_tail = __atomic_load_n(&ring_head, __ATOMIC_ACQUIRE);
	mon_hooks.thread_started = announce;
	static int atfork_set;
	if (!atfork_set) {
		atfork_set = 1;
		pthread_atfork(fork_prepare, fork_parent, NULL);
	}
	static int (*create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	if (create == NULL)
		create = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
				  void *))mon_libc_next("pthread_create");
	if (create == NULL)
		return mon_fail(ENOSYS);
	pthread_attr_t attr;
	sigset_t all;
	sigfillset(&all);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256u << 10);
	pthread_attr_setsigmask_np(&attr, &all);
	__atomic_store_n(&stop_word, 0, __ATOMIC_RELEASE);
	int rc = create(&sampler, &attr, sampler_main, NULL);
	pthread_attr_destroy(&attr);
	if (rc != 0)
		return mon_fail(rc);
	sampler_joinable = 1;
	running = 1;
	ever_started = 1;
	return 0;
}

int mon_wall_start(unsigned rate_hz, unsigned depth)
{
	if (running)
		return 0;
	if (rate_hz == 0 || rate_hz > MON_WALL_RATE_MAX)
		return mon_fail(EINVAL);
	if (tables() < 0)
		return -1;
	if (depth > 1)
		mon_unwind_refresh();	/* the walks' tables (the CPU stacks may be off) */
	mon_wall_pause(0);	/* a profile started afresh samples (monitor.c: not paused) */
	rate = rate_hz;
	depth_max = depth == 0 ? 1 : depth > MON_WALL_DEPTH_MAX ? MON_WALL_DEPTH_MAX : depth;
	return launch();
}

int mon_wall_resume(void)
{
	if (running || !ever_started)
		return 0;
	return launch();
}

void mon_wall_pause(int pause)
{
	if (!ever_started || __atomic_load_n(&pause_word, __ATOMIC_RELAXED) == (pause != 0))
		return;
	uint64_t now = mono_ns(), at = start_ns && now > start_ns ? (now - start_ns) / 1000 : 0;
	unsigned n = __atomic_load_n(&npauses, __ATOMIC_ACQUIRE);
	if (pause) {
		if (n < PAUSES_MAX) {
			pause_lo[n] = at;
			pause_hi[n] = UINT64_MAX;
			__atomic_store_n(&npauses, n + 1, __ATOMIC_RELEASE);
		} else {
			__atomic_store_n(&pause_hi[n - 1], UINT64_MAX, __ATOMIC_RELEASE);
		}
	} else if (n > 0) {
		__atomic_store_n(&pause_hi[n - 1], at, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&pause_word, pause != 0, __ATOMIC_RELEASE);
	syscall(SYS_futex, &pause_word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
}

/* The round instants k / rate (k >= 0), microseconds after the start, in
 * [lo, hi]. */
static uint64_t rounds_in(uint64_t lo, uint64_t hi)
{
	uint64_t a = (lo * rate + 999999u) / 1000000u, b = hi * rate / 1000000u;
	return hi >= lo && b >= a ? b - a + 1 : 0;
}

/* The round instants in [lo, hi] (microseconds after start_ns) but those
 * of the pauses (moncontrol(0)): rounds_in less that of each overlap. */
static uint64_t due_between(uint64_t lo, uint64_t hi)
{
	uint64_t due = rounds_in(lo, hi);
	unsigned np = __atomic_load_n(&npauses, __ATOMIC_ACQUIRE);
	for (unsigned k = 0; k < np && due; k++) {
		uint64_t plo = pause_lo[k], phi = __atomic_load_n(&pause_hi[k], __ATOMIC_ACQUIRE);
		uint64_t a = plo > lo ? plo : lo;
		uint64_t b = phi == UINT64_MAX || phi > hi ? hi : phi - 1;
		uint64_t in = phi > plo ? rounds_in(a, b) : 0;
		due -= in < due ? in : due;
	}
	return due;
}

uint64_t mon_wall_rounds(void)
{
	return __atomic_load_n(&rounds, __ATOMIC_ACQUIRE);
}

int mon_wall_running(void)
{
	return running;
}

unsigned mon_wall_rate(void)
{
	return rate;
}

int mon_wall_paused(void)
{
	return running && __atomic_load_n(&pause_word, __ATOMIC_ACQUIRE) != 0;
}

void mon_wall_stop(void)
{
	if (!running)
		return;
	__atomic_store_n(&stop_word, 1, __ATOMIC_RELEASE);
	round_timer_kick();
	syscall(SYS_futex, &stop_word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
	syscall(SYS_futex, &pause_word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
	if (sampler_joinable) {
		struct timespec dl;
		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_sec += 2;
		int outer = mon_clock_own_wait_begin();	/* a timed wait of ours (clock.c) */
		int rc = pthread_timedjoin_np(sampler, NULL, &dl);
		mon_clock_own_wait_end(outer);
		if (rc != 0)
			pthread_detach(sampler);
		sampler_joinable = 0;
	}
	running = 0;
}

void mon_wall_fork_child(int go)
{
	fork_child_unlock();
	if (!ever_started)
		return;
	int was = running;
	running = 0;
	sampler_joinable = 0;	/* the parent's thread is not here */
	__atomic_store_n(&mon_runtime_tid, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&mon_runtime_live, 0, __ATOMIC_RELEASE);
	if (tab != NULL) {
		for (unsigned i = 0; i < tab->nthreads; i++) {
			struct wthread *t = &tab->threads[i];
			close_ours(t->fd_sys);
			close_ours(t->fd_sched);
			close_ours(t->fd_stat);
		}
		/* (table_map's: private anonymous; written, each page the
		 * parent had touched was copied, and each it had not backed) */
		mon_zero_pages(tab->thread_slot, sizeof tab->thread_slot);
		mon_zero_pages(tab->sample_slot, sizeof tab->sample_slot);
		mon_zero_pages(tab->sample_cut, tab->nsamples * sizeof tab->sample_cut[0]);
		tab->nthreads = tab->nsamples = tab->nwaits = tab->npool = 0;
	}
	compact_asked = compacting = cut_busy = movers = cut_hold = put_depth = 0;
	memset(&look_done, 0, sizeof look_done);
	memset(&cut_base, 0, sizeof cut_base);
	close_ours(task_fd);
	task_fd = -1;
	if (timer_fd >= 0) {
		/* The parent's timer (one open file for both): the child makes its own. */
		mon_fd_drop(timer_fd);
		syscall(SYS_close, timer_fd);
		timer_fd = -1;
	}
	fds_kept = 0;
	nalive = 0;
	unlisted = ((unlisted >> 32) + 1) << 32;
	lost = rounds = missed = looks = 0;
	own_user_us = own_sys_us = 0;
	start_ns = 0;
	npauses = 0;	/* the child's own run; paused still if the parent was */
	ever_started = 0;
	fork_go_due = go && was;
}

void mon_wall_fork_go(void)
{
	if (fork_go_due) {
		fork_go_due = 0;
		launch();
	}
}

/* ---- the record ---------------------------------------------------------- */

/* The index of the OBJECT record (objs, then unloaded numbered nobjs + i)
 * of load bias bias that was loaded in object set set: of several with
 * that bias (loaded there in turn), the latest whose set is not above set;
 * MONOUT_NO_OBJECT for none. */
static uint32_t object_index(const struct monout_object *objs, size_t nobjs,
			     const struct monout_object *unloaded, size_t nunloaded, uint64_t bias,
			     uint32_t set)
{
	uint32_t best = MONOUT_NO_OBJECT, best_set = 0;
	int best_fits = 0;
	for (size_t k = 0; k < nobjs + nunloaded; k++) {
		const struct monout_object *o = k < nobjs ? &objs[k] : &unloaded[k - nobjs];
		if (o->load_bias != bias)
			continue;
		int fits = o->set <= set;
		if (best == MONOUT_NO_OBJECT || (fits && (!best_fits || o->set > best_set))) {
			best = (uint32_t)k;
			best_set = o->set;
			best_fits = fits;
		}
	}
	return best;
}

/* A counter's part since the files cut so far: now less base (never below
 * 0), and base moved to now when advance is nonzero. */
static uint64_t since_cut(uint64_t now, uint64_t *base, int advance)
{
	uint64_t d = now > *base ? now - *base : 0;
	if (advance)
		__atomic_store_n(base, now, __ATOMIC_RELAXED);	/* woken_wait reads sample_cut */
	return d;
}

/* Thread t's THREAD entry into *out for mon_wall_put (part as there; lo:
 * the end of the last interval cut, microseconds after start_ns; lr, and
 * last_us after start_ns: look_done's instant, 0 before a look ended), its
 * interval's part moved to the files cut when part is MON_WALL_CUT.  0 when
 * an interval has nothing of it (it ended before lo and took nothing
 * since). */
static int thread_out(struct wthread *t, uint64_t lr, uint64_t last_us, uint64_t lo, int part,
		      struct monout_wall_thread *out)
{
	/* The flags first: thread_ended stores last_usec before ENDED.  Then
	 * the instant its samples were counted to, then the samples: a look
	 * adds a thread's samples before it publishes the instant, so the
	 * count read holds the rounds due to that instant (more only for the
	 * one thread a look is at).  The file ends at lr, the last look that
	 * had ended (look_done); a thread the look under way has already
	 * sampled (counted past lr: the first look's instant is start_ns
	 * itself, so in nanoseconds) gives the instant and the counts from
	 * before that look. */
	uint32_t flags = __atomic_load_n(&t->out.flags, __ATOMIC_ACQUIRE);
	uint64_t counted_ns = __atomic_load_n(&t->counted_ns, __ATOMIC_ACQUIRE);
	*out = t->out;
	struct monout_wall_thread *o = out;
	int cutting = part != MON_WALL_WHOLE, advance = part == MON_WALL_CUT;
	o->flags = flags;
	o->taken = __atomic_load_n(&t->out.taken, __ATOMIC_RELAXED);
	o->unreadable = __atomic_load_n(&t->out.unreadable, __ATOMIC_RELAXED);
	uint64_t c_us = counted_ns > start_ns ? (counted_ns - start_ns) / 1000 : 0;
	if (counted_ns && counted_ns > lr && !(flags & MONOUT_WALL_THREAD_ENDED)) {
		counted_ns = __atomic_load_n(&t->before_ns, __ATOMIC_RELAXED);
		c_us = counted_ns > start_ns ? (counted_ns - start_ns) / 1000 : 0;
		o->taken = __atomic_load_n(&t->before_taken, __ATOMIC_RELAXED);
		o->unreadable = __atomic_load_n(&t->before_unreadable, __ATOMIC_RELAXED);
	}
	if (!(o->flags & MONOUT_WALL_THREAD_ENDED))
		o->last_usec = counted_ns ? c_us : last_us;
	if (o->last_usec < o->first_usec)
		o->last_usec = o->first_usec;
	/* (none due before its first look has counted it: 0 of 0) */
	o->expected = t->seen_round && (counted_ns || (flags & MONOUT_WALL_THREAD_ENDED))
			      ? due_between(o->first_usec, o->last_usec) : 0;
	if (cutting) {
		/* This interval's part of the thread: its samples, its due
		 * rounds, its span clipped to [lo, now]; none when an earlier
		 * file said it ended and it took nothing since.  A thread's
		 * start and end are each in exactly one file: the first that
		 * lists it and the first that lists it ended.  Its end is found
		 * a round after it was last seen, and a cut may fall between:
		 * the next file lists it ended, with its span empty at lo, and
		 * holds what a round moved across the cut (woken_wait). */
		o->taken = since_cut(o->taken, &t->cut_taken, advance);
		o->unreadable = since_cut(o->unreadable, &t->cut_unreadable, advance);
		o->expected = since_cut(o->expected, &t->cut_expected, advance);
		if ((o->flags & MONOUT_WALL_THREAD_ENDED) && t->cut_ended && !o->taken &&
		    !o->unreadable && !o->expected)
			return 0;
		if (o->first_usec < lo) {
			o->first_usec = lo;
			if (t->cut_listed)
				o->flags &= ~(uint32_t)MONOUT_WALL_THREAD_STARTED;
		}
		if (o->last_usec < o->first_usec)
			o->last_usec = o->first_usec;
		if (advance) {
			t->cut_listed = 1;
			t->cut_ended = (o->flags & MONOUT_WALL_THREAD_ENDED) != 0;
		}
	}
	return 1;
}

static int put(struct monout_writer *w, struct wall *T, const struct monout_object *objs,
	       size_t nobjs, const struct monout_object *unloaded, size_t nunloaded, int cutting,
	       int advance);

/* The threads a file's rows may hold: every one published but the last
 * when the look under way has made it and not yet seen it (thread_find,
 * then seen(): the sampler does them one thread after the other, so only
 * the last can be waiting).  Its row would say it never started (the flag
 * and its first instant not yet set), and the next file, taking it as
 * listed, cleared the flag: "0 started rows" for a thread in
 * tests/integ/wall_churn.sh under ASan with both cores busy.  It has no
 * sample yet; its samples and row go in the next file (put: serials above
 * the last row's). */
static unsigned rows_ready(const struct wall *T)
{
	unsigned nt = __atomic_load_n(&T->nthreads, __ATOMIC_ACQUIRE);
	if (nt > 0 && !__atomic_load_n(&T->threads[nt - 1].ready, __ATOMIC_ACQUIRE))
		nt--;
	return nt;
}

int mon_wall_put(struct monout_writer *w, const struct monout_object *objs, size_t nobjs,
		 const struct monout_object *unloaded, size_t nunloaded, int part)
{
	if (!ever_started || tab == NULL)
		return 0;
	int cutting = part != MON_WALL_WHOLE, advance = part == MON_WALL_CUT;
	if (advance)
		compaction_wait(&cut_busy);
	struct wall *T = __atomic_load_n(&tab, __ATOMIC_ACQUIRE);
	int rc = put(w, T, objs, nobjs, unloaded, nunloaded, cutting, advance);
	if (advance) {
		if (rc == 0 && tables_half_full(T))
			__atomic_store_n(&compact_asked, 1, __ATOMIC_RELEASE);
		__atomic_sub_fetch(&cut_busy, 1, __ATOMIC_RELEASE);
	}
	return rc;
}

/* mon_wall_put's write, of table T. */
static int put(struct monout_writer *w, struct wall *T, const struct monout_object *objs,
	       size_t nobjs, const struct monout_object *unloaded, size_t nunloaded, int cutting,
	       int advance)
{
	int part = !cutting ? MON_WALL_WHOLE : advance ? MON_WALL_CUT : MON_WALL_SINCE_CUT;
	/* The threads first, then the samples' count, then the waits': a
	 * sample is published after its thread and its wait, and counted
	 * before its thread's taken count.  So the samples loaded after the
	 * rows hold every sample a row's taken count has (loaded the other way
	 * round, a new thread's samples in entries made during the write were
	 * left for the next file, which had no row for the thread: 2 runs of 6
	 * of tests/integ/wall_churn.sh under ASan and two busy loops); the
	 * samples of threads made since the rows were loaded (a serial above
	 * the last row's) are left for the next file; the waits loaded last
	 * hold every wait a sample written names (a round between the loads
	 * once gave a file whose sample named a wait it did not have). */
	unsigned nt = rows_ready(T);
	/* The last look that ended (its instant, at most now), then now; no
	 * look starts until the rows are read. */
	__atomic_add_fetch(&cut_hold, 1, __ATOMIC_SEQ_CST);
	uint64_t lr, done_rounds, done_missed;
	look_done_read(&lr, &done_rounds, &done_missed);
	uint64_t last_us = start_ns && lr > start_ns ? (lr - start_ns) / 1000 : 0;
	uint64_t now = mono_ns();
	uint64_t elapsed = start_ns && now > start_ns ? (now - start_ns) / 1000 : 0;
	/* An interval's file: [lo, elapsed], lo the end of the last file cut. */
	uint64_t lo = cutting ? cut_base.end_us : 0;
	struct monout_wall_head h;
	memset(&h, 0, sizeof h);
	h.rate_hz = rate;
	h.max_depth = depth_max;
	h.elapsed_usec = elapsed;
	h.rounds = done_rounds;
	h.missed = done_missed;
	h.user_usec = __atomic_load_n(&own_user_us, __ATOMIC_RELAXED);
	h.sys_usec = __atomic_load_n(&own_sys_us, __ATOMIC_RELAXED);
	h.threads_unlisted = unlisted_take(cutting && advance);
	h.lost = lost;
	h.flags = (h.threads_unlisted ? MONOUT_WALL_F_THREADS_FULL : 0) |
		  (h.lost ? MONOUT_WALL_F_SAMPLES_FULL : 0) |
		  (have_schedstat ? 0 : MONOUT_WALL_F_NO_SCHEDSTAT) |
		  ((cutting && advance ? __atomic_exchange_n(&not_dumpable, 0, __ATOMIC_RELAXED)
				       : __atomic_load_n(&not_dumpable, __ATOMIC_RELAXED))
			   ? MONOUT_WALL_F_NOT_DUMPABLE
			   : 0);
	if (cutting) {
		h.elapsed_usec = since_cut(elapsed, &cut_base.end_us, advance);
		h.rounds = since_cut(h.rounds, &cut_base.rounds, advance);
		h.missed = since_cut(h.missed, &cut_base.missed, advance);
		h.user_usec = since_cut(h.user_usec, &cut_base.user_us, advance);
		h.sys_usec = since_cut(h.sys_usec, &cut_base.sys_us, advance);
		h.lost = since_cut(h.lost, &cut_base.lost, advance);

	}
#if defined(__x86_64__)
	h.machine = EM_X86_64;
#elif defined(__aarch64__)
	h.machine = EM_AARCH64;
#elif defined(__i386__)
	h.machine = EM_386;
#endif
	unsigned np = __atomic_load_n(&npauses, __ATOMIC_ACQUIRE);
	if (np)
		h.flags |= MONOUT_WALL_F_PAUSED;
	if (monout_wall_open(w, &h) < 0) {
		__atomic_sub_fetch(&cut_hold, 1, __ATOMIC_RELEASE);
		return -1;
	}
	/* The rows read, the sampler let go, then written.  A write nested in
	 * another (a handler's, in the writing thread) holds the sampler back
	 * through its own rows instead: the outer one's are in t->row. */
	if (__atomic_fetch_add(&put_depth, 1, __ATOMIC_ACQ_REL) == 0) {
		for (unsigned i = 0; i < nt; i++) {
			struct wthread *t = &T->threads[i];
			if (!thread_out(t, lr, last_us, lo, part, &t->row))
				t->row.tid = 0;
		}
		__atomic_sub_fetch(&cut_hold, 1, __ATOMIC_RELEASE);
		for (unsigned i = 0; i < nt; i++)
			monout_wall_thread(w, &T->threads[i].row);
	} else {
		for (unsigned i = 0; i < nt; i++) {
			struct monout_wall_thread o;
			if (thread_out(&T->threads[i], lr, last_us, lo, part, &o))
				monout_wall_thread(w, &o);
		}
		__atomic_sub_fetch(&cut_hold, 1, __ATOMIC_RELEASE);
	}
	__atomic_sub_fetch(&put_depth, 1, __ATOMIC_RELEASE);
	uint32_t last_serial = nt ? T->threads[nt - 1].serial : 0;
	unsigned ns = __atomic_load_n(&T->nsamples, __ATOMIC_ACQUIRE);
	unsigned nw = __atomic_load_n(&T->nwaits, __ATOMIC_ACQUIRE);
	pid_t own = __atomic_load_n(&mon_runtime_tid, __ATOMIC_ACQUIRE);
	if (own > 0) {
		struct monout_wall_thread o;
		memset(&o, 0, sizeof o);
		o.tid = (uint64_t)own;
		o.first_usec = lo;
		o.last_usec = elapsed > lo ? elapsed : lo;
		o.flags = MONOUT_WALL_THREAD_SAMPLER;
		memcpy(o.name, "monprof-wall", 12);
		monout_wall_thread(w, &o);
	}
	for (unsigned i = 0; i < nw; i++) {
		struct monout_wait v = T->waits[i].w;
		v.text = T->waits[i].text;
		v.object = MONOUT_NO_OBJECT;
		if (T->waits[i].has_object)
			v.object = object_index(objs, nobjs, unloaded, nunloaded, T->waits[i].bias,
						T->waits[i].set);
		if (v.object == MONOUT_NO_OBJECT)
			v.offset = v.address;
		monout_wall_wait(w, &v);
	}
	for (unsigned i = 0; i < ns; i++) {
		const struct wsample *s = &T->samples[i];
		struct monout_wall_sample o;
		if (s->serial > last_serial)
			continue;	/* its thread has no row here: the next file's */
		/* One load: a round adding after it counts in the next interval. */
		o.count = __atomic_load_n(&s->count, __ATOMIC_RELAXED);
		if (cutting)
			o.count = since_cut(o.count, &T->sample_cut[i], advance);
		if (o.count == 0)
			continue;	/* made for a thread's last read, never counted */
		o.tid = s->tid;
		o.state = s->state;
		o.syscall = s->syscall;
		o.wait = s->wait;
		o.depth = s->depth;
		o.flags = s->flags;
		o.set = s->set;
		o.pcs = s->depth ? &T->pool[s->pc_at] : NULL;
		monout_wall_sample(w, &o);
	}
	return monout_wall_close(w);
}

void mon_wall_cut_skip(void)
{
	if (!ever_started || tab == NULL)
		return;
	compaction_wait(&cut_busy);
	struct wall *T = __atomic_load_n(&tab, __ATOMIC_ACQUIRE);
	__atomic_add_fetch(&cut_hold, 1, __ATOMIC_SEQ_CST);	/* as put() */
	uint64_t lr, done_rounds, done_missed;
	look_done_read(&lr, &done_rounds, &done_missed);
	uint64_t now = mono_ns();
	uint64_t elapsed = start_ns && now > start_ns ? (now - start_ns) / 1000 : 0;
	since_cut(elapsed, &cut_base.end_us, 1);
	since_cut(done_rounds, &cut_base.rounds, 1);
	since_cut(done_missed, &cut_base.missed, 1);
	since_cut(__atomic_load_n(&own_user_us, __ATOMIC_RELAXED), &cut_base.user_us, 1);
	since_cut(__atomic_load_n(&own_sys_us, __ATOMIC_RELAXED), &cut_base.sys_us, 1);
	since_cut(lost, &cut_base.lost, 1);
	unlisted_take(1);
	__atomic_store_n(&not_dumpable, 0, __ATOMIC_RELAXED);
	/* The threads, then the samples, as put() loads them. */
	uint64_t last_us = start_ns && lr > start_ns ? (lr - start_ns) / 1000 : 0;
	unsigned nt = rows_ready(T);
	for (unsigned i = 0; i < nt; i++) {
		struct monout_wall_thread o;
		thread_out(&T->threads[i], lr, last_us, 0, MON_WALL_CUT, &o);
	}
	__atomic_sub_fetch(&cut_hold, 1, __ATOMIC_RELEASE);
	uint32_t last_serial = nt ? T->threads[nt - 1].serial : 0;
	unsigned ns = __atomic_load_n(&T->nsamples, __ATOMIC_ACQUIRE);
	for (unsigned i = 0; i < ns; i++)
		if (T->samples[i].serial <= last_serial)
			since_cut(__atomic_load_n(&T->samples[i].count, __ATOMIC_RELAXED),
				  &T->sample_cut[i], 1);
	if (tables_half_full(T))
		__atomic_store_n(&compact_asked, 1, __ATOMIC_RELEASE);
	__atomic_sub_fetch(&cut_busy, 1, __ATOMIC_RELEASE);
}
