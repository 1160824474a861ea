/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * gmon.c — reading the gmon.out that the C library's own profiler writes
 * (gcc -pg without libmon), so that prof gives the same flat profile as GNU
 * gprof -p on it.
 *
 * The format (GNU "gmon": the gprof manual's "Profiling Data File Format"
 * and binutils' gprof/gmon_out.h; described, not copied):
 *
 *   header, 20 bytes:  "gmon" | u32 version (1; 0 is accepted) | 12 spare
 *   then records to the end of the file, each a one-byte tag:
 *     0 TIME_HIST  A lowpc, A highpc, u32 bins, u32 rate (Hz),
 *                  char[15] dimension, char abbreviation, bins x u16 counts
 *     1 CG_ARC     A frompc, A selfpc, u32 count
 *     2 BB_COUNT   u32 n, then n x (A address, A count)
 *
 * A is the address size of the profiled program (4 or 8 bytes) and every
 * integer is in its byte order: neither is recorded in the file, so they
 * come from the executable's ELF header, as gprof does.  There is no
 * padding.  glibc writes link-time addresses (it subtracts a PIE's load
 * address), so the program's load bias here is 0.
 *
 * A file of only the header is an error (there is nothing to report); a
 * rate of 0 is read as 100 Hz, glibc's, with a warning.
 *
 * How gprof reads it, and so how prof reads it: several TIME_HIST records
 * with the same range add up, records over different ranges are kept side
 * by side, partly overlapping ones are an error; the first record's rate is
 * the rate; a bin covers (highpc - lowpc) / bins bytes, counted in 2-byte
 * units and truncated (PROF_BIN_UNIFORM).  The call count of a function is
 * the sum of the counts of the arcs into it.
 *
 * Every length is checked against the bytes that remain: a truncated or
 * hostile file gives one message saying what and where, never a crash.
 */
#include "prof.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define GMON_HEADER_SIZE 20
#define GMON_TAG_TIME_HIST 0
#define GMON_TAG_CG_ARC 1
#define GMON_TAG_BB_COUNT 2
#define GMON_DIMEN_LEN 15
#define GMON_DEFAULT_RATE 100

struct cursor {
	const unsigned char *p;
	size_t len, off;
	int big, asize;
};

static int need(const struct cursor *c, size_t n)
{
	return c->len - c->off >= n;
}

static uint64_t get(struct cursor *c, int n)
{
	uint64_t v = 0;
	const unsigned char *q = c->p + c->off;
	for (int i = 0; i < n; i++) {
		int k = c->big ? i : n - 1 - i;
		v = (v << 8) | q[k];
	}
	c->off += (size_t)n;
	return v;
}

static int add_count(struct prof_data *d, size_t *cap, uint64_t selfpc, uint64_t count)
{
	if (d->ncounts == *cap) {
		size_t ncap = *cap ? *cap * 2 : 256;
		struct prof_count *nc = realloc(d->counts, ncap * sizeof *nc);
		if (!nc)
			return -1;
		d->counts = nc;
		*cap = ncap;
	}
	d->counts[d->ncounts].selfpc = selfpc;
	d->counts[d->ncounts].count = count;
	d->ncounts++;
	return 0;
}

static int add_arc(struct prof_data *d, size_t *cap, uint64_t frompc, uint64_t selfpc,
		   uint64_t count)
{
	if (d->narcs == *cap) {
		size_t ncap = *cap ? *cap * 2 : 256;
		struct prof_arc *na = realloc(d->arcs, ncap * sizeof *na);
		if (!na)
			return -1;
		d->arcs = na;
		*cap = ncap;
	}
	d->arcs[d->narcs++] = (struct prof_arc){ frompc, selfpc, count };
	return 0;
}

static int read_hist(struct cursor *c, struct prof_data *d, char *err, size_t errlen)
{
	size_t at = c->off - 1;
	if (!need(c, 2 * (size_t)c->asize + 8 + GMON_DIMEN_LEN + 1)) {
		snprintf(err, errlen, "truncated histogram record header at offset %zu", at);
		return -1;
	}
	uint64_t lowpc = get(c, c->asize), highpc = get(c, c->asize);
	uint64_t nbins = get(c, 4), rate = get(c, 4);
	c->off += GMON_DIMEN_LEN + 1;	/* "seconds", 's': not needed */
	if (highpc <= lowpc || nbins == 0) {
		snprintf(err, errlen,
			 "histogram record at offset %zu: empty range %#llx-%#llx or no bins",
			 at, (unsigned long long)lowpc, (unsigned long long)highpc);
		return -1;
	}
	if ((c->len - c->off) / 2 < nbins) {
		snprintf(err, errlen,
			 "truncated: histogram record at offset %zu has %llu bins, "
			 "file holds only %zu more bytes",
			 at, (unsigned long long)nbins, c->len - c->off);
		return -1;
	}
	if (d->nhists == 0) {
		d->run.rate_hz = (double)rate;
		if (rate == 0) {
			/* A rate of 0 would make every sample infinitely long;
			 * glibc's profiler samples at 100 Hz (its profil(2)
			 * uses ITIMER_PROF's traditional 10 ms tick). */
			d->run.rate_hz = GMON_DEFAULT_RATE;
			prof_warn("assumed-rate", "gmon.out gives a sampling rate of 0 Hz: "
				  "read at %d Hz, the C library's rate", GMON_DEFAULT_RATE);
		}
	}
	/* Same range: add up.  Partial overlap: refuse, as gprof does. */
	struct prof_hist *h = NULL;
	for (size_t i = 0; i < d->nhists; i++) {
		struct prof_hist *o = &d->hists[i];
		if (o->lowpc == lowpc && o->highpc == highpc) {
			if (o->nbins != nbins) {
				snprintf(err, errlen,
					 "histogram record at offset %zu: %llu bins, "
					 "an earlier record of the same range has %zu",
					 at, (unsigned long long)nbins, o->nbins);
				return -1;
			}
			h = o;
			break;
		}
		if (lowpc < o->highpc && o->lowpc < highpc) {
			snprintf(err, errlen, "overlapping histogram records (offset %zu)", at);
			return -1;
		}
	}
	if (h == NULL) {
		struct prof_hist *nh = realloc(d->hists, (d->nhists + 1) * sizeof *nh);
		if (!nh)
			goto nomem;
		d->hists = nh;
		h = &d->hists[d->nhists];
		memset(h, 0, sizeof *h);
		h->bins = calloc((size_t)nbins, sizeof *h->bins);
		if (!h->bins)
			goto nomem;
		h->lowpc = lowpc;
		h->highpc = highpc;
		h->nbins = (size_t)nbins;
		h->binmap = PROF_BIN_UNIFORM;
		d->nhists++;
	}
	for (size_t i = 0; i < nbins; i++)
		h->bins[i] += get(c, 2);
	return 0;
nomem:
	snprintf(err, errlen, "%s", strerror(ENOMEM));
	return -1;
}

int gmon_decode(const unsigned char *buf, size_t len, int elf64, int big,
		struct prof_data *d, char *err, size_t errlen)
{
	struct cursor c = { buf, len, 0, big, elf64 ? 8 : 4 };
	size_t cap = 0, arccap = 0;

	memset(d, 0, sizeof *d);
	d->format = "gmon.out";
	if (len < 4 || memcmp(buf, GMON_MAGIC, 4) != 0) {
		snprintf(err, errlen, "not a gmon.out file (bad magic)");
		return -1;
	}
	if (len < GMON_HEADER_SIZE) {
		snprintf(err, errlen, "truncated: %zu bytes, the gmon.out header needs %d",
			 len, GMON_HEADER_SIZE);
		return -1;
	}
	c.off = 4;
	uint64_t version = get(&c, 4);
	if (version > 1) {
		snprintf(err, errlen, "gmon.out version %llu not supported (reads 0 and 1)",
			 (unsigned long long)version);
		return -1;
	}
	c.off = GMON_HEADER_SIZE;
	d->objs = calloc(1, sizeof *d->objs);
	if (!d->objs)
		goto nomem;
	d->nobjs = 1;
	d->objs[0].is_main = 1;		/* path: the executable given to prof */

	if (c.len == GMON_HEADER_SIZE) {
		snprintf(err, errlen, "no records: a gmon.out with only its %d-byte header "
			 "holds no histogram and no call counts", GMON_HEADER_SIZE);
		goto fail;
	}
	while (c.off < c.len) {
		size_t at = c.off;
		unsigned tag = c.p[c.off++];
		switch (tag) {
		case GMON_TAG_TIME_HIST:
			if (read_hist(&c, d, err, errlen) < 0)
				goto fail;
			break;
		case GMON_TAG_CG_ARC: {
			if (!need(&c, 2 * (size_t)c.asize + 4)) {
				snprintf(err, errlen, "truncated call-graph arc at offset %zu", at);
				goto fail;
			}
			/* The callee's call count (the flat profile), and the
			 * arc itself (the model's call graph). */
			uint64_t frompc = get(&c, c.asize);
			uint64_t selfpc = get(&c, c.asize), count = get(&c, 4);
			if (count && (add_count(d, &cap, selfpc, count) < 0 ||
				      add_arc(d, &arccap, frompc, selfpc, count) < 0))
				goto nomem;
			break;
		}
		case GMON_TAG_BB_COUNT: {
			if (!need(&c, 4)) {
				snprintf(err, errlen, "truncated basic-block record at offset %zu", at);
				goto fail;
			}
			uint64_t n = get(&c, 4);
			if ((c.len - c.off) / (2 * (size_t)c.asize) < n) {
				snprintf(err, errlen,
					 "truncated: basic-block record at offset %zu has %llu "
					 "entries", at, (unsigned long long)n);
				goto fail;
			}
			c.off += (size_t)n * 2 * (size_t)c.asize;	/* not used by the flat profile */
			break;
		}
		default:
			snprintf(err, errlen, "bad record tag %u at offset %zu", tag, at);
			goto fail;
		}
	}
	return 0;
nomem:
	snprintf(err, errlen, "%s", strerror(ENOMEM));
fail:
	prof_data_free(d);
	return -1;
}
