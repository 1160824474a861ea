/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * alloc.c — libmon's own memory: the program's allocator is the program's.
 *
 * A program may replace malloc (its own arena, a debugging allocator, one
 * that is not ready before main), and a profiler must not be the reason
 * it is called before main, from a thread-exit path or while the profile
 * is written.  So nothing in lib/ calls the malloc family, directly or
 * through the C library functions that allocate for their caller
 * (getcwd(NULL, 0), strdup, opendir, stdio, asprintf, qsort of large
 * arrays, setenv, dlerror): it calls these instead.
 *
 * Blocks of up to 32 KiB come from power-of-two size classes (16 B to
 * 32 KiB, a 16-byte header each) carved from 64 KiB anonymous mappings,
 * one block at a time as they are asked for: a page of a chunk is first
 * touched when a block on it is handed out, so a process that needs a few
 * blocks of a class faults in a page or two, not the 16 of the chunk (a
 * page fault costs several microseconds in a guest, and a short process
 * pays each one); freed blocks go on their class's free list for reuse.  Larger blocks
 * are mappings of their own, unmapped when freed.  A spin lock (never
 * taken in a signal handler: handlers use memory prepared in advance)
 * serialises the lists; a fork child resets it (mon_alloc_fork_child), as
 * the thread that held it is not there any more.
 */
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "runtime.h"

#define HDR 16u			/* header bytes before each block */
#define NCLASS 12		/* 16 << 0 .. 16 << 11 = 32 KiB, header included */
#define CHUNK (64u * 1024u)	/* one refill mapping for the small classes */
#define BIG ((size_t)1 << 62)	/* header tag of a block with its own mapping */

struct hdr {
	size_t tag;		/* class index, or BIG | mapping length */
	void *next;		/* free-list link while free */
};

static void *free_list[NCLASS];
static char *carve_next[NCLASS];	/* the class's chunk: next block never handed out */
static char *carve_end[NCLASS];		/* and that chunk's end */
static int alloc_spin;

static void lock(void)
{
	while (__atomic_exchange_n(&alloc_spin, 1, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void unlock(void)
{
	__atomic_store_n(&alloc_spin, 0, __ATOMIC_RELEASE);
}

void mon_alloc_fork_child(void)
{
	__atomic_store_n(&alloc_spin, 0, __ATOMIC_RELEASE);
}

static void *map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void *mon_alloc(size_t n)
{
	int saved_errno = errno;
	if (n > SIZE_MAX / 2) {
		errno = ENOMEM;
		return NULL;
	}
	size_t need = n + HDR;
	unsigned c = 0;
	while (c < NCLASS && ((size_t)16 << c) < need)
		c++;
	struct hdr *h;
	if (c == NCLASS) {
		size_t len = (need + 4095) & ~(size_t)4095;
		h = map(len);
		if (h == NULL)
			return NULL;	/* errno ENOMEM from mmap */
		h->tag = BIG | len;
		errno = saved_errno;
		return (char *)h + HDR;
	}
	size_t size = (size_t)16 << c;
	lock();
	h = free_list[c];
	if (h != NULL) {
		free_list[c] = h->next;
		unlock();
		memset((char *)h + HDR, 0, size - HDR);
	} else if (carve_next[c] != NULL) {
		/* Fresh from a chunk: zero already, as mmap gives it. */
		h = (struct hdr *)(void *)carve_next[c];
		carve_next[c] = carve_next[c] + size < carve_end[c] ? carve_next[c] + size : NULL;
		unlock();
	} else {
		unlock();
		char *chunk = map(CHUNK);
		if (chunk == NULL)
			return NULL;
		/* The first block is the caller's; the rest are carved later.
		 * A chunk another thread mapped meanwhile is left unused
		 * (carve_next is set again only while NULL). */
		h = (struct hdr *)(void *)chunk;
		lock();
		if (carve_next[c] == NULL && size < CHUNK) {
			/* The end first: a fork child whose parent's other
			 * thread held the lock here finds a next only with
			 * its end. */
			carve_end[c] = chunk + CHUNK;
			__atomic_store_n(&carve_next[c], chunk + size, __ATOMIC_RELEASE);
		}
		unlock();
	}
	h->tag = c;
	h->next = NULL;
	errno = saved_errno;
	return (char *)h + HDR;
}

void mon_free(void *p)
{
	if (p == NULL)
		return;
	int saved_errno = errno;
	struct hdr *h = (struct hdr *)(void *)((char *)p - HDR);
	if (h->tag & BIG) {
		munmap(h, h->tag & ~BIG);
	} else {
		lock();
		h->next = free_list[h->tag];
		free_list[h->tag] = h;
		unlock();
	}
	errno = saved_errno;
}

void *mon_realloc(void *p, size_t n)
{
	if (p == NULL)
		return mon_alloc(n);
	struct hdr *h = (struct hdr *)(void *)((char *)p - HDR);
	size_t have = (h->tag & BIG) ? (h->tag & ~BIG) - HDR : ((size_t)16 << h->tag) - HDR;
	if (n <= have)
		return p;
	void *q = mon_alloc(n);
	if (q == NULL)
		return NULL;
	memcpy(q, p, have);
	mon_free(p);
	return q;
}

void mon_shrink(void *p, size_t n)
{
	if (p == NULL)
		return;
	struct hdr *h = (struct hdr *)(void *)((char *)p - HDR);
	if (!(h->tag & BIG))
		return;
	size_t len = h->tag & ~BIG, keep = (n + HDR + 4095) & ~(size_t)4095;
	if (keep >= len)
		return;
	int saved_errno = errno;
	if (munmap((char *)h + keep, len - keep) == 0)
		h->tag = BIG | keep;
	errno = saved_errno;
}

char *mon_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = mon_alloc(n);
	if (d != NULL)
		memcpy(d, s, n);
	return d;
}
