/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * lines.c — source lines for the model (prof --lines, --annotate), from
 * the objects' DWARF through elfutils' libdw.
 *
 * Each location in an object gets the lines libdw gives for its address
 * (an ELF vaddr, which is what DWARF's addresses are, in the object or its
 * separate debug file, found by prof_dwfl_offline: libdwfl's standard
 * search, by build ID under /usr/lib/debug, .gnu_debuglink, debuginfod when
 * DEBUGINFOD_URLS is set, the one symtab.c's names come from too): the
 * line table's row for the address, and the
 * scopes around it (dwarf_getscopes) from the innermost inlined subroutine
 * out to the subprogram.  The location's lines are then innermost first, as
 * pprof's Location.line and perf's inline frames are: the function inlined
 * deepest, at the line the address has; then the function it was inlined
 * into, at the line of that call (DW_AT_call_line); ... then the
 * location's own function (the symbol's, kept as the outermost line) at the
 * call line there.  Functions that were only inlined (no symbol) become
 * functions of the model, once per (name, object).  Each function gets the
 * source file DWARF names for it (made absolute with the compilation unit's
 * DW_AT_comp_dir when relative).  An address DWARF does not cover keeps
 * its one line, line 0.
 *
 * With --lines (PROF_LINES_SPLIT), every (function, line) then becomes
 * a function of its own, named "file.c:123 function" (the file's last path
 * component), so that every renderer's rows, frames and nodes are source
 * lines; a line not known stays the function's name.  For callgrind's
 * format (PROF_LINES_OUTER) only the location's own function is kept, at
 * its line there and with its file, so that the functions and their costs
 * stay prof's flat profile's, as valgrind's own files attribute inlined
 * code to the function it was inlined into.
 */
#include "prof.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAXCHAIN 64

struct modinfo {
	Dwfl *dwfl;
	Dwarf *dw;
	int tried;
};

struct Dwfl *prof_dwfl_offline(const char *path, struct Dwfl_Module **mod)
{
	static const Dwfl_Callbacks cb = {
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
	};
	*mod = NULL;
	Dwfl *dwfl = dwfl_begin(&cb);
	if (dwfl == NULL)
		return NULL;
	*mod = dwfl_report_offline(dwfl, path, path, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	if (*mod == NULL) {
		dwfl_end(dwfl);
		return NULL;
	}
	return dwfl;
}

static Dwarf *dwarf_of(struct modinfo *m, const char *path)
{
	if (m->tried)
		return m->dw;
	m->tried = 1;
	Dwfl_Module *mod;
	if (path == NULL || path[0] == '[' || !(m->dwfl = prof_dwfl_offline(path, &mod)))
		return NULL;
	Dwarf_Addr bias;
	m->dw = dwfl_module_getdwarf(mod, &bias);
	return m->dw;
}

struct frame {
	const char *name, *file;
	int line;
};

/* The inline chain at addr, innermost first, into out; its count. */
static int chain_at(Dwarf *dw, uint64_t addr, struct frame *out, const char **compdir)
{
	Dwarf_Die cu;
	Dwarf_Attribute at;
	*compdir = NULL;
	if (!dwarf_addrdie(dw, addr, &cu))
		return 0;
	if (dwarf_attr(&cu, DW_AT_comp_dir, &at))
		*compdir = dwarf_formstring(&at);
	Dwarf_Line *ln = dwarf_getsrc_die(&cu, addr);
	const char *file = ln ? dwarf_linesrc(ln, NULL, NULL) : NULL;
	int line = 0;
	if (ln && dwarf_lineno(ln, &line) != 0)
		line = 0;
	/* Split DWARF (-gsplit-dwarf; DWARF 5, section 3.1.2 "Skeleton
	 * Compilation Unit"): the line table is the skeleton's, the DIE tree
	 * (subprograms, inlined subroutines, their call files) is the split
	 * unit's, in the .dwo file libdw finds by the skeleton's DW_AT_dwo_name
	 * and DW_AT_comp_dir (dwarf_cu_info gives it as subdie).  libdw 0.188,
	 * Debian 12's, reads .dwo files; it reads .dwp packages from 0.191. */
	Dwarf_Die tree = cu, split;
	uint8_t unit_type = 0;
	if (dwarf_cu_info(cu.cu, NULL, &unit_type, NULL, &split, NULL, NULL, NULL) == 0 &&
	    unit_type == DW_UT_skeleton && dwarf_tag(&split) == DW_TAG_compile_unit)
		tree = split;
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	if (dwarf_getsrcfiles(&tree, &files, &nfiles) != 0)
		files = NULL;
	/* dwarf_getscopes stops at an inlined subroutine's own scopes (the
	 * abstract tree); the callers are the scopes around that DIE in the
	 * concrete tree, dwarf_getscopes_die (as eu-addr2line -i walks them). */
	Dwarf_Die *scopes = NULL;
	int ns = dwarf_getscopes(&tree, addr, &scopes), n = 0;
	for (int i = 0; i < ns && n < MAXCHAIN; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		const char *name = NULL;
		if (dwarf_attr_integrate(&scopes[i], DW_AT_name, &at))
			name = dwarf_formstring(&at);
		out[n++] = (struct frame){ name ? name : "??", file, line };
		if (tag == DW_TAG_subprogram)
			break;
		Dwarf_Word v;
		file = NULL;
		line = 0;
		if (files && dwarf_attr(&scopes[i], DW_AT_call_file, &at) &&
		    dwarf_formudata(&at, &v) == 0 && v < nfiles)
			file = dwarf_filesrc(files, v, NULL, NULL);
		if (dwarf_attr(&scopes[i], DW_AT_call_line, &at) && dwarf_formudata(&at, &v) == 0)
			line = (int)v;
		Dwarf_Die *outer = NULL;
		int no = dwarf_getscopes_die(&scopes[i], &outer);
		free(scopes);
		scopes = outer;
		ns = no;
		i = 0;	/* outer[0] is the inlined subroutine itself */
	}
	free(scopes);
	if (n == 0 && ln) {	/* a line but no scope: the location's own function */
		out[0] = (struct frame){ NULL, file, line };
		n = 1;
	}
	return n;
}

/* ---- the profile's own strings and functions ------------------------------ */

static char *keep(struct prof_profile *p, const char *s)
{
	char **ne = realloc(p->extra, (p->nextra + 1) * sizeof *ne);
	if (!ne)
		return NULL;
	p->extra = ne;
	char *c = strdup(s);
	if (c)
		p->extra[p->nextra++] = c;
	return c;
}

struct fntab {
	size_t *slot;
	size_t cap;
};

static size_t fn_hash(const char *name, size_t mapping)
{
	uint64_t h = 1469598103934665603ull ^ mapping;
	for (const unsigned char *s = (const unsigned char *)name; *s; s++)
		h = (h ^ *s) * 1099511628211ull;
	return (size_t)(h ^ (h >> 31));
}

static int tab_add(struct fntab *t, const struct prof_profile *p, size_t fn)
{
	if ((p->nfunctions + 1) * 2 > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;
		while (cap < (p->nfunctions + 1) * 2)
			cap *= 2;
		size_t *s = malloc(cap * sizeof *s);
		if (!s)
			return -1;
		for (size_t i = 0; i < cap; i++)
			s[i] = SIZE_MAX;
		free(t->slot);
		t->slot = s;
		t->cap = cap;
		for (size_t i = 0; i < p->nfunctions; i++)
			if (i != fn)
				tab_add(t, p, i);
	}
	size_t k = fn_hash(p->functions[fn].name, p->functions[fn].mapping) & (t->cap - 1);
	while (t->slot[k] != SIZE_MAX)
		k = (k + 1) & (t->cap - 1);
	t->slot[k] = fn;
	return 0;
}

static size_t tab_find(const struct fntab *t, const struct prof_profile *p, const char *name,
		       size_t mapping)
{
	if (!t->cap)
		return SIZE_MAX;
	for (size_t k = fn_hash(name, mapping) & (t->cap - 1); t->slot[k] != SIZE_MAX;
	     k = (k + 1) & (t->cap - 1)) {
		const struct prof_function *f = &p->functions[t->slot[k]];
		if (f->mapping == mapping && strcmp(f->name, name) == 0)
			return t->slot[k];
	}
	return SIZE_MAX;
}

/* A function (name, mapping) like model (kind, range), made if new. */
static size_t fn_get(struct prof_profile *p, struct fntab *t, size_t *cap, const char *name,
		     size_t mapping, const struct prof_function *model)
{
	size_t f = tab_find(t, p, name, mapping);
	if (f != SIZE_MAX)
		return f;
	if (p->nfunctions == *cap) {
		size_t nc = *cap * 2 + 16;
		struct prof_function *nf = realloc(p->functions, nc * sizeof *nf);
		if (!nf)
			return SIZE_MAX;
		p->functions = nf;
		*cap = nc;
	}
	const char *kept = keep(p, name);
	if (!kept)
		return SIZE_MAX;
	p->functions[p->nfunctions] = (struct prof_function){
		.kind = PROF_FN_FUNC, .name = kept, .mapping = mapping,
		.start = model ? model->start : 0, .size = model ? model->size : 0,
		.filename = model ? model->filename : NULL };
	if (tab_add(t, p, p->nfunctions) < 0)
		return SIZE_MAX;
	return p->nfunctions++;
}

static const char *abs_file(struct prof_profile *p, const char *file, const char *compdir)
{
	if (!file)
		return NULL;
	if (file[0] == '/' || !compdir)
		return keep(p, file);
	while (file[0] == '.' && file[1] == '/')	/* "./x.c": x.c of compdir */
		file += 2;
	char *b;
	if (asprintf(&b, "%s/%s", compdir, file) < 0)
		return NULL;
	const char *k = keep(p, b);
	free(b);
	return k;
}

int profile_lines(struct prof_profile *p, int mode)
{
	int split = mode == PROF_LINES_SPLIT;
	struct modinfo *mods = calloc(p->nmappings ? p->nmappings : 1, sizeof *mods);
	struct prof_line *pool = NULL;
	size_t npool = 0, poolcap = 0, fcap = p->nfunctions;
	size_t *at = malloc((p->nlocations ? p->nlocations : 1) * 2 * sizeof *at);
	struct fntab t = { NULL, 0 };
	int rc = -1;
	if (!mods || !at)
		goto out;
	for (size_t i = 0; i < p->nfunctions; i++)
		if (tab_add(&t, p, i) < 0)
			goto out;
	for (size_t i = 0; i < p->nlocations; i++) {
		struct prof_location *l = &p->locations[i];
		struct frame fr[MAXCHAIN];
		const char *compdir = NULL;
		int n = 0;
		size_t own = l->lines[l->nlines - 1].function;
		const struct prof_function *of = &p->functions[own];
		if (l->mapping < p->nmappings && of->kind != PROF_FN_OBJECT &&
		    of->kind != PROF_FN_UNKNOWN) {
			Dwarf *dw = dwarf_of(&mods[l->mapping], p->mappings[l->mapping].path);
			if (dw)
				n = chain_at(dw, l->address, fr, &compdir);
		}
		if (npool + (size_t)(n ? n : (int)l->nlines) > poolcap) {
			size_t nc = poolcap * 2 + MAXCHAIN + l->nlines;
			struct prof_line *np = realloc(pool, nc * sizeof *np);
			if (!np)
				goto out;
			pool = np;
			poolcap = nc;
		}
		at[2 * i] = npool;
		if (n == 0) {
			memcpy(pool + npool, l->lines, l->nlines * sizeof *pool);
			npool += l->nlines;
			at[2 * i + 1] = l->nlines;
			continue;
		}
		for (int k = mode == PROF_LINES_OUTER ? n - 1 : 0; k < n; k++) {
			size_t fn = own;
			if (k < n - 1 && fr[k].name) {
				fn = fn_get(p, &t, &fcap, fr[k].name, l->mapping, NULL);
				if (fn == SIZE_MAX)
					goto out;
			}
			if (!p->functions[fn].filename && fr[k].file) {
				if (!(p->functions[fn].filename = abs_file(p, fr[k].file, compdir)))
					goto out;
			}
			pool[npool++] = (struct prof_line){ fn, fr[k].line };
		}
		at[2 * i + 1] = mode == PROF_LINES_OUTER ? 1 : (size_t)n;
	}

	if (split) {
		/* Every (function, line) a function named "file:line name". */
		for (size_t k = 0; k < npool; k++) {
			struct prof_line *ln = &pool[k];
			if (ln->line <= 0)
				continue;
			const struct prof_function *f = &p->functions[ln->function];
			const char *file = f->filename ? f->filename : "??";
			const char *base = strrchr(file, '/');
			char *name;
			if (asprintf(&name, "%s:%lld %s", base ? base + 1 : file, (long long)ln->line,
				     f->name) < 0)
				goto out;
			struct prof_function model = *f;
			size_t fn = fn_get(p, &t, &fcap, name, f->mapping, &model);
			free(name);
			if (fn == SIZE_MAX)
				goto out;
			p->functions[fn].kind = model.kind;
			p->functions[fn].system_name = model.system_name;
			p->functions[fn].version = model.version;
			ln->function = fn;
		}
	}

	free(p->linepool);
	p->linepool = pool;
	pool = NULL;
	for (size_t i = 0; i < p->nlocations; i++) {
		p->locations[i].lines = p->linepool + at[2 * i];
		p->locations[i].nlines = at[2 * i + 1];
	}
	rc = 0;
out:
	for (size_t i = 0; mods && i < p->nmappings; i++)
		if (mods[i].dwfl)
			dwfl_end(mods[i].dwfl);
	free(mods);
	free(pool);
	free(at);
	free(t.slot);
	if (rc < 0)
		errno = ENOMEM;
	return rc;
}
