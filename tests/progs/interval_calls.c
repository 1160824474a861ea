/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * interval_calls.c — a program that counts its own calls, for the interval
 * call-count tests (tests/integ/interval_calls.sh).  Built with -pg (or
 * -finstrument-functions), not linked with libmon: monrun preloads it.
 *
 *   interval_calls MODE READY COUNTS SECONDS
 *
 * COUNTS is a file of two u64 words (native byte order), mapped shared:
 * word 0 counts the calls of counted() made by the process that started,
 * word 1 those made by its fork child (mode fork).  Each call of counted()
 * adds one to its process's word, in the page cache, so the count is
 * exact even after kill -9.  counted() is called from caller() alone.
 * Writes its pid to READY (whole: a temporary name, renamed), then by
 * MODE:
 *   exit     calls caller() for SECONDS of wall-clock time, returns 0
 *   forever  calls caller() until killed (a forgotten run ends by SIGALRM
 *            after 120 s)
 *   fork     calls for SECONDS / 2, forks; the child calls for SECONDS / 2
 *            into word 1 and returns 0, the parent calls SECONDS / 2 more,
 *            waits for the child and returns 0
 *   abort    calls for SECONDS, then abort(3)
 *   pause    calls for SECONDS / 2, switches profiling off (moncontrol(0),
 *            the C library's <sys/gmon.h> name, which libmon's takes over),
 *            sleeps 1.6 s, switches it on, calls for SECONDS / 2
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/gmon.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The C library's and libmon's (mon.h: under monrun libmon's is the one
 * called); <sys/gmon.h> does not declare it. */
int moncontrol(int mode);

static volatile uint64_t *words;
static volatile uint64_t *mine;		/* this process's word */

__attribute__((noinline)) void counted(void);
__attribute__((noinline)) void counted(void)
{
	++*mine;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void caller(void);
__attribute__((noinline)) void caller(void)
{
	counted();
	__asm__ volatile("" ::: "memory");
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Calls caller() for secs of wall-clock time (secs < 0: forever). */
static void calls_for(double secs)
{
	double end = now_s() + secs;
	do
		for (int i = 0; i < 1000; i++)
			caller();
	while (secs < 0 || now_s() < end);
}

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

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: interval_calls exit|forever|fork|abort|pause READY COUNTS SECONDS\n");
		return 2;
	}
	int fd = open(argv[3], O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, 2 * sizeof(uint64_t)) != 0) {
		perror(argv[3]);
		return 1;
	}
	words = mmap(NULL, 2 * sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (words == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	close(fd);
	mine = &words[0];
	double secs = strtod(argv[4], NULL);
	ready(argv[2]);
	if (strcmp(argv[1], "forever") == 0) {
		alarm(120);
		calls_for(-1);
	} else if (strcmp(argv[1], "fork") == 0) {
		calls_for(secs / 2);
		pid_t pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			mine = &words[1];
			calls_for(secs / 2);
			return 0;
		}
		calls_for(secs / 2);
		int st;
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "interval_calls: the child failed\n");
			return 1;
		}
	} else if (strcmp(argv[1], "pause") == 0) {
		calls_for(secs / 2);
		moncontrol(0);
		struct timespec nap = { 1, 600000000 };
		while (nanosleep(&nap, &nap) != 0)
			;
		moncontrol(1);
		calls_for(secs / 2);
	} else {
		calls_for(secs);
		if (strcmp(argv[1], "abort") == 0)
			abort();
	}
	return 0;
}
