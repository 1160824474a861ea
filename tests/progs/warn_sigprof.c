/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * warn_sigprof.c — a program that installs its own SIGPROF handler (as GNU
 * sort does), then spins about SECONDS (default 0.2) of CPU in spin_after.
 * Under the itimer clock the clock stops at the sigaction (profil(3)): prof
 * must say why its profile is empty, not that the program was too short.
 *
 *   warn_sigprof [SECONDS]
 */
#include <signal.h>
#include <string.h>

#include "monrun_common.h"

DEFINE_SPIN(spin_after)

static void on_prof(int sig)
{
	(void)sig;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_prof;
	sigaction(SIGPROF, &sa, NULL);
	spin_after(mr_seconds(argc > 1 ? argv[1] : NULL, 0.2));
	return 0;
}
