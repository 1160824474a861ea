/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_bins.c — format/bins.h, the one owner of profil(2)'s bin formula,
 * and format/clocks.h, the one table of clock names: each function against
 * the manual page's formula computed the slow way (128-bit arithmetic, a
 * search instead of a closed form), at the edges of its range.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "bins.h"
#include "clocks.h"

/* profil(2): bin = ((pc - offset) / 2) * scale / 65536, exact. */
static uint64_t ref_bin(uint64_t pc, uint64_t lowpc, uint32_t scale)
{
	if (pc < lowpc)
		return UINT64_MAX;
	return (uint64_t)(((unsigned __int128)((pc - lowpc) / 2) * scale) >> 16);
}

static const uint32_t scales[] = { 2, 3, 0x1000, 0x4000, 0x5555, 0x6000, 0x8000, 0xc000,
				   0xfffe, 0xffff, 0x10000 };

static void bin_of_matches_the_formula(void **state)
{
	(void)state;
	const uint64_t lows[] = { 0, 0x1000, 0x555555554000ull, UINT64_MAX - 0x100000 };
	for (size_t s = 0; s < sizeof scales / sizeof scales[0]; s++)
		for (size_t l = 0; l < sizeof lows / sizeof lows[0]; l++) {
			uint64_t lo = lows[l];
			for (uint64_t k = 0; k < 4096; k += 7)
				assert_int_equal(mon_bin_of(lo + k, lo, scales[s]),
						 ref_bin(lo + k, lo, scales[s]));
			/* far from lowpc: the high part of the split */
			uint64_t far = lo + ((UINT64_MAX - lo) / 3) * 2;
			assert_int_equal(mon_bin_of(far, lo, scales[s]), ref_bin(far, lo, scales[s]));
			assert_int_equal(mon_bin_of(UINT64_MAX, lo, scales[s]),
					 ref_bin(UINT64_MAX, lo, scales[s]));
			if (lo > 0)
				assert_true(mon_bin_of(lo - 1, lo, scales[s]) == UINT64_MAX);
		}
	/* the manual page's examples: 65536 → 2 bytes a bin, 0x4000 → 8 */
	assert_int_equal(mon_bin_of(0x1007, 0x1000, 0x10000), 3);
	assert_int_equal(mon_bin_of(0x1007, 0x1000, 0x4000), 0);
	assert_int_equal(mon_bin_of(0x1008, 0x1000, 0x4000), 1);
}

/* mon_bin_start(i) is the lowest pc of bin i: its bin is i, the pc before
 * it is in an earlier bin. */
static void bin_start_inverts_bin_of(void **state)
{
	(void)state;
	const uint64_t lo = 0x400000;
	for (size_t s = 0; s < sizeof scales / sizeof scales[0]; s++)
		for (uint64_t i = 0; i < 300; i++) {
			uint64_t pc = mon_bin_start(lo, scales[s], i);
			/* scale <= 65536: consecutive 2-byte units move at most
			 * one bin on, so no bin is empty */
			assert_int_equal(mon_bin_of(pc, lo, scales[s]), i);
			if (i > 0)
				assert_true(mon_bin_of(pc - 1, lo, scales[s]) < i);
			assert_int_equal(pc % 2, lo % 2);
		}
}

/* A power-of-two width: the bin is (pc - lowpc) >> log2(width), how the
 * whole-process histograms (lib/objhist.c) count. */
static void scale_for_a_width(void **state)
{
	(void)state;
	for (unsigned shift = 1; shift <= 16; shift++) {
		uint32_t scale = mon_bin_scale((uint64_t)1 << shift);
		assert_int_equal(scale, 131072u >> shift);
		for (uint64_t d = 0; d < 3 * ((uint64_t)1 << shift) + 5; d++)
			assert_int_equal(mon_bin_of(0x10000 + d, 0x10000, scale), d >> shift);
	}
	assert_int_equal(mon_bin_scale(4), 0x8000);
	assert_int_equal(mon_bin_scale(8), 0x4000);
}

/* System V's monitor(3): nbins over the range's 2-byte words, capped at
 * 0xffff, at least 2; every pc of the range then falls in a bin. */
static void scale_to_fit(void **state)
{
	(void)state;
	assert_int_equal(mon_bin_scale_fit(0x1000, 0x1100, 128), 0xffff);	/* one bin a word */
	assert_int_equal(mon_bin_scale_fit(0x1000, 0x1100, 1000), 0xffff);
	assert_int_equal(mon_bin_scale_fit(0x1000, 0x1100, 64), 0x8000);
	assert_int_equal(mon_bin_scale_fit(0x1000, 0x1101, 64), (uint32_t)((64ull << 16) / 129));
	assert_int_equal(mon_bin_scale_fit(0, (uint64_t)1 << 40, 1), 2);
	const uint64_t ranges[] = { 2, 3, 100, 4096, 1000003, (uint64_t)1 << 30 };
	const uint64_t counts[] = { 1, 2, 7, 100, 4096, 65536 };
	for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++)
		for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
			uint64_t lo = 0x8000, hi = lo + ranges[r];
			uint32_t sc = mon_bin_scale_fit(lo, hi, counts[c]);
			assert_true(sc >= 2 && sc <= 0xffff);
			if (sc > 2)
				assert_true(mon_bin_of(hi - 1, lo, sc) < counts[c]);
		}
}

/* One table: the names, and "unknown" past it and for negative ints. */
static void clock_names(void **state)
{
	(void)state;
	assert_string_equal(mon_clock_str(MON_CLOCK_NONE), "none");
	assert_string_equal(mon_clock_str(MON_CLOCK_PERF), "perf-cpu-clock");
	assert_string_equal(mon_clock_str(MON_CLOCK_THREAD), "thread-cputime");
	assert_string_equal(mon_clock_str(MON_CLOCK_ITIMER), "itimer-prof");
	assert_string_equal(mon_clock_str(MON_CLOCK_ITIMER + 1), "unknown");
	assert_string_equal(mon_clock_str((uint64_t)(int)-1), "unknown");
	assert_string_equal(mon_clock_str(UINT32_MAX), "unknown");
	/* values are stored in files: the numbers never change */
	assert_int_equal(MON_CLOCK_NONE, 0);
	assert_int_equal(MON_CLOCK_PERF, 1);
	assert_int_equal(MON_CLOCK_THREAD, 2);
	assert_int_equal(MON_CLOCK_ITIMER, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bin_of_matches_the_formula),
		cmocka_unit_test(bin_start_inverts_bin_of),
		cmocka_unit_test(scale_for_a_width),
		cmocka_unit_test(scale_to_fit),
		cmocka_unit_test(clock_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
