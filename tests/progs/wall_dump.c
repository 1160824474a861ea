/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wall_dump — print a mon.out file's WALL record (wall-clock samples) as
 * text lines, for the tests, through the format's one reader
 * (format/monout_read.c), until prof reads the record itself:
 *
 *   wall_dump FILE [SYMS]
 *
 * SYMS is `nm -n --defined-only` output of the profiled program: frames in
 * the main program are printed by function name, others as
 * BASENAME+0xOFFSET (ELF address in their object), or ? for no object.
 *   wall HAVE rate HZ rounds N missed N elapsed_us N user_us N sys_us N lost N unlisted N flags N
 *   thread TID name NAME expected N taken N unreadable N first_us N last_us N flags N
 *   wait ID kind K fd N fdkind K object OBJ offset 0xN owner TID flags N text TEXT
 *   sample COUNT tid TID state S syscall NAME wait ID flags N depth N set N frames F1;F2;... (leaf first)
 * Exit 0, or 1 with the reader's message on stderr.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monout.h"

struct sym {
	uint64_t addr;
	char name[128];
};
static struct sym *syms;
static size_t nsyms;

static void load_syms(const char *path)
{
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return;
	char line[512], type, name[256];
	unsigned long long a;
	size_t cap = 0;
	while (fgets(line, sizeof line, f)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, name) != 3)
			continue;
		if (type != 'T' && type != 't' && type != 'W' && type != 'w')
			continue;
		if (nsyms == cap) {
			cap = cap ? cap * 2 : 256;
			syms = realloc(syms, cap * sizeof *syms);
		}
		syms[nsyms].addr = a;
		snprintf(syms[nsyms].name, sizeof syms[nsyms].name, "%s", name);
		nsyms++;
	}
	fclose(f);
}

static const char *sym_of(uint64_t a)
{
	const char *best = NULL;
	for (size_t i = 0; i < nsyms && syms[i].addr <= a; i++)
		best = syms[i].name;
	return best;
}

static const char *state_name(uint32_t s)
{
	static const char *n[] = { "?", "running", "runnable", "blocked", "disk", "stopped", "other" };
	return s <= MONOUT_WALL_STATE_MAX ? n[s] : "?";
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: wall_dump FILE [SYMS]\n");
		return 2;
	}
	struct monout m;
	char err[256];
	if (monout_read_file(argv[1], &m, err, sizeof err) < 0) {
		fprintf(stderr, "wall_dump: %s: %s\n", argv[1], err);
		return 1;
	}
	if (argc > 2)
		load_syms(argv[2]);
	const struct monout_wall_head *h = &m.wall;
	printf("wall %d rate %u rounds %" PRIu64 " missed %" PRIu64 " elapsed_us %" PRIu64
	       " user_us %" PRIu64 " sys_us %" PRIu64 " lost %" PRIu64 " unlisted %u flags %u\n",
	       m.have_wall, h->rate_hz, h->rounds, h->missed, h->elapsed_usec, h->user_usec,
	       h->sys_usec, h->lost, h->threads_unlisted, h->flags);
	for (size_t i = 0; i < m.nwall_threads; i++) {
		const struct monout_wall_thread *t = &m.wall_threads[i];
		printf("thread %" PRIu64 " name %s expected %" PRIu64 " taken %" PRIu64
		       " unreadable %" PRIu64 " first_us %" PRIu64 " last_us %" PRIu64 " flags %u\n",
		       t->tid, t->name[0] ? t->name : "-", t->expected, t->taken, t->unreadable,
		       t->first_usec, t->last_usec, t->flags);
	}
	for (size_t i = 0; i < m.nwaits; i++) {
		const struct monout_wait *v = &m.waits[i];
		const char *obj = "-";
		if (v->object != MONOUT_NO_OBJECT) {
			const char *p = m.objects[v->object].path, *s = strrchr(p, '/');
			obj = s ? s + 1 : p;
		}
		const char *sym = "-";
		if (v->object == 0 && nsyms) {
			/* data symbols: look them up in the whole list */
			FILE *f = argc > 2 ? fopen(argv[2], "r") : NULL;
			static char best[256];
			unsigned long long a, ba = 0;
			char line[512], type, name[256];
			best[0] = '\0';
			while (f && fgets(line, sizeof line, f))
				if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 && a <= v->offset &&
				    a >= ba && strchr("bBdDrRgGsS", type)) {
					ba = a;
					snprintf(best, sizeof best, "%s", name);
				}
			if (f)
				fclose(f);
			if (best[0])
				sym = best;
		}
		printf("wait %zu kind %u fd %d fdkind %u object %s symbol %s offset 0x%" PRIx64
		       " owner %" PRIu64 " flags %u text %s\n",
		       i, v->kind, (int)v->fd, v->fd_kind, obj, sym, v->offset, v->owner, v->flags,
		       v->text_len ? v->text : "-");
	}
	for (size_t i = 0; i < m.nwall_samples; i++) {
		const struct monout_wall_sample *s = &m.wall_samples[i];
		const char *sc = s->syscall == MONOUT_NO_SYSCALL ? "-"
				 : monout_syscall_name(h->machine, s->syscall);
		char scbuf[16];
		if (sc == NULL) {
			snprintf(scbuf, sizeof scbuf, "%u", s->syscall);
			sc = scbuf;
		}
		printf("sample %" PRIu64 " tid %" PRIu64 " state %s syscall %s wait %d flags %u depth %u "
		       "set %u frames ",
		       s->count, s->tid, state_name(s->state), sc,
		       s->wait == MONOUT_NO_WAIT ? -1 : (int)s->wait, s->flags, s->depth, s->set);
		for (uint32_t d = 0; d < s->depth; d++) {
			uint64_t pc = s->pcs[d];
			const char *name = NULL;
			size_t k = 0;
			for (; k < m.nobjects; k++)
				if (pc >= m.objects[k].text_lo && pc < m.objects[k].text_hi)
					break;
			if (k < m.nobjects && (m.objects[k].flags & MONOUT_OBJ_MAIN))
				name = sym_of(pc - m.objects[k].load_bias);
			if (name)
				printf("%s%s", d ? ";" : "", name);
			else if (k < m.nobjects) {
				const char *p = m.objects[k].path, *b = strrchr(p, '/');
				printf("%s%s+0x%" PRIx64, d ? ";" : "", b ? b + 1 : p,
				       pc - m.objects[k].load_bias);
			} else
				printf("%s?", d ? ";" : "");
		}
		printf("%s\n", s->depth ? "" : "-");
	}
	monout_free(&m);
	return 0;
}
