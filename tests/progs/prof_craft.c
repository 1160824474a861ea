/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * prof_craft.c — writes a mon.out with exactly the contents a prof test
 * asks for, through the format module's own writer (format/monout_write.c),
 * so that prof can be tested on histograms whose bins, scale and load
 * addresses are known to the byte.
 *
 *   prof_craft OUT [-r RATE] [-C CLOCK] [-o PATH:BIAS:LO:HI:FLAGS[:BUILDIDHEX] [-O SET]]...
 *                  [-h LOWPC:HIGHPC:SCALE:NBINS [-b BIN:COUNT]...]...
 *                  [-c SELFPC:COUNT]... [-A FROMPC:SELFPC:COUNT]... [-P PC:COUNT]...
 *                  [-s SAMPLES:DROPPED:SATURATED:LOST] [-4] [-S]
 *                  [-K MAXDEPTH:LOST:TRUNCATED] [-k COUNT:TID:FLAGS:PC,PC,...]...
 *                  [-T TID:NAME]... [-E ELAPSED_US:TIME:PID[:BEFORE_US[:UNLISTED[:FLAGS]]]]
 *                  [-I SEQ:START_NS:END_NS:FLAGS]
 *                  [-W RATE:ELAPSED_US:ROUNDS:MISSED:USER_US:SYS_US:FLAGS[:UNLISTED:LOST]]
 *                  [-X TID:EXPECTED:TAKEN:UNREADABLE:NAME]...
 *                  [-Y ID:KIND:FD:FDKIND:OBJECT:OFFSET:FLAGS:OWNER:TEXT]...
 *                  [-w COUNT:TID:STATE:SYSCALL:WAIT:FLAGS[:PC,PC,...]]...
 *
 * Numbers take C syntax (0x... for hex).  -C sets RUN's clock (enum
 * mon_clock: 1 perf, 2 thread, 3 itimer; default 1).  FLAGS: 1 = main program.  -b sets
 * a bin of the histogram given by the last -h; -A adds an arc (ARCS record), -P
 * samples at a PC in no object (PCS record).  -4 marks the header as
 * holding 4-byte addresses (whatever the values: for the reader's check of
 * impossible files), with the header checksum remade.  -O sets the last
 * -o object's set (OBJECT: the object set it was first seen loaded in; 0,
 * the default, loaded when profiling started; the stacks are set 0's).  -S writes every
 * histogram sparse (only its non-zero bins), as whole-process profiles are.
 * -k adds a call stack (STACKS record; PCs leaf first, FLAGS as
 * MONOUT_STACK_*), -K sets the record's fixed part (default max depth 64,
 * lost 0, truncated: the counts of the -k stacks flagged truncated).  -T
 * adds a thread (THREADS record) of that name; -U
 * TID:SAMPLES:USER_USEC:SYS_USEC:FLAGS:NAME[:LATE] one with its counts (FLAGS as
 * MONOUT_THREAD_*; LATE its late samples).  -E writes a FACTS record
 * of that elapsed time (microseconds) and CPU before profiling started
 * (BEFORE_US, default 0), threads it does not list (UNLISTED, default 0),
 * its MONOUT_FACT_* flags (FLAGS, default 0),
 * and sets RUN's write time (seconds since the
 * Epoch) and pid.  -I writes an INTERVAL record (FLAGS as
 * MONOUT_INTERVAL_*: 4 says CALLS and ARCS are the interval's own).  -W writes a WALL record
 * (x86-64 system call numbers, max depth 64; UNLISTED threads the table had
 * no room for and LOST samples not recorded, default 0) with -X its threads, -Y its
 * waits (KIND, FDKIND, FLAGS as MONOUT_WAIT_*, MONOUT_FD_*; OBJECT an
 * object's index or 0xffffffff; the address is OFFSET plus that object's
 * bias) and -w its samples (STATE as MONOUT_WALL_*, WAIT a -Y id or
 * 0xffffffff, SYSCALL 0xffffffff for none; no PCs: no stack).  Link with libmon.a (the
 * format module's functions are hidden in libmon.so).  Exit 0, or 1 with a
 * message.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monout.h"

#define MAXN 64

static uint64_t num(const char **p)
{
	char *end;
	uint64_t v = strtoull(*p, &end, 0);
	if (end == *p) {
		fprintf(stderr, "prof_craft: bad number at '%s'\n", *p);
		exit(1);
	}
	*p = *end == ':' ? end + 1 : end;
	return v;
}

int main(int argc, char **argv)
{
	static struct monout_object objs[MAXN];
	static struct monout_hist hists[MAXN];
	static struct monout_call calls[4096];
	static struct monout_arc arcs[4096];
	static struct monout_call pcs[256];
	static uint8_t ids[MAXN][64];
	static char paths[MAXN][4096];
	struct monout m;
	int c;

	if (argc < 2) {
		fprintf(stderr, "usage: prof_craft OUT [options]\n");
		return 1;
	}
	memset(&m, 0, sizeof m);
	m.version = MONOUT_VERSION;
	m.run.rate_hz = 1000;
	m.run.clock = 1;
	m.run.reason = MONOUT_WHY_OTHER;
	m.run.pid = (uint64_t)getpid();
	m.objects = objs;
	m.hists = hists;
	m.calls = calls;
	m.arcs = arcs;
	m.pcs = pcs;
	optind = 2;
	int four = 0;
	int sparse = 0;
	static struct monout_stack stacks[1024];
	static uint64_t stack_pcs[1024][MONOUT_STACK_MAX_DEPTH];
	static struct monout_thread threads[256];
	int head_set = 0;
	m.stacks = stacks;
	m.threads = threads;
	m.stack_max_depth = 64;
	static struct monout_wall_thread wthreads[256];
	static struct monout_wait waits[256];
	static char wait_text[256][256];
	static struct monout_wall_sample wsamples[1024];
	static uint64_t wall_pcs[1024][64];
	m.wall_threads = wthreads;
	m.waits = waits;
	m.wall_samples = wsamples;
	while ((c = getopt(argc, argv, "r:C:o:O:h:b:c:A:P:s:4SK:k:T:U:W:X:Y:w:E:I:")) != -1) {
		const char *p = optarg;
		switch (c) {
		case 'r':
			m.run.rate_hz = (uint32_t)num(&p);
			break;
		case 'C':
			m.run.clock = (uint32_t)num(&p);
			break;
		case 'E':	/* FACTS elapsed, RUN write time and pid */
			m.have_facts = 1;
			m.facts.elapsed_usec = num(&p);
			m.facts.rate_asked = m.facts.rate_set = m.run.rate_hz;
			m.run.time = num(&p);
			m.run.pid = num(&p);
			if (*p != '\0')
				m.facts.cpu_before_usec = num(&p);
			if (*p != '\0')
				m.facts.threads_unlisted = (uint32_t)num(&p);
			if (*p != '\0')
				m.facts.flags = (uint32_t)num(&p);
			break;
		case 'I':	/* INTERVAL: seq, start, end, flags */
			m.have_interval = 1;
			m.interval.seq = num(&p);
			m.interval.start_ns = num(&p);
			m.interval.end_ns = num(&p);
			m.interval.flags = (uint32_t)num(&p);
			m.interval.period_ms = 1000;
			break;
		case 'o': {
			struct monout_object *o = &objs[m.nobjects];
			const char *colon = strchr(p, ':');
			if (!colon || m.nobjects == MAXN)
				return 1;
			size_t pl = (size_t)(colon - p);
			memcpy(paths[m.nobjects], p, pl);
			o->path = paths[m.nobjects];
			o->path_len = (uint32_t)pl;
			p = colon + 1;
			o->load_bias = num(&p);
			o->text_lo = num(&p);
			o->text_hi = num(&p);
			o->flags = (uint32_t)num(&p);
			size_t n = 0;
			while (p[0] && p[1] && n < 64) {
				unsigned v;
				if (sscanf(p, "%2x", &v) != 1)
					break;
				ids[m.nobjects][n++] = (uint8_t)v;
				p += 2;
			}
			o->build_id = ids[m.nobjects];
			o->build_id_len = (uint32_t)n;
			m.nobjects++;
			break;
		}
		case 'h': {
			struct monout_hist *h = &hists[m.nhists];
			if (m.nhists == MAXN)
				return 1;
			h->lowpc = num(&p);
			h->highpc = num(&p);
			h->scale = (uint32_t)num(&p);
			h->nbins = num(&p);
			h->bin_bytes = 8;
			h->object = MONOUT_NO_OBJECT;
			h->counts = calloc(h->nbins ? h->nbins : 1, sizeof *h->counts);
			if (!h->counts)
				return 1;
			m.nhists++;
			break;
		}
		case 'b': {
			if (m.nhists == 0)
				return 1;
			uint64_t i = num(&p), v = num(&p);
			if (i >= hists[m.nhists - 1].nbins) {
				fprintf(stderr, "prof_craft: bin %llu out of range\n",
					(unsigned long long)i);
				return 1;
			}
			hists[m.nhists - 1].counts[i] += v;
			m.run.samples += v;
			m.run.counted += v;
			break;
		}
		case 'c':
			if (m.ncalls == sizeof calls / sizeof calls[0])
				return 1;
			calls[m.ncalls].selfpc = num(&p);
			calls[m.ncalls].count = num(&p);
			m.ncalls++;
			break;
		case 'P':	/* PCS: a PC in no object, its samples */
			if (m.npcs == sizeof pcs / sizeof pcs[0])
				return 1;
			pcs[m.npcs].selfpc = num(&p);
			pcs[m.npcs].count = num(&p);
			m.npcs++;
			break;
		case 'A':
			if (m.narcs == sizeof arcs / sizeof arcs[0])
				return 1;
			arcs[m.narcs].frompc = num(&p);
			arcs[m.narcs].selfpc = num(&p);
			arcs[m.narcs].count = num(&p);
			m.narcs++;
			break;
		case '4':
			four = 1;
			break;
		case 'S':
			sparse = 1;
			break;
		case 'O':	/* the last object's set */
			if (m.nobjects == 0)
				return 1;
			objs[m.nobjects - 1].set = (uint32_t)num(&p);
			break;
		case 's':	/* the RUN record's sample counters */
			m.run.samples = num(&p);
			m.run.dropped = num(&p);
			m.run.saturated = num(&p);
			m.run.lost = num(&p);
			break;
		case 'K':
			m.have_stacks = head_set = 1;
			m.stack_max_depth = (uint32_t)num(&p);
			m.stacks_lost = num(&p);
			m.stacks_truncated = num(&p);
			break;
		case 'k': {
			struct monout_stack *st = &stacks[m.nstacks];
			if (m.nstacks == sizeof stacks / sizeof stacks[0])
				return 1;
			st->count = num(&p);
			st->tid = num(&p);
			st->flags = (uint32_t)num(&p);
			st->pcs = stack_pcs[m.nstacks];
			st->depth = 0;
			while (*p && st->depth < MONOUT_STACK_MAX_DEPTH) {
				char *end;
				st->pcs[st->depth++] = strtoull(p, &end, 0);
				if (end == p) {
					fprintf(stderr, "prof_craft: bad PC at '%s'\n", p);
					return 1;
				}
				p = *end == ',' ? end + 1 : end;
			}
			m.have_stacks = 1;
			m.nstacks++;
			break;
		}
		case 'T': {
			struct monout_thread *t = &threads[m.nthreads];
			if (m.nthreads == sizeof threads / sizeof threads[0])
				return 1;
			t->tid = num(&p);
			snprintf(t->name, sizeof t->name, "%s", p);
			m.nthreads++;
			break;
		}
		case 'U': {	/* TID:SAMPLES:USER_USEC:SYS_USEC:FLAGS:NAME[:LATE] */
			struct monout_thread *t = &threads[m.nthreads];
			if (m.nthreads == sizeof threads / sizeof threads[0])
				return 1;
			t->tid = num(&p);
			t->samples = num(&p);
			t->user_usec = num(&p);
			t->sys_usec = num(&p);
			t->flags = (uint32_t)num(&p);
			const char *late = strchr(p, ':');
			snprintf(t->name, sizeof t->name, "%.*s", (int)(late ? late - p : (long)strlen(p)), p);
			t->late = late ? strtoull(late + 1, NULL, 0) : 0;
			m.nthreads++;
			break;
		}
		case 'W':
			m.have_wall = 1;
			m.wall.rate_hz = (uint32_t)num(&p);
			m.wall.max_depth = 64;
			m.wall.elapsed_usec = num(&p);
			m.wall.rounds = num(&p);
			m.wall.missed = num(&p);
			m.wall.user_usec = num(&p);
			m.wall.sys_usec = num(&p);
			m.wall.flags = (uint32_t)num(&p);
			if (*p != '\0') {
				m.wall.threads_unlisted = (uint32_t)num(&p);
				m.wall.lost = num(&p);
			}
			m.wall.machine = 62;	/* EM_X86_64 */
			break;
		case 'X': {
			struct monout_wall_thread *t = &wthreads[m.nwall_threads];
			if (m.nwall_threads == sizeof wthreads / sizeof wthreads[0])
				return 1;
			t->tid = num(&p);
			t->expected = num(&p);
			t->taken = num(&p);
			t->unreadable = num(&p);
			t->last_usec = m.wall.elapsed_usec;
			snprintf(t->name, sizeof t->name, "%s", p);
			m.nwall_threads++;
			break;
		}
		case 'Y': {
			struct monout_wait *v = &waits[m.nwaits];
			if (m.nwaits == sizeof waits / sizeof waits[0])
				return 1;
			v->id = (uint32_t)num(&p);
			v->kind = (uint32_t)num(&p);
			v->fd = (uint32_t)num(&p);
			v->fd_kind = (uint32_t)num(&p);
			v->object = (uint32_t)num(&p);
			v->offset = num(&p);
			v->flags = (uint32_t)num(&p);
			v->owner = num(&p);
			v->address = v->offset + (v->object < m.nobjects ? objs[v->object].load_bias : 0);
			snprintf(wait_text[m.nwaits], sizeof wait_text[0], "%s", p);
			v->text = wait_text[m.nwaits];
			v->text_len = (uint32_t)strlen(v->text);
			m.nwaits++;
			break;
		}
		case 'w': {
			struct monout_wall_sample *s = &wsamples[m.nwall_samples];
			if (m.nwall_samples == sizeof wsamples / sizeof wsamples[0])
				return 1;
			s->count = num(&p);
			s->tid = num(&p);
			s->state = (uint32_t)num(&p);
			s->syscall = (uint32_t)num(&p);
			s->wait = (uint32_t)num(&p);
			s->flags = (uint32_t)num(&p);
			s->pcs = wall_pcs[m.nwall_samples];
			while (*p && s->depth < 64) {
				char *end;
				s->pcs[s->depth++] = strtoull(p, &end, 0);
				if (end == p) {
					fprintf(stderr, "prof_craft: bad PC at '%s'\n", p);
					return 1;
				}
				p = *end == ',' ? end + 1 : end;
			}
			if (s->depth == 0)
				s->pcs = NULL;
			m.nwall_samples++;
			break;
		}
		default:
			return 1;
		}
	}
	for (size_t i = 0; !head_set && i < m.nstacks; i++)
		if (stacks[i].flags & MONOUT_STACK_TRUNCATED)
			m.stacks_truncated += stacks[i].count;
	for (size_t i = 0; sparse && i < m.nhists; i++)
		hists[i].flags |= MONOUT_HIST_SPARSE;
	int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || monout_write_fd(fd, &m) < 0) {
		perror(argv[1]);
		return 1;
	}
	if (four) {
		/* mon.out(5): byte 11 is the address size; the header's CRC-32
		 * (at 32) is taken with its own 4 bytes zero. */
		unsigned char h[MONOUT_HEADER_SIZE];
		if (pread(fd, h, sizeof h, 0) != (ssize_t)sizeof h)
			return 1;
		h[11] = 4;
		memset(h + 32, 0, 4);
		uint32_t crc = monout_crc32(0, h, sizeof h);
		memcpy(h + 32, &crc, 4);	/* the writer's (native) byte order */
		if (pwrite(fd, h, sizeof h, 0) != (ssize_t)sizeof h)
			return 1;
	}
	if (close(fd) < 0) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
