/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bins.h — the bin formula of profil(2), the one owner of it: which bin a
 * PC falls in, where a bin starts, and the scale for a bin width or for a
 * number of bins over a range.  Shared by the runtime (lib/profil.c's
 * tick, lib/monitor.c), the format (format/monout_read.c) and prof
 * (tools/prof/binmap.c).  Pure integer arithmetic, no state, no calls:
 * async-signal-safe, so the tick path may use it.
 *
 * The formula is the BSD profil(2) manual page's: a sample at pc goes to
 * bin ((pc - offset) / 2) * scale / 65536, integer divisions (offset is
 * profil's offset, a histogram's lowpc).  scale is a 16.16 fixed-point
 * fraction: 65536 (1.0) gives one bin per 2 bytes of text (one 16-bit
 * counter per 2 bytes), 0x8000 one per
 * 4 bytes, 0x4000 one per 8 (System V's default), 2 one per 65536 bytes;
 * 0 and 1 turn profil() off.  Words: the bin WIDTH is the text a bin
 * covers, 131072 / scale bytes; the counter size is how many bytes one bin
 * takes in memory or in a file (2 for profil(2)'s unsigned short).
 */
#ifndef MON_BINS_H
#define MON_BINS_H

#include <stdint.h>

/* The largest scale: 1.0, one bin per 2 bytes of text. */
#define MON_SCALE_ONE 65536u

/*
 * mon_bin_of — the bin of pc in a histogram starting at lowpc with this
 * scale: floor(floor((pc - lowpc) / 2) * scale / 65536), exact for every
 * 64-bit pc and every scale 0..65536 (no overflow, no 128-bit arithmetic:
 * the half-distance d is split at 16 bits; the high part times a scale of
 * at most 2^16 fits in 64 bits, and the low part's fraction is the whole
 * fraction, so the sum is the exact floor).  UINT64_MAX when pc < lowpc.
 * The caller compares the result with its number of bins.
 */
static inline uint64_t mon_bin_of(uint64_t pc, uint64_t lowpc, uint32_t scale)
{
	if (pc < lowpc)
		return UINT64_MAX;
	uint64_t d = (pc - lowpc) / 2;
	return (d >> 16) * scale + (((d & 0xffff) * scale) >> 16);
}

/*
 * mon_bin_start — the lowest pc of bin i (the inverse of mon_bin_of): the
 * smallest half-distance d with d * scale >= i * 65536, that is
 * lowpc + 2 * ceil(i * 65536 / scale).  scale 1..65536 (the caller decides
 * what scale 0 means); i may be the number of bins, giving the end of the
 * last bin, which may lie past the histogram's highpc.  The result wraps
 * (mod 2^64) only for a bin start past the 64-bit address space.
 */
static inline uint64_t mon_bin_start(uint64_t lowpc, uint32_t scale, uint64_t i)
{
	unsigned __int128 d = ((unsigned __int128)i * 65536u + scale - 1) / scale;
	return lowpc + (uint64_t)(d * 2);
}

/*
 * mon_bin_scale — the scale whose bins are width bytes of text wide:
 * 131072 / width.  width a power of two, 2..65536 (scale 65536..2); for a
 * power of two the bin is then exactly (pc - lowpc) >> log2(width), which
 * is how lib/objhist.c's whole-process histograms count (their `shift`).
 */
static inline uint32_t mon_bin_scale(uint64_t width)
{
	return (uint32_t)(131072u / width);
}

/*
 * mon_bin_scale_fit — the scale that spreads nbins bins over [lowpc, highpc)
 * as System V's monitor(3) computed it: histogram bins over the range's
 * 2-byte words (the range's length rounded up to whole words) as a 16.16
 * fraction, capped at 0xffff (a bin per 2 bytes) and at least 2 (profil(2)
 * turns off below 2).  lowpc < highpc.
 */
static inline uint32_t mon_bin_scale_fit(uint64_t lowpc, uint64_t highpc, uint64_t nbins)
{
	uint64_t words = (highpc - lowpc + 1) / 2;
	if (nbins >= words)
		return 0xffff;
	uint64_t s = (uint64_t)(((unsigned __int128)nbins << 16) / words);
	return s < 2 ? 2 : (uint32_t)s;
}

#endif /* MON_BINS_H */
