/*
 * symtab.c — an object's function symbols, read through elfutils' libelf.
 *
 * prof attributes time to functions, so from each ELF object it needs the
 * addresses (link-time vaddrs), sizes and names of the function symbols,
 * the extent of its executable sections (code outside any function is shown
 * as [object]+0xoffset, never dropped) and its GNU build ID (to make sure
 * the file on disk is the one that ran).
 *
 * Where the symbols come from, best first:
 *   1. the object's own .symtab (every function, local ones included);
 *   2. a separate debug file found by build ID under /usr/lib/debug/
 *      .build-id/xx/yyyy.debug (Debian's -dbg packages: libc6-dbg), which
 *      keeps the full .symtab of a stripped library;
 *   3. the dynamic symbol table .dynsym (exported functions only) of a
 *      stripped object.
 *
 * Qualifying symbols: STT_FUNC, STT_GNU_IFUNC, and STT_NOTYPE labels, defined
 * in an allocated executable section; bindings global and weak (gprof also
 * counts weak symbols as functions; System V prof dropped them, which hid
 * real code), and local unless the caller asks for globals only (-l).
 * Assembler-local labels (.L*) and mapping symbols ($x, $d) are not
 * functions.  Several symbols at one address (aliases such as malloc and
 * __libc_malloc) become one entry named by the most public spelling.
 *
 * Every value read from the file is range-checked: a truncated or hostile
 * ELF gives an error or fewer symbols, never a crash.
 */
#include "prof.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

#define DEBUG_ROOT "/usr/lib/debug/.build-id/"

void prof_hex(const unsigned char *id, size_t len, char *buf)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < len; i++) {
		buf[2 * i] = digits[id[i] >> 4];
		buf[2 * i + 1] = digits[id[i] & 15];
	}
	buf[2 * len] = '\0';
}

static void seterr(char *err, size_t errlen, const char *msg)
{
	snprintf(err, errlen, "%s", msg);
}

/* An open ELF file: fd plus libelf handle. */
struct elffile {
	int fd;
	Elf *elf;
};

static int elf_open_file(const char *path, struct elffile *f, char *err, size_t errlen)
{
	f->fd = -1;
	f->elf = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		seterr(err, errlen, "libelf is out of date");
		return -1;
	}
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0) {
		seterr(err, errlen, strerror(errno));
		return -1;
	}
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (f->elf == NULL || elf_kind(f->elf) != ELF_K_ELF) {
		seterr(err, errlen, "not an ELF file");
		goto fail;
	}
	GElf_Ehdr eh;
	if (gelf_getehdr(f->elf, &eh) == NULL) {
		seterr(err, errlen, "truncated or corrupt ELF header");
		goto fail;
	}
	return 0;
fail:
	if (f->elf)
		elf_end(f->elf);
	close(f->fd);
	f->elf = NULL;
	f->fd = -1;
	return -1;
}

static void elf_close_file(struct elffile *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	f->elf = NULL;
	f->fd = -1;
}

/* Looks for an NT_GNU_BUILD_ID note in data; copies it to im. */
static int note_build_id(Elf_Data *data, struct prof_image *im)
{
	if (data == NULL)
		return 0;
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;
	while (off < data->d_size &&
	       (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp((const char *)data->d_buf + name_off, "GNU", 4) == 0 &&
		    nh.n_descsz > 0 && nh.n_descsz <= sizeof im->build_id) {
			memcpy(im->build_id, (const char *)data->d_buf + desc_off, nh.n_descsz);
			im->build_id_len = nh.n_descsz;
			return 1;
		}
	}
	return 0;
}

/* Build ID from note sections, else from PT_NOTE segments. */
static void read_build_id(Elf *elf, struct prof_image *im)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_NOTE)
			continue;
		if (note_build_id(elf_getdata(scn, NULL), im))
			return;
	}
	size_t nph;
	if (elf_getphdrnum(elf, &nph) != 0)
		return;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) == NULL || ph.p_type != PT_NOTE)
			continue;
		Elf_Data *d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
						   ELF_T_NHDR);
		if (note_build_id(d, im))
			return;
	}
}

static void fill_ident(Elf *elf, struct prof_image *im)
{
	GElf_Ehdr eh;
	gelf_getehdr(elf, &eh);
	im->elf64 = eh.e_ident[EI_CLASS] == ELFCLASS64;
	im->big = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	im->etype = eh.e_type;
}

static char *label_of(const char *path)
{
	const char *b = strrchr(path, '/');
	return strdup(b && b[1] ? b + 1 : path);
}

int symtab_probe(const char *path, struct prof_image *im, char *err, size_t errlen)
{
	struct elffile f;
	memset(im, 0, sizeof *im);
	if (elf_open_file(path, &f, err, errlen) < 0)
		return -1;
	fill_ident(f.elf, im);
	read_build_id(f.elf, im);
	elf_close_file(&f);
	im->path = strdup(path);
	im->label = label_of(path);
	if (!im->path || !im->label) {
		symtab_free(im);
		seterr(err, errlen, strerror(ENOMEM));
		return -1;
	}
	return 0;
}

/* ---- collecting symbols ---------------------------------------------------- */

struct rawsym {
	uint64_t addr, size;
	size_t name;		/* offset into the string pool */
	unsigned char bind;
};

struct collect {
	struct rawsym *v;
	size_t n, cap;
	char *pool;
	size_t plen, pcap;
};

static int pool_add(struct collect *c, const char *s, size_t *off)
{
	size_t l = strlen(s) + 1;
	if (c->plen + l > c->pcap) {
		size_t ncap = c->pcap ? c->pcap * 2 : 65536;
		while (ncap < c->plen + l)
			ncap *= 2;
		char *np = realloc(c->pool, ncap);
		if (!np)
			return -1;
		c->pool = np;
		c->pcap = ncap;
	}
	memcpy(c->pool + c->plen, s, l);
	*off = c->plen;
	c->plen += l;
	return 0;
}

/* Exec flags of each section of elf, indexed by section number. */
static unsigned char *exec_sections(Elf *elf, size_t *nsec)
{
	if (elf_getshdrnum(elf, nsec) != 0)
		return NULL;
	unsigned char *x = calloc(*nsec ? *nsec : 1, 1);
	if (!x)
		return NULL;
	for (size_t i = 1; i < *nsec; i++) {
		Elf_Scn *scn = elf_getscn(elf, i);
		GElf_Shdr sh;
		if (scn && gelf_getshdr(scn, &sh) &&
		    (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) == (SHF_ALLOC | SHF_EXECINSTR))
			x[i] = 1;
	}
	return x;
}

/* Reads the symbols of the first section of type 'type' in elf; returns the
 * number of qualifying symbols added, or -1 on allocation failure. */
static long collect_syms(Elf *elf, unsigned type, int locals, struct collect *c)
{
	size_t nsec;
	unsigned char *isexec = exec_sections(elf, &nsec);
	if (!isexec)
		return 0;
	long added = 0;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != type)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		if (data == NULL || sh.sh_entsize == 0)
			break;
		size_t n = data->d_size / (sh.sh_entsize ? sh.sh_entsize : 1);
		for (size_t i = 1; i < n; i++) {
			GElf_Sym s;
			if (gelf_getsym(data, (int)i, &s) == NULL)
				break;
			unsigned t = GELF_ST_TYPE(s.st_info), b = GELF_ST_BIND(s.st_info);
			if (t != STT_FUNC && t != STT_GNU_IFUNC && t != STT_NOTYPE)
				continue;
			if (b == STB_LOCAL ? !locals : (b != STB_GLOBAL && b != STB_WEAK))
				continue;
			if (s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE ||
			    s.st_shndx >= nsec || !isexec[s.st_shndx])
				continue;
			const char *name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (name == NULL || name[0] == '\0' || name[0] == '$' ||
			    (name[0] == '.' && name[1] == 'L'))
				continue;
			if (c->n == c->cap) {
				size_t ncap = c->cap ? c->cap * 2 : 1024;
				struct rawsym *nv = realloc(c->v, ncap * sizeof *nv);
				if (!nv)
					goto nomem;
				c->v = nv;
				c->cap = ncap;
			}
			struct rawsym *r = &c->v[c->n];
			if (pool_add(c, name, &r->name) < 0)
				goto nomem;
			r->addr = s.st_value;
			r->size = t == STT_NOTYPE ? 0 : s.st_size;
			r->bind = (unsigned char)b;
			c->n++;
			added++;
		}
		break;
	}
	free(isexec);
	return added;
nomem:
	free(isexec);
	return -1;
}

static int has_section(Elf *elf, unsigned type)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type && sh.sh_size > 0)
			return 1;
	}
	return 0;
}

/* Rank of a name among synonyms: lower is more public. */
static unsigned syn_rank(const struct rawsym *r, const char *pool)
{
	const char *n = pool + r->name;
	unsigned under = 0;
	while (n[under] == '_')
		under++;
	unsigned b = r->bind == STB_GLOBAL ? 0 : r->bind == STB_WEAK ? 1 : 2;
	return b * 16 + (under > 15 ? 15 : under);
}

static int cmp_raw(const void *x, const void *y)
{
	const struct rawsym *a = x, *b = y;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return 0;
}

static int cmp_text(const void *x, const void *y)
{
	const uint64_t *a = x, *b = y;
	return a[0] < b[0] ? -1 : a[0] > b[0];
}

static void read_texts(Elf *elf, struct prof_image *im)
{
	size_t n = 0, cap = 0;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) == NULL ||
		    (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) != (SHF_ALLOC | SHF_EXECINSTR) ||
		    sh.sh_size == 0 || sh.sh_addr + sh.sh_size < sh.sh_addr)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			void *nt = realloc(im->texts, cap * sizeof *im->texts);
			if (!nt)
				return;
			im->texts = nt;
		}
		im->texts[n].lo = sh.sh_addr;
		im->texts[n].hi = sh.sh_addr + sh.sh_size;
		n++;
	}
	im->ntexts = n;
	if (n > 1)
		qsort(im->texts, n, sizeof *im->texts, cmp_text);
}

int symtab_load(const char *path, int locals, struct prof_image *im, char *err, size_t errlen)
{
	struct elffile f, dbg = { -1, NULL };
	struct collect c = { 0 };
	memset(im, 0, sizeof *im);
	if (elf_open_file(path, &f, err, errlen) < 0)
		return -1;
	fill_ident(f.elf, im);
	read_build_id(f.elf, im);
	read_texts(f.elf, im);
	im->path = strdup(path);
	im->label = label_of(path);
	if (!im->path || !im->label)
		goto nomem;

	long got = 0;
	if (has_section(f.elf, SHT_SYMTAB)) {
		got = collect_syms(f.elf, SHT_SYMTAB, locals, &c);
		im->from = PROF_SYMS_SYMTAB;
	} else {
		if (im->build_id_len >= 2) {
			char hex[sizeof im->build_id * 2 + 1];
			prof_hex(im->build_id, im->build_id_len, hex);
			char dpath[sizeof DEBUG_ROOT + sizeof hex + 8];
			snprintf(dpath, sizeof dpath, "%s%.2s/%s.debug", DEBUG_ROOT, hex, hex + 2);
			char derr[128];
			if (elf_open_file(dpath, &dbg, derr, sizeof derr) == 0 &&
			    has_section(dbg.elf, SHT_SYMTAB)) {
				got = collect_syms(dbg.elf, SHT_SYMTAB, locals, &c);
				im->from = PROF_SYMS_DEBUG;
			}
		}
		if (im->from == PROF_SYMS_NONE && has_section(f.elf, SHT_DYNSYM)) {
			got = collect_syms(f.elf, SHT_DYNSYM, locals, &c);
			im->from = PROF_SYMS_DYNSYM;
		}
	}
	if (got < 0)
		goto nomem;

	/* Sort, then fold synonyms into one entry each. */
	if (c.n > 1)
		qsort(c.v, c.n, sizeof *c.v, cmp_raw);
	im->syms = malloc((c.n ? c.n : 1) * sizeof *im->syms);
	if (!im->syms)
		goto nomem;
	size_t out = 0;
	for (size_t i = 0; i < c.n;) {
		size_t j = i, best = i;
		uint64_t size = 0;
		for (; j < c.n && c.v[j].addr == c.v[i].addr; j++) {
			if (syn_rank(&c.v[j], c.pool) < syn_rank(&c.v[best], c.pool) ||
			    (syn_rank(&c.v[j], c.pool) == syn_rank(&c.v[best], c.pool) &&
			     strcmp(c.pool + c.v[j].name, c.pool + c.v[best].name) < 0))
				best = j;
			if (c.v[j].size > size)
				size = c.v[j].size;
		}
		struct prof_sym *s = &im->syms[out++];
		s->addr = c.v[i].addr;
		s->size = size;
		s->name = c.pool + c.v[best].name;	/* the pool is final now */
		s->bind = c.v[best].bind;
		s->nsyn = (unsigned)(j - i);
		i = j;
	}
	im->nsyms = out;
	im->strings = c.pool;
	im->strings_len = c.plen;
	free(c.v);
	elf_close_file(&dbg);
	elf_close_file(&f);
	return 0;
nomem:
	free(c.v);
	free(c.pool);
	elf_close_file(&dbg);
	elf_close_file(&f);
	symtab_free(im);
	seterr(err, errlen, strerror(ENOMEM));
	return -1;
}

void symtab_free(struct prof_image *im)
{
	free(im->path);
	free(im->label);
	free(im->syms);
	free(im->texts);
	free(im->strings);
	memset(im, 0, sizeof *im);
}
