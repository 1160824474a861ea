/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * treecpu.c — run a command and report the CPU of its whole process tree
 * from the kernel's accounting, for bench/servers.sh: a server (nginx's
 * master and workers, postgres's postmaster and backends, perf record and
 * the server it runs) is started as this program's child and, when it has
 * exited, getrusage(2) RUSAGE_CHILDREN gives the user and system CPU of
 * every descendant that was waited for.  A process's own times include
 * those of its children it reaped (getrusage(2): "the resources used by all
 * children ... that have terminated and been waited for"), so a server that
 * reaps its workers brings their CPU up to its parent; this program also
 * makes itself a child subreaper (prctl(2) PR_SET_CHILD_SUBREAPER), so a
 * descendant orphaned on the way is reparented here, waited for here and
 * counted too.  It waits until no child is left (wait(2) fails ECHILD).
 *   treecpu OUT CMD [ARG...]
 * writes "user_s sys_s wall_s nvcsw nivcsw" to OUT (seconds, microsecond
 * resolution; wall from fork to the last child's exit on CLOCK_MONOTONIC;
 * then the tree's voluntary and involuntary context switches, also from
 * getrusage(2)).  SIGTERM and
 * SIGINT sent to treecpu are passed on to the command.  Exit status: the
 * command's (128 + signal when a signal ended it), 1 on an error here.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t child;

static void pass_on(int sig)
{
	if (child > 0)
		kill(child, sig);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	struct rusage ru;
	double t0, t1;
	int status, st = 0;
	pid_t pid, w;
	FILE *out;

	if (argc < 3) {
		fputs("usage: treecpu OUT CMD [ARG...]\n", stderr);
		return 2;
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
		perror("treecpu: PR_SET_CHILD_SUBREAPER");
		return 1;
	}
	t0 = now();
	pid = fork();
	if (pid < 0) {
		perror("treecpu: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "treecpu: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	child = pid;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = pass_on;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	for (;;) {
		w = wait(&status);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ECHILD)
				break;
			perror("treecpu: wait");
			return 1;
		}
		if (w == pid)
			st = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	}
	t1 = now();
	if (getrusage(RUSAGE_CHILDREN, &ru) != 0) {
		perror("treecpu: getrusage");
		return 1;
	}
	out = fopen(argv[1], "w");
	if (!out) {
		fprintf(stderr, "treecpu: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	fprintf(out, "%.6f %.6f %.6f %ld %ld\n", ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
		ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, t1 - t0, ru.ru_nvcsw, ru.ru_nivcsw);
	if (fclose(out) != 0) {
		fprintf(stderr, "treecpu: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	return st;
}
