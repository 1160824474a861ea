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
 *           saved: the walk finds leaf_direct's frame record above its SP
 *           (lib/unwind.c's fp_search) and goes on through start_direct.
 *   decoy   start_decoy -> leaf_decoy (both with a frame pointer) -> read
 *           of a pipe, leaf_decoy's locals holding code pointers (its
 *           callbacks: functions' starts) and stack addresses between its
 *           SP and its frame record: the search must pass over them.
 *   large   start_large -> leaf_large (both with a frame pointer, 8 KiB of
 *           locals in leaf_large) -> read of a pipe: leaf_large's frame
 *           record lies beyond the search (4 KiB above its SP), so the walk
 *           ends there, flagged truncated, guessing nothing.
 *   plain   start_plain -> middle_plain (no frame pointer) -> read of a pipe.
 * main writes each pipe after MS and joins; each thread prints
 *   thread NAME tid TID
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int pipes[5][2];
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

static void cb_a(void) { sink++; }
static void cb_b(void) { sink += 2; }

__attribute__((noinline, optimize("no-omit-frame-pointer"))) static long leaf_decoy(int fd)
{
	char c;
	volatile uintptr_t local[8];
	for (int i = 0; i < 8; i += 2) {
		local[i] = (uintptr_t)&local[7 - i];	/* a "saved frame pointer" above */
		local[i + 1] = i % 4 ? (uintptr_t)cb_a : (uintptr_t)cb_b;
	}
	long n = read(fd, &c, 1);
	for (int i = 1; i < 8; i += 2)
		((void (*)(void))local[i])();
	sink += n;
	return n + c;
}

__attribute__((noinline, optimize("no-omit-frame-pointer"))) static void *start_decoy(void *arg)
{
	const struct who *w = arg;
	say(w);
	long n = leaf_decoy(pipes[w->which][0]);
	sink += n;
	return NULL;
}

__attribute__((noinline, optimize("no-omit-frame-pointer"))) static long leaf_large(int fd)
{
	char c;
	volatile char big[8192];
	for (size_t i = 0; i < sizeof big; i += 512)
		big[i] = (char)i;
	long n = read(fd, &c, 1);
	sink += n + big[512];
	return n + c;
}

__attribute__((noinline, optimize("no-omit-frame-pointer"))) static void *start_large(void *arg)
{
	const struct who *w = arg;
	say(w);
	long n = leaf_large(pipes[w->which][0]);
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
	static struct who who[5] = { { "saved", 0 }, { "direct", 1 }, { "plain", 2 }, { "decoy", 3 },
				     { "large", 4 } };
	void *(*start[5])(void *) = { start_saved, start_direct, start_plain, start_decoy,
				      start_large };
	pthread_t th[5];
	for (int i = 0; i < 5; i++)
		if (pipe(pipes[i]) < 0)
			return 1;
	for (int i = 0; i < 5; i++)
		if (pthread_create(&th[i], NULL, start[i], &who[i]) != 0)
			return 1;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
	for (int i = 0; i < 5; i++)
		if (write(pipes[i][1], "x", 1) != 1)
			return 1;
	for (int i = 0; i < 5; i++)
		pthread_join(th[i], NULL);
	return 0;
}
