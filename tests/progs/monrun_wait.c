/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * monrun_wait.c — runs a command and says how it ended, as its parent sees
 * it (the shell's $? cannot tell "exit 134" from "killed by SIGABRT").
 *
 *   monrun_wait command [args...]
 *
 * Prints one line on standard output: "exited N" or "killed SIGNUM", and
 * "core" after it if the child dumped core.  Core dumps are turned off for
 * the child (RLIMIT_CORE 0).  Exits 0 once it has printed the line, 1 if
 * the command could not be started.
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: monrun_wait command [args...]\n");
		return 2;
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		struct rlimit no_core = { 0, 0 };
		setrlimit(RLIMIT_CORE, &no_core);
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	int status;
	if (waitpid(pid, &status, 0) != pid) {
		perror("waitpid");
		return 1;
	}
	if (WIFEXITED(status))
		printf("exited %d\n", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		printf("killed %d%s\n", WTERMSIG(status), WCOREDUMP(status) ? " core" : "");
	else
		printf("status 0x%x\n", status);
	return 0;
}
