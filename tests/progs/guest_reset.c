/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest_reset.c — resetting every signal to its default action, as spawn
 * helpers and daemons do, in fork children before exec and in the process
 * itself; then going on using the CPU.
 *
 *   guest_reset [SECONDS [M]]
 *
 * A round: the parent spins SECONDS/4 (default 0.4) in before_reset.  Five
 * fork children each reset every signal to SIG_DFL, unblock all, close
 * every descriptor above 2 by hand, spin SECONDS/20 of CPU in child_spin
 * (ticks arrive after the reset) and exec /bin/true; each must exit 0.
 * Then the parent resets every signal itself (the probe's excepted) and
 * spins SECONDS/2 in after_reset.  One round; with M > 0, rounds until the
 * probe (cputimer_probe.h: the parent's CPU-time timer, which counts the
 * independent samples a CPU-time clock gives here) has M, at most 40.
 * Prints "NAME CPU" for the parent's functions (summed over the rounds),
 * "children_failed N" and the probe's counts (probe_print).
 */
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cputimer_probe.h"
#include "monrun_common.h"

DEFINE_SPIN(before_reset)
DEFINE_SPIN(child_spin)
DEFINE_SPIN(after_reset)

/* Reset every signal's action to SIG_DFL but KEEP's (0: none) and unblock
 * every signal. */
static void reset_all(int keep)
{
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP && s != keep)
			signal(s, SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* One round (top of this file), TOTAL CPU-s; adds the CPU before_reset
 * and after_reset used to *B and *A; returns the number of children that
 * did not exit 0. */
static int reset_round(double total, double *b, double *a)
{
	int bad = 0;
	*b += before_reset(total / 4);
	for (int k = 0; k < 5; k++) {
		fflush(stdout);
		pid_t p = fork();
		if (p == 0) {
			reset_all(0);
			struct rlimit rl;
			getrlimit(RLIMIT_NOFILE, &rl);
			for (long fd = 3; fd < (long)rl.rlim_cur && fd < 100000; fd++)
				close((int)fd);
			child_spin(total / 20);
			execl("/bin/true", "true", (char *)0);
			_exit(127);
		}
		int st;
		waitpid(p, &st, 0);
		if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
			bad++;
			if (WIFSIGNALED(st))
				fprintf(stderr, "child %d killed by signal %d\n", k, WTERMSIG(st));
			else
				fprintf(stderr, "child %d exit %d\n", k, WEXITSTATUS(st));
		}
	}
	reset_all(PROBE_SIGNAL);
	*a += after_reset(total / 2);
	return bad;
}

int main(int argc, char **argv)
{
	double total = mr_seconds(argc > 1 ? argv[1] : NULL, 0.4);
	double m = argc > 2 ? atof(argv[2]) : 0;
	double b = 0, a = 0;
	int bad = 0, r;
	probe_start();
	for (r = 0; r < 1 || (probe_neff() < m && r < 40); r++)
		bad += reset_round(total, &b, &a);
	printf("before_reset %.6f\nafter_reset %.6f\nchildren_failed %d\n", b, a, bad);
	probe_print(r);
	return bad != 0;
}
