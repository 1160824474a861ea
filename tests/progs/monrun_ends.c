/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * monrun_ends.c — a program that ends in one of the ways that skip exit(3)
 * or come from a signal, after some work (work_spin).
 *
 *   monrun_ends MODE [SECONDS]
 *
 *   _exit | _Exit | quick_exit   ends with status 7 that way
 *   fork_exit      forks two children that work and end with _exit(5);
 *                  waits for them; exits 0 if both exited 5
 *   sig N          raises signal N (default disposition): killed by N
 *   reset N        installs a handler for N, then sets N back to SIG_DFL
 *                  with sigaction, then raises N: killed by N
 *   reset_signal N same with signal(2)
 *   query          the default dispositions it sees for SIGTERM, SIGUSR1,
 *                  SIGPIPE are SIG_DFL (sigaction and signal); its own
 *                  SIGUSR1 handler runs for each of 3 raise(SIGUSR1) with
 *                  the siginfo it should have, sigaction reports that
 *                  handler back; exits 0 if all that holds, 1 otherwise
 *                  (the reason on stderr)
 *   signo NAME     prints the number of signal NAME (HUP, TERM...) and
 *                  exits 0; 1 if there is none of that name
 *   pipe           writes lines on standard output until it dies (under
 *                  `| head -n 1`: killed by SIGPIPE)
 *
 * It is an ordinary program, not linked with libmon.
 */
#define _GNU_SOURCE	/* sigabbrev_np */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "monrun_common.h"

DEFINE_SPIN(work_spin)

static volatile sig_atomic_t usr1_seen, usr1_bad;

static void on_usr1(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (sig != SIGUSR1 || si == NULL || si->si_signo != SIGUSR1 || si->si_pid != getpid())
		usr1_bad = 1;
	usr1_seen++;
}

static void on_any(int sig)
{
	(void)sig;
}

static int fail(const char *why)
{
	fprintf(stderr, "monrun_ends: %s\n", why);
	return 1;
}

static int query(void)
{
	static const int sigs[] = { SIGTERM, SIGUSR1, SIGPIPE, SIGHUP, SIGALRM };
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction old;
		if (sigaction(sigs[i], NULL, &old) != 0)
			return fail("sigaction query failed");
		if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
			return fail("sigaction does not report SIG_DFL");
		void (*prev)(int) = signal(sigs[i], on_any);
		if (prev != SIG_DFL)
			return fail("signal() does not report SIG_DFL");
		if (signal(sigs[i], SIG_DFL) != on_any)
			return fail("signal() does not report the handler set");
		if (sigaction(sigs[i], NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) ||
		    old.sa_handler != SIG_DFL)
			return fail("sigaction does not report SIG_DFL after signal(SIG_DFL)");
	}
	struct sigaction sa, back;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) != 0)
		return fail("sigaction SIGUSR1 failed");
	for (int i = 0; i < 3; i++)
		raise(SIGUSR1);
	if (usr1_seen != 3 || usr1_bad)
		return fail("the program's SIGUSR1 handler did not run 3 times as it should");
	if (sigaction(SIGUSR1, NULL, &back) != 0 || !(back.sa_flags & SA_SIGINFO) ||
	    back.sa_sigaction != on_usr1)
		return fail("sigaction does not report the program's SIGUSR1 handler");
	errno = 0;
	if (sigaction(0, NULL, &back) != -1 || errno != EINVAL)
		return fail("sigaction(0) is not EINVAL");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: monrun_ends MODE [N] [SECONDS]\n");
		return 2;
	}
	const char *m = argv[1];
	int has_n = !strcmp(m, "sig") || !strcmp(m, "reset") || !strcmp(m, "reset_signal");
	int n = has_n && argc > 2 ? atoi(argv[2]) : 0;
	if (!strcmp(m, "query"))
		return query();
	if (!strcmp(m, "signo") && argc > 2) {
		for (int s = 1; s < NSIG; s++)
			if (sigabbrev_np(s) && !strcmp(sigabbrev_np(s), argv[2])) {
				printf("%d\n", s);
				return 0;
			}
		return 1;
	}
	double secs = mr_seconds(argc > 2 + has_n ? argv[2 + has_n] : NULL, 0.1);
	if (!strcmp(m, "pipe")) {
		work_spin(secs);
		for (;;)
			if (puts("a line") == EOF || fflush(stdout) == EOF)
				return 3;	/* SIGPIPE ignored by whoever ran us */
	}
	if (!strcmp(m, "fork_exit")) {
		for (int k = 0; k < 2; k++) {
			pid_t p = fork();
			if (p < 0)
				return fail("fork failed");
			if (p == 0) {
				work_spin(secs);
				_exit(5);
			}
		}
		work_spin(secs / 2);
		int st, good = 0;
		while (wait(&st) > 0)
			good += WIFEXITED(st) && WEXITSTATUS(st) == 5;
		return good == 2 ? 0 : 1;
	}
	if (has_n) {
		if (n <= 0 || n >= NSIG)
			return fail("bad signal number");
		if (strcmp(m, "sig") != 0) {
			struct sigaction sa, dfl;
			memset(&sa, 0, sizeof sa);
			sa.sa_handler = on_any;
			sigemptyset(&sa.sa_mask);
			if (sigaction(n, &sa, NULL) != 0)
				return fail("sigaction failed");
			if (!strcmp(m, "reset")) {
				memset(&dfl, 0, sizeof dfl);
				dfl.sa_handler = SIG_DFL;
				sigemptyset(&dfl.sa_mask);
				if (sigaction(n, &dfl, NULL) != 0)
					return fail("sigaction SIG_DFL failed");
			} else if (signal(n, SIG_DFL) != on_any) {
				return fail("signal did not give the handler back");
			}
		}
		work_spin(secs);
		raise(n);
		return 98;
	}
	work_spin(secs);
	fflush(stdout);
	if (!strcmp(m, "_exit"))
		_exit(7);
	if (!strcmp(m, "_Exit"))
		_Exit(7);
	if (!strcmp(m, "quick_exit"))
		quick_exit(7);
	return fail("unknown mode");
}
