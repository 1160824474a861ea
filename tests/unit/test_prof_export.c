/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_prof_export.c — the pprof and callgrind renderers (tools/prof/out/
 * pprof.c, callgrind.c) on a model made by hand that has what the data
 * files cannot give yet: call stacks (samples of several locations, leaf
 * first, with recursion) beside an arc ({callee, caller} with a call
 * count).  So the writers are known to take stacks as they are, with no
 * change when a STACKS record feeds the model: pprof keeps each stack's
 * locations in order; callgrind charges self cost to the leaf, a stack's
 * cost once to the call into each function's outermost frame (recursion
 * counted once), and the arc's count as calls; the flame graph merges the stacks into a tree
 * (recursion as frames above frames), sizes, places, names and escapes its
 * frames, leaves out those under a tenth of a pixel, and draws the reversed
 * (callers) view.  Linked with prof's internal archive.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <zlib.h>

#include "prof.h"
#include "out/out.h"

static const unsigned char bid[] = { 0xab, 0xcd, 0x01 };
static struct prof_mapping maps[] = { { "/bin/prog", "prog", bid, sizeof bid, 1 },
				       { "/lib/x86_64-linux-gnu/libc.so.6", "libc.so.6", NULL, 0, 0 } };
static struct prof_function fns[] = {
	{ PROF_FN_FUNC, "main", "main", NULL, 0, 0x1000, 0x100, NULL },
	{ PROF_FN_FUNC, "a", "a", NULL, 0, 0x1100, 0x100, NULL },
	{ PROF_FN_FUNC, "b", "b", NULL, 0, 0x1200, 0x100, NULL },
	{ PROF_FN_FUNC, "c", "c", NULL, 0, 0x1300, 0x100, NULL },
};
static struct prof_line lines[] = { { 0, 0 }, { 1, 0 }, { 2, 12 }, { 3, 0 }, { 2, 0 }, { 0, 0 } };
static struct prof_location locs[] = {
	{ 0, 0x1000, &lines[0], 1 }, { 0, 0x1100, &lines[1], 1 }, { 0, 0x1200, &lines[2], 1 },
	{ 0, 0x1300, &lines[3], 1 },
	{ 0, 0x1250, &lines[4], 1 },	/* in b, a call site of its recursion */
	{ 0, 0x1010, &lines[5], 1 },	/* in main, the call site of the arc */
};
/* c <- b <- a <- main: 10 samples; b <- b <- b <- b <- b <- a <- main: 4
 * samples (recursion through two call sites of b, each edge twice); the
 * arc a <- main, 7 calls. */
static size_t st0[] = { 3, 2, 1, 0 }, st1[] = { 2, 4, 2, 4, 2, 1, 0 }, st2[] = { 1, 5 };

static void model(struct prof_profile *p)
{
	memset(p, 0, sizeof *p);
	static struct prof_sample s[3];
	memset(s, 0, sizeof s);
	s[0] = (struct prof_sample){ .locations = st0, .nlocations = 4, .stack = 1 };
	s[0].value[PROF_VAL_SAMPLES] = 10;
	s[0].value[PROF_VAL_CPU] = 0.1;
	s[1] = (struct prof_sample){ .locations = st1, .nlocations = 7, .stack = 1 };
	s[1].value[PROF_VAL_SAMPLES] = 4;
	s[1].value[PROF_VAL_CPU] = 0.04;
	s[2] = (struct prof_sample){ .locations = st2, .nlocations = 2 };
	s[2].value[PROF_VAL_ARC] = 7;
	p->mappings = maps;
	p->nmappings = 1;
	p->functions = fns;
	p->nfunctions = 4;
	p->locations = locs;
	p->nlocations = 6;
	p->samples = s;
	p->nsamples = 3;
	p->facts.rate_hz = 100;
	p->facts.nfiles = 1;
	profile_events(p);	/* the sample types and events, as profile_build */
}

static char *render(const char *format, size_t *len)
{
	struct prof_profile p;
	struct prof_opts o = { 0 };
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	assert_non_null(f);
	model(&p);
	assert_int_equal(prof_renderer_find(format)->render(&p, &o, f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void callgrind_stacks(void **state)
{
	(void)state;
	size_t n;
	char *t = render("callgrind", &n);
	/* main calls a: the arc's 7 calls, and the cost of both stacks. */
	assert_non_null(strstr(t, "fn=(1) main\ncob=(1)\ncfi=(1)\ncfn=(2) a\ncalls=7 0\n"
				  "0 14 140000000\n"));
	/* a calls b: both stacks' cost, on the call into b's outermost
	 * frame; no call counted, so calls=1 (calls=0 would make
	 * callgrind_annotate take the cost for a's own); its target position
	 * 0 (b's frame is at line 12, where b was, not where the call came
	 * in: as a target it split one call into as many as b's lines). */
	assert_non_null(strstr(t, "fn=(2)\ncob=(1)\ncfi=(1)\ncfn=(3) b\ncalls=1 0\n"
				  "0 14 140000000\n"));
	/* b: self cost at line 12; b's recursive calls cost nothing (b's
	 * samples are on the call into its outermost frame already) and,
	 * counted by no arc, are left out; then b -> c with the 10 samples.
	 * So the calls into each function add up to its inclusive cost
	 * (main 14, a 14, b 14, c 10), which callgrind_annotate shows. */
	assert_non_null(strstr(t, "fn=(3)\n12 4 40000000\ncob=(1)\ncfi=(1)\ncfn=(4) c\n"
				  "calls=1 0\n12 10 100000000\n"));
	assert_non_null(strstr(t, "fn=(4)\n0 10 100000000\n"));
	assert_non_null(strstr(t, "\ntotals: 14 140000000\n"));
	assert_non_null(strstr(t, "ob=(1) /bin/prog\n"));
	free(t);
}

/* ---- a small protobuf reader, for the test only --------------------------- */

static uint64_t varint(const unsigned char **p, const unsigned char *end)
{
	uint64_t v = 0;
	for (int s = 0; *p < end && s < 64; s += 7) {
		unsigned char c = *(*p)++;
		v |= (uint64_t)(c & 0x7f) << s;
		if (!(c & 0x80))
			return v;
	}
	fail_msg("bad varint");
	return 0;
}

/* The next field of [*p, end): its number, and its value or bytes. */
static unsigned field(const unsigned char **p, const unsigned char *end, uint64_t *v,
		      const unsigned char **d)
{
	uint64_t k = varint(p, end);
	if ((k & 7) == 0) {
		*v = varint(p, end);
	} else {
		assert_int_equal(k & 7, 2);
		*v = varint(p, end);
		assert_true(*v <= (uint64_t)(end - *p));
		*d = *p;
		*p += *v;
	}
	return (unsigned)(k >> 3);
}

/* The packed varints of [d, d + n) into out (at most max); their count. */
static size_t packed(const unsigned char *d, size_t n, uint64_t *out, size_t max)
{
	size_t k = 0;
	const unsigned char *e = d + n;
	while (d < e && k < max)
		out[k++] = varint(&d, e);
	return k;
}

static void pprof_stacks(void **state)
{
	(void)state;
	size_t n;
	char *gz = render("pprof", &n);
	static unsigned char raw[1 << 16];
	z_stream z;
	memset(&z, 0, sizeof z);
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);	/* gzip only */
	z.next_in = (unsigned char *)gz;
	z.avail_in = (uInt)n;
	z.next_out = raw;
	z.avail_out = sizeof raw;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	const unsigned char *p = raw, *end = raw + z.total_out;
	inflateEnd(&z);
	free(gz);

	uint64_t stacks[3][8], vals[3][8];
	size_t nst[3], nv[3], ns = 0, nstr = 0, nloc = 0;
	int first_empty = 0, loc5 = 0;
	while (p < end) {
		uint64_t v;
		const unsigned char *d = NULL;
		unsigned f = field(&p, end, &v, &d);
		if (f == 2) {	/* sample */
			assert_true(ns < 3);
			const unsigned char *q = d, *qe = d + v;
			while (q < qe) {
				uint64_t w;
				const unsigned char *e = NULL;
				unsigned g = field(&q, qe, &w, &e);
				if (g == 1)
					nst[ns] = packed(e, w, stacks[ns], 8);
				else if (g == 2)
					nv[ns] = packed(e, w, vals[ns], 8);
			}
			ns++;
		} else if (f == 4) {	/* location: id 5 is b's call site */
			const unsigned char *q = d, *qe = d + v;
			uint64_t w;
			const unsigned char *e = NULL;
			if (field(&q, qe, &w, &e) == 1 && w == 5)
				loc5 = 1;
			nloc++;
		} else if (f == 6) {	/* string_table */
			if (nstr++ == 0)
				first_empty = v == 0;
		}
	}
	assert_true(first_empty);
	assert_true(loc5);
	assert_int_equal(nloc, 6);
	assert_int_equal(ns, 3);
	/* The stacks as they are, leaf first, ids = index + 1, and the values:
	 * samples, cpu in ns, calls, arc-calls. */
	uint64_t w0[] = { 4, 3, 2, 1 }, w1[] = { 3, 5, 3, 5, 3, 2, 1 }, w2[] = { 2, 6 };
	assert_int_equal(nst[0], 4);
	assert_memory_equal(stacks[0], w0, sizeof w0);
	assert_int_equal(nst[1], 7);
	assert_memory_equal(stacks[1], w1, sizeof w1);
	assert_int_equal(nst[2], 2);
	assert_memory_equal(stacks[2], w2, sizeof w2);
	uint64_t v0[] = { 10, 100000000, 0, 0 }, v2[] = { 0, 0, 0, 7 };
	assert_int_equal(nv[0], 4);
	assert_memory_equal(vals[0], v0, sizeof v0);
	assert_int_equal(nv[2], 4);
	assert_memory_equal(vals[2], v2, sizeof v2);
}

/* The flame graph of the stacks above: 14 samples over 1180 pixels.
 * Root first, main -> a -> b (14) -> { b (4) -> b -> b -> b, c (10) },
 * siblings in name order, so c starts after the 4 samples of b: x = 10 +
 * 4/14 * 1180.  Levels: the root, then 7 (main a b b b b b), so the
 * picture is 84 + 8 * 16 + 34 = 246 high and the root's y 196; c is at
 * depth 4 (y 196 - 64).  Reversed: leaf functions on the root at the top
 * (y 84), c at depth 1 (y 100), its callers below. */
static void flame_stacks(void **state)
{
	(void)state;
	size_t n;
	char *t = render("flame", &n);
	assert_non_null(strstr(t, "height=\"246\""));
	assert_non_null(strstr(t, "<g><title>all (14 samples, 100.00%)</title><rect x=\"10.00\" "
				  "y=\"196\" width=\"1180.00\""));
	assert_non_null(strstr(t, "<title>main (14 samples, 100.00%)</title><rect x=\"10.00\" "
				  "y=\"180\" width=\"1180.00\""));
	assert_non_null(strstr(t, "<title>c (10 samples, 71.43%)</title><rect x=\"347.14\" "
				  "y=\"132\" width=\"842.86\""));
	/* The recursion: b on b four levels deep, 4 samples wide. */
	assert_non_null(strstr(t, "<title>b (4 samples, 28.57%)</title><rect x=\"10.00\" "
				  "y=\"84\" width=\"337.14\""));
	/* Not a flat profile: the subtitle says so; the program's colour. */
	assert_null(strstr(t, "flat profile"));
	/* The callers' view: c over the root at the top. */
	char *rev = strstr(t, "<g id=\"callers\" display=\"none\">");
	assert_non_null(rev);
	assert_non_null(strstr(rev, "<title>c (10 samples, 71.43%)</title><rect x=\"347.14\" "
				    "y=\"100\" width=\"842.86\""));
	assert_non_null(strstr(rev, "<title>a (10 samples, 71.43%)</title><rect x=\"347.14\" "
				    "y=\"132\""));
	/* The arc sample has no samples and draws nothing: one main frame in
	 * each view. */
	assert_ptr_equal(strstr(strstr(t, "<title>main (") + 1, "<title>main ("),
			 strstr(rev, "<title>main ("));
	free(t);
}

/* Names are escaped for XML, bytes XML cannot hold become '?', a frame
 * narrower than a tenth of a pixel is left out, a one-location sample is a
 * one-frame stack (a flat profile, said so, no callers view), and colours
 * follow the object: the program orange-red (r >= 225), the C library
 * green. */
static void flame_flat(void **state)
{
	(void)state;
	static struct prof_function f[] = {
		{ PROF_FN_FUNC, "op<T>&\"'", NULL, NULL, 0, 0x1000, 0x100, NULL },
		{ PROF_FN_FUNC, "\x01" "bad" "\xff" "\xc3\xa9", NULL, NULL, 0, 0x1100, 0x100, NULL },
		{ PROF_FN_FUNC, "tiny", NULL, NULL, 0, 0x1200, 0x100, NULL },
		{ PROF_FN_FUNC, "memcpy", NULL, NULL, 1, 0x2000, 0x100, NULL },
	};
	static struct prof_line l[] = { { 0, 0 }, { 1, 0 }, { 2, 0 }, { 3, 0 } };
	static struct prof_location lc[] = {
		{ 0, 0x1000, &l[0], 1 }, { 0, 0x1100, &l[1], 1 }, { 0, 0x1200, &l[2], 1 },
		{ 1, 0x2000, &l[3], 1 },
	};
	static size_t st[] = { 0, 1, 2, 3 };
	static struct prof_sample s[4];
	double v[] = { 60000, 30000, 1, 9999 };
	for (int i = 0; i < 4; i++) {
		s[i] = (struct prof_sample){ .locations = &st[i], .nlocations = 1 };
		s[i].value[PROF_VAL_SAMPLES] = v[i];
	}
	struct prof_profile p;
	memset(&p, 0, sizeof p);
	p.mappings = maps;
	p.nmappings = 2;
	p.functions = f;
	p.nfunctions = 4;
	p.locations = lc;
	p.nlocations = 4;
	p.samples = s;
	p.nsamples = 4;
	profile_events(&p);
	struct prof_opts o = { 0 };
	char *t = NULL;
	size_t n;
	FILE *out = open_memstream(&t, &n);
	assert_non_null(out);
	assert_int_equal(prof_render_flame(&p, &o, out), 0);
	assert_int_equal(fclose(out), 0);
	assert_non_null(strstr(t, "<title>op&lt;T&gt;&amp;&quot;&apos; (60,000 samples, 60.00%)</title>"));
	assert_null(strstr(t, "op<T>"));
	assert_non_null(strstr(t, "<title>?bad?" "\xc3\xa9" " (30,000 samples, 30.00%)</title>"));
	assert_null(strstr(t, "tiny"));	/* 1/100000 of 1180 px */
	assert_non_null(strstr(t, "<title>all (100,000 samples, 100.00%)</title>"));
	assert_non_null(strstr(t, "flat profile"));
	assert_null(strstr(t, "id=\"callers\""));
	unsigned r, g, b;
	const char *m = strstr(t, "<title>memcpy (9,999 samples, 10.00%)</title>");
	assert_non_null(m);
	assert_int_equal(sscanf(strstr(m, "fill=\"#") + 7, "%2x%2x%2x", &r, &g, &b), 3);
	assert_true(g > r && g > b);
	m = strstr(t, "<title>op&lt;");
	assert_int_equal(sscanf(strstr(m, "fill=\"#") + 7, "%2x%2x%2x", &r, &g, &b), 3);
	assert_true(r >= 225 && b < 80);
	free(t);
}

/* *p: the functions of fns, in locs[0..nlocs), the samples smp[0..n) at
 * rate_hz, one file. */
static void small_model(struct prof_profile *p, struct prof_location *lc, size_t nlocs,
			struct prof_sample *smp, size_t n, double rate_hz)
{
	memset(p, 0, sizeof *p);
	p->mappings = maps;
	p->nmappings = 1;
	p->functions = fns;
	p->nfunctions = 4;
	p->locations = lc;
	p->nlocations = nlocs;
	p->samples = smp;
	p->nsamples = n;
	p->facts.rate_hz = rate_hz;
	p->facts.nfiles = 1;
	profile_events(p);
}

/* The flat profile of samples added up in another order (a profile read
 * as several files, or as their sum written by prof --output) is the same
 * to the bit: 0.1 + 0.2 + 0.3 in double is 0.6000000000000001 one way and
 * 0.6 the other, which sorted ties and printed values at a rounding
 * boundary differently (prof_save_layouts layouts_reads_as_dir, 2 runs of
 * 4 under ASan). */
static void flat_order_free(void **state)
{
	(void)state;
	static size_t at_main[] = { 0 };
	static const double cpu[2][3] = { { 0.1, 0.2, 0.3 }, { 0.3, 0.2, 0.1 } };
	double got[2][2];
	for (int k = 0; k < 2; k++) {
		struct prof_profile p;
		struct prof_sample smp[3];
		memset(smp, 0, sizeof smp);
		for (int i = 0; i < 3; i++) {
			smp[i] = (struct prof_sample){ .locations = at_main, .nlocations = 1 };
			smp[i].value[PROF_VAL_SAMPLES] = cpu[k][i] * 10;
			smp[i].value[PROF_VAL_CPU] = cpu[k][i];
		}
		small_model(&p, locs, 6, smp, 3, 10);
		struct prof_opts o = { 0 };
		struct prof_flat f;
		assert_int_equal(prof_flat_make(&p, &o, &f), 0);
		got[k][0] = f.all[0].seconds;
		got[k][1] = f.all[0].samples;
		prof_flat_free(&f);
	}
	assert_memory_equal(got[0], got[1], sizeof got[0]);
	assert_true(got[0][0] == prof_quantum(0.6));
}

/* callgrind's self costs are whole samples per line that add up to each
 * function's row of the flat profile rounded once: main's two lines of
 * half a sample each (System V's split of a bin) are 1 and 0, not 1 and 1
 * (a reviewer's finding: callgrind_annotate then said 35 for the flat
 * profile's 34). */
static void callgrind_whole_per_function(void **state)
{
	(void)state;
	static struct prof_line half_lines[] = { { 0, 10 }, { 0, 11 } };
	static struct prof_location half_locs[] = { { 0, 0x1000, &half_lines[0], 1 },
						    { 0, 0x1004, &half_lines[1], 1 } };
	static size_t at0[] = { 0 }, at1[] = { 1 };
	struct prof_profile p;
	struct prof_sample smp[2];
	memset(smp, 0, sizeof smp);
	smp[0] = (struct prof_sample){ .locations = at0, .nlocations = 1 };
	smp[1] = (struct prof_sample){ .locations = at1, .nlocations = 1 };
	for (int i = 0; i < 2; i++) {
		smp[i].value[PROF_VAL_SAMPLES] = 0.5;
		smp[i].value[PROF_VAL_CPU] = 0.005;
	}
	small_model(&p, half_locs, 2, smp, 2, 100);
	struct prof_opts o = { 0 };
	char *t = NULL;
	size_t n;
	FILE *f = open_memstream(&t, &n);
	assert_non_null(f);
	assert_int_equal(prof_renderer_find("callgrind")->render(&p, &o, f), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(t, "fn=(1) main\n10 1 5000000\n11 0 5000000\n"));
	assert_non_null(strstr(t, "\ntotals: 1 10000000\n"));
	free(t);
}

/* A name given without the suffix of a copy the compiler made
 * (heavy.constprop.0, heavy.isra.0, heavy.cold) or without a C++ name's
 * parameters finds those copies, and only them: "heavy" is not heavy2's
 * nor heavy_io's (a new user's --annotate=heavy failed on
 * heavy.constprop.0). */
static void function_like_clones(void **state)
{
	(void)state;
	static struct prof_function f[] = {
		{ PROF_FN_FUNC, "heavy.constprop.0", "heavy.constprop.0", NULL, 0, 0x1000, 0x10, NULL },
		{ PROF_FN_FUNC, "heavy2.constprop.0", "heavy2.constprop.0", NULL, 0, 0x1100, 0x10, NULL },
		{ PROF_FN_FUNC, "heavy_io", "heavy_io", NULL, 0, 0x1200, 0x10, NULL },
		{ PROF_FN_FUNC, "ns::work(int)", "_ZN2ns4workEi", NULL, 0, 0x1300, 0x10, NULL },
		{ PROF_FN_FUNC, "heavy.cold", "heavy.cold", NULL, 0, 0x1400, 0x10, NULL },
	};
	struct prof_profile p;
	memset(&p, 0, sizeof p);
	p.functions = f;
	p.nfunctions = 5;
	size_t out[4];
	assert_int_equal(prof_function_find(&p, "heavy"), SIZE_MAX);
	assert_int_equal(prof_function_like(&p, "heavy", out, 4), 2);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[1], 4);
	assert_int_equal(prof_function_like(&p, "heavy2", out, 4), 1);
	assert_int_equal(out[0], 1);
	assert_int_equal(prof_function_like(&p, "ns::work", out, 4), 1);
	assert_int_equal(out[0], 3);
	assert_int_equal(prof_function_like(&p, "heavy", out, 1), 2);	/* cut at cap */
	assert_int_equal(prof_function_like(&p, "heav", out, 4), 0);
	assert_int_equal(prof_function_like(&p, "", out, 4), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(function_like_clones),
		cmocka_unit_test(flat_order_free),
		cmocka_unit_test(callgrind_whole_per_function),
		cmocka_unit_test(callgrind_stacks),
		cmocka_unit_test(pprof_stacks),
		cmocka_unit_test(flame_stacks),
		cmocka_unit_test(flame_flat),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
