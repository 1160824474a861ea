/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * profil_exec.c — the shared case exec-after-profiling.c, with profil()
 * over the program's text instead of -pg (build with -DUSE_PG and -pg to
 * get the original, which relies on the monitor layer's mcount).
 *
 * The program uses 0.2 s of CPU with profiling on, then replaces itself
 * with a shell that counts for a while (long enough for many ticks of any
 * profiling clock left behind) and prints "child-finished".  The new
 * program must run to its end and exit 0: a profiling timer or a pending
 * tick that outlived the exec would kill it (the default action of SIGPROF
 * and of SIGRTMAX-6 is to terminate).
 *
 * argv[1] names the exec function: execl, execlp, execle, execv, execvp,
 * execvpe, execve, fexecve; "system" runs the shell through system(3)
 * instead (posix_spawn inside the C library) and exits with its status;
 * "fail" calls execl and execvp on paths that do not exist and checks that
 * profiling is still on and still counting afterwards.
 */
#define _GNU_SOURCE 1 /* execvpe */
#include <fcntl.h>
#include <sys/wait.h>

#include "profil_common.h"

PROFIL_SINK_DEFINE;
DEFINE_SPIN(work_fn)

extern char __executable_start[], etext[];
extern char **environ;

static const char script[] =
	"i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done; echo child-finished";

static unsigned short *hist;

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "execl";
#ifndef USE_PG
	/* profil() over the whole text, 4 bytes per bin */
	uintptr_t lo = (uintptr_t)__executable_start, hi = (uintptr_t)etext;
	if (PTEXT_HI(work_fn) > hi)
		hi = PTEXT_HI(work_fn);
	size_t bytes = ((hi - lo) / 4 + 1) * 2;
	hist = calloc(1, bytes);
	CHECK(hist != NULL, "calloc");
	profil_on(hist, bytes, lo, 0x8000);
#endif
	double cpu = work_fn(0.2);
	struct mon_stats st = stats_now();
	int clock = st.clock;
	double lb = ticks_lower_bound(clock, st.rate_hz, cpu);
#ifdef USE_PG
	CHECK(st.clock != MON_CLOCK_NONE && st.samples > 0, "-pg: no profiling clock running");
#else
	CHECK(st.on == 1, "profiling not on");
#endif
	fflush(stdout);

	char *const args[] = { "sh", "-c", (char *)script, NULL };
	if (strcmp(how, "execl") == 0)
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
	else if (strcmp(how, "execlp") == 0)
		execlp("sh", "sh", "-c", script, (char *)NULL);
	else if (strcmp(how, "execle") == 0)
		execle("/bin/sh", "sh", "-c", script, (char *)NULL, environ);
	else if (strcmp(how, "execv") == 0)
		execv("/bin/sh", args);
	else if (strcmp(how, "execvp") == 0)
		execvp("sh", args);
	else if (strcmp(how, "execvpe") == 0)
		execvpe("sh", args, environ);
	else if (strcmp(how, "execve") == 0)
		execve("/bin/sh", args, environ);
	else if (strcmp(how, "fexecve") == 0) {
		int fd = open("/bin/sh", O_RDONLY | O_CLOEXEC);
		CHECK(fd >= 0, "open /bin/sh: %s", strerror(errno));
		fexecve(fd, args, environ);
	} else if (strcmp(how, "system") == 0) {
		int status = system(script);
		CHECK(status != -1 && WIFEXITED(status), "system: status %#x", status);
		return WEXITSTATUS(status);
	} else if (strcmp(how, "fail") == 0) {
		CHECK(stats_now().samples >= lb, "too few ticks before the exec");
		errno = 0;
		CHECK(execl("/nonexistent/monprof-test", "x", (char *)NULL) == -1 && errno == ENOENT,
		      "execl of a missing path: errno %d", errno);
		errno = 0;
		CHECK(execvp("monprof-no-such-command", args) == -1 && errno == ENOENT,
		      "execvp of a missing command: errno %d", errno);
		st = stats_now();
		CHECK(st.on == 1 && st.clock == clock, "after a failed exec: on %d, clock %s",
		      st.on, mon_clock_name(st.clock));
		uint64_t before = st.samples;
		cpu = work_fn(0.2);
		st = stats_now();
		CHECK(st.samples - before >= ticks_lower_bound(clock, st.rate_hz, cpu),
		      "after a failed exec: %llu ticks in %.3f s", (unsigned long long)(st.samples - before),
		      cpu);
		printf("exec failed; profiling on (%s), %llu ticks since\n", mon_clock_name(clock),
		       (unsigned long long)(st.samples - before));
		return 0;
	} else {
		fprintf(stderr, "unknown exec function %s\n", how);
		return 2;
	}
	perror(how);
	return 1;
}
