/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest_reset.c — resetting every signal to its default action, as spawn
 * helpers and daemons do, in fork children before exec and in the process
 * itself; then going on using the CPU.
 *
 *   guest_reset [SECONDS]
 *
 * The parent spins SECONDS/4 (default 0.4) in before_reset.  Five fork
 * children each reset every signal to SIG_DFL, unblock all, close every
 * descriptor above 2 by hand, spin SECONDS/20 of CPU in child_spin (ticks
 * arrive after the reset) and exec /bin/true; each must exit 0.  Then the
 * parent resets every signal itself and spins SECONDS/2 in after_reset.
 * Prints "NAME CPU" for the parent's functions and "children_failed N".
 */
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "monrun_common.h"

DEFINE_SPIN(before_reset)
DEFINE_SPIN(child_spin)
DEFINE_SPIN(after_reset)

static void reset_all(void)
{
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			signal(s, SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

int main(int argc, char **argv)
{
	double total = mr_seconds(argc > 1 ? argv[1] : NULL, 0.4);
	double b = before_reset(total / 4);
	int bad = 0;
	for (int k = 0; k < 5; k++) {
		fflush(stdout);
		pid_t p = fork();
		if (p == 0) {
			reset_all();
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
	reset_all();
	double a = after_reset(total / 2);
	printf("before_reset %.6f\nafter_reset %.6f\nchildren_failed %d\n", b, a, bad);
	return bad != 0;
}
