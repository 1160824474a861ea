/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * monrun_execs.c — a program that replaces itself, or its children, by
 * exec(2), for monrun's promise that exec is followed.
 *
 *   monrun_execs work SECONDS           burns SECONDS of CPU in real_work,
 *                                       prints "real_work S", exits 0
 *   monrun_execs then SECONDS PROG ARGS...   burns SECONDS in before_exec_work,
 *                                       then execv(PROG, [PROG, ARGS...])
 *   monrun_execs fail SECONDS           burns SECONDS in before_exec_work,
 *                                       execv of a file that does not exist
 *                                       (fails: ENOENT), then SECONDS in
 *                                       real_work; exits 0
 *   monrun_execs vfork PROG ARGS...     vfork(2) + execv(PROG, ...) in the
 *                                       child, waits; exits with its status
 *   monrun_execs spawn PROG ARGS...     the same with posix_spawn(3)
 *
 * It is an ordinary program, not linked with libmon.
 */
#include <errno.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "monrun_common.h"

extern char **environ;

DEFINE_SPIN(real_work)
DEFINE_SPIN(before_exec_work)

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: monrun_execs work|then|fail|vfork ...\n");
		return 2;
	}
	const char *m = argv[1];
	if (!strcmp(m, "work")) {
		printf("real_work %.6f\n", real_work(mr_seconds(argv[2], 0.3)));
		return 0;
	}
	if (!strcmp(m, "then") && argc > 3) {
		before_exec_work(mr_seconds(argv[2], 0.3));
		fflush(stdout);
		execv(argv[3], argv + 3);
		perror(argv[3]);
		return 127;
	}
	if (!strcmp(m, "fail")) {
		double s = mr_seconds(argv[2], 0.3);
		before_exec_work(s);
		char *args[] = { "/nonexistent/monrun-execs", NULL };
		if (execv(args[0], args) == 0 || errno != ENOENT) {
			perror("execv did not fail with ENOENT");
			return 1;
		}
		printf("real_work %.6f\n", real_work(s));
		return 0;
	}
	if (!strcmp(m, "vfork")) {
		fflush(stdout);
		pid_t p = vfork();
		if (p < 0) {
			perror("vfork");
			return 1;
		}
		if (p == 0) {
			execv(argv[2], argv + 2);
			_exit(127);
		}
		int st;
		if (waitpid(p, &st, 0) != p)
			return 1;
		return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
	}
	if (!strcmp(m, "spawn")) {
		fflush(stdout);
		pid_t p;
		int e = posix_spawn(&p, argv[2], NULL, NULL, argv + 2, environ);
		if (e != 0) {
			fprintf(stderr, "posix_spawn: %s\n", strerror(e));
			return 1;
		}
		int st;
		if (waitpid(p, &st, 0) != p)
			return 1;
		return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
	}
	fprintf(stderr, "monrun_execs: unknown mode %s\n", m);
	return 2;
}
