/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wall_stacks — blocked threads whose stacks mix frames with and without a
 * frame pointer, for the wall sampler's walks from the SP and PC that
 * /proc/TID/syscall gives (tests/integ/wall_stacks.sh).  Built -O2
 * -fomit-frame-pointer; two functions keep a frame pointer by attribute
 * (their CFA is RBP-based: CFI "DW_CFA_def_cfa_register rbp").
 *
 *   wall_stacks [MS]   each thread blocks about MS milliseconds (default 1000)
 *
 *   saved   start_saved (frame pointer) -> middle_saves (no frame pointer,
 *           but it uses RBP as a general register: it saves the caller's
 *           RBP on its stack, where the CFI says) -> read of a pipe.  A
 *           walk that does not know RBP at the read learns it from
 *           middle_saves' frame and goes on through start_saved.
 *   direct  start_direct -> leaf_direct (both with a frame pointer) -> read
 *           of a pipe.  leaf_direct's CFA needs RBP, which no frame below
 *           saved: the walk cannot go past it.
 *   plain   start_plain -> middle_plain (no frame pointer) -> read of a pipe.
 * main writes each pipe after MS and joins; each thread prints
 *   thread NAME tid TID
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int pipes[3][2];
static volatile long sink;

struct who {
	const char *name;
	int which;
};

static void say(const struct who *w)
{
	printf("thread %s tid %d\n", w->name, gettid());
	fflush(stdout);
}

/* Uses RBP as a general register: GCC saves and restores it (the asm's
 * clobber), and its CFI says where (DW_CFA_offset rbp). */
__attribute__((noinline)) static long middle_saves(int fd)
{
	char c;
	__asm__ volatile("" ::: "rbp");
	long n = read(fd, &c, 1);
	sink += n;
	return n + c;
}

__attribute__((noinline, optimize("no-omit-frame-pointer"))) static void *start_saved(void *arg)
{
	const struct who *w = arg;
	say(w);
	long n = middle_saves(pipes[w->which][0]);
	sink += n;
	return NULL;
}

__attribute__((noinline, optimize("no-omit-frame-pointer"))) static long leaf_direct(int fd)
{
	char c;
	long n = read(fd, &c, 1);
	sink += n;
	return n + c;
}

__attribute__((noinline, optimize("no-omit-frame-pointer"))) static void *start_direct(void *arg)
{
	const struct who *w = arg;
	say(w);
	long n = leaf_direct(pipes[w->which][0]);
	sink += n;
	return NULL;
}

__attribute__((noinline)) static long middle_plain(int fd)
{
	char c;
	long n = read(fd, &c, 1);
	sink += n;
	return n + c;
}

__attribute__((noinline)) static void *start_plain(void *arg)
{
	const struct who *w = arg;
	say(w);
	long n = middle_plain(pipes[w->which][0]);
	sink += n;
	return NULL;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 1000;
	static struct who who[3] = { { "saved", 0 }, { "direct", 1 }, { "plain", 2 } };
	void *(*start[3])(void *) = { start_saved, start_direct, start_plain };
	pthread_t th[3];
	for (int i = 0; i < 3; i++)
		if (pipe(pipes[i]) < 0)
			return 1;
	for (int i = 0; i < 3; i++)
		if (pthread_create(&th[i], NULL, start[i], &who[i]) != 0)
			return 1;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
	for (int i = 0; i < 3; i++)
		if (write(pipes[i][1], "x", 1) != 1)
			return 1;
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	return 0;
}
