/*
 * test_prof_export.c — the pprof and callgrind renderers (tools/prof/out/
 * pprof.c, callgrind.c) on a model made by hand that has what the data
 * files cannot give yet: call stacks (samples of several locations, leaf
 * first, with recursion) beside an arc ({callee, caller} with a call
 * count).  So the writers are known to take stacks as they are, with no
 * change when a STACKS record feeds the model: pprof keeps each stack's
 * locations in order; callgrind charges self cost to the leaf, a stack's
 * cost once to each caller->callee edge (recursion counted once), and the
 * arc's count as calls.  Linked with prof's internal archive.
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
static struct prof_mapping maps[] = { { "/bin/prog", "prog", bid, sizeof bid } };
static struct prof_function fns[] = {
	{ PROF_FN_FUNC, "main", "main", NULL, 0, 0x1000, 0x100 },
	{ PROF_FN_FUNC, "a", "a", NULL, 0, 0x1100, 0x100 },
	{ PROF_FN_FUNC, "b", "b", NULL, 0, 0x1200, 0x100 },
	{ PROF_FN_FUNC, "c", "c", NULL, 0, 0x1300, 0x100 },
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
	s[0] = (struct prof_sample){ st0, 4, { 0 } };
	s[0].value[PROF_VAL_SAMPLES] = 10;
	s[0].value[PROF_VAL_CPU] = 0.1;
	s[1] = (struct prof_sample){ st1, 7, { 0 } };
	s[1].value[PROF_VAL_SAMPLES] = 4;
	s[1].value[PROF_VAL_CPU] = 0.04;
	s[2] = (struct prof_sample){ st2, 2, { 0 } };
	s[2].value[PROF_VAL_ARC] = 7;
	p->sample_types = prof_sample_types;
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
	/* a calls b (at b's line 12): both stacks' cost; no call counted. */
	assert_non_null(strstr(t, "fn=(2)\ncob=(1)\ncfi=(1)\ncfn=(3) b\ncalls=0 12\n"
				  "0 14 140000000\n"));
	/* b: self cost at line 12; then, by line, b's two recursive edges
	 * (line 0 -> 12, 12 -> 0), each charged the 4 samples once although
	 * each is twice in the stack; then b -> c with the 10 samples. */
	assert_non_null(strstr(t, "fn=(3)\n12 4 40000000\ncob=(1)\ncfi=(1)\ncfn=(3)\n"
				  "calls=0 12\n0 4 40000000\ncob=(1)\ncfi=(1)\ncfn=(3)\n"
				  "calls=0 0\n12 4 40000000\ncob=(1)\ncfi=(1)\ncfn=(4) c\n"
				  "calls=0 0\n12 10 100000000\n"));
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(callgrind_stacks),
		cmocka_unit_test(pprof_stacks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
