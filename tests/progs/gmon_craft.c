/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * gmon_craft.c — writes a GNU gmon.out (the C library's profiler's file,
 * as tools/prof/gmon.c reads it) with exactly the records a prof test asks
 * for, for a 64-bit little-endian program, so that prof's gmon.out reader
 * can be tested on bins and arcs known to the byte.
 *
 *   gmon_craft OUT [-r RATE] [-h LOWPC:HIGHPC:NBINS [-b BIN:COUNT]...]...
 *                  [-a FROMPC:SELFPC:COUNT]...
 *
 * The file: "gmon", u32 version 1, 12 spare bytes; then one TIME_HIST
 * record (tag 0: lowpc, highpc, u32 bins, u32 rate, "seconds" padded to 15
 * bytes, 's', bins x u16 counts) per -h, then one CG_ARC record (tag 1:
 * frompc, selfpc, u32 count) per -a.  Numbers take C syntax.  -b sets a bin
 * of the histogram of the last -h (counts up to 65535).  Exit 0, or 1 with
 * a message.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXH 16
#define MAXBINS 65536
#define MAXARCS 1024

static uint64_t num(const char **p)
{
	char *end;
	uint64_t v = strtoull(*p, &end, 0);
	if (end == *p) {
		fprintf(stderr, "gmon_craft: bad number at '%s'\n", *p);
		exit(1);
	}
	*p = *end == ':' ? end + 1 : end;
	return v;
}

static void put(FILE *f, uint64_t v, int n)	/* little-endian, n bytes */
{
	for (int i = 0; i < n; i++)
		fputc(i < 8 ? (int)(v >> (8 * i)) & 0xff : 0, f);	/* no shift by 64 or more */
}

int main(int argc, char **argv)
{
	static struct { uint64_t lo, hi, n; uint16_t *bins; } h[MAXH];
	static uint64_t arcs[MAXARCS][3];
	size_t nh = 0, na = 0;
	uint64_t rate = 100;
	int c;

	if (argc < 2) {
		fprintf(stderr, "usage: gmon_craft OUT [options]\n");
		return 1;
	}
	optind = 2;
	while ((c = getopt(argc, argv, "r:h:b:a:")) != -1) {
		const char *p = optarg;
		switch (c) {
		case 'r':
			rate = num(&p);
			break;
		case 'h':
			if (nh == MAXH)
				return 1;
			h[nh].lo = num(&p);
			h[nh].hi = num(&p);
			h[nh].n = num(&p);
			if (h[nh].n == 0 || h[nh].n > MAXBINS ||
			    !(h[nh].bins = calloc(h[nh].n, sizeof *h[nh].bins)))
				return 1;
			nh++;
			break;
		case 'b': {
			uint64_t i = num(&p), v = num(&p);
			if (nh == 0 || i >= h[nh - 1].n || v > 0xffff) {
				fprintf(stderr, "gmon_craft: bad bin %s\n", optarg);
				return 1;
			}
			h[nh - 1].bins[i] = (uint16_t)v;
			break;
		}
		case 'a':
			if (na == MAXARCS)
				return 1;
			arcs[na][0] = num(&p);
			arcs[na][1] = num(&p);
			arcs[na][2] = num(&p);
			na++;
			break;
		default:
			return 1;
		}
	}
	FILE *f = fopen(argv[1], "wb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	fputs("gmon", f);
	put(f, 1, 4);
	put(f, 0, 12);
	for (size_t k = 0; k < nh; k++) {
		char dimen[15] = "seconds";
		fputc(0, f);
		put(f, h[k].lo, 8);
		put(f, h[k].hi, 8);
		put(f, h[k].n, 4);
		put(f, rate, 4);
		fwrite(dimen, 1, sizeof dimen, f);
		fputc('s', f);
		for (uint64_t i = 0; i < h[k].n; i++)
			put(f, h[k].bins[i], 2);
	}
	for (size_t k = 0; k < na; k++) {
		fputc(1, f);
		put(f, arcs[k][0], 8);
		put(f, arcs[k][1], 8);
		put(f, arcs[k][2], 4);
	}
	if (fclose(f) != 0) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
