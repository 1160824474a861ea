/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cov_craft.c — rewrite a mon.out for the coverage tests (through
 * format/monout_write.c and monout_read.c, the one writer and reader).
 *
 *   cov_craft IN OUT THREADNAME   the thread named THREADNAME took no sample:
 *                                 its samples are taken out of its THREADS
 *                                 entry, of RUN's samples and counted, and of
 *                                 the histograms (from the top bins down)
 *   cov_craft IN OUT --minor1     the file as a minor-1 writer made it: no
 *                                 FACTS, THREADS, PCS or SYMS records
 *   cov_craft IN OUT --user-split the perf clock's file (user time only) whose
 *                                 kernel split put part of the user time in
 *                                 system: RUN's and each thread's user time
 *                                 is 80 % of its samples' time, and its
 *                                 user + system time 105 % of it
 *   cov_craft IN OUT --user-edge  the same with user time 99.8 % of its samples'
 *                                 time (samples 100.2 % of it, printed as
 *                                 100 %)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "monout.h"

int main(int argc, char **argv)
{
	struct monout m;
	char err[256];
	if (argc != 4 || monout_read_file(argv[1], &m, err, sizeof err) < 0) {
		fprintf(stderr, "cov_craft: %s\n",
			argc != 4 ? "usage: cov_craft IN OUT NAME|--minor1|--user-split|--user-edge" : err);
		return 1;
	}
	int edge = strcmp(argv[3], "--user-edge") == 0;
	if (edge || strcmp(argv[3], "--user-split") == 0) {
		if (!m.have_facts || m.run.rate_hz == 0) {
			fprintf(stderr, "cov_craft: no FACTS record or no rate\n");
			return 1;
		}
		m.facts.flags |= MONOUT_FACT_USER_ONLY;
		m.facts.cpu_before_usec = 0;
		uint64_t us = m.run.samples * 1000000u / m.run.rate_hz;
		uint64_t user_pm = edge ? 998 : 800;	/* per mille of the samples' time */
		m.run.user_usec = us * user_pm / 1000;
		m.run.sys_usec = us * 25 / 100;
		for (size_t i = 0; i < m.nthreads; i++) {
			us = m.threads[i].samples * 1000000u / m.run.rate_hz;
			m.threads[i].user_usec = us * user_pm / 1000;
			m.threads[i].sys_usec = us * 25 / 100;
		}
	} else if (strcmp(argv[3], "--minor1") == 0) {
		m.have_facts = 0;
		m.nthreads = 0;
		m.npcs = 0;
		for (size_t i = 0; i < m.nsyms; i++)
			free(m.syms[i].name);
		m.nsyms = 0;
	} else {
		uint64_t take = 0;
		for (size_t i = 0; i < m.nthreads; i++)
			if (strcmp(m.threads[i].name, argv[3]) == 0) {
				take += m.threads[i].samples;
				m.threads[i].samples = 0;
			}
		if (take == 0) {
			fprintf(stderr, "cov_craft: no samples in a thread named %s\n", argv[3]);
			return 1;
		}
		m.run.samples -= take;
		m.run.counted -= take;
		for (size_t h = 0; h < m.nhists && take; h++)
			for (uint64_t b = 0; b < m.hists[h].nbins && take; b++) {
				uint64_t k = m.hists[h].counts[b] < take ? m.hists[h].counts[b] : take;
				m.hists[h].counts[b] -= k;
				take -= k;
			}
		for (size_t h = 0; h < m.nhists; h++)
			m.hists[h].flags &= ~(uint32_t)MONOUT_HIST_SPARSE;
	}
	int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || monout_write_fd(fd, &m) < 0) {
		perror(argv[2]);
		return 1;
	}
	close(fd);
	if (strcmp(argv[3], "--minor1") == 0) {
		/* The header's minor version and CRC, as a minor-1 writer made them. */
		unsigned char h[MONOUT_HEADER_SIZE];
		fd = open(argv[2], O_RDWR);
		if (fd < 0 || pread(fd, h, sizeof h, 0) != (ssize_t)sizeof h)
			return 1;
		uint32_t one = 1, zero = 0;
		memcpy(h + 36, &one, 4);
		memcpy(h + 32, &zero, 4);
		uint32_t crc = monout_crc32(0, h, sizeof h);
		memcpy(h + 32, &crc, 4);
		if (pwrite(fd, h, sizeof h, 0) != (ssize_t)sizeof h)
			return 1;
		close(fd);
	}
	monout_free(&m);
	return 0;
}
