/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mon_dump.c — a test-side reader of mon.out (through format/monout_read.c),
 * so the integration tests can check a profile before prof exists.
 *
 *   mon_dump FILE check            exit 0 if the file reads, else print the
 *                                  reader's message and exit 1
 *   mon_dump FILE info             run facts, one "key value" per line
 *   mon_dump FILE calls LO SIZE    total calls whose selfpc lies in the main
 *                                  program's [LO, LO+SIZE) (ELF addresses, hex
 *                                  as nm prints them)
 *   mon_dump FILE arcs LO SIZE     total of arcs into that range, then the
 *                                  number of distinct callers
 *   mon_dump FILE ticks LO SIZE    histogram ticks in bins that lie wholly
 *                                  inside [LO, LO+SIZE), then the total ticks
 *   mon_dump FILE stacks LO SIZE   the STACKS record(s): "stacks HAVE entries N
 *                                  samples S lost L truncated T depth D
 *                                  reach R maxdepth M threads K tid0 I", R the samples
 *                                  of stacks with a PC in [LO, LO+SIZE) of the
 *                                  program (main), M the deepest stack, K the
 *                                  distinct thread ids, then the first
 *                                  entry's thread id
 *   mon_dump FILE stacktids        "TID SAMPLES" for each thread in the
 *                                  STACKS record, the sum of its stacks
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monout.h"

static int main_bias(const struct monout *m, uint64_t *bias)
{
	for (size_t i = 0; i < m->nobjects; i++)
		if (m->objects[i].flags & MONOUT_OBJ_MAIN) {
			*bias = m->objects[i].load_bias;
			return 0;
		}
	fprintf(stderr, "mon_dump: no main object\n");
	return -1;
}

int main(int argc, char **argv)
{
	struct monout m;
	char err[256];
	if (argc < 3) {
		fprintf(stderr, "usage: mon_dump FILE check|info|calls|arcs|ticks [LO SIZE]\n");
		return 2;
	}
	if (monout_read_file(argv[1], &m, err, sizeof err) < 0) {
		printf("%s\n", err);
		return 1;
	}
	const char *what = argv[2];
	int rc = 0;
	if (strcmp(what, "check") == 0)
		goto out;
	if (strcmp(what, "info") == 0) {
		printf("version %u\naddr_size %u\nflags %u\npid %llu\nppid %llu\nclock %u\nrate %u\n",
		       m.version, m.addr_size, m.flags, (unsigned long long)m.run.pid,
		       (unsigned long long)m.run.ppid, m.run.clock, m.run.rate_hz);
		printf("user_usec %llu\nsys_usec %llu\nsamples %llu\ncounted %llu\ndropped %llu\n",
		       (unsigned long long)m.run.user_usec, (unsigned long long)m.run.sys_usec,
		       (unsigned long long)m.run.samples, (unsigned long long)m.run.counted,
		       (unsigned long long)m.run.dropped);
		printf("signal %u\nreason %u\nargc %u\nargv0 %s\nobjects %zu\nhists %zu\ncalls %zu\narcs %zu\n",
		       m.run.signal, m.run.reason, m.run.argc, m.run.cmdline ? m.run.cmdline : "",
		       m.nobjects, m.nhists, m.ncalls, m.narcs);
		uint64_t ticks = 0;
		for (size_t h = 0; h < m.nhists; h++)
			for (uint64_t i = 0; i < m.hists[h].nbins; i++)
				ticks += m.hists[h].counts[i];
		for (size_t i = 0; i < m.npcs; i++)
			ticks += m.pcs[i].count;
		printf("ticks %llu\n", (unsigned long long)ticks);
		printf("lost %llu\nsaturated %llu\npcs %zu\nsyms %zu\n", (unsigned long long)m.run.lost,
		       (unsigned long long)m.run.saturated, m.npcs, m.nsyms);
		if (m.have_facts)
			printf("elapsed_usec %llu\nrate_asked %u\nrate_set %u\ntick_cost_ns %u\n"
			       "fact_flags %u\nthreads %zu\ncpu_before_usec %llu\ncheck_usec %u\n"
			       "threads_unlisted %u\n",
			       (unsigned long long)m.facts.elapsed_usec, m.facts.rate_asked,
			       m.facts.rate_set, m.facts.tick_cost_ns, m.facts.flags, m.nthreads,
			       (unsigned long long)m.facts.cpu_before_usec, m.facts.check_usec,
			       m.facts.threads_unlisted);
		if (m.have_interval)
			printf("interval_seq %llu\ninterval_start_ns %llu\ninterval_end_ns %llu\n"
			       "interval_samples_total %llu\ninterval_cpu_usec %llu\n"
			       "interval_period_ms %u\ninterval_flags %u\ninterval_removed %u\n"
			       "interval_cut_ticks %u\n",
			       (unsigned long long)m.interval.seq, (unsigned long long)m.interval.start_ns,
			       (unsigned long long)m.interval.end_ns,
			       (unsigned long long)m.interval.samples_total,
			       (unsigned long long)m.interval.runtime_cpu_usec, m.interval.period_ms,
			       m.interval.flags, m.interval.removed, m.interval.cut_ticks);
		for (size_t i = 0; i < m.nthreads; i++)
			printf("thread %llu %s user_usec %llu sys_usec %llu samples %llu flags %u\n"
			       "thread_late %llu %llu\n",
			       (unsigned long long)m.threads[i].tid,
			       m.threads[i].name[0] ? m.threads[i].name : "-",
			       (unsigned long long)m.threads[i].user_usec,
			       (unsigned long long)m.threads[i].sys_usec,
			       (unsigned long long)m.threads[i].samples, m.threads[i].flags,
			       (unsigned long long)m.threads[i].tid,
			       (unsigned long long)m.threads[i].late);
		for (size_t i = 0; i < m.nsyms; i++)
			printf("sym %u %llx %llu %s\n", m.syms[i].object,
			       (unsigned long long)m.syms[i].start, (unsigned long long)m.syms[i].size,
			       m.syms[i].name);
		for (size_t i = 0; i < m.nobjects; i++)
			printf("object %s bias %llx buildid %u flags %u\n", m.objects[i].path,
			       (unsigned long long)m.objects[i].load_bias, m.objects[i].build_id_len,
			       m.objects[i].flags);
		for (size_t h = 0; h < m.nhists; h++)
			printf("hist %llx %llx bins %llu scale %u object %u\n",
			       (unsigned long long)m.hists[h].lowpc, (unsigned long long)m.hists[h].highpc,
			       (unsigned long long)m.hists[h].nbins, m.hists[h].scale, m.hists[h].object);
		goto out;
	}
	if (strcmp(what, "stacktids") == 0) {
		for (size_t i = 0; i < m.nstacks; i++) {
			int seen = 0;
			for (size_t j = 0; j < i && !seen; j++)
				seen = m.stacks[j].tid == m.stacks[i].tid;
			if (seen)
				continue;
			uint64_t n = 0;
			for (size_t j = i; j < m.nstacks; j++)
				if (m.stacks[j].tid == m.stacks[i].tid)
					n += m.stacks[j].count;
			printf("%llu %llu\n", (unsigned long long)m.stacks[i].tid, (unsigned long long)n);
		}
		goto out;
	}
	if (argc < 5) {
		rc = 2;
		goto out;
	}
	uint64_t bias;
	if (main_bias(&m, &bias) < 0) {
		rc = 1;
		goto out;
	}
	uint64_t lo = strtoull(argv[3], NULL, 16) + bias;
	uint64_t hi = lo + strtoull(argv[4], NULL, 16);
	if (strcmp(what, "calls") == 0) {
		uint64_t n = 0;
		for (size_t i = 0; i < m.ncalls; i++)
			if (m.calls[i].selfpc >= lo && m.calls[i].selfpc < hi)
				n += m.calls[i].count;
		printf("%llu\n", (unsigned long long)n);
	} else if (strcmp(what, "arcs") == 0) {
		uint64_t n = 0, callers = 0;
		for (size_t i = 0; i < m.narcs; i++)
			if (m.arcs[i].selfpc >= lo && m.arcs[i].selfpc < hi) {
				n += m.arcs[i].count;
				callers++;
			}
		printf("%llu %llu\n", (unsigned long long)n, (unsigned long long)callers);
	} else if (strcmp(what, "stacks") == 0) {
		uint64_t samples = 0, reach = 0, maxd = 0, threads = 0;
		for (size_t i = 0; i < m.nstacks; i++) {
			const struct monout_stack *k = &m.stacks[i];
			samples += k->count;
			if (k->depth > maxd)
				maxd = k->depth;
			int seen = 0;
			for (size_t j = 0; j < i && !seen; j++)
				seen = m.stacks[j].tid == k->tid;
			threads += !seen;
			for (uint32_t d = 0; d < k->depth; d++)
				if (k->pcs[d] >= lo && k->pcs[d] < hi) {
					reach += k->count;
					break;
				}
		}
		printf("stacks %d entries %zu samples %llu lost %llu truncated %llu depth %u "
		       "reach %llu maxdepth %llu threads %llu tid0 %llu\n",
		       m.have_stacks, m.nstacks, (unsigned long long)samples,
		       (unsigned long long)m.stacks_lost, (unsigned long long)m.stacks_truncated,
		       m.stack_max_depth, (unsigned long long)reach, (unsigned long long)maxd,
		       (unsigned long long)threads,
		       (unsigned long long)(m.nstacks ? m.stacks[0].tid : 0));
	} else if (strcmp(what, "ticks") == 0) {
		uint64_t in = 0, all = 0;
		for (size_t h = 0; h < m.nhists; h++) {
			const struct monout_hist *hp = &m.hists[h];
			for (uint64_t i = 0; i < hp->nbins; i++) {
				all += hp->counts[i];
				uint64_t b0 = monout_bin_lowpc(hp, i), b1 = monout_bin_lowpc(hp, i + 1);
				if (b0 >= lo && b1 <= hi)
					in += hp->counts[i];
			}
		}
		printf("%llu %llu\n", (unsigned long long)in, (unsigned long long)all);
	} else {
		rc = 2;
	}
out:
	monout_free(&m);
	return rc;
}
