/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * monrun_midwrite.c — sends a signal to a program at the moment it is
 * writing its profile, deterministically: it runs the command under
 * ptrace(2), stops it when an openat(2) of a file whose name holds ".tmp."
 * (the writer's temporary file, lib/monfile.c) returns, queues the signal,
 * lets it go and says how it ended, as monrun_wait does.
 *
 *   monrun_midwrite SIGNUM command [args...]
 *
 * Prints "exited N" or "killed SIGNUM" and "sent" if the signal was sent
 * (a temporary file was opened).  Exits 0, or 77 when ptrace is not
 * allowed here (a test then skips), 1 on other errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

/* The path argument of openat at its entry, from the tracee's memory. */
static int read_path(pid_t pid, unsigned long addr, char *buf, size_t len)
{
	struct iovec local = { buf, len - 1 }, remote = { (void *)addr, len - 1 };
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: monrun_midwrite SIGNUM command [args...]\n");
		return 2;
	}
	int sig = atoi(argv[1]);
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		struct rlimit no_core = { 0, 0 };
		setrlimit(RLIMIT_CORE, &no_core);
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0)
			_exit(77);
		raise(SIGSTOP);
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	int st;
	if (waitpid(pid, &st, 0) != pid)
		return 1;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 77) {
		printf("SKIP ptrace not allowed\n");
		return 77;
	}
	ptrace(PTRACE_SETOPTIONS, pid, NULL,
	       (void *)(long)(PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL | PTRACE_O_TRACEEXEC));
	int sent = 0, in_tmp_open = 0, deliver = 0;
	for (;;) {
		if (ptrace(sent ? PTRACE_CONT : PTRACE_SYSCALL, pid, NULL, (void *)(long)deliver) != 0)
			break;
		deliver = 0;
		if (waitpid(pid, &st, 0) != pid)
			return 1;
		if (WIFEXITED(st) || WIFSIGNALED(st))
			break;
		if (!WIFSTOPPED(st))
			continue;
		int s = WSTOPSIG(st);
		if (s == (SIGTRAP | 0x80)) {
			struct __ptrace_syscall_info si;
			if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, (void *)sizeof si, &si) <= 0)
				continue;
			if (si.op == PTRACE_SYSCALL_INFO_ENTRY && si.entry.nr == SYS_openat) {
				char path[4096];
				in_tmp_open = read_path(pid, (unsigned long)si.entry.args[1], path,
							sizeof path) == 0 && strstr(path, ".tmp.") != NULL;
			} else if (si.op == PTRACE_SYSCALL_INFO_EXIT && in_tmp_open) {
				/* The temporary file is open: the write is under way. */
				kill(pid, sig);
				sent = 1;
				in_tmp_open = 0;
			}
			continue;
		}
		if (s == SIGTRAP && (st >> 16) == PTRACE_EVENT_EXEC)
			continue;
		deliver = s;	/* the program's own signals go on to it */
	}
	if (WIFEXITED(st))
		printf("exited %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		printf("killed %d", WTERMSIG(st));
	printf("%s\n", sent ? " sent" : "");
	return 0;
}
