/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clock.c — the profiling clocks and the tick handler.
 *
 * A tick is a signal delivered to the thread that used the CPU, at the PC
 * where it was interrupted.  Three clocks, tried in this order unless
 * MONPROF_CLOCK names one:
 *
 *   perf    a software perf event (PERF_COUNT_SW_CPU_CLOCK, user mode only)
 *           per thread, sampling every 1e9/rate ns of that thread's CPU
 *           time; its overflow raises our signal at that very thread
 *           (F_SETOWN_EX/F_OWNER_TID).  hrtimer based: runs at the asked
 *           rate whatever the kernel tick.  Sees user CPU time only, and
 *           the profile says so (system time not sampled).  Why not kernel
 *           time too (exclude_kernel 0, where perf_event_paranoid allows
 *           it): the overflow then fires inside system calls and its signal
 *           interrupts the blocking ones — nanosleep failed with EINTR in
 *           profil_eintr at 10 kHz, measured — while the CPU-time timers
 *           below raise theirs on the way back to user mode (the kernel
 *           runs expired CPU timers as task work on return to user mode),
 *           so they count system time and never interrupt a call.
 *           Refused where perf_event_paranoid > 2 or seccomp forbids it.
 *   thread  a POSIX CPU-time timer per thread on the thread's own CPU clock
 *           (CLOCK_THREAD_CPUTIME_ID of that tid), signalling that thread
 *           (SIGEV_THREAD_ID).  The kernel checks CPU timers at its tick
 *           (250 Hz here), so at higher rates one signal stands for several
 *           periods: its overrun count is added as weight, and the achieved
 *           samples per CPU-second still match the rate.  Sees user and
 *           system time (system time is charged to the user PC where the
 *           system call returns).
 *   itimer  setitimer(ITIMER_PROF) and SIGPROF, the classic process-wide
 *           clock.  The kernel checks it at its tick and moves it on by one
 *           interval per check, so above the tick rate it falls behind: each
 *           SIGPROF is weighted by the periods of CPU time the thread that
 *           took it used since its last charged one, and the samples per
 *           CPU-second still match the rate.  Last resort.
 *
 * The per-thread clocks raise a real-time signal of their own (default
 * SIGRTMAX-6, MONPROF_SIGNAL=N to change it), not SIGPROF: a program that
 * uses SIGPROF or ITIMER_PROF itself keeps both to itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "memread.h"
#include "mon.h"
#include "monout.h"
#include "runtime.h"

#define MON_RATE_DEFAULT 1000u
/* Above ~20 kHz the cost of delivering a signal (about 8 µs a tick in a VM
 * measured here) approaches the period itself and a busy thread livelocks;
 * faster asks are clamped to this. */
#define MON_RATE_MAX 20000u

struct mon_clock_cfg mon_clock_cfg = { 0, MON_RATE_DEFAULT, 0 };

/* The rate asked (MONPROF_RATE or the default), the CPU a tick costs as
 * measured by mon_clock_check_rate (ns, 0: not measured), whether the rate
 * was lowered. */
static unsigned rate_asked = MON_RATE_DEFAULT;
static unsigned tick_cost_ns;
static unsigned check_usec;	/* CPU the rate check took (not sampled) */
static int rate_lowered;
/* Times mon_clock_check_rate measured in this process image: 0 or 1.  A
 * fork child inherits it (and the result: the rate, the cost), a new image
 * starts from 0. */
static unsigned rate_checks;
static int clock_taken;		/* the program took the itimer clock's SIGPROF */
/* The process (pid) whose itimer clock stopped because its tick ended a
 * waiting system call with EINTR (itimer_cut); 0: none. */
static pid_t itimer_cut_pid;
static int sigq_short;		/* timers refused for the pending-signal quota (threads.c) */
static int clocks_full;		/* threads left without a clock: no slot (threads.c) */

void mon_clock_note_sigq_short(void)
{
	sigq_short = 1;
}

void mon_clock_note_clocks_full(void)
{
	clocks_full = 1;
}

/* Set while mon_clock_check_rate measures: ticks are counted, not charged. */
static int calibrating;
static uint64_t calib_ticks;
static int saved_signo;	/* the signal the installed clock owns */
/* The perf clock's signal comes through the fd's asynchronous I/O
 * (F_SETSIG); when the kernel cannot queue one more (RLIMIT_SIGPENDING,
 * reached when ticks arrive faster than they are handled) it sends SIGIO
 * instead, whose default action would kill the program.  While the perf
 * clock runs, a default SIGIO disposition is taken over too (sigguard.c:
 * the program's view stays its own) and the kernel's SIGIO counts as the
 * tick that could not be queued. */
static int sigio_guarded;
static struct itimerval saved_itimer;	/* the program's ITIMER_PROF */

/* The itimer clock's weighting.  Each thread charges the periods of its
 * own CPU time (CLOCK_THREAD_CPUTIME_ID) since the last period it charged,
 * so a thread's ticks stand for its own CPU time whichever CPU's kernel
 * tick noticed the timer.  itimer_gen changes at each start of the clock
 * (and in a fork child), telling a thread that its record is stale. */
static uint64_t itimer_period_ns;
static unsigned itimer_gen;
static __thread struct {
	unsigned gen;
	uint64_t charged_ns;	/* thread CPU time charged up to */
} itimer_thread __attribute__((tls_model("initial-exec")));

/* The calling thread's CPU time in ns, 0 if unreadable.  On the itimer
 * tick's path, so its own system call: clock_gettime(3) went through
 * AddressSanitizer's interceptor, 1.2 KB more on the interrupted thread's
 * stack, which overflowed a 16 KiB thread stack interrupted inside the
 * same interceptor (stack_use.sh's stack_small_threads_itimer under ASan);
 * the vDSO serves no CPU-time clock, so the C library makes this same
 * system call.  Not instrumented either (ts is read by the kernel). */
__attribute__((no_sanitize("address"))) static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	if (mon_arch_syscall2(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, (long)&ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Not instrumented by ThreadSanitizer: threads.c may call this in a new
 * thread before the sanitizer has set that thread up (see thread_start_behind
 * there); it touches only this thread's own TLS and an atomic. */
__attribute__((no_sanitize("thread"))) void mon_itimer_thread_started(void)
{
	/* A new thread's CPU clock starts at 0, all of it after the clock. */
	itimer_thread.gen = __atomic_load_n(&itimer_gen, __ATOMIC_RELAXED);
	itimer_thread.charged_ns = 0;
}

/* Weight of a SIGPROF of the itimer clock in the thread that took it: the
 * whole periods of its CPU time not yet charged, possibly 0 (then the tick
 * is not counted: the thread's CPU time so far is charged already).  The
 * first tick of a thread that was running when the clock started, other
 * than the one that started it, counts 1.  Async-signal-safe. */
static uint64_t itimer_weight(void)
{
	uint64_t period = __atomic_load_n(&itimer_period_ns, __ATOMIC_RELAXED);
	unsigned gen = __atomic_load_n(&itimer_gen, __ATOMIC_RELAXED);
	uint64_t now = thread_cpu_ns();
	if (period == 0 || now == 0)
		return 1;
	if (itimer_thread.gen != gen || now < itimer_thread.charged_ns) {
		itimer_thread.gen = gen;
		itimer_thread.charged_ns = now;
		return 1;
	}
	uint64_t w = (now - itimer_thread.charged_ns) / period;
	itimer_thread.charged_ns += w * period;
	return w;
}

int mon_clock_active;
int mon_clock_last;

/* Where ticks go (mon_clock_deliver_to). */
static void (*deliver)(const void *context, uintptr_t pc, uint64_t weight);

void mon_clock_deliver_to(void (*tick)(const void *context, uintptr_t pc, uint64_t weight))
{
	__atomic_store_n(&deliver, tick, __ATOMIC_RELEASE);
}

/* The process's CPU time in ns, 0 if unreadable; from a handler, as
 * thread_cpu_ns. */
__attribute__((no_sanitize("address"))) static uint64_t process_cpu_ns(void)
{
	struct timespec ts;
	if (mon_arch_syscall2(SYS_clock_gettime, CLOCK_PROCESS_CPUTIME_ID, (long)&ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t unsampled_from_ns;
static int unsampled_open;

/* 1 if the calling thread is the process's only one but the runtime's own
 * (wall.c's sampler, control.c's thread, which take their ticks for real
 * and raise none that another thread gets).  The threads of
 * /proc/self/task, whose link count is 2 plus the threads
 * (fs/proc/base.c proc_task_getattr): one stat, no descriptor, every
 * thread counted (the C library's own, raw clones, those ending).  0 when
 * unknown.  Async-signal-safe; out of line, for the rare call only (its
 * struct stat would widen itimer_cut's frame on every tick). */
__attribute__((noinline)) static int alone_in_process(void)
{
	struct stat st;
	if (syscall(SYS_newfstatat, AT_FDCWD, "/proc/self/task", &st, 0) != 0 || st.st_nlink < 3)
		return 0;
	unsigned long ours = (__atomic_load_n(&mon_runtime_live, __ATOMIC_ACQUIRE) &&
			      __atomic_load_n(&mon_runtime_tid, __ATOMIC_ACQUIRE) > 0) +
			     (__atomic_load_n(&mon_control_tid, __ATOMIC_ACQUIRE) > 0);
	return (unsigned long)st.st_nlink - 2 <= 1 + ours;
}

/* The EINTR the calling thread's last tick found and took for the
 * thread's own (itimer_cut): where (PC, stack pointer) and the thread's
 * voluntary context switches when that tick's handler was done (take_tick).
 * A second tick at the same place with no switch since is in the same
 * call's return: the itimer's expiry lags
 * after a handler held its ticks (it moves one interval a kernel tick),
 * and a tick noticed while on_tick ran for the first was given at that
 * handler's return, into the same EINTR, with less than a period of CPU
 * uncharged (the clock stopped in 2-4 runs of 40 of itimer_own_eintr.c). */
static __thread struct {
	uintptr_t pc, sp;
	long switches;
	int read_again;	/* take_tick reads switches again when its tick is done */
} own_eintr __attribute__((tls_model("initial-exec")));

/* The calling thread's voluntary context switches (getrusage(2)
 * RUSAGE_THREAD's ru_nvcsw, by the system call itself), -1 if unknown.
 * Out of line: its struct rusage stays off itimer_cut's frame.
 * Async-signal-safe. */
__attribute__((noinline)) static long own_switches(void)
{
	struct rusage ru;
	if (syscall(SYS_getrusage, RUSAGE_THREAD, &ru) != 0)
		return -1;
	return ru.ru_nvcsw;
}

/* The itimer clock's SIGPROF is the process's (setitimer(2): ITIMER_PROF
 * counts the CPU time of all its threads).  The kernel gives it to the
 * thread whose CPU time expired the timer, unless that thread blocks it:
 * then to any thread that does not (kernel/signal.c complete_signal), a
 * thread waiting in nanosleep, poll or epoll_wait among them, whose call
 * the handler then ends with EINTR.  Only threads that block every signal
 * for real make it happen: libmon's blocks are virtual (sigguard.c), but
 * the threads the C library starts itself (SIGEV_THREAD timers and
 * mq_notify callbacks, POSIX AIO) and raw clones are not its.  No handler
 * can undo the EINTR, so at the first such tick the clock stops for the
 * rest of the process's life: the program's own ITIMER_PROF back, the CPU
 * time from here counted as lost (mon_clock_unsampled), the file's facts
 * flagged (MONOUT_FACT_CLOCK_CUT) so that prof names the cause and the
 * per-thread clocks.  Returns 1 if this tick ended such a call.
 * Async-signal-safe.  Not inlined, nor instrumented by AddressSanitizer: its
 * reader would widen on_tick's frame on every clock's path (stack_use.sh
 * stack_use_altstack_*: 1432 bytes under ASan, bound 1024). */
__attribute__((noinline, no_sanitize("address"))) static int itimer_cut(const void *ucv)
{
	if (mon_arch_context_result(ucv) != -EINTR)
		return 0;
	/* Raised by this thread's own CPU (a period or more of it not yet
	 * charged): a tick held back by a mask of this thread's — a handler of
	 * the program's whose sa_mask blocks SIGPROF, or one installed with
	 * SA_ONSTACK, in which libmon blocks the ticks (sigguard.c) — reaches
	 * it at that handler's sigreturn, in the call the handler ended, as
	 * the program meant it to end: not a stolen tick.  Only where no other
	 * thread of the program's could have raised it (alone_in_process):
	 * with others, the CPU not yet charged may be a sleeper's whole life's
	 * (48 ms of 150 wake-ups under ASan, itimer_sleepers.c), and the tick
	 * one that an ending thread raised (the C library blocks every signal
	 * in a thread's last steps) or a thread of the C library's own.  (A
	 * thread whose record is stale, gen, is judged by the context alone.) */
	uint64_t period = __atomic_load_n(&itimer_period_ns, __ATOMIC_RELAXED);
	uint64_t now = thread_cpu_ns();
	uintptr_t at_pc = mon_arch_context_pc(ucv), at_sp = mon_arch_context_sp(ucv);
	if (own_eintr.pc == at_pc && own_eintr.sp == at_sp && own_eintr.switches >= 0 &&
	    own_switches() == own_eintr.switches) {
		own_eintr.read_again = 1;
		return 0;	/* the same call's EINTR, taken for its own already */
	}
	if (itimer_thread.gen == __atomic_load_n(&itimer_gen, __ATOMIC_RELAXED) &&
	    now >= itimer_thread.charged_ns && now - itimer_thread.charged_ns >= period &&
	    alone_in_process()) {
		own_eintr.pc = at_pc;
		own_eintr.sp = at_sp;
		own_eintr.read_again = 1;
		return 0;
	}
	struct mon_memreader r;
	mon_memread_other(&r);
	uintptr_t pc = mon_arch_context_pc(ucv), before;
	if (pc < 8 || !mon_memread_word(&r, pc - 8, &before) || !mon_arch_after_syscall(before))
		return 0;
	pid_t self = (pid_t)mon_arch_syscall2(SYS_getpid, 0, 0);
	pid_t none = 0;
	if (__atomic_compare_exchange_n(&itimer_cut_pid, &none, self, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_RELAXED)) {
		/* The program's ITIMER_PROF back, as mon_itimer_stop, by the
		 * system call itself (a sanitizer's setitimer interceptor is no
		 * handler's business). */
		syscall(SYS_setitimer, ITIMER_PROF, &saved_itimer, NULL);
		__atomic_store_n(&unsampled_from_ns, process_cpu_ns(), __ATOMIC_RELAXED);
		__atomic_store_n(&unsampled_open, 1, __ATOMIC_RELEASE);
	}
	return 1;
}

int mon_clock_runtime_signal(void)
{
	return __atomic_load_n(&mon_clock_active, __ATOMIC_RELAXED) == MON_CLOCK_ITIMER &&
			       !mon_itimer_was_cut()
		       ? SIGPROF
		       : 0;
}

int mon_itimer_was_cut(void)
{
	pid_t cut = __atomic_load_n(&itimer_cut_pid, __ATOMIC_ACQUIRE);
	return cut != 0 && cut == getpid();
}

/* The runtime's own work in a thread of the program's (mon_clock_own_work):
 * its ticks are not samples. */
static __thread int own_work __attribute__((tls_model("initial-exec")));

void mon_clock_own_work(int on)
{
	if (!on) {
		/* The itimer clock: the CPU of the ticks left out is charged
		 * to none (the next tick's weight starts from now). */
		itimer_thread.gen = __atomic_load_n(&itimer_gen, __ATOMIC_RELAXED);
		itimer_thread.charged_ns = thread_cpu_ns();
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	own_work = on;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static uint64_t own_usec;	/* mon_clock_own_end's count */

void mon_clock_own_begin(struct mon_own_work *o)
{
	/* The flag before the CPU is read, and after it is read at the end:
	 * the reads' own ticks are left out too. */
	o->outer = !__atomic_load_n(&own_work, __ATOMIC_RELAXED);
	if (o->outer) {
		mon_clock_own_work(1);
		o->cpu0_ns = thread_cpu_ns();
	}
}

void mon_clock_own_end(struct mon_own_work *o)
{
	if (!o->outer)
		return;
	uint64_t now = thread_cpu_ns();
	mon_clock_own_work(0);
	if (now > o->cpu0_ns)
		__atomic_add_fetch(&own_usec, (now - o->cpu0_ns) / 1000u, __ATOMIC_RELAXED);
}

uint64_t mon_clock_own_usec(void)
{
	return __atomic_load_n(&own_usec, __ATOMIC_RELAXED);
}

int mon_clock_own_wait_begin(void)
{
	int outer = !__atomic_load_n(&own_work, __ATOMIC_RELAXED);
	if (outer)
		mon_clock_own_work(1);
	return outer;
}

void mon_clock_own_wait_end(int outer)
{
	if (outer)
		mon_clock_own_work(0);
}

void mon_clock_own_nap(long ns)
{
	int outer = mon_clock_own_wait_begin();
	struct timespec ts = { 0, ns };
	nanosleep(&ts, NULL);
	mon_clock_own_wait_end(outer);
}

/* This thread runs on_tick: a tick arriving now is nested in it (the itimer
 * clock's SIGPROF nests, MON_SIG_NESTS). */
static __thread int in_tick __attribute__((tls_model("initial-exec")));
/* Ticks that came nested, since the process started (mon_clock_nested_ticks). */
static unsigned long nested_ticks;


unsigned long mon_clock_nested_ticks(void)
{
	return __atomic_load_n(&nested_ticks, __ATOMIC_RELAXED);
}

/* The tick's weight and PC, handed on with the signal context.  Keeps
 * errno. */
static inline __attribute__((always_inline)) void take_tick(int sig, siginfo_t *si, void *ucv)
{
	int saved_errno = errno;
	uint64_t weight = 1;
	if (mon_sig_in_runtime_thread()) {
		/* The itimer clock's tick raised by the runtime's own CPU time
		 * (wall.c, control.c): the profiler's cost, not the program's. */
		errno = saved_errno;
		return;
	}
	if (__atomic_load_n(&calibrating, __ATOMIC_RELAXED)) {
		__atomic_add_fetch(&calib_ticks, 1, __ATOMIC_RELAXED);
		errno = saved_errno;
		return;
	}
	if (own_work) {
		/* A tick of the runtime's own start in the program's thread:
		 * the profiler's cost, not the program's (after the rate
		 * check's count above, which runs in that start: left out
		 * first, its ticks were none, "tick cost 0", coverage_rate). */
		errno = saved_errno;
		return;
	}
	if (sig == SIGPROF && si != NULL && si->si_code == SI_KERNEL) {
		if (itimer_cut(ucv)) {	/* not this thread's CPU: no sample */
			errno = saved_errno;
			return;
		}
		weight = itimer_weight();	/* ITIMER_PROF's own tick */
	}
	else if (si != NULL && si->si_code == SI_TIMER && si->si_overrun > 0)
		weight += (unsigned)si->si_overrun;
	void (*tick)(const void *, uintptr_t, uint64_t) = __atomic_load_n(&deliver, __ATOMIC_ACQUIRE);
	if (weight > 0 && tick != NULL)
		tick(ucv, mon_arch_context_pc(ucv), weight);
	if (own_eintr.read_again) {
		/* A tick in an EINTR taken for the thread's own: the switches
		 * counted from here, after this handler's own work (a walk's
		 * reads may sleep), so that the next tick into the same EINTR
		 * is known for the same call's. */
		own_eintr.switches = own_switches();
		own_eintr.read_again = 0;
	}
	errno = saved_errno;
}

/* The tick handler.  Async-signal-safe; keeps errno.
 *
 * The itimer clock's SIGPROF is not blocked while its handler runs
 * (SA_NODEFER): ITIMER_PROF expiring in a thread that blocks it is given to
 * another thread (kernel/signal.c complete_signal), a sleeping one as
 * readily as any, whose nanosleep, poll or epoll_wait then fails with EINTR
 * (itimer_cut).  A handler that runs past the next expiry (its first walk in
 * a thread, a page fault, the address-space lock: 155 us to 5.5 ms were seen
 * in tests/progs/itimer_sleepers.c) did that to 1 run in 7 of that program.
 * Unblocked, the tick is this thread's own, nested here, and returns at
 * once: no sample, and nothing lost, since itimer_weight charges the
 * thread's CPU since the last sample to the next one. */
static void on_tick(int sig, siginfo_t *si, void *ucv)
{
	if (in_tick) {
		__atomic_add_fetch(&nested_ticks, 1, __ATOMIC_RELAXED);
		return;
	}
	in_tick = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	take_tick(sig, si, ucv);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	in_tick = 0;
}

static unsigned parse_uint(const char *s, unsigned lo, unsigned hi, unsigned dflt)
{
	if (s == NULL || *s == '\0')
		return dflt;
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || *end != '\0' || v < lo || v > hi)
		return dflt;
	return (unsigned)v;
}

/* What mon_setclock() asked for the next start (0: nothing asked). */
static int next_asked;
static int next_kind;
static unsigned next_rate;

void mon_clock_set_next(int kind, unsigned rate_hz)
{
	next_kind = kind;
	next_rate = rate_hz;
	next_asked = 1;
}

/* mon_setclock()'s choice replaces the environment's, once no clock runs:
 * a rate changed while ticking would give the threads armed later another
 * period than the rest.  The new rate is checked anew at its start
 * (mon_clock_check_rate). */
static void apply_next(void)
{
	if (!next_asked || __atomic_load_n(&mon_clock_active, __ATOMIC_RELAXED) != MON_CLOCK_NONE)
		return;
	next_asked = 0;
	rate_asked = next_rate;
	rate_lowered = next_rate > MON_RATE_MAX;
	mon_clock_cfg.rate_hz = rate_lowered ? MON_RATE_MAX : next_rate;
	mon_clock_cfg.kind = next_kind;
	rate_checks = 0;
}

void mon_clock_configure(void)
{
	static int done;
	if (done) {
		apply_next();
		return;
	}
	done = 1;
	int saved_errno = errno;
	mon_clock_cfg.rate_hz = parse_uint(mon_env("MONPROF_RATE"), 1, ~0u, MON_RATE_DEFAULT);
	rate_asked = mon_clock_cfg.rate_hz;
	if (mon_clock_cfg.rate_hz > MON_RATE_MAX) {
		mon_clock_cfg.rate_hz = MON_RATE_MAX;
		rate_lowered = 1;
	}
	const char *c = mon_env("MONPROF_CLOCK");
	mon_clock_cfg.kind = 0;
	if (c != NULL) {
		if (strcmp(c, "perf") == 0)
			mon_clock_cfg.kind = MON_CLOCK_PERF;
		else if (strcmp(c, "thread") == 0)
			mon_clock_cfg.kind = MON_CLOCK_THREAD;
		else if (strcmp(c, "itimer") == 0)
			mon_clock_cfg.kind = MON_CLOCK_ITIMER;
	}
	int dflt = SIGRTMAX - 6;
	mon_clock_cfg.signo = (int)parse_uint(mon_env("MONPROF_SIGNAL"), (unsigned)SIGRTMIN,
					      (unsigned)SIGRTMAX, (unsigned)dflt);
	apply_next();
	errno = saved_errno;
}

static int signal_for(int kind)
{
	return kind == MON_CLOCK_ITIMER ? SIGPROF : mon_clock_cfg.signo;
}

/* The value a CPU-time timer of ours puts in si_value: a signal carrying it
 * is a tick (sigguard.c tells ticks from the program's own signals). */
static char timer_cookie;

/* Is this instance of the per-thread clocks' signal a tick of ours?  A
 * timer's carries our cookie; a perf event's comes through F_SETSIG with a
 * poll code and the descriptor it was set up on, one of ours.
 * Async-signal-safe. */
static int tick_is_ours(int sig, const siginfo_t *si)
{
	(void)sig;
	if (si->si_code == SI_TIMER)
		return si->si_value.sival_ptr == &timer_cookie;
	if (si->si_code >= POLL_IN && si->si_code <= POLL_HUP)
		return mon_fd_was_ours(si->si_fd);
	return 0;
}

/* SIGPROF from ITIMER_PROF, SIGIO from a full signal queue: the kernel's. */
static int kernel_is_ours(int sig, const siginfo_t *si)
{
	(void)sig;
	return si->si_code == SI_KERNEL;
}

/* The itimer clock's unsampled CPU time (mon_clock_unsampled); its open
 * stretch (unsampled_from_ns, unsampled_open) is declared above. */
static uint64_t unsampled_ticks;


static uint64_t unsampled_open_ticks(void)
{
	uint64_t period = 1000000000u / __atomic_load_n(&mon_clock_cfg.rate_hz, __ATOMIC_RELAXED);
	uint64_t now = process_cpu_ns(), from = __atomic_load_n(&unsampled_from_ns, __ATOMIC_RELAXED);
	return period && now > from ? (now - from) / period : 0;
}

uint64_t mon_clock_unsampled(void)
{
	uint64_t n = __atomic_load_n(&unsampled_ticks, __ATOMIC_RELAXED);
	if (__atomic_load_n(&unsampled_open, __ATOMIC_ACQUIRE))
		n += unsampled_open_ticks();
	return n;
}

void mon_clock_unsampled_end(void)
{
	if (!unsampled_open)
		return;
	__atomic_add_fetch(&unsampled_ticks, unsampled_open_ticks(), __ATOMIC_RELAXED);
	__atomic_store_n(&unsampled_open, 0, __ATOMIC_RELEASE);
}

void mon_clock_unsampled_reset(void)
{
	sigq_short = 0;		/* a fork child: its own clocks' facts */
	clocks_full = 0;
	check_usec = 0;		/* a fork child: the parent's rate check is not its CPU */
	__atomic_store_n(&own_usec, 0, __ATOMIC_RELAXED);	/* nor its dlopen's */
	__atomic_store_n(&unsampled_ticks, 0, __ATOMIC_RELAXED);
	pid_t cut = __atomic_load_n(&itimer_cut_pid, __ATOMIC_ACQUIRE);
	if (cut != 0 && cut != getpid()) {
		/* A fork child of a process whose itimer clock stopped
		 * (itimer_cut): the child's clock is its own, restarted by
		 * threads.c with the C library's threads left behind. */
		__atomic_store_n(&itimer_cut_pid, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&unsampled_open, 0, __ATOMIC_RELEASE);
	}
	if (unsampled_open)
		__atomic_store_n(&unsampled_from_ns, process_cpu_ns(), __ATOMIC_RELAXED);
}

/* The program installs its own SIGPROF handler while the itimer clock
 * runs: ITIMER_PROF and SIGPROF are one per process and its ticks cannot
 * be told from ours, so the clock stops (the program's timer back), the
 * profile so far stays, and the CPU time from now on is counted as lost. */
static void itimer_yield(int sig)
{
	(void)sig;
	mon_lock();
	if (mon_clock_active == MON_CLOCK_ITIMER) {
		mon_itimer_stop();
		mon_clock_uninstall(MON_CLOCK_ITIMER);
		__atomic_store_n(&mon_clock_active, MON_CLOCK_NONE, __ATOMIC_RELAXED);
		if (!__atomic_load_n(&unsampled_open, __ATOMIC_ACQUIRE)) {	/* else cut before */
			__atomic_store_n(&unsampled_from_ns, process_cpu_ns(), __ATOMIC_RELAXED);
			__atomic_store_n(&unsampled_open, 1, __ATOMIC_RELEASE);
		}
		clock_taken = 1;
	}
	mon_unlock();
}

/* The program installs its own SIGIO handler while the perf clock guards
 * SIGIO: it gets SIGIO (a tick that could not be queued then reaches it,
 * as it would without the guard). */
static void sigio_yield(int sig)
{
	sigio_guarded = 0;
	mon_sig_disown(sig);
}

int mon_clock_install(int kind)
{
	int signo = signal_for(kind);
	if (kind == MON_CLOCK_ITIMER ? mon_sig_own(signo, MON_SIG_TICK | MON_SIG_NESTS, kernel_is_ours, on_tick,
						   itimer_yield)
				     : mon_sig_own(signo, MON_SIG_TICK, tick_is_ours, on_tick, NULL))
		return -1;
	saved_signo = signo;
	struct sigaction cur;
	if (kind == MON_CLOCK_PERF && !sigio_guarded && mon_real_sigaction(SIGIO, NULL, &cur) == 0 &&
	    !(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_DFL &&
	    mon_sig_own(SIGIO, 0, kernel_is_ours, on_tick, sigio_yield) == 0)
		sigio_guarded = 1;
	return 0;
}

void mon_clock_uninstall(int kind)
{
	int signo = signal_for(kind);
	int guard = 0;
	if (kind == MON_CLOCK_PERF && sigio_guarded) {
		sigio_guarded = 0;
		guard = SIGIO;
	}
	/* The guard first, as before; both under one lock of sigguard's. */
	mon_sig_disown_pair(guard, signo == saved_signo ? signo : 0);
}

static int arm_perf(pid_t tid, struct mon_thread_clock *tc)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000000000ull / mon_clock_cfg.rate_hz;
	a.disabled = 1;
	a.exclude_kernel = 1;	/* see the top of this file */
	a.exclude_hv = 1;
	a.wakeup_events = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -1;
	/* Out of the program's range (fdguard.c); no room up there: the
	 * caller falls back to the timer clock, which needs no descriptor. */
	fd = mon_fd_raise(fd);
	if (fd < 0)
		return -1;
	/* The event's metadata page (perf_event_open(2), "MMAP layout"; no
	 * ring buffer) mapped: the mapping holds the event's file, so a
	 * program that closes every descriptor with the raw system call, which
	 * no wrapper of ours sees, does not end the event, and its ticks keep
	 * coming (with si_fd the number it had).  The kernel does not copy the
	 * mapping into a fork child (VM_DONTCOPY).  Counted in the user's
	 * perf_event_mlock_kb; refused (beyond it, RLIMIT_MEMLOCK): the caller
	 * falls back to the timer clock, which has no descriptor to lose. */
	long pagesize = sysconf(_SC_PAGESIZE);
	void *page = mmap(NULL, (size_t)pagesize, PROT_READ, MAP_SHARED, fd, 0);
	if (page == MAP_FAILED) {
		int e = errno;
		syscall(SYS_close, fd);
		errno = e;
		return -1;
	}
	uint64_t id = 0;
	mon_fd_adopt(fd);	/* before F_SETFL O_ASYNC: si_fd is ours from the first tick */
	struct f_owner_ex owner = { F_OWNER_TID, tid };
	if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0 || fcntl(fd, F_SETSIG, mon_clock_cfg.signo) < 0 ||
	    fcntl(fd, F_SETOWN_EX, &owner) < 0 || fcntl(fd, F_SETFL, O_ASYNC) < 0 ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
		int e = errno;
		mon_fd_drop(fd);
		syscall(SYS_close, fd);
		munmap(page, (size_t)pagesize);
		errno = e;
		return -1;
	}
	tc->kind = MON_CLOCK_PERF;
	tc->timerid = -1;
	tc->id = id;
	tc->page = page;
	__atomic_store_n(&tc->fd, fd, __ATOMIC_RELEASE);	/* with its id (mon_threads_fd_id) */
	return 0;
}

static int arm_thread_timer(pid_t tid, struct mon_thread_clock *tc)
{
	/* The CPU clock of thread tid: the kernel's encoding behind
	 * pthread_getcpuclockid (per-thread, scheduler time). */
	clockid_t clk = (clockid_t)((~(unsigned)tid) << 3) | 6;
	struct sigevent se;
	memset(&se, 0, sizeof se);
	se.sigev_notify = SIGEV_THREAD_ID;
	se.sigev_signo = mon_clock_cfg.signo;
	se.sigev_value.sival_ptr = &timer_cookie;
	se._sigev_un._tid = tid;
	int id;
	if (syscall(SYS_timer_create, clk, &se, &id) < 0)
		return -1;
	long ns = 1000000000L / (long)mon_clock_cfg.rate_hz;
	struct itimerspec its = { { ns / 1000000000L, ns % 1000000000L },
				  { ns / 1000000000L, ns % 1000000000L } };
	if (syscall(SYS_timer_settime, id, 0, &its, NULL) < 0) {
		int e = errno;
		syscall(SYS_timer_delete, id);
		errno = e;
		return -1;
	}
	tc->kind = MON_CLOCK_THREAD;
	tc->fd = -1;
	tc->timerid = id;
	tc->page = NULL;
	return 0;
}

int mon_clock_arm_thread(int kind, pid_t tid, struct mon_thread_clock *tc)
{
	switch (kind) {
	case MON_CLOCK_PERF:
		return arm_perf(tid, tc);
	case MON_CLOCK_THREAD:
		return arm_thread_timer(tid, tc);
	}
	return mon_fail(EINVAL);
}

void mon_clock_disarm_thread(struct mon_thread_clock *tc)
{
	int saved_errno = errno;
	int fd = __atomic_load_n(&tc->fd, __ATOMIC_ACQUIRE);
	if (fd >= 0) {
		/* Only if the number still holds our event (the program may have
		 * taken it over behind our back). */
		mon_fd_drop(fd);
		if (mon_fd_is_event(fd, tc->id)) {
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
			syscall(SYS_close, fd);
		}
	}
	/* The last reference to the event when the program closed fd: the
	 * event ends here (its ticks still pending are discarded when the
	 * signal is given back, sigguard.c). */
	if (tc->page != NULL)
		munmap(tc->page, (size_t)sysconf(_SC_PAGESIZE));
	if (tc->timerid >= 0)
		syscall(SYS_timer_delete, tc->timerid);
	tc->fd = -1;
	tc->timerid = -1;
	tc->page = NULL;
	tc->kind = MON_CLOCK_NONE;
	errno = saved_errno;
}

void mon_clock_forget_inherited(struct mon_thread_clock *tc)
{
	/* A fork child holds copies of the parent's perf fds (closing them
	 * leaves the parent's events alone); POSIX timers are not inherited,
	 * nor the events' pages (VM_DONTCOPY: whatever the child has mapped
	 * at that address since is its own, never unmapped here). */
	int saved_errno = errno;
	if (tc->fd >= 0) {
		mon_fd_drop(tc->fd);
		if (mon_fd_is_event(tc->fd, tc->id))
			syscall(SYS_close, tc->fd);
	}
	tc->fd = -1;
	tc->timerid = -1;
	tc->page = NULL;
	tc->kind = MON_CLOCK_NONE;
	errno = saved_errno;
}

int mon_itimer_start(void)
{
	long us = 1000000L / (long)mon_clock_cfg.rate_hz;
	if (us < 1)
		us = 1;
	struct itimerval it = { { us / 1000000L, us % 1000000L }, { us / 1000000L, us % 1000000L } };
	__atomic_store_n(&itimer_period_ns, (uint64_t)us * 1000u, __ATOMIC_RELAXED);
	itimer_thread.charged_ns = thread_cpu_ns();
	itimer_thread.gen = __atomic_add_fetch(&itimer_gen, 1, __ATOMIC_RELAXED);
	return setitimer(ITIMER_PROF, &it, &saved_itimer);
}

void mon_itimer_stop(void)
{
	int saved_errno = errno;
	setitimer(ITIMER_PROF, &saved_itimer, NULL);
	errno = saved_errno;
}

/* ---- the rate a tick's cost allows -------------------------------------- */

static volatile unsigned long tick_cost_sink;

static void tick_cost_spin(unsigned long n)
{
	/* A chain of dependent multiply-adds in a register: its speed is the
	 * multiplier's latency.  A volatile counter's store and reload ran
	 * at a speed of its own moment (on an AMD EPYC guest, 1.95 ms rounds
	 * without ticks and 1.55 ms with 15 of them: with < base, cost 0 in
	 * 1 run of 2, test_rate_check's cost_measured red). */
	uint64_t x = tick_cost_sink | 1;
	for (unsigned long i = 0; i < n; i++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		__asm__ volatile("" : "+r"(x));
	}
	tick_cost_sink = x;
}

/* Iterations of tick_cost_spin() that take about ns of this thread's CPU. */
static unsigned long tick_cost_spin_for(uint64_t ns)
{
	unsigned long n = 1000;
	for (;;) {
		uint64_t t0 = thread_cpu_ns();
		tick_cost_spin(n);
		uint64_t dt = thread_cpu_ns() - t0;
		if (dt >= ns / 4 || n > (1ul << 40))
			return dt ? (unsigned long)((unsigned __int128)n * ns / dt) : n;
		n *= 4;
	}
}

/* Highest share of a thread's CPU the ticks may take: the kernel's default
 * perf_cpu_time_max_percent (25), past which it lowers
 * perf_event_max_sample_rate (Documentation/admin-guide/sysctl/kernel.rst). */
#define MON_TICK_CPU_MAX 0.25

uint64_t mon_tick_cost_estimate(const uint64_t *base, const uint64_t *with,
				const uint64_t *ticks, unsigned n)
{
	uint64_t least_base = UINT64_MAX, cost = 0;
	for (unsigned i = 0; i < n; i++)
		if (base[i] < least_base)
			least_base = base[i];
	for (unsigned i = 0; i < n; i++) {
		if (ticks[i] == 0 || with[i] <= least_base)
			continue;
		uint64_t c = (with[i] - least_base) / ticks[i];
		if (c > 0 && (cost == 0 || c < cost))
			cost = c;
	}
	return cost;
}

/* Rounds of the tick-cost measurement: at least MON_COST_ROUNDS pairs, more
 * (up to MON_COST_ROUNDS_MAX) while no round has shown a cost; each window
 * MON_COST_WINDOW_NS of CPU, so 5 pairs take about 20 ms. */
#define MON_COST_ROUNDS 5
#define MON_COST_ROUNDS_MAX 16
#define MON_COST_WINDOW_NS 2000000u

void mon_clock_check_rate(struct mon_thread_clock *tc)
{
	/* Only the perf clock ticks at the asked rate whatever the kernel's
	 * tick; the CPU-time timers raise at most one signal per kernel tick
	 * (their overruns are weight), so their cost stays small.  At 1000 Hz
	 * and below a tick is not dear enough to measure (0.1 s of CPU per
	 * CPU-second even at 100 us a tick).  Costs about 20 ms of CPU, once
	 * per process image (a program that turns profiling off and on pays
	 * it at the first start only; the lowered rate stays in
	 * mon_clock_cfg), not sampled (recorded in the profile: FACTS).
	 *
	 * The same work is timed in turn with the clock off and on, in short
	 * rounds: a single pair of long windows read 0 when the machine slowed
	 * the window without ticks by more than the ticks cost (CI, a shared
	 * 2-core guest: "tick cost 0 ns" at 20 kHz, 7 us ticks), and
	 * mon_tick_cost_estimate keeps each side's least-disturbed round. */
	if (tc->kind != MON_CLOCK_PERF || tc->fd < 0 || mon_clock_cfg.rate_hz <= 1000 ||
	    rate_checks > 0)
		return;
	rate_checks++;
	int saved_errno = errno;
	uint64_t began = thread_cpu_ns();
	ioctl(tc->fd, PERF_EVENT_IOC_DISABLE, 0);
	unsigned long n = tick_cost_spin_for(MON_COST_WINDOW_NS);
	uint64_t base[MON_COST_ROUNDS_MAX], with[MON_COST_ROUNDS_MAX], ticks[MON_COST_ROUNDS_MAX];
	uint64_t cost = 0;
	for (unsigned r = 0; r < MON_COST_ROUNDS_MAX; r++) {
		uint64_t t0 = thread_cpu_ns();
		tick_cost_spin(n);
		base[r] = thread_cpu_ns() - t0;
		__atomic_store_n(&calib_ticks, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&calibrating, 1, __ATOMIC_SEQ_CST);
		ioctl(tc->fd, PERF_EVENT_IOC_ENABLE, 0);
		t0 = thread_cpu_ns();
		tick_cost_spin(n);
		with[r] = thread_cpu_ns() - t0;
		ioctl(tc->fd, PERF_EVENT_IOC_DISABLE, 0);
		__atomic_store_n(&calibrating, 0, __ATOMIC_SEQ_CST);
		ticks[r] = __atomic_load_n(&calib_ticks, __ATOMIC_RELAXED);
		if (r + 1 >= MON_COST_ROUNDS &&
		    (cost = mon_tick_cost_estimate(base, with, ticks, r + 1)) > 0)
			break;
	}
	if (cost > 0) {
		tick_cost_ns = cost > UINT32_MAX ? UINT32_MAX : (unsigned)cost;
		if ((double)mon_clock_cfg.rate_hz * (double)cost * 1e-9 > MON_TICK_CPU_MAX) {
			unsigned r = (unsigned)(MON_TICK_CPU_MAX * 1e9 / (double)cost);
			if (r < 1000)
				r = 1000;	/* never below the default */
			if (r < mon_clock_cfg.rate_hz) {
				mon_clock_cfg.rate_hz = r;
				rate_lowered = 1;
				uint64_t period = 1000000000ull / r;
				ioctl(tc->fd, PERF_EVENT_IOC_PERIOD, &period);
			}
		}
	}
	check_usec += (unsigned)((thread_cpu_ns() - began) / 1000u);
	ioctl(tc->fd, PERF_EVENT_IOC_ENABLE, 0);
	errno = saved_errno;
}

unsigned mon_clock_rate_checks(void)
{
	return rate_checks;
}

void mon_clock_facts(uint32_t *asked, uint32_t *set, uint32_t *cost_ns, uint32_t *flags,
		     uint32_t *check_us)
{
	*check_us = check_usec;
	int kind = mon_clock_active != MON_CLOCK_NONE ? mon_clock_active : mon_clock_last;
	*asked = rate_asked;
	*set = mon_clock_cfg.rate_hz;
	*cost_ns = tick_cost_ns;
	*flags = 0;
	if (rate_lowered)
		*flags |= MONOUT_FACT_RATE_LOWERED;
	if (clock_taken)
		*flags |= MONOUT_FACT_CLOCK_TAKEN;
	if (mon_itimer_was_cut())
		*flags |= MONOUT_FACT_CLOCK_CUT;
	if (sigq_short)
		*flags |= MONOUT_FACT_SIGQ_SHORT;
	if (clocks_full)
		*flags |= MONOUT_FACT_CLOCKS_FULL;
	if (kind == MON_CLOCK_PERF)
		*flags |= MONOUT_FACT_USER_ONLY;
	else if (kind != MON_CLOCK_NONE)
		*flags |= MONOUT_FACT_SYSTEM;
}
