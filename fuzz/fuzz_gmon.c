/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_gmon.c — libFuzzer harness for prof's reader of the C library's
 * gmon.out (tools/prof/gmon.c, gmon_decode).
 *
 * gmon.out does not record the address size or byte order of the profiled
 * program (prof takes them from the executable), so the first input byte
 * chooses them: bit 0 = 64-bit addresses, bit 1 = big-endian; the rest is
 * the file.  gmon_decode must never crash, hang, leak or read outside the
 * image; on success every histogram has a non-empty range and bins, and the
 * bin edges prof derives from it (binmap_start) are monotonic and stay in
 * the range; every arc is kept, beside its callee's call count.
 *
 * Built by `make fuzz` (clang, libFuzzer, ASan, UBSan) and replayed without
 * libFuzzer by tests/integ/robust_fuzz_replay.sh (fuzz/replay.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "prof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) ((c) ? (void)0 : abort())

static void quiet(const struct prof_warning *w, void *arg)
{
	(void)w;
	(void)arg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	int elf64 = data[0] & 1, big = (data[0] >> 1) & 1;
	struct prof_data d;
	char err[256];
	memset(err, 'x', sizeof err);
	prof_warn_set_sink(quiet, NULL);
	if (gmon_decode(data + 1, size - 1, elf64, big, &d, err, sizeof err) < 0) {
		prof_warnings_clear();
		CHECK(memchr(err, '\0', sizeof err) != NULL && err[0] != '\0');
		CHECK(d.nhists == 0 && d.hists == NULL && d.counts == NULL && d.arcs == NULL);
		return 0;
	}
	CHECK(d.nobjs == 1 && d.objs[0].is_main);
	for (size_t i = 0; i < d.nhists; i++) {
		const struct prof_hist *h = &d.hists[i];
		CHECK(h->lowpc < h->highpc && h->nbins > 0 && h->bins != NULL);
		uint64_t prev = binmap_start(h, 0);
		CHECK(prev >= h->lowpc - (h->lowpc & 1));
		size_t step = h->nbins / 64 + 1;
		for (size_t k = step; k <= h->nbins; k += step) {
			uint64_t s = binmap_start(h, k);
			CHECK(s >= prev);
			prev = s;
		}
		CHECK(binmap_start(h, h->nbins) <= h->highpc);
		for (size_t j = 0; j < i; j++)	/* disjoint or identical ranges only */
			CHECK(d.hists[j].highpc <= h->lowpc || h->highpc <= d.hists[j].lowpc);
	}
	for (size_t i = 0; i < d.ncounts; i++)
		CHECK(d.counts[i].count != 0);
	/* Every arc is kept, and is also its callee's call count. */
	CHECK(d.narcs == d.ncounts);
	for (size_t i = 0; i < d.narcs; i++)
		CHECK(d.arcs[i].count == d.counts[i].count && d.arcs[i].selfpc == d.counts[i].selfpc);
	CHECK(d.nhists == 0 || d.run.rate_hz > 0);	/* a rate of 0 is read as 100 Hz */
	prof_data_free(&d);
	prof_warnings_clear();
	return 0;
}
