/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_alloc.c — unit tests of libmon's own memory (lib/alloc.c): what a
 * block costs in pages, which is what a short process pays for (a page
 * fault costs microseconds in a guest), and that blocks stay apart.
 *
 * Pages are seen with mincore(2): resident or not, and ENOMEM where
 * nothing is mapped.  Links libmon.a (runtime.h's hidden interfaces).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "runtime.h"

#define CHUNK (64u * 1024u)	/* alloc.c's refill mapping for the small classes */

static size_t page(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/* Resident pages of [p, p + len) (page-aligned p), or -1 when part of it is
 * not mapped. */
static long resident(const void *p, size_t len)
{
	size_t n = (len + page() - 1) / page();
	unsigned char v[64];
	assert_true(n <= sizeof v);
	if (mincore((void *)(uintptr_t)p, len, v) != 0)
		return -1;
	long k = 0;
	for (size_t i = 0; i < n; i++)
		k += v[i] & 1;
	return k;
}

/* A small block takes the first page of a new chunk, and the chunk's other
 * pages stay untouched until blocks on them are handed out. */
static void small_block_touches_one_page(void **state)
{
	(void)state;
	/* Blocks of the 2 KiB class (1500 bytes and the header), asked for
	 * until one starts a new chunk: blocks are carved one after another,
	 * so the first not right after the one before is a chunk's first,
	 * 16 bytes (the header) past its start. */
	char *prev = mon_alloc(1500), *a = NULL;
	assert_non_null(prev);
	for (unsigned k = 0; k <= CHUNK / 2048; k++) {
		a = mon_alloc(1500);
		assert_non_null(a);
		if (a != prev + 2048)
			break;
		prev = a;
	}
	char *chunk = a - 16;
	assert_int_equal((uintptr_t)chunk % page(), 0);
	assert_int_equal(resident(chunk, CHUNK), 1);
	/* The next blocks are carved one after another, each zero. */
	char *b = mon_alloc(1500);
	assert_ptr_equal(b, a + 2048);
	for (int i = 0; i < 1500; i++)
		assert_int_equal(b[i], 0);
	assert_int_equal(resident(chunk, CHUNK), 1);
	/* Blocks up to the chunk's end, and then a new chunk. */
	char *last = b;
	for (unsigned k = 2; k < CHUNK / 2048; k++) {
		char *c = mon_alloc(1500);
		assert_ptr_equal(c, last + 2048);
		memset(c, 0xa5, 1500);
		last = c;
	}
	assert_int_equal(resident(chunk, CHUNK), CHUNK / page());
	char *d = mon_alloc(1500);
	assert_non_null(d);
	assert_true(d < chunk || d >= chunk + CHUNK);
	/* A freed block comes back zeroed. */
	mon_free(last);
	char *e = mon_alloc(1500);
	assert_ptr_equal(e, last);
	for (int i = 0; i < 1500; i++)
		assert_int_equal(e[i], 0);
}

/* mon_shrink keeps a large block's first bytes in place and gives back the
 * pages past them; a small block stays as it is. */
static void shrink_in_place(void **state)
{
	(void)state;
	size_t len = 40 * page();
	unsigned char *p = mon_alloc(len);
	assert_non_null(p);
	for (size_t i = 0; i < len; i++)
		p[i] = (unsigned char)(i * 7);
	unsigned char *lo = (unsigned char *)((uintptr_t)p & ~(uintptr_t)(page() - 1));
	size_t keep = 3 * page() + 100;
	errno = 1234;
	mon_shrink(p, keep);
	assert_int_equal(errno, 1234);
	for (size_t i = 0; i < keep; i++)
		assert_int_equal(p[i], (unsigned char)(i * 7));
	/* The header and the kept bytes take 4 pages; the 5th is gone. */
	assert_int_equal(resident(lo, 4 * page()), 4);
	assert_int_equal(resident(lo + 4 * page(), page()), -1);
	assert_int_equal(errno, ENOMEM);
	/* Shrinking to more than is left changes nothing; freeing unmaps the rest. */
	mon_shrink(p, 30 * page());
	assert_int_equal(resident(lo, 4 * page()), 4);
	mon_free(p);
	assert_int_equal(resident(lo, page()), -1);

	char *s = mon_alloc(100);
	memset(s, 1, 100);
	mon_shrink(s, 10);
	for (int i = 0; i < 100; i++)
		assert_int_equal(s[i], 1);
	mon_free(s);
	mon_shrink(NULL, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(small_block_touches_one_page),
		cmocka_unit_test(shrink_in_place),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
