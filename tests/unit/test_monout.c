/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_monout.c — the mon.out reader and writer (format/monout_read.c,
 * monout_write.c): round trip of every field, merging, and rejection of
 * truncated, foreign, other-version and corrupted files with the message
 * naming the fault.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "monout.h"

static const char cmd[] = "prog\0-x\0arg three";	/* 3 strings, last without NUL */
static const uint8_t bid[20] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 };
static unsigned short raw16[5] = { 0, 7, 65535, 1, 2 };
static uint64_t wide[3] = { 5, 70000, 1ull << 40 };
static struct monout_call calls[] = { { 0x1010, 3 }, { 0, 9 }, { 0x1000, 0 }, { 0x1010, 4 }, { 0x2000, 1 } };
static struct monout_arc arcs[] = { { 0x3000, 0x1010, 2 }, { 0x3010, 0x1010, 5 }, { 0x3000, 0x1010, 5 },
				    { 0x5, 0x0, 7 } };

/* Write a sample profile into a memory buffer (via a temporary file). */
static unsigned char *sample(size_t *len)
{
	struct monout_object objs[2] = {
		{ 0x555500000000ull, 0x555500001000ull, 0x555500002000ull, MONOUT_OBJ_MAIN,
		  sizeof bid, bid, 9, "/bin/prog", 0, 0, 0, 0, 0 },
		{ 0x7f0000000000ull, 0x7f0000010000ull, 0x7f0000020000ull, 0, 0, NULL, 11, "libc.so.6xx", 0, 0, 0, 0, 0 },
	};
	objs[1].path_len = 9;	/* only "libc.so.6" */
	struct monout_hist hists[2] = {
		{ 0x555500001000ull, 0x555500001014ull, 5, 0x8000, 2, MONOUT_HIST_SATURATES, 0, NULL, raw16, NULL, 0, NULL, 0 },
		{ 0x7f0000010000ull, 0x7f0000010010ull, 3, 0x4000, 4, 0, 1, wide, NULL, NULL, 0, NULL, 0 },
	};
	struct monout m;
	memset(&m, 0, sizeof m);
	m.flags = MONOUT_F_SNAPSHOT;
	m.run.pid = 4242;
	m.run.ppid = 1;
	m.run.clock = 2;
	m.run.rate_hz = 1000;
	m.run.user_usec = 1500000;
	m.run.sys_usec = 20000;
	m.run.samples = 1520;
	m.run.counted = 1500;
	m.run.dropped = 10;
	m.run.saturated = 3;
	m.run.lost = 7;
	m.run.calls_lost = 1;
	m.run.time = 1700000000;
	m.run.signal = 15;
	m.run.reason = MONOUT_WHY_SIGNAL;
	m.run.argc = 3;
	m.run.cmdline = cmd;
	m.run.cmdline_len = sizeof cmd - 1;
	m.nobjects = 2;
	m.objects = objs;
	m.nhists = 2;
	m.hists = hists;
	m.ncalls = sizeof calls / sizeof calls[0];
	m.calls = calls;
	m.narcs = sizeof arcs / sizeof arcs[0];
	m.arcs = arcs;
	FILE *f = tmpfile();
	assert_non_null(f);
	assert_int_equal(monout_write_fd(fileno(f), &m), 0);
	long n = lseek(fileno(f), 0, SEEK_END);
	assert_true(n > 0);
	unsigned char *buf = malloc((size_t)n);
	assert_int_equal(pread(fileno(f), buf, (size_t)n, 0), n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void roundtrip(void **state)
{
	(void)state;
	size_t len;
	unsigned char *buf = sample(&len);
	struct monout m;
	char err[200];
	assert_int_equal(monout_parse(buf, len, &m, err, sizeof err), 0);
	assert_int_equal(m.version, MONOUT_VERSION);
	assert_int_equal(m.addr_size, sizeof(void *));
	assert_int_equal(m.flags, MONOUT_F_SNAPSHOT);
	assert_int_equal(m.run.pid, 4242);
	assert_int_equal(m.run.ppid, 1);
	assert_int_equal(m.run.clock, 2);
	assert_int_equal(m.run.rate_hz, 1000);
	assert_int_equal(m.run.user_usec, 1500000);
	assert_int_equal(m.run.sys_usec, 20000);
	assert_int_equal(m.run.samples, 1520);
	assert_int_equal(m.run.counted, 1500);
	assert_int_equal(m.run.dropped, 10);
	assert_int_equal(m.run.saturated, 3);
	assert_int_equal(m.run.lost, 7);
	assert_int_equal(m.run.calls_lost, 1);
	assert_int_equal(m.run.time, 1700000000);
	assert_int_equal(m.run.signal, 15);
	assert_int_equal(m.run.reason, MONOUT_WHY_SIGNAL);
	/* The unterminated last argument got its NUL. */
	assert_int_equal(m.run.argc, 3);
	assert_int_equal(m.run.cmdline_len, sizeof cmd);
	assert_memory_equal(m.run.cmdline, cmd, sizeof cmd);
	assert_int_equal(m.nobjects, 2);
	assert_int_equal(m.objects[0].load_bias, 0x555500000000ull);
	assert_int_equal(m.objects[0].text_lo, 0x555500001000ull);
	assert_int_equal(m.objects[0].text_hi, 0x555500002000ull);
	assert_int_equal(m.objects[0].flags, MONOUT_OBJ_MAIN);
	assert_int_equal(m.objects[0].build_id_len, sizeof bid);
	assert_memory_equal(m.objects[0].build_id, bid, sizeof bid);
	assert_string_equal(m.objects[0].path, "/bin/prog");
	assert_string_equal(m.objects[1].path, "libc.so.6");
	assert_int_equal(m.objects[1].build_id_len, 0);
	assert_int_equal(m.nhists, 2);
	assert_int_equal(m.hists[0].nbins, 5);
	assert_int_equal(m.hists[0].bin_bytes, 2);
	assert_int_equal(m.hists[0].scale, 0x8000);
	assert_int_equal(m.hists[0].flags, MONOUT_HIST_SATURATES);
	assert_int_equal(m.hists[0].object, 0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(m.hists[0].counts[i], raw16[i]);
	/* Written 4 bytes wide from 64-bit counts: clipped at 2^32-1. */
	assert_int_equal(m.hists[1].bin_bytes, 4);
	assert_int_equal(m.hists[1].object, 1);
	assert_int_equal(m.hists[1].counts[0], 5);
	assert_int_equal(m.hists[1].counts[1], 70000);
	assert_int_equal(m.hists[1].counts[2], 0xffffffffu);
	/* Calls: zero selfpc/count dropped, duplicates merged, sorted. */
	assert_int_equal(m.ncalls, 2);
	assert_int_equal(m.calls[0].selfpc, 0x1010);
	assert_int_equal(m.calls[0].count, 7);
	assert_int_equal(m.calls[1].selfpc, 0x2000);
	assert_int_equal(m.calls[1].count, 1);
	assert_int_equal(m.narcs, 2);
	assert_int_equal(m.arcs[0].frompc, 0x3000);
	assert_int_equal(m.arcs[0].count, 7);
	assert_int_equal(m.arcs[1].frompc, 0x3010);
	assert_int_equal(m.arcs[1].count, 5);
	monout_free(&m);
	free(buf);
}

static void bins_and_pcs(void **state)
{
	(void)state;
	struct monout_hist h = { 0x1000, 0x1100, 64, 0x8000, 2, 0, 0, NULL, NULL, NULL, 0, NULL, 0 };
	assert_int_equal(monout_pc_to_bin(&h, 0x1000), 0);
	assert_int_equal(monout_pc_to_bin(&h, 0x1003), 0);
	assert_int_equal(monout_pc_to_bin(&h, 0x1004), 1);
	assert_int_equal(monout_pc_to_bin(&h, 0x10ff), 63);
	assert_true(monout_pc_to_bin(&h, 0xfff) == UINT64_MAX);
	assert_true(monout_pc_to_bin(&h, 0x1100) == UINT64_MAX);
	assert_int_equal(monout_bin_lowpc(&h, 1), 0x1004);
	h.scale = 0x6000;	/* 5.33 bytes per bin: check every boundary */
	for (uint64_t i = 1; i < 40; i++) {
		uint64_t lo = monout_bin_lowpc(&h, i);
		assert_int_equal(monout_pc_to_bin(&h, lo), i);
		assert_int_equal(monout_pc_to_bin(&h, lo - 1), i - 1);
	}
	assert_int_equal(monout_crc32(0, "123456789", 9), 0xcbf43926u);
}

static void expect_error(const unsigned char *buf, size_t len, const char *want)
{
	struct monout m;
	char err[200];
	errno = 0;
	assert_int_equal(monout_parse(buf, len, &m, err, sizeof err), -1);
	assert_int_equal(errno, EINVAL);
	if (strstr(err, want) == NULL)
		fail_msg("message '%s' does not say '%s'", err, want);
	assert_null(m.calls);
	assert_int_equal(m.nhists, 0);
}

static void truncated(void **state)
{
	(void)state;
	size_t len;
	unsigned char *buf = sample(&len);
	for (size_t n = 0; n < len; n++)
		expect_error(buf, n, "truncated");
	free(buf);
}

static void foreign(void **state)
{
	(void)state;
	size_t len;
	unsigned char *buf = sample(&len);
	unsigned char *c = malloc(len);
	memcpy(c, buf, len);
	c[1] = 'X';
	expect_error(c, len, "not a mon.out file (bad magic)");
	memcpy(c, "gmon\1\0\0\0", 8);
	expect_error(c, len, "gprof gmon.out");
	memcpy(c, buf, len);
	c[8] = 2;	/* version 2 (little-endian host) */
	c[9] = 0;
	expect_error(c, len, "version 2 not supported");
	free(c);
	free(buf);
}

static void corrupted(void **state)
{
	(void)state;
	size_t len;
	unsigned char *buf = sample(&len);
	unsigned char *c = malloc(len + 8);
	/* Every single-bit flip anywhere is caught (checksums and checks). */
	for (size_t i = 0; i < len; i++) {
		memcpy(c, buf, len);
		c[i] ^= 0x10;
		struct monout m;
		char err[200];
		if (monout_parse(c, len, &m, err, sizeof err) == 0)
			fail_msg("flip at byte %zu not detected", i);
		assert_true(err[0] != '\0');
	}
	/* A payload byte: its record is named. */
	memcpy(c, buf, len);
	c[MONOUT_HEADER_SIZE + MONOUT_REC_HEADER_SIZE + 3] ^= 1;
	expect_error(c, len, "record 0 (RUN) at offset 64: checksum mismatch");
	memcpy(c, buf, len);
	c[20] ^= 1;
	expect_error(c, len, "corrupted header: checksum mismatch");
	/* Extra bytes after a complete file. */
	memcpy(c, buf, len);
	memset(c + len, 0, 8);
	expect_error(c, len + 8, "inconsistent");
	free(c);
	free(buf);
}

static void inconsistent_records(void **state)
{
	(void)state;
	/* A HIST with lowpc >= highpc, checksummed correctly: rejected by name. */
	struct monout_hist h = { 0x2000, 0x1000, 1, 0x8000, 2, 0, MONOUT_NO_OBJECT, NULL, raw16, NULL, 0, NULL, 0 };
	struct monout m;
	memset(&m, 0, sizeof m);
	m.nhists = 1;
	m.hists = &h;
	FILE *f = tmpfile();
	assert_int_equal(monout_write_fd(fileno(f), &m), 0);
	unsigned char buf[4096];
	ssize_t n = pread(fileno(f), buf, sizeof buf, 0);
	fclose(f);
	expect_error(buf, (size_t)n, "(HIST) at offset");
	expect_error(buf, (size_t)n, "not below highpc");
	/* A histogram naming an object the file does not have. */
	h.lowpc = 0x1000;
	h.highpc = 0x2000;
	h.object = 3;
	f = tmpfile();
	assert_int_equal(monout_write_fd(fileno(f), &m), 0);
	n = pread(fileno(f), buf, sizeof buf, 0);
	fclose(f);
	expect_error(buf, (size_t)n, "names object 3");
}

/* Recompute every record's checksum and the header's after a test edited
 * a file image (little-endian host, as the writer wrote it). */
static void refresh_crcs(unsigned char *buf, size_t len)
{
	size_t off = MONOUT_HEADER_SIZE;
	uint32_t nrec;
	memcpy(&nrec, buf + 24, 4);
	for (uint32_t i = 0; i < nrec && off + MONOUT_REC_HEADER_SIZE <= len; i++) {
		uint64_t rlen;
		memcpy(&rlen, buf + off + 8, 8);
		if (rlen > len - off - MONOUT_REC_HEADER_SIZE)
			break;	/* a length made to run past the file: its records stay */
		uint32_t crc = monout_crc32(0, buf + off + MONOUT_REC_HEADER_SIZE, (size_t)rlen);
		memcpy(buf + off + 4, &crc, 4);
		off += MONOUT_REC_HEADER_SIZE + (((size_t)rlen + 7) & ~(size_t)7);
	}
	memset(buf + 32, 0, 4);
	uint32_t crc = monout_crc32(0, buf, MONOUT_HEADER_SIZE);
	memcpy(buf + 32, &crc, 4);
}

/* Offset of the first record of type t in a file image. */
static size_t record_at(const unsigned char *buf, uint32_t t)
{
	size_t off = MONOUT_HEADER_SIZE;
	for (;;) {
		uint32_t type;
		uint64_t rlen;
		memcpy(&type, buf + off, 4);
		memcpy(&rlen, buf + off + 8, 8);
		if (type == t)
			return off;
		off += MONOUT_REC_HEADER_SIZE + (((size_t)rlen + 7) & ~(size_t)7);
	}
}

/* The FILES record (minor 6): an entry for each object with file_flags,
 * read back onto its OBJECT; an entry naming an object the file has not
 * described, or with flags 0, is rejected by name. */
static void files_record(void **state)
{
	(void)state;
	struct monout_object o[2];
	memset(o, 0, sizeof o);
	o[0].path = "/bin/with-id";
	o[0].path_len = 12;
	o[1].path = "/bin/no-id";
	o[1].path_len = 10;
	o[1].file_flags = MONOUT_FILE_STAT | MONOUT_FILE_TEXT;
	o[1].file_size = 16016;
	o[1].file_mtime_ns = 1764595200123456789ull;
	o[1].text_crc = 0xdeadbeefu;
	struct monout m, r;
	char err[200];
	memset(&m, 0, sizeof m);
	m.nobjects = 2;
	m.objects = o;
	FILE *f = tmpfile();
	assert_int_equal(monout_write_fd(fileno(f), &m), 0);
	unsigned char buf[4096];
	ssize_t n = pread(fileno(f), buf, sizeof buf, 0);
	fclose(f);
	assert_int_equal(monout_parse(buf, (size_t)n, &r, err, sizeof err), 0);
	assert_int_equal(r.nobjects, 2);
	assert_int_equal(r.objects[0].file_flags, 0);
	assert_int_equal(r.objects[1].file_flags, MONOUT_FILE_STAT | MONOUT_FILE_TEXT);
	assert_int_equal(r.objects[1].file_size, 16016);
	assert_true(r.objects[1].file_mtime_ns == 1764595200123456789ull);
	assert_int_equal(r.objects[1].text_crc, 0xdeadbeefu);
	monout_free(&r);
	size_t at = record_at(buf, MONOUT_REC_FILES) + MONOUT_REC_HEADER_SIZE;
	uint32_t v = 2;
	memcpy(buf + at, &v, 4);
	refresh_crcs(buf, (size_t)n);
	expect_error(buf, (size_t)n, "(FILES) at offset");
	v = 1;
	memcpy(buf + at, &v, 4);
	v = 0;
	memcpy(buf + at + 4, &v, 4);
	refresh_crcs(buf, (size_t)n);
	expect_error(buf, (size_t)n, "flags 0x0");
}

/* The IMAGES record (minor 3): written and read back entry by entry; a
 * record without exactly one entry for this image, or an entry that runs
 * past the record, is rejected by name. */
static void images_record(void **state)
{
	(void)state;
	struct monout_image v[3] = {
		{ MONOUT_IMAGE_EARLIER, 7, "/bin/sh", 13, "mon.out.exec1" },
		{ MONOUT_IMAGE_THIS, 9, "/bin/prog", 0, "" },
		{ MONOUT_IMAGE_NEXT, 8, "./other", 0, NULL },
	};
	struct monout m, r;
	char err[200];
	memset(&m, 0, sizeof m);
	m.nimages = 3;
	m.images = v;
	FILE *f = tmpfile();
	assert_int_equal(monout_write_fd(fileno(f), &m), 0);
	unsigned char buf[4096];
	ssize_t n = pread(fileno(f), buf, sizeof buf, 0);
	fclose(f);
	uint32_t minor;
	memcpy(&minor, buf + 36, 4);
	assert_int_equal(minor, MONOUT_MINOR);
	assert_int_equal(monout_parse(buf, (size_t)n, &r, err, sizeof err), 0);
	assert_int_equal(r.nimages, 3);
	for (int i = 0; i < 3; i++)
		assert_int_equal(r.images[i].role, v[i].role);
	assert_string_equal(r.images[0].path, "/bin/sh");
	assert_string_equal(r.images[0].file, "mon.out.exec1");
	assert_string_equal(r.images[1].path, "/bin/prog");
	assert_string_equal(r.images[1].file, "");
	assert_string_equal(r.images[2].path, "./other");
	monout_free(&r);
	/* Two entries for this image. */
	v[2].role = MONOUT_IMAGE_THIS;
	f = tmpfile();
	assert_int_equal(monout_write_fd(fileno(f), &m), 0);
	n = pread(fileno(f), buf, sizeof buf, 0);
	fclose(f);
	expect_error(buf, (size_t)n, "(IMAGES) at offset");
	expect_error(buf, (size_t)n, "2 entries for this image");
	/* A path length that runs past the record. */
	v[2].role = MONOUT_IMAGE_NEXT;
	v[2].path_len = 8;
	f = tmpfile();
	assert_int_equal(monout_write_fd(fileno(f), &m), 0);
	n = pread(fileno(f), buf, sizeof buf, 0);
	fclose(f);
	size_t at = record_at(buf, MONOUT_REC_IMAGES) + MONOUT_REC_HEADER_SIZE;
	uint32_t big = 4000;
	memcpy(buf + at + 4, &big, 4);
	refresh_crcs(buf, (size_t)n);
	expect_error(buf, (size_t)n, "do not fit");
}

/* Sparse histograms: only the non-zero bins travel, the reader gives back
 * every bin; pairs out of order, out of range or zero, and absurd bin
 * counts, are refused by name. */
static void sparse_hist(void **state)
{
	(void)state;
	static uint32_t bins32[100000];
	memset(bins32, 0, sizeof bins32);
	bins32[0] = 1;
	bins32[4711] = 70000;
	bins32[99999] = 3;
	struct monout_hist h = { 0x10000, 0x10000 + 4 * 100000, 100000, 0x8000, 4,
				 MONOUT_HIST_SPARSE, MONOUT_NO_OBJECT, NULL, bins32, NULL, 0, NULL, 0 };
	struct monout m;
	memset(&m, 0, sizeof m);
	m.run.rate_hz = 1000;
	m.nhists = 1;
	m.hists = &h;
	FILE *f = tmpfile();
	assert_int_equal(monout_write_fd(fileno(f), &m), 0);
	static unsigned char buf[8192];
	ssize_t n = pread(fileno(f), buf, sizeof buf, 0);
	fclose(f);
	assert_true(n > 0 && n < 1024);	/* 3 pairs, not 400 000 bytes of bins */
	struct monout r;
	char err[200];
	assert_int_equal(monout_parse(buf, (size_t)n, &r, err, sizeof err), 0);
	assert_int_equal(r.nhists, 1);
	assert_int_equal(r.hists[0].nbins, 100000);
	assert_int_equal(r.hists[0].flags, MONOUT_HIST_SPARSE);
	for (size_t i = 0; i < 100000; i++)
		assert_int_equal(r.hists[0].counts[i], bins32[i]);
	monout_free(&r);
	/* MONOUT_PARSE_SPARSE: the reader keeps the 3 pairs, not 100 000 bins. */
	assert_int_equal(monout_parse_opts(buf, (size_t)n, &r, MONOUT_PARSE_SPARSE, err, sizeof err), 0);
	assert_int_equal(r.hists[0].nbins, 100000);
	assert_int_equal(r.hists[0].nnz, 3);
	assert_non_null(r.hists[0].index);
	assert_int_equal(r.hists[0].index[0], 0);
	assert_int_equal(r.hists[0].counts[0], 1);
	assert_int_equal(r.hists[0].index[1], 4711);
	assert_int_equal(r.hists[0].counts[1], 70000);
	assert_int_equal(r.hists[0].index[2], 99999);
	assert_int_equal(r.hists[0].counts[2], 3);
	/* A model kept sparse is written back as its pairs: the same bytes,
	 * and work in proportion to the pairs, not to the bins it declares
	 * (2^26 here: a writer that walks the bins reads far past the 3
	 * counts). */
	f = tmpfile();
	assert_int_equal(monout_write_fd(fileno(f), &r), 0);
	static unsigned char back[8192];
	assert_int_equal(pread(fileno(f), back, sizeof back, 0), n);
	fclose(f);
	assert_memory_equal(back, buf, (size_t)n);
	r.hists[0].nbins = MONOUT_MAX_BINS;
	f = tmpfile();
	assert_int_equal(monout_write_fd(fileno(f), &r), 0);
	ssize_t bn = pread(fileno(f), back, sizeof back, 0);
	fclose(f);
	assert_int_equal(bn, n);
	uint64_t keep = r.hists[0].index[1];
	r.hists[0].index[1] = r.hists[0].index[2];	/* out of order: refused */
	f = tmpfile();
	assert_int_equal(monout_write_fd(fileno(f), &r), -1);
	assert_int_equal(errno, EINVAL);
	fclose(f);
	r.hists[0].index[1] = keep;
	monout_free(&r);
	struct monout big;
	assert_int_equal(monout_parse_opts(back, (size_t)bn, &big, MONOUT_PARSE_SPARSE, err, sizeof err),
			 0);
	assert_int_equal(big.hists[0].nbins, MONOUT_MAX_BINS);
	assert_int_equal(big.hists[0].nnz, 3);
	assert_int_equal(big.hists[0].index[2], 99999);
	monout_free(&big);

	/* With a touched map, spans whose bit is clear are not read: bin 4711
	 * (span 4 of 1024 bins) is left out, bins 0 and 99999 are written. */
	uint64_t touched[2] = { (uint64_t)1 << 0, (uint64_t)1 << (97 - 64) };
	h.touched = touched;
	h.touched_span = 1024;
	f = tmpfile();
	assert_int_equal(monout_write_fd(fileno(f), &m), 0);
	static unsigned char tbuf[8192];
	ssize_t tn = pread(fileno(f), tbuf, sizeof tbuf, 0);
	fclose(f);
	assert_int_equal(monout_parse(tbuf, (size_t)tn, &r, err, sizeof err), 0);
	assert_int_equal(r.hists[0].counts[0], 1);
	assert_int_equal(r.hists[0].counts[4711], 0);
	assert_int_equal(r.hists[0].counts[99999], 3);
	monout_free(&r);

	size_t pairs = record_at(buf, MONOUT_REC_HIST) + MONOUT_REC_HEADER_SIZE + MONOUT_HIST_FIXED;
	unsigned char swapped[8192];
	memcpy(swapped, buf, (size_t)n);
	memcpy(swapped + pairs, buf + pairs + 16, 16);	/* pair 1 first, then pair 0 */
	memcpy(swapped + pairs + 16, buf + pairs, 16);
	refresh_crcs(swapped, (size_t)n);
	expect_error(swapped, (size_t)n, "out of order, out of range or zero");

	memcpy(swapped, buf, (size_t)n);
	uint64_t huge = MONOUT_MAX_BINS + 1;
	memcpy(swapped + record_at(buf, MONOUT_REC_HIST) + MONOUT_REC_HEADER_SIZE + 16, &huge, 8);
	refresh_crcs(swapped, (size_t)n);
	expect_error(swapped, (size_t)n, "bins (at most");
}

static void write_errors(void **state)
{
	(void)state;
	struct monout m;
	memset(&m, 0, sizeof m);
	FILE *f = fopen("/dev/null", "r");
	errno = 0;
	assert_int_equal(monout_write_fd(fileno(f), &m), -1);
	assert_int_equal(errno, EBADF);
	fclose(f);
	struct monout_hist h = { 0x1000, 0x2000, 1, 0x8000, 3, 0, 0, NULL, raw16, NULL, 0, NULL, 0 };
	m.nhists = 1;
	m.hists = &h;
	f = tmpfile();
	errno = 0;
	assert_int_equal(monout_write_fd(fileno(f), &m), -1);
	assert_int_equal(errno, EINVAL);
	fclose(f);
}

static void read_file_errors(void **state)
{
	(void)state;
	struct monout m;
	char err[200];
	assert_int_equal(monout_read_file("/nonexistent/mon.out", &m, err, sizeof err), -1);
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(err, "cannot open"));
	assert_int_equal(monout_read_file("/", &m, err, sizeof err), -1);
	assert_int_equal(errno, EISDIR);
}

/* The file's checksums are IEEE CRC-32 (as zlib's crc32): the standard
 * check value, any split of the input, every length around the 8-byte
 * stride, against a bit-at-a-time reference. */
/* Write m to a memory image; *len gets its size. */
static unsigned char *image_of(const struct monout *m, size_t *len)
{
	FILE *f = tmpfile();
	assert_non_null(f);
	assert_int_equal(monout_write_fd(fileno(f), m), 0);
	*len = (size_t)lseek(fileno(f), 0, SEEK_END);
	unsigned char *buf = malloc(*len);
	assert_non_null(buf);
	assert_int_equal(pread(fileno(f), buf, *len, 0), (ssize_t)*len);
	fclose(f);
	return buf;
}

/* The STACKS record (minor 4): written by the streamed writer, read back
 * merged (identical tid, flags and pcs add up; count 0 and depth 0 left
 * out by the writer), several records summed; every length is checked:
 * a depth of 0, above the record's max depth or above 512, an entry
 * running past the record, a count of 0, a max depth out of 1..512 and
 * a short fixed part are refused by name.  A file of minor 3 (without
 * STACKS) still reads.  (A reader of minor 3 skips the record as any
 * type of a newer minor: coverage_records.) */
static void stacks_record(void **state)
{
	(void)state;
	static const uint64_t a[3] = { 0x1010, 0x2020, 0x3030 }, b[2] = { 0x1014, 0x3030 };
	struct monout m;
	memset(&m, 0, sizeof m);
	m.run.rate_hz = 1000;
	FILE *f = tmpfile();
	struct monout_writer w;
	assert_int_equal(monout_begin(&w, fileno(f), 0), 0);
	assert_int_equal(monout_put_run(&w, &m.run), 0);
	struct monout_stacks_head h = { 64, 7, 5, 0 };
	assert_int_equal(monout_stacks_open(&w, &h), 0);
	assert_int_equal(monout_stacks_add(&w, 3, 11, 0, a, 3), 0);
	assert_int_equal(monout_stacks_add(&w, 0, 11, 0, a, 3), 0);	/* empty cell */
	assert_int_equal(monout_stacks_add(&w, 9, 11, 0, a, 0), 0);	/* empty cell */
	assert_int_equal(monout_stacks_add(&w, 5, 12, MONOUT_STACK_TRUNCATED, b, 2), 0);
	assert_int_equal(monout_stacks_add(&w, 4, 11, 0, a, 3), 0);	/* same as the first */
	assert_int_equal(monout_stacks_add(&w, 2, 11, 0, a, 2), 0);	/* a prefix: not the same */
	assert_int_equal(monout_stacks_close(&w), 0);
	h = (struct monout_stacks_head){ 128, 1, 0, 0 };
	assert_int_equal(monout_stacks_open(&w, &h), 0);
	assert_int_equal(monout_stacks_add(&w, 1, 11, 0, a, 3), 0);	/* in a second record */
	assert_int_equal(monout_stacks_add(&w, 6, 11, MONOUT_STACK_JIT, a, 3), 0);
	assert_int_equal(monout_stacks_close(&w), 0);
	assert_int_equal(monout_end(&w), 0);
	size_t len = (size_t)lseek(fileno(f), 0, SEEK_END);
	unsigned char *buf = malloc(len);
	assert_int_equal(pread(fileno(f), buf, len, 0), (ssize_t)len);
	fclose(f);
	uint32_t minor;
	memcpy(&minor, buf + 36, 4);
	assert_int_equal(minor, MONOUT_MINOR);
	struct monout r;
	char err[200];
	assert_int_equal(monout_parse(buf, len, &r, err, sizeof err), 0);
	assert_true(r.have_stacks);
	assert_int_equal(r.stack_max_depth, 128);
	assert_int_equal(r.stacks_lost, 8);
	assert_int_equal(r.stacks_truncated, 5);
	assert_int_equal(r.nstacks, 4);
	/* Sorted by tid, flags, depth, pcs. */
	assert_int_equal(r.stacks[0].tid, 11);
	assert_int_equal(r.stacks[0].depth, 2);
	assert_int_equal(r.stacks[0].count, 2);
	assert_int_equal(r.stacks[1].depth, 3);
	assert_int_equal(r.stacks[1].count, 8);	/* 3 + 4 + 1 */
	assert_int_equal(r.stacks[1].flags, 0);
	assert_memory_equal(r.stacks[1].pcs, a, sizeof a);
	assert_int_equal(r.stacks[2].flags, MONOUT_STACK_JIT);
	assert_int_equal(r.stacks[2].count, 6);
	assert_int_equal(r.stacks[3].tid, 12);
	assert_int_equal(r.stacks[3].flags, MONOUT_STACK_TRUNCATED);
	assert_int_equal(r.stacks[3].pcs[0], 0x1014);
	assert_int_equal(r.stacks[3].pcs[1], 0x3030);
	/* monout_write_fd writes the model back as one record: same model. */
	size_t len2;
	unsigned char *buf2 = image_of(&r, &len2);
	struct monout r2;
	assert_int_equal(monout_parse(buf2, len2, &r2, err, sizeof err), 0);
	assert_int_equal(r2.nstacks, 4);
	assert_int_equal(r2.stacks_lost, 8);
	assert_int_equal(r2.stack_max_depth, 128);
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(r2.stacks[i].count, r.stacks[i].count);
		assert_int_equal(r2.stacks[i].depth, r.stacks[i].depth);
		assert_memory_equal(r2.stacks[i].pcs, r.stacks[i].pcs, r.stacks[i].depth * 8);
	}
	monout_free(&r2);
	free(buf2);
	monout_free(&r);

	/* Damage, one field at a time, in the first STACKS record (fixed
	 * part at p, its first entry at e: count 3, tid 11, depth 3). */
	size_t at = record_at(buf, MONOUT_REC_STACKS), p = at + MONOUT_REC_HEADER_SIZE;
	size_t e = p + MONOUT_STACKS_FIXED;
	unsigned char *c = malloc(len);
	uint32_t v32;
	uint64_t v64;
#define DAMAGE(off, val, want)                       \
	do {                                         \
		memcpy(c, buf, len);                 \
		memcpy(c + (off), &(val), sizeof(val)); \
		refresh_crcs(c, len);                \
		expect_error(c, len, want);          \
	} while (0)
	v32 = 0;
	DAMAGE(e + 16, v32, "entry 0 has depth 0 (1..64 expected)");
	v32 = 65;
	DAMAGE(e + 16, v32, "entry 0 has depth 65 (1..64 expected)");
	v32 = 3;	/* the last entry (depth 2, at e + 136): 8 bytes more than it has */
	DAMAGE(e + 136 + 16, v32, "entry 3 of depth 3 runs past the record");
	v32 = 600;
	DAMAGE(p, v32, "max depth 600 out of range 1..512");
	v32 = 0;
	DAMAGE(p, v32, "max depth 0 out of range 1..512");
	v64 = 0;
	DAMAGE(e, v64, "entry 0 has a count of 0");
	/* A record whose last entry lost its last 8 bytes (length shortened):
	 * that entry runs past the record. */
	{
		uint64_t rlen;
		memcpy(&rlen, buf + at + 8, 8);
		memcpy(c, buf, len);
		uint64_t shorter = rlen - 8;
		memcpy(c + at + 8, &shorter, 8);
		/* keep the padding zero and the file walkable: zero the cut bytes */
		memset(c + at + MONOUT_REC_HEADER_SIZE + shorter, 0, 8);
		refresh_crcs(c, len);
		expect_error(c, len, "runs past the record");
		/* Cut 30 bytes: 10 of the last entry's (40 bytes: depth 2)
		 * are left, not even its 24-byte head. */
		shorter = rlen - 30;
		memcpy(c, buf, len);
		memcpy(c + at + 8, &shorter, 8);
		memset(c + at + MONOUT_REC_HEADER_SIZE + shorter, 0, 30);
		refresh_crcs(c, len);
		expect_error(c, len, "truncated (10 bytes left, 24 needed)");
		/* A fixed part of 24 bytes. */
		uint64_t l24 = 24;
		memcpy(c, buf, len);
		memcpy(c + at + 8, &l24, 8);
		memset(c + at + MONOUT_REC_HEADER_SIZE + 24, 0, rlen - 24);
		refresh_crcs(c, len);
		expect_error(c, len, "(STACKS) at offset");
		expect_error(c, len, "24 bytes, at least 32 expected");
	}
	/* A file of minor 3 (before STACKS) still reads: no stacks. */
	{
		struct monout o;
		memset(&o, 0, sizeof o);
		o.run.rate_hz = 100;
		size_t n3;
		unsigned char *b3 = image_of(&o, &n3);
		uint32_t three = 3;
		memcpy(b3 + 36, &three, 4);
		refresh_crcs(b3, n3);
		assert_int_equal(monout_parse(b3, n3, &r, err, sizeof err), 0);
		assert_false(r.have_stacks);
		assert_int_equal(r.nstacks, 0);
		monout_free(&r);
		free(b3);
	}
#undef DAMAGE
	free(c);
	free(buf);
}

/* The WALL record (minor 5): threads, waits and samples written by the
 * streamed writer in any order and read back: samples of identical (tid,
 * state, syscall, wait, flags, pcs) add up, waits of identical content are
 * kept once and samples point at them by index, threads are sorted by tid;
 * a count of 0 or a tid of 0 is left out by the writer; a running sample
 * has no stack.  Damage is refused by name: a second WALL, a short fixed
 * part, max depth 0, an entry length not a multiple of 8 or past the
 * record, a sample of count 0, state 0 or 7, depth above max depth, a wait
 * id no entry has, two waits of one id, a wait kind 3, a text that does
 * not fill its entry, an object the file lacks.  An entry kind this reader
 * does not know is skipped; a reader of minor 4 skips the record (as any
 * type of a newer minor: coverage_records); a file of minor 4 reads. */
static void wall_record(void **state)
{
	(void)state;
	static const uint64_t a[3] = { 0x1010, 0x2020, 0x3030 }, b[2] = { 0x1014, 0x3030 };
	struct monout m;
	memset(&m, 0, sizeof m);
	m.run.rate_hz = 1000;
	struct monout_object obj = { 0x400000, 0x401000, 0x402000, MONOUT_OBJ_MAIN, 0, NULL, 9,
				     "/bin/true", 0, 0, 0, 0, 0 };
	FILE *f = tmpfile();
	struct monout_writer w;
	assert_int_equal(monout_begin(&w, fileno(f), 0), 0);
	assert_int_equal(monout_put_run(&w, &m.run), 0);
	assert_int_equal(monout_put_object(&w, &obj), 0);
	struct monout_wall_head h = { 100, 64, 2500000, 250, 3, 1200, 3400, MONOUT_WALL_F_THREADS_FULL,
				      2, 9, 62 };
	assert_int_equal(monout_wall_open(&w, &h), 0);
	struct monout_wall_thread t1 = { 12, 250, 248, 2, 0, 2500000, 0, "main" };
	struct monout_wall_thread t2 = { 11, 100, 100, 0, 1000000, 2000000,
					 MONOUT_WALL_THREAD_STARTED | MONOUT_WALL_THREAD_ENDED, "" };
	memcpy(t2.name, "worker-15-chars", 16);
	struct monout_wall_thread t0 = { 0, 1, 1, 1, 0, 0, 0, "none" };
	assert_int_equal(monout_wall_thread(&w, &t1), 0);
	assert_int_equal(monout_wall_thread(&w, &t0), 0);	/* tid 0: left out */
	/* Samples before the waits they name. */
	struct monout_wall_sample s1 = { 5, 11, MONOUT_WALL_BLOCKED, 202, 7, 3, 0, (uint64_t *)a, 0 };
	struct monout_wall_sample s2 = { 4, 11, MONOUT_WALL_BLOCKED, 202, 9, 3, 0, (uint64_t *)a, 0 };
	struct monout_wall_sample s3 = { 90, 12, MONOUT_WALL_RUNNING, MONOUT_NO_SYSCALL, MONOUT_NO_WAIT,
					 0, 0, NULL, 0 };
	struct monout_wall_sample s4 = { 0, 12, MONOUT_WALL_DISK, 0, MONOUT_NO_WAIT, 2, 0,
					 (uint64_t *)b, 0 };	/* count 0: left out */
	struct monout_wall_sample s5 = { 8, 12, MONOUT_WALL_BLOCKED, 0, 3, 2, MONOUT_STACK_TRUNCATED,
					 (uint64_t *)b, 3 };	/* taken in object set 3 */
	struct monout_wall_sample s6 = { 150, 12, MONOUT_WALL_DISK, MONOUT_NO_SYSCALL, MONOUT_NO_WAIT,
					 2, 0, (uint64_t *)b, 0 };
	assert_int_equal(monout_wall_sample(&w, &s1), 0);
	assert_int_equal(monout_wall_sample(&w, &s2), 0);
	assert_int_equal(monout_wall_sample(&w, &s3), 0);
	assert_int_equal(monout_wall_sample(&w, &s4), 0);
	assert_int_equal(monout_wall_sample(&w, &s5), 0);
	assert_int_equal(monout_wall_sample(&w, &s6), 0);
	/* Waits 7 and 9 are the same futex (the runtime saw it twice). */
	struct monout_wait v7 = { 7, MONOUT_WAIT_FUTEX, MONOUT_NO_FD, 0, 0x404040, 0,
				  MONOUT_WAIT_OWNER | MONOUT_WAIT_MUTEX, 0x4040, 12, 0, NULL };
	struct monout_wait v9 = v7;
	v9.id = 9;
	struct monout_wait v3 = { 3, MONOUT_WAIT_FD, 5, MONOUT_FD_SOCKET, 0, MONOUT_NO_OBJECT, 0, 0, 0,
				  31, "tcp 127.0.0.1:80 127.0.0.1:4444" };
	assert_int_equal(monout_wall_wait(&w, &v7), 0);
	assert_int_equal(monout_wall_thread(&w, &t2), 0);
	assert_int_equal(monout_wall_wait(&w, &v3), 0);
	assert_int_equal(monout_wall_wait(&w, &v9), 0);
	assert_int_equal(monout_wall_close(&w), 0);
	assert_int_equal(monout_end(&w), 0);
	size_t len = (size_t)lseek(fileno(f), 0, SEEK_END);
	unsigned char *buf = malloc(len);
	assert_int_equal(pread(fileno(f), buf, len, 0), (ssize_t)len);
	fclose(f);
	uint32_t minor;
	memcpy(&minor, buf + 36, 4);
	assert_int_equal(minor, MONOUT_MINOR);	/* 5 added WALL */
	struct monout r;
	char err[200];
	assert_int_equal(monout_parse(buf, len, &r, err, sizeof err), 0);
	assert_true(r.have_wall);
	assert_int_equal(r.wall.rate_hz, 100);
	assert_int_equal(r.wall.max_depth, 64);
	assert_int_equal(r.wall.elapsed_usec, 2500000);
	assert_int_equal(r.wall.rounds, 250);
	assert_int_equal(r.wall.missed, 3);
	assert_int_equal(r.wall.user_usec, 1200);
	assert_int_equal(r.wall.sys_usec, 3400);
	assert_int_equal(r.wall.flags, MONOUT_WALL_F_THREADS_FULL);
	assert_int_equal(r.wall.threads_unlisted, 2);
	assert_int_equal(r.wall.lost, 9);
	assert_int_equal(r.wall.machine, 62);
	assert_string_equal(monout_syscall_name(62, 202), "futex");
	assert_string_equal(monout_syscall_name(62, 0), "read");
	assert_string_equal(monout_syscall_name(183, 98), "futex");
	assert_null(monout_syscall_name(62, 100000));
	assert_null(monout_syscall_name(9999, 0));
	assert_int_equal(r.nwall_threads, 2);
	assert_int_equal(r.wall_threads[0].tid, 11);
	assert_string_equal(r.wall_threads[0].name, "worker-15-chars");
	assert_int_equal(r.wall_threads[0].first_usec, 1000000);
	assert_int_equal(r.wall_threads[0].last_usec, 2000000);
	assert_int_equal(r.wall_threads[0].flags, MONOUT_WALL_THREAD_STARTED | MONOUT_WALL_THREAD_ENDED);
	assert_int_equal(r.wall_threads[1].tid, 12);
	assert_int_equal(r.wall_threads[1].expected, 250);
	assert_int_equal(r.wall_threads[1].taken, 248);
	assert_int_equal(r.wall_threads[1].unreadable, 2);
	assert_string_equal(r.wall_threads[1].name, "main");
	assert_int_equal(r.nwaits, 2);
	/* Sorted by kind: the descriptor first, then the futex. */
	assert_int_equal(r.waits[0].kind, MONOUT_WAIT_FD);
	assert_int_equal(r.waits[0].id, 0);
	assert_int_equal(r.waits[0].fd, 5);
	assert_int_equal(r.waits[0].fd_kind, MONOUT_FD_SOCKET);
	assert_string_equal(r.waits[0].text, "tcp 127.0.0.1:80 127.0.0.1:4444");
	assert_int_equal(r.waits[0].object, MONOUT_NO_OBJECT);
	assert_int_equal(r.waits[1].kind, MONOUT_WAIT_FUTEX);
	assert_int_equal(r.waits[1].address, 0x404040);
	assert_int_equal(r.waits[1].object, 0);
	assert_int_equal(r.waits[1].offset, 0x4040);
	assert_int_equal(r.waits[1].owner, 12);
	assert_int_equal(r.waits[1].flags, MONOUT_WAIT_OWNER | MONOUT_WAIT_MUTEX);
	assert_string_equal(r.waits[1].text, "");
	assert_int_equal(r.nwall_samples, 4);
	/* Sorted by tid, state, syscall, wait, flags, depth, pcs. */
	assert_int_equal(r.wall_samples[0].tid, 11);
	assert_int_equal(r.wall_samples[0].count, 9);	/* 5 + 4: waits 7 and 9 are one */
	assert_int_equal(r.wall_samples[0].wait, 1);
	assert_int_equal(r.wall_samples[0].syscall, 202);
	assert_int_equal(r.wall_samples[0].depth, 3);
	assert_memory_equal(r.wall_samples[0].pcs, a, sizeof a);
	assert_int_equal(r.wall_samples[1].tid, 12);
	assert_int_equal(r.wall_samples[1].state, MONOUT_WALL_RUNNING);
	assert_int_equal(r.wall_samples[1].count, 90);
	assert_int_equal(r.wall_samples[1].depth, 0);
	assert_null(r.wall_samples[1].pcs);
	assert_int_equal(r.wall_samples[1].wait, MONOUT_NO_WAIT);
	assert_int_equal(r.wall_samples[2].state, MONOUT_WALL_BLOCKED);
	assert_int_equal(r.wall_samples[2].wait, 0);
	assert_int_equal(r.wall_samples[2].flags, MONOUT_STACK_TRUNCATED);
	assert_int_equal(r.wall_samples[2].set, 3);
	assert_int_equal(r.wall_samples[0].set, 0);
	assert_int_equal(r.wall_samples[3].state, MONOUT_WALL_DISK);
	assert_int_equal(r.wall_samples[3].count, 150);
	assert_int_equal(r.wall_samples[3].syscall, MONOUT_NO_SYSCALL);
	/* monout_write_fd writes the model back: the same model. */
	r.objects[0].path_len = 9;
	size_t len2;
	unsigned char *buf2 = image_of(&r, &len2);
	struct monout r2;
	assert_int_equal(monout_parse(buf2, len2, &r2, err, sizeof err), 0);
	assert_true(r2.have_wall);
	assert_memory_equal(&r2.wall, &r.wall, sizeof r.wall);
	assert_int_equal(r2.nwall_threads, 2);
	assert_memory_equal(r2.wall_threads, r.wall_threads, 2 * sizeof *r.wall_threads);
	assert_int_equal(r2.nwaits, 2);
	assert_int_equal(r2.nwall_samples, 4);
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(r2.wall_samples[i].count, r.wall_samples[i].count);
		assert_int_equal(r2.wall_samples[i].wait, r.wall_samples[i].wait);
		assert_int_equal(r2.wall_samples[i].depth, r.wall_samples[i].depth);
		assert_int_equal(r2.wall_samples[i].set, r.wall_samples[i].set);
		if (r.wall_samples[i].depth)
			assert_memory_equal(r2.wall_samples[i].pcs, r.wall_samples[i].pcs,
					    r.wall_samples[i].depth * 8);
	}
	monout_free(&r2);
	free(buf2);
	monout_free(&r);

	/* Damage, one field at a time.  Entries in file order after the
	 * 72-byte fixed part at p: thread t1 (80), samples s1 (72), s2 (72),
	 * s3 (48), s5 (64), s6 (64), wait v7 (64), thread t2 (80), wait v3
	 * (64 + 32), wait v9 (64). */
	size_t at = record_at(buf, MONOUT_REC_WALL), p = at + MONOUT_REC_HEADER_SIZE;
	size_t e = p + MONOUT_WALL_FIXED, es1 = e + 80, es3 = es1 + 144, ev7 = es3 + 48 + 128;
	size_t ev3 = ev7 + 64 + 80;
	unsigned char *c = malloc(len);
	uint32_t v32;
	uint64_t v64;
#define DAMAGE(off, val, want)                       \
	do {                                         \
		memcpy(c, buf, len);                 \
		memcpy(c + (off), &(val), sizeof(val)); \
		refresh_crcs(c, len);                \
		expect_error(c, len, want);          \
	} while (0)
	v32 = 0;
	DAMAGE(p + 4, v32, "max depth 0 out of range 1..512");
	v32 = 12;
	DAMAGE(e + 4, v32, "entry 0 has length 12");
	v32 = 1 << 20;
	DAMAGE(e + 4, v32, "entry 0 has length 1048576");
	v64 = 0;
	DAMAGE(es1 + 8, v64, "sample entry 1 has a count of 0");
	v32 = 0;
	DAMAGE(es1 + 24, v32, "sample entry 1 has state 0 (1..6 expected)");
	v32 = 7;
	DAMAGE(es1 + 24, v32, "sample entry 1 has state 7 (1..6 expected)");
	v32 = 2;
	DAMAGE(es1 + 36, v32, "sample entry 1 of depth 2 in 72 bytes");
	v32 = 65;
	DAMAGE(es3 + 36, v32, "sample entry 3 of depth 65");
	v32 = 8;
	DAMAGE(es1 + 32, v32, "a sample names wait 8, which the record does not have");
	v32 = 7;
	DAMAGE(ev3 + 8, v32, "two waits of id 7");
	v32 = 3;
	DAMAGE(ev7 + 12, v32, "wait entry 6 of kind 3 (1 or 2 expected)");
	v32 = 10;
	DAMAGE(ev7 + 20, v32, "descriptor kind 10 out of range 0..9");
	v32 = 40;
	DAMAGE(ev3 + 56, v32, "wait entry 8: text of 40 bytes in an entry of 96");
	v32 = 1;
	DAMAGE(ev7 + 32, v32, "a wall-clock wait names object 1, the file has 1");
	v64 = 0;
	DAMAGE(e + 8, v64, "thread entry 0 has tid 0");
	v64 = 3000000;
	DAMAGE(e + 40, v64, "thread 12 starts after it ends");
	/* An entry kind this reader does not know is skipped (thread t1). */
	v32 = 77;
	memcpy(c, buf, len);
	memcpy(c + e, &v32, 4);
	refresh_crcs(c, len);
	assert_int_equal(monout_parse(c, len, &r, err, sizeof err), 0);
	assert_int_equal(r.nwall_threads, 1);
	assert_int_equal(r.nwall_samples, 4);
	monout_free(&r);
	/* A fixed part of 64 bytes. */
	{
		uint64_t rlen, l56 = 64;
		memcpy(&rlen, buf + at + 8, 8);
		memcpy(c, buf, len);
		memcpy(c + at + 8, &l56, 8);
		memset(c + p + 64, 0, rlen - 64);
		refresh_crcs(c, len);
		expect_error(c, len, "(WALL) at offset");
		expect_error(c, len, "64 bytes, at least 72 expected");
	}
	/* A reader of minor 4 skips the record: a type of a newer minor.
	 * Seen from here: a WALL type number this reader does not know in
	 * a file of a newer minor reads without it. */
	v32 = 99;
	memcpy(c, buf, len);
	memcpy(c + at, &v32, 4);
	minor = MONOUT_MINOR + 1;
	memcpy(c + 36, &minor, 4);
	refresh_crcs(c, len);
	assert_int_equal(monout_parse(c, len, &r, err, sizeof err), 0);
	assert_false(r.have_wall);
	monout_free(&r);
	/* A file of minor 4 (before WALL) still reads: no wall samples. */
	{
		struct monout o;
		memset(&o, 0, sizeof o);
		o.run.rate_hz = 100;
		size_t n4;
		unsigned char *b4 = image_of(&o, &n4);
		uint32_t four = 4;
		memcpy(b4 + 36, &four, 4);
		refresh_crcs(b4, n4);
		assert_int_equal(monout_parse(b4, n4, &r, err, sizeof err), 0);
		assert_false(r.have_wall);
		assert_int_equal(r.nwall_samples, 0);
		monout_free(&r);
		free(b4);
	}
#undef DAMAGE
	free(c);
	free(buf);
}

/* Minor 2: FACTS, THREADS, PCS and SYMS round trip and the header says
 * minor 2, so that a reader of minor 1 skips them (it skips a record type it
 * does not know only in a file of a newer minor than its own: checked here
 * with a type unknown to this reader in a file of minor 2, then of 3). */
static void coverage_records(void **state)
{
	(void)state;
	struct monout m;
	memset(&m, 0, sizeof m);
	m.run.rate_hz = 1000;
	m.have_facts = 1;
	m.facts = (struct monout_facts){ 1234567, 20000, 4100, 61000, MONOUT_FACT_SYSTEM | MONOUT_FACT_RATE_LOWERED, 2, 15000, 9000 };
	struct monout_thread th[3] = {
		{ 11, 100, 200, 300, MONOUT_THREAD_CPU | MONOUT_THREAD_ENDED, "", 120 },
		{ 0, 1, 1, 1, 0, "dropped", 0 },
		{ 12, 5, 6, 7, MONOUT_THREAD_CPU, "main", (uint64_t)1 << 33 },
	};
	memcpy(th[0].name, "worker-15-chars", 16);
	m.nthreads = 3;
	m.threads = th;
	struct monout_call pcs[3] = { { 0x9000, 2 }, { 0x8000, 5 }, { 0x9000, 1 } };
	m.npcs = 3;
	m.pcs = pcs;
	struct monout_object obj = { .text_lo = 0x7000, .text_hi = 0x8000, .load_bias = 0x7000, .flags = MONOUT_OBJ_VDSO, .path_len = 6, .path = "[vdso]" };
	m.nobjects = 1;
	m.objects = &obj;
	struct monout_sym syms[3] = { { 0, 0x7100, 0x40, (char *)"clock_gettime" },
				      { 0, 0x7080, 0x10, (char *)"" },
				      { MONOUT_NO_OBJECT, 0x9000, 9, (char *)"jit_loop" } };
	m.nsyms = 3;
	m.syms = syms;
	FILE *f = tmpfile();
	assert_non_null(f);
	assert_int_equal(monout_write_fd(fileno(f), &m), 0);
	size_t len = (size_t)lseek(fileno(f), 0, SEEK_END);
	unsigned char *buf = malloc(len);
	assert_int_equal(pread(fileno(f), buf, len, 0), (ssize_t)len);
	fclose(f);
	uint32_t minor;
	memcpy(&minor, buf + 36, 4);
	assert_int_equal(minor, MONOUT_MINOR);
	struct monout r;
	char err[200];
	assert_int_equal(monout_parse(buf, len, &r, err, sizeof err), 0);
	assert_true(r.have_facts);
	assert_int_equal(r.facts.elapsed_usec, 1234567);
	assert_int_equal(r.facts.rate_asked, 20000);
	assert_int_equal(r.facts.rate_set, 4100);
	assert_int_equal(r.facts.tick_cost_ns, 61000);
	assert_int_equal(r.facts.flags, MONOUT_FACT_SYSTEM | MONOUT_FACT_RATE_LOWERED);
	assert_int_equal(r.facts.threads_unlisted, 2);
	assert_int_equal(r.facts.check_usec, 15000);
	assert_int_equal(r.facts.cpu_before_usec, 9000);
	assert_int_equal(r.nthreads, 2);	/* tid 0 left out */
	assert_int_equal(r.threads[0].tid, 11);
	assert_int_equal(r.threads[0].user_usec, 100);
	assert_int_equal(r.threads[0].sys_usec, 200);
	assert_int_equal(r.threads[0].samples, 300);
	assert_int_equal(r.threads[0].flags, MONOUT_THREAD_CPU | MONOUT_THREAD_ENDED);
	assert_string_equal(r.threads[0].name, "worker-15-chars");
	assert_string_equal(r.threads[1].name, "main");
	assert_int_equal(r.threads[0].late, 120);	/* THREADS offset 36 */
	assert_int_equal(r.threads[1].late, UINT32_MAX);	/* capped */
	assert_int_equal(r.npcs, 2);	/* merged and sorted */
	assert_int_equal(r.pcs[0].selfpc, 0x8000);
	assert_int_equal(r.pcs[1].count, 3);
	assert_int_equal(r.nsyms, 3);
	assert_string_equal(r.syms[0].name, "clock_gettime");
	assert_int_equal(r.syms[0].start, 0x7100);
	assert_int_equal(r.syms[0].size, 0x40);
	assert_string_equal(r.syms[1].name, "");
	assert_int_equal(r.syms[2].object, MONOUT_NO_OBJECT);
	assert_string_equal(r.syms[2].name, "jit_loop");
	monout_free(&r);
	/* An unknown type: damage in a file of this reader's minor, skipped in
	 * one of a newer minor (the rest still read). */
	size_t at = record_at(buf, MONOUT_REC_FACTS);
	assert_true(at > 0);
	uint32_t t99 = 99;
	memcpy(buf + at, &t99, 4);
	refresh_crcs(buf, len);
	expect_error(buf, len, "unknown record type 99");
	minor = MONOUT_MINOR + 1;
	memcpy(buf + 36, &minor, 4);
	refresh_crcs(buf, len);
	assert_int_equal(monout_parse(buf, len, &r, err, sizeof err), 0);
	assert_false(r.have_facts);
	assert_int_equal(r.nthreads, 2);
	monout_free(&r);
	free(buf);
}

static uint32_t crc_reference(const unsigned char *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
	}
	return ~c;
}

/* FORKS (minor 6): the count of fork calls whose children were not
 * profiled, written only when asked, read back; an older file has none.
 * Mutation caught: the reader skipping type 16, the writer leaving it out. */
static void forks_record(void **state)
{
	(void)state;
	struct monout m, r;
	char err[200];
	unsigned char buf[4096];
	memset(&m, 0, sizeof m);
	m.have_forks = 1;
	m.forks_unfollowed = 4086;
	FILE *f = tmpfile();
	assert_int_equal(monout_write_fd(fileno(f), &m), 0);
	ssize_t n = pread(fileno(f), buf, sizeof buf, 0);
	fclose(f);
	assert_int_equal(monout_parse(buf, (size_t)n, &r, err, sizeof err), 0);
	assert_true(r.have_forks);
	assert_int_equal(r.forks_unfollowed, 4086);
	monout_free(&r);
	/* monout_write_fd writes the INTERVAL record it is given. */
	m.have_interval = 1;
	m.interval.seq = 3;
	m.interval.start_ns = 1000;
	m.interval.end_ns = 2000;
	m.interval.flags = MONOUT_INTERVAL_OWN_CALLS;
	f = tmpfile();
	assert_int_equal(monout_write_fd(fileno(f), &m), 0);
	n = pread(fileno(f), buf, sizeof buf, 0);
	fclose(f);
	assert_int_equal(monout_parse(buf, (size_t)n, &r, err, sizeof err), 0);
	assert_true(r.have_interval);
	assert_int_equal(r.interval.seq, 3);
	assert_int_equal(r.interval.end_ns, 2000);
	assert_int_equal(r.interval.flags, MONOUT_INTERVAL_OWN_CALLS);
	monout_free(&r);
	m.have_interval = 0;
	m.have_forks = 0;
	f = tmpfile();
	assert_int_equal(monout_write_fd(fileno(f), &m), 0);
	n = pread(fileno(f), buf, sizeof buf, 0);
	fclose(f);
	assert_int_equal(monout_parse(buf, (size_t)n, &r, err, sizeof err), 0);
	assert_false(r.have_forks);
	monout_free(&r);
}

/* SPAN (minor 7): when the profile began and ended, to the nanosecond,
 * read back; monout_span_ns prefers INTERVAL's bounds, then SPAN's, then
 * RUN's whole seconds less FACTS' elapsed time; an end before the start is
 * damage.  Mutation caught: the reader skipping type 17 (have_span 0, the
 * span from RUN's seconds). */
static void span_record(void **state)
{
	(void)state;
	struct monout m, r;
	char err[200];
	unsigned char buf[4096];
	uint64_t s, e;
	memset(&m, 0, sizeof m);
	m.run.time = 1700000001;
	m.have_facts = 1;
	m.facts.elapsed_usec = 600000;
	assert_int_equal(monout_span_ns(&m, &s, &e), 0);	/* RUN's seconds */
	assert_int_equal(e, 1700000001000000000ull);
	assert_int_equal(s, 1700000000400000000ull);
	m.have_span = 1;
	m.span.start_ns = 1700000000700000123ull;
	m.span.end_ns = 1700000001300000123ull;
	FILE *f = tmpfile();
	assert_int_equal(monout_write_fd(fileno(f), &m), 0);
	ssize_t n = pread(fileno(f), buf, sizeof buf, 0);
	assert_int_equal(monout_parse(buf, (size_t)n, &r, err, sizeof err), 0);
	assert_true(r.have_span);
	assert_int_equal(monout_span_ns(&r, &s, &e), 1);
	assert_int_equal(s, 1700000000700000123ull);
	assert_int_equal(e, 1700000001300000123ull);
	monout_free(&r);
	m.have_interval = 1;	/* an interval's own bounds come first */
	m.interval.seq = 1;
	m.interval.start_ns = 5;
	m.interval.end_ns = 9;
	assert_int_equal(monout_span_ns(&m, &s, &e), 1);
	assert_int_equal(s, 5);
	assert_int_equal(e, 9);
	m.have_interval = 0;
	/* An end before the start. */
	m.span.end_ns = m.span.start_ns - 1;
	fclose(f);
	f = tmpfile();
	assert_int_equal(monout_write_fd(fileno(f), &m), 0);
	n = pread(fileno(f), buf, sizeof buf, 0);
	fclose(f);
	assert_int_equal(monout_parse(buf, (size_t)n, &r, err, sizeof err), -1);
	assert_non_null(strstr(err, "(SPAN)"));
	m.have_span = 0;
	m.have_facts = 0;
	assert_int_equal(monout_span_ns(&m, &s, &e), -1);
}

/* ARCS of an interval (monout_put_arcs_part): each cell's count less its
 * base, the cells not above it left out; without arrays the cells' own
 * counts. */
static void arcs_part(void **state)
{
	(void)state;
	static const struct monout_arc cells[5] = { { 0x3000, 0x1010, 99 }, { 0x3010, 0x1010, 99 },
						    { 0x3020, 0x1020, 99 }, { 0, 0, 0 },
						    { 0x3030, 0x1030, 4 } };
	static const uint64_t now[4] = { 10, 7, 5, 0 }, base[4] = { 4, 7, 6, 0 };
	struct monout m;
	memset(&m, 0, sizeof m);
	m.run.rate_hz = 1000;
	FILE *f = tmpfile();
	struct monout_writer w;
	assert_int_equal(monout_begin(&w, fileno(f), 0), 0);
	assert_int_equal(monout_put_run(&w, &m.run), 0);
	assert_int_equal(monout_put_arcs_part(&w, cells, now, base, 4), 0);
	assert_int_equal(monout_put_arcs_part(&w, cells + 4, NULL, NULL, 1), 0);
	assert_int_equal(monout_end(&w), 0);
	size_t len = (size_t)lseek(fileno(f), 0, SEEK_END);
	unsigned char *buf = malloc(len);
	assert_int_equal(pread(fileno(f), buf, len, 0), (ssize_t)len);
	fclose(f);
	struct monout r;
	char err[200];
	assert_int_equal(monout_parse(buf, len, &r, err, sizeof err), 0);
	/* 10 - 4 from the first cell; the second (7 - 7) and the third
	 * (base above now) left out; then the last cell's own 4. */
	assert_int_equal(r.narcs, 2);
	assert_int_equal(r.arcs[0].frompc, 0x3000);
	assert_int_equal(r.arcs[0].selfpc, 0x1010);
	assert_int_equal(r.arcs[0].count, 6);
	assert_int_equal(r.arcs[1].frompc, 0x3030);
	assert_int_equal(r.arcs[1].count, 4);
	monout_free(&r);
	free(buf);
}

static void crc32_ieee(void **state)
{
	(void)state;
	assert_int_equal(monout_crc32(0, "123456789", 9), 0xcbf43926u);
	unsigned char buf[64];
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (unsigned char)(i * 37 + 11);
	for (size_t n = 0; n <= sizeof buf; n++) {
		uint32_t want = crc_reference(buf, n);
		assert_int_equal(monout_crc32(0, buf, n), want);
		for (size_t cut = 0; cut <= n; cut += 3)
			assert_int_equal(monout_crc32(monout_crc32(0, buf, cut), buf + cut, n - cut), want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(crc32_ieee),
		cmocka_unit_test(roundtrip),
		cmocka_unit_test(bins_and_pcs),
		cmocka_unit_test(truncated),
		cmocka_unit_test(foreign),
		cmocka_unit_test(corrupted),
		cmocka_unit_test(inconsistent_records),
		cmocka_unit_test(sparse_hist),
		cmocka_unit_test(images_record),
		cmocka_unit_test(files_record),
		cmocka_unit_test(write_errors),
		cmocka_unit_test(read_file_errors),
		cmocka_unit_test(coverage_records),
		cmocka_unit_test(stacks_record),
		cmocka_unit_test(wall_record),
		cmocka_unit_test(forks_record),
		cmocka_unit_test(span_record),
		cmocka_unit_test(arcs_part),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
