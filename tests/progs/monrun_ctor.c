/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * monrun_ctor.c — CPU spent before main: in a library's constructor
 * (libmonrun_ctor.so, monrun_ctor_lib.c: CTOR_SECONDS), and in this
 * program's own .preinit_array, which ld.so runs before any library's
 * initialization, and so before any profiler can start.
 *
 *   monrun_ctor [MAIN_SECONDS [PLUGIN]]
 *
 * Environment: CTOR_SECONDS, the library constructor's CPU (CTOR_EXIT=N:
 * it then exits with N); EXEC_AGAIN=S: after the report, the program execs
 * itself with MAIN_SECONDS S (and no EXEC_AGAIN); PREINIT_SECONDS,
 * the CPU of preinit_spin (user time) and as much again of preinit_sys
 * (raw reads of /dev/zero: system time), both in the .preinit_array function.
 * Burns MAIN_SECONDS (default 0.3) in main_spin, then dlopens PLUGIN if
 * given (the library built again as a plugin, whose constructor burns
 * PLUGIN_SECONDS in plugin_spin), then prints "NAME SECONDS" for
 * main_spin, ctor_spin, preinit_spin, preinit_sys and plugin_spin: the CPU
 * each used, as its thread's CPU clock measured it; and preinit_ru_user,
 * preinit_ru_sys: the process's user and system CPU at the end of the
 * .preinit_array function, as getrusage(2) gives them (0 without it).
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "monrun_common.h"

double ctor_used(void);
DEFINE_SPIN(main_spin)
DEFINE_SPIN(preinit_spin)

static double pre_user, pre_sys;
/* The process's user and system CPU when the .preinit_array function ends,
 * as the kernel gives it (getrusage(2)): the runtime's own reading of the
 * CPU before it started, a moment later.  Its split of the phase into user
 * and system time is the kernel's estimate (tick-sampled and scaled to the
 * phase's runtime): on a loaded machine it gave 0.21 s of user time for
 * 0.30 s of preinit_spin. */
static double pre_ru_user, pre_ru_sys;

/* System time alone: raw read(2)s of 4 MiB from /dev/zero, the kernel
 * clearing the buffer (a loop of cheap system calls is also user time, and
 * the kernel's split of a phase into user and system time, an estimate at
 * its tick, moved a tenth of a second between them under ASan). */
__attribute__((noinline)) static double preinit_sys(double seconds)
{
	static char buf[4 << 20];
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/dev/zero", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	double start = mr_thread_cpu(), now;
	do {
		(void)syscall(SYS_read, fd, buf, sizeof buf);
		now = mr_thread_cpu();
	} while (now - start < seconds);
	syscall(SYS_close, fd);
	return now - start;
}

static void preinit(int argc, char **argv, char **envp)
{
	(void)argc;
	(void)argv;
	for (char **e = envp; *e != NULL; e++)
		if (strncmp(*e, "PREINIT_SECONDS=", 16) == 0) {
			double s = mr_seconds(*e + 16, 0);
			pre_user = preinit_spin(s);
			pre_sys = preinit_sys(s);
			struct rusage ru;
			if (syscall(SYS_getrusage, RUSAGE_SELF, &ru) == 0) {
				pre_ru_user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
				pre_ru_sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
			}
		}
}

__attribute__((section(".preinit_array"), used)) static void (*const preinit_entry)(int, char **,
										     char **) = preinit;

int main(int argc, char **argv)
{
	double m = mr_seconds(argc > 1 ? argv[1] : NULL, 0.3);
	double used = main_spin(m), plugin = 0;
	if (argc > 2) {
		void *h = dlopen(argv[2], RTLD_NOW);
		double (*plugin_used)(void) = h ? (double (*)(void))dlsym(h, "plugin_used") : NULL;
		if (plugin_used == NULL) {
			fprintf(stderr, "monrun_ctor: %s\n", dlerror());
			return 1;
		}
		plugin = plugin_used();
	}
	printf("main_spin %.6f\nctor_spin %.6f\npreinit_spin %.6f\npreinit_sys %.6f\n"
	       "plugin_spin %.6f\npreinit_ru_user %.6f\npreinit_ru_sys %.6f\n", used, ctor_used(),
	       pre_user, pre_sys, plugin, pre_ru_user, pre_ru_sys);
	char *again = getenv("EXEC_AGAIN");
	if (again != NULL) {
		char s[32];
		snprintf(s, sizeof s, "%s", again);
		unsetenv("EXEC_AGAIN");
		fflush(stdout);
		execl("/proc/self/exe", argv[0], s, (char *)NULL);
		perror("execl");
		return 1;
	}
	return 0;
}
