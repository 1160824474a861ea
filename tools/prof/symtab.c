/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * symtab.c — an object's function symbols, read through elfutils' libelf.
 *
 * prof attributes time to functions, so from each ELF object it needs the
 * addresses (link-time vaddrs), sizes and names of the function symbols,
 * the extent of its executable sections (code outside any function is shown
 * as [object]+0xoffset, never dropped) and its GNU build ID (to make sure
 * the file on disk is the one that ran).
 *
 * Where function boundaries come from, best first (every source the
 * object has is tried in this order; the first full symbol table wins):
 *   1. the object's own .symtab (every function, local ones included);
 *   2. a separate debug file, found by the one search prof makes for it,
 *      libdwfl's (prof_dwfl_offline, which --lines uses too, so that names
 *      and lines come from the same file): by build ID under
 *      /usr/lib/debug/.build-id/xx/yyyy.debug (Debian's -dbgsym packages),
 *      then by the name and CRC-32 in .gnu_debuglink, looked for next to
 *      the object, in its .debug/ directory and under /usr/lib/debug/ + its
 *      directory (the places GDB's manual, "Separate Debug Files", lists),
 *      then, only when the environment sets DEBUGINFOD_URLS, a debuginfod
 *      server asked by build ID;
 *   3. MiniDebugInfo: an xz-compressed ELF in .gnu_debugdata whose .symtab
 *      holds the functions .dynsym lacks (GDB's manual, "MiniDebugInfo");
 *      it is read together with .dynsym (here, not by libdwfl: prof reads
 *      every symbol table itself, to fold aliases by its own rule);
 *   4. (the debuginfod server of 2.)
 *   5. the dynamic symbol table .dynsym (exported functions only);
 *   6. PLT stubs, named callee@plt from the PLT relocations (x86-64);
 *   7. last, the FDE ranges of .eh_frame and .debug_frame (unwind.c), kept
 *      in im->fdes: attribute.c makes a row [object]+0xSTART of each range
 *      that no symbol covers.
 *
 * Names are the names people search for: a .symtab name "realpath@@GLIBC_2.3"
 * or "memcpy@GLIBC_2.2.5" is printed "realpath"/"memcpy", the version kept
 * aside (prof_sym.version, JSON's "version").  Compiler clones keep their
 * suffix ("foo.cold", "foo.constprop.0", "foo.part.0", "foo.isra.0"): they
 * are separate code with their own time, labelled by what the compiler did.
 *
 * Qualifying symbols: STT_FUNC, STT_GNU_IFUNC, and STT_NOTYPE labels, defined
 * in an allocated executable section; bindings global and weak (gprof also
 * counts weak symbols as functions; System V prof dropped them, which hid
 * real code), and local unless the caller asks for globals only (-l).
 * Assembler-local labels (.L*) and mapping symbols ($x, $d) are not
 * functions.  Several symbols at one address (aliases such as malloc and
 * __libc_malloc, or tcmalloc's free, tc_free, tc_delete, tc_deletearray,
 * ...) become one entry, named by the name a caller most likely used: a
 * symbol with a size before one without (a label inside or before a
 * function); then global before weak before local; then a name the program
 * imports (an undefined symbol of its .dynsym: what its source called)
 * before one it does not; then the shortest name (free, not
 * __libc_free); then the first in byte order.  prof(1), "Names", says so.
 *
 * Every value read from the file is range-checked: a truncated or hostile
 * ELF gives an error or fewer symbols, never a crash.
 */
#include "prof.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <lzma.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monout.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

#define DEBUG_DIR "/usr/lib/debug"
#define DEBUG_ROOT DEBUG_DIR "/.build-id/"

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

/* An open ELF file: fd plus libelf handle.  dwfl: the libdwfl session the
 * handle belongs to (a debug file found by find_debug), which closing ends;
 * else NULL and the file is ours. */
struct elffile {
	int fd;
	Elf *elf;
	Dwfl *dwfl;
};

static int elf_open_file(const char *path, struct elffile *f, char *err, size_t errlen)
{
	f->fd = -1;
	f->elf = NULL;
	f->dwfl = NULL;
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
	if (f->dwfl)
		dwfl_end(f->dwfl);	/* its Elf handles with it */
	else if (f->elf)
		elf_end(f->elf);
	f->dwfl = NULL;
	if (f->fd >= 0)
		close(f->fd);
	f->elf = NULL;
	f->fd = -1;
}

/* Looks for an NT_GNU_BUILD_ID note in data; copies it to im. */
static int note_build_id(Elf_Data *data, struct prof_image *im)
{
	if (data == NULL || data->d_buf == NULL)
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
		if (note_build_id(prof_section_bytes(scn, 0), im))
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

int symtab_text_crc(const char *path, uint32_t *crc, char *err, size_t errlen)
{
	struct elffile f;
	if (elf_open_file(path, &f, err, errlen) < 0)
		return -1;
	size_t nph, len;
	const char *raw = elf_rawfile(f.elf, &len);
	int any = 0, rc = 0;
	uint32_t c = 0;
	if (raw == NULL || elf_getphdrnum(f.elf, &nph) != 0)
		nph = 0;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(f.elf, (int)i, &ph) == NULL || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X) || !(ph.p_flags & PF_R))
			continue;
		if (ph.p_offset > len || ph.p_filesz > len - ph.p_offset) {
			seterr(err, errlen, "a code segment runs past the end of the file");
			rc = -1;
			break;
		}
		c = monout_crc32(c, raw + ph.p_offset, (size_t)ph.p_filesz);
		any = 1;
	}
	if (rc == 0 && !any) {
		seterr(err, errlen, "no code segment");
		rc = -1;
	}
	elf_close_file(&f);
	if (rc == 0)
		*crc = c;
	return rc;
}

/* ---- collecting symbols ---------------------------------------------------- */

struct rawsym {
	uint64_t addr, size;
	size_t name;		/* offset into the string pool */
	size_t ver;		/* offset of the version, or SIZE_MAX */
	unsigned char bind;
	unsigned char plt;
};

struct collect {
	struct rawsym *v;
	size_t n, cap;
	char *pool;
	size_t plen, pcap;
};

static int pool_addn(struct collect *c, const char *s, size_t l, size_t *off)
{
	if (c->plen + l + 1 > c->pcap) {
		size_t ncap = c->pcap ? c->pcap * 2 : 65536;
		while (ncap < c->plen + l + 1)
			ncap *= 2;
		char *np = realloc(c->pool, ncap);
		if (!np)
			return -1;
		c->pool = np;
		c->pcap = ncap;
	}
	memcpy(c->pool + c->plen, s, l);
	c->pool[c->plen + l] = '\0';
	*off = c->plen;
	c->plen += l + 1;
	return 0;
}

/* Adds one symbol: name without its "@VERSION"/"@@VERSION", the version
 * kept; suffix (e.g. "@plt") appended to the name. */
static int add_sym(struct collect *c, const char *name, const char *suffix, uint64_t addr,
		   uint64_t size, unsigned bind, int plt)
{
	if (c->n == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 1024;
		struct rawsym *nv = realloc(c->v, ncap * sizeof *nv);
		if (!nv)
			return -1;
		c->v = nv;
		c->cap = ncap;
	}
	struct rawsym *r = &c->v[c->n];
	const char *at = strchr(name, '@');
	size_t nl = at && at != name ? (size_t)(at - name) : strlen(name);
	r->ver = SIZE_MAX;
	if (suffix) {
		char buf[1024];
		int l = snprintf(buf, sizeof buf, "%.*s%s", (int)nl, name, suffix);
		if (l < 0 || (size_t)l >= sizeof buf)
			return 0;	/* absurdly long: not worth a row */
		if (pool_addn(c, buf, (size_t)l, &r->name) < 0)
			return -1;
	} else if (pool_addn(c, name, nl, &r->name) < 0) {
		return -1;
	}
	if (at && at != name) {
		const char *v = at + 1 + (at[1] == '@');
		if (*v && pool_addn(c, v, strlen(v), &r->ver) < 0)
			return -1;
	}
	r->addr = addr;
	r->size = size;
	r->bind = (unsigned char)bind;
	r->plt = (unsigned char)plt;
	c->n++;
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
 * number of qualifying symbols added, or -1 on allocation failure.  With
 * data (a second collection, dc non-NULL) it also adds to dc the object
 * data symbols (STT_OBJECT, sized, in an allocated section that is not
 * code: variables, locals too), which name the locks wall-clock samples
 * wait on. */
static long collect_syms_data(Elf *elf, unsigned type, int locals, struct collect *c,
			      struct collect *dc)
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
		Elf_Data *data = prof_section_bytes(scn, 0);
		if (data == NULL || sh.sh_entsize == 0)
			break;
		size_t n = data->d_size / sh.sh_entsize;
		for (size_t i = 1; i < n; i++) {
			GElf_Sym s;
			if (gelf_getsym(data, (int)i, &s) == NULL)
				break;
			unsigned t = GELF_ST_TYPE(s.st_info), b = GELF_ST_BIND(s.st_info);
			if (dc && t == STT_OBJECT && s.st_size > 0 && s.st_shndx != SHN_UNDEF &&
			    s.st_shndx < nsec && !isexec[s.st_shndx]) {
				const char *dn = elf_strptr(elf, sh.sh_link, s.st_name);
				if (dn && dn[0] && add_sym(dc, dn, NULL, s.st_value, s.st_size, b, 0) < 0)
					goto nomem;
				continue;
			}
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
			if (add_sym(c, name, NULL, s.st_value, t == STT_NOTYPE ? 0 : s.st_size, b,
				    0) < 0)
				goto nomem;
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

/* The bytes a section holds in the file, for every section prof reads
 * (elf_getdata(3) and friends): its Elf_Data, or NULL when it has none:
 * SHT_NOBITS (libelf gives d_buf NULL with d_size the section's size), an
 * empty section, a section past the file's end or otherwise unreadable
 * (elf_getdata fails).  raw: elf_rawdata(3) (the file's bytes, not
 * converted to the host's byte order). */
Elf_Data *prof_section_bytes(Elf_Scn *scn, int raw)
{
	GElf_Shdr sh;
	if (scn == NULL || gelf_getshdr(scn, &sh) == NULL || sh.sh_type == SHT_NOBITS)
		return NULL;
	Elf_Data *d = raw ? elf_rawdata(scn, NULL) : elf_getdata(scn, NULL);
	if (d == NULL || d->d_buf == NULL || d->d_size == 0)
		return NULL;
	return d;
}

static Elf_Scn *section_named(Elf *elf, const char *want, GElf_Shdr *sh)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, sh) == NULL)
			continue;
		const char *n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && strcmp(n, want) == 0)
			return scn;
	}
	return NULL;
}

/* ---- PLT stubs --------------------------------------------------------------- */

struct gotname {
	uint64_t got;		/* the GOT slot a relocation fills */
	const char *name;	/* the symbol it binds (in the ELF's string table) */
};

static int cmp_got(const void *x, const void *y)
{
	const struct gotname *a = x, *b = y;
	return a->got < b->got ? -1 : a->got > b->got;
}

/* The GOT slot an AArch64 PLT entry at addr loads (binutils' ld,
 * elfNN_aarch64_small_plt_entry: [bti c;] adrp x16, PAGE; ldr x17, [x16,
 * #OFF]; add x16, x16, #OFF; br x17), from its first two instructions w0
 * and w1 at addr; 0 if they are not that.  ARM DDI 0487, C6.2: ADRP's
 * immediate is immhi:immlo (bits 23..5, 30..29) pages from addr's page;
 * LDR (unsigned offset, 64-bit) scales imm12 (bits 21..10) by 8. */
static uint64_t a64_plt_slot(uint64_t addr, uint32_t w0, uint32_t w1)
{
	if ((w0 & 0x9f00001fu) != 0x90000010u || (w1 & 0xffc003ffu) != 0xf9400211u)
		return 0;
	uint64_t imm = ((uint64_t)((w0 >> 5) & 0x7ffff) << 2) | ((w0 >> 29) & 3);
	int64_t pages = (int64_t)(imm << 43) >> 43;	/* 21 bits, signed */
	uint64_t page = (addr & ~(uint64_t)0xfff) + (uint64_t)(pages * 4096);
	return page + (uint64_t)((w1 >> 10) & 0xfff) * 8;
}

static uint32_t le32(const unsigned char *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* PLT stubs, by the ELF file's machine (e_machine), never the host's.
 * x86-64 (.plt, .plt.sec, .plt.got): each entry jumps through a GOT slot,
 * "jmp *disp32(%rip)" (ff 25, optionally after endbr64 and a bnd prefix).
 * AArch64 (.plt): each entry loads its GOT slot with adrp + ldr
 * (a64_plt_slot).  The dynamic relocation of that slot (JUMP_SLOT,
 * GLOB_DAT) names the callee.  Each stub becomes a symbol "callee@plt" of
 * the entry's size.  Other machines: no PLT names (their stubs are shown
 * as object offsets). */
static long collect_plt(Elf *elf, struct collect *c)
{
	GElf_Ehdr eh;
	if (gelf_getehdr(elf, &eh) == NULL ||
	    (eh.e_machine != EM_X86_64 && eh.e_machine != EM_AARCH64))
		return 0;
	int a64 = eh.e_machine == EM_AARCH64;
	struct gotname *g = NULL;
	size_t ng = 0, gcap = 0;
	long added = 0;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_RELA ||
		    !(sh.sh_flags & SHF_ALLOC) || sh.sh_entsize == 0)
			continue;
		Elf_Scn *symscn = elf_getscn(elf, sh.sh_link);
		GElf_Shdr ssh;
		Elf_Data *rd = prof_section_bytes(scn, 0), *sd;
		if (!symscn || !gelf_getshdr(symscn, &ssh) || ssh.sh_type != SHT_DYNSYM || !rd ||
		    (sd = prof_section_bytes(symscn, 0)) == NULL)
			continue;
		size_t n = rd->d_size / sh.sh_entsize;
		for (size_t i = 0; i < n; i++) {
			GElf_Rela r;
			GElf_Sym s;
			if (gelf_getrela(rd, (int)i, &r) == NULL)
				break;
			unsigned type = GELF_R_TYPE(r.r_info);
			if (a64 ? type != R_AARCH64_JUMP_SLOT && type != R_AARCH64_GLOB_DAT
				: type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT)
				continue;
			if (GELF_R_SYM(r.r_info) == 0 ||
			    gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &s) == NULL)
				continue;
			const char *name = elf_strptr(elf, ssh.sh_link, s.st_name);
			if (name == NULL || name[0] == '\0')
				continue;
			if (ng == gcap) {
				gcap = gcap ? gcap * 2 : 256;
				struct gotname *ngv = realloc(g, gcap * sizeof *g);
				if (!ngv)
					goto nomem;
				g = ngv;
			}
			g[ng].got = r.r_offset;
			g[ng].name = name;
			ng++;
		}
	}
	if (ng == 0)
		return 0;
	qsort(g, ng, sizeof *g, cmp_got);
	static const char *const plts[] = { ".plt", ".plt.sec", ".plt.got" };
	for (size_t p = 0; p < sizeof plts / sizeof plts[0]; p++) {
		GElf_Shdr sh;
		Elf_Scn *ps = section_named(elf, plts[p], &sh);
		Elf_Data *d;
		if (!ps || sh.sh_type != SHT_PROGBITS || (d = prof_section_bytes(ps, 0)) == NULL)
			continue;
		const unsigned char *b = d->d_buf;
		if (a64) {
			/* Entries of 16 bytes (24 with bti c), after PLT0 (whose
			 * slot is no relocation's). */
			for (uint64_t off = 0; off + 16 <= d->d_size; off += 4) {
				uint64_t slot = a64_plt_slot(sh.sh_addr + off, le32(b + off), le32(b + off + 4));
				if (slot == 0)
					continue;
				int bti = off >= 4 && le32(b + off - 4) == 0xd503245fu;	/* bti c */
				struct gotname key = { slot, NULL };
				struct gotname *hit = bsearch(&key, g, ng, sizeof *g, cmp_got);
				if (hit) {
					if (add_sym(c, hit->name, "@plt", sh.sh_addr + off - (bti ? 4 : 0),
						    bti ? 20 : 16, STB_GLOBAL, 1) < 0)
						goto nomem;
					added++;
				}
				off += 12;
			}
			continue;
		}
		uint64_t es = sh.sh_entsize ? sh.sh_entsize : 16;
		if (es < 6 || es > 64)
			continue;
		for (uint64_t off = 0; off + es <= d->d_size; off += es) {
			for (uint64_t k = 0; k + 6 <= es; k++) {
				if (b[off + k] != 0xff || b[off + k + 1] != 0x25)
					continue;
				int32_t disp = (int32_t)((uint32_t)b[off + k + 2] |
							 (uint32_t)b[off + k + 3] << 8 |
							 (uint32_t)b[off + k + 4] << 16 |
							 (uint32_t)b[off + k + 5] << 24);
				uint64_t slot = sh.sh_addr + off + k + 6 + (uint64_t)(int64_t)disp;
				struct gotname key = { slot, NULL };
				struct gotname *hit = bsearch(&key, g, ng, sizeof *g, cmp_got);
				if (hit) {
					if (add_sym(c, hit->name, "@plt", sh.sh_addr + off, es,
						    STB_GLOBAL, 1) < 0)
						goto nomem;
					added++;
				}
				break;
			}
		}
	}
	free(g);
	return added;
nomem:
	free(g);
	return -1;
}

/* ---- separate debug files ------------------------------------------------------ */

static int cmp_name(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Whether imp (sorted) holds name. */
static int is_imported(const struct prof_imports *imp, const char *name)
{
	return imp && imp->n && bsearch(&name, imp->names, imp->n, sizeof *imp->names, cmp_name);
}

/* Whether x names an address better than y, its synonym (see the top). */
static int syn_better(const struct rawsym *x, const struct rawsym *y, const char *pool,
		      const struct prof_imports *imp)
{
	if ((x->size != 0) != (y->size != 0))
		return x->size != 0;
	unsigned bx = x->bind == STB_GLOBAL ? 0 : x->bind == STB_WEAK ? 1 : 2;
	unsigned by = y->bind == STB_GLOBAL ? 0 : y->bind == STB_WEAK ? 1 : 2;
	if (bx != by)
		return bx < by;
	const char *nx = pool + x->name, *ny = pool + y->name;
	int ix = is_imported(imp, nx), iy = is_imported(imp, ny);
	if (ix != iy)
		return ix;
	size_t lx = strlen(nx), ly = strlen(ny);
	if (lx != ly)
		return lx < ly;
	return strcmp(nx, ny) < 0;
}

int symtab_imports(const char *path, struct prof_imports *out)
{
	struct elffile f;
	char err[128];
	memset(out, 0, sizeof *out);
	if (elf_open_file(path, &f, err, sizeof err) < 0)
		return 0;
	size_t cap = 0;
	int rc = 0;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(f.elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_DYNSYM)
			continue;
		Elf_Data *data = prof_section_bytes(scn, 0);
		size_t n = data && sh.sh_entsize ? data->d_size / sh.sh_entsize : 0;
		for (size_t i = 1; i < n; i++) {
			GElf_Sym s;
			if (gelf_getsym(data, (int)i, &s) == NULL)
				break;
			const char *name = elf_strptr(f.elf, sh.sh_link, s.st_name);
			if (s.st_shndx != SHN_UNDEF || name == NULL || name[0] == '\0')
				continue;
			if (out->n == cap) {
				size_t ncap = cap ? cap * 2 : 64;
				char **nv = realloc(out->names, ncap * sizeof *nv);
				if (nv == NULL) {
					rc = -1;
					goto done;
				}
				out->names = nv;
				cap = ncap;
			}
			if ((out->names[out->n] = strndup(name, strcspn(name, "@"))) == NULL) {
				rc = -1;
				goto done;
			}
			out->n++;
		}
		break;
	}
done:
	elf_close_file(&f);
	if (rc < 0) {
		symtab_imports_free(out);
		errno = ENOMEM;
		return -1;
	}
	if (out->n > 1)
		qsort(out->names, out->n, sizeof *out->names, cmp_name);
	return 0;
}

void symtab_imports_free(struct prof_imports *imp)
{
	for (size_t i = 0; i < imp->n; i++)
		free(imp->names[i]);
	free(imp->names);
	memset(imp, 0, sizeof *imp);
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

/* The separate debug file of the object at path, by the search libdwfl
 * makes for its lines too (prof_dwfl_offline: build ID, .gnu_debuglink,
 * debuginfod when DEBUGINFOD_URLS is set; libdwfl checks the build ID, or
 * the debuglink's CRC), so that names and lines come from one file.
 * libdwfl names a file it found on disk (dwfl_module_info's debugfile),
 * which is opened here; one a debuginfod server gave it has no name there,
 * and is taken as libdwfl opened it (dwarf_getelf of the module's DWARF,
 * when that is not the object's own), the session kept open in dbg.
 * Returns 1 with *dbg open when the file has a .symtab, its path
 * (malloc'd, or NULL from a server) in *found and in *from where it came
 * from (PROF_SYMS_DEBUG by build ID, PROF_SYMS_DEBUGINFOD, else
 * PROF_SYMS_DEBUGLINK); else 0. */
static int find_debug(const char *path, struct elffile *dbg, char **found, int *from)
{
	Dwfl_Module *mod;
	Dwfl *dwfl = prof_dwfl_offline(path, &mod);
	if (dwfl == NULL)
		return 0;
	const char *debugfile = NULL;
	Dwarf_Addr bias;
	Dwarf *dw = dwfl_module_getdwarf(mod, &bias);
	Elf *main_elf = dwfl_module_getelf(mod, &bias);
	dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
	char derr[128];
	if (debugfile && strcmp(debugfile, path) != 0 &&
	    elf_open_file(debugfile, dbg, derr, sizeof derr) == 0) {
		if (has_section(dbg->elf, SHT_SYMTAB) && (*found = strdup(debugfile)) != NULL) {
			*from = strncmp(debugfile, DEBUG_ROOT, sizeof DEBUG_ROOT - 1) == 0
					? PROF_SYMS_DEBUG : PROF_SYMS_DEBUGLINK;
			dwfl_end(dwfl);
			return 1;
		}
		elf_close_file(dbg);
	} else if (debugfile == NULL && dw && dwarf_getelf(dw) && dwarf_getelf(dw) != main_elf &&
		   has_section(dwarf_getelf(dw), SHT_SYMTAB)) {
		*dbg = (struct elffile){ -1, dwarf_getelf(dw), dwfl };
		*found = NULL;
		*from = PROF_SYMS_DEBUGINFOD;
		return 1;
	}
	dwfl_end(dwfl);
	return 0;
}

/* MiniDebugInfo: .gnu_debugdata is an xz stream holding a small ELF file
 * whose .symtab lists the functions .dynsym does not.  Returns the
 * decompressed bytes (malloc'd) or NULL. */
static unsigned char *minidebug_bytes(Elf *elf, size_t *len)
{
	GElf_Shdr sh;
	Elf_Scn *scn = section_named(elf, ".gnu_debugdata", &sh);
	Elf_Data *d;
	if ((d = prof_section_bytes(scn, 1)) == NULL)
		return NULL;
	lzma_stream s = LZMA_STREAM_INIT;
	if (lzma_stream_decoder(&s, UINT64_MAX, 0) != LZMA_OK)
		return NULL;
	size_t cap = d->d_size * 4 + 4096, n = 0;
	unsigned char *out = malloc(cap);
	if (!out) {
		lzma_end(&s);
		return NULL;
	}
	s.next_in = d->d_buf;
	s.avail_in = d->d_size;
	for (;;) {
		if (n == cap) {
			if (cap >= ((size_t)1 << 30))
				goto fail;	/* a decompression bomb */
			unsigned char *no = realloc(out, cap * 2);
			if (!no)
				goto fail;
			out = no;
			cap *= 2;
		}
		s.next_out = out + n;
		s.avail_out = cap - n;
		lzma_ret r = lzma_code(&s, LZMA_FINISH);
		n = cap - s.avail_out;
		if (r == LZMA_STREAM_END)
			break;
		if (r != LZMA_OK)
			goto fail;
	}
	lzma_end(&s);
	*len = n;
	return out;
fail:
	lzma_end(&s);
	free(out);
	return NULL;
}


int symtab_load(const char *path, int locals, const struct prof_imports *imports,
		struct prof_image *im, char *err, size_t errlen)
{
	struct elffile f, dbg = { -1, NULL, NULL };
	struct collect c = { 0 }, dc = { 0 };
	unsigned char *mini = NULL;
	Elf *minielf = NULL;
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
		got = collect_syms_data(f.elf, SHT_SYMTAB, locals, &c, &dc);
		im->from = PROF_SYMS_SYMTAB;
	}
	int dfrom = 0;
	if (got >= 0 && im->from == PROF_SYMS_NONE && find_debug(path, &dbg, &im->debug_path, &dfrom)) {
		got = collect_syms_data(dbg.elf, SHT_SYMTAB, locals, &c, &dc);
		im->from = dfrom;
	}
	size_t minilen = 0;
	if (got >= 0 && im->from == PROF_SYMS_NONE && (mini = minidebug_bytes(f.elf, &minilen))) {
		minielf = elf_memory((char *)mini, minilen);
		if (minielf && elf_kind(minielf) == ELF_K_ELF && has_section(minielf, SHT_SYMTAB)) {
			got = collect_syms_data(minielf, SHT_SYMTAB, locals, &c, &dc);
			im->from = PROF_SYMS_MINIDEBUG;
		}
	}
	/* .dynsym: alone, or with MiniDebugInfo (which leaves its symbols out). */
	if (got >= 0 && (im->from == PROF_SYMS_NONE || im->from == PROF_SYMS_MINIDEBUG) &&
	    has_section(f.elf, SHT_DYNSYM)) {
		long g2 = collect_syms_data(f.elf, SHT_DYNSYM, locals, &c, &dc);
		got = g2 < 0 ? g2 : got + g2;
		if (g2 > 0)
			im->from |= PROF_SYMS_DYNSYM;
	}
	if (got >= 0) {
		long g3 = collect_plt(f.elf, &c);
		got = g3 < 0 ? g3 : got + g3;
		if (g3 > 0)
			im->from |= PROF_SYMS_PLT;
	}
	if (got < 0)
		goto nomem;
	/* Unwind ranges: from the object, and from its debug file (which may
	 * hold .debug_frame when the object has only .eh_frame). */
	if (unwind_ranges(f.elf, &im->fdes, &im->nfdes) < 0 ||
	    (dbg.elf && unwind_ranges(dbg.elf, &im->fdes, &im->nfdes) < 0))
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
			if (syn_better(&c.v[j], &c.v[best], c.pool, imports))
				best = j;
			if (c.v[j].size > size)
				size = c.v[j].size;
		}
		struct prof_sym *s = &im->syms[out++];
		s->addr = c.v[i].addr;
		s->size = size;
		s->name = c.pool + c.v[best].name;	/* the pool is final now */
		s->version = c.v[best].ver == SIZE_MAX ? NULL : c.pool + c.v[best].ver;
		s->bind = c.v[best].bind;
		s->plt = c.v[best].plt;
		s->nsyn = (unsigned)(j - i);
		i = j;
	}
	im->nsyms = out;
	im->strings = c.pool;
	im->strings_len = c.plen;
	free(c.v);
	/* The data symbols: sorted, one per address (the best name). */
	if (dc.n > 1)
		qsort(dc.v, dc.n, sizeof *dc.v, cmp_raw);
	im->dsyms = malloc((dc.n ? dc.n : 1) * sizeof *im->dsyms);
	if (!im->dsyms) {
		free(dc.v);
		free(dc.pool);
		c = (struct collect){ 0 };
		dc = (struct collect){ 0 };
		goto nomem;
	}
	for (size_t i = 0; i < dc.n;) {
		size_t j = i, best = i;
		for (; j < dc.n && dc.v[j].addr == dc.v[i].addr; j++)
			if (syn_better(&dc.v[j], &dc.v[best], dc.pool, NULL))
				best = j;
		im->dsyms[im->ndsyms++] = (struct prof_sym){ .addr = dc.v[i].addr,
			.size = dc.v[best].size, .name = dc.pool + dc.v[best].name,
			.bind = dc.v[best].bind, .nsyn = (unsigned)(j - i) };
		i = j;
	}
	im->dstrings = dc.pool;
	free(dc.v);
	if (minielf)
		elf_end(minielf);
	free(mini);
	elf_close_file(&dbg);
	elf_close_file(&f);
	return 0;
nomem:
	free(c.v);
	free(c.pool);
	free(dc.v);
	free(dc.pool);
	if (minielf)
		elf_end(minielf);
	free(mini);
	elf_close_file(&dbg);
	elf_close_file(&f);
	symtab_free(im);
	seterr(err, errlen, strerror(ENOMEM));
	return -1;
}

const struct prof_sym *symtab_data_at(const struct prof_image *im, uint64_t addr)
{
	size_t lo = 0, hi = im->ndsyms;	/* the last symbol at or below addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (im->dsyms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const struct prof_sym *s = &im->dsyms[lo - 1];
	return addr - s->addr < s->size ? s : NULL;
}

void symtab_free(struct prof_image *im)
{
	free(im->path);
	free(im->label);
	free(im->debug_path);
	free(im->syms);
	free(im->fdes);
	free(im->texts);
	free(im->strings);
	free(im->dsyms);
	free(im->dstrings);
	memset(im, 0, sizeof *im);
}
