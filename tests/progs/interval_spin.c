/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * interval_spin.c — a long-running program for the interval and control
 * tests (tests/integ/monrun_interval.sh, monctl.sh, monrun_exitgroup.sh).
 *
 *   interval_spin MODE READY [SECONDS]
 *
 * Writes its pid to READY (whole, under a temporary name then renamed),
 * then, by MODE:
 *   forever    spins in work_spin until killed (a forgotten run ends by
 *              SIGALRM after 120 s)
 *   exitgroup  spins SECONDS of CPU (default 1), then ends with
 *              syscall(SYS_exit_group, 0): no atexit handler, no _exit
 *   asm        the same through the system call instruction itself (inline
 *              assembly: nothing of the C library's runs), as Go's runtime
 *              does
 *   exit       spins SECONDS of CPU, then returns 0 from main
 * It leaves every signal's disposition as it is.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "monrun_common.h"

DEFINE_SPIN(work_spin)

static void ready(const char *path)
{
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (f == NULL || fprintf(f, "%ld\n", (long)getpid()) < 0 || fclose(f) != 0 ||
	    rename(tmp, path) != 0) {
		perror(path);
		exit(1);
	}
}

static __attribute__((noreturn)) void exit_group_asm(int status)
{
#if defined(__x86_64__)
	__asm__ volatile("syscall" : : "a"(SYS_exit_group), "D"(status) : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = SYS_exit_group;
	register long x0 __asm__("x0") = status;
	__asm__ volatile("svc 0" : : "r"(x8), "r"(x0) : "memory");
#else
	syscall(SYS_exit_group, status);
#endif
	for (;;)
		;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: interval_spin forever|exitgroup|asm|exit|title READY [SECONDS]\n");
		return 2;
	}
	double secs = mr_seconds(argc > 3 ? argv[3] : NULL, 1.0);
	if (strcmp(argv[1], "title") == 0) {
		/* A process title written over argv[0]'s memory, as nginx and
		 * postgres write theirs: "t/" over the whole string, so the
		 * C library's program_invocation_short_name (which points into
		 * it) now reads a name with slashes in it. */
		size_t n = strlen(argv[0]);
		for (size_t i = 0; i < n; i++)
			argv[0][i] = i % 2 ? '/' : 't';
	}
	ready(argv[2]);
	if (strcmp(argv[1], "forever") == 0) {
		alarm(120);
		for (;;)
			work_spin(0.05);
	}
	work_spin(secs);
	if (strcmp(argv[1], "exitgroup") == 0)
		syscall(SYS_exit_group, 0);
	if (strcmp(argv[1], "asm") == 0)
		exit_group_asm(0);
	return 0;
}
