/*
 * guest_maskexec.c — a program that blocks every signal, uses some CPU,
 * then execs a program (as a shell or a supervisor does with a mask the new
 * program must inherit): grep shows the new image's blocked set.
 *
 *   guest_maskexec [SECONDS]
 *
 * Spins SECONDS (default 0.1) of CPU with every signal blocked, then execs
 * "grep SigBlk /proc/self/status".  Profiled or not, the line must be the
 * same: the mask the program asked for, the profiler's signal included.
 */
#include <signal.h>
#include <unistd.h>

#include "monrun_common.h"

DEFINE_SPIN(blocked_spin)

int main(int argc, char **argv)
{
	double s = mr_seconds(argc > 1 ? argv[1] : NULL, 0.1);
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	blocked_spin(s);
	fflush(stdout);
	execl("/bin/grep", "grep", "SigBlk", "/proc/self/status", (char *)0);
	return 127;
}
