/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * save.c — `prof --output=FILE`: the profiles read, summed into one mon.out
 * (docs/mon.out.5), so that a process tree's thousands of files become one
 * that every tool reads at once and that --base can take.
 *
 * The sum is made on the files' own records (format/monout.h), not on
 * prof's model, so nothing is rounded: histograms of the same object over
 * the same range and scale add up bin by bin (written sparse), and call
 * counts, arcs, PCs in anonymous code, call stacks and threads are
 * concatenated (a reader adds up counts of the same PC, arc and stack).
 * Addresses are runtime addresses of one layout, the merged file's: an
 * object keeps the load bias of the first file that has it, and where
 * another file has it at another bias (a library a server's worker
 * dlopen()ed after the fork, at an address that differs from worker to
 * worker; another run of a position-independent program) that file's
 * addresses in it are moved to the first layout: histogram ranges (their
 * bins are offsets from lowpc, so they stay), call and arc PCs, stack and
 * wall-sample frames, SYMS entries and futex words.  An object first seen
 * over the addresses of another is placed above every object so far (each
 * object's text once, no two over the same addresses: a PC names one
 * object in the merged file).  Refused, naming both files: the same
 * object (path and build ID) with another text range relative to its
 * bias (not the same code), and objects that share addresses within one
 * file (one unloaded, the other loaded there) when one of them must
 * move: a PC there could not tell which to follow; samples in code of no
 * object (PCS, or frames of stacks flagged MONOUT_STACK_JIT: a JIT's) where
 * another file has an object.  Such samples where their own file lists an
 * object (loaded after they were taken: a library's _init sampled while
 * dlopen loaded it) are that object's, as prof reads the file alone (by
 * address), and move with it.  RUN holds the first
 * file's process, command and clock and the sums of the counters and CPU;
 * FACTS the run's span (earliest start to latest end) as its elapsed
 * time; SPAN its bounds when every file's are to the nanosecond
 * (INTERVAL or SPAN); FORKS the sum.  WALL: the header's counters summed, its
 * elapsed each process's intervals summed (the longest, or the span of
 * all when the processes reach further), a thread (tid) seen in several
 * files one entry (counts summed, span the union), samples of the same
 * (tid, state, syscall, wait, stack) one entry; files at another wall
 * rate or of another machine are refused.  A file of a process that ran
 * several programs (exec: IMAGES) holds its own image's samples only, and
 * sums as any other; one file alone keeps its IMAGES record.
 */
#include "prof.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "monout.h"

struct pair {			/* a histogram bin: index, count */
	uint64_t index, count;
};

struct mhist {			/* a merged histogram: its record and its bins */
	struct monout_hist h;
	struct pair *v;
	size_t n, cap;
};

static int cmp_pair(const void *x, const void *y)
{
	const struct pair *p = x, *q = y;
	return p->index < q->index ? -1 : p->index > q->index;
}

/* Appends n elements of size sz at src to the array *v of *len (grown).
 * 0 or -1 (ENOMEM). */
static int append(void **v, size_t *len, const void *src, size_t n, size_t sz)
{
	if (n == 0)
		return 0;
	void *nv = realloc(*v, (*len + n) * sz);
	if (nv == NULL)
		return -1;
	memcpy((char *)nv + *len * sz, src, n * sz);
	*v = nv;
	*len += n;
	return 0;
}

/* File d's THREADS added to m's, where the files before it put theirs
 * (m->threads[0..before)).  A thread of d listed again by a file before it
 * (an interval series, the images of one process: each file holds the
 * thread's CPU and samples of its own span) is one entry, the two added,
 * as prof adds them reading the files (coverage_threads_merge), unless
 * the earlier entry ended (its tid was then a new thread's).  Two live
 * entries of one thread in d itself (runfacts.c lists a thread its first
 * tick claimed while the writer listed it too) count as the reader counts
 * them (input.c): samples added, the larger CPU.  Threads are told apart
 * by tid alone (THREADS has no pid): files of two processes whose tids
 * collide (a pid namespace, a tid reused) are summed as one thread.  0, or
 * -1 with no memory. */
static int add_threads(struct monout *m, size_t before, const struct monout *d)
{
	/* Per entry of d: the entry of m it went to (SIZE_MAX: none). */
	size_t *to = malloc((d->nthreads ? d->nthreads : 1) * sizeof *to);
	if (to == NULL)
		return -1;
	for (size_t i = 0; i < d->nthreads; i++) {
		const struct monout_thread *t = &d->threads[i];
		to[i] = SIZE_MAX;
		/* A second live entry of a thread d listed already. */
		size_t j = i;
		while (!(t->flags & MONOUT_THREAD_ENDED) && j-- > 0)
			if (d->threads[j].tid == t->tid && !(d->threads[j].flags & MONOUT_THREAD_ENDED))
				break;
		if (!(t->flags & MONOUT_THREAD_ENDED) && j != SIZE_MAX && to[j] != SIZE_MAX) {
			struct monout_thread *o = &m->threads[to[j]];
			/* The entry of d whose CPU o holds: the largest so far. */
			const struct monout_thread *f = &d->threads[j];
			for (size_t k = 0; k < j; k++)
				if (to[k] == to[j] && d->threads[k].user_usec + d->threads[k].sys_usec >
							    f->user_usec + f->sys_usec)
					f = &d->threads[k];
			o->samples += t->samples;
			o->late += t->late;
			if (t->user_usec + t->sys_usec > f->user_usec + f->sys_usec) {
				o->user_usec = o->user_usec - f->user_usec + t->user_usec;
				o->sys_usec = o->sys_usec - f->sys_usec + t->sys_usec;
			}
			to[i] = to[j];
			continue;
		}
		struct monout_thread *o = NULL;
		for (size_t k = before; k-- > 0;)
			if (m->threads[k].tid == t->tid) {
				if (!(m->threads[k].flags & MONOUT_THREAD_ENDED))
					o = &m->threads[k];
				break;
			}
		if (o == NULL) {
			if (append((void **)&m->threads, &m->nthreads, t, 1, sizeof *t) < 0) {
				free(to);
				return -1;
			}
			to[i] = m->nthreads - 1;
			continue;
		}
		o->user_usec += t->user_usec;
		o->sys_usec += t->sys_usec;
		o->samples += t->samples;
		o->late += t->late;
		o->flags = (o->flags & t->flags & MONOUT_THREAD_CPU) | (t->flags & MONOUT_THREAD_ENDED);
		if (o->name[0] == '\0')
			memcpy(o->name, t->name, sizeof o->name);
		to[i] = (size_t)(o - m->threads);
	}
	free(to);
	return 0;
}

static int same_object(const struct monout_object *a, const struct monout_object *b)
{
	return a->path_len == b->path_len && memcmp(a->path, b->path, a->path_len) == 0 &&
	       a->build_id_len == b->build_id_len &&
	       memcmp(a->build_id, b->build_id, a->build_id_len) == 0;
}

static int same_wait(const struct monout_wait *a, const struct monout_wait *b)
{
	return a->kind == b->kind && a->fd == b->fd && a->fd_kind == b->fd_kind &&
	       a->address == b->address && a->object == b->object && a->flags == b->flags &&
	       a->offset == b->offset && a->owner == b->owner && a->text_len == b->text_len &&
	       memcmp(a->text, b->text, a->text_len) == 0;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* Where one file's addresses move to the merged layout: [lo, hi) (an
 * object's text in the file) plus delta (mod 2^64). */
struct shift {
	uint64_t lo, hi, delta;
};

/* pc in the merged layout: moved by the shift whose range holds it, else
 * as it is (an object that kept its address, or code in no object). */
static uint64_t moved(const struct shift *sh, size_t nsh, uint64_t pc)
{
	for (size_t i = 0; i < nsh; i++)
		if (pc >= sh[i].lo && pc < sh[i].hi)
			return pc + sh[i].delta;
	return pc;
}

/* The text ranges of a and b share an address (an empty one none). */
static int overlap(const struct monout_object *a, const struct monout_object *b)
{
	return a->text_lo < a->text_hi && b->text_lo < b->text_hi && a->text_lo < b->text_hi &&
	       b->text_lo < a->text_hi;
}

struct wall_span {		/* one process's wall-clock sampling in the files */
	uint64_t pid;
	uint64_t usec;		/* the sum of its files' WALL elapsed (its intervals) */
	double end;		/* seconds since the Epoch: its last file's write */
};

/*
 * Adds the WALL record of d (file `file`; its objects at objmap[] in *m,
 * moved by delta[]: a futex word in one moves with it)
 * to the one being built in *m: the header's counters summed (rounds,
 * missed, sampler CPU, lost, threads not listed; flags or'ed; the largest
 * max depth), each process's elapsed summed into *spans (its intervals
 * follow each other), threads, waits and samples appended (waits once
 * each, objects and samples' waits renumbered for *m; wall_finish merges
 * threads and samples).  Returns 0, or -1 with a message in err[0..errlen)
 * (ENOMEM, or a rate or machine other than the files' before: wall
 * samples at another rate are not one unit, system call numbers of
 * another machine not one numbering).
 */
static int wall_add(struct monout *m, const struct monout *d, const uint32_t *objmap,
		    const uint64_t *delta, struct wall_span **spans, size_t *nspans,
		    const char *file, const char *first, char *err, size_t errlen)
{
	const struct monout_wall_head *h = &d->wall;
	if (!m->have_wall) {
		m->have_wall = 1;
		m->wall = *h;
		m->wall.elapsed_usec = m->wall.rounds = m->wall.missed = 0;
		m->wall.user_usec = m->wall.sys_usec = m->wall.lost = 0;
		m->wall.threads_unlisted = 0;
		m->wall.flags = 0;
	} else if (h->rate_hz != m->wall.rate_hz ||
		   (h->machine && m->wall.machine && h->machine != m->wall.machine)) {
		snprintf(err, errlen, "%s: its wall-clock samples (WALL) were taken %s than %s's "
			 "(%u Hz, machine %u; there %u Hz, machine %u): they do not add up in one "
			 "file", file, h->rate_hz != m->wall.rate_hz ? "at another rate"
			 : "on another machine (system call numbers)", first, h->rate_hz,
			 h->machine, m->wall.rate_hz, m->wall.machine);
		return -1;
	}
	if (!m->wall.machine)
		m->wall.machine = h->machine;
	if (h->max_depth > m->wall.max_depth)
		m->wall.max_depth = h->max_depth;
	m->wall.rounds = add_sat(m->wall.rounds, h->rounds);
	m->wall.missed = add_sat(m->wall.missed, h->missed);
	m->wall.user_usec = add_sat(m->wall.user_usec, h->user_usec);
	m->wall.sys_usec = add_sat(m->wall.sys_usec, h->sys_usec);
	m->wall.lost = add_sat(m->wall.lost, h->lost);
	m->wall.threads_unlisted += h->threads_unlisted;
	m->wall.flags |= h->flags;
	/* Elapsed: a process's intervals follow each other (their sum is its
	 * span); processes may overlap (wall_finish). */
	uint64_t s_ns = 0, e_ns = 0;
	double end = monout_span_ns(d, &s_ns, &e_ns) >= 0 ? (double)e_ns / 1e9 : (double)d->run.time;
	size_t k = 0;
	while (k < *nspans && (*spans)[k].pid != d->run.pid)
		k++;
	if (k == *nspans) {
		struct wall_span sp = { d->run.pid, 0, end };
		if (append((void **)spans, nspans, &sp, 1, sizeof sp) < 0)
			goto nomem;
	}
	(*spans)[k].usec = add_sat((*spans)[k].usec, h->elapsed_usec);
	if (end > (*spans)[k].end)
		(*spans)[k].end = end;
	if (append((void **)&m->wall_threads, &m->nwall_threads, d->wall_threads,
		   d->nwall_threads, sizeof *d->wall_threads) < 0)
		goto nomem;
	/* Waits: the reader's indexes in d->waits become indexes in m->waits. */
	uint32_t *wmap = malloc((d->nwaits ? d->nwaits : 1) * sizeof *wmap);
	if (wmap == NULL)
		goto nomem;
	for (size_t i = 0; i < d->nwaits; i++) {
		struct monout_wait v = d->waits[i];
		if (v.object != MONOUT_NO_OBJECT && v.object < d->nobjects) {
			v.address += delta[v.object];	/* its object moved (prof_save) */
			v.object = objmap[v.object];
		} else if (v.object != MONOUT_NO_OBJECT) {
			v.object = MONOUT_NO_OBJECT;
		}
		size_t j = 0;
		while (j < m->nwaits && !same_wait(&m->waits[j], &v))
			j++;
		if (j == m->nwaits) {
			v.id = (uint32_t)j;
			if (append((void **)&m->waits, &m->nwaits, &v, 1, sizeof v) < 0) {
				free(wmap);
				goto nomem;
			}
		}
		wmap[i] = (uint32_t)j;
	}
	size_t s0 = m->nwall_samples;
	if (append((void **)&m->wall_samples, &m->nwall_samples, d->wall_samples,
		   d->nwall_samples, sizeof *d->wall_samples) < 0) {
		free(wmap);
		goto nomem;
	}
	for (size_t i = s0; i < m->nwall_samples; i++) {
		uint32_t w = m->wall_samples[i].wait;
		m->wall_samples[i].wait = w < d->nwaits ? wmap[w] : MONOUT_NO_WAIT;
	}
	free(wmap);
	return 0;
nomem:
	snprintf(err, errlen, "%s", strerror(ENOMEM));
	return -1;
}

/* The WALL record built by wall_add finished: elapsed the longest
 * process's sum, or the span from the earliest start to the latest write
 * when the processes' intervals reach further; a thread seen in several
 * files one entry (its counts summed, its span the union, its flags
 * or'ed, its last name); samples of one key one entry, counts summed. */
static void wall_finish(struct monout *m, const struct wall_span *spans, size_t nspans)
{
	double lo = 0, hi = 0;
	for (size_t k = 0; k < nspans; k++) {
		double s = spans[k].end - (double)spans[k].usec / 1e6;
		if (k == 0 || s < lo)
			lo = s;
		if (k == 0 || spans[k].end > hi)
			hi = spans[k].end;
		if (spans[k].usec > m->wall.elapsed_usec)
			m->wall.elapsed_usec = spans[k].usec;
	}
	if (nspans > 1 && (hi - lo) * 1e6 > (double)m->wall.elapsed_usec)
		m->wall.elapsed_usec = (uint64_t)((hi - lo) * 1e6 + 0.5);
	if (m->nwall_threads) {
		qsort(m->wall_threads, m->nwall_threads, sizeof *m->wall_threads, monout_wall_thread_cmp);
		size_t k = 0;
		for (size_t j = 0; j < m->nwall_threads; j++) {
			struct monout_wall_thread *a = &m->wall_threads[k ? k - 1 : 0];
			const struct monout_wall_thread *b = &m->wall_threads[j];
			if (k && a->tid == b->tid) {
				a->expected = add_sat(a->expected, b->expected);
				a->taken = add_sat(a->taken, b->taken);
				a->unreadable = add_sat(a->unreadable, b->unreadable);
				if (b->first_usec < a->first_usec)
					a->first_usec = b->first_usec;
				if (b->last_usec > a->last_usec)
					a->last_usec = b->last_usec;
				a->flags |= b->flags;
				if (b->name[0])
					memcpy(a->name, b->name, sizeof a->name);
			} else {
				m->wall_threads[k++] = *b;
			}
		}
		m->nwall_threads = k;
	}
	if (m->nwall_samples) {
		qsort(m->wall_samples, m->nwall_samples, sizeof *m->wall_samples, monout_wall_sample_cmp);
		size_t k = 0;
		for (size_t j = 0; j < m->nwall_samples; j++) {
			if (k && monout_wall_sample_cmp(&m->wall_samples[k - 1], &m->wall_samples[j]) == 0)
				m->wall_samples[k - 1].count =
					add_sat(m->wall_samples[k - 1].count, m->wall_samples[j].count);
			else
				m->wall_samples[k++] = m->wall_samples[j];
		}
		m->nwall_samples = k;
	}
}

static int cmp_range(const void *x, const void *y)
{
	const struct shift *a = x, *b = y;
	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

struct anon {			/* a sampled PC in code of no object of its file */
	uint64_t pc;
	size_t file;
};

/* Whether a PC of v[0..n) (code in no object of its file: PCS entries,
 * frames of stacks whose walk reached such code) lies in an object of the
 * merged layout (m->objects, no two over the same addresses; from[j]: the
 * file object j's layout is from): 0 none, 1 one (a message in err naming
 * both files), -1 ENOMEM.  O((n + objects) log objects). */
static int anon_in_objects(const struct monout *m, const struct anon *v, size_t nv,
			   const size_t *from, const char *const *files, char *err, size_t errlen)
{
	struct shift *r = malloc((m->nobjects ? m->nobjects : 1) * sizeof *r);
	size_t n = 0;
	if (r == NULL) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -1;
	}
	for (size_t i = 0; i < m->nobjects; i++)
		if (m->objects[i].text_lo < m->objects[i].text_hi)
			r[n++] = (struct shift){ m->objects[i].text_lo, m->objects[i].text_hi, i };
	qsort(r, n, sizeof *r, cmp_range);
	for (size_t k = 0; k < nv; k++) {
		uint64_t pc = v[k].pc;
		size_t lo = 0, hi = n;
		while (lo < hi) {	/* the first range starting above pc */
			size_t mid = lo + (hi - lo) / 2;
			if (r[mid].lo <= pc)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == 0 || pc >= r[lo - 1].hi)
			continue;
		size_t j = (size_t)r[lo - 1].delta;
		const struct monout_object *o = &m->objects[j];
		snprintf(err, errlen, "%s: samples at 0x%llx, in code of no object (a JIT's), "
			 "lie where %s has %.*s: summed into one file they would be counted as "
			 "that object's; read them with prof -m", files[v[k].file],
			 (unsigned long long)pc, files[from[j]], (int)o->path_len, o->path);
		free(r);
		return 1;
	}
	free(r);
	return 0;
}

/* Whether pc lies in one of d's objects. */
static int in_some_object(const struct monout *d, uint64_t pc)
{
	for (size_t i = 0; i < d->nobjects; i++)
		if (pc >= d->objects[i].text_lo && pc < d->objects[i].text_hi)
			return 1;
	return 0;
}

/* Appends to *v (of *nv) the PCs of pcs[0..depth) that lie in none of
 * d's objects (file f), before they are moved.  0 or -1 (ENOMEM). */
static int add_anon(struct anon **v, size_t *nv, const struct monout *d, size_t f,
		    const uint64_t *pcs, uint32_t depth)
{
	for (uint32_t k = 0; k < depth; k++) {
		if (in_some_object(d, pcs[k]))
			continue;
		struct anon a = { pcs[k], f };
		if (append((void **)v, nv, &a, 1, sizeof a) < 0)
			return -1;
	}
	return 0;
}

int prof_save(const char *out, const char *const *files, size_t n, char *err, size_t errlen)
{
	struct monout *in = calloc(n ? n : 1, sizeof *in);
	struct monout m;
	struct mhist *mh = NULL;
	size_t nmh = 0, nparsed = 0;
	uint32_t *objmap = NULL;
	struct anon *anon = NULL;	/* PCs in code of no object of their file */
	size_t nanon = 0;
	uint64_t *delta = NULL;	/* this file's objects: merged minus own bias */
	size_t *from = NULL;	/* merged object: the file its layout is from */
	struct shift *sh = NULL;	/* this file's moved text ranges */
	size_t nsh = 0;
	unsigned char *syms_from = NULL;	/* merged object: its SYMS taken */
	int rc = -1, nosyms_anon = 1;
	char *tmp = NULL;
	struct wall_span *spans = NULL;
	size_t nspans = 0;
	memset(&m, 0, sizeof m);
	if (in == NULL)
		goto nomem;
	uint64_t start_ns = 0, end_ns = 0;	/* the files' earliest start, latest end */
	int facts_all = 1, any_span = 0, spans_exact = 1;
	for (size_t f = 0; f < n; f++) {
		unsigned char *buf;
		size_t len;
		char e[256];
		if (prof_slurp(files[f], &buf, &len, e, sizeof e) < 0 ||
		    monout_parse_opts(buf, len, &in[f], MONOUT_PARSE_SPARSE, e, sizeof e) < 0) {
			snprintf(err, errlen, "%s: %s", files[f], e);
			free(buf);
			goto out;
		}
		free(buf);
		nparsed++;
		/* An older series' interval: its own calls (intervals.c). */
		if (prof_interval_calls(files[f], &in[f]) < 0)
			goto nomem;
		const struct monout *d = &in[f];
		if (f == 0) {
			m.version = MONOUT_VERSION;
			m.flags = d->flags | MONOUT_F_SUMMED;
			m.run = d->run;
			m.run.user_usec = m.run.sys_usec = m.run.samples = m.run.counted = 0;
			m.run.dropped = m.run.saturated = m.run.lost = m.run.calls_lost = 0;
			m.facts = d->facts;
			m.facts.threads_unlisted = m.facts.check_usec = 0;
			m.facts.cpu_before_usec = 0;
			m.facts.flags = 0;
			/* One file keeps its process's exec history (IMAGES:
			 * the programs it ran, each image's samples in that
			 * image's own file); a sum of several has none. */
			if (n == 1) {
				m.images = d->images;
				m.nimages = d->nimages;
			}
		} else if (d->run.rate_hz != m.run.rate_hz || d->run.clock != m.run.clock) {
			snprintf(err, errlen, "%s: another clock or rate (%u Hz) than %s's (%u Hz): "
				 "its samples do not add up in one file", files[f], d->run.rate_hz,
				 files[0], m.run.rate_hz);
			goto out;
		}
		m.run.user_usec += d->run.user_usec;
		m.run.sys_usec += d->run.sys_usec;
		m.run.samples += d->run.samples;
		m.run.counted += d->run.counted;
		m.run.dropped += d->run.dropped;
		m.run.saturated += d->run.saturated;
		m.run.lost += d->run.lost;
		m.run.calls_lost += d->run.calls_lost;
		if (d->run.time > m.run.time)
			m.run.time = d->run.time;
		uint64_t s_ns, e_ns;
		int span = monout_span_ns(d, &s_ns, &e_ns);
		if (span < 1)
			spans_exact = 0;
		if (span >= 0) {
			if (!any_span || s_ns < start_ns)
				start_ns = s_ns;
			if (!any_span || e_ns > end_ns)
				end_ns = e_ns;
			any_span = 1;
		}
		if (d->have_facts) {
			m.facts.flags |= d->facts.flags;
			m.facts.threads_unlisted += d->facts.threads_unlisted;
			m.facts.check_usec += d->facts.check_usec;
			m.facts.cpu_before_usec += d->facts.cpu_before_usec;
			if (d->facts.elapsed_usec > m.facts.elapsed_usec)
				m.facts.elapsed_usec = d->facts.elapsed_usec;
		} else {
			facts_all = 0;
		}
		if (d->have_forks) {
			m.have_forks = 1;
			m.forks_unfollowed += d->forks_unfollowed;
		}

		/* Objects: one layout for all files, this file's moved to it
		 * where it has an object at another address (delta[k]). */
		uint32_t *om = realloc(objmap, (d->nobjects ? d->nobjects : 1) * sizeof *om);
		if (om == NULL)
			goto nomem;
		objmap = om;
		uint64_t *dl = realloc(delta, (d->nobjects ? d->nobjects : 1) * sizeof *dl);
		if (dl == NULL)
			goto nomem;
		delta = dl;
		nsh = 0;
		for (size_t k = 0; k < d->nobjects; k++) {
			const struct monout_object *o = &d->objects[k];
			size_t j = 0;
			while (j < m.nobjects && !same_object(&m.objects[j], o))
				j++;
			delta[k] = 0;
			if (j < m.nobjects) {
				const struct monout_object *q = &m.objects[j];
				if (q->text_lo - q->load_bias != o->text_lo - o->load_bias ||
				    q->text_hi - q->text_lo != o->text_hi - o->text_lo) {
					snprintf(err, errlen, "%s: %.*s at another address than in "
						 "%s, and its text not at the same offset from its "
						 "load bias or not of the same size: not the same "
						 "code, its samples cannot be summed", files[f],
						 (int)o->path_len, o->path, files[from[j]]);
					goto out;
				}
				delta[k] = q->load_bias - o->load_bias;
			} else {
				/* New: over the addresses of an object of another
				 * file, it moves above every object so far. */
				struct monout_object no = *o;
				for (size_t i = 0; i < m.nobjects; i++) {
					if (!overlap(&no, &m.objects[i]))
						continue;
					uint64_t top = 0;
					for (size_t t = 0; t < m.nobjects; t++)
						if (m.objects[t].text_hi > top)
							top = m.objects[t].text_hi;
					const uint64_t al = (uint64_t)1 << 21;
					uint64_t base = (top + al - 1) & ~(al - 1);
					delta[k] = base - (o->text_lo & ~(al - 1));
					no.load_bias += delta[k];
					no.text_lo += delta[k];
					no.text_hi += delta[k];
					break;
				}
				if (append((void **)&m.objects, &m.nobjects, &no, 1, sizeof no) < 0)
					goto nomem;
				unsigned char *sf = realloc(syms_from, m.nobjects);
				size_t *fr = realloc(from, m.nobjects * sizeof *fr);
				if (sf)
					syms_from = sf;
				if (fr)
					from = fr;
				if (sf == NULL || fr == NULL)
					goto nomem;
				syms_from[j] = 0;
				from[j] = f;
			}
			objmap[k] = (uint32_t)j;
			if (delta[k] == 0)
				continue;
			struct shift *ns = realloc(sh, (nsh + 1) * sizeof *ns);
			if (ns == NULL)
				goto nomem;
			sh = ns;
			sh[nsh++] = (struct shift){ o->text_lo, o->text_hi, delta[k] };
		}
		/* A moved object over another of this file's (one unloaded, the
		 * other loaded there): its PCs would not say which to follow. */
		for (size_t k0 = 0; k0 < d->nobjects; k0++) {
			if (delta[k0] == 0)
				continue;
			const struct monout_object *a = &d->objects[k0];
			for (size_t k = 0; k < d->nobjects; k++) {
				const struct monout_object *o = &d->objects[k];
				if (k == k0 || !overlap(a, o))
					continue;
				char where[512];
				if (from[objmap[k0]] == f)
					snprintf(where, sizeof where, "over an object of another file");
				else
					snprintf(where, sizeof where, "at another address than in %s",
						 files[from[objmap[k0]]]);
				snprintf(err, errlen, "%s: %.*s and %.*s over the same addresses "
					 "(one unloaded, the other loaded there), and %.*s %s: a PC "
					 "there does not say which object to move, its profiles "
					 "cannot be summed into one file; read them with prof -m",
					 files[f], (int)a->path_len, a->path, (int)o->path_len, o->path,
					 (int)a->path_len, a->path, where);
				goto out;
			}
		}
		/* Histograms: the same object, range and scale add up. */
		for (size_t k = 0; k < d->nhists; k++) {
			const struct monout_hist *h = &d->hists[k];
			uint32_t obj = h->object < d->nobjects ? objmap[h->object] : MONOUT_NO_OBJECT;
			/* Moved with its object: a bin is an offset from lowpc
			 * (format/bins.h), so the bins stay as they are, unless
			 * the range also holds an object moved otherwise. */
			uint64_t hd = 0;
			int hk = h->object < d->nobjects ? (int)h->object : -1;
			for (size_t i = 0; nsh && i < d->nobjects; i++) {
				const struct monout_object *o = &d->objects[i];
				if (o->text_lo >= o->text_hi ||
				    !(h->lowpc < o->text_hi && o->text_lo < h->highpc))
					continue;
				if (hk < 0)	/* no object said: the first it holds */
					hk = (int)i;
				if (delta[i] == delta[hk])
					continue;
				snprintf(err, errlen, "%s: a histogram of [0x%llx, 0x%llx) holds %.*s, "
					 "which lies at another address than in %s, and other code "
					 "that does not: its bins cannot be moved to that file's "
					 "layout", files[f], (unsigned long long)h->lowpc,
					 (unsigned long long)h->highpc, (int)o->path_len, o->path,
					 files[from[objmap[i]]]);
				goto out;
			}
			if (hk >= 0)
				hd = delta[hk];
			uint64_t lowpc = h->lowpc + hd, highpc = h->highpc + hd;
			size_t j = 0;
			while (j < nmh && !(mh[j].h.object == obj && mh[j].h.lowpc == lowpc &&
					    mh[j].h.highpc == highpc && mh[j].h.scale == h->scale &&
					    mh[j].h.nbins == h->nbins))
				j++;
			if (j == nmh) {
				struct mhist *nm = realloc(mh, (nmh + 1) * sizeof *mh);
				if (nm == NULL)
					goto nomem;
				mh = nm;
				memset(&mh[nmh], 0, sizeof *mh);
				mh[nmh].h = *h;
				mh[nmh].h.object = obj;
				mh[nmh].h.lowpc = lowpc;
				mh[nmh].h.highpc = highpc;
				mh[nmh].h.flags = MONOUT_HIST_SPARSE;
				mh[nmh].h.counts = mh[nmh].h.index = NULL;
				nmh++;
			}
			struct mhist *t = &mh[j];
			t->h.flags |= h->flags & MONOUT_HIST_SATURATES;
			if (h->bin_bytes > t->h.bin_bytes)
				t->h.bin_bytes = h->bin_bytes;
			size_t nb = h->index ? (size_t)h->nnz : (size_t)h->nbins;
			for (size_t b = 0; b < nb; b++) {
				if (h->counts[b] == 0)
					continue;
				if (t->n == t->cap) {
					size_t c = t->cap ? 2 * t->cap : 64;
					struct pair *v = realloc(t->v, c * sizeof *v);
					if (v == NULL)
						goto nomem;
					t->v = v;
					t->cap = c;
				}
				t->v[t->n++] = (struct pair){ h->index ? h->index[b] : b, h->counts[b] };
			}
		}
		size_t c0 = m.ncalls, a0 = m.narcs, st0 = m.nstacks, w0 = m.nwall_samples;
		size_t p0 = m.npcs;
		if (append((void **)&m.calls, &m.ncalls, d->calls, d->ncalls, sizeof *d->calls) < 0 ||
		    append((void **)&m.arcs, &m.narcs, d->arcs, d->narcs, sizeof *d->arcs) < 0 ||
		    append((void **)&m.pcs, &m.npcs, d->pcs, d->npcs, sizeof *d->pcs) < 0 ||
		    add_threads(&m, m.nthreads, d) < 0 ||
		    append((void **)&m.stacks, &m.nstacks, d->stacks, d->nstacks,
			   sizeof *d->stacks) < 0)
			goto nomem;
		/* PCS entries in an object of their own file (code sampled
		 * before the runtime knew the object: the first instructions
		 * of a library's _init while dlopen loads it) are that
		 * object's, by address, as prof reads the file alone: moved
		 * with it below.  The others are code of no object. */
		for (size_t i = p0; i < m.npcs; i++)
			if (add_anon(&anon, &nanon, d, f, &m.pcs[i].selfpc, 1) < 0)
				goto nomem;
		if (d->have_stacks) {
			m.have_stacks = 1;
			if (d->stack_max_depth > m.stack_max_depth)
				m.stack_max_depth = d->stack_max_depth;
			m.stacks_lost += d->stacks_lost;
			m.stacks_truncated += d->stacks_truncated;
		}
		if (d->have_wall &&
		    wall_add(&m, d, objmap, delta, &spans, &nspans, files[f], files[0], err, errlen) < 0)
			goto out;
		/* Frames in code of no object (a JIT's), as PCS: only stacks
		 * whose walk reached such code (MONOUT_STACK_JIT) have any. */
		for (size_t i = st0; i < m.nstacks; i++)
			if ((m.stacks[i].flags & MONOUT_STACK_JIT) &&
			    add_anon(&anon, &nanon, d, f, m.stacks[i].pcs, m.stacks[i].depth) < 0)
				goto nomem;
		for (size_t i = w0; i < m.nwall_samples; i++)
			if ((m.wall_samples[i].flags & MONOUT_STACK_JIT) &&
			    add_anon(&anon, &nanon, d, f, m.wall_samples[i].pcs,
				     m.wall_samples[i].depth) < 0)
				goto nomem;
		/* This file's PCs in moved objects, to the merged layout (the
		 * stacks' PCs are the reader's arrays for d, now m's). */
		if (nsh) {
			for (size_t i = c0; i < m.ncalls; i++)
				m.calls[i].selfpc = moved(sh, nsh, m.calls[i].selfpc);
			for (size_t i = p0; i < m.npcs; i++)
				m.pcs[i].selfpc = moved(sh, nsh, m.pcs[i].selfpc);
			for (size_t i = a0; i < m.narcs; i++) {
				m.arcs[i].selfpc = moved(sh, nsh, m.arcs[i].selfpc);
				m.arcs[i].frompc = moved(sh, nsh, m.arcs[i].frompc);
			}
			for (size_t i = st0; i < m.nstacks; i++)
				for (uint32_t k = 0; k < m.stacks[i].depth; k++)
					m.stacks[i].pcs[k] = moved(sh, nsh, m.stacks[i].pcs[k]);
			for (size_t i = w0; i < m.nwall_samples; i++)
				for (uint32_t k = 0; k < m.wall_samples[i].depth; k++)
					m.wall_samples[i].pcs[k] =
						moved(sh, nsh, m.wall_samples[i].pcs[k]);
		}
		/* Symbols of code no file describes: each object's once. */
		int anon_here = 0;
		for (size_t k = 0; k < d->nsyms; k++) {
			struct monout_sym s = d->syms[k];
			if (s.object < d->nobjects) {
				uint32_t j = objmap[s.object];
				if (syms_from[j] == 2)
					continue;
				syms_from[j] = 1;
				s.start += delta[s.object];
				s.object = j;
			} else if (nosyms_anon) {
				anon_here = 1;
			} else {
				continue;
			}
			if (append((void **)&m.syms, &m.nsyms, &s, 1, sizeof s) < 0)
				goto nomem;
		}
		for (size_t j = 0; j < m.nobjects; j++)
			if (syms_from[j] == 1)
				syms_from[j] = 2;
		if (anon_here)
			nosyms_anon = 0;
	}
	if (facts_all && nparsed) {
		m.have_facts = 1;
		if (any_span && (end_ns - start_ns) / 1000u > m.facts.elapsed_usec)
			m.facts.elapsed_usec = (end_ns - start_ns) / 1000u;
		/* The merged file's span, when every file's is to the ns. */
		if (any_span && spans_exact) {
			m.have_span = 1;
			m.span.start_ns = start_ns;
			m.span.end_ns = start_ns + m.facts.elapsed_usec * 1000u;
		}
	}
	if (m.have_wall)
		wall_finish(&m, spans, nspans);
	/* Samples in code of no object (PCS: a JIT's) where another file has
	 * an object would be that object's in one file. */
	if (nanon && anon_in_objects(&m, anon, nanon, from, files, err, errlen) != 0)
		goto out;
	/* Each histogram's bins sorted and added up. */
	m.hists = calloc(nmh ? nmh : 1, sizeof *m.hists);
	if (m.hists == NULL)
		goto nomem;
	for (size_t j = 0; j < nmh; j++) {
		struct mhist *t = &mh[j];
		qsort(t->v, t->n, sizeof *t->v, cmp_pair);
		size_t w = 0;
		for (size_t i = 0; i < t->n; i++) {
			if (w && t->v[w - 1].index == t->v[i].index)
				t->v[w - 1].count += t->v[i].count;
			else
				t->v[w++] = t->v[i];
		}
		/* The writer takes the bins whole (nbins counts) and, with
		 * MONOUT_HIST_SPARSE, writes the non-zero ones as pairs. */
		t->h.index = NULL;
		t->h.nnz = 0;
		t->h.counts = calloc(t->h.nbins ? (size_t)t->h.nbins : 1, sizeof *t->h.counts);
		if (!t->h.counts)
			goto nomem;
		for (size_t i = 0; i < w; i++)
			if (t->v[i].index < t->h.nbins)
				t->h.counts[t->v[i].index] = t->v[i].count;
		if (t->h.bin_bytes < 8)
			t->h.bin_bytes = 8;	/* sums may pass a narrower bin's maximum */
		m.hists[m.nhists++] = t->h;
	}
	/* Written beside its name, then renamed: never half a file.  Into a
	 * device, FIFO or link (--output=/dev/stdout): written in a memfd,
	 * then copied into it (format/monout.h). */
	mode_t um = umask(0);
	umask(um);
	int to_stdout = strcmp(out, "-") == 0;	/* --output=-: standard output */
	int into = to_stdout ? MONOUT_PLACE_INTO : monout_place_kind(AT_FDCWD, out);
	if (into < 0) {
		snprintf(err, errlen, "%s: %s", out, strerror(errno));
		goto out;
	}
	if (into == MONOUT_PLACE_INTO) {
		int fd = memfd_create("prof", MFD_CLOEXEC);
		if (fd < 0 || monout_write_fd(fd, &m) < 0 ||
		    (to_stdout ? monout_copy_fd(fd, STDOUT_FILENO)
			       : monout_copy_into(fd, AT_FDCWD, out, 0666)) < 0) {
			snprintf(err, errlen, "%s: %s", out, strerror(errno));
			if (fd >= 0)
				close(fd);
			goto out;
		}
		close(fd);
		rc = 0;
		goto out;
	}
	if (asprintf(&tmp, "%s.tmpXXXXXX", out) < 0) {
		tmp = NULL;
		goto nomem;
	}
	int fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", out, strerror(errno));
		goto out;
	}
	/* The mode a file made by open(2) would have (mkstemp's is 0600). */
	if (fchmod(fd, 0666 & ~um) < 0) {
		snprintf(err, errlen, "%s: %s", out, strerror(errno));
		close(fd);
		unlink(tmp);
		goto out;
	}
	if (monout_write_fd(fd, &m) < 0 || fsync(fd) < 0) {
		snprintf(err, errlen, "%s: %s", out, strerror(errno));
		close(fd);
		unlink(tmp);
		goto out;
	}
	if (close(fd) < 0 || rename(tmp, out) < 0) {
		snprintf(err, errlen, "%s: %s", out, strerror(errno));
		unlink(tmp);
		goto out;
	}
	rc = 0;
	goto out;
nomem:
	snprintf(err, errlen, "%s", strerror(ENOMEM));
out:
	for (size_t j = 0; j < nmh; j++) {
		free(mh[j].v);
		free(mh[j].h.index);
		free(mh[j].h.counts);
	}
	free(mh);
	free(m.hists);
	free(m.objects);
	free(m.calls);
	free(m.arcs);
	free(m.pcs);
	free(m.threads);
	free(m.stacks);
	free(m.syms);
	free(m.wall_threads);
	free(m.waits);
	free(m.wall_samples);
	free(spans);
	for (size_t f = 0; f < nparsed; f++)
		monout_free(&in[f]);
	free(in);
	free(objmap);
	free(anon);
	free(delta);
	free(from);
	free(sh);
	free(syms_from);
	free(tmp);
	return rc;
}
