/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * runtime.h — libmon's private interfaces between its components.
 *
 * Nothing here is exported from libmon.so (everything is hidden); tools
 * never include this file.  The components:
 *   sampler.c   the tick dispatcher (sampler.h): the sinks, the clock users,
 *               the counters
 *   profil.c    the histogram: the published buffer/offset/scale, the bin
 *               formula; a sink of the sampler
 *   clock.c     the profiling clocks: choosing one, arming and disarming it
 *               for a thread, the signal handler and its disposition
 *   threads.c   the table of armed threads, pthread_create, fork
 *   exec.c      the exec family: profiling off before the new image
 *   objects.c   the loaded objects (objects.h)
 *   unwind.c    the stack unwinder: CFI tables per object, walks from a
 *               tick's ucontext (unwind.h); uses objects.c, alloc.c, util.c
 *   stacks.c    the call stacks' table, the sampler's observer (stacks.h)
 *   util.c      mon_fail, mon_gettid, mon_owner_take, mon_writable, mon_fd_each_line,
 *               mon_task_each, mon_lock (a leaf)
 * No two of libmon's files use each other (tests/integ/lib_layers.sh):
 * where a lower file must reach a higher one, it calls a function it was
 * given (mon_clock_deliver_to, mon_hooks, mon_sig_route, mon_fd_set_mover).
 */
#ifndef MON_RUNTIME_H
#define MON_RUNTIME_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define MON_HIDDEN __attribute__((visibility("hidden")))
/* Not instrumented by ThreadSanitizer: the C library functions libmon
 * replaces (sigaction, close...) are called by the sanitizer's own runtime
 * before it is set up, and from signal handlers. */
#define MON_NO_TSAN __attribute__((no_sanitize("thread")))
#define MON_EXPORT __attribute__((visibility("default")))

/* ---- libmon's constructors ---------------------------------------------
 * Each file's start-up is a constructor, and also run, in this order, by
 * autostart.c before it starts monrun's profiling: that may happen before
 * ld.so runs libmon's constructors, from the first library's _init
 * (__gmon_start__, autostart.c).  Each runs once (MON_ONCE). */
#define MON_ONCE()                                                             \
	do {                                                                   \
		static int once_;                                              \
		if (__atomic_exchange_n(&once_, 1, __ATOMIC_ACQ_REL))          \
			return;                                                \
	} while (0)
MON_HIDDEN void mon_sigguard_init(void);
MON_HIDDEN void mon_fdguard_init(void);
MON_HIDDEN void mon_control_init(void);
MON_HIDDEN void mon_exec_init(void);
MON_HIDDEN void mon_fatal_init(void);
MON_HIDDEN void mon_memread_init(void);
MON_HIDDEN void mon_monitor_init(void);
MON_HIDDEN void mon_threads_init(void);
MON_HIDDEN void mon_unwind_init(void);
/* Every constructor above but mon_monitor_init (its caller runs that one
 * beside it: the arrow points one way), and the format's checksum table,
 * once each, in ld.so's order (init.c): run first by every start of
 * profiling, which can come before them (cc -pg's _init, a static link).
 * Not async-signal-safe. */
MON_HIDDEN void mon_runtime_init(void);

/* ---- profil.c ---------------------------------------------------------- */

/* Bin of pc for a histogram at offset/scale: ((pc - offset) / 2) * scale / 65536,
 * exact for every 64-bit pc (format/bins.h's mon_bin_of).  Returns
 * UINT64_MAX when pc < offset. */
MON_HIDDEN uint64_t mon_pc_to_bin(uintptr_t pc, uintptr_t offset, unsigned scale);

/* Saturating add of weight to a 16-bit bin; returns the weight that did not
 * fit (0 when all of it did).  Atomic against concurrent ticks. */
MON_HIDDEN uint64_t mon_bin_add(unsigned short *bin, uint64_t weight);


/* ---- clock.c ----------------------------------------------------------- */

struct mon_clock_cfg {
	int kind;		/* enum mon_clock asked for first (0: automatic) */
	unsigned rate_hz;	/* ticks per CPU-second */
	int signo;		/* the signal per-thread clocks raise */
};

/* Per-thread clock handle, kept in the thread table. */
struct mon_thread_clock {
	int kind;		/* MON_CLOCK_PERF or MON_CLOCK_THREAD */
	int fd;			/* perf event fd, or -1 */
	int timerid;		/* kernel POSIX timer id, or -1 */
	uint64_t id;		/* the perf event's ID (PERF_EVENT_IOC_ID): fd is still ours */
	void *page;		/* the perf event's metadata page mapped (keeps the event
				 * alive if the program closes fd behind our back), or NULL */
};

MON_HIDDEN extern struct mon_clock_cfg mon_clock_cfg;

/* Read MONPROF_RATE / MONPROF_CLOCK / MONPROF_SIGNAL once; then, while no
 * clock runs, apply what mon_clock_set_next asked. */
MON_HIDDEN void mon_clock_configure(void);

/* mon_setclock(3): the clock kind (enum mon_clock, 0: automatic) and rate
 * (1..20000 Hz, checked by the caller) for the next start of the clocks,
 * replacing MONPROF_CLOCK / MONPROF_RATE.  Under mon_lock(). */
MON_HIDDEN void mon_clock_set_next(int kind, unsigned rate_hz);

/* The clock kind in effect, MON_CLOCK_NONE when off; the last one that
 * was in effect (still set after profiling stopped, for the file).  Set by
 * threads.c when it starts and stops the clocks. */
MON_HIDDEN extern int mon_clock_active;
MON_HIDDEN extern int mon_clock_last;

/* Where the handler delivers each tick: tick(context, pc, weight), context
 * the signal's ucontext_t, weight >= 1 samples (sampler.c's dispatcher).
 * Published atomically; until it is set ticks are ignored. */
MON_HIDDEN void mon_clock_deliver_to(void (*tick)(const void *context, uintptr_t pc,
						  uint64_t weight));

/* Install the tick handler on the clock's signal (saving the program's
 * disposition); mon_clock_uninstall puts the program's back, discarding any
 * tick still pending.  Return 0 or -1/errno. */
MON_HIDDEN int mon_clock_install(int kind);
MON_HIDDEN void mon_clock_uninstall(int kind);

/* Arm a per-thread clock of kind for thread tid (any thread of this
 * process); fills *tc.  Returns 0 or -1/errno. */
MON_HIDDEN int mon_clock_arm_thread(int kind, pid_t tid, struct mon_thread_clock *tc);
MON_HIDDEN void mon_clock_disarm_thread(struct mon_thread_clock *tc);
/* Forget a handle inherited over fork without touching the parent's clock. */
MON_HIDDEN void mon_clock_forget_inherited(struct mon_thread_clock *tc);

/* Ticks the clock could not take since the program took its signal (the
 * itimer clock's SIGPROF, which cannot be shared): the process's CPU time
 * since then, in periods of the rate.  Counted in mon_stats.lost.
 * Async-signal-safe.  _end: sampling released (the count stays);
 * _reset: in a fork child (which also forgets the CPU of the parent's rate
 * check). */
MON_HIDDEN uint64_t mon_clock_unsampled(void);
MON_HIDDEN void mon_clock_unsampled_end(void);
MON_HIDDEN void mon_clock_unsampled_reset(void);
/* on 1: the calling thread does the runtime's own work from now (its start,
 * monitor.c whole_started: its watcher process), and the ticks it takes
 * are left out, counted nowhere (that CPU goes into FACTS' CPU before, as
 * unsampled); on 0: its ticks are samples again (the itimer clock's next
 * weight counts from now).  Async-signal-safe. */
MON_HIDDEN void mon_clock_own_work(int on);
/* The runtime's own work in a thread of the program's after the start (a
 * dlopen's objects: their histograms, unwind tables and file list), from
 * _begin to _end in that thread: its ticks are left out as above, and its
 * CPU is counted (mon_clock_own_usec) as not sampled by design, so that
 * the profile neither charges it to the program's code nor reports it
 * missing.  Nested in another such window (or the start's): nothing of
 * its own.  o: the caller's, between the two calls.  Not in a signal
 * handler (CLOCK_THREAD_CPUTIME_ID reads). */
struct mon_own_work {
	int outer;		/* this window set the flag */
	uint64_t cpu0_ns;	/* the thread's CPU at _begin */
};
MON_HIDDEN void mon_clock_own_begin(struct mon_own_work *o);
MON_HIDDEN void mon_clock_own_end(struct mon_own_work *o);
/* Microseconds of CPU counted by mon_clock_own_end in this process so far
 * (a fork child starts from 0). */
MON_HIDDEN uint64_t mon_clock_own_usec(void);
/* A wait of the runtime's own in a thread of the program's (the control
 * thread's start, a writer or a fork waiting for another, a quiesce, the
 * wall sampler's join): from
 * _begin to _end its ticks are left out, as in mon_clock_own_work(1), so
 * that an itimer tick given to it while another thread blocks every
 * signal, which ends our call with EINTR, is not taken for one that ended
 * a call of the program's (clock.c itimer_cut would stop the clock for the
 * rest of the run: the control thread's start under ASan did, 2 runs in
 * 5 of threads_churn.sh).  Nests: _begin returns whether it set the flag,
 * for _end.  mon_clock_own_nap: one nanosleep(2) of ns nanoseconds
 * (0 ≤ ns < 1 s) so, which a signal may end early; the caller loops.
 * Async-signal-safe. */
MON_HIDDEN int mon_clock_own_wait_begin(void);
MON_HIDDEN void mon_clock_own_wait_end(int outer);
MON_HIDDEN void mon_clock_own_nap(long ns);
/* Measure what a tick of the clock just armed in the calling thread (tc)
 * costs in CPU and, when the set rate would spend more than a quarter of
 * the CPU in ticks, lower the rate (kept for every thread armed after).
 * Perf clock above 1000 Hz only, at the first start of the clocks in a
 * process image only (a fork child keeps the parent's result); costs
 * about 20 ms of CPU then. */
MON_HIDDEN void mon_clock_check_rate(struct mon_thread_clock *tc);
/* The CPU one tick costs, in ns, from n rounds (1..16) of the same work
 * timed with the clock off (base[i], ns of thread CPU) and on (with[i], ns;
 * ticks[i] ticks counted in it).  The machine's interference (a sibling
 * hyperthread, a hypervisor's steal, a frequency step) only adds time to a
 * round, so the least base stands for the work alone and the round whose
 * excess over it is least per tick gives the cost.  0 when no round ticked
 * or took longer than the least base.  Pure: tests/unit/test_rate_check.c. */
MON_HIDDEN uint64_t mon_tick_cost_estimate(const uint64_t *base, const uint64_t *with,
					   const uint64_t *ticks, unsigned n);
/* How many times mon_clock_check_rate measured in this process image: 0 or
 * 1 (for tests: tests/unit/test_rate_check.c). */
MON_HIDDEN unsigned mon_clock_rate_checks(void);
/* Facts for the profile: rate asked and set (Hz), measured tick cost (ns,
 * 0 if not measured), MONOUT_FACT_* flags (system time sampled or not,
 * rate lowered), CPU the rate check took (microseconds, not sampled). */
MON_HIDDEN void mon_clock_facts(uint32_t *asked, uint32_t *set, uint32_t *cost_ns,
				uint32_t *flags, uint32_t *check_us);

/* The thread clock could not have a timer without taking more than its
 * share of RLIMIT_SIGPENDING (threads.c): recorded for the profile's facts
 * (MONOUT_FACT_SIGQ_SHORT). */
MON_HIDDEN void mon_clock_note_sigq_short(void);

/* A thread was left without a clock: every slot of threads.c's table was
 * a live thread's (MONOUT_FACT_CLOCKS_FULL). */
MON_HIDDEN void mon_clock_note_clocks_full(void);

/* The process-wide ITIMER_PROF clock (the last fallback). */
MON_HIDDEN int mon_itimer_start(void);
MON_HIDDEN void mon_itimer_stop(void);
/* The itimer clock stopped in this process because its tick ended a
 * program's waiting system call with EINTR (clock.c itimer_cut): 1, else 0.
 * A fork child starts clear. */
MON_HIDDEN int mon_itimer_was_cut(void);
/* Ticks that reached a thread while its tick handler ran (the itimer
 * clock's, which nest: clock.c on_tick) and were not samples, since the
 * process started; 0 or more.  Async-signal-safe. */
MON_HIDDEN unsigned long mon_clock_nested_ticks(void);
/* The signal the runtime's own threads take for real (mon_sig_runtime_thread):
 * SIGPROF while the itimer clock runs in this process, else 0. */
MON_HIDDEN int mon_clock_runtime_signal(void);
/* In a new thread, first thing: its CPU time counts for the itimer clock's
 * weighting from 0.  Async-signal-safe. */
MON_HIDDEN void mon_itimer_thread_started(void);

/* ---- threads.c --------------------------------------------------------- */

/* Start sampling every thread of the process with the best clock that
 * works; returns the clock kind in effect, or -1/errno. */
MON_HIDDEN int mon_threads_start(void);
/* Stop sampling in every thread; when this returns no tick is pending. */
MON_HIDDEN void mon_threads_stop(void);
/* Number of threads armed now. */
MON_HIDDEN unsigned mon_threads_armed(void);
/* Is the calling process the one the runtime's state belongs to?  0: yes.
 * 1: a child process made without the C library's fork (a raw clone or
 * clone3 system call not made through syscall(3), which libmon handles as
 * fork: threads.c), adopted now as a fork child is (the parent's clocks
 * forgotten, never disarmed; counters from zero; monitor.c's fork_child
 * hook decides whether it is followed).  -1: a process that shares the
 * runtime's memory (a vfork child): nothing may be changed.  Takes
 * mon_lock(); not from a signal handler. */
MON_HIDDEN int mon_threads_adopt_process(void);

/* pid of the process the runtime state belongs to (changes in a fork child;
 * a vfork child sees its parent's). */
MON_HIDDEN extern pid_t mon_pid;

/* Hooks for the layers above (monitor, file writer); may be NULL. */
struct mon_hooks {
	/* Zero the tick counters (sampler.c): in a fork child (forked 1),
	 * before fork_reset, and for a new run after monitor(0) (0). */
	void (*counters_reset)(int forked);
	void (*fork_reset)(void);	/* in a fork child, before its clock is armed:
					 * zero what the child counts (no lock taken) */
	void (*before_exec)(const char *path, int how, int fd);	/* about to exec path (how, fd:
						 * mon_exec_prepare's): write what must be written */
	void (*exec_failed)(void);	/* the exec returned */
	/* The environment the new image gets (follow exec): bytes of stack
	 * to build it in (0: the program's own), then build it there (NULL:
	 * the program's own).  spawn: for a posix_spawn child (else for an
	 * exec by this process, or by a vfork child of it). */
	size_t (*exec_env_size)(char *const envp[], int spawn);
	char **(*exec_env_build)(char *const envp[], int spawn, void *buf, size_t size);
	/* A child that runs a program without passing the fork handlers: in a
	 * vfork child about to exec (its memory is the parent's, so what it
	 * counts is the parent's; perhaps once per path tried), and in the
	 * parent after posix_spawn(p) returned rc (0: a child runs). */
	void (*vfork_exec)(void);
	void (*spawned)(int rc);
	void (*fork_child)(void);	/* in a fork child, after the clocks are re-armed */
	int (*fork_unsampled)(void);	/* in a fork child, before its clock is armed:
					 * nonzero when fork_child will stop every clock
					 * (monrun without -f): the clock is not armed */
	void (*fork_parent)(void);	/* in the parent after a fork (also a failed one),
					 * the lock released */
	/* Objects were loaded while sampling them all: after dlopen (early
	 * 0), or from a loaded library's _init while dlopen still holds the
	 * loader's lock (early 1: no lock may be waited for).  Returns 1 when
	 * all it keeps of the objects is current, 0 when some was left. */
	int (*after_dlopen)(int early);
	void (*thread_started)(pid_t tid);	/* in a thread our pthread_create started, first
						 * thing (wall.c: sample it from the next round);
						 * async-signal-safe, no lock */
};
MON_HIDDEN extern struct mon_hooks mon_hooks;

/* ---- clone.c: syscall(3) ---------------------------------------------- */

/* The handlers syscall(3) runs around a clone/clone3 system call that makes
 * a process of its own memory (no CLONE_VM, CLONE_VFORK, CLONE_THREAD):
 * prepare before it, parent after it in the parent (also when it failed),
 * child first thing in the child; pthread_atfork(3)'s roles (threads.c's
 * fork handlers).  Set once, at load. */
MON_HIDDEN void mon_clone_set_fork(void (*prepare)(void), void (*parent)(void),
				   void (*child)(void));

/* What syscall(3) runs before an exit_group system call made through it
 * (fatal.c: write the profile, as at _exit).  Async-signal-safe.  Set once. */
MON_HIDDEN void mon_clone_set_exit(void (*before)(void));
/* System call NUMBER, its arguments as syscall(3) takes them (up to six
 * words), made by the instruction itself: no interposer, no lock, no fork
 * handler (a clone here is not a fork for libmon).  Returns as syscall(3):
 * the result, or -1 and errno for one in [-4095, -1].  Async-signal-safe;
 * in static links too (no dlsym). */
MON_HIDDEN long mon_raw_syscall(long number, ...);

/* ---- exec.c ------------------------------------------------------------ */

/* How an exec names the program it runs (for a look at its file,
 * follow.c): */
#define MON_EXEC_PATH 0		/* execve(2): path, from the working directory */
#define MON_EXEC_SEARCH 1	/* execvpe(3): path, searched in PATH when it has no slash */
#define MON_EXEC_FD 2		/* fexecve(3): the open file fd */
#define MON_EXEC_AT 3		/* execveat(2): path from directory fd (fd itself when
				 * path is empty) */

/* Before an exec in this process: profiling off, no tick pending, the
 * program's signal disposition and timer back.  path names the program
 * as how says (MON_EXEC_*, with fd).  Returns 1 if profiling was on (then
 * call mon_exec_failed if the exec returns). */
MON_HIDDEN int mon_exec_prepare(const char *path, int how, int fd);
MON_HIDDEN void mon_exec_failed(void);

/* ---- sigguard.c: the program's view of its signals -------------------- */

/* Take sig for a clock: the kernel's disposition becomes a dispatcher that
 * runs tick() for instances is_ours() recognises and does what the
 * program's (virtual) disposition says for the others.  flags:
 * MON_SIG_TICK, a tick signal (never blocked for real, hidden in every
 * handler's sa_mask); MON_SIG_NESTS, the dispatcher runs with sig itself
 * unblocked (SA_NODEFER), so that an instance raised while this thread
 * runs it is this thread's, nested, and tick() must return at once for it
 * (the itimer clock: blocked, the process's SIGPROF goes to another
 * thread, one waiting in a system call among them, which it ends with
 * EINTR).  yield: NULL when is_ours tells ticks apart exactly; else called
 * (outside any lock of sigguard's) when the program installs a handler of
 * its own, to stop the clock and mon_sig_disown(sig) before the program
 * gets it.  0 or -1/errno (EINVAL). */
#define MON_SIG_TICK 1u
#define MON_SIG_NESTS 2u
MON_HIDDEN int mon_sig_own(int sig, unsigned flags, int (*is_ours)(int, const siginfo_t *),
			   void (*tick)(int, siginfo_t *, void *), void (*yield)(int));
/* Give sig back: pending instances discarded, the program's disposition
 * (and, for this thread, its mask) set for real. */
MON_HIDDEN void mon_sig_disown(int sig);
/* Give first, then then (0: none) back under one lock: one mask block
 * and restore for both (the perf clock's SIGIO guard and tick signal). */
MON_HIDDEN void mon_sig_disown_pair(int first, int then);
/* From now on every owned signal's dispatcher runs on the thread's
 * alternate signal stack (SA_ONSTACK), those owned now at once: for a
 * process whose code cannot take a signal frame on the stack it runs on
 * (Go's goroutine stacks: see sigguard.c).  Never undone. */
MON_HIDDEN void mon_sig_onstack_all(void);
/* entry: the first instruction of a function that a handler of the
 * program's makes the interrupted code call by rewriting its context (Go's
 * asyncPreempt: objects.c mon_objects_go_runtime), 0: none.  A tick that
 * finds it is taken as if it had come before that handler (sigguard.c).
 * Async-signal-safe; the last call wins. */
MON_HIDDEN void mon_sig_injected_call(uintptr_t entry);
/* Route the program's sigaction calls through set from now on (fatal.c:
 * mon_fatal_sigaction) instead of the C library's, and ask known (fatal.c:
 * mon_fatal_action; NULL: none) for an action set knows without asking
 * the kernel (1, with it in *sa; else 0).  Published atomically.  Given,
 * not called by name: fatal.c uses sigguard.c, never the other way. */
MON_HIDDEN void mon_sig_route(int (*set)(int sig, const struct sigaction *act,
					 struct sigaction *old),
			      int (*known)(int sig, struct sigaction *sa));
/* ---- fatal.c: the alternate signal stack the fatal handlers run on ------ */

/* Give the calling thread an alternate signal stack of ours if the fatal
 * handlers are installed and the thread has none (mon_fatal_thread_start),
 * and take it down at the thread's end (mon_fatal_thread_end).  Normal
 * context only; errno kept. */
MON_HIDDEN void mon_fatal_thread_start(void);
MON_HIDDEN void mon_fatal_thread_end(void);

/* ---- libc_next.c: the C library's definition of an interposed function -- */

/* The next definition of name after libmon's: dlsym(RTLD_NEXT, name) in a
 * dynamically linked program; in a static one (dlsym finds nothing) the C
 * library's under another name, or an equivalent system call (the list is
 * at the top of libc_next.c).  NULL when there is none (dlopen in most
 * static programs).  Not async-signal-safe: call it from constructors. */
MON_HIDDEN void *mon_libc_next(const char *name);

/* The C library's sigaction (what libmon's own sigaction wraps). */
MON_HIDDEN int mon_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old);
/* The calling thread's program-view "tick signal blocked" flag, and
 * setting up a new thread with its creator's (the tick signal unblocked for
 * real).  Async-signal-safe; raw system calls only. */
MON_HIDDEN int mon_sig_vblocked(void);
MON_HIDDEN void mon_sig_thread_started(int inherited_vblocked);
MON_HIDDEN void mon_sig_fork_child(void);
/* In a fork child: none (nonzero) when it arms no clock before it gives
 * its signals back, so that no tick of ours can be pending in it (the
 * parent's events signal the parent's threads, and fork(2) clears the
 * pending signals): mon_sig_disown need not discard them.  The next
 * mon_sig_own forgets it. */
MON_HIDDEN void mon_sig_none_pending(int none);
/* Add the tick signals in use to mask (for a handler of libmon's own). */
MON_HIDDEN void mon_sig_add_hidden(sigset_t *mask);
/* Called by each of the runtime's own threads (wall.c's sampler, control.c's
 * control thread), which block every signal, whenever they wake: marks the
 * calling thread as the runtime's and lets signal let_in (1.._NSIG-1; 0:
 * none) in for real, blocking every other.  let_in is the itimer clock's
 * SIGPROF while that clock runs (mon_clock_runtime_signal): its ticks are
 * the process's, and one raised by our thread's CPU time that our thread
 * blocked went to a program's thread, ending a wait of its with EINTR.
 * One rt_sigprocmask(2) when let_in changes, none otherwise.  A signal of
 * the program's that reaches such a thread is sent on to the process
 * (dispatch).  Not async-signal-safe. */
MON_HIDDEN void mon_sig_runtime_thread(int let_in);
/* 1 in a thread that called mon_sig_runtime_thread, else 0.
 * Async-signal-safe. */
MON_HIDDEN int mon_sig_in_runtime_thread(void);

/* ---- fdguard.c: the program's view of its descriptors ------------------ */

#define MON_FD_MAX (1 << 20)	/* our descriptors are below this */
/* The lowest number for ours: the top quarter of RLIMIT_NOFILE's range, or
 * FD_SETSIZE (1024) where that is lower (fdguard.c says why). */
MON_HIDDEN int mon_fd_floor(void);
/* Move fd to a free number >= mon_fd_floor(), close-on-exec; the old
 * number is closed.  Returns the new number, or -1/errno (EMFILE: no room
 * up there; fd is closed then too). */
MON_HIDDEN int mon_fd_raise(int fd);
/* Mark fd ours / no longer ours; tests (async-signal-safe). */
MON_HIDDEN void mon_fd_adopt(int fd);
MON_HIDDEN void mon_fd_drop(int fd);
MON_HIDDEN int mon_fd_ours(int fd);
MON_HIDDEN int mon_fd_was_ours(int fd);
/* 1 if fd is the perf event whose ID is id. */
MON_HIDDEN int mon_fd_is_event(int fd, uint64_t id);
/* Who moves ours when the program wants its number (dup2/dup3 onto it):
 * move(fd) (threads.c's mon_threads_fd_move).  Published atomically. */
MON_HIDDEN void mon_fd_set_mover(void (*move)(int fd));
/* Who knows which perf event a number of ours holds: id_of(fd), the event
 * ID (>= 1) or 0 if none is known (threads.c's mon_threads_fd_id); a
 * number marked ours that no longer holds that event was taken over by
 * the program behind the C library's back and is the program's again.
 * Published atomically. */
MON_HIDDEN void mon_fd_set_identity(uint64_t (*id_of)(int fd));
/* Who can tell whether a number of ours that holds no perf event (a
 * directory, a /proc file) still holds what its owner put there:
 * still(fd) returns 1 (yes), 0 (no: the program took the number over
 * behind the C library's back, e.g. a raw close_range then open, and it
 * is the program's again) or -1 (not one of this owner's).  At most
 * MON_FD_VERIFIERS owners; returns 0, or -1/ENOSPC when full.  Not
 * async-signal-safe to add; still() is called from the program's close,
 * close_range, closefrom, dup2 and dup3 and must be async-signal-safe. */
#define MON_FD_VERIFIERS 4
MON_HIDDEN int mon_fd_add_verifier(int (*still)(int fd));
/* threads.c: the event ID a clock of ours holds at fd, 0 if none.  No
 * lock; async-signal-safe. */
MON_HIDDEN uint64_t mon_threads_fd_id(int fd);
/* The same for the wall sampler's descriptors (wall.c). */
MON_HIDDEN void mon_fd_set_wall_mover(void (*move)(int fd));
/* threads.c: the program wants number fd, one of ours: move ours.  Called
 * from the program's dup2/dup3, maybe in a signal handler: no lock. */
MON_HIDDEN void mon_threads_fd_move(int fd);

/* ---- alloc.c: libmon's own memory (never the program's malloc) -------- */

/* n bytes, zeroed, aligned to 16; NULL/ENOMEM.  Not async-signal-safe. */
MON_HIDDEN void *mon_alloc(size_t n);
/* The value of the setting name (a MONPROF_* variable), as getenv(3)
 * gives it, also after monrun's preload removed the settings from the
 * program's environment (env.c keeps their values first): NULL when
 * unset.  Not async-signal-safe (getenv). */
MON_HIDDEN const char *mon_env(const char *name);
/* Keep the values the environment gives names[0..n) now (n at most 32;
 * names: a static table), so that mon_env returns them after they are
 * removed from the environment (autostart.c).  Called once, before the
 * program's threads start. */
MON_HIDDEN void mon_env_keep(const char *const *names, size_t n);

/* Give back a block of mon_alloc/mon_realloc/mon_strdup (NULL: nothing). */
MON_HIDDEN void mon_free(void *p);
/* Grow p to n bytes (contents kept; the old block is freed); NULL/ENOMEM
 * leaves p as it was. */
MON_HIDDEN void *mon_realloc(void *p, size_t n);
/* Keep only p's first n bytes (n at most its size), in place: a block
 * with a mapping of its own gives back its pages past them, with no copy
 * (a small block stays as it is).  Never fails; p NULL: nothing. */
MON_HIDDEN void mon_shrink(void *p, size_t n);
/* A copy of s in mon_alloc memory; NULL/ENOMEM. */
MON_HIDDEN char *mon_strdup(const char *s);
/* In a fork child: the allocator's lock is free. */
MON_HIDDEN void mon_alloc_fork_child(void);

/* ---- util.c: helpers (a leaf) ------------------------------------------ */

/* -1 with errno = e: the one way the library reports an error. */
MON_HIDDEN int mon_fail(int e);

/* 1 if the 2 bytes at p can be written now (checked by the kernel, without
 * faulting and without changing them).  Async-signal-safe. */
MON_HIDDEN int mon_writable(const void *p);

/* Call fn(line, len, arg) for each line of fd (read from where it is to
 * its end through a 4096-byte buffer on the stack): line is NUL-terminated
 * in place without its newline, len its bytes; a last line without a
 * newline is passed too; a line of 4096 bytes or more is skipped whole.
 * Stops at the first nonzero return of fn and returns it; 0 at the end of
 * the file; -1 with errno when read(2) fails (EINTR is retried).
 * Async-signal-safe (read and memmove only). */
MON_HIDDEN int mon_fd_each_line(int fd, int (*fn)(char *line, size_t len, void *arg), void *arg);

/* Call fn(tid, arg) for each thread listed in a /proc/self/task directory
 * open at fd (proc(5)), read with getdents64(2) from the descriptor's
 * offset to the end into buf (len bytes, 8-byte aligned; 2 KiB holds about
 * 80 entries a call); entries whose names are not thread ids ("." and
 * "..") are skipped.  Returns 0, or -1 with errno from getdents64 (EBADF,
 * EINVAL: buf too small for an entry).  Async-signal-safe. */
/* 1 when the program's threads have all ended and only the runtime's own
 * (the wall sampler, the control thread: mon_runtime_tid, mon_control_tid)
 * and the ended main thread (a zombie leader: it called pthread_exit(3))
 * are left.  The C library ends the process with exit(0) when its last
 * thread ends (nptl's thread count, which ours are in), so such a program
 * would never end: the runtime's threads check this and end it as the C
 * library would (mon_exit_for_program).  Reads /proc/self/task and
 * /proc/self/stat (a descriptor for each read, closed at once); 0 when
 * they cannot be read. */
MON_HIDDEN int mon_only_runtime_left(void);
/* exit(0) as the C library's last thread would call it, on a new thread
 * with the default attributes and no signal blocked (the atexit handlers
 * and destructors run there, not on our small, signal-blocking stacks);
 * once: 1 when started, 0 for a second caller (another of ours is ending
 * the process). */
MON_HIDDEN int mon_exit_for_program(void);
MON_HIDDEN int mon_task_each(int fd, char *buf, size_t len, void (*fn)(pid_t tid, void *arg),
			     void *arg);

/* The runtime's lock: serialises profil(), the object histograms, the
 * clock users, thread arming and fork (held across fork by threads.c).
 * Lock order: monitor.c's lock, then this one (monitor() calls profil()
 * holding its own); never the other way. */
MON_HIDDEN void mon_lock(void);
MON_HIDDEN void mon_unlock(void);
/* The lock if it is free: 1 taken, 0 not (where waiting could deadlock:
 * holding the loader's lock, in a library's _init during dlopen). */
MON_HIDDEN int mon_trylock(void);
/* In a child process made without the C library's fork (threads.c's
 * mon_threads_adopt_process): the lock is free, whoever held it in the
 * parent. */
MON_HIDDEN void mon_lock_reset(void);

/* The C library declares some of the functions we replace with nonnull
 * arguments; the compiler would then drop our NULL checks.  This hides a
 * pointer's origin from the optimiser so that the check stays. */
#define MON_LAUNDER(p) __asm__("" : "+r"(p))

/* Thread id of the caller (gettid). */
MON_HIDDEN pid_t mon_gettid(void);

/* The decimal digits of v at p (1 to 20 of them) and a NUL after them;
 * returns the address of that NUL.  p has room for 21 bytes.
 * Async-signal-safe. */
MON_HIDDEN char *mon_put_dec(char *p, uint64_t v);

/* Zeroes bytes at p, private anonymous memory of ours, without touching
 * the pages wholly inside it: they are dropped (madvise MADV_DONTNEED, so
 * they read as zero again, backed by nothing), the partial pages at the
 * ends written.  For a fork child's resets: writing a table the parent
 * had used copied each of its pages, and writing one it had not
 * allocated each (a child of a fork-per-connection server paid hundreds
 * of page faults).  Falls back to memset if madvise fails.  A system call
 * and stores: async-signal-safe. */
MON_HIDDEN void mon_zero_pages(void *p, size_t bytes);

/* mon_owner_take — take *word, a lock word holding the owner's thread id
 * (0: free), for the calling thread, waiting 1 ms at a time for at most
 * about two seconds (2000 tries) while another thread holds it: never
 * waits for itself, so a signal handler that interrupts its own thread's
 * holder gives up at once.  Release with an __ATOMIC_RELEASE store of 0.
 * Returns 0, or -1 with errno EBUSY (held by this thread, or still held
 * after the wait).  Not for use in a handler that must not sleep. */
MON_HIDDEN int mon_owner_take(pid_t *word);

/* The runtime's own thread (wall.c's wall sampler), 0 when there is none:
 * never armed by the CPU clocks (threads.c), never listed as one of the
 * program's threads (runfacts.c).  Set by that thread itself. */
MON_HIDDEN extern pid_t mon_runtime_tid;
/* 1 while the thread mon_runtime_tid names runs (wall.c): after it ends,
 * its tid may be a program thread's (mon_only_runtime_left). */
MON_HIDDEN extern int mon_runtime_live;
/* The runtime's control thread (control.c: interval profiles, monctl's
 * socket), 0 when there is none: treated as mon_runtime_tid is. */
MON_HIDDEN extern pid_t mon_control_tid;

#endif /* MON_RUNTIME_H */
