/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fatal.c — every way out of the process writes the profile, and on demand
 * while it runs.
 *
 * Signals whose default action ends the process (signal(7): "Term" and
 * "Core"): SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT (abort()),
 * SIGBUS, SIGFPE, SIGUSR1, SIGSEGV, SIGUSR2, SIGPIPE, SIGALRM, SIGTERM,
 * SIGSTKFLT, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPWR, SIGSYS.  Not SIGPROF
 * (the ITIMER_PROF clock's own signal), not SIGIO (the perf clock's
 * overflow signal, clock.c), not the real-time signals (the tick's signal
 * is one of them), not SIGKILL (cannot be caught).
 * When profiling starts, a handler is installed for each one whose
 * disposition is the default, and only those: a program that handles or
 * ignores a signal keeps it to itself.  The handler runs with every signal
 * blocked, writes the profile (async-signal-safe writer), puts the default
 * disposition back and raises the signal again for the thread, so that the
 * process ends exactly as it would have: same signal, same core dump, same
 * exit status for its parent, and no handler of the program's run between
 * the signal and the end.
 * A fault re-raised this way is delivered when the handler returns.
 *
 * The program never sees that handler: sigaction(2) and signal(2) are
 * interposed for these signals (mon_fatal_sigaction).  Asking for the
 * disposition answers with what the program set (SIG_DFL at first);
 * installing a handler or SIG_IGN passes through (ours is gone); setting
 * SIG_DFL again, after start, puts our handler back in its place, so the
 * signal still writes the profile and then kills with the same status.
 *
 * Exits that skip atexit(3): _exit(2) and _Exit(3) are interposed, and a
 * quick_exit(3) handler is registered when profiling starts (it runs after
 * the program's own at_quick_exit handlers).  They write the profile
 * (async-signal-safe: _exit may be called from a signal handler) and end
 * the process with the status given.  A fork child that took no sample
 * writes nothing (a child that only execs and fails, then _exits, has
 * nothing to say); a vfork child writes nothing (it shares its parent's
 * memory, and the profile is its parent's).
 *
 * Snapshots: MONPROF_SNAPSHOT names a signal (USR1, SIGUSR2, 12, RTMIN+3);
 * if its disposition is the default, receiving it writes the profile so far
 * and profiling goes on — for programs that never exit.
 *
 * Not caught, nothing written: SIGKILL, the exit_group(2) system call made
 * directly, SIGIO, SIGPROF and the real-time signals.
 *
 * A thread whose stack is exhausted (unbounded recursion) takes SIGSEGV
 * with no stack left to run a handler on: the kernel then kills the
 * process at once (signal(7), sigaltstack(2)).  So each thread gets an
 * alternate signal stack of ours (MON_ALT_STACK bytes, mmap'ed: pages are
 * backed only when used), installed while the program has none of its own
 * in that thread, and the fatal handlers run with SA_ONSTACK.  The program
 * never sees it: sigaltstack(2) is interposed, and answers with the
 * program's own alternate stack (or SS_DISABLE); a stack the program sets
 * replaces ours, and when it disables its own, ours comes back.  Threads:
 * set up in threads.c's start wrapper (mon_fatal_thread_start) and taken
 * down at the thread's end (mon_fatal_thread_end), in the thread that
 * profiling started in at mon_fatal_install.  A thread created past our
 * pthread_create wrapper (a raw clone) has none: a stack overflow there
 * ends the process without a profile.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "monrt.h"
#include "settings.h"

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);

static sigaction_fn real_sigaction;

static const int fatal_signals[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGUSR1, SIGSEGV,
	SIGUSR2, SIGPIPE, SIGALRM, SIGTERM,
#ifdef SIGSTKFLT
	SIGSTKFLT,
#endif
	SIGXCPU, SIGXFSZ, SIGVTALRM,
#ifdef SIGPWR
	SIGPWR,
#endif
	SIGSYS,
};
static int snapshot_signo;
static int installed;		/* the handlers are in place (profiling started) */
static const struct mon_fatal_calls *calls;	/* monitor.c's, set at install */

/* Per signal: 1 while our handler stands in for the program's SIG_DFL, and
 * the action the program last set (what it is told it has). */
static int ours[NSIG];
static struct sigaction prog_act[NSIG];

static void resolve(void)
{
	if (real_sigaction == NULL)
		real_sigaction = (sigaction_fn)mon_libc_next("sigaction");
}

__attribute__((constructor)) void mon_fatal_init(void)
{
	MON_ONCE();
	int saved_errno = errno;
	resolve();
	errno = saved_errno;
}

/* The kernel's sigaction when the C library's cannot be found (never in
 * practice; keeps a failed dlsym from crashing the program). */
MON_NO_TSAN static int call_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	return mon_real_sigaction(sig, act, old);
}

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
	(void)si;
	(void)uc;
	const struct mon_fatal_calls *c = __atomic_load_n(&calls, __ATOMIC_ACQUIRE);
	if (c != NULL && c->started())
		c->write_profile(MONOUT_WHY_SIGNAL, sig, MONOUT_F_SIGNAL, 1);
	else if (c != NULL)
		c->write_wait();	/* a write at exit in another thread */
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	__atomic_store_n(&ours[sig], 0, __ATOMIC_RELEASE);
	call_sigaction(sig, &dfl, NULL);
	/* Pending now (blocked while we run); delivered with the default
	 * action as soon as this handler returns. */
	syscall(SYS_tgkill, getpid(), mon_gettid(), sig);
	errno = saved_errno;
}

static void on_snapshot(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
	(void)si;
	(void)uc;
	const struct mon_fatal_calls *c = __atomic_load_n(&calls, __ATOMIC_ACQUIRE);
	if (c != NULL && c->started())
		c->write_profile(MONOUT_WHY_SNAPSHOT, sig, MONOUT_F_SNAPSHOT, 1);
	errno = saved_errno;
}

MON_NO_TSAN int mon_fatal_signal_ok(int sig)
{
	for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
		if (fatal_signals[i] == sig)
			return 1;
	return 0;
}

/* Our action for sig: the snapshot handler or the fatal one.  The fatal
 * one blocks every signal: it stands in for a default action that ends the
 * process as soon as the kernel takes the signal, so no handler of the
 * program's may run before the end (signal(7); without this, one for a
 * signal pending with it and numbered above it, which the kernel delivers
 * next, on top of ours, would: guest_fatalmask).  The snapshot handler
 * blocks only the tick signals while a clock runs (no tick on top,
 * sigguard.c): the program goes on afterwards. */
MON_NO_TSAN static void our_action(int sig, struct sigaction *sa)
{
	memset(sa, 0, sizeof *sa);
	sa->sa_sigaction = sig == snapshot_signo ? on_snapshot : on_fatal;
	sa->sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	if (sig == snapshot_signo) {
		sigemptyset(&sa->sa_mask);
		mon_sig_add_hidden(&sa->sa_mask);
	} else {
		sigfillset(&sa->sa_mask);
	}
}

MON_NO_TSAN static int is_ours(const struct sigaction *sa)
{
	return (sa->sa_flags & SA_SIGINFO) &&
	       (sa->sa_sigaction == on_fatal || sa->sa_sigaction == on_snapshot);
}

MON_NO_TSAN static int is_default(const struct sigaction *sa)
{
	return !(sa->sa_flags & SA_SIGINFO) && sa->sa_handler == SIG_DFL;
}

MON_NO_TSAN int mon_fatal_owns(int sig)
{
	return sig > 0 && sig < NSIG && __atomic_load_n(&installed, __ATOMIC_ACQUIRE) &&
	       (sig == snapshot_signo || mon_fatal_signal_ok(sig));
}

MON_NO_TSAN int mon_fatal_action(int sig, struct sigaction *sa)
{
	if (!mon_fatal_owns(sig) || !__atomic_load_n(&ours[sig], __ATOMIC_ACQUIRE))
		return 0;
	our_action(sig, sa);
	return 1;
}

MON_NO_TSAN int mon_fatal_sigaction(int sig, const struct sigaction *act, struct sigaction *oldact)
{
	if (!mon_fatal_owns(sig) || sig == SIGKILL || sig == SIGSTOP)
		return call_sigaction(sig, act, oldact);
	struct sigaction prev, mine, told = prog_act[sig];
	const struct sigaction *give = act;
	int was_ours = __atomic_load_n(&ours[sig], __ATOMIC_ACQUIRE);
	if (act != NULL && is_default(act)) {
		our_action(sig, &mine);
		give = &mine;
	}
	if (call_sigaction(sig, give, &prev) < 0)
		return -1;
	if (act != NULL) {
		/* What the kernel would report: it drops SIGKILL and SIGSTOP
		 * from a handler's mask (sigaction(2): they cannot be blocked),
		 * and keeps the flags the C library added to the program's
		 * (SA_RESTORER on x86-64), as the installed action shows them. */
		prog_act[sig] = *act;
		sigdelset(&prog_act[sig].sa_mask, SIGKILL);
		sigdelset(&prog_act[sig].sa_mask, SIGSTOP);
		struct sigaction now;
		if (call_sigaction(sig, NULL, &now) == 0)
			prog_act[sig].sa_flags |= now.sa_flags & ~give->sa_flags;
		__atomic_store_n(&ours[sig], give == &mine, __ATOMIC_RELEASE);
	}
	if (oldact != NULL)
		*oldact = was_ours && is_ours(&prev) ? told : prev;
	return 0;
}

/* The program's sigaction and signal are lib/sigguard.c's, which hands
 * the signals above to mon_fatal_sigaction (routed there at install). */

static void install_if_default(int sig)
{
	struct sigaction cur, sa;
	if (call_sigaction(sig, NULL, &cur) < 0 || !is_default(&cur))
		return;
	our_action(sig, &sa);
	prog_act[sig] = cur;
	if (call_sigaction(sig, &sa, NULL) == 0)
		__atomic_store_n(&ours[sig], 1, __ATOMIC_RELEASE);
}

/* ---- the alternate signal stack --------------------------------------- */

#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1u << 31)	/* <linux/signal.h>, Linux 4.7 */
#endif
#define MON_ALT_STACK (256u * 1024u)	/* the writer's deepest path, with room */

/* Per thread: our alternate stack's memory (NULL: none) and its length. */
static __thread void *alt_mem __attribute__((tls_model("initial-exec")));
static __thread size_t alt_len __attribute__((tls_model("initial-exec")));

MON_NO_TSAN static int raw_sigaltstack(const stack_t *ss, stack_t *old)
{
	return (int)syscall(SYS_sigaltstack, ss, old);
}

/* 1 if the kernel's alternate stack for this thread is ours. */
MON_NO_TSAN static int ours_in_kernel(void)
{
	stack_t cur;
	return alt_mem != NULL && raw_sigaltstack(NULL, &cur) == 0 && !(cur.ss_flags & SS_DISABLE) &&
	       cur.ss_sp == alt_mem;
}

MON_NO_TSAN static void put_ours(void)
{
	stack_t ss = { .ss_sp = alt_mem, .ss_flags = 0, .ss_size = alt_len };
	raw_sigaltstack(&ss, NULL);
}

MON_NO_TSAN void mon_fatal_thread_start(void)
{
	if (!__atomic_load_n(&installed, __ATOMIC_ACQUIRE) || alt_mem != NULL)
		return;
	int saved_errno = errno;
	stack_t cur;
	if (raw_sigaltstack(NULL, &cur) == 0 && (cur.ss_flags & SS_DISABLE)) {
		/* The system call itself: this runs in threads a sanitizer's
		 * runtime has not set up yet (threads.c's start behind). */
		void *p = (void *)syscall(SYS_mmap, NULL, MON_ALT_STACK, PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
		if (p != MAP_FAILED) {
			alt_mem = p;
			alt_len = MON_ALT_STACK;
			put_ours();
		}
	}
	errno = saved_errno;
}

MON_NO_TSAN void mon_fatal_thread_end(void)
{
	if (alt_mem == NULL)
		return;
	int saved_errno = errno;
	if (ours_in_kernel()) {
		stack_t off = { .ss_sp = NULL, .ss_flags = SS_DISABLE, .ss_size = 0 };
		raw_sigaltstack(&off, NULL);
	}
	syscall(SYS_munmap, alt_mem, alt_len);
	alt_mem = NULL;
	errno = saved_errno;
}

/* sigaltstack(2), as the program sees it: ours is never reported (old
 * says SS_DISABLE while ours is in place), one the program sets replaces
 * ours, and disabling the program's own puts ours back.  Same arguments,
 * results and errors (EINVAL, ENOMEM, EPERM, EFAULT) as sigaltstack(2).
 * Not instrumented by ThreadSanitizer: its runtime calls sigaltstack while
 * it is being set up, before an instrumented function may run. */
MON_NO_TSAN MON_EXPORT int sigaltstack(const stack_t *ss, stack_t *old)
{
	if (alt_mem == NULL || !ours_in_kernel()) {
		int rc = raw_sigaltstack(ss, old);
		if (rc == 0 && alt_mem != NULL && ss != NULL && (ss->ss_flags & SS_DISABLE))
			put_ours();
		return rc;
	}
	if (ss != NULL) {
		if (ss->ss_flags & ~(SS_DISABLE | SS_AUTODISARM))
			return mon_fail(EINVAL);
		if (!(ss->ss_flags & SS_DISABLE) && raw_sigaltstack(ss, NULL) < 0)
			return -1;	/* ENOMEM (too small), EFAULT, EPERM: the kernel's word */
	}
	if (old != NULL) {
		old->ss_sp = NULL;
		old->ss_size = 0;
		old->ss_flags = SS_DISABLE;
	}
	return 0;
}

/* ---- exits that skip atexit --------------------------------------------- */

/* Write at an exit that skips atexit: only once profiling was set up
 * (before, there is nothing to write). */
static void write_at_exit(void)
{
	const struct mon_fatal_calls *c = __atomic_load_n(&calls, __ATOMIC_ACQUIRE);
	if (c != NULL)
		c->write_at_exit();
}

__attribute__((noreturn)) static void exit_now(int status)
{
	write_at_exit();
	for (;;)
		syscall(SYS_exit_group, status);
}

MON_EXPORT void _exit(int status)
{
	exit_now(status);
}

MON_EXPORT void _Exit(int status)
{
	exit_now(status);
}

static void at_quick_exit_write(void)
{
	int saved_errno = errno;
	write_at_exit();
	errno = saved_errno;
}

void mon_fatal_install(const struct mon_fatal_calls *c)
{
	static int done;
	if (done)
		return;
	done = 1;
	int saved_errno = errno;
	__atomic_store_n(&calls, c, __ATOMIC_RELEASE);
	mon_clone_set_exit(write_at_exit);	/* syscall(SYS_exit_group): as _exit */
	resolve();
	mon_sig_route(mon_fatal_sigaction, mon_fatal_action);
	snapshot_signo = mon_parse_signal(mon_env("MONPROF_SNAPSHOT"));
	for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
		install_if_default(fatal_signals[i]);
	if (snapshot_signo && !mon_fatal_signal_ok(snapshot_signo))
		install_if_default(snapshot_signo);
	at_quick_exit(at_quick_exit_write);
	__atomic_store_n(&installed, 1, __ATOMIC_RELEASE);
	mon_fatal_thread_start();	/* the thread profiling starts in */
	errno = saved_errno;
}
