/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * monctl — control profiling in a running process: monctl PID on|off|snapshot|status
 *
 * The process must run under monrun(1) or be linked with libmon (cc -pg,
 * -finstrument-functions), and be the user's own.  monctl connects to the
 * control socket the runtime's control thread listens on (lib/control.c):
 * an AF_UNIX stream socket in the abstract namespace, unix(7), named
 * "\0monprof.PID"; it sends one command line and prints the reply.
 *
 * Before it connects, monctl says plainly what is wrong, in this order:
 * no such process (kill(PID, 0): ESRCH); a process of another user (the
 * owner of /proc/PID, or kill's EPERM); no control socket (connect(2)
 * refused: the process is not profiled by monprof, or was started without
 * --control, --dormant or --interval (MONPROF_CONTROL=1), or with
 * --no-control, or profiling ended).  The socket's
 * owner must be PID itself (SO_PEERCRED of the connection): a name taken
 * by another process is refused.  The runtime checks the caller's user
 * too.
 *
 * Exit status: 0 the command was done; 1 the process refused or failed it
 * (its reply says why); 2 usage; 3 the process cannot be controlled (the
 * reasons above).
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#ifndef MONPROF_VERSION
#define MONPROF_VERSION "unknown"
#endif

static const char usage_text[] =
	"usage: monctl PID on|off|snapshot|status\n"
	"  on        start sampling (also a process started with monrun --dormant)\n"
	"  off       stop sampling (the profile keeps what it has)\n"
	"  snapshot  write the profile now (with --interval: end the interval now)\n"
	"  status    whether and how the process is profiled\n"
	"See monctl(1).\n";

/* The program's name as /proc/PID/comm has it, or "?" (buf of n bytes). */
static const char *comm_of(long pid, char *buf, size_t n)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%ld/comm", pid);
	FILE *f = fopen(path, "r");
	if (f == NULL || fgets(buf, (int)n, f) == NULL) {
		if (f)
			fclose(f);
		snprintf(buf, n, "?");
		return buf;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* The state letter (R, S, D, Z, ...) in the stat file at path, or 0. */
static char state_at(const char *path)
{
	char buf[512];
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *p = strrchr(buf, ')');	/* after the name, which may hold anything */
	return p && p[1] == ' ' ? p[2] : 0;
}

/* 1 if the process has ended: every thread of it a zombie (Z) or dead (X).
 * Its main thread alone is a zombie too after pthread_exit(3) while the
 * others run (a reviewer's finding): the threads are asked one by one. */
static int ended(long pid)
{
	char path[96];
	snprintf(path, sizeof path, "/proc/%ld/task", pid);
	DIR *d = opendir(path);
	if (d == NULL) {
		snprintf(path, sizeof path, "/proc/%ld/stat", pid);
		char st = state_at(path);
		return st == 'Z' || st == 'X';
	}
	int threads = 0, live = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%ld/task/%.20s/stat", pid, e->d_name);
		char st = state_at(path);
		threads++;
		if (st != 'Z' && st != 'X' && st != 0)
			live++;
	}
	closedir(d);
	return threads > 0 && live == 0;
}

/* 1 if the maps file at path names libmon.so, 0 if not, -1 if it is
 * empty or cannot be read. */
static int maps_have_libmon(const char *path)
{
	char line[1024];
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return -1;
	int found = 0, lines = 0;
	while (!found && fgets(line, sizeof line, f)) {
		lines++;
		found = strstr(line, "/libmon.so") != NULL;
	}
	fclose(f);
	return found ? 1 : lines ? 0 : -1;
}

/* 1 if libmon.so is mapped in the process, 0 if not or unknown (a program
 * linked with libmon.a has it in its own file).  A process whose main
 * thread has ended (pthread_exit) has an empty /proc/PID/maps: a live
 * thread's is read then. */
static int has_libmon(long pid)
{
	char path[96];
	snprintf(path, sizeof path, "/proc/%ld/maps", pid);
	int r = maps_have_libmon(path);
	if (r >= 0)
		return r;
	snprintf(path, sizeof path, "/proc/%ld/task", pid);
	DIR *d = opendir(path);
	if (d == NULL)
		return 0;
	struct dirent *e;
	while (r < 0 && (e = readdir(d)) != NULL) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%ld/task/%.20s/maps", pid, e->d_name);
		r = maps_have_libmon(path);
	}
	closedir(d);
	return r > 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--version")) {
		printf("monctl (monprof) %s\n", MONPROF_VERSION);
		return 0;
	}
	if (argc != 3) {
		fputs(usage_text, stderr);
		return 2;
	}
	char *end;
	long pid = strtol(argv[1], &end, 10);
	if (*argv[1] == '\0' || *end != '\0' || pid <= 0 || pid > 0x3fffffff) {
		fprintf(stderr, "monctl: %s: not a process ID\n", argv[1]);
		return 2;
	}
	const char *cmd = argv[2];
	if (strcmp(cmd, "on") && strcmp(cmd, "off") && strcmp(cmd, "snapshot") &&
	    strcmp(cmd, "status")) {
		fprintf(stderr, "monctl: %s: unknown command (on, off, snapshot, status)\n", cmd);
		return 2;
	}
	char comm[64];
	if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
		fprintf(stderr, "monctl: %ld: no such process\n", pid);
		return 3;
	}
	char path[64];
	struct stat st;
	snprintf(path, sizeof path, "/proc/%ld", pid);
	uid_t me = getuid();
	if ((stat(path, &st) == 0 && st.st_uid != me && me != 0) ||
	    (kill((pid_t)pid, 0) != 0 && errno == EPERM)) {
		fprintf(stderr, "monctl: %ld (%s): the process belongs to another user; monctl "
			"controls only your own processes\n", pid, comm_of(pid, comm, sizeof comm));
		return 3;
	}
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		perror("monctl: socket");
		return 3;
	}
	struct sockaddr_un a;
	memset(&a, 0, sizeof a);
	a.sun_family = AF_UNIX;
	int n = snprintf(a.sun_path + 1, sizeof a.sun_path - 1, "monprof.%ld", pid);
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
	if (connect(fd, (struct sockaddr *)&a, len) != 0) {
		int e = errno;
		if ((e == ECONNREFUSED || e == ENOENT) && ended(pid))
			/* (its socket closed as it ended: the advice below is for a
			 * process that never had one) */
			fprintf(stderr, "monctl: %ld (%s): the process has ended (its parent has "
				"not yet collected it): nothing to control; a profiled process writes "
				"its profile as it ends\n", pid, comm_of(pid, comm, sizeof comm));
		else if ((e == ECONNREFUSED || e == ENOENT) && has_libmon(pid))
			fprintf(stderr, "monctl: %ld (%s): profiled by monprof, but without a control "
				"socket: it was started without one (monrun --control, --dormant or "
				"--interval start one; MONPROF_CONTROL=1 for a cc -pg or "
				"-finstrument-functions program linked with libmon; a program that "
				"calls monstartup() itself has none), or it is ending and closed it\n", pid,
				comm_of(pid, comm, sizeof comm));
		else if (e == ECONNREFUSED || e == ENOENT)
			fprintf(stderr, "monctl: %ld (%s): not profiled by monprof with a control "
				"socket: start it with monrun --control (or --dormant, --interval), or "
				"build it with cc -pg or -finstrument-functions linked with libmon (-lmon, "
				"or libmon.a) and set MONPROF_CONTROL=1 (a program that calls "
				"monstartup() itself has none)\n", pid,
				comm_of(pid, comm, sizeof comm));
		else
			fprintf(stderr, "monctl: %ld: cannot reach its control socket: %s\n", pid,
				strerror(e));
		return 3;
	}
	struct ucred cr;
	socklen_t crl = sizeof cr;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crl) != 0 || (long)cr.pid != pid) {
		fprintf(stderr, "monctl: %ld: its control socket's name is held by another process "
			"(%ld): refused\n", pid, (long)cr.pid);
		return 3;
	}
	char line[80];
	int ln = snprintf(line, sizeof line, "%s\n", cmd);
	if (send(fd, line, (size_t)ln, MSG_NOSIGNAL) != ln) {
		fprintf(stderr, "monctl: %ld: cannot send the command: %s\n", pid, strerror(errno));
		return 3;
	}
	/* The reply, until the process closes the connection (a snapshot may
	 * take as long as writing the profile: wait up to 30 s). */
	char buf[4096];
	size_t got = 0;
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		int k = poll(&p, 1, 30000);
		if (k <= 0) {
			fprintf(stderr, "monctl: %ld: no reply within 30 s\n", pid);
			return 3;
		}
		ssize_t r = recv(fd, buf + got, sizeof buf - 1 - got, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || got + (size_t)r >= sizeof buf - 1) {
			if (r > 0)
				got += (size_t)r;
			break;
		}
		got += (size_t)r;
	}
	close(fd);
	buf[got] = '\0';
	if (got == 0) {
		fprintf(stderr, "monctl: %ld: the process closed the connection without a reply\n",
			pid);
		return 3;
	}
	if (strncmp(buf, "ok", 2) == 0) {
		/* "ok\n..." (status): the lines after it; "ok: ..." as it is. */
		fputs(buf[2] == '\n' ? buf + 3 : buf, stdout);
		return 0;
	}
	fprintf(stderr, "monctl: %ld: %s", pid, strncmp(buf, "error: ", 7) == 0 ? buf + 7 : buf);
	return 1;
}
