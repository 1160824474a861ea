/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_prof_model.c — prof's model (tools/prof/profile.h) and what feeds
 * it: the arcs of gmon.out and of mon.out are read, not dropped; the model
 * made from an attribution has its mappings, functions, locations and
 * samples in pprof's shape, arcs as {callee, caller} samples whose counts
 * stay out of the flat profile's calls; the renderers are one table.
 * Linked with prof's internal archive (build/tools/libprof.a).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "prof.h"
#include "out/out.h"
#include "monout.h"

static void quiet(const struct prof_warning *w, void *arg)
{
	(void)w;
	(void)arg;
}

static size_t put(unsigned char *b, size_t n, uint64_t v, int bytes)
{
	/* Little-endian; bytes past the value's eight are zero padding. */
	for (int i = 0; i < bytes; i++)
		b[n++] = i < 8 ? (unsigned char)(v >> (8 * i)) : 0;
	return n;
}

/* gmon.out's CG_ARC records: each arc kept with both ends, besides the
 * callee's call count. */
static void gmon_arcs_kept(void **state)
{
	(void)state;
	unsigned char b[256];
	size_t n = 0;
	memcpy(b, "gmon", 4);
	n = put(b, 4, 1, 4);
	n = put(b, n, 0, 12);
	uint64_t arcs[3][3] = { { 0x1004, 0x2000, 7 }, { 0x1104, 0x2000, 5 }, { 0x2010, 0x3000, 1 } };
	for (int i = 0; i < 3; i++) {
		n = put(b, n, 1, 1);
		n = put(b, n, arcs[i][0], 8);
		n = put(b, n, arcs[i][1], 8);
		n = put(b, n, arcs[i][2], 4);
	}
	struct prof_data d;
	char err[200];
	assert_int_equal(gmon_decode(b, n, 1, 0, &d, err, sizeof err), 0);
	assert_int_equal(d.narcs, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(d.arcs[i].frompc, arcs[i][0]);
		assert_int_equal(d.arcs[i].selfpc, arcs[i][1]);
		assert_int_equal(d.arcs[i].count, arcs[i][2]);
	}
	assert_int_equal(d.ncounts, 3);	/* the flat profile's counts, as before */
	prof_data_free(&d);
}

/* mon.out's ARCS record, written by the format module's writer, reaches
 * prof_data (it used to be read and dropped). */
static void monout_arcs_kept(void **state)
{
	(void)state;
	struct monout_arc arcs[2] = { { 0x401020, 0x401050, 9 }, { 0x4010f0, 0x401050, 5 } };
	struct monout_call calls[1] = { { 0x401050, 14 } };
	struct monout m;
	memset(&m, 0, sizeof m);
	m.version = MONOUT_VERSION;
	m.run.rate_hz = 100;
	m.run.clock = 1;
	m.run.reason = MONOUT_WHY_OTHER;
	struct monout_object obj;
	memset(&obj, 0, sizeof obj);
	obj.path = "/x/prog";
	obj.path_len = 7;
	obj.text_lo = 0x401000;
	obj.text_hi = 0x402000;
	obj.flags = MONOUT_OBJ_MAIN;
	m.objects = &obj;
	m.nobjects = 1;
	m.calls = calls;
	m.ncalls = 1;
	m.arcs = arcs;
	m.narcs = 2;
	char path[] = "/tmp/test_prof_model.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(monout_write_fd(fd, &m), 0);
	close(fd);
	struct prof_data d;
	char err[256];
	int rc = prof_read(path, NULL, &d, err, sizeof err);
	unlink(path);
	if (rc != 0)
		fail_msg("prof_read: %s", err);
	assert_int_equal(d.narcs, 2);
	/* The reader sorts arcs by (selfpc, frompc). */
	assert_int_equal(d.arcs[0].frompc, 0x401020);
	assert_int_equal(d.arcs[0].selfpc, 0x401050);
	assert_int_equal(d.arcs[0].count, 9);
	assert_int_equal(d.arcs[1].frompc, 0x4010f0);
	assert_int_equal(d.arcs[1].count, 5);
	assert_int_equal(d.ncounts, 1);
	assert_int_equal(d.counts[0].count, 14);
	prof_data_free(&d);
}

/* An attribution made by hand: one image, functions f (sampled, called),
 * g (idle) and [unknown]; arcs g -> f twice at the same PCs (from two
 * files) and f -> [unknown]. */
static void model_from_attribution(void **state)
{
	(void)state;
	static unsigned char id[4] = { 0xde, 0xad, 0xbe, 0xef };
	struct prof_image im;
	memset(&im, 0, sizeof im);
	im.path = "/x/prog";
	im.label = "prog";
	memcpy(im.build_id, id, 4);
	im.build_id_len = 4;
	struct prof_image *ims[1] = { &im };
	struct prof_row rows[3] = {
		{ .kind = PROF_ROW_FUNC, .image = 0, .addr = 0x1000, .size = 0x10, .name = "f",
		  .ticks = 3.5, .seconds = 0.035, .calls = 2 },
		{ .kind = PROF_ROW_FUNC, .image = 0, .addr = 0x1010, .size = 0x20, .name = "g",
		  .version = "V_1" },
		{ .kind = PROF_ROW_UNKNOWN, .ticks = 1, .seconds = 0.01 },
	};
	struct prof_arcrow arcs[3] = {
		{ .from_row = 1, .to_row = 0, .frompc = 0x1018, .selfpc = 0x1000, .count = 4 },
		{ .from_row = 0, .to_row = 2, .frompc = 0x1008, .selfpc = 0x9000, .count = 1 },
		{ .from_row = 1, .to_row = 0, .frompc = 0x1018, .selfpc = 0x1000, .count = 6 },
	};
	struct prof_attr a;
	attr_init(&a, 1);
	a.images = ims;
	a.nimages = 1;
	a.rows = rows;
	a.nrows = 3;
	a.unknown_row = 2;
	a.arcs = arcs;
	a.narcs = 3;
	a.total_ticks = 4.5;
	a.total_seconds = 0.045;
	a.rate_hz = 100;
	a.nfiles = 2;

	struct prof_profile p;
	assert_int_equal(profile_build(&a, 0, &p), 0);
	assert_string_equal(p.sample_types[PROF_VAL_CPU].type, "cpu");
	assert_int_equal(p.nmappings, 1);
	assert_string_equal(p.mappings[0].path, "/x/prog");
	assert_int_equal(p.mappings[0].build_id_len, 4);
	assert_memory_equal(p.mappings[0].build_id, id, 4);
	assert_int_equal(p.nfunctions, 3);
	assert_string_equal(p.functions[0].name, "f");
	assert_string_equal(p.functions[0].system_name, "f");
	assert_string_equal(p.functions[1].version, "V_1");
	assert_string_equal(p.functions[2].name, "[unknown]");
	assert_int_equal(p.functions[2].mapping, SIZE_MAX);
	/* 3 row locations + 4 arc PCs (0x1000 in f, 0x1018 in g, 0x1008 in
	 * f, 0x9000 unknown), each once. */
	assert_int_equal(p.nlocations, 7);
	for (size_t i = 0; i < p.nlocations; i++)
		assert_int_equal(p.locations[i].nlines, 1);
	/* Samples: f and [unknown] (g has neither time nor calls), then two
	 * arcs, the twice-recorded one added up. */
	assert_int_equal(p.nsamples, 4);
	const struct prof_sample *s = &p.samples[0];
	assert_int_equal(s->nlocations, 1);
	assert_int_equal(p.locations[s->locations[0]].lines[0].function, 0);
	assert_true(s->value[PROF_VAL_SAMPLES] == 3.5);
	assert_true(s->value[PROF_VAL_CPU] == 0.035);
	assert_true(s->value[PROF_VAL_CALLS] == 2);
	int seen_gf = 0, seen_fu = 0;
	for (size_t i = 2; i < 4; i++) {
		s = &p.samples[i];
		assert_int_equal(s->nlocations, 2);
		const struct prof_location *callee = &p.locations[s->locations[0]];
		const struct prof_location *caller = &p.locations[s->locations[1]];
		assert_true(s->value[PROF_VAL_CALLS] == 0 && s->value[PROF_VAL_SAMPLES] == 0);
		if (callee->lines[0].function == 0) {
			assert_int_equal(callee->address, 0x1000);
			assert_int_equal(caller->address, 0x1018);
			assert_int_equal(caller->lines[0].function, 1);
			assert_true(s->value[PROF_VAL_ARC] == 10);
			seen_gf = 1;
		} else {
			assert_int_equal(callee->lines[0].function, 2);
			assert_int_equal(callee->address, 0x9000);
			assert_int_equal(callee->mapping, SIZE_MAX);
			assert_int_equal(caller->address, 0x1008);
			assert_true(s->value[PROF_VAL_ARC] == 1);
			seen_fu = 1;
		}
	}
	assert_true(seen_gf && seen_fu);
	assert_int_equal(p.facts.nfiles, 2);
	assert_true(p.facts.total_seconds == 0.045);

	/* The flat view adds up by leaf function: the arcs' counts are not
	 * calls a second time. */
	struct prof_opts o = { .sort = PROF_SORT_TIME };
	struct prof_flat f;
	assert_int_equal(prof_flat_make(&p, &o, &f), 0);
	assert_int_equal(f.n, 2);
	assert_int_equal(f.order[0], 0);
	assert_int_equal(f.all[0].calls, 2);
	assert_int_equal(f.order[1], 2);
	prof_flat_free(&f);
	o.zero = 1;
	assert_int_equal(prof_flat_make(&p, &o, &f), 0);
	assert_int_equal(f.n, 3);
	prof_flat_free(&f);
	profile_free(&p);
}

/* Call stacks into the model (profile.h): each stack a sample of its
 * frames leaf first, one location per (function, PC) shared by the stacks
 * that hold it, the markers [truncated] and [jit] as root frames, the
 * thread of each; a row's one-location sample keeps only the histogram
 * time its stacks do not explain, so that the flat view (by leaf) is still
 * the histogram's; inclusive time counts each sample once per function. */
static void model_from_stacks(void **state)
{
	(void)state;
	struct prof_image im;
	memset(&im, 0, sizeof im);
	im.path = "/x/prog";
	im.label = "prog";
	struct prof_image *ims[1] = { &im };
	struct prof_row rows[3] = {
		{ .kind = PROF_ROW_FUNC, .image = 0, .addr = 0x1000, .size = 0x10, .name = "f",
		  .ticks = 10, .seconds = 0.1, .stacked_ticks = 7, .stacked_seconds = 0.07 },
		{ .kind = PROF_ROW_FUNC, .image = 0, .addr = 0x1010, .size = 0x20, .name = "g" },
		{ .kind = PROF_ROW_UNKNOWN, .ticks = 1, .seconds = 0.01, .stacked_ticks = 1,
		  .stacked_seconds = 0.01 },
	};
	struct prof_frame frames[6] = { { 0, 0x1004 }, { 1, 0x1017 }, { 0, 0x1004 }, { 1, 0x1017 },
					{ 2, 0x9000 } };
	struct prof_stackrow stacks[3] = {
		{ .count = 6, .seconds = 0.06, .tid = 7, .thread = "main", .first = 0, .depth = 2 },
		{ .count = 1, .seconds = 0.01, .tid = 8, .flags = PROF_STACK_TRUNCATED, .first = 2,
		  .depth = 2 },
		{ .count = 1, .seconds = 0.01, .tid = 8, .flags = PROF_STACK_JIT, .first = 4, .depth = 1 },
	};
	struct prof_attr a;
	attr_init(&a, 1);
	a.images = ims;
	a.nimages = 1;
	a.rows = rows;
	a.nrows = 3;
	a.unknown_row = 2;
	a.total_ticks = 11;
	a.total_seconds = 0.11;
	a.rate_hz = 100;
	a.nfiles = 1;
	a.have_stacks = 1;
	a.stacks = stacks;
	a.nstacks = 3;
	a.frames = frames;
	a.nframes = 5;
	a.stack_samples = 8;

	struct prof_profile p;
	assert_int_equal(profile_build(&a, 0, &p), 0);
	assert_true(p.facts.have_stacks);
	assert_int_equal(p.nfunctions, 5);
	assert_string_equal(p.functions[3].name, "[truncated]");
	assert_int_equal(p.functions[3].kind, PROF_FN_MARKER);
	assert_int_equal(p.functions[3].mapping, SIZE_MAX);
	assert_string_equal(p.functions[4].name, "[jit]");
	/* 3 rows, 3 stack PCs (0x1004 and 0x1017 each once), 2 markers. */
	assert_int_equal(p.nlocations, 8);
	assert_int_equal(p.nthreads, 2);
	assert_int_equal(p.threads[0].tid, 7);
	assert_string_equal(p.threads[0].name, "main");
	assert_string_equal(p.threads[1].name, "");
	/* f's residual (10 - 7), then the three stacks; [unknown] has none. */
	assert_int_equal(p.nsamples, 4);
	assert_false(p.samples[0].stack);
	assert_true(p.samples[0].value[PROF_VAL_SAMPLES] == 3);
	const struct prof_sample *s = &p.samples[1];
	assert_true(s->stack);
	assert_int_equal(s->nlocations, 2);
	assert_int_equal(p.locations[s->locations[0]].address, 0x1004);
	assert_int_equal(p.locations[s->locations[0]].lines[0].function, 0);
	assert_int_equal(p.locations[s->locations[1]].address, 0x1017);
	assert_int_equal(p.locations[s->locations[1]].lines[0].function, 1);
	assert_true(s->value[PROF_VAL_SAMPLES] == 6 && s->value[PROF_VAL_CPU] == 0.06);
	assert_int_equal(s->thread, 0);
	s = &p.samples[2];
	assert_int_equal(s->nlocations, 3);
	assert_int_equal(s->locations[0], p.samples[1].locations[0]);	/* shared */
	assert_int_equal(p.locations[s->locations[2]].lines[0].function, 3);	/* root */
	assert_int_equal(s->thread, 1);
	assert_int_equal(s->stack_flags, PROF_STACK_TRUNCATED);
	s = &p.samples[3];
	assert_int_equal(s->nlocations, 2);
	assert_int_equal(p.locations[s->locations[0]].lines[0].function, 2);
	assert_int_equal(p.locations[s->locations[0]].address, 0x9000);
	assert_int_equal(p.locations[s->locations[1]].lines[0].function, 4);

	struct prof_opts o = { .sort = PROF_SORT_TIME };
	struct prof_flat f;
	assert_int_equal(prof_flat_make(&p, &o, &f), 0);
	assert_true(f.inclusive);
	assert_true(f.all[0].samples == 10);	/* the histogram's, by leaf */
	assert_true(f.all[0].incl_samples == 10);
	assert_true(f.all[1].samples == 0 && f.all[1].incl_samples == 7);
	assert_true(f.all[2].samples == 1);
	/* f, g (inclusive only) and [unknown]; never a marker. */
	assert_int_equal(f.n, 3);
	for (size_t i = 0; i < f.n; i++)
		assert_true(f.order[i] < 3);
	prof_flat_free(&f);
	/* One thread: only its stacks. */
	o.only_thread = 1;
	o.thread = 1;
	assert_int_equal(prof_flat_make(&p, &o, &f), 0);
	assert_true(f.all[0].samples == 1 && f.all[2].samples == 1);
	assert_true(f.total_seconds == 0.02);
	prof_flat_free(&f);
	profile_free(&p);
}

/* A profile of several programs: each stack sample's root location is
 * its file's program (a PROF_FN_PROGRAM function after the markers),
 * above its [truncated] or [jit] marker; samples without a stack have
 * none; each program's executable is a main mapping; the flat view never
 * lists a program.  Mutations: the root left out, program_loc off by one
 * (the wrong program or a marker as root), is_main the first image's
 * only. */
static void model_of_programs(void **state)
{
	(void)state;
	struct prof_image im[2];
	memset(im, 0, sizeof im);
	im[0].path = "/x/one";
	im[0].label = "one";
	im[0].is_program = 1;
	im[1].path = "/x/two";
	im[1].label = "two";
	im[1].is_program = 1;
	struct prof_image *ims[2] = { &im[0], &im[1] };
	struct prof_row rows[3] = {
		{ .kind = PROF_ROW_FUNC, .image = 0, .addr = 0x1000, .size = 0x10, .name = "f",
		  .ticks = 10, .seconds = 0.1, .stacked_ticks = 7, .stacked_seconds = 0.07 },
		{ .kind = PROF_ROW_FUNC, .image = 1, .addr = 0x1000, .size = 0x20, .name = "g",
		  .ticks = 2, .seconds = 0.02, .stacked_ticks = 2, .stacked_seconds = 0.02 },
		{ .kind = PROF_ROW_UNKNOWN },
	};
	struct prof_frame frames[3] = { { 0, 0x1004 }, { 1, 0x1008 }, { 0, 0x1004 } };
	struct prof_stackrow stacks[3] = {
		{ .count = 6, .seconds = 0.06, .tid = 7, .first = 0, .depth = 1, .program = 0 },
		{ .count = 2, .seconds = 0.02, .tid = 9, .flags = PROF_STACK_TRUNCATED, .first = 1,
		  .depth = 1, .program = 1 },
		{ .count = 1, .seconds = 0.01, .tid = 8, .flags = PROF_STACK_JIT, .first = 2,
		  .depth = 1, .program = 0 },
	};
	const char *names[2] = { "one", "two" };
	struct prof_attr a;
	attr_init(&a, 1);
	a.images = ims;
	a.nimages = 2;
	a.main_image = 0;
	a.rows = rows;
	a.nrows = 3;
	a.unknown_row = 2;
	a.total_ticks = 12;
	a.total_seconds = 0.12;
	a.rate_hz = 100;
	a.nfiles = 2;
	a.have_stacks = 1;
	a.stacks = stacks;
	a.nstacks = 3;
	a.frames = frames;
	a.nframes = 3;
	a.stack_samples = 9;
	a.programs = names;
	a.nprograms = 2;

	struct prof_profile p;
	assert_int_equal(profile_build(&a, 0, &p), 0);
	assert_int_equal(p.nprograms, 2);
	/* 3 rows, [truncated], [jit], then the programs. */
	assert_int_equal(p.programs_fn, 5);
	assert_int_equal(p.nfunctions, 7);
	assert_string_equal(p.functions[5].name, "one");
	assert_string_equal(p.functions[6].name, "two");
	assert_int_equal(p.functions[6].kind, PROF_FN_PROGRAM);
	assert_int_equal(p.functions[6].mapping, SIZE_MAX);
	assert_true(p.mappings[0].is_main && p.mappings[1].is_main);
	/* f's residual (no program), then the stacks, each under its program. */
	assert_int_equal(p.nsamples, 4);
	assert_int_equal(p.samples[0].nlocations, 1);
	const struct prof_sample *s = &p.samples[1];
	assert_int_equal(s->nlocations, 2);
	assert_int_equal(p.locations[s->locations[1]].lines[0].function, 5);
	s = &p.samples[2];
	assert_int_equal(s->nlocations, 3);	/* g, [truncated], two */
	assert_int_equal(p.locations[s->locations[0]].lines[0].function, 1);
	assert_int_equal(p.locations[s->locations[1]].lines[0].function, 3);
	assert_int_equal(p.locations[s->locations[2]].lines[0].function, 6);
	s = &p.samples[3];
	assert_int_equal(s->nlocations, 3);	/* f, [jit], one */
	assert_int_equal(p.locations[s->locations[1]].lines[0].function, 4);
	assert_int_equal(p.locations[s->locations[2]].lines[0].function, 5);

	struct prof_opts o = { .sort = PROF_SORT_TIME };
	struct prof_flat f;
	assert_int_equal(prof_flat_make(&p, &o, &f), 0);
	for (size_t i = 0; i < f.n; i++)
		assert_true(f.order[i] < 3);
	prof_flat_free(&f);
	profile_free(&p);

	/* One program: no program functions, no root, the main image alone. */
	a.nprograms = 1;
	assert_int_equal(profile_build(&a, 0, &p), 0);
	assert_int_equal(p.nprograms, 0);
	assert_int_equal(p.nfunctions, 5);
	assert_int_equal(p.samples[1].nlocations, 1);
	assert_true(p.mappings[0].is_main && !p.mappings[1].is_main);
	profile_free(&p);
}

static void renderer_table(void **state)
{
	(void)state;
	char names[64];
	assert_string_equal(prof_renderer_names(names, sizeof names),
			    "text, json, csv, graph, folded, pprof, callgrind or flame");
	assert_ptr_equal(prof_renderer_find("text"), &prof_renderers[0]);
	assert_non_null(prof_renderer_find("json"));
	assert_non_null(prof_renderer_find("csv"));
	assert_non_null(prof_renderer_find("graph"));
	assert_non_null(prof_renderer_find("folded"));
	assert_non_null(prof_renderer_find("pprof"));
	assert_non_null(prof_renderer_find("callgrind"));
	assert_non_null(prof_renderer_find("flame"));
	assert_null(prof_renderer_find("xml"));
}

int main(void)
{
	prof_warn_set_sink(quiet, NULL);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gmon_arcs_kept),
		cmocka_unit_test(monout_arcs_kept),
		cmocka_unit_test(model_from_attribution),
		cmocka_unit_test(model_from_stacks),
		cmocka_unit_test(model_of_programs),
		cmocka_unit_test(renderer_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
