/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * input.c — opening a profile: telling mon.out from gmon.out by content, and
 * turning either into prof's own model (struct prof_data, prof.h).
 *
 * mon.out is decoded by its one reader, format/monout_read.c; this file only
 * copies the parts the flat profile needs out of struct monout.  gmon.out
 * has no record of the program's byte order or address size, so the
 * executable is opened first to learn them (gmon.c).
 *
 * A file that is neither, or is empty, is "foreign": one message, exit 1.
 */
#include "prof.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clocks.h"
#include "mon.h"
#include "monout.h"

/* Largest data file prof reads (a profile is a few MB; this only stops an
 * accidental multi-GB read). */
#define PROF_MAX_FILE ((size_t)1 << 32)

int prof_slurp(const char *path, unsigned char **buf, size_t *len, char *err, size_t errlen)
{
	*buf = NULL;
	*len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "not a regular file");
		close(fd);
		return -1;
	}
	if ((uint64_t)st.st_size > PROF_MAX_FILE) {
		snprintf(err, errlen, "file too large (%lld bytes)", (long long)st.st_size);
		close(fd);
		return -1;
	}
	size_t cap = (size_t)st.st_size + 1, n = 0;
	unsigned char *p = malloc(cap);
	if (!p) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		close(fd);
		return -1;
	}
	for (;;) {
		if (n == cap) {	/* the file grew while we read it */
			unsigned char *np = cap < PROF_MAX_FILE ? realloc(p, cap * 2) : NULL;
			if (!np) {
				snprintf(err, errlen, "file too large or out of memory");
				goto fail;
			}
			p = np;
			cap *= 2;
		}
		ssize_t r = read(fd, p + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			snprintf(err, errlen, "%s", strerror(errno));
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	*buf = p;
	*len = n;
	return 0;
fail:
	free(p);
	close(fd);
	return -1;
}

/* The IMAGES record as one sentence: "this process ran 2 programs, one
 * exec'ing the next: /bin/dash (profile mon.out.exec1), then /usr/bin/prog
 * (shown here)"; exec_failed: the last image's exec failed
 * (prof_exec_failed). */
static char *images_sentence(const struct monout *m, int exec_failed)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	if (f == NULL)
		return NULL;
	/* The images it ran: all, or all but the one whose exec failed. */
	size_t ran = m->nimages - (exec_failed && m->nimages > 1);
	if (ran > 1)
		fprintf(f, "this process ran %zu programs, one exec'ing the next: ", ran);
	for (size_t i = 0; i < ran && ran > 1; i++) {
		const struct monout_image *im = &m->images[i];
		fprintf(f, "%s%s", i ? ", then " : "", im->path_len ? im->path : "(unknown)");
		if (im->role == MONOUT_IMAGE_THIS)
			fputs(" (shown here)", f);
		else if (im->role == MONOUT_IMAGE_NEXT && (m->facts.flags & MONOUT_FACT_NEXT_STATIC))
			fputs(" (not profiled: it is statically linked, so no loader ran in it to "
			      "preload libmon; link it dynamically (a Go program: with cgo), or "
			      "build it with -pg -lmon)", f);
		else if (im->role == MONOUT_IMAGE_NEXT && (m->facts.flags & MONOUT_FACT_NEXT_SETID))
			fputs(" (not profiled: it is set-user-ID or set-group-ID, and the loader "
			      "ignores LD_PRELOAD for it; run it as its owner)", f);
		else if (im->role == MONOUT_IMAGE_NEXT)
			fputs(" (profiled in a file of its own)", f);
		else if (im->file_len)
			fprintf(f, " (profile %s)", im->file);
		else
			fputs(" (no profile written)", f);
	}
	if (ran < m->nimages) {
		const struct monout_image *im = &m->images[ran];
		fprintf(f, "%sthis interval ended at an exec of %s, which failed: the process went "
			"on in the same program, whose series goes on in the next interval's file",
			ran > 1 ? "; " : "", im->path_len ? im->path : "(unknown)");
	}
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

/* The SYMS entries of object obj (MONOUT_NO_OBJECT: anonymous code) into o. */
static int copy_xsyms(const struct monout *m, uint32_t obj, struct prof_object *o)
{
	size_t n = 0;
	for (size_t i = 0; i < m->nsyms; i++)
		n += m->syms[i].object == obj;
	if (n == 0)
		return 0;
	o->xsyms = calloc(n, sizeof *o->xsyms);
	if (!o->xsyms)
		return -1;
	for (size_t i = 0; i < m->nsyms; i++) {
		if (m->syms[i].object != obj)
			continue;
		struct prof_xsym *x = &o->xsyms[o->nxsyms];
		if (!(x->name = strdup(m->syms[i].name)))
			return -1;
		x->start = m->syms[i].start;
		x->size = m->syms[i].size;
		o->nxsyms++;
	}
	return 0;
}

/* The WALL record (minor 5) into d: the sampler's facts, its threads, the
 * waits, the samples (one allocation for them and their PCs).  0, or -1
 * (ENOMEM). */
static int from_wall(const struct monout *m, struct prof_data *d)
{
	const struct monout_wall_head *h = &m->wall;
	d->have_wall = 1;
	d->wall = (struct prof_wall_head){
		.rate_hz = h->rate_hz, .elapsed_s = (double)h->elapsed_usec / 1e6,
		.rounds = h->rounds, .missed = h->missed, .user_s = (double)h->user_usec / 1e6,
		.sys_s = (double)h->sys_usec / 1e6, .flags = h->flags,
		.threads_unlisted = h->threads_unlisted, .lost = h->lost, .machine = h->machine };
	d->wall_threads = calloc(m->nwall_threads ? m->nwall_threads : 1, sizeof *d->wall_threads);
	d->waits = calloc(m->nwaits ? m->nwaits : 1, sizeof *d->waits);
	size_t npcs = 0;
	for (size_t i = 0; i < m->nwall_samples; i++)
		npcs += m->wall_samples[i].depth;
	d->wall_samples = malloc((m->nwall_samples ? m->nwall_samples : 1) *
				 sizeof *d->wall_samples + (npcs ? npcs : 1) * sizeof(uint64_t));
	if (!d->wall_threads || !d->waits || !d->wall_samples)
		return -1;
	for (size_t i = 0; i < m->nwall_threads; i++) {
		const struct monout_wall_thread *t = &m->wall_threads[i];
		struct prof_wall_thread *w = &d->wall_threads[d->nwall_threads++];
		*w = (struct prof_wall_thread){ .tid = t->tid, .pid = m->run.pid,
			.expected = t->expected,
			.taken = t->taken, .unreadable = t->unreadable,
			.alive_s = (double)(t->last_usec - t->first_usec) / 1e6, .flags = t->flags };
		memcpy(w->name, t->name, sizeof w->name);
		w->name[sizeof w->name - 1] = '\0';
	}
	for (size_t i = 0; i < m->nwaits; i++) {
		const struct monout_wait *v = &m->waits[i];
		struct prof_wait *w = &d->waits[i];
		*w = (struct prof_wait){ .kind = v->kind, .fd = v->fd, .fd_kind = v->fd_kind,
			.address = v->address,
			.object = v->object < d->nobjs ? (size_t)v->object : SIZE_MAX,
			.flags = v->flags, .offset = v->offset, .owner = v->owner };
		if (!(w->text = strdup(v->text ? v->text : "")))
			return -1;
		d->nwaits = i + 1;
	}
	uint64_t *pool = (uint64_t *)(void *)(d->wall_samples +
					       (m->nwall_samples ? m->nwall_samples : 1));
	for (size_t i = 0; i < m->nwall_samples; i++) {
		const struct monout_wall_sample *s = &m->wall_samples[i];
		if (s->depth)
			memcpy(pool, s->pcs, s->depth * sizeof *pool);
		d->wall_samples[i] = (struct prof_wall_sample){ .count = s->count, .tid = s->tid,
			.state = s->state, .syscall = s->syscall,
			.wait = s->wait < m->nwaits ? (size_t)s->wait : SIZE_MAX, .flags = s->flags,
			.depth = s->depth, .set = s->set, .pcs = pool };
		pool += s->depth;
	}
	d->nwall_samples = m->nwall_samples;
	return 0;
}

/* struct monout → struct prof_data. */
static int from_monout(const struct monout *m, const char *prog, struct prof_data *d,
		       char *err, size_t errlen)
{
	d->format = "mon.out";
	struct prof_run *r = &d->run;
	r->rate_hz = m->run.rate_hz;
	snprintf(r->clock, sizeof r->clock, "%s", mon_clock_str(m->run.clock));
	r->have_stats = 1;
	r->samples = m->run.samples;
	r->dropped = m->run.dropped;
	r->saturated = m->run.saturated;
	r->lost = m->run.lost;
	r->have_cpu = 1;
	r->user_s = (double)m->run.user_usec / 1e6;
	r->sys_s = (double)m->run.sys_usec / 1e6;
	r->pid = m->run.pid;
	r->summed = (m->flags & MONOUT_F_SUMMED) != 0;
	r->ppid = m->run.ppid;
	int exact = monout_span_ns(m, &r->start_ns, &r->end_ns);
	r->span_known = exact < 0 ? 0 : exact + 1;
	r->interval_seq = m->have_interval ? m->interval.seq : 0;
	r->interval_start_ns = m->have_interval ? m->interval.start_ns : 0;
	r->interval_end_ns = m->have_interval ? m->interval.end_ns : 0;
	r->interval_flags = m->have_interval ? m->interval.flags : 0;
	r->interval_period_ms = m->have_interval ? m->interval.period_ms : 0;
	r->forks_unfollowed = m->have_forks ? m->forks_unfollowed : 0;
	if (m->run.cmdline && m->run.cmdline_len) {
		r->command = malloc(m->run.cmdline_len + 1);
		if (!r->command)
			goto nomem;
		memcpy(r->command, m->run.cmdline, m->run.cmdline_len);
		r->command[m->run.cmdline_len] = '\0';
		for (uint32_t i = 0; i + 1 < m->run.cmdline_len; i++)
			if (r->command[i] == '\0')
				r->command[i] = ' ';
	}

	if (m->have_facts) {
		r->have_facts = 1;
		r->elapsed_s = (double)m->facts.elapsed_usec / 1e6;
		r->rate_asked = m->facts.rate_asked;
		r->rate_set = m->facts.rate_set;
		r->tick_cost_ns = m->facts.tick_cost_ns;
		r->fact_flags = m->facts.flags;
		r->threads_unlisted = m->facts.threads_unlisted;
		/* Not sampled by design: start-up, and the runtime's own work
		 * after it (the rate check, a dlopen's objects). */
		r->cpu_before_s = (double)(m->facts.cpu_before_usec + m->facts.check_usec) / 1e6;
		if (!(m->facts.flags & MONOUT_FACT_PROFILING_OFF))
			r->startup_s = (double)m->facts.cpu_before_usec / 1e6;
	}
	if (m->nthreads) {
		d->threads = calloc(m->nthreads, sizeof *d->threads);
		if (!d->threads)
			goto nomem;
		for (size_t i = 0; i < m->nthreads; i++) {
			struct prof_thread *t = &d->threads[d->nthreads++];
			t->tid = m->threads[i].tid;
			t->user_s = (double)m->threads[i].user_usec / 1e6;
			t->sys_s = (double)m->threads[i].sys_usec / 1e6;
			t->samples = m->threads[i].samples;
			t->late = m->threads[i].late < t->samples ? m->threads[i].late : t->samples;
			t->rate_hz = m->run.rate_hz;
			t->cpu_known = (m->threads[i].flags & MONOUT_THREAD_CPU) != 0;
			t->ended = (m->threads[i].flags & MONOUT_THREAD_ENDED) != 0;
			/* The process's start-up ran in its first thread. */
			if (t->tid == m->run.pid && m->have_facts)
				t->before_s = (double)(m->facts.cpu_before_usec +
						       m->facts.check_usec) / 1e6;
			memcpy(t->name, m->threads[i].name, sizeof t->name);
			t->name[sizeof t->name - 1] = '\0';
			/* One live thread in two entries: the runtime's writer listed it
			 * from /proc while its first tick claimed one of its own
			 * (runfacts.c: the table is claimed by an atomic add, not keyed).
			 * One thread: its samples added, the later CPU (it only grows).
			 * An ended thread's tid reused by a new one stays two. */
			for (size_t k = 0; !t->ended && k + 1 < d->nthreads; k++) {
				struct prof_thread *o = &d->threads[k];
				if (o->tid != t->tid || o->ended)
					continue;
				o->samples += t->samples;
				o->late += t->late;
				if (t->cpu_known && (!o->cpu_known || t->user_s + t->sys_s > o->user_s + o->sys_s)) {
					o->user_s = t->user_s;
					o->sys_s = t->sys_s;
					o->cpu_known = 1;
				}
				if (o->name[0] == '\0')
					memcpy(o->name, t->name, sizeof o->name);
				if (o->before_s == 0)
					o->before_s = t->before_s;
				d->nthreads--;
				break;
			}
		}
	}
	/* Samples in anonymous code: one "[anon]" object and histogram of
	 * 2-byte bins per cluster of PCs (PCs more than a page apart start a
	 * new one: anonymous code may lie on both sides of a library). */
	size_t nclusters = 0;
	for (size_t i = 0; i < m->npcs; i++) {
		if (i == 0 || m->pcs[i].selfpc - m->pcs[i - 1].selfpc > 4096)
			nclusters++;
		r->anon_samples += m->pcs[i].count;
	}
	/* Said when the process's profile is in other files too: an image
	 * before this one wrote one, or this one exec'd the next.  An image
	 * before that wrote none took no sample (monitor.c: the fork child
	 * of a shell that only execs, as every stage of a pipeline is):
	 * nothing of the process is elsewhere. */
	int split = 0;
	for (size_t i = 0; i < m->nimages; i++)
		r->images_before += m->images[i].role == MONOUT_IMAGE_EARLIER;
	for (size_t i = 0; i < m->nimages; i++)
		split |= m->images[i].role == MONOUT_IMAGE_NEXT ||
			 (m->images[i].role == MONOUT_IMAGE_EARLIER && m->images[i].file_len);
	if (split) {
		int failed = prof_exec_failed(d->file, m);
		if (failed < 0 || (r->images = images_sentence(m, failed)) == NULL)
			goto nomem;
	}

	int have_main = 0;
	for (size_t i = 0; i < m->nobjects; i++)
		have_main |= (m->objects[i].flags & MONOUT_OBJ_MAIN) != 0;
	size_t nobjs = m->nobjects + !have_main + nclusters;
	d->objs = calloc(nobjs ? nobjs : 1, sizeof *d->objs);
	if (!d->objs)
		goto nomem;
	for (size_t i = 0; i < m->nobjects; i++) {
		const struct monout_object *mo = &m->objects[i];
		struct prof_object *o = &d->objs[d->nobjs];
		if (mo->flags & MONOUT_OBJ_VDSO)
			o->path = strdup("[vdso]");
		else if (mo->path && mo->path_len)
			o->path = strndup(mo->path, mo->path_len);
		else
			o->path = strdup("[anonymous]");
		if (!o->path)
			goto nomem;
		d->nobjs++;
		if (mo->build_id_len && mo->build_id_len <= sizeof o->build_id) {
			memcpy(o->build_id, mo->build_id, mo->build_id_len);
			o->build_id_len = mo->build_id_len;
		}
		o->bias = mo->load_bias;
		o->text_lo = mo->text_lo;
		o->text_hi = mo->text_hi;
		o->is_main = (mo->flags & MONOUT_OBJ_MAIN) != 0;
		o->set = mo->set;
		o->file_flags = mo->file_flags;
		o->file_size = mo->file_size;
		o->file_mtime_ns = mo->file_mtime_ns;
		o->text_crc = mo->text_crc;
		o->no_file = (mo->flags & MONOUT_OBJ_VDSO) != 0;
		if (o->no_file && copy_xsyms(m, (uint32_t)i, o) < 0)
			goto nomem;
	}
	if (!have_main) {
		/* An old or hand-made file without an object list: the program
		 * given on the command line, at its link-time addresses. */
		if (prog == NULL) {
			snprintf(err, errlen, "the file names no executable: give the program");
			return -1;
		}
		d->objs[d->nobjs].is_main = 1;
		d->nobjs++;
	}

	d->hists = calloc(m->nhists + nclusters ? m->nhists + nclusters : 1, sizeof *d->hists);
	if (!d->hists)
		goto nomem;
	for (size_t i = 0, c0 = 0; i < m->npcs; i++) {
		if (i + 1 < m->npcs && m->pcs[i + 1].selfpc - m->pcs[i].selfpc <= 4096)
			continue;
		/* PCs c0..i form a cluster. */
		struct prof_object *o = &d->objs[d->nobjs];
		if (!(o->path = strdup("[anon]")))
			goto nomem;
		d->nobjs++;
		o->no_file = 1;
		o->anon_cluster = 1;
		o->text_lo = m->pcs[c0].selfpc & ~(uint64_t)1;
		o->text_hi = (m->pcs[i].selfpc & ~(uint64_t)1) + 2;
		if (copy_xsyms(m, MONOUT_NO_OBJECT, o) < 0)
			goto nomem;
		struct prof_hist *h = &d->hists[d->nhists];
		h->lowpc = o->text_lo;
		h->highpc = o->text_hi;
		h->binmap = PROF_BIN_PROFIL;
		h->scale = 65536;
		h->nbins = (size_t)(h->highpc - h->lowpc) / 2;
		h->bins = calloc(h->nbins, sizeof *h->bins);
		if (!h->bins)
			goto nomem;
		d->nhists++;
		for (size_t k = c0; k <= i; k++)
			h->bins[(m->pcs[k].selfpc - h->lowpc) / 2] += m->pcs[k].count;
		c0 = i + 1;
	}
	for (size_t i = 0; i < m->nhists; i++) {
		const struct monout_hist *mh = &m->hists[i];
		struct prof_hist *h = &d->hists[d->nhists];
		if (mh->scale < 2 || mh->scale > 65536 || mh->highpc <= mh->lowpc ||
		    (mh->nbins && !mh->counts)) {
			snprintf(err, errlen, "histogram %zu: bad range or scale %u", i, mh->scale);
			return -1;
		}
		h->lowpc = mh->lowpc;
		h->highpc = mh->highpc;
		h->binmap = PROF_BIN_PROFIL;
		h->scale = mh->scale;
		/* Objects loaded in turn at one address: each histogram is its
		 * own object's, whatever else was mapped there. */
		h->has_object = mh->object != MONOUT_NO_OBJECT && mh->object < m->nobjects;
		h->object = mh->object;
		h->nbins = (size_t)mh->nbins;
		/* Only the non-zero bins are kept (sparse). */
		size_t nnz = 0;
		if (mh->index)
			nnz = (size_t)mh->nnz;
		else
			for (uint64_t k = 0; k < mh->nbins; k++)
				nnz += mh->counts[k] != 0;
		h->bins = malloc((nnz ? nnz : 1) * sizeof *h->bins);
		h->idx = malloc((nnz ? nnz : 1) * sizeof *h->idx);
		if (!h->bins || !h->idx)
			goto nomem;
		if (mh->index) {
			memcpy(h->bins, mh->counts, nnz * sizeof *h->bins);
			memcpy(h->idx, mh->index, nnz * sizeof *h->idx);
		} else {
			size_t w = 0;
			for (uint64_t k = 0; k < mh->nbins; k++)
				if (mh->counts[k]) {
					h->idx[w] = k;
					h->bins[w++] = mh->counts[k];
				}
		}
		h->nnz = nnz;
		d->nhists++;
	}
	d->counts = malloc((m->ncalls ? m->ncalls : 1) * sizeof *d->counts);
	if (!d->counts)
		goto nomem;
	for (size_t i = 0; i < m->ncalls; i++) {
		d->counts[i].selfpc = m->calls[i].selfpc;
		d->counts[i].count = m->calls[i].count;
	}
	d->ncounts = m->ncalls;
	/* The arcs (mcount's caller -> callee counts): kept for the model's
	 * call graph, beside the per-callee counts the flat profile uses. */
	d->arcs = malloc((m->narcs ? m->narcs : 1) * sizeof *d->arcs);
	if (!d->arcs)
		goto nomem;
	for (size_t i = 0; i < m->narcs; i++) {
		d->arcs[i].frompc = m->arcs[i].frompc;
		d->arcs[i].selfpc = m->arcs[i].selfpc;
		d->arcs[i].count = m->arcs[i].count;
	}
	d->narcs = m->narcs;
	/* The call stacks (STACKS, minor 4): one allocation for the entries
	 * and their PCs. */
	if (m->have_stacks) {
		size_t npcs = 0;
		for (size_t i = 0; i < m->nstacks; i++)
			npcs += m->stacks[i].depth;
		d->have_stacks = 1;
		d->stacks_lost = m->stacks_lost;
		d->stacks = malloc((m->nstacks ? m->nstacks : 1) * sizeof *d->stacks +
				   (npcs ? npcs : 1) * sizeof(uint64_t));
		if (!d->stacks)
			goto nomem;
		uint64_t *pool = (uint64_t *)(void *)(d->stacks + (m->nstacks ? m->nstacks : 1));
		for (size_t i = 0; i < m->nstacks; i++) {
			const struct monout_stack *st = &m->stacks[i];
			memcpy(pool, st->pcs, st->depth * sizeof *pool);
			d->stacks[i] = (struct prof_stack){ st->count, st->tid, st->flags, st->depth,
							    pool, st->set };
			pool += st->depth;
		}
		d->nstacks = m->nstacks;
	}
	if (m->have_wall && from_wall(m, d) < 0)
		goto nomem;
	return 0;
nomem:
	snprintf(err, errlen, "%s", strerror(ENOMEM));
	return -1;
}

int prof_read(const char *path, const char *prog, struct prof_data *d, char *err, size_t errlen)
{
	unsigned char *buf;
	size_t len;
	memset(d, 0, sizeof *d);
	d->file = path;
	if (prof_slurp(path, &buf, &len, err, errlen) < 0)
		return -1;
	int rc = -1;
	if (len == 0) {
		snprintf(err, errlen, "empty file");
	} else if (len >= MONOUT_MAGIC_LEN && memcmp(buf, MONOUT_MAGIC, MONOUT_MAGIC_LEN) == 0) {
		struct monout m;
		if (monout_parse_opts(buf, len, &m, MONOUT_PARSE_SPARSE, err, errlen) == 0) {
			/* An older series' interval: its own calls (intervals.c). */
			if (prof_interval_calls(path, &m) < 0)
				snprintf(err, errlen, "%s", strerror(ENOMEM));
			else
				rc = from_monout(&m, prog, d, err, errlen);
			monout_free(&m);
		}
	} else if (len >= 4 && memcmp(buf, GMON_MAGIC, 4) == 0) {
		/* The executable tells the byte order and address size. */
		struct prof_image im;
		const char *exe = prog ? prog : "a.out";
		char eerr[256];
		if (symtab_probe(exe, &im, eerr, sizeof eerr) < 0) {
			snprintf(err, errlen, "gmon.out needs its program: %s: %s", exe, eerr);
		} else {
			rc = gmon_decode(buf, len, im.elf64, im.big, d, err, errlen);
			symtab_free(&im);
		}
	} else if (len < MONOUT_MAGIC_LEN &&
		   memcmp(buf, MONOUT_MAGIC, len) == 0) {
		snprintf(err, errlen, "truncated: %zu bytes, not even a mon.out header", len);
	} else {
		snprintf(err, errlen, "not a profile: neither mon.out nor gmon.out (bad magic)");
	}
	free(buf);
	if (rc < 0)
		prof_data_free(d);
	d->file = path;
	return rc;
}

int prof_is_profile(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	unsigned char head[MONOUT_MAGIC_LEN];
	ssize_t n;
	do
		n = read(fd, head, sizeof head);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n < 4)
		return 0;
	if (memcmp(head, GMON_MAGIC, 4) == 0)
		return 1;
	return memcmp(head, MONOUT_MAGIC, (size_t)n) == 0;
}

static int cmp_name(const void *x, const void *y)
{
	return strverscmp(*(char *const *)x, *(char *const *)y);
}

int prof_dir_files(const char *dir, char ***names, size_t *n, char *err, size_t errlen)
{
	DIR *dp = opendir(dir);
	*names = NULL;
	*n = 0;
	if (dp == NULL) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	size_t cap = 0;
	struct dirent *e;
	const char *sep = dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/";
	while ((e = readdir(dp)) != NULL) {
		if (e->d_name[0] == '.')	/* ".", "..", a writer's temporary file */
			continue;
		char *full;
		if (asprintf(&full, "%s%s%s", dir, sep, e->d_name) < 0)
			goto nomem;
		struct stat st;
		if (stat(full, &st) != 0 || !S_ISREG(st.st_mode) || !prof_is_profile(full)) {
			free(full);
			continue;
		}
		if (*n == cap) {
			size_t c = cap ? 2 * cap : 64;
			char **v = realloc(*names, c * sizeof *v);
			if (v == NULL) {
				free(full);
				goto nomem;
			}
			*names = v;
			cap = c;
		}
		(*names)[(*n)++] = full;
	}
	closedir(dp);
	qsort(*names, *n, sizeof **names, cmp_name);
	return 0;
nomem:
	closedir(dp);
	for (size_t i = 0; i < *n; i++)
		free((*names)[i]);
	free(*names);
	*names = NULL;
	*n = 0;
	snprintf(err, errlen, "%s", strerror(ENOMEM));
	return -1;
}
