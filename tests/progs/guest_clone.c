/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest_clone.c — a program that makes a child process with the raw clone
 * or clone3 system call (through syscall(3), not the C library's fork: no
 * pthread_atfork handler runs).
 *
 *   guest_clone clone | clone3 | asm [M]
 *
 * Spins 0.1 CPU-s in before_clone (with M > 0, in steps of 0.1 CPU-s until
 * the probe, cputimer_probe.h, has M/2 independent samples, at most 40
 * steps); makes the child (asm: the clone system
 * call made by an instruction of the program's own, not through
 * syscall(3); x86-64 only, else as clone), which starts a probe of its
 * own (probe_restart_in_child) and spins 0.1 CPU-s in child_spin (with
 * M > 0, in steps of 0.1 CPU-s until its probe has M, at most 40 steps)
 * and ends with exit(0) (the atexit path); waits for it, then
 * spins twice before_clone's CPU in after_clone (with M > 0, in steps of
 * 0.1 CPU-s, and on until the probe has M, at most 80 steps).  Prints "before_clone CPU",
 * "after_clone CPU" and the probe's counts (the parent: probe_print) and
 * "child_spin CPU", "child_cpu CPU" (the child's process CPU time
 * before it exits) and "child_probe_neff N" (the child); exits 0 when the
 * child exited 0.
 */
#define _GNU_SOURCE
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cputimer_probe.h"
#include "monrun_common.h"

DEFINE_SPIN(before_clone)
DEFINE_SPIN(child_spin)
DEFINE_SPIN(after_clone)

static long clone_asm(void)
{
#if defined(__x86_64__)
	long ret;
	register long r10 __asm__("r10") = 0;
	register long r8 __asm__("r8") = 0;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"((long)SYS_clone), "D"((long)SIGCHLD), "S"(0L), "d"(0L), "r"(r10),
			   "r"(r8)
			 : "rcx", "r11", "memory");
	return ret;
#else
	return syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
#endif
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	double m = argc > 2 ? atof(argv[2]) : 0, b = 0;
	int r;
	probe_start();
	for (r = 0; r < 1 || (probe_neff() < m / 2 && r < 40); r++)
		b += before_clone(0.1);
	printf("before_clone %.6f\n", b);
	fflush(stdout);
	long pid;
	if (strcmp(argv[1], "clone3") == 0) {
		struct clone_args ca;
		memset(&ca, 0, sizeof ca);
		ca.exit_signal = SIGCHLD;
		pid = syscall(SYS_clone3, &ca, sizeof ca);
	} else if (strcmp(argv[1], "asm") == 0) {
		pid = clone_asm();
	} else {
		pid = syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
	}
	if (pid < 0) {
		perror(argv[1]);
		return 1;
	}
	if (pid == 0) {
		probe_restart_in_child();
		double k = 0;
		for (int s = 0; s < 1 || (probe_neff() < m && s < 40); s++)
			k += child_spin(0.1);
		struct timespec ts;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
		printf("child_spin %.6f\nchild_cpu %.6f\nchild_probe_neff %.1f\n"
		       "child_probe_periods %.0f\nchild_probe_wmax %.0f\n", k,
		       (double)ts.tv_sec + (double)ts.tv_nsec / 1e9, probe_neff(),
		       probe_counts()->w, probe_counts()->wmax);
		exit(0);
	}
	int st;
	if (waitpid((pid_t)pid, &st, 0) != (pid_t)pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "guest_clone: child failed (status %#x)\n", st);
		return 1;
	}
	double a = 0;
	for (int s = 0; s < 1 || (s < 80 && (a < 2 * b || probe_neff() < m)); s++)
		a += after_clone(m > 0 ? 0.1 : 2 * b);
	printf("after_clone %.6f\n", a);
	probe_print(r);
	return 0;
}
