/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest_fatalmask.c — a program that sets SIG_DFL on signals whose default
 * ends the process (the ones libmon's fatal handler stands in for,
 * lib/fatal.c) and handlers on others, while the profiling clock runs and
 * while it is stopped, and says what it sees.  Run with and without the
 * profiler: every line must be the same (tests/integ/guest_fatalmask.sh).
 *
 *   guest_fatalmask [raw]
 *   guest_fatalmask snap [pair] [raw]   (SIGUSR1 is MONPROF_SNAPSHOT's when
 *                                 profiled, lib/fatal.c)
 *
 * The clock is stopped and started again with moncontrol(3), found with
 * dlsym (libmon preloaded by monrun); unprofiled there is none and those
 * steps change nothing.  The sequence:
 *   1. on:  SIGTERM and SIGSEGV set to SIG_DFL (sa_mask {SIGUSR2}), then
 *           SIGSEGV given a handler with SA_ONSTACK and SIGBUS (SIG_DFL
 *           first) one without, both with sa_mask {SIGUSR2};
 *   2. off: SIGHUP set to SIG_DFL with every signal in sa_mask (the clock's
 *           signal among them, whichever it is);
 *   3. on, then off;
 *   4. off: SIGSEGV and SIGBUS raised: each handler prints the mask it runs
 *           with (pthread_sigmask);
 *   5. off: SIGWINCH given a handler that prints its mask, SIGTERM and
 *           SIGWINCH blocked, raised, and unblocked together: SIGTERM (the
 *           lower number: pending standard signals are delivered lowest
 *           number first) is taken first, and its default action ends the
 *           process there (signal(7)): the SIGWINCH handler never runs.
 *           Where a handler stands in for SIG_DFL, the kernel goes on to
 *           SIGWINCH before returning to user space unless that handler's
 *           mask blocks it: the program's handler would run first, on top.
 * With "snap", SIGUSR1 instead:
 *   s1. on:  SIGUSR1 set to SIG_DFL (sa_mask {SIGUSR2}); s2. off;
 *   with "pair": SIGUSR1 and SIGWINCH (a handler that prints its mask)
 *           blocked, raised, unblocked together: where SIGUSR1 writes a
 *           snapshot and the process goes on, the SIGWINCH handler runs on
 *           top of the snapshot handler, with SIGUSR1 and SIGWINCH blocked
 *           and nothing else (the clock is stopped): printed first as
 *           "expect winch blocked MASK";
 *   s4. off: SIGUSR1 set to SIG_DFL with every signal in sa_mask; s5. on;
 *   s6. off.  Then "survived", exit 0.
 * After each step, "view STEP SIG handler flags mask" for the signals it
 * touched (sigaction(sig, NULL, &old)).  Masks are one digit per signal
 * 1..SIGRTMAX.  With "raw", stderr also gets the kernel's own action for
 * each (rt_sigaction(2), around the C library and libmon): for diagnosis,
 * not compared.
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "monrun_common.h"

DEFINE_SPIN(fm_spin)

static int raw;

static void mask_str(const sigset_t *m, char *out)
{
	int s;
	for (s = 1; s <= SIGRTMAX; s++)
		out[s - 1] = sigismember(m, s) == 1 ? '1' : '0';
	out[s - 1] = '\0';
}

/* Async-signal-safe: one write(2) of a line. */
static void say(const char *what, int sig)
{
	sigset_t m;
	char line[160], ms[80];
	pthread_sigmask(SIG_BLOCK, NULL, &m);
	mask_str(&m, ms);
	int n = snprintf(line, sizeof line, "handler %s %d blocked %s\n", what, sig, ms);
	if (write(STDOUT_FILENO, line, (size_t)n) < 0)
		_exit(3);
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	say("segv", sig);
}

static void on_bus(int sig)
{
	say("bus", sig);
}

static void on_winch(int sig)
{
	say("winch", sig);
}

static const char *kind(const struct sigaction *a)
{
	if (a->sa_flags & SA_SIGINFO)
		return a->sa_sigaction == on_segv ? "on_segv" : "other";
	if (a->sa_handler == SIG_DFL)
		return "dfl";
	if (a->sa_handler == SIG_IGN)
		return "ign";
	if (a->sa_handler == on_bus)
		return "on_bus";
	if (a->sa_handler == on_winch)
		return "on_winch";
	return "other";
}

/* The kernel's struct sigaction for rt_sigaction(2) (x86_64, aarch64). */
struct k_sigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;
};

static void view(const char *step, int sig)
{
	struct sigaction old;
	char ms[80];
	if (sigaction(sig, NULL, &old) != 0) {
		printf("view %s %d error\n", step, sig);
		return;
	}
	mask_str(&old.sa_mask, ms);
	/* The flags whole, SA_RESTORER (which the C library adds on x86-64)
	 * included: the profiled program's view must have it too. */
	printf("view %s %d %s %#x %s\n", step, sig, kind(&old), (unsigned)old.sa_flags, ms);
	if (raw) {
		struct k_sigaction k;
		if (syscall(SYS_rt_sigaction, sig, NULL, &k, (size_t)8) == 0)
			fprintf(stderr, "kernel %s %d handler %p flags %#lx mask %#llx\n", step, sig,
				k.handler, k.flags, (unsigned long long)k.mask);
	}
	fflush(stdout);
}

static void set(int sig, void (*h)(int), void (*sa)(int, siginfo_t *, void *), int flags,
		const sigset_t *mask)
{
	struct sigaction a;
	memset(&a, 0, sizeof a);
	if (sa != NULL) {
		a.sa_sigaction = sa;
		a.sa_flags = SA_SIGINFO | flags;
	} else {
		a.sa_handler = h;
		a.sa_flags = flags;
	}
	a.sa_mask = *mask;
	if (sigaction(sig, &a, NULL) != 0) {
		perror("sigaction");
		exit(2);
	}
}

static int has_arg(int argc, char **argv, const char *w)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], w) == 0)
			return 1;
	return 0;
}

/* Block sig and SIGWINCH, raise both, unblock both at once. */
static void pair(int sig)
{
	sigset_t none, two;
	sigemptyset(&none);
	set(SIGWINCH, on_winch, NULL, 0, &none);
	sigemptyset(&two);
	sigaddset(&two, sig);
	sigaddset(&two, SIGWINCH);
	sigprocmask(SIG_BLOCK, &two, NULL);
	raise(SIGWINCH);
	raise(sig);
	printf("pending_both\n");
	fflush(stdout);
	sigprocmask(SIG_UNBLOCK, &two, NULL);
}

static int snap(int argc, char **argv, int (*control)(int), const sigset_t *usr2,
		const sigset_t *all)
{
	fm_spin(0.02);
	set(SIGUSR1, SIG_DFL, NULL, 0, usr2);
	view("s1", SIGUSR1);
	if (control != NULL)
		control(0);
	view("s2", SIGUSR1);
	if (has_arg(argc, argv, "pair")) {
		/* What the SIGWINCH handler on top of the snapshot handler
		 * runs with: the two signals (main's mask is empty). */
		sigset_t want;
		char ms[80];
		sigemptyset(&want);
		sigaddset(&want, SIGUSR1);
		sigaddset(&want, SIGWINCH);
		mask_str(&want, ms);
		printf("expect winch blocked %s\n", ms);
		pair(SIGUSR1);
	}
	set(SIGUSR1, SIG_DFL, NULL, 0, all);
	view("s4", SIGUSR1);
	if (control != NULL)
		control(1);
	fm_spin(0.02);
	view("s5", SIGUSR1);
	if (control != NULL)
		control(0);
	view("s6", SIGUSR1);
	printf("survived\n");
	return 0;
}

int main(int argc, char **argv)
{
	raw = has_arg(argc, argv, "raw");
	int (*control)(int) = (int (*)(int))dlsym(RTLD_DEFAULT, "moncontrol");
	sigset_t usr2, all;
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	sigfillset(&all);
	if (has_arg(argc, argv, "snap"))
		return snap(argc, argv, control, &usr2, &all);

	/* 1. The clock runs. */
	fm_spin(0.02);
	set(SIGTERM, SIG_DFL, NULL, 0, &usr2);
	set(SIGSEGV, SIG_DFL, NULL, 0, &usr2);
	set(SIGBUS, SIG_DFL, NULL, 0, &usr2);
	view("1dfl", SIGTERM);
	view("1dfl", SIGSEGV);
	view("1dfl", SIGBUS);
	set(SIGSEGV, NULL, on_segv, SA_ONSTACK, &usr2);
	set(SIGBUS, on_bus, NULL, 0, &usr2);
	view("1h", SIGSEGV);
	view("1h", SIGBUS);
	fm_spin(0.02);

	/* 2. Stopped. */
	if (control != NULL)
		control(0);
	view("2", SIGTERM);
	view("2", SIGSEGV);
	view("2", SIGBUS);
	set(SIGHUP, SIG_DFL, NULL, 0, &all);
	view("2", SIGHUP);

	/* 3. On again, then off. */
	if (control != NULL)
		control(1);
	fm_spin(0.02);
	view("3on", SIGHUP);
	view("3on", SIGTERM);
	if (control != NULL)
		control(0);
	view("3off", SIGHUP);
	view("3off", SIGTERM);
	view("3off", SIGSEGV);
	view("3off", SIGBUS);

	/* 4. The handlers' masks, the clock stopped. */
	raise(SIGSEGV);
	raise(SIGBUS);

	/* 5. SIGTERM's default action comes first. */
	pair(SIGTERM);
	printf("survived\n");
	return 0;
}
