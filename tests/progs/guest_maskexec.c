/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest_maskexec.c — a program that blocks every signal, uses some CPU,
 * then execs (as a shell or a supervisor does with a mask the new program
 * must inherit); the new image says which signals it finds blocked.
 *
 *   guest_maskexec [SECONDS]   spins SECONDS (default 0.1) of CPU with every
 *                              signal blocked, then execs itself with
 *   guest_maskexec report      prints "blocked" and one digit per signal
 *                              1..SIGRTMAX, 1 if sigprocmask reports it
 *                              blocked
 * Profiled or not (and whether or not the new image is profiled too), the
 * line must be the same: the mask the program asked for, the profiler's
 * signal included.
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "monrun_common.h"

DEFINE_SPIN(blocked_spin)

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "report") == 0) {
		sigset_t cur;
		sigprocmask(SIG_BLOCK, NULL, &cur);
		printf("blocked ");
		for (int s = 1; s <= SIGRTMAX; s++)
			putchar(sigismember(&cur, s) == 1 ? '1' : '0');
		putchar('\n');
		return 0;
	}
	double s = mr_seconds(argc > 1 ? argv[1] : NULL, 0.1);
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	blocked_spin(s);
	fflush(stdout);
	execl("/proc/self/exe", argv[0], "report", (char *)0);
	return 127;
}
