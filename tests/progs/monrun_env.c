/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * monrun_env.c — a program that looks at its own environment and runs other
 * programs, for monrun's promises that the program sees the environment it
 * was given and that what it executes is not profiled.
 *
 *   monrun_env OUTDIR [SECONDS [exec]]
 *
 * Burns SECONDS (default 0.3) of CPU in work_spin, then
 *   - writes its own environment to OUTDIR/self.env (one VAR=value a line);
 *   - runs "env > OUTDIR/system.env; exit 0" with system(3);
 *   - forks and, in the child, execs /bin/sh -c "env > OUTDIR/exec.env;
 *     exit 0" (fork + exec, not posix_spawn);
 * and prints "pid PID" and "work_spin S" (its CPU seconds in work_spin).
 * With "exec" it then replaces itself (same pid, no fork) with /bin/sh -c
 * "env > OUTDIR/final.env; exit 0".  Exit 1 if a child fails.
 */
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "monrun_common.h"

extern char **environ;

DEFINE_SPIN(work_spin)

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: monrun_env OUTDIR [SECONDS]\n");
		return 2;
	}
	const char *dir = argv[1];
	double used = work_spin(mr_seconds(argc > 2 ? argv[2] : NULL, 0.3));
	char path[4096], cmd[4200];
	snprintf(path, sizeof path, "%s/self.env", dir);
	FILE *f = fopen(path, "w");
	if (f == NULL) {
		perror(path);
		return 1;
	}
	for (char **e = environ; *e; e++)
		fprintf(f, "%s\n", *e);
	fclose(f);

	snprintf(cmd, sizeof cmd, "env > '%s/system.env'; exit 0", dir);
	int st = system(cmd);
	if (st != 0) {
		fprintf(stderr, "system: status 0x%x\n", st);
		return 1;
	}
	snprintf(cmd, sizeof cmd, "env > '%s/exec.env'; exit 0", dir);
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid || st != 0) {
		fprintf(stderr, "sh -c: status 0x%x\n", st);
		return 1;
	}
	printf("pid %ld\nwork_spin %.6f\n", (long)getpid(), used);
	if (argc > 3 && strcmp(argv[3], "exec") == 0) {
		snprintf(cmd, sizeof cmd, "env > '%s/final.env'; exit 0", dir);
		fflush(stdout);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		perror("/bin/sh");
		return 1;
	}
	return 0;
}
