/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * unwind.c — function extents from an object's own unwind tables.
 *
 * A stripped object still says where its functions begin and end: every
 * function that can be unwound through has a Frame Description Entry (FDE)
 * in .eh_frame (the System V x86-64 psABI, §4.2.4 "EH_FRAME sections"; the
 * Linux Standard Base Core spec, "Exception Frames") or in the DWARF
 * .debug_frame section (DWARF 4/5, §6.4.1).  An FDE covers the byte range
 * [initial_location, initial_location + address_range) of one function, or
 * of one part of it (a hot/cold split gives the cold part an FDE of its
 * own).  prof uses these ranges, last of all sources, for code that no
 * symbol covers, so one row never holds two functions the object itself
 * keeps apart.
 *
 * Framing (lengths, 64-bit DWARF, CIE or FDE) is done by libdw's
 * dwarf_next_cfi; the pointer encodings of .eh_frame (the CIE's 'z'
 * augmentation, 'R' giving the FDE pointer encoding, DW_EH_PE_* values of
 * the LSB spec) are decoded here.  Everything read from the file is
 * range-checked: a damaged table gives fewer ranges, never a crash.
 */
#include "prof.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

/* DW_EH_PE_* (LSB Core, "DWARF Exception Header Encoding"). */
#define PE_OMIT 0xff
#define PE_FMT 0x0f
#define PE_APP 0x70
#define PE_absptr 0x00
#define PE_uleb128 0x01
#define PE_udata2 0x02
#define PE_udata4 0x03
#define PE_udata8 0x04
#define PE_sleb128 0x09
#define PE_sdata2 0x0a
#define PE_sdata4 0x0b
#define PE_sdata8 0x0c
#define PE_pcrel 0x10
#define PE_datarel 0x30

struct rd {
	const uint8_t *p, *end;
	int big, asize;
};

static int rd_uleb(struct rd *r, uint64_t *v)
{
	uint64_t x = 0;
	for (unsigned sh = 0; r->p < r->end; sh += 7) {
		uint8_t b = *r->p++;
		if (sh < 64)
			x |= (uint64_t)(b & 0x7f) << sh;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

static int rd_sleb(struct rd *r, int64_t *v)
{
	uint64_t x = 0;
	unsigned sh = 0;
	uint8_t b = 0x80;
	while (r->p < r->end && (b & 0x80)) {
		b = *r->p++;
		if (sh < 64)
			x |= (uint64_t)(b & 0x7f) << sh;
		sh += 7;
	}
	if (b & 0x80)
		return -1;
	if (sh < 64 && (b & 0x40))
		x |= ~(uint64_t)0 << sh;
	*v = (int64_t)x;
	return 0;
}

static int rd_fixed(struct rd *r, int n, uint64_t *v)
{
	if (r->end - r->p < n)
		return -1;
	uint64_t x = 0;
	for (int i = 0; i < n; i++)
		x = (x << 8) | r->p[r->big ? i : n - 1 - i];
	r->p += n;
	*v = x;
	return 0;
}

/* One encoded pointer.  here: the link-time address of the field's first
 * byte (for pcrel); data: the section's address (datarel, .eh_frame_hdr
 * style; GNU ld does not use it in .eh_frame).  app: apply the encoding's
 * application part (an FDE's address_range uses the format only). */
static int rd_encoded(struct rd *r, unsigned enc, uint64_t here, uint64_t data, int app,
		      uint64_t *v)
{
	uint64_t x;
	int64_t s;
	if (enc == PE_OMIT)
		return -1;
	switch (enc & PE_FMT) {
	case PE_absptr:
		if (rd_fixed(r, r->asize, &x) < 0)
			return -1;
		break;
	case PE_uleb128:
		if (rd_uleb(r, &x) < 0)
			return -1;
		break;
	case PE_udata2:
		if (rd_fixed(r, 2, &x) < 0)
			return -1;
		break;
	case PE_udata4:
		if (rd_fixed(r, 4, &x) < 0)
			return -1;
		break;
	case PE_udata8:
		if (rd_fixed(r, 8, &x) < 0)
			return -1;
		break;
	case PE_sleb128:
		if (rd_sleb(r, &s) < 0)
			return -1;
		x = (uint64_t)s;
		break;
	case PE_sdata2:
		if (rd_fixed(r, 2, &x) < 0)
			return -1;
		x = (uint64_t)(int64_t)(int16_t)x;
		break;
	case PE_sdata4:
		if (rd_fixed(r, 4, &x) < 0)
			return -1;
		x = (uint64_t)(int64_t)(int32_t)x;
		break;
	case PE_sdata8:
		if (rd_fixed(r, 8, &x) < 0)
			return -1;
		break;
	default:
		return -1;
	}
	if (app) {
		switch (enc & PE_APP) {
		case 0:
			break;
		case PE_pcrel:
			x += here;
			break;
		case PE_datarel:
			x += data;
			break;
		default:	/* textrel, funcrel, aligned: not produced for FDEs */
			return -1;
		}
	}
	if (r->asize == 4)
		x &= 0xffffffffu;
	*v = x;
	return 0;
}

/* The FDE pointer encoding a CIE gives (its 'R' augmentation), or -1 if
 * the CIE cannot be understood. */
static int cie_encoding(const Dwarf_CIE *c, int eh, struct rd base, uint64_t secaddr,
			const uint8_t *d0)
{
	if (!eh)
		return PE_absptr;
	const char *aug = c->augmentation;
	if (aug == NULL)
		return -1;
	if (aug[0] == '\0')
		return PE_absptr;
	if (aug[0] != 'z' || c->augmentation_data == NULL)
		return -1;	/* "eh" and other pre-'z' forms */
	struct rd r = base;
	r.p = c->augmentation_data;
	r.end = c->augmentation_data + c->augmentation_data_size;
	if (r.p < d0 || r.end > base.end || r.end < r.p)
		return -1;
	int enc = PE_absptr;
	for (const char *a = aug + 1; *a; a++) {
		uint64_t ignored;
		switch (*a) {
		case 'R':
			if (r.p >= r.end)
				return -1;
			enc = *r.p++;
			break;
		case 'L':
			if (r.p >= r.end)
				return -1;
			r.p++;
			break;
		case 'P': {
			if (r.p >= r.end)
				return -1;
			unsigned pe = *r.p++;
			uint64_t here = secaddr + (uint64_t)(r.p - d0);
			if (rd_encoded(&r, pe & 0x7f, here, secaddr, 0, &ignored) < 0)
				return -1;
			break;
		}
		case 'S':
		case 'B':
			break;
		default:
			/* Unknown augmentation: 'z' lets us stop here, and 'R'
			 * if present came before (GCC writes it last). */
			return enc;
		}
	}
	return enc;
}

struct cie_cache {
	uint64_t off;
	int enc;
};

static int add_range(struct prof_range **v, size_t *n, size_t *cap, uint64_t lo, uint64_t hi)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		struct prof_range *nv = realloc(*v, nc * sizeof *nv);
		if (!nv)
			return -1;
		*v = nv;
		*cap = nc;
	}
	(*v)[*n].lo = lo;
	(*v)[*n].hi = hi;
	(*n)++;
	return 0;
}

/* The FDE ranges of one CFI section. */
static int section_ranges(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, int eh,
			  struct prof_range **v, size_t *n, size_t *cap)
{
	Elf_Data *data = prof_section_bytes(scn, 0);
	if (data == NULL)
		return 0;
	size_t idlen;
	const char *ident = elf_getident(elf, &idlen);
	if (ident == NULL || idlen < EI_NIDENT)
		return 0;
	struct rd base = { data->d_buf, (const uint8_t *)data->d_buf + data->d_size,
			   ident[EI_DATA] == ELFDATA2MSB, ident[EI_CLASS] == ELFCLASS64 ? 8 : 4 };
	const uint8_t *d0 = data->d_buf;
	struct cie_cache *cies = NULL;
	size_t ncies = 0, ciecap = 0;
	Dwarf_Off off = 0, next;
	int rc = 0;
	while (off < data->d_size) {
		Dwarf_CFI_Entry e;
		int r = dwarf_next_cfi((const unsigned char *)ident, data, eh, off, &next, &e);
		if (r == 1)
			break;
		if (r < 0) {
			if (next == (Dwarf_Off)-1 || next <= off)
				break;
			off = next;
			continue;
		}
		Dwarf_Off here_off = off;
		off = next;
		if (dwarf_cfi_cie_p(&e)) {
			if (ncies == ciecap) {
				size_t nc = ciecap ? ciecap * 2 : 8;
				struct cie_cache *nv = realloc(cies, nc * sizeof *nv);
				if (!nv) {
					rc = -1;
					break;
				}
				cies = nv;
				ciecap = nc;
			}
			cies[ncies].off = here_off;
			cies[ncies].enc = cie_encoding(&e.cie, eh, base, sh->sh_addr, d0);
			ncies++;
			continue;
		}
		/* An FDE: find its CIE (usually the most recent one). */
		int enc = -1;
		for (size_t k = ncies; k-- > 0;)
			if (cies[k].off == e.fde.CIE_pointer) {
				enc = cies[k].enc;
				break;
			}
		if (enc < 0)
			continue;
		struct rd rr = base;
		rr.p = e.fde.start;
		rr.end = e.fde.end;
		if (rr.p < d0 || rr.end > base.end || rr.end < rr.p)
			continue;
		uint64_t lo, len;
		uint64_t here = sh->sh_addr + (uint64_t)(rr.p - d0);
		if (rd_encoded(&rr, (unsigned)enc & 0x7f, here, sh->sh_addr, 1, &lo) < 0 ||
		    rd_encoded(&rr, (unsigned)enc & PE_FMT, 0, 0, 0, &len) < 0)
			continue;
		if (len == 0 || lo + len < lo || lo == 0)
			continue;	/* empty, wrapping, or discarded (relocated to 0) */
		if (add_range(v, n, cap, lo, lo + len) < 0) {
			rc = -1;
			break;
		}
	}
	free(cies);
	return rc;
}

static int cmp_range(const void *x, const void *y)
{
	const struct prof_range *a = x, *b = y;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->hi < b->hi ? -1 : a->hi > b->hi;
}

int unwind_ranges(Elf *elf, struct prof_range **out, size_t *nout)
{
	struct prof_range *v = *out;
	size_t n = *nout, cap = *nout;
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type == SHT_NOBITS)
			continue;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name == NULL)
			continue;
		int eh = strcmp(name, ".eh_frame") == 0;
		if (!eh && strcmp(name, ".debug_frame") != 0)
			continue;
		if (section_ranges(elf, scn, &sh, eh, &v, &n, &cap) < 0) {
			*out = v;
			*nout = n;
			return -1;
		}
	}
	if (n > 1) {
		qsort(v, n, sizeof *v, cmp_range);
		/* One range per start (.eh_frame and .debug_frame may both
		 * describe a function); keep the longer. */
		size_t w = 0;
		for (size_t i = 0; i < n; i++) {
			if (w && v[w - 1].lo == v[i].lo) {
				v[w - 1].hi = v[i].hi;
				continue;
			}
			v[w++] = v[i];
		}
		n = w;
	}
	*out = v;
	*nout = n;
	return 0;
}
