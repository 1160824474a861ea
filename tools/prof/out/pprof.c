/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pprof.c — the model as pprof's profile ("pprof"): a gzipped
 * perftools.profiles.Profile message, the protocol buffer that
 * github.com/google/pprof defines in proto/profile.proto (field numbers
 * below are that file's), which `go tool pprof`, pprof's web view and the
 * services that gather pprof profiles read.
 *
 * The model already has the message's shape (profile.h), so each part is
 * written as it is, one to one, with ids = index + 1:
 *   sample_type   the model's sample types the profile holds, in its order
 *                 and with its names (profile.h's prof_sample_types[]):
 *                 samples/count, cpu/nanoseconds, calls/count,
 *                 arc-calls/count, and with wall-clock samples
 *                 wall-samples/count, wall/nanoseconds,
 *                 off-cpu-samples/count, off-cpu/nanoseconds (seconds as
 *                 integer nanoseconds, the type's export unit);
 *                 default_sample_type the time of the event --sample asks
 *                 for ("cpu" by default; go tool pprof -sample_index=wall
 *                 picks another);
 *   sample        every model sample: its stack of locations, leaf first
 *                 (pprof's order too), and its four values rounded to
 *                 integers (System V's split makes fractional samples);
 *                 a {callee, caller} arc is a two-location sample whose only
 *                 non-zero value is arc-calls, so that -top by samples, cpu
 *                 or calls is prof's flat profile, and the call graph by
 *                 arc-calls is the arcs.  Stacks (later) are samples of more
 *                 locations and need nothing new here;
 *   mapping       each object: file name, build ID in hex, the address range
 *                 its functions cover (link-time addresses, as the model's);
 *                 has_functions set, as prof named every location;
 *   location      only those the samples name: address and lines (function, line; line 0: not known);
 *   function      those the locations name: printed name, the symbol's own spelling as system_name
 *                 (none for prof's own frames, the wait reasons: see below);
 *                 no file name yet (the model has no source files);
 *                 each stack sample has the labels thread_id (number),
 *                 thread_name (the THREADS record's, when it names one)
 *                 and pid (number), for go tool pprof -tags, -tagfocus
 *                 and the services that group by them;
 *   period_type   the asked event's time type (cpu/nanoseconds), period
 *                 1e9 / its rate; time_nanos the start of the run (the
 *                 earliest file's write time less its elapsed time: to
 *                 the second, as RUN's write time is) and duration_nanos
 *                 its wall-clock span (earliest start to latest end, not
 *                 a sum over processes) when the files recorded them;
 *   comment       each warning prof gave ("warning: ..."), so a profile
 *                 shown elsewhere is not silently incomplete.
 *
 * The encoder is our own, a few lines: protobuf's wire format
 * (protobuf.dev, "Encoding") has only two kinds here, varints (wire type 0)
 * and length-delimited bytes (wire type 2) for strings, packed repeated
 * integers and nested messages.  The string table (field 6) is written
 * last, which the wire format allows (fields in any order), so one pass
 * interns the strings as it goes; "" is string 0, as pprof requires.  The
 * bytes are gzipped through zlib (deflate with a gzip header, RFC 1952).
 */
#include "out.h"

#include "prof.h"	/* struct prof_warning */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* ---- protobuf wire format ------------------------------------------------ */

enum { PB_VARINT = 0, PB_LEN = 2 };

struct pbuf {
	unsigned char *b;
	size_t n, cap;
	int err;		/* out of memory: everything after is dropped */
};

static void pb_put(struct pbuf *p, const void *d, size_t n)
{
	if (p->err)
		return;
	if (p->n + n > p->cap) {
		size_t c = p->cap ? p->cap : 256;
		while (c < p->n + n)
			c *= 2;
		unsigned char *nb = realloc(p->b, c);
		if (!nb) {
			p->err = 1;
			return;
		}
		p->b = nb;
		p->cap = c;
	}
	memcpy(p->b + p->n, d, n);
	p->n += n;
}

static void pb_varint(struct pbuf *p, uint64_t v)
{
	unsigned char b[10];
	size_t n = 0;
	do {
		b[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	pb_put(p, b, n);
}

static void pb_key(struct pbuf *p, unsigned field, unsigned wire)
{
	pb_varint(p, (uint64_t)field << 3 | wire);
}

/* A varint field, left out when 0 (proto3's default). */
static void pb_uint(struct pbuf *p, unsigned field, uint64_t v)
{
	if (v == 0)
		return;
	pb_key(p, field, PB_VARINT);
	pb_varint(p, v);
}

static void pb_bytes(struct pbuf *p, unsigned field, const void *d, size_t n)
{
	pb_key(p, field, PB_LEN);
	pb_varint(p, n);
	pb_put(p, d, n);
}

/* A nested message or packed field: sub's bytes, then sub emptied. */
static void pb_sub(struct pbuf *p, unsigned field, struct pbuf *sub)
{
	if (sub->err)
		p->err = 1;
	pb_bytes(p, field, sub->b, sub->n);
	sub->n = 0;
}

/* ---- the string table ---------------------------------------------------- */

struct strtab {
	char **s;		/* copies, by index */
	size_t n, cap;
	size_t *slot;		/* open addressing: index + 1, 0 empty */
	size_t nslot;
	int err;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static int st_grow(struct strtab *t)
{
	size_t ns = t->nslot ? 2 * t->nslot : 1024;
	size_t *sl = calloc(ns, sizeof *sl);
	if (!sl)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		size_t h = (size_t)hash_str(t->s[i]) & (ns - 1);
		while (sl[h])
			h = (h + 1) & (ns - 1);
		sl[h] = i + 1;
	}
	free(t->slot);
	t->slot = sl;
	t->nslot = ns;
	return 0;
}

/* The index of s in the table, added if new; 0 ("") if out of memory. */
static uint64_t st_intern(struct strtab *t, const char *s)
{
	if (t->err)
		return 0;
	if (2 * (t->n + 1) > t->nslot && st_grow(t) < 0)
		goto nomem;
	size_t h = (size_t)hash_str(s) & (t->nslot - 1);
	while (t->slot[h]) {
		if (strcmp(t->s[t->slot[h] - 1], s) == 0)
			return t->slot[h] - 1;
		h = (h + 1) & (t->nslot - 1);
	}
	if (t->n == t->cap) {
		size_t c = t->cap ? 2 * t->cap : 256;
		char **ns = realloc(t->s, c * sizeof *ns);
		if (!ns)
			goto nomem;
		t->s = ns;
		t->cap = c;
	}
	if (!(t->s[t->n] = strdup(s)))
		goto nomem;
	t->slot[h] = ++t->n;
	return t->n - 1;
nomem:
	t->err = 1;
	return 0;
}

static void st_free(struct strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	free(t->slot);
}

/* ---- the profile --------------------------------------------------------- */

static int64_t rounded(double v)
{
	return v > 0 ? (int64_t)llround(v) : 0;
}

/* The value written for sample type k: in its export unit. */
static int64_t sample_value(const struct prof_profile *p, const struct prof_sample *s, int k)
{
	return rounded(s->value[k] * p->sample_types[k].export_scale);
}

static void value_type(struct pbuf *m, struct pbuf *sub, struct strtab *t, unsigned field,
		       const char *type, const char *unit)
{
	pb_uint(sub, 1, st_intern(t, type));
	pb_uint(sub, 2, st_intern(t, unit));
	pb_sub(m, field, sub);
}

/* The whole message, not yet compressed, into m. */
static void encode(const struct prof_profile *p, const struct prof_opts *o, struct pbuf *m,
		   struct strtab *t, const unsigned char *usedloc, const unsigned char *usedfn)
{
	const struct prof_event_type *ev = prof_event_of(p, o);
	const struct prof_sample_type *evt = &p->sample_types[ev->time];
	struct pbuf sub = { 0 }, pk = { 0 };
	uint64_t *lohi = malloc((p->nmappings ? p->nmappings : 1) * 2 * sizeof *lohi);
	if (!lohi) {
		m->err = 1;
		return;
	}
	st_intern(t, "");

	/* sample_type = 1: the model's that p holds, times in nanoseconds. */
	for (int k = 0; k < PROF_NVAL; k++)
		if (prof_has_type(p, k))
			value_type(m, &sub, t, 1, p->sample_types[k].type,
				   p->sample_types[k].export_unit);

	/* sample = 2: location_id = 1, value = 2, both packed. */
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];
		for (size_t j = 0; j < s->nlocations; j++)
			pb_varint(&pk, s->locations[j] + 1);
		pb_sub(&sub, 1, &pk);
		for (int k = 0; k < PROF_NVAL; k++)
			if (prof_has_type(p, k))
				pb_varint(&pk, (uint64_t)sample_value(p, s, k));
		pb_sub(&sub, 2, &pk);
		/* label = 3, Label {key 1, str 2, num 3}: the thread and the
		 * process of a stack sample (go tool pprof -tags, -tagfocus). */
		/* The program of a profile of several: its root frame's name
		 * (go tool pprof -tagfocus=program=NAME). */
		const struct prof_function *root =
			&p->functions[p->locations[s->locations[s->nlocations - 1]].lines[0].function];
		if (root->kind == PROF_FN_PROGRAM) {
			pb_uint(&pk, 1, st_intern(t, "program"));
			pb_uint(&pk, 2, st_intern(t, root->name));
			pb_sub(&sub, 3, &pk);
		}
		if (s->thread < p->nthreads) {
			const struct prof_thread_name *th = &p->threads[s->thread];
			pb_uint(&pk, 1, st_intern(t, "thread_id"));
			pb_uint(&pk, 3, th->tid);
			pb_sub(&sub, 3, &pk);
			if (th->name[0]) {
				pb_uint(&pk, 1, st_intern(t, "thread_name"));
				pb_uint(&pk, 2, st_intern(t, th->name));
				pb_sub(&sub, 3, &pk);
			}
			if (th->pid) {
				pb_uint(&pk, 1, st_intern(t, "pid"));
				pb_uint(&pk, 3, th->pid);
				pb_sub(&sub, 3, &pk);
			}
		}
		pb_sub(m, 2, &sub);
	}

	/* mapping = 3: id 1, memory_start 2, memory_limit 3, filename 5,
	 * build_id 6, has_functions 7; the range is what the functions and
	 * locations of the object span (one pass over each). */
	for (size_t i = 0; i < p->nmappings; i++) {
		lohi[2 * i] = UINT64_MAX;
		lohi[2 * i + 1] = 0;
	}
	for (size_t f = 0; f < p->nfunctions; f++) {
		const struct prof_function *fn = &p->functions[f];
		if (fn->mapping >= p->nmappings || fn->kind == PROF_FN_OBJECT)
			continue;
		uint64_t *r = &lohi[2 * fn->mapping];
		r[0] = fn->start < r[0] ? fn->start : r[0];
		r[1] = fn->start + fn->size > r[1] ? fn->start + fn->size : r[1];
	}
	for (size_t l = 0; l < p->nlocations; l++) {
		const struct prof_location *lc = &p->locations[l];
		if (lc->mapping >= p->nmappings)
			continue;
		uint64_t *r = &lohi[2 * lc->mapping];
		r[0] = lc->address < r[0] ? lc->address : r[0];
		r[1] = lc->address + 1 > r[1] ? lc->address + 1 : r[1];
	}
	/* go tool pprof names the first mapping the profile's file ("File:"):
	 * the main program, or of several (each one's executable a main
	 * mapping) the one whose own code has the most samples of the event.
	 * Ids stay index + 1; only the order moves. */
	size_t first = 0;
	double best = -1;
	for (size_t i = 0; p->nprograms > 1 && i < p->nmappings; i++) {
		if (!p->mappings[i].is_main)
			continue;
		double own = 0;
		for (size_t j = 0; j < p->nsamples; j++) {
			const struct prof_sample *sa = &p->samples[j];
			own += p->locations[sa->locations[0]].mapping == i ?
				       sample_value(p, sa, ev->count) : 0;
		}
		if (own > best) {
			best = own;
			first = i;
		}
	}
	for (size_t k = 0; k < p->nmappings; k++) {
		size_t i = k == 0 ? first : k <= first ? k - 1 : k;
		const struct prof_mapping *mp = &p->mappings[i];
		uint64_t lo = lohi[2 * i], hi = lohi[2 * i + 1];
		if (lo > hi)
			lo = hi = 0;
		char hex[2 * 64 + 1] = "";
		for (size_t b = 0; b < mp->build_id_len && b < 64; b++)
			snprintf(hex + 2 * b, 3, "%02x", mp->build_id[b]);
		pb_uint(&sub, 1, i + 1);
		pb_uint(&sub, 2, lo);
		pb_uint(&sub, 3, hi);
		pb_uint(&sub, 5, st_intern(t, mp->path ? mp->path : ""));
		pb_uint(&sub, 6, st_intern(t, hex));
		pb_uint(&sub, 7, 1);
		pb_sub(m, 3, &sub);
	}
	free(lohi);

	/* location = 4: id 1, mapping_id 2, address 3, line 4 {function_id 1,
	 * line 2}, innermost first. */
	for (size_t i = 0; i < p->nlocations; i++) {
		const struct prof_location *lc = &p->locations[i];
		if (!usedloc[i])
			continue;
		pb_uint(&sub, 1, i + 1);
		pb_uint(&sub, 2, lc->mapping == SIZE_MAX ? 0 : lc->mapping + 1);
		pb_uint(&sub, 3, lc->address);
		for (size_t j = 0; j < lc->nlines; j++) {
			pb_uint(&pk, 1, lc->lines[j].function + 1);
			pb_uint(&pk, 2, (uint64_t)(lc->lines[j].line > 0 ? lc->lines[j].line : 0));
			pb_sub(&sub, 4, &pk);
		}
		pb_sub(m, 4, &sub);
	}

	/* function = 5: id 1, name 2, system_name 3, filename 4. */
	for (size_t i = 0; i < p->nfunctions; i++) {
		const struct prof_function *fn = &p->functions[i];
		if (!usedfn[i])
			continue;
		pb_uint(&sub, 1, i + 1);
		pb_uint(&sub, 2, st_intern(t, fn->name));
		/* A frame of prof's own ("[futex queue_lock, held by tid 42
		 * (holder)]", "[runnable]") has no symbol: no system_name, or
		 * pprof's demangling, which takes a name with brackets for C++,
		 * cuts its parenthesised words off the name (it leaves a
		 * function alone whose name and system_name differ). */
		pb_uint(&sub, 3, fn->name[0] == '[' ? 0
			      : st_intern(t, fn->system_name ? fn->system_name : fn->name));
		if (fn->filename)	/* filename 4: where --lines read DWARF */
			pb_uint(&sub, 4, st_intern(t, fn->filename));
		pb_sub(m, 5, &sub);
	}

	/* time_nanos = 9 (the run's start: to the nanosecond with SPAN or
	 * INTERVAL, else to the second the files' write times have), duration_nanos = 10 (its wall-clock span), period_type
	 * = 11, period = 12. */
	const struct prof_facts *fa = &p->facts;
	if (fa->cov && fa->cov->ntimes > 0)
		pb_uint(m, 9, (uint64_t)rounded(fa->cov->start_s * 1e9));
	if (fa->cov && fa->cov->nfacts > 0)
		pb_uint(m, 10, (uint64_t)rounded(fa->cov->elapsed_s * 1e9));
	value_type(m, &sub, t, 11, evt->type, evt->export_unit);
	double rate = prof_event_facts_of(p, o)->rate_hz;
	if (rate > 0)
		pb_uint(m, 12, (uint64_t)rounded(evt->export_scale / rate));

	/* comment = 13 (packed string indexes): the warnings, and what the
	 * arc samples are. */
	char line[1100];
	int arcs = 0;	/* said only where there are some (call counts, cc -pg) */
	for (size_t i = 0; i < p->nsamples && !arcs; i++)
		arcs = sample_value(p, &p->samples[i], PROF_VAL_ARC) != 0;
	if (arcs)
		pb_varint(&pk, st_intern(t, "monprof prof: arc-calls samples are {callee, caller} "
					 "arcs with their call counts and no time"));
	for (size_t i = 0; i < fa->nwarnings; i++) {
		snprintf(line, sizeof line, "warning: %s", fa->warnings[i].text);
		pb_varint(&pk, st_intern(t, line));
	}
	pb_sub(m, 13, &pk);

	/* default_sample_type = 14. */
	pb_uint(m, 14, st_intern(t, evt->type));

	/* string_table = 6, last: every string is known now. */
	for (size_t i = 0; i < t->n && !t->err; i++)
		pb_bytes(m, 6, t->s[i], strlen(t->s[i]));
	if (sub.err || pk.err || t->err)
		m->err = 1;
	free(sub.b);
	free(pk.b);
}

/* Gzips n bytes of d onto out.  0, or -1 with errno (ENOMEM, or EIO when
 * zlib fails otherwise). */
static int gzip_out(const unsigned char *d, size_t n, FILE *out)
{
	z_stream z;
	unsigned char buf[65536];
	memset(&z, 0, sizeof z);
	/* windowBits 15 + 16: a gzip header and trailer, not zlib's. */
	int rc = deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			      Z_DEFAULT_STRATEGY);
	if (rc != Z_OK) {
		errno = rc == Z_MEM_ERROR ? ENOMEM : EIO;
		return -1;
	}
	z.next_in = (unsigned char *)d;
	int flush = Z_NO_FLUSH;
	do {
		if (z.avail_in == 0) {
			size_t chunk = n > (1u << 30) ? (1u << 30) : n;
			z.next_in = (unsigned char *)d;
			z.avail_in = (uInt)chunk;
			d += chunk;
			n -= chunk;
			flush = n ? Z_NO_FLUSH : Z_FINISH;
		}
		z.next_out = buf;
		z.avail_out = sizeof buf;
		rc = deflate(&z, flush);
		if (rc == Z_STREAM_ERROR) {
			deflateEnd(&z);
			errno = EIO;
			return -1;
		}
		fwrite(buf, 1, sizeof buf - z.avail_out, out);
	} while (rc != Z_STREAM_END);
	deflateEnd(&z);
	return 0;
}

int prof_render_pprof(const struct prof_profile *p, const struct prof_opts *o, FILE *out)
{
	/* Sort and columns are the viewer's business; o->event chooses the
	 * default sample type. */
	struct pbuf m = { 0 };
	struct strtab t = { 0 };
	int rc = -1;
	/* Only the locations the samples name, and their functions (the
	 * model has a function for every symbol of every object). */
	unsigned char *usedloc = calloc(p->nlocations + 1, 1);
	unsigned char *usedfn = calloc(p->nfunctions + 1, 1);
	if (!usedloc || !usedfn) {
		free(usedloc);
		free(usedfn);
		errno = ENOMEM;
		return -1;
	}
	for (size_t i = 0; i < p->nsamples; i++)
		for (size_t j = 0; j < p->samples[i].nlocations; j++)
			usedloc[p->samples[i].locations[j]] = 1;
	for (size_t i = 0; i < p->nlocations; i++)
		for (size_t j = 0; usedloc[i] && j < p->locations[i].nlines; j++)
			usedfn[p->locations[i].lines[j].function] = 1;
	encode(p, o, &m, &t, usedloc, usedfn);
	free(usedloc);
	free(usedfn);
	if (m.err)
		errno = ENOMEM;
	else
		rc = gzip_out(m.b, m.n, out);
	free(m.b);
	st_free(&t);
	return rc;
}
