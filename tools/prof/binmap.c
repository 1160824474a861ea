/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * binmap.c — where a histogram bin lies, and how its ticks are shared out.
 *
 * A bin counts the ticks whose PC fell anywhere in its span of text; it
 * cannot say where inside.  When the span crosses from one function into
 * the next, prof does what System V prof did (illumos
 * usr/src/cmd/sgs/prof/common/prof.c), and gprof the same (binutils
 * gprof/hist.c): it assumes the ticks were spread evenly over the bytes and
 * gives each function the share of the bin's bytes it owns.  So a bin of 8
 * bytes with 10 ticks, 2 bytes in f and 6 in g, gives f 2.5 and g 7.5
 * ticks.  Nothing is lost: bytes owned by no function go to the object,
 * and the shares of one bin always add up to its count.
 * Only the addresses a bin sampled share its ticks: a bin is cut at the
 * histogram's highpc (the last bin of a coarse scale would reach past it),
 * and bytes that lie in no loaded object (no PC can be there) take no
 * share; a bin with no known code at all goes to [unknown].
 *
 * The bin spans themselves (binmap_start; format/bins.h owns profil's):
 *   profil(2)/mon.out: pc is in bin floor(floor((pc - lowpc) / 2) * scale /
 *     65536), so bin i starts at the smallest pc whose half-offset u has
 *     u * scale >= i * 65536: lowpc + 2 * ceil(i * 65536 / scale).
 *   gmon.out (gprof's rule): nbins bins over (highpc - lowpc) / 2 two-byte
 *     units, bin i starting at unit floor(i * units / nbins).
 */
#include "bins.h"
#include "prof.h"

uint64_t binmap_start(const struct prof_hist *h, uint64_t i)
{
	if (h->binmap == PROF_BIN_PROFIL) {
		return mon_bin_start(h->lowpc, h->scale ? h->scale : MON_SCALE_ONE, i);
	}
	uint64_t units = (h->highpc - h->lowpc) / 2;
	unsigned __int128 u = (unsigned __int128)i * units / (h->nbins ? h->nbins : 1);
	return (h->lowpc / 2 + (uint64_t)u) * 2;
}

size_t binmap_find(const struct prof_seg *segs, size_t nsegs, uint64_t pc)
{
	size_t lo = 0, hi = nsegs;
	while (lo < hi) {	/* first segment with hi > pc */
		size_t mid = lo + (hi - lo) / 2;
		if (segs[mid].hi <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < nsegs && segs[lo].lo <= pc && pc < segs[lo].hi)
		return lo;
	return SIZE_MAX;
}

static size_t fallback_row(const struct prof_seg *fb, size_t nfb, uint64_t pc, size_t unknown)
{
	size_t k = binmap_find(fb, nfb, pc);
	return k == SIZE_MAX ? unknown : fb[k].row;
}

/* Where each share went, for --lines (NULL: not asked). */
static const struct prof_piece_sink *sink;

static void credit(double *ticks, size_t row, uint64_t pc, double t)
{
	ticks[row] += t;
	if (sink)
		sink->piece(sink->arg, row, pc, t);
}

/* Bytes of [lo, hi) inside the fallback ranges; with ticks, also gives
 * each range's row share * its bytes. */
static uint64_t fb_bytes(const struct prof_seg *fb, size_t nfb, uint64_t lo, uint64_t hi,
			 double *ticks, double share)
{
	uint64_t n = 0;
	if (lo >= hi)
		return 0;
	size_t l = 0, h = nfb;
	while (l < h) {		/* first range with hi > lo */
		size_t mid = l + (h - l) / 2;
		if (fb[mid].hi <= lo)
			l = mid + 1;
		else
			h = mid;
	}
	for (size_t k = l; k < nfb && fb[k].lo < hi; k++) {
		uint64_t a = fb[k].lo > lo ? fb[k].lo : lo, b = fb[k].hi < hi ? fb[k].hi : hi;
		if (b <= a)
			continue;
		n += b - a;
		if (ticks)
			credit(ticks, fb[k].row, a, share * (double)(b - a));
	}
	return n;
}

double binmap_spread(const struct prof_hist *h, const struct prof_seg *segs, size_t nsegs,
		     const struct prof_seg *fallback, size_t nfallback, size_t unknown_row,
		     double *ticks)
{
	return binmap_spread_pieces(h, segs, nsegs, fallback, nfallback, unknown_row, ticks, NULL);
}

double binmap_spread_pieces(const struct prof_hist *h, const struct prof_seg *segs, size_t nsegs,
			    const struct prof_seg *fallback, size_t nfallback, size_t unknown_row,
			    double *ticks, const struct prof_piece_sink *pieces)
{
	sink = pieces;
	double total = 0;
	size_t k = 0;
	size_t n = h->idx ? h->nnz : h->nbins;
	for (size_t e = 0; e < n; e++) {
		uint64_t c = h->bins[e];
		if (c == 0)
			continue;
		uint64_t i = h->idx ? h->idx[e] : e;
		total += (double)c;
		uint64_t b0 = binmap_start(h, i), b1 = binmap_start(h, i + 1);
		/* A bin sampled only the addresses of the histogram's range:
		 * the last bin of a coarse scale reaches past highpc, but no
		 * sample came from there, so none is shared out there. */
		if (b1 > h->highpc && h->highpc > b0)
			b1 = h->highpc;
		while (k < nsegs && segs[k].hi <= b0)
			k++;
		if (b1 <= b0) {		/* an empty span (more bins than units): a point */
			if (k < nsegs && segs[k].lo <= b0)
				credit(ticks, segs[k].row, b0, (double)c);
			else
				credit(ticks, fallback_row(fallback, nfallback, b0, unknown_row), b0,
				       (double)c);
			continue;
		}
		/* Which bytes of the bin could have been sampled: those of a
		 * function (segs) and the rest of a loaded object's code
		 * (fallback); bytes in no object held no PC, so they get no
		 * share.  First count them, then share. */
		uint64_t covered = 0, other = 0, p = b0;
		for (size_t j = k; j < nsegs && segs[j].lo < b1; j++) {
			uint64_t lo = segs[j].lo > b0 ? segs[j].lo : b0;
			uint64_t hi = segs[j].hi < b1 ? segs[j].hi : b1;
			if (hi <= lo)
				continue;
			other += fb_bytes(fallback, nfallback, p, lo, NULL, 0);
			covered += hi - lo;
			if (hi > p)
				p = hi;
		}
		other += fb_bytes(fallback, nfallback, p, b1, NULL, 0);
		if (covered + other == 0) {	/* no known code at all */
			credit(ticks, unknown_row, b0, (double)c);
			continue;
		}
		double share = (double)c / (double)(covered + other);
		p = b0;
		for (size_t j = k; j < nsegs && segs[j].lo < b1; j++) {
			uint64_t lo = segs[j].lo > b0 ? segs[j].lo : b0;
			uint64_t hi = segs[j].hi < b1 ? segs[j].hi : b1;
			if (hi <= lo)
				continue;
			fb_bytes(fallback, nfallback, p, lo, ticks, share);
			credit(ticks, segs[j].row, lo, share * (double)(hi - lo));
			if (hi > p)
				p = hi;
		}
		fb_bytes(fallback, nfallback, p, b1, ticks, share);
	}
	sink = NULL;
	return total;
}
