/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * handler_before.c — a signal handler installed while no profiling clock
 * runs, with every signal in its mask, then profiled (guest_handlers.sh).
 *
 * Linked with libmon, run under monrun: main switches profiling off
 * (moncontrol(0): the clock stops and gives its signals back), installs a
 * SIGUSR1 handler that spins in usr1_spin (0.02 CPU-s a signal) with
 * sigfillset's mask, switches profiling on again, then N times (default
 * 10) spins 0.01 CPU-s in main_spin and raises SIGUSR1.  sigaction must
 * report the handler's mask whole (every signal but SIGKILL, SIGSTOP and
 * the C library's own) while off, on, and at the end.  Prints "NAME CPU"
 * for each spin function; exits 1 when a check fails.
 */
#include <signal.h>
#include <string.h>

#include "full_mask.h"
#include "mon.h"
#include "monrun_common.h"

DEFINE_SPIN(usr1_spin)
DEFINE_SPIN(main_spin)

static volatile double cpu_usr1;

static void on_usr1(int sig)
{
	(void)sig;
	cpu_usr1 += usr1_spin(0.02);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	moncontrol(0);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sigfillset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGUSR1, &sa, NULL) != 0) {
		perror("sigaction");
		return 1;
	}
	full_mask_seen(SIGUSR1, "installed while off");
	moncontrol(1);
	full_mask_seen(SIGUSR1, "profiling on");
	double cpu_main = 0;
	for (int i = 0; i < n; i++) {
		cpu_main += main_spin(0.01);
		raise(SIGUSR1);
	}
	full_mask_seen(SIGUSR1, "after the run");
	printf("usr1_spin %.6f\nmain_spin %.6f\n", cpu_usr1, cpu_main);
	return 0;
}
