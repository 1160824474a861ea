/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_monout.c — libFuzzer harness for the mon.out reader
 * (format/monout_read.c, monout_parse), the one reader the runtime's files
 * and prof share.
 *
 * The input is a whole file image.  monout_parse must never crash, hang,
 * leak or read outside the image; on success the model it returns must
 * hold the invariants monout.h promises (calls and arcs sorted, each key
 * once, no zero counts; histograms with a valid scale and range), the
 * histogram helpers must stay in range, and writing the model back with the
 * library's own writer and reading that again must give the same model
 * (the writer and the reader agree on every file the reader accepts; done
 * for one accepted input in eight, chosen by its last byte).
 *
 * Every record carries a CRC, so almost every random mutation would stop at
 * the first checksum test.  The harness therefore parses each input twice:
 * as it is, and with the header's file size, record count and every CRC
 * recomputed (fix_checksums), which lets the mutations reach the decoding
 * of every record type.
 *
 * Built by `make fuzz` with clang -fsanitize=fuzzer,address,undefined, and
 * by tests/integ/robust_fuzz_replay.sh with fuzz/replay.c (no libFuzzer) to
 * replay the seeds and every input that once made it fail.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "monout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) ((c) ? (void)0 : abort())

static void check_model(const struct monout *m)
{
	for (size_t i = 1; i < m->ncalls; i++)
		CHECK(m->calls[i - 1].selfpc < m->calls[i].selfpc);
	for (size_t i = 0; i < m->ncalls; i++)
		CHECK(m->calls[i].count != 0);
	for (size_t i = 1; i < m->narcs; i++)
		CHECK(m->arcs[i - 1].selfpc < m->arcs[i].selfpc ||
		      (m->arcs[i - 1].selfpc == m->arcs[i].selfpc &&
		       m->arcs[i - 1].frompc < m->arcs[i].frompc));
	for (size_t i = 0; i < m->narcs; i++)
		CHECK(m->arcs[i].count != 0);
	for (size_t i = 0; i < m->nobjects; i++) {
		const struct monout_object *o = &m->objects[i];
		CHECK(o->text_lo <= o->text_hi);
		CHECK(o->path != NULL && strlen(o->path) <= o->path_len);
	}
	CHECK(m->run.cmdline == NULL || m->run.cmdline[m->run.cmdline_len] == '\0');
	CHECK(m->nstacks == 0 || m->have_stacks);
	for (size_t i = 0; i < m->nstacks; i++) {
		const struct monout_stack *s = &m->stacks[i];
		CHECK(s->count != 0 && s->depth >= 1 && s->depth <= m->stack_max_depth);
		CHECK(m->stack_max_depth <= MONOUT_STACK_MAX_DEPTH && s->pcs != NULL);
		(void)s->pcs[s->depth - 1];	/* ASan: the whole stack is allocated */
	}
	for (size_t i = 0; i < m->nhists; i++) {
		const struct monout_hist *h = &m->hists[i];
		CHECK(h->scale >= 2 && h->scale <= 65536 && h->lowpc < h->highpc);
		CHECK(h->counts != NULL);
		/* Kept sparse (MONOUT_PARSE_SPARSE, prof's way): pairs in
		 * order, each bin below nbins. */
		for (uint64_t k = 0; h->index != NULL && k < h->nnz; k++)
			CHECK(h->index[k] < h->nbins && (k == 0 || h->index[k - 1] < h->index[k]));
		CHECK(h->object == MONOUT_NO_OBJECT || h->object < m->nobjects);
		/* The bin of a PC and the first PC of a bin agree. */
		uint64_t probe[4] = { h->lowpc, h->highpc - 1, h->lowpc + (h->highpc - h->lowpc) / 2,
				      h->lowpc + 131072u / h->scale };
		for (int k = 0; k < 4; k++) {
			uint64_t b = monout_pc_to_bin(h, probe[k]);
			if (b == UINT64_MAX)
				continue;
			CHECK(b < h->nbins);
			uint64_t lo = monout_bin_lowpc(h, b);
			CHECK(lo <= probe[k]);
			CHECK(monout_pc_to_bin(h, lo) == b);
		}
	}
}

static int same_model(const struct monout *a, const struct monout *b)
{
	if (a->nobjects != b->nobjects || a->nhists != b->nhists || a->ncalls != b->ncalls ||
	    a->narcs != b->narcs || a->flags != b->flags)
		return 0;
	if (a->run.pid != b->run.pid || a->run.samples != b->run.samples ||
	    a->run.argc != b->run.argc || a->run.cmdline_len != b->run.cmdline_len)
		return 0;
	if (a->run.cmdline_len && memcmp(a->run.cmdline, b->run.cmdline, a->run.cmdline_len))
		return 0;
	for (size_t i = 0; i < a->nobjects; i++)
		if (a->objects[i].path_len != b->objects[i].path_len ||
		    memcmp(a->objects[i].path, b->objects[i].path, a->objects[i].path_len) ||
		    a->objects[i].build_id_len != b->objects[i].build_id_len ||
		    a->objects[i].load_bias != b->objects[i].load_bias)
			return 0;
	for (size_t i = 0; i < a->nhists; i++) {
		const struct monout_hist *x = &a->hists[i], *y = &b->hists[i];
		if (x->lowpc != y->lowpc || x->highpc != y->highpc || x->nbins != y->nbins ||
		    x->scale != y->scale || x->bin_bytes != y->bin_bytes ||
		    (x->index == NULL) != (y->index == NULL))
			return 0;
		/* Sparse: the pairs (work in proportion to the file); dense:
		 * every bin (bounded by the record's length). */
		size_t n = x->index != NULL ? x->nnz : x->nbins;
		if (x->index != NULL && (x->nnz != y->nnz ||
					 (n && memcmp(x->index, y->index, n * sizeof *x->index))))
			return 0;
		if (n && memcmp(x->counts, y->counts, n * sizeof *x->counts))
			return 0;
	}
	if (a->have_stacks != b->have_stacks || a->nstacks != b->nstacks ||
	    a->stacks_lost != b->stacks_lost || a->stacks_truncated != b->stacks_truncated ||
	    a->stack_max_depth != b->stack_max_depth)
		return 0;
	for (size_t i = 0; i < a->nstacks; i++) {
		const struct monout_stack *x = &a->stacks[i], *y = &b->stacks[i];
		if (x->count != y->count || x->tid != y->tid || x->depth != y->depth ||
		    x->flags != y->flags || memcmp(x->pcs, y->pcs, x->depth * sizeof *x->pcs))
			return 0;
	}
	return (a->ncalls == 0 || memcmp(a->calls, b->calls, a->ncalls * sizeof *a->calls) == 0) &&
	       (a->narcs == 0 || memcmp(a->arcs, b->arcs, a->narcs * sizeof *a->arcs) == 0);
}

/* Write m with the streaming writer into a memory file and parse it back. */
static void round_trip(const struct monout *m)
{
	static int fd = -2;
	if (fd == -2)
		fd = memfd_create("fuzz-monout", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 0) < 0 || lseek(fd, 0, SEEK_SET) < 0)
		return;
	if (monout_write_fd(fd, m) < 0)
		abort();	/* the writer refused a model the reader built */
	off_t n = lseek(fd, 0, SEEK_END);
	CHECK(n > 0);
	unsigned char *img = malloc((size_t)n);
	CHECK(img != NULL);
	CHECK(pread(fd, img, (size_t)n, 0) == n);
	struct monout again;
	char err[256];
	if (monout_parse_opts(img, (size_t)n, &again, MONOUT_PARSE_SPARSE, err, sizeof err) < 0)
		abort();	/* the reader refused what the writer wrote */
	CHECK(same_model(m, &again));
	monout_free(&again);
	free(img);
}

static uint64_t rd64(const unsigned char *p, int swap)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return swap ? __builtin_bswap64(v) : v;
}

static void wr32(unsigned char *p, uint32_t v, int swap)
{
	if (swap)
		v = __builtin_bswap32(v);
	memcpy(p, &v, 4);
}

/* Make the checksums, the file size and the record count of the image in
 * p[0..n) consistent with its content (walking the records as the reader
 * does, stopping where a length runs past the end). */
static void fix_checksums(unsigned char *p, size_t n)
{
	if (n < MONOUT_HEADER_SIZE)
		return;
	const uint16_t one = 1;
	int host_big = *(const unsigned char *)&one == 0;
	int swap = (p[10] == MONOUT_BIG) != host_big;
	uint64_t fsize = n;
	if (swap)
		fsize = __builtin_bswap64(fsize);
	memcpy(p + 16, &fsize, 8);
	size_t off = MONOUT_HEADER_SIZE;
	uint32_t nrec = 0;
	while (n - off >= MONOUT_REC_HEADER_SIZE) {
		uint64_t rlen = rd64(p + off + 8, swap);
		size_t pl = off + MONOUT_REC_HEADER_SIZE;
		if (rlen > n - pl)
			break;
		wr32(p + off + 4, monout_crc32(0, p + pl, (size_t)rlen), swap);
		nrec++;
		off = (pl + (size_t)rlen + 7) & ~(size_t)7;
		if (off >= n)
			break;
	}
	wr32(p + 24, nrec, swap);
	memset(p + 32, 0, 4);
	wr32(p + 32, monout_crc32(0, p, MONOUT_HEADER_SIZE), swap);
}

static void one(const uint8_t *data, size_t size)
{
	struct monout m;
	char err[256];
	memset(err, 'x', sizeof err);
	/* MONOUT_PARSE_SPARSE, as prof reads: a sparse record stays its pairs,
	 * so the work is in proportion to the input, not to the bins a record
	 * declares (up to MONOUT_MAX_BINS; fuzz/regress/monout/
	 * slow-hist-many-bins declared 2^26 and made each run expand and
	 * compare 512 MB).  The dense expansion of the default parse is a
	 * test tools' convenience: tests/unit/test_monout covers it. */
	if (monout_parse_opts(data, size, &m, MONOUT_PARSE_SPARSE, err, sizeof err) < 0) {
		CHECK(memchr(err, '\0', sizeof err) != NULL && err[0] != '\0');
		CHECK(m.nobjects == 0 && m.objects == NULL && m.nhists == 0 && m.calls == NULL);
		return;
	}
	check_model(&m);
	/* The round trip costs a file write: one accepted input in eight (by
	 * its last byte) is enough to keep the writer covered. */
	if (size && (data[size - 1] & 0x70) == 0)
		round_trip(&m);
	monout_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	one(data, size);
	if (size >= MONOUT_HEADER_SIZE) {
		unsigned char *copy = malloc(size);
		CHECK(copy != NULL);
		memcpy(copy, data, size);
		fix_checksums(copy, size);
		one(copy, size);
		free(copy);
	}
	return 0;
}
