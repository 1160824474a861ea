/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * late_ticks.c — a thread clock's ticks held back, so that each stands for
 * many periods of CPU (coverage_late.sh).
 *
 *   late_ticks [SECONDS]
 *
 * main spins in free_spin for SECONDS / 4 of CPU (default 0.4 s in all),
 * then in held_spin for SECONDS / 2 with every signal blocked by the raw
 * rt_sigprocmask system call (past the C library, so past libmon's
 * interposition: what a program that masks signals itself does), then
 * unblocks them and spins in free_spin again for SECONDS / 4.  The CPU
 * clock's timer expires all through held_spin, but its signal waits: the
 * kernel keeps one, counting the expiries after it as its overrun, and
 * delivers it at the unblock, one tick standing for every period of
 * held_spin, charged where main then is.  Prints "held_spin S" and
 * "free_spin S", each function's CPU seconds.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "monrun_common.h"

DEFINE_SPIN(free_spin)
DEFINE_SPIN(held_spin)

int main(int argc, char **argv)
{
	double s = mr_seconds(argc > 1 ? argv[1] : NULL, 0.4);
	double f = free_spin(s / 4);
	unsigned long all = ~0ul, old = 0;	/* the kernel's sigset: 64 bits */
	if (syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, sizeof all) != 0) {
		perror("rt_sigprocmask");
		return 1;
	}
	double h = held_spin(s / 2);
	if (syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, sizeof old) != 0) {
		perror("rt_sigprocmask");
		return 1;
	}
	f += free_spin(s / 4);
	printf("held_spin %.6f\nfree_spin %.6f\n", h, f);
	return 0;
}
