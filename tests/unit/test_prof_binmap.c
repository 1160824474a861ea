/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_prof_binmap.c — prof's pure parts: where histogram bins lie, System
 * V's proportional split of a straddling bin, and the gmon.out reader on
 * hand-made and truncated input.  Linked with prof's internal archive
 * (build/tools/libprof.a), as prof is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "prof.h"

static void profil_bin_edges(void **state)
{
	(void)state;
	struct prof_hist h = { .lowpc = 0x1000, .binmap = PROF_BIN_PROFIL, .scale = 0x8000 };
	assert_int_equal(binmap_start(&h, 0), 0x1000);
	assert_int_equal(binmap_start(&h, 1), 0x1004);
	assert_int_equal(binmap_start(&h, 10), 0x1028);
	h.scale = 0x10000;
	assert_int_equal(binmap_start(&h, 3), 0x1006);
	/* 0x3000: 10.67 bytes per bin; bin i starts at 2*ceil(i*65536/12288). */
	h.scale = 0x3000;
	assert_int_equal(binmap_start(&h, 1), 0x1000 + 12);
	assert_int_equal(binmap_start(&h, 2), 0x1000 + 22);
	assert_int_equal(binmap_start(&h, 3), 0x1000 + 32);
	/* Every pc the profil formula puts in bin i lies in [start(i), start(i+1)). */
	for (uint32_t sc = 2; sc <= 65536; sc = sc * 3 + 1) {
		h.scale = sc;
		for (uint64_t d = 0; d < 4000; d += 7) {
			uint64_t bin = (d / 2) * sc / 65536;
			assert_true(binmap_start(&h, bin) <= 0x1000 + d);
			assert_true(0x1000 + d < binmap_start(&h, bin + 1));
		}
	}
}

static void uniform_bin_edges(void **state)
{
	(void)state;
	struct prof_hist h = { .lowpc = 0x1000, .highpc = 0x1000 + 400, .nbins = 100,
			       .binmap = PROF_BIN_UNIFORM };
	assert_int_equal(binmap_start(&h, 1), 0x1004);
	assert_int_equal(binmap_start(&h, 100), 0x1000 + 400);
	h.nbins = 101;	/* slightly under 4 bytes: truncated to 2-byte units */
	assert_int_equal(binmap_start(&h, 1), 0x1002);
	assert_int_equal(binmap_start(&h, 2), 0x1006);
}

static void split_straddling_bin(void **state)
{
	(void)state;
	uint64_t bins[2] = { 1000, 8 };
	struct prof_hist h = { .lowpc = 100, .binmap = PROF_BIN_PROFIL, .scale = 0x2000,
			       .nbins = 2, .bins = bins };	/* 16-byte bins */
	struct prof_seg segs[] = { { 50, 104, 0 }, { 104, 110, 1 }, { 112, 200, 2 } };
	struct prof_seg fb[] = { { 0, 1000, 3 } };
	double t[5] = { 0 };
	double total = binmap_spread(&h, segs, 3, fb, 1, 4, t);
	assert_true(total == 1008);
	/* bin 0 = [100,116): 4 bytes f, 6 bytes g, 2 bytes of gap, 4 bytes h */
	assert_true(t[0] == 250);
	assert_true(t[1] == 375);
	assert_true(t[3] == 125);
	assert_true(t[2] == 250 + 8);
	assert_true(t[4] == 0);
	/* No fallback: the 2 gap bytes are in no object, so no PC was there:
	 * the bin is shared over its 14 bytes of code. */
	memset(t, 0, sizeof t);
	binmap_spread(&h, segs, 3, NULL, 0, 4, t);
	assert_true(t[4] == 0);
	assert_true(t[0] > 1000.0 * 4 / 14 - 1e-9 && t[0] < 1000.0 * 4 / 14 + 1e-9);
	assert_true(t[1] > 1000.0 * 6 / 14 - 1e-9 && t[1] < 1000.0 * 6 / 14 + 1e-9);
}

/* The case coarse-bins.c: a coarse last bin reaches past highpc; its
 * samples are shared only over [start, highpc), never past it. */
static void coarse_last_bin_stays_in_range(void **state)
{
	(void)state;
	uint64_t bins[2] = { 0, 900 };
	/* 64-byte bins from 1000; the range ends at 1080, 16 bytes into bin 1. */
	struct prof_hist h = { .lowpc = 1000, .highpc = 1080, .binmap = PROF_BIN_PROFIL,
			       .scale = 0x800, .nbins = 2, .bins = bins };
	struct prof_seg segs[] = { { 1000, 1072, 0 }, { 1072, 1200, 1 } };
	struct prof_seg fb[] = { { 900, 1300, 2 } };
	double t[4] = { 0 };
	assert_true(binmap_spread(&h, segs, 2, fb, 1, 3, t) == 900);
	/* bin 1 = [1064, 1080): 8 bytes of row 0, 8 of row 1, nothing past 1080. */
	assert_true(t[0] == 450 && t[1] == 450 && t[2] == 0 && t[3] == 0);
	/* A bin with no known code at all is [unknown]'s. */
	struct prof_hist far = { .lowpc = 5000, .highpc = 6000, .binmap = PROF_BIN_PROFIL,
				 .scale = 0x800, .nbins = 2, .bins = bins };
	memset(t, 0, sizeof t);
	binmap_spread(&far, segs, 2, fb, 1, 3, t);
	assert_true(t[3] == 900);
}

static void spread_conserves_ticks(void **state)
{
	(void)state;
	enum { NB = 500, NS = 60 };
	uint64_t bins[NB];
	struct prof_seg segs[NS];
	double t[NS + 1];
	srand(7);
	for (int round = 0; round < 20; round++) {
		uint64_t sum = 0, at = 0x400000 + (uint64_t)(rand() % 64);
		for (int i = 0; i < NB; i++)
			sum += bins[i] = (uint64_t)(rand() % 5);
		for (int k = 0; k < NS; k++) {
			at += (uint64_t)(rand() % 40);		/* a gap, maybe empty */
			segs[k].lo = at;
			at += 1 + (uint64_t)(rand() % 80);
			segs[k].hi = at;
			segs[k].row = (size_t)k;
		}
		struct prof_hist h = { .lowpc = 0x400000, .binmap = PROF_BIN_PROFIL,
				       .scale = (uint32_t)(2 + rand() % 65535), .nbins = NB,
				       .bins = bins };
		memset(t, 0, sizeof t);
		assert_true(binmap_spread(&h, segs, NS, NULL, 0, NS, t) == (double)sum);
		double got = 0;
		for (int k = 0; k <= NS; k++)
			got += t[k];
		assert_true(got > sum - 1e-6 && got < sum + 1e-6);
	}
}

static void find_segment(void **state)
{
	(void)state;
	struct prof_seg segs[] = { { 10, 20, 0 }, { 20, 30, 1 }, { 40, 50, 2 } };
	assert_int_equal(binmap_find(segs, 3, 10), 0);
	assert_int_equal(binmap_find(segs, 3, 20), 1);
	assert_int_equal(binmap_find(segs, 3, 49), 2);
	assert_true(binmap_find(segs, 3, 35) == SIZE_MAX);
	assert_true(binmap_find(segs, 3, 9) == SIZE_MAX);
	assert_true(binmap_find(segs, 3, 50) == SIZE_MAX);
	assert_true(binmap_find(segs, 0, 5) == SIZE_MAX);
}

/* ---- gmon.out ---------------------------------------------------------------- */

struct gbuf {
	unsigned char b[4096];
	size_t n;
};

static void put(struct gbuf *g, uint64_t v, int bytes)
{
	/* Little-endian; bytes past the value's eight are zero padding (a
	 * shift by 64 or more would be undefined). */
	for (int i = 0; i < bytes; i++)
		g->b[g->n++] = i < 8 ? (unsigned char)(v >> (8 * i)) : 0;
}

static void gmon_header(struct gbuf *g)
{
	memcpy(g->b, "gmon", 4);
	g->n = 4;
	put(g, 1, 4);
	put(g, 0, 12);
}

static void gmon_hist(struct gbuf *g, uint64_t lo, uint64_t hi, unsigned nb, const unsigned *v)
{
	put(g, 0, 1);
	put(g, lo, 8);
	put(g, hi, 8);
	put(g, nb, 4);
	put(g, 100, 4);
	memcpy(g->b + g->n, "seconds\0\0\0\0\0\0\0\0s", 16);
	g->n += 16;
	for (unsigned i = 0; i < nb; i++)
		put(g, v[i], 2);
}

static void gmon_arc(struct gbuf *g, uint64_t from, uint64_t self, unsigned count)
{
	put(g, 1, 1);
	put(g, from, 8);
	put(g, self, 8);
	put(g, count, 4);
}

static void gmon_reads_records(void **state)
{
	(void)state;
	struct gbuf g;
	struct prof_data d;
	char err[200];
	unsigned v[4] = { 1, 2, 3, 65535 };
	gmon_header(&g);
	gmon_hist(&g, 0x1000, 0x1010, 4, v);
	gmon_arc(&g, 0x1004, 0x1008, 7);
	gmon_hist(&g, 0x1000, 0x1010, 4, v);	/* same range: added up */
	put(&g, 2, 1);				/* a basic-block record, skipped */
	put(&g, 1, 4);
	put(&g, 0x1000, 8);
	put(&g, 5, 8);
	gmon_arc(&g, 0x1004, 0x100c, 2);
	assert_int_equal(gmon_decode(g.b, g.n, 1, 0, &d, err, sizeof err), 0);
	assert_int_equal(d.nhists, 1);
	assert_int_equal(d.hists[0].nbins, 4);
	assert_int_equal(d.hists[0].bins[3], 2 * 65535);
	assert_int_equal(d.hists[0].binmap, PROF_BIN_UNIFORM);
	assert_true(d.run.rate_hz == 100);
	assert_int_equal(d.ncounts, 2);
	assert_int_equal(d.counts[0].selfpc, 0x1008);
	assert_int_equal(d.counts[0].count, 7);
	assert_int_equal(d.nobjs, 1);
	assert_true(d.objs[0].is_main);
	prof_data_free(&d);

	/* Every truncation is refused with a message (or, at a record
	 * boundary, read as the shorter file), never read past the end. */
	for (size_t cut = 0; cut < g.n; cut++) {
		unsigned char *copy = malloc(cut ? cut : 1);
		memcpy(copy, g.b, cut);
		err[0] = '\0';
		int rc = gmon_decode(copy, cut, 1, 0, &d, err, sizeof err);
		if (rc < 0)
			assert_true(err[0] != '\0');
		else
			prof_data_free(&d);
		free(copy);
	}
}

static void gmon_refuses_bad_input(void **state)
{
	(void)state;
	struct gbuf g;
	struct prof_data d;
	char err[200];
	unsigned v[4] = { 1, 2, 3, 4 };

	gmon_header(&g);
	gmon_hist(&g, 0x1000, 0x1010, 4, v);
	gmon_hist(&g, 0x1008, 0x1018, 4, v);
	assert_int_equal(gmon_decode(g.b, g.n, 1, 0, &d, err, sizeof err), -1);
	assert_non_null(strstr(err, "overlapping histogram records"));

	gmon_header(&g);
	put(&g, 9, 1);
	assert_int_equal(gmon_decode(g.b, g.n, 1, 0, &d, err, sizeof err), -1);
	assert_string_equal(err, "bad record tag 9 at offset 20");

	gmon_header(&g);
	g.b[4] = 5;
	assert_int_equal(gmon_decode(g.b, g.n, 1, 0, &d, err, sizeof err), -1);
	assert_non_null(strstr(err, "version 5"));

	gmon_header(&g);
	put(&g, 0, 1);
	put(&g, 0x1000, 8);
	put(&g, 0x1010, 8);
	put(&g, 0x7fffffff, 4);		/* far more bins than the file holds */
	put(&g, 100, 4);
	g.n += 16;
	assert_int_equal(gmon_decode(g.b, g.n, 1, 0, &d, err, sizeof err), -1);
	assert_non_null(strstr(err, "truncated"));

	memcpy(g.b, "gmoX", 4);
	assert_int_equal(gmon_decode(g.b, g.n, 1, 0, &d, err, sizeof err), -1);
	assert_non_null(strstr(err, "bad magic"));
}

static void gmon_32bit_big_endian(void **state)
{
	(void)state;
	unsigned char b[64] = "gmon";
	size_t n = 20;
	b[7] = 1;				/* version 1, big-endian */
	b[n++] = 1;				/* an arc: 4-byte addresses */
	const unsigned char arc[] = { 0, 0, 0x10, 0x04, 0, 0, 0x20, 0x08, 0, 0, 0x01, 0x02 };
	memcpy(b + n, arc, sizeof arc);
	n += sizeof arc;
	struct prof_data d;
	char err[200];
	assert_int_equal(gmon_decode(b, n, 0, 1, &d, err, sizeof err), 0);
	assert_int_equal(d.ncounts, 1);
	assert_int_equal(d.counts[0].selfpc, 0x2008);
	assert_int_equal(d.counts[0].count, 0x102);
	prof_data_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(profil_bin_edges),
		cmocka_unit_test(uniform_bin_edges),
		cmocka_unit_test(split_straddling_bin),
		cmocka_unit_test(spread_conserves_ticks),
		cmocka_unit_test(coarse_last_bin_stays_in_range),
		cmocka_unit_test(find_segment),
		cmocka_unit_test(gmon_reads_records),
		cmocka_unit_test(gmon_refuses_bad_input),
		cmocka_unit_test(gmon_32bit_big_endian),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
