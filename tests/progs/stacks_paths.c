/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stacks_paths.c — the call paths a stack sampler must walk, for
 * tests/integ/stacks_*.sh.  Built -O2 -fomit-frame-pointer, as Debian
 * builds its libraries: no frame pointer to follow anywhere.
 *
 *   stacks_paths run S                  the three phases, S CPU-seconds each
 *   stacks_paths fork S                 the phases, fork: the child runs them
 *                                       again and exits, the parent waits
 *   stacks_paths exec S PROG ARGS...    the phases, then execv(PROG, ...)
 *   stacks_paths _exit S                the phases, then _exit(0)
 *   stacks_paths abort S                the phases, then abort()
 *   stacks_paths rounds N               fixed work instead of CPU time: each
 *                                       phase's loop N times (bench/, to
 *                                       compare the CPU different profilers
 *                                       add to the same work)
 *
 * The phases, each until the thread used S seconds of CPU:
 *   deep       a recursion 40 calls deep (recurse), spinning at the bottom
 *   sort       qsort(3) of an array with a comparator of ours (by_value):
 *              libc's code between the comparator and main
 *   easy/hard  work() called 1000 times for short jobs by easy(), once
 *              for a long job by hard()
 * Prints "NAME SECONDS" for each phase (the CPU it used) and "pid PID".
 * An ordinary program: not linked with libmon.  Built with -DSTACKS_API
 * and linked with -lmon it also has
 *   stacks_paths monstartup S           monstartup(text), the phases, exit
 *   stacks_paths monitor S              monitor() over the text, the phases,
 *                                       monitor(0)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef STACKS_API
#include <mon.h>
extern char etext;
static WORD monbuf[1 << 20];
#endif

static long rounds;	/* > 0: each phase's loop this many times */

static double cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long spin(unsigned long n)
{
	unsigned long acc = sink;
	for (unsigned long i = 0; i < n; i++)
		acc = acc * 2862933555777941757ul + i;
	sink = acc;
	return acc;
}

/* A local whose address escapes keeps each call a real frame (no tail
 * call, no loop made of the recursion). */
__attribute__((noinline)) static unsigned long recurse(int depth, unsigned long n)
{
	volatile int here = depth;
	unsigned long r = depth > 1 ? recurse(depth - 1, n) : spin(n);
	return r + (unsigned long)here;
}

__attribute__((noinline)) static double deep(double s)
{
	double t0 = cpu(), t;
	long k = 0;
	do
		recurse(40, 2000000);
	while ((t = cpu()) - t0 < s || ++k < rounds);
	return t - t0;
}

static int *values;
enum { NVALUES = 20000 };

__attribute__((noinline)) static int by_value(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

__attribute__((noinline)) static double sort(double s)
{
	double t0 = cpu(), t;
	unsigned seed = 1;
	long k = 0;
	do {
		for (int i = 0; i < NVALUES; i++)
			values[i] = (int)(seed = seed * 1103515245u + 12345u);
		qsort(values, NVALUES, sizeof *values, by_value);
	} while ((t = cpu()) - t0 < s || ++k < rounds);
	return t - t0;
}

__attribute__((noinline)) static unsigned long work(unsigned long n)
{
	return spin(n) ^ n;
}

/* The results are used after the calls: no call becomes a jump (a tail
 * call leaves no frame of the caller to see). */
__attribute__((noinline)) static void easy(void)
{
	unsigned long acc = 0;
	for (int i = 0; i < 1000; i++)
		acc += work(2000);
	sink += acc;
}

__attribute__((noinline)) static void hard(void)
{
	sink += work(2000000);
}

__attribute__((noinline)) static double easy_hard(double s)
{
	double t0 = cpu(), t;
	long k = 0;
	do {
		easy();
		hard();
	} while ((t = cpu()) - t0 < s || ++k < rounds);
	return t - t0;
}

static void phases(double s)
{
	printf("deep %.6f\n", deep(s));
	printf("sort %.6f\n", sort(s));
	printf("easy_hard %.6f\n", easy_hard(s));
	printf("pid %ld\n", (long)getpid());
	fflush(stdout);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: stacks_paths run|fork|exec|_exit|abort SECONDS [PROG ARGS...]\n");
		return 2;
	}
	double s = atof(argv[2]);
	if (!strcmp(argv[1], "rounds")) {
		rounds = atol(argv[2]);
		s = 0;
	}
	values = malloc(NVALUES * sizeof *values);
	if (values == NULL)
		return 1;
#ifdef STACKS_API
	if (!strcmp(argv[1], "monstartup") &&
	    monstartup((int (*)(void))2, (int (*)(void))&etext) != 0) {
		perror("monstartup");
		return 1;
	}
	if (!strcmp(argv[1], "monitor"))
		monitor((int (*)(void))2, (int (*)(void))&etext, monbuf, sizeof monbuf / sizeof *monbuf, 64);
#endif
	phases(s);
#ifdef STACKS_API
	if (!strcmp(argv[1], "monitor"))
		monitor(0, 0, 0, 0, 0);
#endif
	if (!strcmp(argv[1], "fork")) {
		pid_t pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			phases(s);
			exit(0);
		}
		int st;
		return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
	}
	if (!strcmp(argv[1], "exec") && argc > 3) {
		execv(argv[3], argv + 3);
		perror(argv[3]);
		return 127;
	}
	if (!strcmp(argv[1], "_exit"))
		_exit(0);
	if (!strcmp(argv[1], "abort"))
		abort();
	return 0;
}
