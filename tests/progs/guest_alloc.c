/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest_alloc.c — a program with an allocator of its own that is not ready
 * before main(): until main says so, malloc serves a bootstrap arena of
 * ARENA bytes (default 2 KiB) and aborts when it runs out.  It counts every call of its malloc family.
 *
 *   guest_alloc
 *
 * Prints "premain_calls N" (calls before main), "thread_calls N" (calls
 * while creating and joining one thread that spins 0.05 CPU-seconds) and
 * "write_calls N" (calls during mon_write, 0 when libmon is not linked or
 * not profiling).  After its last atexit handler has run (the C library
 * runs those before the ones registered earlier, a profiler's among them),
 * any call aborts with "allocation after exit began".  A profiler that uses
 * the program's allocator changes these numbers or kills the program.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "monrun_common.h"

#ifndef ARENA
#define ARENA 2048
#endif
static char arena[ARENA] __attribute__((aligned(16)));
static size_t used;
static int ready, closing;
static unsigned long calls;
static char *heap;
static size_t heap_used;

static void say(const char *s)
{
	ssize_t r = write(2, s, strlen(s));
	(void)r;
}

void *malloc(size_t n)
{
	calls++;
	if (closing) {
		say("guest_alloc: allocation after exit began\n");
		abort();
	}
	n = (n + 15) & ~(size_t)15;
	if (n == 0)
		n = 16;
	if (!ready) {
		if (used + n > sizeof arena) {
			say("guest_alloc: bootstrap arena exhausted before main\n");
			abort();
		}
		void *p = arena + used;
		used += n;
		return p;
	}
	if (heap == NULL)
		heap = mmap(0, 1 << 28, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *p = heap + heap_used;
	heap_used += n;
	return p;
}

void free(void *p)
{
	if (p != NULL)
		calls++;
}

void *calloc(size_t a, size_t b)
{
	void *p = malloc(a * b);
	memset(p, 0, a * b);
	return p;
}

void *realloc(void *o, size_t n)
{
	void *p = malloc(n);
	if (o != NULL)
		memcpy(p, o, n);	/* may copy past the old block: both are ours */
	return p;
}

void *memalign(size_t al, size_t n)
{
	char *p = malloc(n + al);
	return (void *)(((size_t)p + al - 1) & ~(al - 1));
}

int posix_memalign(void **r, size_t al, size_t n)
{
	*r = memalign(al, n);
	return 0;
}

void *aligned_alloc(size_t al, size_t n)
{
	return memalign(al, n);
}

DEFINE_SPIN(thread_spin)

static void *thr(void *a)
{
	(void)a;
	thread_spin(0.05);
	return NULL;
}

static void last(void)
{
	fflush(stdout);
	closing = 1;
}

int main(void)
{
	unsigned long pre = calls;
	ready = 1;
	/* stdout's buffer now, so that printing later counts nothing. */
	setvbuf(stdout, NULL, _IOFBF, 4096);
	printf("premain_calls %lu\n", pre);
	unsigned long c0 = calls;
	pthread_t t;
	pthread_create(&t, NULL, thr, NULL);
	pthread_join(t, NULL);
	unsigned long c1 = calls;
	printf("thread_calls %lu\n", c1 - c0);
	int (*w)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "mon_write");
	unsigned long c2 = calls;
	if (w != NULL)
		w();
	printf("write_calls %lu\n", calls - c2);
	atexit(last);
	return 0;
}
