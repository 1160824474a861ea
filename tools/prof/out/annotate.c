/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * annotate.c — prof --annotate=FUNCTION: one function's source lines with
 * the samples at each, as perf annotate, gprof -l -A and pprof's list show
 * them; its disassembly where the source is missing.
 *
 * Reads the model after lines.c gave it lines (profile_lines without
 * split).  The samples are of the event --sample asks for.  CPU samples (the
 * default) count as perf annotate counts them, where the CPU was: a sample
 * counts for FUNCTION when FUNCTION is one of the frames of its leaf
 * location (the symbol's own code, or code inlined into it, or it inlined
 * elsewhere), at the line that frame has, which for code inlined into
 * FUNCTION is the line of the call.  Wall-clock and off-CPU samples count
 * where in FUNCTION its threads stood or waited, in it or below it (a
 * thread blocked in read(2) is never in its caller's own code): at
 * FUNCTION's innermost frame in the sample's stack, the line (or
 * instruction) of the call it was in.  The source file is the
 * one DWARF names for the function (made absolute with the compilation
 * directory by lines.c).  Lines are printed from three before the first
 * line with samples to three after the last, each with its samples and its
 * percent of the function's samples.
 *
 * Without the source (or without a line table), the function's bytes are
 * read from its object (libelf: the section that holds its address range)
 * and disassembled with Capstone (x86-64, i386, AArch64), each instruction
 * with the samples whose address falls in it.
 */
#include "out.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A sample count v, width wide: whole without decimals; a share of a
 * sample (wall-clock samples placed on a running thread's CPU stacks, a
 * bin's samples split between a function and the padding after it) with
 * two. */
static void put_count(FILE *out, int width, double v)
{
	if (v == floor(v) && v < 1e15)
		fprintf(out, "%*.0f", width, v);
	else
		fprintf(out, "%*.2f", width, v);
}

/* A sample's leaf code location: its first, or for a wall-clock sample
 * the one below its wait frame (where the thread stood). */
static const struct prof_location *code_leaf(const struct prof_profile *p,
					     const struct prof_sample *s)
{
	size_t k = 0;
	while (k + 1 < s->nlocations &&
	       p->functions[p->locations[s->locations[k]].lines[0].function].kind == PROF_FN_WAIT)
		k++;
	return &p->locations[s->locations[k]];
}

static int matches(const struct prof_function *f, const char *name)
{
	return strcmp(f->name, name) == 0 || (f->system_name && strcmp(f->system_name, name) == 0);
}

/* The frame of s that counts for the function: by name (name != NULL) on
 * any of a location's lines, else by index fn as a location's last line
 * (the symbol's own code).  The code leaf only, or (below) the innermost
 * location from the code leaf out.  Sets *line to the matching line's
 * index in the location; NULL when none matches. */
static const struct prof_location *frame_of(const struct prof_profile *p,
					    const struct prof_sample *s, int below,
					    const char *name, size_t fn, size_t *line)
{
	const struct prof_location *leaf = code_leaf(p, s);
	size_t from = (size_t)(leaf - p->locations), j = 0;
	while (j < s->nlocations && s->locations[j] != from)
		j++;
	if (j == s->nlocations)
		return NULL;
	for (size_t end = below ? s->nlocations : j + 1; j < end; j++) {
		const struct prof_location *l = &p->locations[s->locations[j]];
		for (size_t k = 0; k < l->nlines; k++) {
			if (name ? !matches(&p->functions[l->lines[k].function], name)
				 : k != l->nlines - 1 || l->lines[k].function != fn)
				continue;
			*line = k;
			return l;
		}
	}
	return NULL;
}

/* The function's bytes from its object, malloc'd into *buf; its machine. */
static int read_bytes(const char *path, uint64_t start, uint64_t size, unsigned char **buf,
		      size_t *len, int *machine)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1;
	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	GElf_Ehdr eh;
	if (!e || !gelf_getehdr(e, &eh))
		goto out;
	*machine = eh.e_machine;
	for (Elf_Scn *s = NULL; (s = elf_nextscn(e, s)) != NULL;) {
		GElf_Shdr sh;
		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || start < sh.sh_addr ||
		    start >= sh.sh_addr + sh.sh_size)
			continue;
		Elf_Data *d = elf_getdata(s, NULL);
		if (!d || !d->d_buf)
			break;
		uint64_t off = start - sh.sh_addr, n = size;
		if (off + n > d->d_size)
			n = d->d_size - off;
		if (!(*buf = malloc(n ? n : 1)))
			break;
		memcpy(*buf, (unsigned char *)d->d_buf + off, n);
		*len = n;
		rc = 0;
		break;
	}
out:
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}

/* FUNCTION's instructions with their samples (sample type vs). */
static int disassemble(const struct prof_profile *p, int vs, int below, const char *name,
		       size_t fn, double fsum, FILE *out)
{
	const struct prof_function *f = &p->functions[fn];
	unsigned char *code = NULL;
	size_t len = 0;
	int machine = 0;
	if (f->mapping >= p->nmappings || f->size == 0 ||
	    read_bytes(p->mappings[f->mapping].path, f->start, f->size, &code, &len, &machine) < 0) {
		fprintf(out, "(neither the source nor the code of %s can be read)\n", name);
		return 0;
	}
	csh h;
	cs_arch arch = machine == EM_AARCH64 ? CS_ARCH_ARM64 : CS_ARCH_X86;
	cs_mode mode = machine == EM_386 ? CS_MODE_32 : machine == EM_AARCH64 ? CS_MODE_ARM
									      : CS_MODE_64;
	if ((machine != EM_X86_64 && machine != EM_386 && machine != EM_AARCH64) ||
	    cs_open(arch, mode, &h) != CS_ERR_OK) {
		fprintf(out, "(no disassembler for machine %d)\n", machine);
		free(code);
		return 0;
	}
	cs_insn *insn = NULL;
	size_t n = cs_disasm(h, code, len, f->start, 0, &insn);
	double *at = calloc(n ? n : 1, sizeof *at);
	if (!at) {
		cs_free(insn, n);
		cs_close(&h);
		free(code);
		errno = ENOMEM;
		return -1;
	}
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];
		size_t k;
		const struct prof_location *l = s->value[vs] > 0 ? frame_of(p, s, below, NULL, fn, &k)
								 : NULL;
		if (!l)
			continue;
		size_t lo = 0, hi = n;	/* the last instruction at or before the address */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (insn[mid].address <= l->address)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo > 0)
			at[lo - 1] += s->value[vs];
	}
	fprintf(out, " Samples  Percent  Address  Instruction   (disassembly: no source)\n");
	for (size_t i = 0; i < n; i++) {
		if (at[i] > 0) {
			put_count(out, 8, at[i]);
			fprintf(out, " %7.2f%%", fsum > 0 ? 100.0 * at[i] / fsum : 0);
		} else
			fprintf(out, "%8s %8s", ".", ".");
		fprintf(out, " %8llx:  %s %s\n", (unsigned long long)insn[i].address, insn[i].mnemonic,
			insn[i].op_str);
	}
	free(at);
	cs_free(insn, n);
	cs_close(&h);
	free(code);
	return 0;
}

int prof_annotate(const struct prof_profile *p, const struct prof_opts *o, const char *name,
		  FILE *out)
{
	int vs = prof_event_of(p, o)->count, below = o->event != PROF_EV_CPU;
	/* Samples by line of FUNCTION's frame. */
	int64_t lmin = INT64_MAX, lmax = 0;
	double fsum = 0, total = 0, *byline = NULL;
	size_t fn = SIZE_MAX, own = SIZE_MAX;
	for (size_t i = 0; i < p->nfunctions; i++)
		if (matches(&p->functions[i], name) && (fn == SIZE_MAX || !p->functions[fn].filename))
			fn = i;
	if (fn == SIZE_MAX)
		return 1;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < p->nsamples; i++) {
			const struct prof_sample *s = &p->samples[i];
			double v = s->value[vs];
			if (!(v > 0))
				continue;
			if (pass == 0)
				total += v;
			size_t k;
			const struct prof_location *l = frame_of(p, s, below, name, 0, &k);
			if (!l)
				continue;
			int64_t ln = l->lines[k].line;
			if (pass == 0) {
				fsum += v;
				if (ln > 0 && ln < lmin)
					lmin = ln;
				if (ln > lmax)
					lmax = ln;
				if (k == l->nlines - 1)
					own = l->lines[k].function;
			} else if (ln > 0) {
				byline[ln - lmin] += v;
			}
		}
		if (pass == 0) {
			if (lmin == INT64_MAX)
				break;
			if (!(byline = calloc((size_t)(lmax - lmin + 1), sizeof *byline))) {
				errno = ENOMEM;
				return -1;
			}
		}
	}
	const struct prof_function *f = &p->functions[fn];
	fprintf(out, "%s: ", name);
	put_count(out, 0, fsum);
	fprintf(out, " samples%s, %.2f%% of all ", below ? " in or below it" : "",
		total > 0 ? 100.0 * fsum / total : 0);
	put_count(out, 0, total);
	if (f->mapping < p->nmappings)
		fprintf(out, ", in %s", p->mappings[f->mapping].path);
	FILE *src = f->filename && byline ? fopen(f->filename, "r") : NULL;
	if (f->filename)
		fprintf(out, "; source %s%s", f->filename, src ? "" : " (not found)");
	fputc('\n', out);
	if (!src) {
		free(byline);
		/* The symbol's own code: the function as named, or the symbol
		 * its samples' locations belong to. */
		return disassemble(p, vs, below, name, own != SIZE_MAX ? own : fn, fsum, out);
	}
	fprintf(out, " Samples  Percent   Line  Source\n");
	char *line = NULL;
	size_t cap = 0;
	int64_t from = lmin > 3 ? lmin - 3 : 1, to = lmax + 3;
	for (int64_t no = 1; getline(&line, &cap, src) > 0 && no <= to; no++) {
		if (no < from)
			continue;
		line[strcspn(line, "\n")] = '\0';
		double v = no >= lmin && no <= lmax ? byline[no - lmin] : 0;
		if (v > 0) {
			put_count(out, 8, v);
			fprintf(out, " %7.2f%%", fsum > 0 ? 100.0 * v / fsum : 0);
		} else
			fprintf(out, "%8s %8s", ".", ".");
		fprintf(out, " %6lld  %s\n", (long long)no, line);
	}
	free(line);
	fclose(src);
	free(byline);
	return 0;
}
