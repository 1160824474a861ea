/*
 * fatal.c — the profile is written also when the program dies of a signal,
 * and on demand while it runs.
 *
 * Fatal signals (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT — abort() —,
 * SIGTERM, SIGINT, SIGQUIT): when profiling starts, a handler is installed
 * for each one whose disposition is the default, and only those: a program
 * that handles or ignores a signal keeps it to itself (and a handler it
 * installs later simply replaces ours).  The handler writes the profile
 * (async-signal-safe writer), puts the default disposition back and raises
 * the signal again for the thread, so that the process ends exactly as it
 * would have: same signal, same core dump, same exit status for its parent.
 * A fault re-raised this way is delivered when the handler returns.
 *
 * Snapshots: MONPROF_SNAPSHOT names a signal (USR1, SIGUSR2, 12, RTMIN+3);
 * if its disposition is the default, receiving it writes the profile so far
 * and profiling goes on — for programs that never exit.
 *
 * _exit(2) and SIGKILL cannot be caught: nothing is written then.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "monrt.h"

static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE,
				     SIGABRT, SIGTERM, SIGINT, SIGQUIT };
static int snapshot_signo;

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
	(void)si;
	(void)uc;
	if (mon_started())
		mon_write_profile(MONOUT_WHY_SIGNAL, sig, MONOUT_F_SIGNAL, 1);
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
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
	if (mon_started())
		mon_write_profile(MONOUT_WHY_SNAPSHOT, sig, MONOUT_F_SNAPSHOT, 1);
	errno = saved_errno;
}

/* "USR2", "SIGUSR2", "12", "RTMIN+3" → signal number, 0 if not one. */
static int parse_signal(const char *s)
{
	static const struct {
		const char *name;
		int sig;
	} names[] = { { "USR1", SIGUSR1 }, { "USR2", SIGUSR2 }, { "HUP", SIGHUP },
		      { "WINCH", SIGWINCH }, { "URG", SIGURG }, { "PWR", SIGPWR },
		      { "CONT", SIGCONT }, { "TRAP", SIGTRAP } };
	if (s == NULL || *s == '\0')
		return 0;
	if (strncmp(s, "SIG", 3) == 0)
		s += 3;
	char *end;
	long v = strtol(s, &end, 10);
	if (end != s && *end == '\0')
		return v > 0 && v < NSIG && v != SIGKILL && v != SIGSTOP ? (int)v : 0;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(s, names[i].name) == 0)
			return names[i].sig;
	if (strncmp(s, "RTMIN", 5) == 0) {
		long k = s[5] == '\0' ? 0 : s[5] == '+' ? strtol(s + 6, &end, 10) : -1;
		if (k >= 0 && (s[5] == '\0' || *end == '\0') && SIGRTMIN + k <= SIGRTMAX)
			return SIGRTMIN + (int)k;
	}
	return 0;
}

static void install_if_default(int sig, void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction cur, sa;
	if (sigaction(sig, NULL, &cur) < 0)
		return;
	if ((cur.sa_flags & SA_SIGINFO) || cur.sa_handler != SIG_DFL)
		return;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

void mon_fatal_install(void)
{
	static int done;
	if (done)
		return;
	done = 1;
	int saved_errno = errno;
	snapshot_signo = parse_signal(getenv("MONPROF_SNAPSHOT"));
	for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
		if (fatal_signals[i] != snapshot_signo)
			install_if_default(fatal_signals[i], on_fatal);
	if (snapshot_signo)
		install_if_default(snapshot_signo, on_snapshot);
	errno = saved_errno;
}
