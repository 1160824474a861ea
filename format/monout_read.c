/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * monout_read.c — the one reader of mon.out (layout: monout.h and
 * docs/mon.out.5), for the tools; libmon does not link it.
 *
 * The reader trusts nothing: every length is checked against what is left
 * of the file before it is used, every record's checksum is verified, and
 * each failure is reported with a message naming the record and offset.
 * It then sorts and merges call counts and arcs so that each key appears
 * once.  It allocates (malloc), formats messages (snprintf) and sorts
 * (qsort): never call it from a signal handler.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bins.h"
#include "monout.h"

const char *monout_rec_name(uint32_t type)
{
	switch (type) {
	case MONOUT_REC_RUN:
		return "RUN";
	case MONOUT_REC_OBJECT:
		return "OBJECT";
	case MONOUT_REC_HIST:
		return "HIST";
	case MONOUT_REC_CALLS:
		return "CALLS";
	case MONOUT_REC_ARCS:
		return "ARCS";
	case MONOUT_REC_FACTS:
		return "FACTS";
	case MONOUT_REC_THREADS:
		return "THREADS";
	case MONOUT_REC_PCS:
		return "PCS";
	case MONOUT_REC_SYMS:
		return "SYMS";
	case MONOUT_REC_IMAGES:
		return "IMAGES";
	case MONOUT_REC_STACKS:
		return "STACKS";
	case MONOUT_REC_WALL:
		return "WALL";
	case MONOUT_REC_FILES:
		return "FILES";
	case MONOUT_REC_FORKS:
		return "FORKS";
	case MONOUT_REC_INTERVAL:
		return "INTERVAL";
	case MONOUT_REC_SPAN:
		return "SPAN";
	}
	return "unknown";
}

/* ---- helpers: the bin formula of bins.h on a record ------------------- */

uint64_t monout_pc_to_bin(const struct monout_hist *h, uint64_t pc)
{
	if (pc < h->lowpc || pc >= h->highpc)
		return UINT64_MAX;
	uint64_t bin = mon_bin_of(pc, h->lowpc, h->scale);
	return bin < h->nbins ? bin : UINT64_MAX;
}

int monout_span_ns(const struct monout *m, uint64_t *start_ns, uint64_t *end_ns)
{
	if (m->have_interval) {
		*start_ns = m->interval.start_ns;
		*end_ns = m->interval.end_ns;
		return 1;
	}
	if (m->have_span) {
		*start_ns = m->span.start_ns;
		*end_ns = m->span.end_ns;
		return 1;
	}
	if (!m->run.time || !m->have_facts || m->run.time > UINT64_MAX / 1000000000u)
		return -1;
	uint64_t end = m->run.time * 1000000000u, el = m->facts.elapsed_usec * 1000u;
	*end_ns = end;
	*start_ns = m->facts.elapsed_usec < UINT64_MAX / 1000u && el < end ? end - el : 0;
	return 0;
}

uint64_t monout_bin_lowpc(const struct monout_hist *h, uint64_t i)
{
	if (h->scale == 0)
		return h->lowpc;
	return mon_bin_start(h->lowpc, h->scale, i);
}

struct rd {
	const unsigned char *p;
	size_t len;
	int swap;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3))) static int rd_fail(struct rd *r, const char *fmt, ...)
{
	if (r->err != NULL && r->errlen > 0) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(r->err, r->errlen, fmt, ap);
		va_end(ap);
	}
	errno = EINVAL;
	return -1;
}

static uint16_t g16(const struct rd *r, size_t off)
{
	uint16_t v;
	memcpy(&v, r->p + off, 2);
	return r->swap ? __builtin_bswap16(v) : v;
}
static uint32_t g32(const struct rd *r, size_t off)
{
	uint32_t v;
	memcpy(&v, r->p + off, 4);
	return r->swap ? __builtin_bswap32(v) : v;
}
static uint64_t g64(const struct rd *r, size_t off)
{
	uint64_t v;
	memcpy(&v, r->p + off, 8);
	return r->swap ? __builtin_bswap64(v) : v;
}

/* Grow *v (elements of size sz) to hold need elements. */
static int grow(void **v, size_t *cap, size_t need, size_t sz)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : 8;
	while (n < need) {
		if (n > SIZE_MAX / 2 / sz)
			return -1;
		n *= 2;
	}
	void *p = realloc(*v, n * sz);
	if (p == NULL)
		return -1;
	*v = p;
	*cap = n;
	return 0;
}

static int cmp_call(const void *a, const void *b)
{
	const struct monout_call *x = a, *y = b;
	return x->selfpc < y->selfpc ? -1 : x->selfpc > y->selfpc;
}

static int cmp_arc(const void *a, const void *b)
{
	const struct monout_arc *x = a, *y = b;
	if (x->selfpc != y->selfpc)
		return x->selfpc < y->selfpc ? -1 : 1;
	return x->frompc < y->frompc ? -1 : x->frompc > y->frompc;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static void merge(struct monout *m)
{
	size_t k = 0;
	if (m->ncalls) {
		qsort(m->calls, m->ncalls, sizeof *m->calls, cmp_call);
		for (size_t i = 0; i < m->ncalls; i++) {
			if (k && m->calls[k - 1].selfpc == m->calls[i].selfpc)
				m->calls[k - 1].count = sat_add(m->calls[k - 1].count, m->calls[i].count);
			else
				m->calls[k++] = m->calls[i];
		}
		m->ncalls = k;
	}
	k = 0;
	if (m->narcs) {
		qsort(m->arcs, m->narcs, sizeof *m->arcs, cmp_arc);
		for (size_t i = 0; i < m->narcs; i++) {
			if (k && m->arcs[k - 1].selfpc == m->arcs[i].selfpc &&
			    m->arcs[k - 1].frompc == m->arcs[i].frompc)
				m->arcs[k - 1].count = sat_add(m->arcs[k - 1].count, m->arcs[i].count);
			else
				m->arcs[k++] = m->arcs[i];
		}
		m->narcs = k;
	}
	k = 0;
	if (m->npcs) {
		qsort(m->pcs, m->npcs, sizeof *m->pcs, cmp_call);
		for (size_t i = 0; i < m->npcs; i++) {
			if (k && m->pcs[k - 1].selfpc == m->pcs[i].selfpc)
				m->pcs[k - 1].count = sat_add(m->pcs[k - 1].count, m->pcs[i].count);
			else
				m->pcs[k++] = m->pcs[i];
		}
		m->npcs = k;
	}
}

/* Order of stacks: object set, tid, flags, depth, then the pcs. */
static int cmp_stack(const void *a, const void *b)
{
	const struct monout_stack *x = a, *y = b;
	if (x->set != y->set)
		return x->set < y->set ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->flags != y->flags)
		return x->flags < y->flags ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	for (uint32_t i = 0; i < x->depth; i++)
		if (x->pcs[i] != y->pcs[i])
			return x->pcs[i] < y->pcs[i] ? -1 : 1;
	return 0;
}

static void merge_stacks(struct monout *m)
{
	size_t k = 0;
	if (m->nstacks == 0)
		return;
	qsort(m->stacks, m->nstacks, sizeof *m->stacks, cmp_stack);
	for (size_t i = 0; i < m->nstacks; i++) {
		if (k && cmp_stack(&m->stacks[k - 1], &m->stacks[i]) == 0) {
			m->stacks[k - 1].count = sat_add(m->stacks[k - 1].count, m->stacks[i].count);
			free(m->stacks[i].pcs);
		} else {
			m->stacks[k++] = m->stacks[i];
		}
	}
	m->nstacks = k;
}

/* ---- WALL (minor 5) ------------------------------------------------------ */

/* Order of waits: every field, text last (so that equal waits meet). */
static int cmp_wait(const struct monout_wait *x, const struct monout_wait *y)
{
#define CMPF(f)                                      \
	if (x->f != y->f)                            \
		return x->f < y->f ? -1 : 1
	CMPF(kind);
	CMPF(fd);
	CMPF(fd_kind);
	CMPF(address);
	CMPF(object);
	CMPF(flags);
	CMPF(offset);
	CMPF(owner);
	CMPF(text_len);
#undef CMPF
	return memcmp(x->text, y->text, x->text_len);
}

static int cmp_wait_q(const void *a, const void *b)
{
	const struct monout_wait *x = a, *y = b;
	int c = cmp_wait(x, y);
	return c ? c : (x->id < y->id ? -1 : x->id > y->id);
}

/* Order of wall samples: tid, state, syscall, wait, flags, object set, depth, pcs. */
int monout_wall_sample_cmp(const void *a, const void *b)
{
	const struct monout_wall_sample *x = a, *y = b;
#define CMPF(f)                                      \
	if (x->f != y->f)                            \
		return x->f < y->f ? -1 : 1
	CMPF(tid);
	CMPF(state);
	CMPF(syscall);
	CMPF(wait);
	CMPF(flags);
	CMPF(set);
	CMPF(depth);
#undef CMPF
	for (uint32_t i = 0; i < x->depth; i++)
		if (x->pcs[i] != y->pcs[i])
			return x->pcs[i] < y->pcs[i] ? -1 : 1;
	return 0;
}

int monout_wall_thread_cmp(const void *a, const void *b)
{
	const struct monout_wall_thread *x = a, *y = b;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/*
 * Decode the WALL record of payload p[pl..end) (record number i at file
 * offset off) into m, as mon.out(5) says: entries of a known kind are
 * checked, of an unknown kind skipped.  Waits keep the writer's ids in
 * `id` until wall_finish.  Returns 0, or -1 with errno and r's message.
 */
static int parse_wall(struct rd *r, size_t pl, size_t end, uint32_t i, size_t off, struct monout *m)
{
	const unsigned char *p = r->p;
	size_t cap_t = 0, cap_w = 0, cap_s = 0;
	if (end - pl < MONOUT_WALL_FIXED)
		return rd_fail(r, "record %u (WALL) at offset %zu: %zu bytes, at least %d expected", i,
			       off, end - pl, MONOUT_WALL_FIXED);
	if (m->have_wall)
		return rd_fail(r, "record %u (WALL) at offset %zu: a second WALL record", i, off);
	struct monout_wall_head *h = &m->wall;
	h->rate_hz = g32(r, pl);
	h->max_depth = g32(r, pl + 4);
	h->elapsed_usec = g64(r, pl + 8);
	h->rounds = g64(r, pl + 16);
	h->missed = g64(r, pl + 24);
	h->user_usec = g64(r, pl + 32);
	h->sys_usec = g64(r, pl + 40);
	h->flags = g32(r, pl + 48);
	h->threads_unlisted = g32(r, pl + 52);
	h->lost = g64(r, pl + 56);
	h->machine = g32(r, pl + 64);
	if (h->max_depth == 0 || h->max_depth > MONOUT_STACK_MAX_DEPTH)
		return rd_fail(r, "record %u (WALL) at offset %zu: max depth %u out of range 1..%u", i,
			       off, h->max_depth, MONOUT_STACK_MAX_DEPTH);
	m->have_wall = 1;
	size_t at = pl + MONOUT_WALL_FIXED;
	for (size_t e = 0; at < end; e++) {
		if (end - at < MONOUT_WALL_ENTRY_HEAD)
			return rd_fail(r, "record %u (WALL) at offset %zu: entry %zu truncated (%zu bytes "
				       "left, %d needed)", i, off, e, end - at, MONOUT_WALL_ENTRY_HEAD);
		uint32_t kind = g32(r, at), elen = g32(r, at + 4);
		if (elen < MONOUT_WALL_ENTRY_HEAD || elen % 8 || elen > end - at)
			return rd_fail(r, "record %u (WALL) at offset %zu: entry %zu has length %u (a "
				       "multiple of 8 from 8 to the %zu bytes left expected)", i, off, e,
				       elen, end - at);
		switch (kind) {
		case MONOUT_WALL_THREAD: {
			if (elen != MONOUT_WALL_THREAD_SIZE)
				return rd_fail(r, "record %u (WALL) at offset %zu: thread entry %zu of %u "
					       "bytes (%d expected)", i, off, e, elen,
					       MONOUT_WALL_THREAD_SIZE);
			if (grow((void **)&m->wall_threads, &cap_t, m->nwall_threads + 1,
				 sizeof *m->wall_threads))
				goto nomem;
			struct monout_wall_thread *t = &m->wall_threads[m->nwall_threads++];
			memset(t, 0, sizeof *t);
			t->tid = g64(r, at + 8);
			t->expected = g64(r, at + 16);
			t->taken = g64(r, at + 24);
			t->unreadable = g64(r, at + 32);
			t->first_usec = g64(r, at + 40);
			t->last_usec = g64(r, at + 48);
			t->flags = g32(r, at + 56);
			memcpy(t->name, p + at + 64, MONOUT_THREAD_NAME_LEN);
			t->name[MONOUT_THREAD_NAME_LEN - 1] = '\0';
			if (t->tid == 0)
				return rd_fail(r, "record %u (WALL) at offset %zu: thread entry %zu has "
					       "tid 0", i, off, e);
			if (t->first_usec > t->last_usec)
				return rd_fail(r, "record %u (WALL) at offset %zu: thread %llu starts "
					       "after it ends", i, off, (unsigned long long)t->tid);
			break;
		}
		case MONOUT_WALL_WAIT: {
			if (elen < MONOUT_WALL_WAIT_FIXED)
				return rd_fail(r, "record %u (WALL) at offset %zu: wait entry %zu of %u "
					       "bytes (at least %d expected)", i, off, e, elen,
					       MONOUT_WALL_WAIT_FIXED);
			uint32_t tl = g32(r, at + 56);
			if (tl > MONOUT_WAIT_TEXT_MAX ||
			    MONOUT_WALL_WAIT_FIXED + (((size_t)tl + 7) & ~(size_t)7) != elen)
				return rd_fail(r, "record %u (WALL) at offset %zu: wait entry %zu: text "
					       "of %u bytes in an entry of %u", i, off, e, tl, elen);
			for (size_t k = MONOUT_WALL_WAIT_FIXED + tl; k < elen; k++)
				if (p[at + k] != 0)
					return rd_fail(r, "record %u (WALL) at offset %zu: wait entry %zu: "
						       "padding is not zero", i, off, e);
			if (grow((void **)&m->waits, &cap_w, m->nwaits + 1, sizeof *m->waits))
				goto nomem;
			char *txt = malloc((size_t)tl + 1);
			if (txt == NULL)
				goto nomem;
			memcpy(txt, p + at + MONOUT_WALL_WAIT_FIXED, tl);
			txt[tl] = '\0';
			struct monout_wait *v = &m->waits[m->nwaits++];
			v->id = g32(r, at + 8);
			v->kind = g32(r, at + 12);
			v->fd = g32(r, at + 16);
			v->fd_kind = g32(r, at + 20);
			v->address = g64(r, at + 24);
			v->object = g32(r, at + 32);
			v->flags = g32(r, at + 36);
			v->offset = g64(r, at + 40);
			v->owner = g64(r, at + 48);
			v->text_len = tl;
			v->text = txt;
			if (v->kind != MONOUT_WAIT_FD && v->kind != MONOUT_WAIT_FUTEX)
				return rd_fail(r, "record %u (WALL) at offset %zu: wait entry %zu of "
					       "kind %u (1 or 2 expected)", i, off, e, v->kind);
			if (v->fd_kind > MONOUT_FD_KIND_MAX)
				return rd_fail(r, "record %u (WALL) at offset %zu: wait entry %zu: "
					       "descriptor kind %u out of range 0..%d", i, off, e,
					       v->fd_kind, MONOUT_FD_KIND_MAX);
			break;
		}
		case MONOUT_WALL_SAMPLE: {
			if (elen < MONOUT_WALL_SAMPLE_FIXED)
				return rd_fail(r, "record %u (WALL) at offset %zu: sample entry %zu of %u "
					       "bytes (at least %d expected)", i, off, e, elen,
					       MONOUT_WALL_SAMPLE_FIXED);
			uint64_t cnt = g64(r, at + 8);
			uint32_t state = g32(r, at + 24), depth = g32(r, at + 36);
			if (cnt == 0)
				return rd_fail(r, "record %u (WALL) at offset %zu: sample entry %zu has a "
					       "count of 0", i, off, e);
			if (state == 0 || state > MONOUT_WALL_STATE_MAX)
				return rd_fail(r, "record %u (WALL) at offset %zu: sample entry %zu has "
					       "state %u (1..%d expected)", i, off, e, state,
					       MONOUT_WALL_STATE_MAX);
			if (depth > h->max_depth ||
			    MONOUT_WALL_SAMPLE_FIXED + (uint64_t)depth * 8 != elen)
				return rd_fail(r, "record %u (WALL) at offset %zu: sample entry %zu of "
					       "depth %u in %u bytes (depth 0..%u)", i, off, e, depth,
					       elen, h->max_depth);
			if (grow((void **)&m->wall_samples, &cap_s, m->nwall_samples + 1,
				 sizeof *m->wall_samples))
				goto nomem;
			uint64_t *v = NULL;
			if (depth) {
				v = malloc((size_t)depth * sizeof *v);
				if (v == NULL)
					goto nomem;
				for (uint32_t d = 0; d < depth; d++)
					v[d] = g64(r, at + MONOUT_WALL_SAMPLE_FIXED + (size_t)d * 8);
			}
			struct monout_wall_sample *s = &m->wall_samples[m->nwall_samples++];
			s->count = cnt;
			s->tid = g64(r, at + 16);
			s->state = state;
			s->syscall = g32(r, at + 28);
			s->wait = g32(r, at + 32);
			s->depth = depth;
			s->flags = g32(r, at + 40);
			s->set = g32(r, at + 44);
			s->pcs = v;
			if (s->tid == 0)
				return rd_fail(r, "record %u (WALL) at offset %zu: sample entry %zu has "
					       "tid 0", i, off, e);
			break;
		}
		default:	/* a kind a newer writer added: skipped */
			break;
		}
		at += elen;
	}
	/* Samples name waits by the writer's ids: each id once, each named. */
	if (m->nwaits) {
		uint32_t *ids = malloc(m->nwaits * sizeof *ids);
		if (ids == NULL)
			goto nomem;
		for (size_t k = 0; k < m->nwaits; k++)
			ids[k] = m->waits[k].id;
		qsort(ids, m->nwaits, sizeof *ids, cmp_u32);
		for (size_t k = 1; k < m->nwaits; k++)
			if (ids[k] == ids[k - 1]) {
				uint32_t dup = ids[k];
				free(ids);
				return rd_fail(r, "record %u (WALL) at offset %zu: two waits of id %u", i,
					       off, dup);
			}
		free(ids);
	}
	for (size_t k = 0; k < m->nwall_samples; k++) {
		uint32_t id = m->wall_samples[k].wait;
		if (id == MONOUT_NO_WAIT)
			continue;
		size_t j = 0;
		while (j < m->nwaits && m->waits[j].id != id)
			j++;
		if (j == m->nwaits)
			return rd_fail(r, "record %u (WALL) at offset %zu: a sample names wait %u, which "
				       "the record does not have", i, off, id);
	}
	return 0;
nomem:
	rd_fail(r, "out of memory");
	errno = ENOMEM;
	return -1;
}

/* After the whole file: remap samples' wait ids to indexes of the sorted,
 * deduplicated waits; merge threads by tid and identical samples; check
 * that waits name objects the file has.  Returns 0, -1 with errno. */
static int wall_finish(struct rd *r, struct monout *m)
{
	size_t nw = m->nwaits;
	if (nw) {
		qsort(m->waits, nw, sizeof *m->waits, cmp_wait_q);
		/* map[k]: writer id of sorted wait k; new index after dedup */
		uint32_t *oldid = malloc(nw * sizeof *oldid);
		size_t *newix = malloc(nw * sizeof *newix);
		if (oldid == NULL || newix == NULL) {
			free(oldid);
			free(newix);
			rd_fail(r, "out of memory");
			errno = ENOMEM;
			return -1;
		}
		size_t k = 0;
		for (size_t j = 0; j < nw; j++) {
			oldid[j] = m->waits[j].id;
			if (k && cmp_wait(&m->waits[k - 1], &m->waits[j]) == 0) {
				free((void *)m->waits[j].text);
			} else {
				m->waits[k++] = m->waits[j];
			}
			newix[j] = k - 1;
		}
		m->nwaits = k;
		for (size_t j = 0; j < k; j++)
			m->waits[j].id = (uint32_t)j;
		for (size_t s = 0; s < m->nwall_samples; s++) {
			uint32_t id = m->wall_samples[s].wait;
			if (id == MONOUT_NO_WAIT)
				continue;
			for (size_t j = 0; j < nw; j++)
				if (oldid[j] == id) {
					m->wall_samples[s].wait = (uint32_t)newix[j];
					break;
				}
		}
		free(oldid);
		free(newix);
		for (size_t j = 0; j < m->nwaits; j++)
			if (m->waits[j].object != MONOUT_NO_OBJECT && m->waits[j].object >= m->nobjects)
				return rd_fail(r, "inconsistent: a wall-clock wait names object %u, the "
					       "file has %zu", m->waits[j].object, m->nobjects);
	}
	if (m->nwall_samples) {
		size_t k = 0;
		qsort(m->wall_samples, m->nwall_samples, sizeof *m->wall_samples, monout_wall_sample_cmp);
		for (size_t j = 0; j < m->nwall_samples; j++) {
			if (k && monout_wall_sample_cmp(&m->wall_samples[k - 1], &m->wall_samples[j]) == 0) {
				m->wall_samples[k - 1].count =
					sat_add(m->wall_samples[k - 1].count, m->wall_samples[j].count);
				free(m->wall_samples[j].pcs);
			} else {
				m->wall_samples[k++] = m->wall_samples[j];
			}
		}
		m->nwall_samples = k;
	}
	if (m->nwall_threads) {
		size_t k = 0;
		qsort(m->wall_threads, m->nwall_threads, sizeof *m->wall_threads, monout_wall_thread_cmp);
		for (size_t j = 0; j < m->nwall_threads; j++) {
			struct monout_wall_thread *a = &m->wall_threads[k ? k - 1 : 0];
			const struct monout_wall_thread *b = &m->wall_threads[j];
			if (k && a->tid == b->tid) {
				a->expected = sat_add(a->expected, b->expected);
				a->taken = sat_add(a->taken, b->taken);
				a->unreadable = sat_add(a->unreadable, b->unreadable);
				if (b->first_usec < a->first_usec)
					a->first_usec = b->first_usec;
				if (b->last_usec > a->last_usec)
					a->last_usec = b->last_usec;
				a->flags |= b->flags;
			} else {
				m->wall_threads[k++] = *b;
			}
		}
		m->nwall_threads = k;
	}
	return 0;
}

void monout_free(struct monout *m)
{
	if (m == NULL)
		return;
	free((void *)m->run.cmdline);
	for (size_t i = 0; i < m->nobjects; i++) {
		free((void *)m->objects[i].build_id);
		free((void *)m->objects[i].path);
	}
	free(m->objects);
	for (size_t i = 0; i < m->nhists; i++) {
		free(m->hists[i].counts);
		free(m->hists[i].index);
	}
	free(m->hists);
	free(m->calls);
	free(m->arcs);
	free(m->threads);
	free(m->pcs);
	for (size_t i = 0; i < m->nsyms; i++)
		free(m->syms[i].name);
	free(m->syms);
	for (size_t i = 0; i < m->nimages; i++) {
		free((void *)m->images[i].path);
		free((void *)m->images[i].file);
	}
	free(m->images);
	for (size_t i = 0; i < m->nstacks; i++)
		free(m->stacks[i].pcs);
	free(m->stacks);
	free(m->wall_threads);
	for (size_t i = 0; i < m->nwaits; i++)
		free((void *)m->waits[i].text);
	free(m->waits);
	for (size_t i = 0; i < m->nwall_samples; i++)
		free(m->wall_samples[i].pcs);
	free(m->wall_samples);
	memset(m, 0, sizeof *m);
}

#define RFAIL(...)                               \
	do {                                     \
		rd_fail(&r, __VA_ARGS__);        \
		goto fail;                       \
	} while (0)
#define NOMEM()                                  \
	do {                                     \
		rd_fail(&r, "out of memory");    \
		errno = ENOMEM;                  \
		goto fail;                       \
	} while (0)

/* A record of fixed size SIZE that a file has at most one of (HAVE its
 * flag in m, set here): damage otherwise. */
#define RONCE(NAME, SIZE, HAVE)                                                         \
	do {                                                                            \
		if (rlen != (SIZE))                                                     \
			RFAIL("record %u (" NAME ") at offset %zu: %llu bytes, %d expected", \
			      i, off, (unsigned long long)rlen, (SIZE));                \
		if (HAVE)                                                               \
			RFAIL("record %u (" NAME ") at offset %zu: a second " NAME " record", \
			      i, off);                                                  \
		(HAVE) = 1;                                                             \
	} while (0)

int monout_parse(const void *buf, size_t len, struct monout *m, char *err, size_t errlen)
{
	return monout_parse_opts(buf, len, m, 0, err, errlen);
}

int monout_parse_opts(const void *buf, size_t len, struct monout *m, unsigned opts, char *err,
		      size_t errlen)
{
	struct rd r = { buf, len, 0, err, errlen };
	size_t cap_obj = 0, cap_hist = 0, cap_calls = 0, cap_arcs = 0;
	size_t cap_thr = 0, cap_pcs = 0, cap_syms = 0, cap_stacks = 0;
	int nrun = 0;
	memset(m, 0, sizeof *m);
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (buf == NULL || len == 0)
		return rd_fail(&r, "truncated: empty file");

	if (len >= 4 && memcmp(buf, "gmon", 4) == 0)
		return rd_fail(&r, "not a mon.out file: this is a gprof gmon.out file");
	if (len < MONOUT_MAGIC_LEN || memcmp(buf, MONOUT_MAGIC, MONOUT_MAGIC_LEN) != 0) {
		if (len < MONOUT_MAGIC_LEN && memcmp(buf, MONOUT_MAGIC, len) == 0)
			return rd_fail(&r, "truncated: %zu bytes, the mon.out header needs %d", len,
				       MONOUT_HEADER_SIZE);
		return rd_fail(&r, "not a mon.out file (bad magic)");
	}
	if (len < MONOUT_HEADER_SIZE)
		return rd_fail(&r, "truncated: %zu bytes, the mon.out header needs %d", len,
			       MONOUT_HEADER_SIZE);
	const unsigned char *p = buf;
	if (p[10] != MONOUT_LITTLE && p[10] != MONOUT_BIG)
		return rd_fail(&r, "corrupted header: byte order byte is %u (1 or 2 expected)", p[10]);
	r.swap = p[10] != monout_host_order();
	uint16_t version = g16(&r, 8);
	if (version != MONOUT_VERSION)
		return rd_fail(&r, "version %u not supported (this reader reads version %d)", version,
			       MONOUT_VERSION);
	{
		unsigned char h[MONOUT_HEADER_SIZE];
		memcpy(h, p, sizeof h);
		memset(h + 32, 0, 4);
		if (monout_crc32(0, h, sizeof h) != g32(&r, 32))
			return rd_fail(&r, "corrupted header: checksum mismatch");
	}
	if (p[11] != 4 && p[11] != 8)
		return rd_fail(&r, "corrupted header: address size %u (4 or 8 expected)", p[11]);
	if (g32(&r, 12) != MONOUT_HEADER_SIZE)
		return rd_fail(&r, "corrupted header: header size %u (%d expected)", g32(&r, 12),
			       MONOUT_HEADER_SIZE);
	uint64_t fsize = g64(&r, 16);
	if (fsize > len)
		return rd_fail(&r, "truncated: header says %llu bytes, file has %zu",
			       (unsigned long long)fsize, len);
	if (fsize < len)
		return rd_fail(&r, "inconsistent: header says %llu bytes, file has %zu (extra data)",
			       (unsigned long long)fsize, len);
	m->version = version;
	m->byte_order = p[10];
	m->addr_size = p[11];
	m->flags = g32(&r, 28);
	uint32_t nrec = g32(&r, 24);
	uint32_t minor = g32(&r, 36);

	size_t off = MONOUT_HEADER_SIZE;
	for (uint32_t i = 0; i < nrec; i++) {
		if (len - off < MONOUT_REC_HEADER_SIZE)
			RFAIL("record %u at offset %zu: truncated (header says %u records)", i, off, nrec);
		uint32_t type = g32(&r, off);
		uint32_t crc = g32(&r, off + 4);
		uint64_t rlen = g64(&r, off + 8);
		const char *tn = monout_rec_name(type);
		size_t pl = off + MONOUT_REC_HEADER_SIZE;
		if (rlen > len - pl)
			RFAIL("record %u (%s) at offset %zu: length %llu runs past the end of the file",
			      i, tn, off, (unsigned long long)rlen);
		size_t end = pl + (size_t)rlen;
		size_t next = (end + 7) & ~(size_t)7;
		if (next > len)
			RFAIL("record %u (%s) at offset %zu: padding runs past the end of the file", i,
			      tn, off);
		for (size_t k = end; k < next; k++)
			if (p[k] != 0)
				RFAIL("record %u (%s) at offset %zu: padding is not zero (corrupted data)", i,
				      tn, off);
		if (monout_crc32(0, p + pl, (size_t)rlen) != crc)
			RFAIL("record %u (%s) at offset %zu: checksum mismatch (corrupted data)", i, tn,
			      off);
		switch (type) {
		case MONOUT_REC_RUN: {
			if (rlen < MONOUT_RUN_FIXED)
				RFAIL("record %u (RUN) at offset %zu: %llu bytes, at least %d expected", i,
				      off, (unsigned long long)rlen, MONOUT_RUN_FIXED);
			if (++nrun > 1)
				RFAIL("record %u (RUN) at offset %zu: a second RUN record", i, off);
			struct monout_run *u = &m->run;
			u->pid = g64(&r, pl);
			u->ppid = g64(&r, pl + 8);
			u->clock = g32(&r, pl + 16);
			u->rate_hz = g32(&r, pl + 20);
			u->user_usec = g64(&r, pl + 24);
			u->sys_usec = g64(&r, pl + 32);
			u->samples = g64(&r, pl + 40);
			u->counted = g64(&r, pl + 48);
			u->dropped = g64(&r, pl + 56);
			u->saturated = g64(&r, pl + 64);
			u->lost = g64(&r, pl + 72);
			u->calls_lost = g64(&r, pl + 80);
			u->time = g64(&r, pl + 88);
			u->signal = g32(&r, pl + 96);
			u->reason = g32(&r, pl + 100);
			u->argc = g32(&r, pl + 104);
			uint32_t cl = g32(&r, pl + 108);
			if (cl != rlen - MONOUT_RUN_FIXED)
				RFAIL("record %u (RUN) at offset %zu: command line of %u bytes in a record of %llu",
				      i, off, cl, (unsigned long long)rlen);
			uint32_t strings = 0;
			for (uint32_t k = 0; k < cl; k++)
				strings += p[pl + MONOUT_RUN_FIXED + k] == '\0';
			if (strings != u->argc || (cl && p[pl + MONOUT_RUN_FIXED + cl - 1] != '\0'))
				RFAIL("record %u (RUN) at offset %zu: command line does not hold %u strings",
				      i, off, u->argc);
			char *s = malloc((size_t)cl + 1);
			if (s == NULL)
				NOMEM();
			memcpy(s, p + pl + MONOUT_RUN_FIXED, cl);
			s[cl] = '\0';
			u->cmdline = s;
			u->cmdline_len = cl;
			break;
		}
		case MONOUT_REC_OBJECT: {
			if (rlen < MONOUT_OBJECT_FIXED)
				RFAIL("record %u (OBJECT) at offset %zu: %llu bytes, at least %d expected",
				      i, off, (unsigned long long)rlen, MONOUT_OBJECT_FIXED);
			uint32_t bl = g32(&r, pl + 28), plen = g32(&r, pl + 32);
			if ((uint64_t)MONOUT_OBJECT_FIXED + bl + plen != rlen)
				RFAIL("record %u (OBJECT) at offset %zu: build ID %u + path %u bytes do not fill %llu",
				      i, off, bl, plen, (unsigned long long)rlen);
			if (grow((void **)&m->objects, &cap_obj, m->nobjects + 1, sizeof *m->objects))
				NOMEM();
			struct monout_object *o = &m->objects[m->nobjects];
			memset(o, 0, sizeof *o);
			m->nobjects++;
			o->load_bias = g64(&r, pl);
			o->text_lo = g64(&r, pl + 8);
			o->text_hi = g64(&r, pl + 16);
			o->flags = g32(&r, pl + 24);
			o->set = g32(&r, pl + 36);
			if (o->text_lo > o->text_hi)
				RFAIL("record %u (OBJECT) at offset %zu: text low 0x%llx above text high 0x%llx",
				      i, off, (unsigned long long)o->text_lo,
				      (unsigned long long)o->text_hi);
			uint8_t *b = malloc(bl ? bl : 1);
			char *path = malloc((size_t)plen + 1);
			if (b == NULL || path == NULL) {
				free(b);
				free(path);
				NOMEM();
			}
			memcpy(b, p + pl + MONOUT_OBJECT_FIXED, bl);
			memcpy(path, p + pl + MONOUT_OBJECT_FIXED + bl, plen);
			path[plen] = '\0';
			o->build_id = b;
			o->build_id_len = bl;
			o->path = path;
			o->path_len = plen;
			break;
		}
		case MONOUT_REC_HIST: {
			if (rlen < MONOUT_HIST_FIXED)
				RFAIL("record %u (HIST) at offset %zu: %llu bytes, at least %d expected", i,
				      off, (unsigned long long)rlen, MONOUT_HIST_FIXED);
			struct monout_hist h;
			memset(&h, 0, sizeof h);
			h.lowpc = g64(&r, pl);
			h.highpc = g64(&r, pl + 8);
			h.nbins = g64(&r, pl + 16);
			h.scale = g32(&r, pl + 24);
			h.bin_bytes = g32(&r, pl + 28);
			h.flags = g32(&r, pl + 32);
			h.object = g32(&r, pl + 36);
			if (h.bin_bytes != 2 && h.bin_bytes != 4 && h.bin_bytes != 8)
				RFAIL("record %u (HIST) at offset %zu: bin width %u (2, 4 or 8 expected)", i,
				      off, h.bin_bytes);
			if (h.lowpc >= h.highpc)
				RFAIL("record %u (HIST) at offset %zu: lowpc 0x%llx not below highpc 0x%llx",
				      i, off, (unsigned long long)h.lowpc, (unsigned long long)h.highpc);
			if (h.scale < 2 || h.scale > 65536)
				RFAIL("record %u (HIST) at offset %zu: scale %u out of range 2..65536", i,
				      off, h.scale);
			int sparse = (h.flags & MONOUT_HIST_SPARSE) != 0;
			if (sparse && h.nbins > MONOUT_MAX_BINS)
				RFAIL("record %u (HIST) at offset %zu: %llu bins (at most %llu)", i, off,
				      (unsigned long long)h.nbins, (unsigned long long)MONOUT_MAX_BINS);
			if (sparse && (rlen - MONOUT_HIST_FIXED) % 16)
				RFAIL("record %u (HIST, sparse) at offset %zu: %llu bytes of bins is not a "
				      "multiple of 16", i, off, (unsigned long long)(rlen - MONOUT_HIST_FIXED));
			if (!sparse && (h.nbins > (rlen - MONOUT_HIST_FIXED) / h.bin_bytes ||
					MONOUT_HIST_FIXED + h.nbins * h.bin_bytes != rlen))
				RFAIL("record %u (HIST) at offset %zu: %llu bins of %u bytes do not fill %llu bytes",
				      i, off, (unsigned long long)h.nbins, h.bin_bytes,
				      (unsigned long long)rlen);
			if (grow((void **)&m->hists, &cap_hist, m->nhists + 1, sizeof *m->hists))
				NOMEM();
			int keep = sparse && (opts & MONOUT_PARSE_SPARSE);
			size_t n = sparse ? (size_t)(rlen - MONOUT_HIST_FIXED) / 16 : 0;
			if (keep) {
				h.counts = malloc(n ? n * sizeof(uint64_t) : 1);
				h.index = malloc(n ? n * sizeof(uint64_t) : 1);
				if (h.counts == NULL || h.index == NULL) {
					free(h.counts);
					free(h.index);
					NOMEM();
				}
			} else {
				h.counts = calloc(h.nbins ? (size_t)h.nbins : 1, sizeof(uint64_t));
			}
			if (h.counts == NULL)
				NOMEM();
			if (sparse) {
				uint64_t lowest = 0;	/* lowest index the next pair may have */
				for (size_t k = 0; k < n; k++) {
					size_t at = pl + MONOUT_HIST_FIXED + k * 16;
					uint64_t idx = g64(&r, at), v = g64(&r, at + 8);
					if (idx < lowest || idx >= h.nbins || v == 0) {
						free(h.counts);
						free(h.index);
						RFAIL("record %u (HIST, sparse) at offset %zu: pair %zu (bin %llu, "
						      "count %llu) out of order, out of range or zero",
						      i, off, k, (unsigned long long)idx, (unsigned long long)v);
					}
					if (keep) {
						h.index[k] = idx;
						h.counts[k] = v;
					} else {
						h.counts[idx] = v;
					}
					lowest = idx + 1;
				}
			} else {
				for (uint64_t k = 0; k < h.nbins; k++) {
					size_t at = pl + MONOUT_HIST_FIXED + (size_t)k * h.bin_bytes;
					h.counts[k] = h.bin_bytes == 2 ? g16(&r, at)
						    : h.bin_bytes == 4 ? g32(&r, at) : g64(&r, at);
				}
			}
			h.nnz = keep ? n : 0;
			m->hists[m->nhists++] = h;
			break;
		}
		case MONOUT_REC_CALLS: {
			if (rlen % MONOUT_CALL_SIZE)
				RFAIL("record %u (CALLS) at offset %zu: %llu bytes is not a multiple of %d",
				      i, off, (unsigned long long)rlen, MONOUT_CALL_SIZE);
			size_t n = (size_t)rlen / MONOUT_CALL_SIZE;
			if (grow((void **)&m->calls, &cap_calls, m->ncalls + n, sizeof *m->calls))
				NOMEM();
			for (size_t k = 0; k < n; k++) {
				struct monout_call *c = &m->calls[m->ncalls];
				c->selfpc = g64(&r, pl + k * MONOUT_CALL_SIZE);
				c->count = g64(&r, pl + k * MONOUT_CALL_SIZE + 8);
				if (c->count && c->selfpc)	/* as the writer: 0 is an empty cell */
					m->ncalls++;
			}
			break;
		}
		case MONOUT_REC_ARCS: {
			if (rlen % MONOUT_ARC_SIZE)
				RFAIL("record %u (ARCS) at offset %zu: %llu bytes is not a multiple of %d",
				      i, off, (unsigned long long)rlen, MONOUT_ARC_SIZE);
			size_t n = (size_t)rlen / MONOUT_ARC_SIZE;
			if (grow((void **)&m->arcs, &cap_arcs, m->narcs + n, sizeof *m->arcs))
				NOMEM();
			for (size_t k = 0; k < n; k++) {
				struct monout_arc *a = &m->arcs[m->narcs];
				a->frompc = g64(&r, pl + k * MONOUT_ARC_SIZE);
				a->selfpc = g64(&r, pl + k * MONOUT_ARC_SIZE + 8);
				a->count = g64(&r, pl + k * MONOUT_ARC_SIZE + 16);
				if (a->count && a->selfpc)	/* as the writer: 0 is an empty cell */
					m->narcs++;
			}
			break;
		}
		case MONOUT_REC_FACTS: {
			RONCE("FACTS", MONOUT_FACTS_SIZE, m->have_facts);
			m->facts.elapsed_usec = g64(&r, pl);
			m->facts.rate_asked = g32(&r, pl + 8);
			m->facts.rate_set = g32(&r, pl + 12);
			m->facts.tick_cost_ns = g32(&r, pl + 16);
			m->facts.flags = g32(&r, pl + 20);
			m->facts.threads_unlisted = g32(&r, pl + 24);
			m->facts.check_usec = g32(&r, pl + 28);
			m->facts.cpu_before_usec = g64(&r, pl + 32);
			break;
		}
		case MONOUT_REC_THREADS: {
			if (rlen % MONOUT_THREAD_SIZE)
				RFAIL("record %u (THREADS) at offset %zu: %llu bytes is not a multiple of %d",
				      i, off, (unsigned long long)rlen, MONOUT_THREAD_SIZE);
			size_t n = (size_t)rlen / MONOUT_THREAD_SIZE;
			if (grow((void **)&m->threads, &cap_thr, m->nthreads + n, sizeof *m->threads))
				NOMEM();
			for (size_t k = 0; k < n; k++) {
				size_t at = pl + k * MONOUT_THREAD_SIZE;
				struct monout_thread *t = &m->threads[m->nthreads++];
				memset(t, 0, sizeof *t);
				t->tid = g64(&r, at);
				t->user_usec = g64(&r, at + 8);
				t->sys_usec = g64(&r, at + 16);
				t->samples = g64(&r, at + 24);
				t->flags = g32(&r, at + 32);
				t->late = g32(&r, at + 36);
				memcpy(t->name, p + at + 40, MONOUT_THREAD_NAME_LEN);
				t->name[MONOUT_THREAD_NAME_LEN - 1] = '\0';
			}
			break;
		}
		case MONOUT_REC_PCS: {
			if (rlen % MONOUT_PC_SIZE)
				RFAIL("record %u (PCS) at offset %zu: %llu bytes is not a multiple of %d", i,
				      off, (unsigned long long)rlen, MONOUT_PC_SIZE);
			size_t n = (size_t)rlen / MONOUT_PC_SIZE;
			if (grow((void **)&m->pcs, &cap_pcs, m->npcs + n, sizeof *m->pcs))
				NOMEM();
			for (size_t k = 0; k < n; k++) {
				struct monout_call *c = &m->pcs[m->npcs];
				c->selfpc = g64(&r, pl + k * MONOUT_PC_SIZE);
				c->count = g64(&r, pl + k * MONOUT_PC_SIZE + 8);
				if (c->count && c->selfpc)
					m->npcs++;
			}
			break;
		}
		case MONOUT_REC_SYMS: {
			if (rlen < MONOUT_SYMS_FIXED)
				RFAIL("record %u (SYMS) at offset %zu: %llu bytes, at least %d expected", i,
				      off, (unsigned long long)rlen, MONOUT_SYMS_FIXED);
			uint32_t obj = g32(&r, pl);
			size_t at = pl + MONOUT_SYMS_FIXED;
			while (at < end) {
				if (end - at < MONOUT_SYM_FIXED)
					RFAIL("record %u (SYMS) at offset %zu: entry at %zu truncated", i, off,
					      at);
				uint32_t nl = g32(&r, at + 16);
				if (nl > end - at - MONOUT_SYM_FIXED)
					RFAIL("record %u (SYMS) at offset %zu: name of %u bytes at %zu runs past "
					      "the record", i, off, nl, at);
				if (grow((void **)&m->syms, &cap_syms, m->nsyms + 1, sizeof *m->syms))
					NOMEM();
				char *name = malloc((size_t)nl + 1);
				if (name == NULL)
					NOMEM();
				memcpy(name, p + at + MONOUT_SYM_FIXED, nl);
				name[nl] = '\0';
				struct monout_sym *y = &m->syms[m->nsyms++];
				y->object = obj;
				y->start = g64(&r, at);
				y->size = g64(&r, at + 8);
				y->name = name;
				at += MONOUT_SYM_FIXED + nl;
			}
			break;
		}
		case MONOUT_REC_IMAGES: {
			if (m->nimages)
				RFAIL("record %u (IMAGES) at offset %zu: a second IMAGES record", i, off);
			size_t at = pl, cap = 0, nthis = 0;
			while (at < end) {
				if (end - at < MONOUT_IMAGE_FIXED)
					RFAIL("record %u (IMAGES) at offset %zu: entry %zu truncated", i, off,
					      m->nimages);
				uint32_t role = g32(&r, at), plen = g32(&r, at + 4), flen = g32(&r, at + 8);
				if (role > MONOUT_IMAGE_NEXT || g32(&r, at + 12) != 0 ||
				    (uint64_t)plen + flen > end - at - MONOUT_IMAGE_FIXED)
					RFAIL("record %u (IMAGES) at offset %zu: entry %zu: role %u, path %u "
					      "and file %u bytes do not fit", i, off, m->nimages, role, plen,
					      flen);
				if (grow((void **)&m->images, &cap, m->nimages + 1, sizeof *m->images))
					NOMEM();
				struct monout_image *im = &m->images[m->nimages];
				memset(im, 0, sizeof *im);
				char *ps = malloc((size_t)plen + 1), *fs = malloc((size_t)flen + 1);
				if (ps == NULL || fs == NULL) {
					free(ps);
					free(fs);
					NOMEM();
				}
				memcpy(ps, p + at + MONOUT_IMAGE_FIXED, plen);
				ps[plen] = '\0';
				memcpy(fs, p + at + MONOUT_IMAGE_FIXED + plen, flen);
				fs[flen] = '\0';
				im->role = role;
				im->path = ps;
				im->path_len = plen;
				im->file = fs;
				im->file_len = flen;
				m->nimages++;
				nthis += role == MONOUT_IMAGE_THIS;
				at += MONOUT_IMAGE_FIXED + (size_t)plen + flen;
			}
			if (nthis != 1)
				RFAIL("record %u (IMAGES) at offset %zu: %zu entries for this image (1 "
				      "expected)", i, off, nthis);
			break;
		}
		case MONOUT_REC_STACKS: {
			if (rlen < MONOUT_STACKS_FIXED)
				RFAIL("record %u (STACKS) at offset %zu: %llu bytes, at least %d expected", i,
				      off, (unsigned long long)rlen, MONOUT_STACKS_FIXED);
			uint32_t maxd = g32(&r, pl), sset = g32(&r, pl + 4);
			if (maxd == 0 || maxd > MONOUT_STACK_MAX_DEPTH)
				RFAIL("record %u (STACKS) at offset %zu: max depth %u out of range 1..%u", i,
				      off, maxd, MONOUT_STACK_MAX_DEPTH);
			m->have_stacks = 1;
			if (maxd > m->stack_max_depth)
				m->stack_max_depth = maxd;
			m->stacks_lost = sat_add(m->stacks_lost, g64(&r, pl + 8));
			m->stacks_truncated = sat_add(m->stacks_truncated, g64(&r, pl + 16));
			size_t at = pl + MONOUT_STACKS_FIXED;
			for (size_t e = 0; at < end; e++) {
				if (end - at < MONOUT_STACK_FIXED)
					RFAIL("record %u (STACKS) at offset %zu: entry %zu truncated (%zu bytes "
					      "left, %d needed)", i, off, e, end - at, MONOUT_STACK_FIXED);
				uint64_t cnt = g64(&r, at);
				uint32_t depth = g32(&r, at + 16);
				if (cnt == 0)
					RFAIL("record %u (STACKS) at offset %zu: entry %zu has a count of 0", i,
					      off, e);
				if (depth == 0 || depth > maxd)
					RFAIL("record %u (STACKS) at offset %zu: entry %zu has depth %u "
					      "(1..%u expected)", i, off, e, depth, maxd);
				if ((uint64_t)depth * 8 > end - at - MONOUT_STACK_FIXED)
					RFAIL("record %u (STACKS) at offset %zu: entry %zu of depth %u runs "
					      "past the record", i, off, e, depth);
				if (grow((void **)&m->stacks, &cap_stacks, m->nstacks + 1,
					 sizeof *m->stacks))
					NOMEM();
				uint64_t *v = malloc((size_t)depth * sizeof *v);
				if (v == NULL)
					NOMEM();
				for (uint32_t d = 0; d < depth; d++)
					v[d] = g64(&r, at + MONOUT_STACK_FIXED + (size_t)d * 8);
				struct monout_stack *st = &m->stacks[m->nstacks++];
				st->count = cnt;
				st->tid = g64(&r, at + 8);
				st->depth = depth;
				st->flags = g32(&r, at + 20);
				st->set = sset;
				st->pcs = v;
				at += MONOUT_STACK_FIXED + (size_t)depth * 8;
			}
			break;
		}
		case MONOUT_REC_WALL:
			if (parse_wall(&r, pl, end, i, off, m) < 0)
				goto fail;
			break;
		case MONOUT_REC_FILES:
			if (rlen % MONOUT_FILE_ENTRY)
				RFAIL("record %u (FILES) at offset %zu: %llu bytes, not a multiple of %d",
				      i, off, (unsigned long long)rlen, MONOUT_FILE_ENTRY);
			for (size_t at = pl; at < end; at += MONOUT_FILE_ENTRY) {
				uint32_t ob = g32(&r, at), fl = g32(&r, at + 4);
				if (ob >= m->nobjects)
					RFAIL("record %u (FILES) at offset %zu: object %u, %zu read before it",
					      i, off, ob, m->nobjects);
				if (fl == 0 || (fl & ~(uint32_t)(MONOUT_FILE_STAT | MONOUT_FILE_TEXT)))
					RFAIL("record %u (FILES) at offset %zu: flags 0x%x", i, off, fl);
				struct monout_object *o = &m->objects[ob];
				o->file_flags = fl;
				o->file_size = g64(&r, at + 8);
				o->file_mtime_ns = g64(&r, at + 16);
				o->text_crc = g32(&r, at + 24);
			}
			break;
		case MONOUT_REC_FORKS:
			RONCE("FORKS", MONOUT_FORKS_SIZE, m->have_forks);
			m->forks_unfollowed = g64(&r, pl);
			break;
		case MONOUT_REC_INTERVAL:
			RONCE("INTERVAL", MONOUT_INTERVAL_SIZE, m->have_interval);
			m->interval.seq = g64(&r, pl);
			m->interval.start_ns = g64(&r, pl + 8);
			m->interval.end_ns = g64(&r, pl + 16);
			m->interval.samples_total = g64(&r, pl + 24);
			m->interval.runtime_cpu_usec = g64(&r, pl + 32);
			m->interval.period_ms = g32(&r, pl + 40);
			m->interval.flags = g32(&r, pl + 44);
			m->interval.removed = g32(&r, pl + 48);
			m->interval.cut_ticks = g32(&r, pl + 52);
			if (m->interval.seq == 0 || m->interval.end_ns < m->interval.start_ns)
				RFAIL("record %u (INTERVAL) at offset %zu: sequence number 0 or an end "
				      "before the start", i, off);
			break;
		case MONOUT_REC_SPAN:
			RONCE("SPAN", MONOUT_SPAN_SIZE, m->have_span);
			m->span.start_ns = g64(&r, pl);
			m->span.end_ns = g64(&r, pl + 8);
			if (m->span.end_ns < m->span.start_ns)
				RFAIL("record %u (SPAN) at offset %zu: an end before the start", i, off);
			break;
		default:
			/* A newer minor version may add record types, which older
			 * readers skip; in a file of a minor version this reader
			 * knows, an unknown type is damage. */
			if (minor <= MONOUT_MINOR)
				RFAIL("record %u at offset %zu: unknown record type %u", i, off, type);
			break;
		}
		off = next;
	}
	if (off != len)
		RFAIL("inconsistent: %zu bytes after the last of %u records", len - off, nrec);
	if (nrun == 0)
		RFAIL("inconsistent: no RUN record");
	for (size_t i = 0; i < m->nsyms; i++)
		if (m->syms[i].object != MONOUT_NO_OBJECT && m->syms[i].object >= m->nobjects)
			RFAIL("inconsistent: symbols name object %u, the file has %zu", m->syms[i].object,
			      m->nobjects);
	for (size_t i = 0; i < m->nhists; i++)
		if (m->hists[i].object != MONOUT_NO_OBJECT && m->hists[i].object >= m->nobjects)
			RFAIL("inconsistent: histogram %zu names object %u, the file has %zu", i,
			      m->hists[i].object, m->nobjects);
	/* Impossible values (mon.out(5), Validation): samples with a rate of
	 * 0 Hz cannot be turned into time; addresses wider than the header's
	 * address size cannot have been taken in the profiled process. */
	if (m->run.rate_hz == 0) {
		uint64_t held = 0;
		for (size_t i = 0; i < m->nhists && !held; i++) {
			uint64_t n = m->hists[i].index ? m->hists[i].nnz : m->hists[i].nbins;
			for (uint64_t k = 0; k < n && !held; k++)
				held = m->hists[i].counts[k];
		}
		if (m->run.samples || m->run.counted || held)
			RFAIL("impossible: a sampling rate of 0 Hz with %llu samples taken "
			      "(samples cannot be turned into time)",
			      (unsigned long long)(m->run.samples ? m->run.samples : m->run.counted));
	}
	if (m->addr_size == 4) {
		const uint64_t lim = (uint64_t)1 << 32;
		for (size_t i = 0; i < m->nobjects; i++)
			if (m->objects[i].text_lo >= lim || m->objects[i].text_hi > lim ||
			    m->objects[i].load_bias >= lim)
				RFAIL("impossible: 4-byte addresses in the header, but object %zu "
				      "holds the address %#llx", i, (unsigned long long)
				      (m->objects[i].text_hi > lim ? m->objects[i].text_hi
				       : m->objects[i].text_lo >= lim ? m->objects[i].text_lo
				       : m->objects[i].load_bias));
		for (size_t i = 0; i < m->nhists; i++)
			if (m->hists[i].lowpc >= lim || m->hists[i].highpc > lim)
				RFAIL("impossible: 4-byte addresses in the header, but histogram %zu "
				      "covers %#llx-%#llx", i, (unsigned long long)m->hists[i].lowpc,
				      (unsigned long long)m->hists[i].highpc);
		for (size_t i = 0; i < m->ncalls; i++)
			if (m->calls[i].selfpc >= lim)
				RFAIL("impossible: 4-byte addresses in the header, but a call count "
				      "is for the address %#llx", (unsigned long long)m->calls[i].selfpc);
		for (size_t i = 0; i < m->narcs; i++)
			if (m->arcs[i].selfpc >= lim || m->arcs[i].frompc >= lim)
				RFAIL("impossible: 4-byte addresses in the header, but an arc is "
				      "for the address %#llx", (unsigned long long)
				      (m->arcs[i].selfpc >= lim ? m->arcs[i].selfpc : m->arcs[i].frompc));
	}
	if (m->addr_size == 4)
		for (size_t i = 0; i < m->nstacks; i++)
			for (uint32_t d = 0; d < m->stacks[i].depth; d++)
				if (m->stacks[i].pcs[d] >= (uint64_t)1 << 32)
					RFAIL("impossible: 4-byte addresses in the header, but a stack "
					      "holds the address %#llx",
					      (unsigned long long)m->stacks[i].pcs[d]);
	if (m->addr_size == 4)
		for (size_t i = 0; i < m->nwall_samples; i++)
			for (uint32_t d = 0; d < m->wall_samples[i].depth; d++)
				if (m->wall_samples[i].pcs[d] >= (uint64_t)1 << 32)
					RFAIL("impossible: 4-byte addresses in the header, but a "
					      "wall-clock stack holds the address %#llx",
					      (unsigned long long)m->wall_samples[i].pcs[d]);
	if (wall_finish(&r, m) < 0)
		goto fail;
	merge(m);
	merge_stacks(m);
	return 0;
fail: {
	int e = errno;
	monout_free(m);
	errno = e;
	return -1;
}
}

int monout_read_file(const char *path, struct monout *m, char *err, size_t errlen)
{
	memset(m, 0, sizeof *m);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		if (err && errlen)
			snprintf(err, errlen, "cannot open: %s", strerror(e));
		errno = e;
		return -1;
	}
	struct stat st;
	int bad = fstat(fd, &st) < 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : 0;
	if (bad) {
		int e = bad;
		if (err && errlen)
			snprintf(err, errlen, "cannot read: %s", strerror(e));
		close(fd);
		errno = e;
		return -1;
	}
	size_t len = (size_t)st.st_size;
	unsigned char *buf = malloc(len ? len : 1);
	if (buf == NULL) {
		close(fd);
		if (err && errlen)
			snprintf(err, errlen, "out of memory for %zu bytes", len);
		errno = ENOMEM;
		return -1;
	}
	size_t got = 0;
	while (got < len) {
		ssize_t k = read(fd, buf + got, len - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = errno;
			if (err && errlen)
				snprintf(err, errlen, "cannot read: %s", strerror(e));
			free(buf);
			close(fd);
			errno = e;
			return -1;
		}
		if (k == 0)
			break;
		got += (size_t)k;
	}
	close(fd);
	int rc = monout_parse(buf, got, m, err, errlen);
	int e = errno;
	free(buf);
	errno = e;
	return rc;
}

