/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * monout_write.c — the one writer of mon.out (layout: monout.h and
 * docs/mon.out.5), linked into libmon.
 *
 * The writer runs inside profiled programs, also from fatal-signal
 * handlers, so it is async-signal-safe: it stages bytes in a chunk inside
 * the caller's struct monout_writer, sends them with write(2), and patches
 * each record's length and checksum (and finally the file header) in place
 * with pwrite(2) — a record's length need not be known before its entries
 * are read from tables that other threads are still filling.  It calls
 * only write(2), pwrite(2), ftruncate(2) and the string functions of the
 * async-signal-safe list (signal-safety(7)); it allocates nothing.  No
 * reader code is here: libmon links none (tests/integ/lib_exports.sh).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <poll.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "monout.h"

static int w_fail(struct monout_writer *w, int e)
{
	if (w->error == 0)
		w->error = e ? e : EIO;
	errno = w->error;
	return -1;
}

/* write(2) all of p, retrying on EINTR and short writes. */
static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n > 0) {
		ssize_t r = write(fd, c, n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0) {
			errno = ENOSPC;
			return -1;
		}
		c += r;
		n -= (size_t)r;
	}
	return 0;
}

static int pwrite_all(int fd, const void *p, size_t n, uint64_t off)
{
	const char *c = p;
	while (n > 0) {
		ssize_t r = pwrite(fd, c, n, (off_t)off);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0) {
			errno = ENOSPC;
			return -1;
		}
		c += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

static int w_flush(struct monout_writer *w)
{
	if (w->error)
		return w_fail(w, w->error);
	if (w->fill == 0)
		return 0;
	if (write_all(w->fd, w->chunk, w->fill) < 0)
		return w_fail(w, errno);
	w->offset += w->fill;
	w->fill = 0;
	return 0;
}

/* Append bytes to the file (and to the open record's length and CRC). */
static int w_bytes(struct monout_writer *w, const void *p, size_t n)
{
	const unsigned char *b = p;
	if (w->error)
		return w_fail(w, w->error);
	if (w->rec_start != UINT64_MAX) {
		w->rec_crc = monout_crc32(w->rec_crc, p, n);
		w->rec_len += n;
	}
	while (n > 0) {
		size_t room = sizeof w->chunk - w->fill;
		size_t k = n < room ? n : room;
		memcpy(w->chunk + w->fill, b, k);
		w->fill += k;
		b += k;
		n -= k;
		if (w->fill == sizeof w->chunk && w_flush(w) < 0)
			return -1;
	}
	return 0;
}

static int w_u16(struct monout_writer *w, uint16_t v)
{
	return w_bytes(w, &v, 2);
}
static int w_u32(struct monout_writer *w, uint32_t v)
{
	return w_bytes(w, &v, 4);
}
static int w_u64(struct monout_writer *w, uint64_t v)
{
	return w_bytes(w, &v, 8);
}

static int w_pad8(struct monout_writer *w)
{
	static const unsigned char zero[8];
	uint64_t at = w->offset + w->fill;
	return at % 8 ? w_bytes(w, zero, 8 - at % 8) : 0;
}

static int rec_open(struct monout_writer *w, uint32_t type)
{
	unsigned char placeholder[MONOUT_REC_HEADER_SIZE] = { 0 };
	if (w_pad8(w) < 0 || w_bytes(w, placeholder, sizeof placeholder) < 0)
		return -1;
	w->rec_start = w->offset + w->fill - MONOUT_REC_HEADER_SIZE;
	w->rec_type = type;
	w->rec_len = 0;
	w->rec_crc = 0;
	return 0;
}

static int rec_close(struct monout_writer *w)
{
	unsigned char h[MONOUT_REC_HEADER_SIZE];
	uint64_t start = w->rec_start;
	w->rec_start = UINT64_MAX;
	if (w_flush(w) < 0)
		return -1;
	memcpy(h, &w->rec_type, 4);
	memcpy(h + 4, &w->rec_crc, 4);
	memcpy(h + 8, &w->rec_len, 8);
	if (pwrite_all(w->fd, h, sizeof h, start) < 0)
		return w_fail(w, errno);
	w->records++;
	return w_pad8(w);
}

int monout_begin(struct monout_writer *w, int fd, uint32_t flags)
{
	unsigned char zero[MONOUT_HEADER_SIZE] = { 0 };
	w->fd = fd;
	w->error = 0;
	w->offset = 0;
	w->records = 0;
	w->flags = flags;
	w->rec_start = UINT64_MAX;
	w->rec_len = 0;
	w->rec_crc = 0;
	w->rec_type = 0;
	w->fill = 0;
	return w_bytes(w, zero, sizeof zero);
}

int monout_put_run(struct monout_writer *w, const struct monout_run *r)
{
	static const unsigned char nul = 0;
	if (rec_open(w, MONOUT_REC_RUN) < 0)
		return -1;
	w_u64(w, r->pid);
	w_u64(w, r->ppid);
	w_u32(w, r->clock);
	w_u32(w, r->rate_hz);
	w_u64(w, r->user_usec);
	w_u64(w, r->sys_usec);
	w_u64(w, r->samples);
	w_u64(w, r->counted);
	w_u64(w, r->dropped);
	w_u64(w, r->saturated);
	w_u64(w, r->lost);
	w_u64(w, r->calls_lost);
	w_u64(w, r->time);
	w_u32(w, r->signal);
	w_u32(w, r->reason);
	/* The command line must hold exactly argc strings: count them here so
	 * that what is written is always consistent. */
	uint32_t argc = 0, len = 0;
	if (r->cmdline != NULL) {
		for (uint32_t i = 0; i < r->cmdline_len && argc < r->argc; i++)
			if (r->cmdline[i] == '\0') {
				argc++;
				len = i + 1;
			}
	}
	int unterminated = r->cmdline != NULL && argc < r->argc && len < r->cmdline_len;
	w_u32(w, argc + (uint32_t)unterminated);
	w_u32(w, unterminated ? r->cmdline_len + 1 : len);
	if (unterminated) {
		w_bytes(w, r->cmdline, r->cmdline_len);
		w_bytes(w, &nul, 1);
	} else if (len) {
		w_bytes(w, r->cmdline, len);
	}
	return rec_close(w);
}

int monout_put_object(struct monout_writer *w, const struct monout_object *o)
{
	if (rec_open(w, MONOUT_REC_OBJECT) < 0)
		return -1;
	uint32_t bl = o->build_id ? o->build_id_len : 0;
	uint32_t pl = o->path ? o->path_len : 0;
	w_u64(w, o->load_bias);
	w_u64(w, o->text_lo);
	w_u64(w, o->text_hi);
	w_u32(w, o->flags);
	w_u32(w, bl);
	w_u32(w, pl);
	w_u32(w, o->set);
	if (bl)
		w_bytes(w, o->build_id, bl);
	if (pl)
		w_bytes(w, o->path, pl);
	return rec_close(w);
}

/* Bin i of h: from h->raw (h->bin_bytes wide, native order) or h->counts. */
static uint64_t bin_value(const struct monout_hist *h, uint64_t i)
{
	const unsigned char *p = h->raw;
	if (p == NULL)
		return h->counts[i];
	if (h->bin_bytes == 2)
		return __atomic_load_n((const uint16_t *)(const void *)(p + i * 2), __ATOMIC_RELAXED);
	if (h->bin_bytes == 4)
		return __atomic_load_n((const uint32_t *)(const void *)(p + i * 4), __ATOMIC_RELAXED);
	return __atomic_load_n((const uint64_t *)(const void *)(p + i * 8), __ATOMIC_RELAXED);
}

int monout_put_hist(struct monout_writer *w, const struct monout_hist *h)
{
	uint32_t bb = h->bin_bytes;
	if (bb != 2 && bb != 4 && bb != 8)
		return w_fail(w, EINVAL);
	if (h->raw == NULL && h->counts == NULL && h->nbins)
		return w_fail(w, EINVAL);
	if (h->index != NULL && (!(h->flags & MONOUT_HIST_SPARSE) || h->counts == NULL))
		return w_fail(w, EINVAL);	/* pairs are only a sparse record's */
	for (uint64_t k = 0; h->index != NULL && k < h->nnz; k++)
		if (h->index[k] >= h->nbins || (k > 0 && h->index[k] <= h->index[k - 1]))
			return w_fail(w, EINVAL);
	if (rec_open(w, MONOUT_REC_HIST) < 0)
		return -1;
	w_u64(w, h->lowpc);
	w_u64(w, h->highpc);
	w_u64(w, h->nbins);
	w_u32(w, h->scale);
	w_u32(w, bb);
	w_u32(w, h->flags);
	w_u32(w, h->object);
	/* Each bin is read once, atomically: ticks may still be arriving. */
	if (h->index != NULL) {
		for (uint64_t k = 0; k < h->nnz; k++) {
			if (h->counts[k] == 0)
				continue;
			w_u64(w, h->index[k]);
			w_u64(w, h->counts[k]);
		}
	} else if (h->flags & MONOUT_HIST_SPARSE) {
		for (uint64_t i = 0; i < h->nbins; i++) {
			if (h->touched != NULL && h->touched_span > 0 && i % h->touched_span == 0) {
				uint64_t k = i / h->touched_span;
				if (!(__atomic_load_n(&h->touched[k / 64], __ATOMIC_RELAXED) &
				      ((uint64_t)1 << (k % 64)))) {
					i += h->touched_span - 1;	/* the whole span is zero */
					continue;
				}
			}
			uint64_t v = bin_value(h, i);
			if (v == 0)
				continue;
			w_u64(w, i);
			w_u64(w, v);
		}
	} else {
		for (uint64_t i = 0; i < h->nbins; i++) {
			uint64_t v = bin_value(h, i);
			if (bb == 2)
				w_u16(w, v > 0xffff ? 0xffff : (uint16_t)v);
			else if (bb == 4)
				w_u32(w, v > 0xffffffffu ? 0xffffffffu : (uint32_t)v);
			else
				w_u64(w, v);
		}
	}
	return rec_close(w);
}

int monout_put_files(struct monout_writer *w, const struct monout_object *o, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += o[i].file_flags != 0;
	if (k == 0)
		return 0;
	if (rec_open(w, MONOUT_REC_FILES) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (o[i].file_flags == 0)
			continue;
		w_u32(w, (uint32_t)i);
		w_u32(w, o[i].file_flags);
		w_u64(w, o[i].file_size);
		w_u64(w, o[i].file_mtime_ns);
		w_u32(w, o[i].text_crc);
		w_u32(w, 0);
	}
	return rec_close(w);
}

int monout_put_calls(struct monout_writer *w, const struct monout_call *c, size_t n)
{
	if (rec_open(w, MONOUT_REC_CALLS) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		uint64_t pc = __atomic_load_n(&c[i].selfpc, __ATOMIC_ACQUIRE);
		uint64_t k = __atomic_load_n(&c[i].count, __ATOMIC_RELAXED);
		if (pc == 0 || k == 0)
			continue;
		w_u64(w, pc);
		w_u64(w, k);
	}
	return rec_close(w);
}

int monout_put_arcs(struct monout_writer *w, const struct monout_arc *a, size_t n)
{
	return monout_put_arcs_part(w, a, NULL, NULL, n);
}

int monout_put_arcs_part(struct monout_writer *w, const struct monout_arc *a, const uint64_t *now,
			 const uint64_t *base, size_t n)
{
	if (rec_open(w, MONOUT_REC_ARCS) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		uint64_t self = __atomic_load_n(&a[i].selfpc, __ATOMIC_ACQUIRE);
		uint64_t from = __atomic_load_n(&a[i].frompc, __ATOMIC_RELAXED);
		uint64_t k = now != NULL ? now[i] : __atomic_load_n(&a[i].count, __ATOMIC_RELAXED);
		uint64_t b = base != NULL ? base[i] : 0;
		if (self == 0 || k <= b)
			continue;
		w_u64(w, from);
		w_u64(w, self);
		w_u64(w, k - b);
	}
	return rec_close(w);
}

int monout_put_facts(struct monout_writer *w, const struct monout_facts *f)
{
	if (rec_open(w, MONOUT_REC_FACTS) < 0)
		return -1;
	w_u64(w, f->elapsed_usec);
	w_u32(w, f->rate_asked);
	w_u32(w, f->rate_set);
	w_u32(w, f->tick_cost_ns);
	w_u32(w, f->flags);
	w_u32(w, f->threads_unlisted);
	w_u32(w, f->check_usec);
	w_u64(w, f->cpu_before_usec);
	return rec_close(w);
}

int monout_put_forks(struct monout_writer *w, uint64_t unfollowed)
{
	if (rec_open(w, MONOUT_REC_FORKS) < 0)
		return -1;
	w_u64(w, unfollowed);
	return rec_close(w);
}

int monout_put_span(struct monout_writer *w, const struct monout_span *v)
{
	if (rec_open(w, MONOUT_REC_SPAN) < 0)
		return -1;
	w_u64(w, v->start_ns);
	w_u64(w, v->end_ns);
	return rec_close(w);
}

int monout_put_interval(struct monout_writer *w, const struct monout_interval *v)
{
	if (rec_open(w, MONOUT_REC_INTERVAL) < 0)
		return -1;
	w_u64(w, v->seq);
	w_u64(w, v->start_ns);
	w_u64(w, v->end_ns);
	w_u64(w, v->samples_total);
	w_u64(w, v->runtime_cpu_usec);
	w_u32(w, v->period_ms);
	w_u32(w, v->flags);
	w_u32(w, v->removed);
	w_u32(w, v->cut_ticks);
	return rec_close(w);
}

int monout_put_threads_open(struct monout_writer *w)
{
	return rec_open(w, MONOUT_REC_THREADS);
}

int monout_put_threads_add(struct monout_writer *w, const struct monout_thread *t)
{
	if (t->tid == 0)
		return 0;
	char name[MONOUT_THREAD_NAME_LEN] = { 0 };
	for (size_t k = 0; k < sizeof name - 1 && t->name[k]; k++)
		name[k] = t->name[k];
	w_u64(w, t->tid);
	w_u64(w, t->user_usec);
	w_u64(w, t->sys_usec);
	w_u64(w, __atomic_load_n(&t->samples, __ATOMIC_RELAXED));
	w_u32(w, t->flags);
	uint64_t late = __atomic_load_n(&t->late, __ATOMIC_RELAXED);
	w_u32(w, late > UINT32_MAX ? UINT32_MAX : (uint32_t)late);
	w_bytes(w, name, sizeof name);
	return 0;
}

int monout_put_threads_close(struct monout_writer *w)
{
	return rec_close(w);
}

int monout_put_threads(struct monout_writer *w, const struct monout_thread *t, size_t n)
{
	if (monout_put_threads_open(w) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		monout_put_threads_add(w, &t[i]);
	return monout_put_threads_close(w);
}

int monout_put_pcs(struct monout_writer *w, const struct monout_call *c, size_t n)
{
	if (rec_open(w, MONOUT_REC_PCS) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		uint64_t pc = __atomic_load_n(&c[i].selfpc, __ATOMIC_ACQUIRE);
		uint64_t k = __atomic_load_n(&c[i].count, __ATOMIC_RELAXED);
		if (pc == 0 || k == 0)
			continue;
		w_u64(w, pc);
		w_u64(w, k);
	}
	return rec_close(w);
}

int monout_syms_open(struct monout_writer *w, uint32_t object)
{
	if (rec_open(w, MONOUT_REC_SYMS) < 0)
		return -1;
	w_u32(w, object);
	return w_u32(w, 0);
}

int monout_syms_add(struct monout_writer *w, uint64_t start, uint64_t size, const char *name,
		    uint32_t len)
{
	w_u64(w, start);
	w_u64(w, size);
	w_u32(w, len);
	return w_bytes(w, name, len);
}

int monout_syms_close(struct monout_writer *w)
{
	return rec_close(w);
}

int monout_stacks_open(struct monout_writer *w, const struct monout_stacks_head *h)
{
	if (rec_open(w, MONOUT_REC_STACKS) < 0)
		return -1;
	w_u32(w, h->max_depth > MONOUT_STACK_MAX_DEPTH ? MONOUT_STACK_MAX_DEPTH : h->max_depth);
	w_u32(w, h->set);
	w_u64(w, h->lost);
	w_u64(w, h->truncated);
	return w_u64(w, 0);
}

int monout_stacks_add(struct monout_writer *w, uint64_t count, uint64_t tid, uint32_t flags,
		      const uint64_t *pcs, uint32_t depth)
{
	uint64_t k = count;
	if (k == 0 || depth == 0 || pcs == NULL)
		return w->error ? w_fail(w, w->error) : 0;
	if (depth > MONOUT_STACK_MAX_DEPTH) {	/* deeper than any reader takes */
		depth = MONOUT_STACK_MAX_DEPTH;
		flags |= MONOUT_STACK_DEPTH;
	}
	w_u64(w, k);
	w_u64(w, tid);
	w_u32(w, depth);
	w_u32(w, flags);
	return w_bytes(w, pcs, (size_t)depth * 8);
}

int monout_stacks_close(struct monout_writer *w)
{
	return rec_close(w);
}

int monout_wall_open(struct monout_writer *w, const struct monout_wall_head *h)
{
	if (rec_open(w, MONOUT_REC_WALL) < 0)
		return -1;
	w_u32(w, h->rate_hz);
	w_u32(w, h->max_depth == 0 ? 1 : h->max_depth > MONOUT_STACK_MAX_DEPTH
	      ? MONOUT_STACK_MAX_DEPTH : h->max_depth);
	w_u64(w, h->elapsed_usec);
	w_u64(w, h->rounds);
	w_u64(w, h->missed);
	w_u64(w, h->user_usec);
	w_u64(w, h->sys_usec);
	w_u32(w, h->flags);
	w_u32(w, h->threads_unlisted);
	w_u64(w, h->lost);
	w_u32(w, h->machine);
	return w_u32(w, 0);
}

int monout_wall_thread(struct monout_writer *w, const struct monout_wall_thread *t)
{
	if (t->tid == 0)
		return w->error ? w_fail(w, w->error) : 0;
	w_u32(w, MONOUT_WALL_THREAD);
	w_u32(w, MONOUT_WALL_THREAD_SIZE);
	w_u64(w, t->tid);
	w_u64(w, t->expected);
	w_u64(w, t->taken);
	w_u64(w, t->unreadable);
	w_u64(w, t->first_usec);
	w_u64(w, t->last_usec);
	w_u32(w, t->flags);
	w_u32(w, 0);
	return w_bytes(w, t->name, MONOUT_THREAD_NAME_LEN);
}

int monout_wall_wait(struct monout_writer *w, const struct monout_wait *v)
{
	static const unsigned char zero[8];
	uint32_t tl = v->text ? v->text_len : 0;
	if (tl > MONOUT_WAIT_TEXT_MAX)
		tl = MONOUT_WAIT_TEXT_MAX;
	uint32_t len = MONOUT_WALL_WAIT_FIXED + ((tl + 7u) & ~7u);
	w_u32(w, MONOUT_WALL_WAIT);
	w_u32(w, len);
	w_u32(w, v->id);
	w_u32(w, v->kind);
	w_u32(w, v->fd);
	w_u32(w, v->fd_kind);
	w_u64(w, v->address);
	w_u32(w, v->object);
	w_u32(w, v->flags);
	w_u64(w, v->offset);
	w_u64(w, v->owner);
	w_u32(w, tl);
	w_u32(w, 0);
	if (tl)
		w_bytes(w, v->text, tl);
	return w_bytes(w, zero, (size_t)(len - MONOUT_WALL_WAIT_FIXED - tl));
}

int monout_wall_sample(struct monout_writer *w, const struct monout_wall_sample *s)
{
	uint32_t depth = s->pcs ? s->depth : 0, flags = s->flags;
	if (s->count == 0 || s->tid == 0)
		return w->error ? w_fail(w, w->error) : 0;
	if (depth > MONOUT_STACK_MAX_DEPTH) {	/* deeper than any reader takes */
		depth = MONOUT_STACK_MAX_DEPTH;
		flags |= MONOUT_STACK_DEPTH;
	}
	w_u32(w, MONOUT_WALL_SAMPLE);
	w_u32(w, MONOUT_WALL_SAMPLE_FIXED + depth * 8);
	w_u64(w, s->count);
	w_u64(w, s->tid);
	w_u32(w, s->state);
	w_u32(w, s->syscall);
	w_u32(w, s->wait);
	w_u32(w, depth);
	w_u32(w, flags);
	w_u32(w, s->set);
	return depth ? w_bytes(w, s->pcs, (size_t)depth * 8) : (w->error ? w_fail(w, w->error) : 0);
}

int monout_wall_close(struct monout_writer *w)
{
	return rec_close(w);
}

int monout_put_images(struct monout_writer *w, const struct monout_image *v, size_t n)
{
	if (rec_open(w, MONOUT_REC_IMAGES) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		uint32_t pl = v[i].path ? v[i].path_len : 0, fl = v[i].file ? v[i].file_len : 0;
		w_u32(w, v[i].role);
		w_u32(w, pl);
		w_u32(w, fl);
		w_u32(w, 0);
		if (pl)
			w_bytes(w, v[i].path, pl);
		if (fl)
			w_bytes(w, v[i].file, fl);
	}
	return rec_close(w);
}

int monout_end(struct monout_writer *w)
{
	unsigned char h[MONOUT_HEADER_SIZE];
	if (w_pad8(w) < 0 || w_flush(w) < 0)
		return -1;
	memset(h, 0, sizeof h);
	memcpy(h, MONOUT_MAGIC, MONOUT_MAGIC_LEN);
	uint16_t version = MONOUT_VERSION;
	memcpy(h + 8, &version, 2);
	uint32_t minor = MONOUT_MINOR;
	memcpy(h + 36, &minor, 4);
	h[10] = (unsigned char)monout_host_order();
	h[11] = (unsigned char)sizeof(void *);
	uint32_t hsize = MONOUT_HEADER_SIZE;
	memcpy(h + 12, &hsize, 4);
	memcpy(h + 16, &w->offset, 8);
	memcpy(h + 24, &w->records, 4);
	memcpy(h + 28, &w->flags, 4);
	uint32_t crc = monout_crc32(0, h, sizeof h);
	memcpy(h + 32, &crc, 4);
	if (pwrite_all(w->fd, h, sizeof h, 0) < 0)
		return w_fail(w, errno);
	if (ftruncate(w->fd, (off_t)w->offset) < 0 && errno != EINVAL)
		return w_fail(w, errno);
	return 0;
}

int monout_write_fd(int fd, const struct monout *m)
{
	struct monout_writer w;
	if (monout_begin(&w, fd, m->flags) < 0 || monout_put_run(&w, &m->run) < 0)
		return -1;
	for (size_t i = 0; i < m->nobjects; i++)
		if (monout_put_object(&w, &m->objects[i]) < 0)
			return -1;
	if (monout_put_files(&w, m->objects, m->nobjects) < 0)
		return -1;
	for (size_t i = 0; i < m->nhists; i++)
		if (monout_put_hist(&w, &m->hists[i]) < 0)
			return -1;
	if (m->ncalls && monout_put_calls(&w, m->calls, m->ncalls) < 0)
		return -1;
	if (m->narcs && monout_put_arcs(&w, m->arcs, m->narcs) < 0)
		return -1;
	if (m->have_facts && monout_put_facts(&w, &m->facts) < 0)
		return -1;
	if (m->have_forks && monout_put_forks(&w, m->forks_unfollowed) < 0)
		return -1;
	if (m->have_interval && monout_put_interval(&w, &m->interval) < 0)
		return -1;
	if (m->have_span && monout_put_span(&w, &m->span) < 0)
		return -1;
	if (m->nthreads && monout_put_threads(&w, m->threads, m->nthreads) < 0)
		return -1;
	if (m->npcs && monout_put_pcs(&w, m->pcs, m->npcs) < 0)
		return -1;
	for (size_t i = 0; i < m->nsyms;) {
		size_t j = i;
		if (monout_syms_open(&w, m->syms[i].object) < 0)
			return -1;
		for (; j < m->nsyms && m->syms[j].object == m->syms[i].object; j++)
			monout_syms_add(&w, m->syms[j].start, m->syms[j].size, m->syms[j].name,
					(uint32_t)strlen(m->syms[j].name));
		if (monout_syms_close(&w) < 0)
			return -1;
		i = j;
	}
	if (m->nimages && monout_put_images(&w, m->images, m->nimages) < 0)
		return -1;
	if (m->have_stacks) {
		/* One record per object set, in the order the sets first appear
		 * among the entries (one empty record if there is none); the
		 * first carries lost, each its own truncated samples. */
		int first = 1;
		for (size_t i = 0; i < m->nstacks || (first && i == 0); i++) {
			uint32_t set = i < m->nstacks ? m->stacks[i].set : 0;
			int seen = 0;
			for (size_t j = 0; j < i && !seen; j++)
				seen = m->stacks[j].set == set;
			if (seen)
				continue;
			struct monout_stacks_head h = { m->stack_max_depth, 0, 0, set };
			for (size_t j = 0; j < m->nstacks; j++)
				if ((m->stacks[j].set == set) != first &&
				    (m->stacks[j].flags & MONOUT_STACK_TRUNCATED))
					h.truncated += m->stacks[j].count;
			if (first) {	/* the total read back stays the file's */
				h.lost = m->stacks_lost;
				h.truncated = m->stacks_truncated > h.truncated
						      ? m->stacks_truncated - h.truncated
						      : 0;
			}
			if (monout_stacks_open(&w, &h) < 0)
				return -1;
			for (size_t j = i; j < m->nstacks; j++)
				if (m->stacks[j].set == set)
					monout_stacks_add(&w, m->stacks[j].count, m->stacks[j].tid,
							  m->stacks[j].flags, m->stacks[j].pcs,
							  m->stacks[j].depth);
			if (monout_stacks_close(&w) < 0)
				return -1;
			first = 0;
		}
	}
	if (m->have_wall) {
		if (monout_wall_open(&w, &m->wall) < 0)
			return -1;
		for (size_t i = 0; i < m->nwall_threads; i++)
			monout_wall_thread(&w, &m->wall_threads[i]);
		for (size_t i = 0; i < m->nwaits; i++)
			monout_wall_wait(&w, &m->waits[i]);
		for (size_t i = 0; i < m->nwall_samples; i++)
			monout_wall_sample(&w, &m->wall_samples[i]);
		if (monout_wall_close(&w) < 0)
			return -1;
	}
	return monout_end(&w);
}

int monout_place_kind(int dirfd, const char *target)
{
	struct stat st;
	if (fstatat(dirfd, target, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? MONOUT_PLACE_RENAME : -1;
	if (S_ISREG(st.st_mode))
		return MONOUT_PLACE_RENAME;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return -1;
	}
	return MONOUT_PLACE_INTO;
}

/* Wait until out takes more bytes, at most MONOUT_COPY_STALL_MS since the
 * last ones went: 0, or -1 (ETIMEDOUT, poll's errno). */
#define MONOUT_COPY_STALL_MS 10000
static int wait_writable(int out)
{
	struct pollfd p = { out, POLLOUT, 0 };
	int r;
	do
		r = poll(&p, 1, MONOUT_COPY_STALL_MS);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		errno = ETIMEDOUT;
	return r > 0 ? 0 : -1;
}

/* Write n bytes of buf to out (non-blocking: waits with wait_writable). */
static int put_all(int out, const unsigned char *buf, size_t n)
{
	while (n > 0) {
		ssize_t k = write(out, buf, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN) {
			if (wait_writable(out) < 0)
				return -1;
			continue;
		}
		if (k <= 0)
			return k < 0 ? -1 : (errno = EIO, -1);
		buf += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Copy from's bytes, from offset 0 to its size, into out: sendfile(2)
 * (any out since Linux 2.6.33), or read and write where a device refuses
 * it (EINVAL). */
static int copy_into(int from, int out)
{
	struct stat st;
	if (fstat(from, &st) < 0)
		return -1;
	off_t at = 0;
	while (at < st.st_size) {
		ssize_t n = sendfile(out, from, &at, (size_t)(st.st_size - at));
		if (n > 0)
			continue;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			if (wait_writable(out) < 0)
				return -1;
			continue;
		}
		if (n < 0 && (errno == EINVAL || errno == ENOSYS))
			break;
		return n < 0 ? -1 : (errno = EIO, -1);
	}
	unsigned char buf[1024];
	while (at < st.st_size) {
		ssize_t n = pread(from, buf, sizeof buf, at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -1 : (errno = EIO, -1);
		if (put_all(out, buf, (size_t)n) < 0)
			return -1;
		at += n;
	}
	return 0;
}

int monout_copy_fd(int from, int out)
{
	return copy_into(from, out);
}

int monout_copy_into(int from, int dirfd, const char *target, unsigned mode)
{
	/* Non-blocking: a FIFO with no reader fails at once (ENXIO), one
	 * whose reader stops reading at the stall limit. */
	int out = openat(dirfd, target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY |
					     O_NONBLOCK, (mode_t)mode);
	if (out < 0)
		return -1;
	int rc = copy_into(from, out), e = errno;
	if (syscall(SYS_close, out) < 0 && rc == 0)
		return -1;
	errno = e;
	return rc;
}
