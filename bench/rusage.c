/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rusage.c — run a command and print what it cost, precisely: user and
 * system CPU seconds from wait4(2)'s resource usage (microseconds, where
 * /usr/bin/time rounds to 10 ms), and the CLOCK_MONOTONIC instant at which
 * the command had exited.  bench/textsize.sh subtracts bench/bigtext.c's
 * end-of-main stamp from these to get the CPU and wall time spent after
 * main returned: the profiler writing its file.
 *   rusage CMD [ARG...]     prints "user_s sys_s exit_monotonic_s" on stderr
 * The command's own output is left alone; exit status 0 when the command
 * exited 0, else 1.
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	struct timespec ts;
	int status;
	pid_t pid;

	if (argc < 2) {
		fputs("usage: rusage CMD [ARG...]\n", stderr);
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("rusage: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		perror("rusage: exec");
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("rusage: wait4");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	fprintf(stderr, "%.6f %.6f %.6f\n", ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
		ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, ts.tv_sec + ts.tv_nsec / 1e9);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
