/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * threads.c — which threads are sampled, and fork.
 *
 * Per-thread clocks need arming once per thread.  When profiling starts,
 * every thread listed in /proc/self/task is armed from the calling thread
 * (a tid-targeted perf event or CPU timer can be made for any thread of the
 * process); threads started later arm themselves first thing, because
 * libmon's pthread_create wraps their start routine; a thread disarms its
 * own clock when it exits (a thread-specific-data destructor).  The table
 * below is changed only under mon_lock(), never from a signal handler.
 *
 * Where our pthread_create sits matters.  Normally it is the program's
 * first definition (libmon linked into the program, or preloaded by monrun):
 * the program calls ours, ours calls the next one (the C library's, or a
 * sanitizer's interceptor), and our start routine runs inside whatever start
 * routine that one wraps around it.  When another library's pthread_create
 * comes first — a program built with -fsanitize=thread and linked with the
 * shared libmon has libtsan.so first among its dependencies — that library
 * calls ours as its "real" pthread_create, and our start routine runs in the
 * new thread before that library's own has set the thread up;
 * ThreadSanitizer's instrumentation and interceptors crash in such a thread.
 * Then (`behind`) the new thread runs only raw system calls before handing
 * over: it tells its tid and waits, and the creating thread arms it.
 *
 * The thread clock's POSIX timers each hold one of the user's pending
 * signals (RLIMIT_SIGPENDING, counted from timer_create on: the signal is
 * allocated with the timer), the quota the program's own timers and
 * queued signals need.  They take at most a quarter of it
 * (timer_budget); the first thread that would need more switches the
 * process to the itimer clock, which needs none, says so on stderr and
 * in the profile's facts (issue 21, item 4).  Under the perf clock, a
 * thread that would fall back to a timer beyond the budget goes unsampled
 * (the facts say so too).
 *
 * fork: the child has one thread and none of the parent's timers (its perf
 * fds are copies of the parent's: it closes them), so the child handler
 * re-arms its own thread; both processes go on counting into their own copy
 * of the buffer.
 *
 * A child made without the C library's fork — the clone or clone3 system
 * call without CLONE_VM — runs no pthread_atfork handler.  Through
 * syscall(3) (libmon's, below) it is a fork: the same handlers run around
 * the system call (lib/clone.c).  Made any other way (an instruction of the program's
 * own), the child is noticed where libmon acts — its exit, a write, a stop
 * of the clocks — by getpid() differing from mon_pid: the clocks there are
 * the parent's (its perf events, whose descriptors the child shares, are
 * never disabled from the child), nothing of the parent's is written, and
 * the child is adopted as a fork child (mon_threads_adopt_process).
 */
#include <dirent.h>
#include <fcntl.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <threads.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <linux/kcmp.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "objects.h"
#include "mon.h"
#include "runfacts.h"
#include "runtime.h"

#define MON_MAX_THREADS 4096

struct slot {
	pid_t tid;		/* 0: free */
	struct mon_thread_clock clock;
};

static struct slot *slots;	/* MON_MAX_THREADS entries, allocated once */
/* Slots [0, slots_used) have ever held a thread; the rest are as mon_alloc
 * gave them.  Scans stop there: a process of one thread reads one page
 * of the table, not its 40 (each a page fault at the start and the end of
 * a short process), and a new thread's arm scans the threads there have
 * been, not 4096 slots twice.  Only grows, under lock. */
static unsigned slots_used;
static unsigned armed;		/* slots in use */
static int thread_kind;		/* per-thread clock kind in effect, or ITIMER */
static unsigned timers;		/* slots armed with the thread clock (POSIX timers) */
static int child_unarmed;	/* a fork child whose clock was left unarmed (the
				 * itimer clock: no interval timer of ours to stop) */
pid_t mon_pid;
struct mon_hooks mon_hooks;

static pthread_key_t exit_key;
static int behind;	/* another pthread_create precedes ours (above) */
/* This thread is inside fork(), between our prepare and parent/child
 * handlers, and holds mon_lock(). */
static __thread int in_fork __attribute__((tls_model("initial-exec")));
/* This thread's tid as our start routine read it (0: not known), so that
 * its end need not ask again; the child handler forgets it (the forking
 * thread has a tid of its own in the child). */
static __thread pid_t own_tid __attribute__((tls_model("initial-exec")));
static int (*real_pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

unsigned mon_threads_armed(void)
{
	return __atomic_load_n(&armed, __ATOMIC_RELAXED);
}

static unsigned used(void)
{
	return slots ? __atomic_load_n(&slots_used, __ATOMIC_ACQUIRE) : 0;
}

/* tid's slot, or for tid 0 a free one (the first never used when none
 * below is free); NULL: none.  Under lock. */
static struct slot *find(pid_t tid)
{
	unsigned n = used();
	for (unsigned i = 0; i < n; i++)
		if (slots[i].tid == tid)
			return &slots[i];
	if (tid != 0 || slots == NULL || n == MON_MAX_THREADS)
		return NULL;
	__atomic_store_n(&slots_used, n + 1, __ATOMIC_RELEASE);
	return &slots[n];
}

static void release(struct slot *s)
{
	if (s->clock.kind == MON_CLOCK_THREAD)
		timers--;
	mon_clock_disarm_thread(&s->clock);
	s->tid = 0;
	__atomic_sub_fetch(&armed, 1, __ATOMIC_RELAXED);
}

/* Slots of threads that no longer exist (armed from /proc, exited without
 * passing through our start routine) are reclaimed before a new one: a
 * tgkill(2) of signal 0 on each slot's thread, so at most once every
 * RECLAIM_EVERY_NS while the table stays full: 4096 system calls under the
 * lock for each thread started beyond it, which an interval's cut waited
 * behind (8400 threads started under -c thread: 1.51 s before, 1.04 s
 * after, median of 5 runs of the whole program).  Returns 0, or -1 too
 * soon. */
#define RECLAIM_EVERY_NS 100000000u
static int reclaim_dead(void)
{
	static uint64_t last_ns;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	uint64_t now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	if (last_ns && now - last_ns < RECLAIM_EVERY_NS)
		return -1;
	last_ns = now;
	for (unsigned i = 0, n = used(); i < n; i++)
		if (slots[i].tid && syscall(SYS_tgkill, mon_pid, slots[i].tid, 0) < 0 &&
		    errno == ESRCH)
			release(&slots[i]);
	return 0;
}

/* How many POSIX timers the thread clock may hold: a quarter of the soft
 * RLIMIT_SIGPENDING (getrlimit(2)), UINT_MAX when it is unlimited. */
static unsigned timer_budget(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_SIGPENDING, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur / 4 >= UINT_MAX)
		return UINT_MAX;
	return (unsigned)(rl.rlim_cur / 4);
}

/* One line on stderr (writev(2): the program's stdio buffers are its own). */
static void say(const char *line)
{
	struct iovec v = { (void *)line, strlen(line) };
	while (writev(STDERR_FILENO, &v, 1) < 0 && errno == EINTR)
		;
}

static int itimer_start(void);

/* The thread clock needs one more timer than its budget: every thread's
 * timer goes, the itimer clock samples the whole process instead.  Under
 * lock.  0, or -1/errno (no itimer clock either: nothing samples). */
static int switch_to_itimer(void)
{
	for (unsigned i = 0, n = used(); i < n; i++)
		if (slots[i].tid)
			release(&slots[i]);
	mon_clock_uninstall(thread_kind);
	mon_clock_note_sigq_short();
	say("monprof: the thread clock's timers would take more than a quarter of this "
	    "program's pending-signal quota (RLIMIT_SIGPENDING, ulimit -i): sampling with the "
	    "itimer clock instead\n");
	if (itimer_start() < 0) {
		thread_kind = MON_CLOCK_NONE;
		__atomic_store_n(&mon_clock_active, MON_CLOCK_NONE, __ATOMIC_RELAXED);
		return -1;
	}
	thread_kind = MON_CLOCK_ITIMER;
	__atomic_store_n(&mon_clock_active, MON_CLOCK_ITIMER, __ATOMIC_RELAXED);
	mon_clock_last = MON_CLOCK_ITIMER;
	return 0;
}

/* Arm a thread timer for tid within the budget: 0, or -1/errno (EAGAIN:
 * beyond the budget). */
static int arm_timer(pid_t tid, struct mon_thread_clock *tc)
{
	if (timers >= timer_budget())
		return mon_fail(EAGAIN);
	if (mon_clock_arm_thread(MON_CLOCK_THREAD, tid, tc) < 0)
		return -1;
	timers++;
	return 0;
}

/* Arm thread tid with the clock in effect, falling back to the next
 * per-thread clock for this thread if its own is refused.  Under lock. */
static int arm(pid_t tid)
{
	if (thread_kind == MON_CLOCK_ITIMER || thread_kind == MON_CLOCK_NONE)
		return 0;	/* switched to the process-wide clock */
	struct slot *s = find(tid);
	if (s != NULL || tid == __atomic_load_n(&mon_runtime_tid, __ATOMIC_ACQUIRE) ||
	    tid == __atomic_load_n(&mon_control_tid, __ATOMIC_ACQUIRE))
		return 0;	/* armed, or the runtime's own thread (wall.c, control.c) */
	s = find(0);
	if (s == NULL && reclaim_dead() == 0)
		s = find(0);
	if (s == NULL) {
		mon_clock_note_clocks_full();	/* prof says so, and names the itimer clock */
		return mon_fail(EAGAIN);
	}
	int rc = thread_kind == MON_CLOCK_THREAD ? arm_timer(tid, &s->clock)
						 : mon_clock_arm_thread(thread_kind, tid, &s->clock);
	if (rc < 0 && thread_kind == MON_CLOCK_PERF) {
		rc = arm_timer(tid, &s->clock);
		if (rc < 0 && errno == EAGAIN)
			mon_clock_note_sigq_short();	/* this thread goes unsampled */
	}
	if (rc < 0 && errno == EAGAIN && thread_kind == MON_CLOCK_THREAD && armed > 0)
		return switch_to_itimer();
	if (rc < 0)
		return -1;
	s->tid = tid;
	__atomic_add_fetch(&armed, 1, __ATOMIC_RELAXED);
	return 0;
}

/* Arm every thread listed in /proc/self/task.  Under lock.  Read with
 * getdents64 into a buffer on the stack: opendir would call the program's
 * malloc. */
static void arm_all(void)
{
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/task",
			      O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		arm(mon_gettid());	/* no /proc: this thread at least (monitor.c says so) */
		return;
	}
	char buf[4096] __attribute__((aligned(8)));
	long n;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
		for (long at = 0; at < n;) {
			struct dirent64 *e = (struct dirent64 *)(void *)(buf + at);
			pid_t tid = 0;
			for (const char *c = e->d_name; *c >= '0' && *c <= '9'; c++)
				tid = tid * 10 + (*c - '0');
			if (tid > 0)
				arm(tid);
			at += e->d_reclen;
		}
	}
	syscall(SYS_close, fd);
}

static int itimer_start(void)
{
	if (mon_itimer_was_cut())
		return mon_fail(EBUSY);	/* its tick ended a program's call: never again */
	if (mon_clock_install(MON_CLOCK_ITIMER) < 0)
		return -1;
	if (mon_itimer_start() < 0) {
		int e = errno;
		mon_clock_uninstall(MON_CLOCK_ITIMER);
		errno = e;
		return -1;
	}
	return 0;
}

int mon_threads_start(void)
{
	int saved_errno = errno;
	child_unarmed = 0;
	mon_clock_configure();
	if (slots == NULL) {
		slots = mon_alloc(MON_MAX_THREADS * sizeof *slots);
		if (slots == NULL)
			return mon_fail(ENOMEM);
	}
	mon_fd_set_mover(mon_threads_fd_move);	/* before a descriptor of a clock exists */
	mon_fd_set_identity(mon_threads_fd_id);
	/* Go's runtime runs its goroutines on small stacks with no guard and
	 * every thread of its on an alternate signal stack: ticks go there,
	 * never onto a goroutine's stack (sigguard.c). */
	uintptr_t preempt;
	if (mon_objects_go_runtime(&preempt)) {
		mon_sig_onstack_all();
		mon_sig_injected_call(preempt);
	}
	__atomic_store_n(&mon_pid, getpid(), __ATOMIC_RELAXED);
	static const int order[] = { MON_CLOCK_PERF, MON_CLOCK_THREAD, MON_CLOCK_ITIMER };
	int first = mon_clock_cfg.kind;
	int last_error = ENOTSUP;
	for (unsigned i = 0; i < 3; i++) {
		int kind = first ? first : order[i];
		pid_t self = mon_gettid();
		if (kind == MON_CLOCK_ITIMER) {
			if (itimer_start() == 0) {
				__atomic_store_n(&mon_clock_active, kind, __ATOMIC_RELAXED);
				mon_clock_last = kind;
				errno = saved_errno;
				return kind;
			}
			last_error = errno;
		} else if (mon_clock_install(kind) == 0) {
			thread_kind = kind;
			/* Started from the runtime's control thread (monctl on), which
			 * is never armed: no thread of the program's to measure a
			 * tick in; the rate stands unchecked. */
			int own = self == __atomic_load_n(&mon_control_tid, __ATOMIC_ACQUIRE);
			if (arm(self) == 0 && (own || find(self)->clock.kind == kind)) {
				if (!own)
					mon_clock_check_rate(&find(self)->clock);
				__atomic_store_n(&mon_clock_active, kind, __ATOMIC_RELAXED);
				mon_clock_last = kind;
				arm_all();	/* may switch to the itimer clock */
				kind = thread_kind;
				errno = saved_errno;
				return kind;
			}
			last_error = errno;
			if (kind == MON_CLOCK_THREAD && last_error == EAGAIN && find(self) == NULL &&
			    timer_budget() < 1) {
				/* Not even one timer fits the budget (asked for,
				 * or next in the order): the itimer clock, said
				 * as in switch_to_itimer. */
				mon_clock_uninstall(kind);
				mon_clock_note_sigq_short();
				if (itimer_start() == 0) {
					say("monprof: the thread clock's timers would take more than a "
					    "quarter of this program's pending-signal quota "
					    "(RLIMIT_SIGPENDING, ulimit -i): sampling with the itimer "
					    "clock instead\n");
					thread_kind = MON_CLOCK_ITIMER;
					__atomic_store_n(&mon_clock_active, MON_CLOCK_ITIMER,
							 __ATOMIC_RELAXED);
					mon_clock_last = MON_CLOCK_ITIMER;
					errno = saved_errno;
					return MON_CLOCK_ITIMER;
				}
				last_error = errno;
				break;
			}
			struct slot *s = find(self);
			if (s != NULL)
				release(s);
			mon_clock_uninstall(kind);
		}
		if (first)
			break;
	}
	/* A clock that exists but is out of resources for now (timers,
	 * pending signals) is EAGAIN: the caller may try again.  Anything
	 * else means no clock is allowed here. */
	return mon_fail(last_error == EAGAIN ? EAGAIN : ENOTSUP);
}

void mon_threads_stop(void)
{
	/* A process libmon did not fork (raw clone, vfork): the clocks are the
	 * parent's; the table may be the parent's own memory. */
	if (getpid() != __atomic_load_n(&mon_pid, __ATOMIC_RELAXED))
		return;
	int kind = mon_clock_active;
	if (kind == MON_CLOCK_ITIMER) {
		if (!child_unarmed)
			mon_itimer_stop();
	} else {
		for (unsigned i = 0, n = used(); i < n; i++)
			if (slots[i].tid)
				release(&slots[i]);
	}
	mon_clock_uninstall(kind);
	__atomic_store_n(&mon_clock_active, MON_CLOCK_NONE, __ATOMIC_RELAXED);
}

void mon_threads_fd_move(int fd)
{
	/* Called from the program's dup2/dup3, maybe in a signal handler or a
	 * fork child: no lock; the slot's number changes atomically. */
	for (unsigned i = 0, n = used(); i < n; i++) {
		int cur = fd;
		if (__atomic_load_n(&slots[i].tid, __ATOMIC_ACQUIRE) == 0 ||
		    __atomic_load_n(&slots[i].clock.fd, __ATOMIC_ACQUIRE) != fd)
			continue;
		int nfd = fcntl(fd, F_DUPFD_CLOEXEC, mon_fd_floor());
		if (nfd < 0 || nfd >= MON_FD_MAX) {
			if (nfd >= 0)
				syscall(SYS_close, nfd);
			return;	/* no room: the program's dup2 takes the number */
		}
		mon_fd_adopt(nfd);
		if (__atomic_compare_exchange_n(&slots[i].clock.fd, &cur, nfd, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			mon_fd_drop(fd);
		else {
			mon_fd_drop(nfd);
			syscall(SYS_close, nfd);
		}
		return;
	}
}

uint64_t mon_threads_fd_id(int fd)
{
	for (unsigned i = 0, n = used(); i < n; i++)
		if (__atomic_load_n(&slots[i].tid, __ATOMIC_ACQUIRE) != 0 &&
		    __atomic_load_n(&slots[i].clock.fd, __ATOMIC_ACQUIRE) == fd)
			return slots[i].clock.id;
	return 0;
}

/* ---- threads started while profiling ----------------------------------- */

struct start {
	void *(*fn)(void *);
	int (*c11)(void *);	/* a thrd_create(3) start routine instead of fn, or NULL */
	void *arg;
	int vblocked;		/* the creator's view of the tick signal's blocking */
};

static void thread_exit(void *unused)
{
	(void)unused;
	int saved_errno = errno;
	/* In a fork child before our child handler has run (or a raw clone's,
	 * which runs none), mon_lock() is still held and the table is the
	 * parent's: nothing here to release, and waiting would deadlock a
	 * child handler that joins this thread; nor is own_tid this
	 * thread's there. */
	int ours = __atomic_load_n(&mon_pid, __ATOMIC_RELAXED) == getpid();
	pid_t self = ours && own_tid ? own_tid : mon_gettid();	/* the facts and the table */
	mon_fatal_thread_end();
	if (ours) {
		mon_lock();
		struct slot *s = find(self);
		if (s != NULL)
			release(s);
		mon_unlock();
	}
	/* The thread's CPU last, after what libmon's own end of it costs (the
	 * clock's disarm: an ioctl, a close and the munmap of a perf event's
	 * buffer; the alternate stack's munmap): read first, that CPU went on
	 * the process's total after the thread's figure, and 300 short threads
	 * on a loaded machine made 0.026 s of it that prof called "CPU in
	 * threads that ended unseen" (coverage_short_threads.sh). */
	mon_facts_thread_end(self);
	errno = saved_errno;
}

static void *thread_start(void *p)
{
	struct start st = *(struct start *)p;
	mon_free(p);
	int saved_errno = errno;
	/* Whatever mask the thread inherited, ticks get through (sigguard.c). */
	mon_sig_thread_started(st.vblocked);
	mon_itimer_thread_started();
	mon_fatal_thread_start();	/* a stack for the fatal handlers (fatal.c) */
	pid_t self = mon_gettid();	/* asked once: the hook, the clock, the end */
	own_tid = self;
	if (mon_hooks.thread_started)
		mon_hooks.thread_started(self);
	pthread_setspecific(exit_key, (void *)1);
	/* As in thread_exit: a thread started in a fork child before our
	 * child handler ran is not armed (nor would it be after: the child
	 * handler arms the forking thread only). */
	if (__atomic_load_n(&mon_pid, __ATOMIC_RELAXED) == getpid()) {
		mon_lock();
		if (mon_clock_active != MON_CLOCK_NONE && mon_clock_active != MON_CLOCK_ITIMER)
			arm(self);
		mon_unlock();
	}
	errno = saved_errno;
	/* A C11 thread's int result as the C library keeps it: thrd_join
	 * reads it back as (int)(uintptr_t) of the pthread result. */
	return st.c11 ? (void *)(uintptr_t)st.c11(st.arg) : st.fn(st.arg);
}

/* The hand-over between a creating thread and a new one when `behind`.
 * state is a futex word: HANDOFF_NEW until the new thread has stored its
 * tid, HANDOFF_TOLD until the creator has armed it, HANDOFF_GO until the new
 * thread has copied fn and arg, HANDOFF_DONE after (the creator's stack frame
 * holding this may then go). */
enum { HANDOFF_NEW, HANDOFF_TOLD, HANDOFF_GO, HANDOFF_DONE };
struct handoff {
	void *(*fn)(void *);
	void *arg;
	pid_t tid;
	int state;
	int vblocked;
};

__attribute__((no_sanitize("thread"))) static void handoff_set(int *state, int value)
{
	__atomic_store_n(state, value, __ATOMIC_RELEASE);
	syscall(SYS_futex, state, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

__attribute__((no_sanitize("thread"))) static void handoff_wait(int *state, int value)
{
	while (__atomic_load_n(state, __ATOMIC_ACQUIRE) == value)
		syscall(SYS_futex, state, FUTEX_WAIT_PRIVATE, value, NULL, NULL, 0);
}

/* The new thread's side when `behind`: nothing the sanitizer instruments or
 * intercepts (the C library's syscall() and pthread_setspecific() are not
 * intercepted; the TLS of mon_itimer_thread_started is initial-exec). */
__attribute__((no_sanitize("thread"))) static void *thread_start_behind(void *p)
{
	struct handoff *h = p;
	int saved_errno = errno;
	h->tid = (pid_t)syscall(SYS_gettid);
	handoff_set(&h->state, HANDOFF_TOLD);
	handoff_wait(&h->state, HANDOFF_TOLD);
	void *(*fn)(void *) = h->fn;
	void *arg = h->arg;
	int vblocked = h->vblocked;
	/* The last use of h: the creator may return as soon as it sees DONE,
	 * so the wake-up may land on a dead stack address (a spurious wake-up
	 * at worst, which every futex user tolerates). */
	handoff_set(&h->state, HANDOFF_DONE);
	mon_sig_thread_started(vblocked);
	mon_itimer_thread_started();
	mon_fatal_thread_start();
	pthread_setspecific(exit_key, (void *)1);
	errno = saved_errno;
	return fn(arg);
}

static int create_behind(pthread_t *thread, const pthread_attr_t *attr,
			 void *(*start_routine)(void *), void *arg)
{
	struct handoff h = { start_routine, arg, 0, HANDOFF_NEW, mon_sig_vblocked() };
	int rc = real_pthread_create(thread, attr, thread_start_behind, &h);
	if (rc != 0)
		return rc;
	int saved_errno = errno;
	handoff_wait(&h.state, HANDOFF_NEW);
	/* Inside fork() this thread holds the lock already: ThreadSanitizer's
	 * fork child handler, which runs before ours, starts a thread. */
	int held = in_fork;
	if (!held)
		mon_lock();
	if (mon_clock_active != MON_CLOCK_NONE && mon_clock_active != MON_CLOCK_ITIMER &&
	    mon_pid == getpid())
		arm(h.tid);
	if (!held)
		mon_unlock();
	handoff_set(&h.state, HANDOFF_GO);
	handoff_wait(&h.state, HANDOFF_GO);
	errno = saved_errno;
	return 0;
}

/* pthread_create — the C library's, with the new thread's profiling clock
 * armed before its start routine runs.  Same arguments, results and errors
 * as pthread_create(3). */
MON_EXPORT int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
			      void *(*start_routine)(void *), void *arg)
{
	if (real_pthread_create == NULL)
		real_pthread_create = (int (*)(pthread_t *, const pthread_attr_t *,
					       void *(*)(void *), void *))mon_libc_next("pthread_create");
	if (real_pthread_create == NULL)
		return EAGAIN;
	if (behind)
		return create_behind(thread, attr, start_routine, arg);
	struct start *st = mon_alloc(sizeof *st);
	if (st == NULL)
		return real_pthread_create(thread, attr, start_routine, arg);
	*st = (struct start){ start_routine, NULL, arg, mon_sig_vblocked() };
	int rc = real_pthread_create(thread, attr, thread_start, st);
	if (rc != 0)
		mon_free(st);
	return rc;
}

/* thrd_create — the C library's (C11 <threads.h>), with the new thread's
 * profiling clock armed before func runs, as pthread_create above: glibc
 * makes a C11 thread with its internal pthread_create, which no
 * interposed one sees, so its CPU went unsampled.  The thread is made with
 * the default attributes, as glibc's thrd_create makes it (ISO C 7.26.5.1;
 * glibc nptl/thrd_create.c).  Same arguments and results as thrd_create(3):
 * thrd_success, thrd_nomem (ENOMEM), thrd_timedout, thrd_busy, else
 * thrd_error (EAGAIN: no resources).  Where libmon cannot wrap the start
 * (no memory of its own; a sanitizer's pthread_create first: `behind`) the
 * C library's thrd_create is called, unprofiled as before. */
MON_EXPORT int thrd_create(thrd_t *thr, thrd_start_t func, void *arg)
{
	static int (*real_thrd_create)(thrd_t *, thrd_start_t, void *);
	if (real_thrd_create == NULL)
		real_thrd_create = (int (*)(thrd_t *, thrd_start_t, void *))
			mon_libc_next("thrd_create");
	if (real_pthread_create == NULL)
		real_pthread_create = (int (*)(pthread_t *, const pthread_attr_t *,
					       void *(*)(void *), void *))mon_libc_next("pthread_create");
	struct start *st = NULL;
	if (real_pthread_create == NULL || behind || (st = mon_alloc(sizeof *st)) == NULL)
		return real_thrd_create != NULL ? real_thrd_create(thr, func, arg) : thrd_error;
	*st = (struct start){ NULL, func, arg, mon_sig_vblocked() };
	int rc = real_pthread_create((pthread_t *)thr, NULL, thread_start, st);
	if (rc != 0)
		mon_free(st);
	switch (rc) {
	case 0: return thrd_success;
	case ENOMEM: return thrd_nomem;
	case ETIMEDOUT: return thrd_timedout;
	case EBUSY: return thrd_busy;
	default: return thrd_error;
	}
}

/* The thread that ends the process: the program's atexit handlers and
 * destructors run on it, with the C library's default stack (ours are
 * small) and no signal blocked (ours block every one), as on a thread of
 * the program's. */
static void *exit_thread(void *arg)
{
	(void)arg;
	exit(0);
}

int mon_exit_for_program(void)
{
	static int once;
	if (__atomic_exchange_n(&once, 1, __ATOMIC_ACQ_REL))
		return 0;	/* another of ours is doing it */
	if (real_pthread_create == NULL)
		real_pthread_create = (int (*)(pthread_t *, const pthread_attr_t *,
					       void *(*)(void *), void *))mon_libc_next("pthread_create");
	pthread_attr_t attr;
	sigset_t none;
	sigemptyset(&none);
	pthread_t t;
	if (real_pthread_create != NULL && pthread_attr_init(&attr) == 0) {
		pthread_attr_setsigmask_np(&attr, &none);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		int rc = real_pthread_create(&t, &attr, exit_thread, NULL);
		pthread_attr_destroy(&attr);
		if (rc == 0)
			return 1;
	}
	exit(0);	/* no thread to be had: here, rather than never */
}

/* ---- fork -------------------------------------------------------------- */

static void before_fork(void)
{
	mon_lock();
	in_fork = 1;
}

static void after_fork_parent(void)
{
	in_fork = 0;
	mon_unlock();
	if (mon_hooks.fork_parent)
		mon_hooks.fork_parent();
}

static void after_fork_child(void)
{
	int saved_errno = errno;
	mon_alloc_fork_child();
	mon_sig_fork_child();
	int kind = mon_clock_active;
	for (unsigned i = 0, n = used(); i < n; i++) {
		if (slots[i].tid) {
			mon_clock_forget_inherited(&slots[i].clock);
			slots[i].tid = 0;
		}
	}
	armed = 0;
	timers = 0;
	in_fork = 0;
	own_tid = 0;
	__atomic_store_n(&mon_pid, getpid(), __ATOMIC_RELAXED);
	/* The child's counters and histograms start from zero before its
	 * clock runs, so that what it counts is what its histograms hold. */
	if (mon_hooks.counters_reset)
		mon_hooks.counters_reset(1);
	mon_clock_unsampled_reset();
	if (mon_hooks.fork_reset)
		mon_hooks.fork_reset();
	/* A child the fork_child hook stops sampling at once (monrun without
	 * -f) is left unarmed: arming a clock only to disarm it again cost
	 * every such child a dozen system calls (issue 25).  The clock's
	 * signal stays ours until that hook gives it back, as before. */
	child_unarmed = kind != MON_CLOCK_NONE && mon_hooks.fork_unsampled != NULL &&
			mon_hooks.fork_unsampled();
	mon_sig_none_pending(child_unarmed);
	if (child_unarmed)
		kind = MON_CLOCK_NONE;	/* nothing to arm */
	if (kind == MON_CLOCK_ITIMER) {
		/* A fork child does not inherit interval timers. */
		mon_itimer_start();
	} else if (kind != MON_CLOCK_NONE) {
		if (arm(mon_gettid()) < 0)
			__atomic_store_n(&mon_clock_active, MON_CLOCK_NONE, __ATOMIC_RELAXED);
	}
	mon_unlock();
	if (mon_hooks.fork_child)
		mon_hooks.fork_child();
	errno = saved_errno;
}

/* Does process pid share this process's memory (kcmp(2), KCMP_VM)?  1 if
 * it does or if that cannot be told (kcmp refused or absent). */
static int shares_memory(pid_t pid)
{
	return syscall(SYS_kcmp, getpid(), pid, KCMP_VM, 0, 0) != 1 &&
	       syscall(SYS_kcmp, getpid(), pid, KCMP_VM, 0, 0) != 2;
}

int mon_threads_adopt_process(void)
{
	pid_t owner = __atomic_load_n(&mon_pid, __ATOMIC_RELAXED);
	if (getpid() == owner)
		return 0;
	if (shares_memory(owner))
		return -1;
	/* Whichever thread of the parent held these, it is not here. */
	mon_lock_reset();
	mon_lock();
	in_fork = 1;
	after_fork_child();	/* unlocks */
	return 1;
}

__attribute__((constructor)) void mon_threads_init(void)
{
	MON_ONCE();
	int saved_errno = errno;
	real_pthread_create = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
				       void *))mon_libc_next("pthread_create");
	/* The program's first pthread_create is not in the object holding
	 * this code: another library's wraps ours (top of this file). */
	Dl_info first, self;
	void *p = dlsym(RTLD_DEFAULT, "pthread_create");
	behind = p != NULL && dladdr(p, &first) && dladdr((void *)thread_start, &self) &&
		 first.dli_fbase != self.dli_fbase;
	pthread_key_create(&exit_key, thread_exit);
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
	mon_clone_set_fork(before_fork, after_fork_parent, after_fork_child);	/* syscall(3)'s clone */
	__atomic_store_n(&mon_pid, getpid(), __ATOMIC_RELAXED);
	mon_clock_configure();	/* so mon_getstats reports MONPROF_RATE at once */
	errno = saved_errno;
}
