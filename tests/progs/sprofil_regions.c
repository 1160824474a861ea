/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sprofil_regions.c — sprofil(3) over several regions, in the spirit of
 * what glibc's tst-sprofil exercises (functions in regions of their own,
 * 16- and 32-bit counters, the overflow bin; facts only, nothing copied).
 *
 * Four spinning functions, three in a section of their own (aligned, so
 * that ld's __start_/__stop_ symbols give their exact text, with unused
 * padding between), spin_d in .text.  A "wide" region from spin_a's start
 * spans a and b; b's region (a higher pr_off) keeps b's samples, and a
 * region starting 2 bytes below a gets none of a's (the higher pr_off
 * counts in an overlap: glibc's rule); c has a fine region (one counter
 * per counter-size of text) and a region of scale 1, which is left out;
 * spin_d's samples go to the overflow bin.
 * For PROF_USHORT and PROF_UINT it checks that each function's samples
 * land where those rules say, that every sample the sampler counted is in
 * some counter (none dropped), that nothing is written after the call that
 * turns it off, that tvp is 1 / rate, that counters saturate (and that
 * PROF_UINT's are 32 bits wide), and the
 * errors.  Exits 0, or 1 with file:line of the first failed check.
 * Nothing depends on the machine's speed: each spin runs until its own
 * counters reach a count, bounded only by a generous CPU-time limit.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>

#include "mon.h"

#define CHECK(c)                                                                   \
	do {                                                                       \
		if (!(c)) {                                                        \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #c);    \
			exit(1);                                                   \
		}                                                                  \
	} while (0)

extern char __start_sprof_a[], __stop_sprof_a[], __start_sprof_b[], __stop_sprof_b[];
extern char __start_sprof_c[], __stop_sprof_c[];

static volatile unsigned long sink;

#define SPIN(name, ...)                                                            \
	__attribute__((noinline __VA_ARGS__)) static void name(unsigned long n)    \
	{                                                                          \
		for (unsigned long i = 0; i < n; i++)                              \
			sink += i ^ (sink >> 3);                                   \
	}
SPIN(spin_a, , section("sprof_a"), aligned(256))
SPIN(spin_b, , section("sprof_b"), aligned(256))
SPIN(spin_c, , section("sprof_c"), aligned(256))
SPIN(spin_d, )

static double cpu_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* Counters as 16 or 32 bits. */
static uint64_t get(const void *base, int wide, size_t i)
{
	return wide ? ((const unsigned *)base)[i] : ((const unsigned short *)base)[i];
}

static uint64_t sum(const void *base, size_t bytes, int wide)
{
	uint64_t s = 0;
	for (size_t i = 0; i < bytes / (wide ? 4 : 2); i++)
		s += get(base, wide, i);
	return s;
}

/* Spin f until *count() reaches want (or 20 s of CPU: a failure). */
static void spin_until(void (*f)(unsigned long), const void *base, size_t bytes, int wide,
		       uint64_t want)
{
	double t0 = cpu_seconds();
	while (sum(base, bytes, wide) < want) {
		f(200000);
		CHECK(cpu_seconds() - t0 < 20.0);
	}
}

static struct mon_stats stats(void)
{
	struct mon_stats st;
	CHECK(mon_getstats(&st, sizeof st) == 0);
	return st;
}

#define NA 4096
static unsigned a_bins[NA], low_bins[NA], b_bins[8], c_bins[NA], x_bins[64], over[1];

static void regions(int wide)
{
	unsigned w = wide ? 4 : 2;
	uintptr_t a0 = (uintptr_t)__start_sprof_a, a1 = (uintptr_t)__stop_sprof_a;
	uintptr_t b0 = (uintptr_t)__start_sprof_b, b1 = (uintptr_t)__stop_sprof_b;
	uintptr_t c0 = (uintptr_t)__start_sprof_c, c1 = (uintptr_t)__stop_sprof_c;
	CHECK(a1 <= b0 && b1 < c0);	/* the sections in this order, apart */
	memset(a_bins, 0, sizeof a_bins);
	memset(low_bins, 0, sizeof low_bins);
	memset(b_bins, 0, sizeof b_bins);
	memset(c_bins, 0, sizeof c_bins);
	memset(x_bins, 0, sizeof x_bins);
	memset(over, 0, sizeof over);
	/* wide: one counter per 8 counter-sizes of text, from a0 to past b1,
	 * ending before c0 (the padding after b is wider than 8w). */
	size_t nw = (b1 - a0 + 8 * w - 1) / (8 * w);
	CHECK(nw * w <= sizeof a_bins && a0 + nw * 8 * w <= c0);
	/* b: 2 counters over its text. */
	uint64_t bq = (b1 - b0 + w - 1) / w;
	unsigned long bscale = (unsigned long)(2 * 65536 / bq + 1);
	size_t nc = (c1 - c0 + w - 1) / w;
	CHECK(nc * w <= sizeof c_bins);
	struct prof p[] = {
		{ over, w, 0, 2 },				/* the overflow bin (first) */
		{ a_bins, nw * w, a0, 65536 / 8 },		/* "wide": a and b */
		{ low_bins, (a1 - a0 + 2) / w * w + w, a0 - 2, 65536 },	/* a, 2 bytes lower */
		{ b_bins, 2 * w, b0, bscale },
		{ c_bins, nc * w, c0, 65536 },
		{ x_bins, sizeof x_bins, c0, 1 },		/* scale 1: left out */
	};
	struct timeval tv = { 99, 99 };
	struct mon_stats before = stats();
	CHECK(sprofil(p, 6, &tv, wide ? PROF_UINT | PROF_FAST : PROF_USHORT) == 0);
	struct mon_stats on = stats();
	CHECK(on.rate_hz > 0 && on.clock != MON_CLOCK_NONE);
	CHECK(tv.tv_sec == 0 && tv.tv_usec == (suseconds_t)(1000000 / on.rate_hz));
	spin_until(spin_a, a_bins, nw * w, wide, 30);
	spin_until(spin_b, b_bins, sizeof b_bins, wide, 30);
	spin_until(spin_c, c_bins, sizeof c_bins, wide, 30);
	spin_until(spin_d, over, sizeof over, wide, 30);
	/* Any call while on turns it off, whatever it asks. */
	CHECK(sprofil(p, 6, NULL, 0) == 0);
	struct mon_stats after = stats();
	CHECK(after.clock == MON_CLOCK_NONE);
	uint64_t total = sum(a_bins, sizeof a_bins, wide) + sum(low_bins, sizeof low_bins, wide) +
			 sum(b_bins, sizeof b_bins, wide) + sum(c_bins, sizeof c_bins, wide) +
			 sum(x_bins, sizeof x_bins, wide) + sum(over, sizeof over, wide);
	/* Every sample is in a counter: a region's or the overflow bin. */
	CHECK(after.counted - before.counted == total);
	CHECK(after.dropped == before.dropped);
	/* Overlaps: the higher pr_off counted.  low (below a0) has none of
	 * a's samples; wide's counters from the one holding b0 on (padding,
	 * then b's text) have none of b's. */
	CHECK(sum(low_bins, sizeof low_bins, wide) == 0);
	for (size_t i = (b0 - a0) / (8 * w); i < nw; i++)
		CHECK(get(a_bins, wide, i) == 0);
	CHECK(get(b_bins, wide, 0) + get(b_bins, wide, 1) >= 30);
	CHECK(sum(b_bins, sizeof b_bins, wide) == get(b_bins, wide, 0) + get(b_bins, wide, 1));
	/* A scale below 2 leaves a region out. */
	CHECK(sum(x_bins, sizeof x_bins, wide) == 0);
	/* Off: nothing changes any more. */
	spin_a(3000000);
	spin_d(3000000);
	CHECK(sum(a_bins, sizeof a_bins, wide) + sum(low_bins, sizeof low_bins, wide) +
	      sum(b_bins, sizeof b_bins, wide) + sum(c_bins, sizeof c_bins, wide) +
	      sum(over, sizeof over, wide) == total);
}

/* Counters saturate; PROF_UINT's are 32 bits wide. */
static void saturation(int wide)
{
	uintptr_t a0 = (uintptr_t)__start_sprof_a, a1 = (uintptr_t)__stop_sprof_a;
	unsigned w = wide ? 4 : 2;
	size_t na = (a1 - a0 + w - 1) / w;
	if (wide) {
		for (size_t i = 0; i < na; i++)
			a_bins[i] = 0xffffu;	/* one more is 65536: 32 bits */
	} else {
		memset(a_bins, 0xff, na * w);
	}
	struct prof p = { a_bins, na * w, a0, 65536 };
	struct mon_stats before = stats();
	CHECK(sprofil(&p, 1, NULL, wide ? PROF_UINT : 0) == 0);
	double t0 = cpu_seconds();
	if (wide) {
		uint64_t base = (uint64_t)na * 0xffffu;
		spin_until(spin_a, a_bins, na * w, 1, base + 5);
	} else {
		while (stats().saturated - before.saturated < 5) {
			spin_a(200000);
			CHECK(cpu_seconds() - t0 < 20.0);
		}
	}
	CHECK(sprofil(NULL, 0, NULL, 0) == 0);	/* off */
	if (!wide)
		for (size_t i = 0; i < na; i++)
			CHECK(((unsigned short *)a_bins)[i] == 0xffff);
	else
		CHECK(stats().saturated == before.saturated);
}

static void errors(void)
{
	struct prof p = { a_bins, sizeof a_bins, (uintptr_t)__start_sprof_a, 65536 };
	errno = 0;
	CHECK(sprofil(&p, -1, NULL, 0) == -1 && errno == EINVAL);
	CHECK(sprofil(&p, 1, NULL, 8) == -1 && errno == EINVAL);
	CHECK(sprofil(NULL, 1, NULL, 0) == -1 && errno == EFAULT);
	struct prof bad = p;
	bad.pr_base = (char *)a_bins + 2;
	CHECK(sprofil(&bad, 1, NULL, PROF_UINT) == -1 && errno == EINVAL);
	bad.pr_base = (char *)a_bins + 1;
	CHECK(sprofil(&bad, 1, NULL, 0) == -1 && errno == EINVAL);
	bad = p;
	bad.pr_base = NULL;
	CHECK(sprofil(&bad, 1, NULL, 0) == -1 && errno == EFAULT);
	bad = p;
	bad.pr_scale = 0x100000000ul;
	CHECK(sprofil(&bad, 1, NULL, 0) == -1 && errno == EINVAL);
	void *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(ro != MAP_FAILED);
	bad = p;
	bad.pr_base = ro;
	bad.pr_size = 4096;
	CHECK(sprofil(&bad, 1, NULL, 0) == -1 && errno == EFAULT);
	munmap(ro, 4096);
	/* Nothing to sample into: 0, and profiling stays off (so the next
	 * call starts rather than stops). */
	bad = p;
	bad.pr_scale = 1;
	CHECK(sprofil(&bad, 1, NULL, 0) == 0);
	CHECK(stats().clock == MON_CLOCK_NONE);
	CHECK(sprofil(&p, 1, NULL, 0) == 0);
	CHECK(stats().clock != MON_CLOCK_NONE);
	CHECK(sprofil(NULL, 0, NULL, 0) == 0);
	CHECK(stats().clock == MON_CLOCK_NONE);
}

int main(void)
{
	errors();
	regions(0);
	regions(1);
	saturation(0);
	saturation(1);
	puts("sprofil: ok");
	return 0;
}
