/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sigguard.c — the program's signals stay the program's while a profiling
 * clock uses one.
 *
 * A tick is a signal, and the program has its own ideas about signals: a
 * thread pool blocks every signal in its workers (liblzma, many servers),
 * a spawn helper or daemon resets every signal to SIG_DFL, a program puts
 * handlers on every real-time signal or uses ours for itself, a fault
 * handler runs on a small alternate stack (sigaltstack(2)).  Unguarded,
 * the first is never sampled and its ticks pile up pending, the second is
 * killed by the next tick, the third receives ticks it never sent, the
 * last overflows its stack.  So, while a clock owns a signal
 * (mon_sig_own), libmon's versions of the C library's signal functions
 * keep a *virtual* view for the program:
 *
 *   - the disposition the program sets for an owned signal (sigaction,
 *     signal, sigset, sysv_signal, bsd_signal, sigignore, siginterrupt) is
 *     recorded and reported back to it, but the kernel keeps ours: a
 *     dispatcher that runs the tick for our instances and, for the
 *     program's own (sent with kill, tgkill, sigqueue, its own timers or
 *     fds), does what the program's disposition says: ignore, the default
 *     action (the signal is raised again with SIG_DFL), or its handler with
 *     its sa_mask (plus SA_RESETHAND and SA_NODEFER) applied.  Ours are
 *     told apart exactly: a CPU-time timer's signal carries our cookie in
 *     si_value, a perf event's carries the descriptor (si_fd) it came from,
 *     which is one of ours (fdguard.c); ITIMER_PROF's SIGPROF and the SIGIO
 *     of a full signal queue come from the kernel (SI_KERNEL);
 *   - the tick signal is never blocked for real (sigprocmask,
 *     pthread_sigmask, sighold, sigset(SIG_HOLD) take it out of the set and
 *     remember, per thread, that the program asked it blocked; the old mask
 *     they return says so).  A thread libmon's pthread_create starts with it
 *     unblocked, whatever mask it inherited.  A signal of the program's own
 *     that arrives on the tick signal while it believes it blocked is queued
 *     again for the thread, blocked for real until the program unblocks it;
 *   - a handler the program installs with SA_ONSTACK runs with the tick
 *     signals added to its sa_mask (hidden from what sigaction reports), so
 *     a tick never needs room on the program's alternate signal stack
 *     (sigaltstack(2): a handler interrupted there gets its signal frame
 *     there too, whatever the tick's own flags say; a fault handler's stack
 *     may be small and nearly full).  Every other handler runs on the
 *     stack it interrupted and keeps the ticks: CPU spent in it is sampled
 *     in it, its stack walked through the kernel's signal frame into the
 *     interrupted code (issue 21, item 13).  So the tick signals are taken
 *     out of such a handler's sa_mask where the program put them (a full
 *     set, sigfillset being the common idiom: every tick would wait for the
 *     handler's return, and its CPU land where it interrupted), hidden
 *     too: sigaction reports the mask the program set.  Handlers already
 *     installed when the clock starts are patched either way, and put back
 *     when it stops;
 *   - the dispatcher itself runs on the interrupted stack, except once
 *     Go's runtime is in the process (mon_sig_onstack_all: objects.c finds
 *     Go's build ID note when the clock starts and after each dlopen):
 *     then on the thread's alternate stack (SA_ONSTACK), for every owned
 *     signal.  Go runs its goroutines on stacks of 2 KiB and more with no
 *     guard page, puts an alternate stack on each of its threads (32 KiB,
 *     or ours, fatal.c), and asks SA_ONSTACK of every handler (os/signal's
 *     documentation): a tick's signal frame, 4.6 KiB with AVX-512, written
 *     on a goroutine's stack overwrote the next one's and the program
 *     crashed.  Never for another program, even one whose own handlers
 *     ask SA_ONSTACK: its alternate stack may be a few KiB, which a tick's
 *     frame and handler overflow.  Stacks are walked from the interrupted
 *     context either way;
 *   - Go's handlers block every signal (they are installed by system call,
 *     past sigaction above), and its preemption signal (SIGURG) makes the
 *     goroutine call asyncPreempt: the handler pushes the interrupted PC
 *     as a return address and returns into that function's first
 *     instruction (runtime/signal_amd64.go, signal_arm64.go: pushCall).  A
 *     tick held behind that handler lands there, and 8-20 % of a cgo
 *     program's samples were asyncPreempt's under the thread clock (the
 *     tick 4 ms of CPU; 0.4 % under perf's).  A tick that finds that first
 *     instruction is taken on the context undone to the code the handler
 *     interrupted (mon_arch_injected_call_undo, and put back after), as if
 *     it had come before it (mon_sig_injected_call: objects.c reads the function's
 *     address from the object's symbol table; a stripped Go program keeps
 *     the old charge);
 *   - when the clock lets the signal go (mon_sig_disown), ticks still
 *     pending anywhere are discarded (SIG_IGN), the program's disposition
 *     goes back to the kernel, and the calling thread's mask is what the
 *     program asked for (exec inherits it).
 *
 * Not covered: inside a handler whose mask lost the tick signal, a signal
 * of the program's own on it (its own SIGPROF, say) is not held as the
 * mask it set says, and sigprocmask's old mask there does not show the
 * tick signal blocked.  Nor (the program goes around the C library's
 * functions): raw
 * rt_sigaction / rt_sigprocmask system calls, the C library's internal
 * calls (siglongjmp restoring a mask saved inside a handler, posix_spawn's
 * child, which has no clock anyway), sigsuspend/pselect/ppoll/epoll_pwait
 * masks (a thread sleeping there uses no CPU, so it raises no tick), and
 * threads whose mask blocked the tick signal before profiling started and
 * that were not created through pthread_create since.  docs/reliability.md
 * lists these.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "arch.h"
#include "runtime.h"

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef int (*sigmask_fn)(int, const sigset_t *, sigset_t *);

static sigaction_fn real_sigaction;
static sigmask_fn real_sigprocmask, real_pthread_sigmask;

/* The program's first sigaction when it is not ours (a sanitizer's, which
 * wraps handlers so that they run where its runtime can take them; its own
 * "real" sigaction is then ours), and the depth of calls through it in
 * this thread: ours, called back from it, goes straight to the C library. */
static sigaction_fn front_sigaction;
/* Our own sigaction's address (a reference to the exported name from
 * inside a shared object is the process's first definition). */
extern __typeof__(sigaction) mon_sigaction_self
	__attribute__((alias("sigaction"), visibility("hidden"), nothrow, leaf));
static __thread int in_front __attribute__((tls_model("initial-exec")));


#define NSIGS 65	/* 1.._NSIG-1 on Linux */

struct owned {
	int on;				/* our dispatcher is the kernel's disposition */
	int (*is_ours)(int, const siginfo_t *);
	void (*tick)(int, siginfo_t *, void *);
	void (*yield)(int);		/* non-NULL: give the signal up to a handler of the program's */
	int nests;			/* MON_SIG_NESTS: the dispatcher runs with sig unblocked */
	int onstack;			/* the dispatcher is installed with SA_ONSTACK */
	struct sigaction prog[2];	/* the program's, double-buffered */
	unsigned cur;			/* index of the valid prog[] */
};
static struct owned own[NSIGS];
static sigset_t hidden;			/* tick signals added to the program's handlers' masks */
static sigset_t added[NSIGS];		/* which of them libmon added, per signal */
static sigset_t removed[NSIGS];		/* tick signals libmon took out of a handler's
					 * mask, per signal (the program's held them) */
static int tick_signo;			/* the owned tick signal whose blocking is virtual, or 0 */
static int guard_spin;			/* serialises changes of the tables above */
static int none_pending;		/* no tick of ours can be pending (mon_sig_none_pending) */
static int onstack_all;			/* every dispatcher runs on the alternate stack
					 * (mon_sig_onstack_all: Go's runtime is here) */
static uintptr_t injected_entry;	/* Go's asyncPreempt, or 0 (mon_sig_injected_call) */

/* Per thread: the program asked the tick signal blocked. */
static __thread int vblocked __attribute__((tls_model("initial-exec")));
/* Per thread: 0 a program's thread; else one of the runtime's own
 * (mon_sig_runtime_thread), 1 + the signal it lets in (0: none), or -1:
 * its mask to be set again at its next wake-up (send_on blocked one). */
static __thread int runtime_thread __attribute__((tls_model("initial-exec")));

MON_NO_TSAN static int raw_sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	return (int)syscall(SYS_rt_sigprocmask, how, set, old, (size_t)(_NSIG / 8));
}

/* The tables' lock, taken with every signal blocked: sigaction is
 * async-signal-safe, and a handler of the program's that calls it must not
 * wait for the code it interrupted. */
MON_NO_TSAN static sigset_t lock(void)
{
	sigset_t all, old;
	sigfillset(&all);
	raw_sigprocmask(SIG_BLOCK, &all, &old);
	while (__atomic_exchange_n(&guard_spin, 1, __ATOMIC_ACQUIRE))
		syscall(SYS_sched_yield);
	return old;
}

MON_NO_TSAN static void unlock(sigset_t old)
{
	__atomic_store_n(&guard_spin, 0, __ATOMIC_RELEASE);
	raw_sigprocmask(SIG_SETMASK, &old, NULL);
}

MON_NO_TSAN void mon_sig_fork_child(void)
{
	__atomic_store_n(&guard_spin, 0, __ATOMIC_RELEASE);
}

MON_NO_TSAN void mon_sig_none_pending(int none)
{
	none_pending = none;
}

MON_NO_TSAN static void resolve(void)
{
	if (real_sigaction == NULL)
		real_sigaction = (sigaction_fn)mon_libc_next("sigaction");
	if (real_sigprocmask == NULL)
		real_sigprocmask = (sigmask_fn)mon_libc_next("sigprocmask");
	if (real_pthread_sigmask == NULL)
		real_pthread_sigmask = (sigmask_fn)mon_libc_next("pthread_sigmask");
}

MON_NO_TSAN __attribute__((constructor(101))) void mon_sigguard_init(void)
{
	MON_ONCE();
	int saved_errno = errno;
	resolve();
	sigemptyset(&hidden);
	sigaction_fn first = (sigaction_fn)dlsym(RTLD_DEFAULT, "sigaction");
	if (first != NULL && first != mon_sigaction_self && first != real_sigaction)
		front_sigaction = first;
	errno = saved_errno;
}

MON_NO_TSAN int mon_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (real_sigaction == NULL)
		resolve();
	if (real_sigaction == NULL)
		return mon_fail(ENOSYS);
	if (front_sigaction != NULL && !in_front) {
		in_front++;
		int rc = front_sigaction(sig, act, old);
		in_front--;
		return rc;
	}
	return real_sigaction(sig, act, old);
}

/* The thread's real mask; pthread_sigmask's return convention. */
MON_NO_TSAN static int real_mask(int how, const sigset_t *set, sigset_t *old)
{
	if (real_pthread_sigmask == NULL)
		resolve();
	if (real_pthread_sigmask != NULL)
		return real_pthread_sigmask(how, set, old);
	return raw_sigprocmask(how, set, old) < 0 ? errno : 0;
}

MON_NO_TSAN static int is_handler(const struct sigaction *a)
{
	return (a->sa_flags & SA_SIGINFO) ||
	       (a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN);
}

/* Where the kernel's actions are set: the C library's sigaction, or the
 * one mon_sig_route gave (fatal.c's view of the signals it stands in for,
 * which passes the others to mon_real_sigaction). */
static int (*route)(int, const struct sigaction *, struct sigaction *);

static int (*route_known)(int, struct sigaction *);

void mon_sig_route(int (*set)(int, const struct sigaction *, struct sigaction *),
		   int (*known)(int, struct sigaction *))
{
	__atomic_store_n(&route_known, known, __ATOMIC_RELEASE);
	__atomic_store_n(&route, set, __ATOMIC_RELEASE);
}

MON_NO_TSAN static int route_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	int (*r)(int, const struct sigaction *, struct sigaction *) =
		__atomic_load_n(&route, __ATOMIC_ACQUIRE);
	return r != NULL ? r(sig, act, old) : mon_real_sigaction(sig, act, old);
}

/* Does a handler of the program's with action a get the hidden tick
 * signals in its mask?  Only one that runs on the alternate signal stack
 * (top of this file): elsewhere a tick in the handler is sampled there. */
MON_NO_TSAN static int hides_ticks(const struct sigaction *a)
{
	return is_handler(a) && (a->sa_flags & SA_ONSTACK);
}

/* Is the kernel's action for sig a handler of libmon's that stands in for
 * the program's SIG_DFL (fatal.c)?  Then a's mask is libmon's, and what the
 * program is told of sig is fatal.c's record of what it set, never the
 * kernel's (nothing to unhide in it).  With the stand-in's action in a. */
MON_NO_TSAN static int stand_in(int sig, struct sigaction *a)
{
	int (*known)(int, struct sigaction *) = __atomic_load_n(&route_known, __ATOMIC_ACQUIRE);
	return known != NULL && known(sig, a);
}

/* Give sig the action a for real: a handler of the program's on the
 * alternate stack gets the hidden tick signals in its mask (recorded in
 * added[sig]).  A SIG_DFL that fatal.c replaces with its own handler gets
 * that handler, whose mask may hold the hidden tick signals too: recorded
 * the same way, so that the clock's stop takes them out (patch_all).
 * Under lock. */
MON_NO_TSAN static int apply(int sig, const struct sigaction *a, struct sigaction *old)
{
	struct sigaction k = *a;
	sigemptyset(&added[sig]);
	sigemptyset(&removed[sig]);
	for (int s = 1; s < NSIGS; s++) {
		if (!sigismember(&hidden, s))
			continue;
		if (hides_ticks(a) && !sigismember(&k.sa_mask, s)) {
			sigaddset(&k.sa_mask, s);
			sigaddset(&added[sig], s);
		} else if (!hides_ticks(a) && is_handler(a) && sigismember(&k.sa_mask, s)) {
			/* A handler whose mask holds the tick signal (a full
			 * set: sigfillset is the common idiom) would hold every
			 * tick until it returns, and all its CPU would land
			 * where it interrupted: taken out, kept in the view. */
			sigdelset(&k.sa_mask, s);
			sigaddset(&removed[sig], s);
		}
	}
	int rc = route_sigaction(sig, &k, old);	/* fatal.c's view of its signals */
	struct sigaction ours;
	if (rc == 0 && stand_in(sig, &ours)) {
		sigemptyset(&removed[sig]);	/* libmon's handler went in, its mask as is */
		for (int s = 1; s < NSIGS; s++)
			if (sigismember(&hidden, s) && sigismember(&ours.sa_mask, s))
				sigaddset(&added[sig], s);
	}
	return rc;
}

/* What the program sees of the kernel's action for a signal not owned:
 * the mask without what libmon added, with what it took out. */
MON_NO_TSAN static void unhide(int sig, struct sigaction *a)
{
	for (int s = 1; s < NSIGS; s++) {
		if (sigismember(&added[sig], s))
			sigdelset(&a->sa_mask, s);
		if (sigismember(&removed[sig], s))
			sigaddset(&a->sa_mask, s);
	}
}

/* Add (or remove) tick signal t to (from) the masks of every handler on
 * the alternate stack installed now.  Removing asks the kernel only about
 * the signals added[] says it was added to: a clock's stop (every fork
 * child's exit) then costs two calls per patched handler of the
 * program's, one per handler of libmon's that stands in for the program's
 * SIG_DFL and got the tick signal (the snapshot handler: fatal.c knows its
 * action; the fatal handlers block every signal, so none is added to
 * them), not a question about each of the 64 signals.  Under lock. */
MON_NO_TSAN static void patch_all(int t, int add)
{
	for (int s = 1; s < NSIGS; s++) {
		struct sigaction cur;
		if (s == SIGKILL || s == SIGSTOP || own[s].on || s == t)
			continue;
		if (!add && !sigismember(&added[s], t) && !sigismember(&removed[s], t))
			continue;
		int (*known)(int, struct sigaction *) = __atomic_load_n(&route_known, __ATOMIC_ACQUIRE);
		if (!add && known != NULL && known(s, &cur)) {
			/* libmon's own fatal handler (fatal.c): its action is
			 * known, with t already out of hidden, so it is written
			 * without being read (one call instead of two in every
			 * fork child's stop). */
			if (mon_real_sigaction(s, &cur, NULL) == 0)
				sigdelset(&added[s], t);
			continue;
		}
		if (mon_real_sigaction(s, NULL, &cur) < 0 || !is_handler(&cur))
			continue;
		struct sigaction ours;
		if (add && hides_ticks(&cur) && !sigismember(&cur.sa_mask, t)) {
			sigaddset(&cur.sa_mask, t);
			if (mon_real_sigaction(s, &cur, NULL) == 0)
				sigaddset(&added[s], t);
		} else if (add && !hides_ticks(&cur) && sigismember(&cur.sa_mask, t) &&
			   !(known != NULL && known(s, &ours))) {
			/* the program's handler holding ticks: as apply() */
			sigdelset(&cur.sa_mask, t);
			if (mon_real_sigaction(s, &cur, NULL) == 0)
				sigaddset(&removed[s], t);
		} else if (!add && sigismember(&added[s], t)) {
			sigdelset(&cur.sa_mask, t);
			if (mon_real_sigaction(s, &cur, NULL) == 0)
				sigdelset(&added[s], t);
		} else if (!add && sigismember(&removed[s], t)) {
			sigaddset(&cur.sa_mask, t);
			if (mon_real_sigaction(s, &cur, NULL) == 0)
				sigdelset(&removed[s], t);
		}
	}
}

/* ---- the dispatcher ----------------------------------------------------- */

MON_NO_TSAN static int default_ignores(int sig)
{
	return sig == SIGCHLD || sig == SIGCONT || sig == SIGURG || sig == SIGWINCH;
}

/* A signal of the program's own on an owned signal: what its disposition
 * says.  Async-signal-safe. */
MON_NO_TSAN static void forward(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	struct owned *o = &own[sig];
	if (sig == __atomic_load_n(&tick_signo, __ATOMIC_RELAXED) && vblocked) {
		/* Blocked in the program's view: pending again, blocked for real
		 * in this thread until the program unblocks it. */
		syscall(SYS_rt_tgsigqueueinfo, getpid(), mon_gettid(), sig, si);
		sigaddset(&uc->uc_sigmask, sig);
		return;
	}
	struct sigaction pa = o->prog[__atomic_load_n(&o->cur, __ATOMIC_ACQUIRE)];
	if (!is_handler(&pa)) {
		if (pa.sa_handler == SIG_IGN || default_ignores(sig))
			return;
		/* The default action ends the process: as if we were not there. */
		struct sigaction dfl;
		memset(&dfl, 0, sizeof dfl);
		dfl.sa_handler = SIG_DFL;
		sigemptyset(&dfl.sa_mask);
		mon_real_sigaction(sig, &dfl, NULL);
		sigdelset(&uc->uc_sigmask, sig);
		syscall(SYS_tgkill, getpid(), mon_gettid(), sig);
		return;
	}
	/* The mask its handler runs with: the interrupted code's, its
	 * sa_mask, the hidden tick signals if it asked for the alternate
	 * stack (it runs on this one: the dispatcher has no SA_ONSTACK but
	 * under Go's runtime, and the program's view is kept), the signal
	 * itself unless SA_NODEFER.
	 * The kernel gave this dispatcher the interrupted mask plus the hidden
	 * signals and sig (not sig if it nests): change it only if that
	 * differs. */
	sigset_t want = uc->uc_sigmask, now = uc->uc_sigmask;
	int differs = 0, hide = (pa.sa_flags & SA_ONSTACK) != 0;
	for (int s = 1; s < NSIGS; s++) {
		int w = sigismember(&want, s) == 1 || sigismember(&pa.sa_mask, s) == 1 ||
			(hide && sigismember(&hidden, s) == 1) ||
			(s == sig && !(pa.sa_flags & SA_NODEFER));
		int n = sigismember(&now, s) == 1 || sigismember(&hidden, s) == 1 ||
			(s == sig && !o->nests);
		if (w)
			sigaddset(&want, s);
		if (n)
			sigaddset(&now, s);
		differs |= w != n;
	}
	if (pa.sa_flags & SA_RESETHAND) {
		/* One-shot: the program's view goes back to the default (a race
		 * with a concurrent sigaction of the program's is its own). */
		unsigned n = 1u - __atomic_load_n(&o->cur, __ATOMIC_RELAXED);
		memset(&o->prog[n], 0, sizeof o->prog[n]);
		o->prog[n].sa_handler = SIG_DFL;
		__atomic_store_n(&o->cur, n, __ATOMIC_RELEASE);
	}
	if (differs)
		raw_sigprocmask(SIG_SETMASK, &want, NULL);
	if (pa.sa_flags & SA_SIGINFO)
		pa.sa_sigaction(sig, si, ucv);
	else
		pa.sa_handler(sig);
	if (differs)
		raw_sigprocmask(SIG_SETMASK, &now, NULL);
}

/* A signal of the program's in one of the runtime's threads, which let it
 * in for the itimer clock: not run there (the program never sees our
 * threads), but blocked in this thread (in the mask its sigreturn restores,
 * uc_sigmask, too) until its next wake-up, and sent again to the process,
 * whose own threads take it.  Sent as it came where the kernel allows (a
 * negative si_code, sigqueue(3)'s, through rt_sigqueueinfo(2)), else by
 * kill(2): same signal, sender our pid (a thread-directed one becomes the
 * process's).  Not let in again while one is pending for the process
 * (mon_sig_runtime_thread): no thread of the program's may take it now. */
__attribute__((noinline, no_sanitize("address"))) MON_NO_TSAN static void
send_on(int sig, const siginfo_t *si, void *ucv)
{
	sigset_t one;
	sigemptyset(&one);
	sigaddset(&one, sig);
	raw_sigprocmask(SIG_BLOCK, &one, NULL);
	if (ucv != NULL)
		sigaddset(&((ucontext_t *)ucv)->uc_sigmask, sig);
	runtime_thread = -1;	/* its next wake-up sets its mask again */
	pid_t pid = (pid_t)syscall(SYS_getpid);
	if (si != NULL && si->si_code < 0 && si->si_code != SI_TKILL &&
	    syscall(SYS_rt_sigqueueinfo, pid, sig, si) == 0)
		return;
	syscall(SYS_kill, pid, sig);
}

MON_NO_TSAN static void dispatch(int sig, siginfo_t *si, void *ucv);

/* What a tick interrupted.  The kernel delivers every pending signal
 * that the mask lets in before it returns to user mode, each frame on the
 * one before (signal(7)): a tick can find this dispatcher's first
 * instruction, a frame of ours that has not run.  Its context is then
 * that frame's (the address the kernel passed it, mon_arch_context_arg2),
 * the code the signal below interrupted: its samples go there, not into
 * libmon, and the itimer clock judges the call that code was in
 * (itimer_cut).  Seen when a handler of the program's held the ticks (one
 * on the alternate stack) and returned: the itimer's lagging expiry gave
 * two SIGPROFs at once, the top one charged the handler's CPU in
 * dispatch, and the one below found the program's EINTR with no CPU left
 * uncharged and took it for a stolen tick (ASan, both cores busy, 1 run in
 * 25 of tests/progs/itimer_own_eintr.c; the clock stopped).  A frame whose
 * context is not where the kernel puts it, just above the stack pointer,
 * is left as it is.  Async-signal-safe. */
MON_NO_TSAN static void *ticked_context(void *ucv)
{
	for (int i = 0; i < 4 && ucv != NULL && mon_arch_context_pc(ucv) == (uintptr_t)dispatch; i++) {
		uintptr_t sp = mon_arch_context_sp(ucv), below = mon_arch_context_arg2(ucv);
		if (below < sp || below - sp > 4096 || below % sizeof(long) != 0)
			break;
		ucv = (void *)below;
	}
	return ucv;
}

/* A tick at the first instruction of a call a handler of the program's
 * made the interrupted code make (injected_entry, Go's asyncPreempt): taken
 * on the context undone to that code, then put back as the kernel wrote
 * it (the registers the undo changes: a copy of the whole ucontext_t would
 * take 1 KiB of the signal stack on x86-64, 4.5 KiB on aarch64).  Not
 * inlined: every other tick's frame stays as small as it was
 * (stack_use.sh's bounds, under ASan too). */
__attribute__((noinline)) MON_NO_TSAN static void
tick_before_injected(struct owned *o, int sig, siginfo_t *si, void *ucv)
{
	struct mon_arch_injected saved;
	if (mon_arch_injected_call_undo(ucv, &saved)) {
		o->tick(sig, si, ucv);
		mon_arch_injected_call_redo(ucv, &saved);
	} else {
		o->tick(sig, si, ucv);
	}
}

MON_NO_TSAN static void dispatch(int sig, siginfo_t *si, void *ucv)
{
	int saved_errno = errno;
	struct owned *o = &own[sig];
	if (sig > 0 && sig < NSIGS) {
		if (o->is_ours != NULL && o->is_ours(sig, si)) {
			void *uc = ticked_context(ucv);
			uintptr_t entry = __atomic_load_n(&injected_entry, __ATOMIC_RELAXED);
			if (entry != 0 && uc != NULL && mon_arch_context_pc(uc) == entry)
				tick_before_injected(o, sig, si, uc);
			else
				o->tick(sig, si, uc);
		} else if (runtime_thread)
			send_on(sig, si, ucv);
		else
			forward(sig, si, ucv);
	}
	errno = saved_errno;
}

MON_NO_TSAN void mon_sig_runtime_thread(int let_in)
{
	if (let_in < 0 || let_in >= NSIGS)
		let_in = 0;
	if (runtime_thread == 1 + let_in)
		return;
	sigset_t m, pending;
	sigfillset(&m);
	/* One the program sent that send_on passed on and no thread of its
	 * took yet: left for them (taken and sent again at each wake-up, it
	 * would merge with a tick and be lost).  Looked at again next time. */
	if (let_in && runtime_thread == -1 &&
	    syscall(SYS_rt_sigpending, &pending, (size_t)(_NSIG / 8)) == 0 &&
	    sigismember(&pending, let_in) == 1) {
		raw_sigprocmask(SIG_SETMASK, &m, NULL);
		return;
	}
	if (let_in)
		sigdelset(&m, let_in);
	/* Marked before the signal is let in: one pending for the process is
	 * delivered at once, and taken unmarked it was a sample of the
	 * program's in control_main (1 of 2661 in threads_churn.sh's
	 * threads_many_no_control, ASan beside two busy loops). */
	runtime_thread = 1 + let_in;
	raw_sigprocmask(SIG_SETMASK, &m, NULL);
}

MON_NO_TSAN int mon_sig_in_runtime_thread(void)
{
	return runtime_thread != 0;
}

/* ---- owning a signal ---------------------------------------------------- */

/* The dispatcher's disposition for sig: sig blocked while it runs unless
 * nests (SA_NODEFER and out of the mask; see mon_sig_own), the other tick
 * signals blocked, on the alternate stack once Go's runtime is here
 * (onstack_all).  Under lock. */
MON_NO_TSAN static int install_dispatch(int sig, int nests)
{
	struct owned *o = &own[sig];
	int onstack = onstack_all;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = dispatch;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | (nests ? SA_NODEFER : 0) | (onstack ? SA_ONSTACK : 0);
	sa.sa_mask = hidden;
	if (nests)
		sigdelset(&sa.sa_mask, sig);
	else
		sigaddset(&sa.sa_mask, sig);
	if (mon_real_sigaction(sig, &sa, NULL) < 0)
		return -1;
	o->onstack = onstack;
	return 0;
}

MON_NO_TSAN void mon_sig_onstack_all(void)
{
	int saved_errno = errno;
	sigset_t m_ = lock();
	onstack_all = 1;
	for (int s = 1; s < NSIGS; s++)
		if (own[s].on && !own[s].onstack)
			install_dispatch(s, own[s].nests);	/* (fails only for a bad signal) */
	unlock(m_);
	errno = saved_errno;
}

MON_NO_TSAN void mon_sig_injected_call(uintptr_t entry)
{
	__atomic_store_n(&injected_entry, entry, __ATOMIC_RELAXED);
}

MON_NO_TSAN int mon_sig_own(int sig, unsigned flags, int (*is_ours)(int, const siginfo_t *),
		void (*tick)(int, siginfo_t *, void *), void (*yield)(int))
{
	if (sig <= 0 || sig >= NSIGS || sig == SIGKILL || sig == SIGSTOP)
		return mon_fail(EINVAL);
	int nests = (flags & MON_SIG_NESTS) != 0;
	sigset_t m_ = lock();
	none_pending = 0;	/* a clock is about to be armed */
	struct owned *o = &own[sig];
	if (o->on) {
		if (o->nests != nests && install_dispatch(sig, nests) < 0) {
			int e = errno;
			unlock(m_);
			return mon_fail(e);
		}
		o->nests = nests;
		o->is_ours = is_ours;
		o->tick = tick;
		o->yield = yield;
		unlock(m_);
		return 0;
	}
	struct sigaction cur;
	if (mon_real_sigaction(sig, NULL, &cur) < 0) {
		unlock(m_);
		return -1;
	}
	unhide(sig, &cur);
	o->prog[0] = cur;
	o->cur = 0;
	o->is_ours = is_ours;
	o->tick = tick;
	o->yield = yield;
	o->nests = nests;
	if (install_dispatch(sig, nests) < 0) {
		int e = errno;
		unlock(m_);
		return mon_fail(e);
	}
	__atomic_store_n(&o->on, 1, __ATOMIC_RELEASE);
	if (flags & MON_SIG_TICK) {
		sigaddset(&hidden, sig);
		patch_all(sig, 1);
		/* This thread: the program's view of its mask stays, the real
		 * one lets ticks in.  The itimer clock's SIGPROF too: blocked for
		 * real it would stay pending for the program's sigwaitinfo or
		 * signalfd to read (issue 21, item 5). */
		vblocked = sigismember(&m_, sig) == 1;
		sigdelset(&m_, sig);	/* unlock() sets the mask */
		__atomic_store_n(&tick_signo, sig, __ATOMIC_RELEASE);
	}
	unlock(m_);
	return 0;
}

/* Give sig back, under lock (m_: the mask unlock() will set). */
MON_NO_TSAN static void disown_locked(int sig, sigset_t *m_)
{
	if (sig <= 0 || sig >= NSIGS)
		return;
	struct owned *o = &own[sig];
	if (!o->on)
		return;
	/* Ignoring a signal discards it wherever it is pending, in every
	 * thread: no tick outlives the clock, into an exec or anywhere.  Not
	 * needed in a fork child that armed nothing (mon_sig_none_pending):
	 * one system call less in each. */
	if (!none_pending) {
		struct sigaction ign;
		memset(&ign, 0, sizeof ign);
		ign.sa_handler = SIG_IGN;
		sigemptyset(&ign.sa_mask);
		mon_real_sigaction(sig, &ign, NULL);
	}
	__atomic_store_n(&o->on, 0, __ATOMIC_RELEASE);
	if (sigismember(&hidden, sig)) {
		sigdelset(&hidden, sig);
		patch_all(sig, 0);
	}
	struct sigaction pa = o->prog[o->cur];
	apply(sig, &pa, NULL);
	if (tick_signo == sig) {
		__atomic_store_n(&tick_signo, 0, __ATOMIC_RELEASE);
		if (vblocked)
			sigaddset(m_, sig);	/* unlock() sets the mask */
		else
			sigdelset(m_, sig);
	}
}

MON_NO_TSAN void mon_sig_disown(int sig)
{
	mon_sig_disown_pair(sig, 0);
}

MON_NO_TSAN void mon_sig_disown_pair(int first, int then)
{
	if ((first <= 0 || first >= NSIGS) && (then <= 0 || then >= NSIGS))
		return;
	int saved_errno = errno;
	sigset_t m_ = lock();
	disown_locked(first, &m_);
	disown_locked(then, &m_);
	unlock(m_);
	errno = saved_errno;
}

MON_NO_TSAN void mon_sig_add_hidden(sigset_t *mask)
{
	for (int s = 1; s < NSIGS; s++)
		if (sigismember(&hidden, s) == 1)
			sigaddset(mask, s);
}

MON_NO_TSAN int mon_sig_vblocked(void)
{
	return vblocked;
}

MON_NO_TSAN void mon_sig_thread_started(int inherited_vblocked)
{
	vblocked = inherited_vblocked;
	int t = __atomic_load_n(&tick_signo, __ATOMIC_ACQUIRE);
	if (t) {
		sigset_t one;
		sigemptyset(&one);
		sigaddset(&one, t);
		raw_sigprocmask(SIG_UNBLOCK, &one, NULL);
	}
}

/* Is this instance of sig (dequeued by the program's own call) a tick of
 * ours?  Async-signal-safe. */
MON_NO_TSAN static int is_tick_instance(int sig, const siginfo_t *si)
{
	if (sig <= 0 || sig >= NSIGS || !__atomic_load_n(&own[sig].on, __ATOMIC_ACQUIRE))
		return 0;
	int (*ours)(int, const siginfo_t *) = own[sig].is_ours;
	return ours != NULL && ours(sig, si);
}

/* ---- the C library's functions, as the program sees them ---------------- */

MON_NO_TSAN static int guard_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (sig <= 0 || sig >= NSIGS)
		return mon_real_sigaction(sig, act, old);
	sigset_t m_ = lock();
	struct owned *o = &own[sig];
	int rc = 0;
	if (o->on && o->yield != NULL && act != NULL && is_handler(act)) {
		/* A signal whose ticks cannot be told from the program's own
		 * (ITIMER_PROF's SIGPROF, the kernel's SIGIO): the program's
		 * handler gets it; the clock stops first (clock.c). */
		void (*yield)(int) = o->yield;
		unlock(m_);
		yield(sig);
		m_ = lock();
	}
	if (o->on) {
		struct sigaction was = o->prog[o->cur];	/* act and old may be one */
		if (act != NULL) {
			unsigned n = 1u - o->cur;
			o->prog[n] = *act;
			__atomic_store_n(&o->cur, n, __ATOMIC_RELEASE);
		}
		if (old != NULL)
			*old = was;
	} else if (act != NULL) {
		sigset_t was = added[sig], was_r = removed[sig];
		struct sigaction ours;
		int told = stand_in(sig, &ours);	/* old is fatal.c's record */
		rc = apply(sig, act, old);
		if (rc == 0 && old != NULL && !told) {
			sigset_t now = added[sig], now_r = removed[sig];
			added[sig] = was;
			removed[sig] = was_r;
			unhide(sig, old);
			added[sig] = now;
			removed[sig] = now_r;
		} else if (rc < 0) {
			added[sig] = was;
			removed[sig] = was_r;
		}
	} else {
		struct sigaction ours;
		int told = stand_in(sig, &ours);
		rc = route_sigaction(sig, NULL, old);
		if (rc == 0 && old != NULL && !told)
			unhide(sig, old);
	}
	unlock(m_);
	return rc;
}

/* sigaction(2), with the program's view of the signals the profiling clock
 * uses (top of this file).  Same arguments, results and errors. */
MON_NO_TSAN MON_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (in_front)	/* the front one's "real" call: ours is on the way in */
		return real_sigaction(sig, act, old);
	int saved_errno = errno;
	/* With a front one (a sanitizer's), the program's call came through
	 * it and act is already its wrapper: what we install goes straight to
	 * the C library, never back through the front one, which would take
	 * its own wrapper for the program's handler. */
	int behind_front = front_sigaction != NULL;
	if (behind_front)
		in_front++;
	int rc = guard_sigaction(sig, act, old);
	if (behind_front)
		in_front--;
	if (rc == 0)
		errno = saved_errno;
	return rc;
}

/* The mask functions: the tick signal is never blocked for real; the
 * program's view is kept per thread.  pthread_sigmask's convention (error
 * number returned). */
MON_NO_TSAN static int guard_mask(int how, const sigset_t *set, sigset_t *old)
{
	int t = __atomic_load_n(&tick_signo, __ATOMIC_ACQUIRE);
	if (t == 0)
		return real_mask(how, set, old);
	sigset_t copy;
	const sigset_t *use = set;
	int vb = vblocked, nvb = vb;
	if (set != NULL) {
		int has = sigismember(set, t) == 1;
		if (how == SIG_BLOCK && has)
			nvb = 1;
		else if (how == SIG_UNBLOCK && has)
			nvb = 0;
		else if (how == SIG_SETMASK)
			nvb = has;
		if (has && how != SIG_UNBLOCK) {
			copy = *set;
			sigdelset(&copy, t);
			use = &copy;
		}
	}
	/* The new view first: a signal of the program's own that the call
	 * lets through (unblocking) must find it unblocked. */
	vblocked = nvb;
	int rc = real_mask(how, use, old);
	if (rc == 0 && old != NULL) {
		if (vb)
			sigaddset(old, t);
		else
			sigdelset(old, t);
	} else if (rc != 0) {
		vblocked = vb;
	}
	return rc;
}

/* pthread_sigmask(3) and sigprocmask(2): same arguments, results and
 * errors; the tick signal stays deliverable (top of this file). */
MON_NO_TSAN MON_EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	int saved_errno = errno;
	int rc = guard_mask(how, set, old);
	errno = saved_errno;
	return rc;
}

MON_NO_TSAN MON_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	int saved_errno = errno;
	int rc = guard_mask(how, set, old);
	if (rc != 0)
		return mon_fail(rc);
	errno = saved_errno;
	return 0;
}

static sigset_t no_restart;	/* siginterrupt(sig, 1) was asked */

/* signal(2) and bsd_signal(3): BSD semantics, as the C library gives them
 * (the handler stays, SA_RESTART unless siginterrupt said otherwise, the
 * signal blocked while its handler runs). */
MON_NO_TSAN MON_EXPORT __sighandler_t signal(int sig, __sighandler_t handler)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	if (handler == SIG_ERR || sig <= 0 || sig >= NSIGS) {
		errno = EINVAL;
		return SIG_ERR;
	}
	sigaddset(&sa.sa_mask, sig);
	sa.sa_flags = sigismember(&no_restart, sig) == 1 ? 0 : SA_RESTART;
	if (sigaction(sig, &sa, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

__sighandler_t bsd_signal(int sig, __sighandler_t handler);
MON_NO_TSAN MON_EXPORT __sighandler_t bsd_signal(int sig, __sighandler_t handler)
{
	return signal(sig, handler);
}

/* sysv_signal(3): one-shot, not blocked while the handler runs. */
MON_NO_TSAN MON_EXPORT __sighandler_t sysv_signal(int sig, __sighandler_t handler)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	if (handler == SIG_ERR || sig <= 0 || sig >= NSIGS) {
		errno = EINVAL;
		return SIG_ERR;
	}
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	if (sigaction(sig, &sa, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

/* sigset(3) (System V): SIG_HOLD blocks the signal, anything else sets the
 * disposition and unblocks it; returns the previous disposition, SIG_HOLD
 * if it was blocked. */
MON_NO_TSAN MON_EXPORT __sighandler_t sigset(int sig, __sighandler_t disp)
{
	sigset_t one, was;
	struct sigaction sa, old;
	sigemptyset(&one);
	if (sig <= 0 || sig >= NSIGS || sigaddset(&one, sig) < 0) {
		errno = EINVAL;
		return SIG_ERR;
	}
	if (disp == SIG_HOLD) {
		if (sigaction(sig, NULL, &old) < 0 || sigprocmask(SIG_BLOCK, &one, &was) < 0)
			return SIG_ERR;
	} else {
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = disp;
		sigemptyset(&sa.sa_mask);
		if (sigaction(sig, &sa, &old) < 0 || sigprocmask(SIG_UNBLOCK, &one, &was) < 0)
			return SIG_ERR;
	}
	return sigismember(&was, sig) == 1 ? SIG_HOLD : old.sa_handler;
}

/* sighold, sigrelse, sigignore (System V): block, unblock, ignore sig.
 * 0 or -1/EINVAL. */
MON_NO_TSAN MON_EXPORT int sighold(int sig)
{
	sigset_t one;
	sigemptyset(&one);
	if (sigaddset(&one, sig) < 0)
		return -1;
	return sigprocmask(SIG_BLOCK, &one, NULL);
}

MON_NO_TSAN MON_EXPORT int sigrelse(int sig)
{
	sigset_t one;
	sigemptyset(&one);
	if (sigaddset(&one, sig) < 0)
		return -1;
	return sigprocmask(SIG_UNBLOCK, &one, NULL);
}

MON_NO_TSAN MON_EXPORT int sigignore(int sig)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_IGN;
	sigemptyset(&sa.sa_mask);
	return sigaction(sig, &sa, NULL);
}

/* siginterrupt(3): flag 1, the signal interrupts system calls (no
 * SA_RESTART); 0, they restart.  0 or -1/EINVAL. */
MON_NO_TSAN MON_EXPORT int siginterrupt(int sig, int flag)
{
	struct sigaction sa;
	if (sig <= 0 || sig >= NSIGS || sigaction(sig, NULL, &sa) < 0) {
		errno = EINVAL;
		return -1;
	}
	if (flag) {
		sigaddset(&no_restart, sig);
		sa.sa_flags &= ~SA_RESTART;
	} else {
		sigdelset(&no_restart, sig);
		sa.sa_flags |= SA_RESTART;
	}
	return sigaction(sig, &sa, NULL);
}

/* ---- the program's synchronous reading of signals ----------------------- */

/* Nanoseconds of CLOCK_MONOTONIC. */
MON_NO_TSAN static int64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* rt_sigtimedwait(2) for the program: a tick of ours that it dequeues (a
 * tick signal can be pending for an instant between its generation and its
 * delivery, and a process-directed SIGPROF may be handed to the waiting
 * thread, which has the set unblocked while it waits) is dropped and the
 * wait goes on, with what is left of timeout (NULL: none).  Returns the
 * signal, or -1/errno as sigtimedwait(2) (EAGAIN at the timeout, EINTR,
 * EINVAL, EFAULT). */
MON_NO_TSAN static int guard_wait(const sigset_t *set, siginfo_t *info, const struct timespec *timeout)
{
	siginfo_t local;
	siginfo_t *si = info != NULL ? info : &local;
	struct timespec left, *use = NULL;
	int64_t deadline = 0;
	if (timeout != NULL) {
		if (timeout->tv_nsec < 0 || timeout->tv_nsec >= 1000000000)
			return mon_fail(EINVAL);
		left = *timeout;
		use = &left;
		deadline = monotonic_ns() + (int64_t)timeout->tv_sec * 1000000000 + timeout->tv_nsec;
	}
	static int (*real_wait)(const sigset_t *, siginfo_t *, const struct timespec *);
	if (real_wait == NULL)
		real_wait = (int (*)(const sigset_t *, siginfo_t *, const struct timespec *))mon_libc_next(
			"sigtimedwait");
	for (;;) {
		/* The C library's, a cancellation point, when there is one. */
		int sig = real_wait != NULL ? real_wait(set, si, use)
					    : (int)syscall(SYS_rt_sigtimedwait, set, si, use,
							   (size_t)(_NSIG / 8));
		if (sig < 0 || !is_tick_instance(sig, si))
			return sig;
		if (use != NULL) {
			int64_t rest = deadline - monotonic_ns();
			if (rest < 0)
				rest = 0;
			left.tv_sec = (time_t)(rest / 1000000000);
			left.tv_nsec = (long)(rest % 1000000000);
		}
	}
}

/* sigwaitinfo(2), sigtimedwait(2), sigwait(3): same arguments, results and
 * errors; the profiling clock's ticks are never among the signals read
 * (above).  Cancellation points, as the C library's (they call its
 * sigtimedwait). */
MON_NO_TSAN MON_EXPORT int sigtimedwait(const sigset_t *set, siginfo_t *info,
					const struct timespec *timeout)
{
	MON_LAUNDER(set);
	if (set == NULL)
		return mon_fail(EFAULT);
	return guard_wait(set, info, timeout);
}

MON_NO_TSAN MON_EXPORT int sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
	MON_LAUNDER(set);
	if (set == NULL)
		return mon_fail(EFAULT);
	return guard_wait(set, info, NULL);
}

/* sigwait(3): the error number is returned, errno kept. */
MON_NO_TSAN MON_EXPORT int sigwait(const sigset_t *set, int *sig)
{
	int saved_errno = errno, rc;
	MON_LAUNDER(set);
	if (set == NULL)
		return EFAULT;
	do
		rc = guard_wait(set, NULL, NULL);
	while (rc < 0 && errno == EINTR);	/* sigwait(3) never fails with EINTR */
	int e = errno;
	errno = saved_errno;
	if (rc < 0)
		return e;
	*sig = rc;
	return 0;
}

/* sigpending(2): same argument, result and errors; the tick signal is
 * shown pending only where it is blocked for real in this thread, which
 * happens only for an instance of the program's own held for it (forward
 * above); an unblocked one pending is a tick of ours on its way to the
 * handler. */
MON_NO_TSAN MON_EXPORT int sigpending(sigset_t *set)
{
	int saved_errno = errno;
	MON_LAUNDER(set);
	if (set == NULL)
		return mon_fail(EFAULT);
	if (syscall(SYS_rt_sigpending, set, (size_t)(_NSIG / 8)) < 0)
		return -1;
	int t = __atomic_load_n(&tick_signo, __ATOMIC_ACQUIRE);
	sigset_t real;
	if (t != 0 && sigismember(set, t) == 1 &&
	    (raw_sigprocmask(SIG_BLOCK, NULL, &real) < 0 || sigismember(&real, t) != 1))
		sigdelset(set, t);
	errno = saved_errno;
	return 0;
}

/* signalfd(2): same arguments, results and errors.  While the itimer
 * clock owns SIGPROF, SIGPROF is left out of the mask the kernel is given:
 * its ticks are process-directed and could be read by a thread blocked in
 * read(2) on the descriptor before the thread they were raised for takes
 * them.  (The per-thread clocks' ticks are directed to a thread that is
 * running in user mode, which takes them at once: the mask is given as it
 * is.)  The program's own SIGPROF is then not read through a descriptor
 * made while the itimer clock runs (docs/reliability.md). */
MON_NO_TSAN MON_EXPORT int signalfd(int fd, const sigset_t *mask, int flags)
{
	sigset_t copy;
	MON_LAUNDER(mask);
	if (mask != NULL && sigismember(mask, SIGPROF) == 1 &&
	    __atomic_load_n(&own[SIGPROF].on, __ATOMIC_ACQUIRE) &&
	    __atomic_load_n(&tick_signo, __ATOMIC_ACQUIRE) == SIGPROF) {
		copy = *mask;
		sigdelset(&copy, SIGPROF);
		mask = &copy;
	}
	return (int)syscall(SYS_signalfd4, fd, mask, (size_t)(_NSIG / 8), flags);
}
