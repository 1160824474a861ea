/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * trim.c — make a small fuzzing seed of a real mon.out: keep the RUN
 * record, the objects, call counts and arcs, and at most 256 bins of at
 * most 4 histograms (their ranges shortened to match), then write it again
 * with the library's writer.  Small seeds keep the fuzzer fast; the
 * structure is that of a real file.
 *
 *   trim IN OUT
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "monout.h"

int main(int argc, char **argv)
{
	struct monout m;
	char err[256];
	if (argc != 3) {
		fprintf(stderr, "usage: trim IN OUT\n");
		return 2;
	}
	if (monout_read_file(argv[1], &m, err, sizeof err) < 0) {
		fprintf(stderr, "trim: %s: %s\n", argv[1], err);
		return 1;
	}
	if (m.nhists > 4) {
		for (size_t i = 4; i < m.nhists; i++)
			free(m.hists[i].counts);
		m.nhists = 4;
	}
	for (size_t i = 0; i < m.nhists; i++) {
		struct monout_hist *h = &m.hists[i];
		if (h->nbins > 256) {
			h->nbins = 256;
			uint64_t span = (uint64_t)256 * 131072u / h->scale;
			if (h->highpc - h->lowpc > span)
				h->highpc = h->lowpc + span;
		}
	}
	if (m.ncalls > 64)
		m.ncalls = 64;
	if (m.narcs > 64)
		m.narcs = 64;
	int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || monout_write_fd(fd, &m) < 0 || close(fd) < 0) {
		perror(argv[2]);
		return 1;
	}
	return 0;
}
