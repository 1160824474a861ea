/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_cfi.c — unit tests of the CFI compiler (lib/cfi.c): .eh_frame
 * bytes built here, byte by byte, compiled into rows, the rows checked
 * one by one: a gcc-style prologue (push rbp; mov rsp,rbp), the x86-64
 * PLT's and stack realignment's CFA expressions, the signal trampoline's
 * 'S', the outermost frame, remember/restore_state, an unknown opcode, an
 * indirect pointer with and without a reader, FDEs outside the text range,
 * every truncation of the input, the emitter's failure, sorting and
 * squeezing; this very program's own .eh_frame, which must give rows
 * for a function of this file; and compiling in .eh_frame_hdr's table
 * order, refused for a table that does not list each FDE once in order,
 * and giving every loaded object's rows, the C library's already sorted.
 *
 * Links libmon.a, so it reaches the hidden interfaces (cfi.h, arch.h).
 */
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "arch.h"
#include "cfi.h"

/* ---- building .eh_frame ------------------------------------------------ */

struct bytes {
	uint8_t b[4096];
	size_t n;
};

static void put1(struct bytes *x, unsigned v)
{
	x->b[x->n++] = (uint8_t)v;
}

static void put4(struct bytes *x, uint32_t v)
{
	memcpy(x->b + x->n, &v, 4);
	x->n += 4;
}

static void uleb(struct bytes *x, uint64_t v)
{
	do {
		uint8_t c = v & 0x7f;
		v >>= 7;
		put1(x, c | (v ? 0x80 : 0));
	} while (v);
}

static void sleb(struct bytes *x, int64_t v)
{
	for (;;) {
		uint8_t c = v & 0x7f;
		v >>= 7;
		if ((v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40))) {
			put1(x, c);
			return;
		}
		put1(x, c | 0x80);
	}
}

static void putn(struct bytes *x, const void *p, size_t n)
{
	memcpy(x->b + x->n, p, n);
	x->n += n;
}

#define VADDR 0x100000u		/* where the .eh_frame bytes "are" */
#define TEXT_LO 0x1000u
#define TEXT_HI 0x9000u

/* A CIE at the end of x: version 1, augmentation aug ("zR", "zRS", "zPR"...), code
 * alignment 1, data alignment -8, return address column 16, FDE pointers as
 * fde_enc; initial instructions: def_cfa rsp+8, offset r16 at cfa-8.  Returns
 * its offset. */
static size_t cie_ra(struct bytes *x, const char *aug, uint8_t fde_enc, unsigned ra_col);

static size_t cie(struct bytes *x, const char *aug, uint8_t fde_enc)
{
	return cie_ra(x, aug, fde_enc, 16);
}

/* The same CIE with return address column ra_col; for 30 (aarch64's x30)
 * the initial instructions are AArch64 gcc's: def_cfa sp (31) + 0, and no
 * rule for x30 (the return address is in it). */
static size_t cie_ra(struct bytes *x, const char *aug, uint8_t fde_enc, unsigned ra_col)
{
	size_t at = x->n;
	put4(x, 0);		/* length, patched */
	put4(x, 0);		/* CIE id */
	put1(x, 1);
	putn(x, aug, strlen(aug) + 1);
	uleb(x, 1);
	sleb(x, -8);
	put1(x, ra_col);
	struct bytes a = { { 0 }, 0 };
	for (const char *c = aug; *c; c++)
		if (*c == 'R')
			put1(&a, fde_enc);
		else if (*c == 'P') {
			put1(&a, 0x00);	/* absptr personality */
			for (int i = 0; i < 8; i++)
				put1(&a, 0);
		}
	uleb(x, a.n);
	putn(x, a.b, a.n);
	if (ra_col == 30) {
		put1(x, 0x0c);	/* def_cfa sp 0 */
		uleb(x, 31);
		uleb(x, 0);
	} else {
		put1(x, 0x0c);	/* def_cfa rsp 8 */
		uleb(x, 7);
		uleb(x, 8);
		put1(x, 0x80 | 16);	/* offset r16, 1 * -8 */
		uleb(x, 1);
	}
	while ((x->n - at) % 8)
		put1(x, 0);	/* DW_CFA_nop padding */
	uint32_t len = (uint32_t)(x->n - at - 4);
	memcpy(x->b + at, &len, 4);
	return at;
}

/* An FDE of the CIE at cie_at for [start, start + range), pointers pcrel
 * sdata4 (0x1b), then the instructions ins[0..n). */
static void fde(struct bytes *x, size_t cie_at, uint64_t start, uint32_t range, const uint8_t *ins,
		size_t n)
{
	size_t at = x->n;
	put4(x, 0);
	put4(x, (uint32_t)(x->n - cie_at));	/* CIE pointer: back from this field */
	int32_t rel = (int32_t)(start - (VADDR + x->n));
	put4(x, (uint32_t)rel);
	put4(x, range);
	uleb(x, 0);		/* augmentation data length */
	putn(x, ins, n);
	while ((x->n - at) % 8)
		put1(x, 0);
	uint32_t len = (uint32_t)(x->n - at - 4);
	memcpy(x->b + at, &len, 4);
}

/* ---- compiling --------------------------------------------------------- */

/* Room for any real object's rows (this test program's own .eh_frame grows
 * with libmon.a); instances are static, so zeroed and off the stack. */
#define MAX_ROWS (1 << 16)
struct rows {
	struct mon_cfi_row r[MAX_ROWS];
	size_t n;
	size_t fail_at;		/* emit fails at this row (0: never) */
};

static int emit(void *arg, const struct mon_cfi_row *row)
{
	struct rows *o = arg;
	if (o->fail_at && o->n + 1 == o->fail_at)
		return -1;
	if (o->n == sizeof o->r / sizeof o->r[0])
		return -1;
	o->r[o->n++] = *row;
	return 0;
}

static long compile(const struct bytes *x, struct rows *o)
{
	struct mon_cfi_input in = { x->b, x->n, VADDR, TEXT_LO, TEXT_HI, 0, &mon_arch_cfi, NULL, NULL };
	o->n = 0;
	return mon_cfi_compile(&in, emit, o);
}

static void row_is(const struct mon_cfi_row *r, uint32_t pc, unsigned kind, int32_t cfa_off,
		   unsigned aux, int16_t fp_off)
{
	assert_int_equal(r->pc, pc);
	assert_int_equal(r->kind, kind);
	if (kind != MON_CFI_NONE && kind != MON_CFI_END && kind != MON_CFI_STOP)
		assert_int_equal(r->cfa_off, cfa_off);
	assert_int_equal(r->aux, aux);
	if (aux & (MON_CFI_FP_SAVED | MON_CFI_FP_AT_FP) || kind == MON_CFI_PLT)
		assert_int_equal(r->fp_off, fp_off);
}

/* push %rbp; mov %rsp,%rbp; ...; leave; ret — gcc -O0's CFI. */
static const uint8_t prologue[] = {
	0x41,			/* advance_loc 1 */
	0x0e, 16,		/* def_cfa_offset 16 */
	0x80 | 6, 2,		/* offset rbp at cfa-16 */
	0x43,			/* advance_loc 3 */
	0x0d, 6,		/* def_cfa_register rbp */
	0x02, 0x20,		/* advance_loc1 32 */
	0x0c, 7, 8,		/* def_cfa rsp 8 */
};

static void frame_pointer_prologue(void **state)
{
	(void)state;
	struct bytes x = { { 0 }, 0 };
	size_t c = cie(&x, "zR", 0x1b);
	fde(&x, c, 0x2000, 0x30, prologue, sizeof prologue);
	put4(&x, 0);	/* terminator */
	static struct rows o;
	assert_int_equal(compile(&x, &o), 1);
	assert_int_equal(o.n, 5);
	row_is(&o.r[0], 0x2000, MON_CFI_SP, 8, 0, 0);
	row_is(&o.r[1], 0x2001, MON_CFI_SP, 16, MON_CFI_FP_SAVED, -16);
	row_is(&o.r[2], 0x2004, MON_CFI_FP, 16, MON_CFI_FP_SAVED, -16);
	row_is(&o.r[3], 0x2024, MON_CFI_SP, 8, MON_CFI_FP_SAVED, -16);
	row_is(&o.r[4], 0x2030, MON_CFI_NONE, 0, 0, 0);
	/* Rows are offsets from the base. */
	struct mon_cfi_input in = { x.b, x.n, VADDR, TEXT_LO, TEXT_HI, 0x1000, &mon_arch_cfi, NULL,
				    NULL };
	o.n = 0;
	assert_int_equal(mon_cfi_compile(&in, emit, &o), 1);
	assert_int_equal(o.r[0].pc, 0x1000);
}

/* binutils' PLT expression and gcc's DRAP expression. */
static void expressions(void **state)
{
	(void)state;
	static const uint8_t plt[] = {
		0x0f, 11, 0x77, 8, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22,
	};
	static const uint8_t drap[] = {
		0x0f, 3, 0x76, 0x78, 0x06,	/* breg6 -8; deref */
		0x00,				/* nop */
	};
	static const uint8_t other[] = { 0x0f, 2, 0x77, 0x10 };	/* breg7 16 alone: not known */
	struct bytes x = { { 0 }, 0 };
	size_t c = cie(&x, "zR", 0x1b);
	fde(&x, c, 0x3000, 0x10, plt, sizeof plt);
	fde(&x, c, 0x4000, 0x10, drap, sizeof drap);
	fde(&x, c, 0x5000, 0x10, other, sizeof other);
	static struct rows o;
	assert_int_equal(compile(&x, &o), 3);
	assert_int_equal(o.n, 6);
	row_is(&o.r[0], 0x3000, MON_CFI_PLT, 8, 0, 11);
	assert_int_equal(mon_arch_plt_cfa(0x7000, 0x300a, o.r[0].cfa_off, o.r[0].fp_off), 0x7008);
	assert_int_equal(mon_arch_plt_cfa(0x7000, 0x300b, o.r[0].cfa_off, o.r[0].fp_off), 0x7010);
	row_is(&o.r[1], 0x3010, MON_CFI_NONE, 0, 0, 0);
	row_is(&o.r[2], 0x4000, MON_CFI_DEREF, -8, 0, 0);
	row_is(&o.r[4], 0x5000, MON_CFI_STOP, 0, 0, 0);
}

/* 'S' (a signal trampoline), DW_CFA_undefined r16 (the outermost frame),
 * remember/restore_state, an opcode no DWARF version has. */
static void special_rules(void **state)
{
	(void)state;
	static const uint8_t undef_ra[] = { 0x07, 16 };
	static const uint8_t states[] = {
		0x41, 0x0e, 16, 0x0a,	/* +1: cfa rsp+16; remember */
		0x41, 0x0e, 32,		/* +1: cfa rsp+32 */
		0x41, 0x0b,		/* +1: restore: rsp+16 again */
		0x41, 0x0b,		/* +1: restore with nothing remembered: the FDE ends */
	};
	static const uint8_t bad_op[] = { 0x41, 0x3f, 0x41, 0x0e, 16 };
	struct bytes x = { { 0 }, 0 };
	size_t cs = cie(&x, "zRS", 0x1b);
	fde(&x, cs, 0x1000, 0x20, NULL, 0);
	size_t c = cie(&x, "zR", 0x1b);
	fde(&x, c, 0x2000, 0x10, undef_ra, sizeof undef_ra);
	fde(&x, c, 0x3000, 0x10, states, sizeof states);
	fde(&x, c, 0x4000, 0x10, bad_op, sizeof bad_op);
	static struct rows o;
	assert_int_equal(compile(&x, &o), 4);
	row_is(&o.r[0], 0x1000, MON_CFI_SIGNAL, 0, 0, 0);
	row_is(&o.r[1], 0x1020, MON_CFI_NONE, 0, 0, 0);
	row_is(&o.r[2], 0x2000, MON_CFI_END, 0, 0, 0);
	row_is(&o.r[3], 0x2010, MON_CFI_NONE, 0, 0, 0);
	row_is(&o.r[4], 0x3000, MON_CFI_SP, 8, 0, 0);
	row_is(&o.r[5], 0x3001, MON_CFI_SP, 16, 0, 0);
	row_is(&o.r[6], 0x3002, MON_CFI_SP, 32, 0, 0);
	row_is(&o.r[7], 0x3003, MON_CFI_SP, 16, 0, 0);
	row_is(&o.r[8], 0x3004, MON_CFI_STOP, 0, 0, 0);	/* unreadable from here on */
	row_is(&o.r[9], 0x3010, MON_CFI_NONE, 0, 0, 0);
	row_is(&o.r[10], 0x4000, MON_CFI_SP, 8, 0, 0);
	row_is(&o.r[11], 0x4001, MON_CFI_STOP, 0, 0, 0);
	row_is(&o.r[12], 0x4010, MON_CFI_NONE, 0, 0, 0);
	assert_int_equal(o.n, 13);
}

static uint64_t deref_value;

static int deref(void *arg, uint64_t addr, uint64_t *value)
{
	assert_ptr_equal(arg, &deref_value);
	if (addr != VADDR + 0x800)
		return 0;
	*value = deref_value;
	return 1;
}

/* An FDE whose start is indirect (0x9b: indirect pcrel sdata4); and FDEs
 * outside [TEXT_LO, TEXT_HI), which are skipped. */
static void indirect_and_range(void **state)
{
	(void)state;
	struct bytes x = { { 0 }, 0 };
	size_t c = cie(&x, "zR", 0x9b);
	size_t at = x.n;
	put4(&x, 0);
	put4(&x, (uint32_t)(x.n - c));
	put4(&x, (uint32_t)(int32_t)(VADDR + 0x800 - (VADDR + x.n)));	/* -> the pointer */
	put4(&x, 0x40);
	uleb(&x, 0);
	while ((x.n - at) % 8)
		put1(&x, 0);
	uint32_t len = (uint32_t)(x.n - at - 4);
	memcpy(x.b + at, &len, 4);
	size_t c2 = cie(&x, "zR", 0x1b);
	fde(&x, c2, 0x100, 0x10, NULL, 0);	/* below the text */
	fde(&x, c2, 0x8ff0, 0x20, NULL, 0);	/* runs past its end */
	static struct rows o;
	assert_int_equal(compile(&x, &o), 0);	/* no reader: the indirect FDE is skipped */
	assert_int_equal(o.n, 0);
	deref_value = 0x6000;
	struct mon_cfi_input in = { x.b, x.n, VADDR, TEXT_LO, TEXT_HI, 0, &mon_arch_cfi, deref,
				    &deref_value };
	o.n = 0;
	assert_int_equal(mon_cfi_compile(&in, emit, &o), 1);
	assert_int_equal(o.n, 2);
	row_is(&o.r[0], 0x6000, MON_CFI_SP, 8, 0, 0);
	row_is(&o.r[1], 0x6040, MON_CFI_NONE, 0, 0, 0);
}

/* Every prefix of a valid section and every single-byte change compile
 * without reading outside it (ASan's build checks that) and give rows
 * inside the text range only; a failing emitter stops the compile. */
static void truncations_and_failures(void **state)
{
	(void)state;
	struct bytes x = { { 0 }, 0 };
	size_t c = cie(&x, "zR", 0x1b);
	fde(&x, c, 0x2000, 0x30, prologue, sizeof prologue);
	fde(&x, c, 0x3000, 0x30, prologue, sizeof prologue);
	static struct rows o;
	for (size_t n = 0; n <= x.n; n++) {
		uint8_t copy[4096];
		memcpy(copy, x.b, n);
		struct mon_cfi_input in = { copy, n, VADDR, TEXT_LO, TEXT_HI, 0, &mon_arch_cfi, NULL,
					    NULL };
		o.n = 0;
		long got = mon_cfi_compile(&in, emit, &o);
		assert_true(got >= 0 && got <= 2);
		for (size_t i = 0; i < o.n; i++)
			assert_true(o.r[i].pc >= TEXT_LO && o.r[i].pc <= TEXT_HI);
	}
	for (size_t i = 0; i < x.n; i++)
		for (unsigned v = 0; v < 256; v += 17) {
			struct bytes y = x;
			y.b[i] = (uint8_t)v;
			assert_true(compile(&y, &o) >= 0);
			for (size_t k = 0; k < o.n; k++)
				assert_true(o.r[k].pc >= TEXT_LO && o.r[k].pc <= TEXT_HI);
		}
	o.fail_at = 3;
	struct mon_cfi_input in = { x.b, x.n, VADDR, TEXT_LO, TEXT_HI, 0, &mon_arch_cfi, NULL, NULL };
	o.n = 0;
	assert_int_equal(mon_cfi_compile(&in, emit, &o), -1);
	assert_int_equal(o.n, 2);
	o.fail_at = 0;
}

static void sort_and_squeeze(void **state)
{
	(void)state;
	struct mon_cfi_row r[6] = {
		{ .pc = 0x30, .cfa_off = 8, .kind = MON_CFI_SP },
		{ .pc = 0x10, .cfa_off = 8, .kind = MON_CFI_SP },
		{ .pc = 0x20, .cfa_off = 0, .kind = MON_CFI_NONE },
		{ .pc = 0x20, .cfa_off = 8, .kind = MON_CFI_SP },	/* the next FDE's first row at the same pc */
		{ .pc = 0x18, .cfa_off = 8, .kind = MON_CFI_SP },	/* says what 0x10 says */
		{ .pc = 0x40, .cfa_off = 0, .kind = MON_CFI_NONE },
	}, tmp[6];
	assert_false(mon_cfi_sorted(r, 6));
	mon_cfi_sort(r, tmp, 6);
	assert_true(mon_cfi_sorted(r, 6));
	assert_int_equal(r[0].pc, 0x10);
	assert_int_equal(r[2].pc, 0x20);
	assert_int_equal(r[2].kind, MON_CFI_NONE);
	assert_int_equal(r[3].kind, MON_CFI_SP);
	size_t n = mon_cfi_squeeze(r, 6);
	/* 0x10 SP, (0x18 repeats it), 0x20: the SP row wins over NONE and
	 * repeats too, 0x30 repeats, 0x40 NONE. */
	assert_int_equal(n, 2);
	assert_int_equal(r[0].pc, 0x10);
	assert_int_equal(r[1].pc, 0x40);
	assert_ptr_equal(mon_cfi_find(r, n, 0x0f), NULL);
	assert_ptr_equal(mon_cfi_find(r, n, 0x3f), &r[0]);
	assert_ptr_equal(mon_cfi_find(r, n, 0x40), &r[1]);
}

/* This program's own .eh_frame: found through PT_GNU_EH_FRAME, compiled,
 * and a row covers this function's own code with a rule the walk follows. */
/* A loaded object's .eh_frame as an input (its executable segments the
 * text range), found through PT_GNU_EH_FRAME, that header in *hdr and
 * the FDE count it gives in *nfde: 1, or 0 when it has none or the header
 * cannot be read. */
static int object_input(const struct dl_phdr_info *info, struct mon_cfi_input *in,
			const ElfW(Phdr) **hdr, uint64_t *nfde)
{
	uintptr_t lo = UINTPTR_MAX, hi = 0, flimit = 0;
	*hdr = NULL;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_GNU_EH_FRAME)
			*hdr = ph;
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			uintptr_t a = info->dlpi_addr + ph->p_vaddr;
			lo = a < lo ? a : lo;
			hi = a + ph->p_memsz > hi ? a + ph->p_memsz : hi;
		}
	}
	if (*hdr == NULL || hi == 0)
		return 0;
	const uint8_t *h = (const uint8_t *)(info->dlpi_addr + (*hdr)->p_vaddr);
	uint64_t frame;
	if (mon_cfi_eh_frame_hdr(h, (*hdr)->p_memsz, (uintptr_t)h, NULL, NULL, &frame, nfde) != 0)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t slo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && frame >= slo && frame < slo + ph->p_filesz)
			flimit = slo + ph->p_filesz;
	}
	assert_true(flimit > frame);
	struct mon_cfi_input v = { (const uint8_t *)(uintptr_t)frame, flimit - frame, frame, lo, hi,
				   info->dlpi_addr, &mon_arch_cfi, NULL, NULL };
	*in = v;
	return 1;
}

struct own {
	uintptr_t pc;
	int found;
	long nfde;
	const struct mon_cfi_row *hit;
	struct rows *o;
};

static int own_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct own *w = arg;
	const ElfW(Phdr) *hdr;
	struct mon_cfi_input in;
	uint64_t nfde;
	if (!object_input(info, &in, &hdr, &nfde) || w->pc < in.text_lo || w->pc >= in.text_hi)
		return 0;
	w->o->n = 0;
	w->nfde = mon_cfi_compile(&in, emit, w->o);
	assert_true(w->nfde > 0);
	assert_true((uint64_t)w->nfde <= nfde);
	struct rows *o = w->o;
	static struct mon_cfi_row tmp[MAX_ROWS];
	if (!mon_cfi_sorted(o->r, o->n))
		mon_cfi_sort(o->r, tmp, o->n);
	o->n = mon_cfi_squeeze(o->r, o->n);
	w->hit = mon_cfi_find(o->r, o->n, (uint32_t)(w->pc - info->dlpi_addr));
	w->found = 1;
	return 1;
}

static void own_eh_frame(void **state)
{
	(void)state;
	static struct rows o;
	struct own w = { (uintptr_t)own_eh_frame, 0, 0, NULL, &o };
	dl_iterate_phdr(own_object, &w);
	assert_true(w.found);
	assert_non_null(w.hit);
	assert_true(w.hit->kind == MON_CFI_SP || w.hit->kind == MON_CFI_FP);
}

/* ---- compiling in the search table's order ----------------------------- */

/* An .eh_frame_hdr for x (at VADDR) at HDR_VADDR: version 1, .eh_frame's
 * address pcrel sdata4, the count udata4, the table datarel sdata4 with
 * the n pairs (loc[i], VADDR + at[i]) as given. */
#define HDR_VADDR 0x200000u
static void eh_hdr(struct bytes *h, const uint64_t *loc, const size_t *at, size_t n)
{
	h->n = 0;
	put1(h, 1);
	put1(h, 0x1b);
	put1(h, 0x03);
	put1(h, 0x3b);
	put4(h, (uint32_t)(int32_t)((int64_t)VADDR - (int64_t)(HDR_VADDR + 4)));
	put4(h, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		put4(h, (uint32_t)(int32_t)((int64_t)loc[i] - HDR_VADDR));
		put4(h, (uint32_t)(int32_t)((int64_t)(VADDR + at[i]) - HDR_VADDR));
	}
}

static long compile_by_table(const struct bytes *x, const struct bytes *h, struct rows *o)
{
	struct mon_cfi_input in = { x->b, x->n, VADDR, TEXT_LO, TEXT_HI, 0, &mon_arch_cfi, NULL, NULL };
	static uint64_t marks[64];
	o->n = 0;
	return mon_cfi_compile_by_table(&in, h->b, h->n, HDR_VADDR, marks, 64, emit, o);
}

/* Three FDEs laid out out of order: in the table's order their rows come
 * out sorted, each followed by its end; a table that misses an FDE, lists
 * one twice, is out of order or names another .eh_frame is refused (-2)
 * with nothing emitted. */
static void table_order(void **state)
{
	(void)state;
	static struct bytes x, h;
	static struct rows o;
	x.n = 0;
	size_t c = cie(&x, "zR", 0x1b);
	size_t at[3];
	at[0] = x.n;
	fde(&x, c, 0x3000, 0x40, prologue, sizeof prologue);
	at[1] = x.n;
	fde(&x, c, 0x1000, 0x40, prologue, sizeof prologue);
	at[2] = x.n;
	fde(&x, c, 0x2000, 0x20, NULL, 0);
	put4(&x, 0);

	/* In .eh_frame's order the rows need a sort. */
	assert_int_equal(compile(&x, &o), 3);
	assert_false(mon_cfi_sorted(o.r, o.n));
	static struct mon_cfi_row want[64], tmp[64];
	size_t nwant = o.n;
	memcpy(want, o.r, nwant * sizeof *want);
	mon_cfi_sort(want, tmp, nwant);
	nwant = mon_cfi_squeeze(want, nwant);

	uint64_t loc[3] = { 0x1000, 0x2000, 0x3000 };
	size_t ord[3] = { at[1], at[2], at[0] };
	eh_hdr(&h, loc, ord, 3);
	assert_int_equal(compile_by_table(&x, &h, &o), 3);
	assert_true(mon_cfi_sorted(o.r, o.n));
	assert_int_equal(o.r[0].pc, 0x1000);
	assert_int_equal(o.r[o.n - 1].pc, 0x3040);
	assert_int_equal(o.r[o.n - 1].kind, MON_CFI_NONE);
	size_t n = mon_cfi_squeeze(o.r, o.n);
	assert_int_equal(n, nwant);
	assert_memory_equal(o.r, want, n * sizeof *want);

	/* Refused: an FDE missing, one listed twice, locations not
	 * increasing, another .eh_frame, a table cut short. */
	eh_hdr(&h, loc, ord, 2);
	assert_int_equal(compile_by_table(&x, &h, &o), -2);
	assert_int_equal(o.n, 0);
	size_t twice[3] = { at[1], at[1], at[0] };
	eh_hdr(&h, loc, twice, 3);
	assert_int_equal(compile_by_table(&x, &h, &o), -2);
	/* Entries that pass a count, sum and xor of offsets but are not the
	 * FDEs (a reviewer's forged table): one into the CIE, one past an
	 * FDE's start by the same amount. */
	size_t forged[3] = { c + 4, at[2], at[0] - 4 };
	eh_hdr(&h, loc, forged, 3);
	assert_int_equal(compile_by_table(&x, &h, &o), -2);
	assert_int_equal(o.n, 0);
	size_t into[3] = { at[1], at[2], at[0] + 8 };
	eh_hdr(&h, loc, into, 3);
	assert_int_equal(compile_by_table(&x, &h, &o), -2);
	uint64_t down[3] = { 0x2000, 0x1000, 0x3000 };
	eh_hdr(&h, down, ord, 3);
	assert_int_equal(compile_by_table(&x, &h, &o), -2);
	eh_hdr(&h, loc, ord, 3);
	h.b[4] ^= 0x10;
	assert_int_equal(compile_by_table(&x, &h, &o), -2);
	eh_hdr(&h, loc, ord, 3);
	for (size_t cut = 0; cut < h.n; cut++) {
		struct bytes t = h;
		t.n = cut;
		assert_int_equal(compile_by_table(&x, &t, &o), -2);
		assert_int_equal(o.n, 0);
	}
	assert_int_equal(compile_by_table(&x, &h, &o), 3);
}

/* Every object of this program with an .eh_frame_hdr (itself, the C
 * library, ld.so, cmocka): compiled in the table's order, the rows are the
 * ones .eh_frame's order gives once sorted and squeezed, and the C
 * library's come out sorted (the runtime then needs no sort for it). */
struct both {
	int objects, by_table, libc_by_table;
};

static int compile_both(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct both *bo = arg;
	const ElfW(Phdr) *hdr;
	struct mon_cfi_input in;
	uint64_t nfde;
	if (info->dlpi_name == NULL || strstr(info->dlpi_name, "vdso") ||
	    !object_input(info, &in, &hdr, &nfde))
		return 0;
	const uint8_t *h = (const uint8_t *)(info->dlpi_addr + hdr->p_vaddr);
	static struct rows a, b;
	static struct mon_cfi_row tmp[MAX_ROWS];
	a.n = b.n = 0;
	long na = mon_cfi_compile(&in, emit, &a);
	assert_true(na > 0);
	if (!mon_cfi_sorted(a.r, a.n))
		mon_cfi_sort(a.r, tmp, a.n);
	a.n = mon_cfi_squeeze(a.r, a.n);
	static uint64_t marks[1 << 16];
	long nb = mon_cfi_compile_by_table(&in, h, hdr->p_memsz, (uintptr_t)h, marks, 1 << 16, emit,
					   &b);
	bo->objects++;
	if (nb == -2 || !mon_cfi_sorted(b.r, b.n))
		return 0;
	assert_int_equal(nb, na);
	b.n = mon_cfi_squeeze(b.r, b.n);
	assert_int_equal(b.n, a.n);
	assert_memory_equal(b.r, a.r, a.n * sizeof *a.r);
	bo->by_table++;
	if (strstr(info->dlpi_name, "/libc.so"))
		bo->libc_by_table = 1;
	return 0;
}

static void table_order_real_objects(void **state)
{
	(void)state;
	struct both bo = { 0, 0, 0 };
	dl_iterate_phdr(compile_both, &bo);
	assert_true(bo.objects >= 3);
	assert_true(bo.by_table >= 3);
	assert_true(bo.libc_by_table);
}

/* ---- a machine with a link register (aarch64's rules) ------------------- */

/* lib/arch/aarch64/arch.c's rules, written out: this test runs on any
 * host, where the build's arch.h is the host's. */
static void no_expr(const uint8_t *e, size_t n, struct mon_cfi_expr *out)
{
	(void)e;
	(void)n;
	out->kind = MON_CFI_STOP;
	out->off = out->arg = 0;
}

static const struct mon_cfi_machine a64 = {
	.sp_reg = 31, .fp_reg = 29, .ra_cfa_off = 0, .ra_in_reg = 1, .addr_size = 8,
	.ignore_op = 0x2d, .cfa_expr = no_expr,
};

static long compile_a64(const struct bytes *x, struct rows *o)
{
	struct mon_cfi_input in = { x->b, x->n, VADDR, TEXT_LO, TEXT_HI, 0, &a64, NULL, NULL };
	o->n = 0;
	return mon_cfi_compile(&in, emit, o);
}

/* AArch64 gcc's code: a leaf (no CFI instruction: the return address is
 * in x30, CFA = sp), a prologue "paciasp; stp x29, x30, [sp, -32]!; mov
 * x29, sp" (negate_ra_state; def_cfa_offset 32; offset x29 at cfa-32, x30
 * at cfa-24; def_cfa_register x29), an -fomit-frame-pointer non-leaf
 * ("stp x19, x30, [sp, -16]!": x30 at cfa-8, x29 untouched), same_value
 * and restore of x30, a 70000-byte frame (x30 at cfa-70024: too far for a
 * row's 16 bits).  Mutations caught: the initial "in its register" rule
 * (ra_in_reg) dropped (every leaf row becomes MON_CFI_STOP); ignore_op not
 * honoured (the prologue's rows after paciasp become MON_CFI_STOP); ra_off
 * not stored (the walk would read the return address at the wrong slot);
 * the 16-bit bound on ra_off dropped (a truncated offset). */
static void link_register_machine(void **state)
{
	(void)state;
	static struct rows o;
	struct bytes x = { { 0 }, 0 };
	size_t c = cie_ra(&x, "zR", 0x1b, 30);
	fde(&x, c, 0x1000, 0x10, NULL, 0);		/* a leaf */
	static const uint8_t a64_prologue[] = {
		0x2d,			/* AARCH64_negate_ra_state (paciasp) */
		0x44,			/* advance_loc 4 */
		0x0e, 32,		/* def_cfa_offset 32 */
		0x80 | 29, 4,		/* offset x29, 4 * -8 */
		0x80 | 30, 3,		/* offset x30, 3 * -8 */
		0x44,			/* advance_loc 4 */
		0x0d, 29,		/* def_cfa_register x29 */
		0x48,			/* advance_loc 8 */
		0x08, 30,		/* same_value x30 */
		0x44,			/* advance_loc 4 */
		0xc0 | 30,		/* restore x30 */
	};
	fde(&x, c, 0x2000, 0x20, a64_prologue, sizeof a64_prologue);
	static const uint8_t nofp[] = {
		0x44, 0x0e, 16, 0x80 | 19, 2, 0x80 | 30, 1,	/* stp x19, x30, [sp, -16]! */
	};
	fde(&x, c, 0x3000, 0x10, nofp, sizeof nofp);
	static const uint8_t big[] = {
		0x44, 0x0e, 0xf0, 0xa2, 0x04,	/* def_cfa_offset 70000 */
		0x80 | 30, 0xb1, 0x44,		/* offset x30, 8753 * -8 = -70024 */
	};
	fde(&x, c, 0x4000, 0x10, big, sizeof big);
	assert_int_equal(compile_a64(&x, &o), 4);
	size_t i = 0;
	/* the leaf */
	row_is(&o.r[i], 0x1000, MON_CFI_SP, 0, MON_CFI_RA_REG, 0);
	i++;
	row_is(&o.r[i++], 0x1010, MON_CFI_NONE, 0, 0, 0);
	/* the frame-record prologue */
	row_is(&o.r[i++], 0x2000, MON_CFI_SP, 0, MON_CFI_RA_REG, 0);
	row_is(&o.r[i], 0x2004, MON_CFI_SP, 32, MON_CFI_FP_SAVED, -32);
	assert_int_equal(o.r[i].ra_off, -24);
	i++;
	row_is(&o.r[i], 0x2008, MON_CFI_FP, 32, MON_CFI_FP_SAVED, -32);
	assert_int_equal(o.r[i].ra_off, -24);
	i++;
	row_is(&o.r[i++], 0x2010, MON_CFI_FP, 32, MON_CFI_FP_SAVED | MON_CFI_RA_REG, -32);
	row_is(&o.r[i++], 0x2014, MON_CFI_FP, 32, MON_CFI_FP_SAVED | MON_CFI_RA_REG, -32);
	row_is(&o.r[i++], 0x2020, MON_CFI_NONE, 0, 0, 0);
	/* -fomit-frame-pointer: x30 at cfa-8, the FP unchanged */
	row_is(&o.r[i++], 0x3000, MON_CFI_SP, 0, MON_CFI_RA_REG, 0);
	row_is(&o.r[i], 0x3004, MON_CFI_SP, 16, 0, 0);
	assert_int_equal(o.r[i].ra_off, -8);
	i++;
	row_is(&o.r[i++], 0x3010, MON_CFI_NONE, 0, 0, 0);
	/* the big frame: the return address too far for a row */
	row_is(&o.r[i++], 0x4000, MON_CFI_SP, 0, MON_CFI_RA_REG, 0);
	row_is(&o.r[i++], 0x4004, MON_CFI_STOP, 0, 0, 0);
	row_is(&o.r[i++], 0x4010, MON_CFI_NONE, 0, 0, 0);
	assert_int_equal(o.n, i);

	/* The x86-64 machine keeps its rules: a return address anywhere but
	 * CFA - 8, or "same value", is not followed. */
	struct bytes y = { { 0 }, 0 };
	c = cie(&y, "zR", 0x1b);
	static const uint8_t moved[] = { 0x44, 0x0e, 16, 0x80 | 16, 2, 0x44, 0x08, 16 };
	fde(&y, c, 0x2000, 0x10, moved, sizeof moved);
	struct mon_cfi_machine x86 = { .sp_reg = 7, .fp_reg = 6, .ra_cfa_off = -8, .addr_size = 8,
				       .cfa_expr = no_expr };
	struct mon_cfi_input in = { y.b, y.n, VADDR, TEXT_LO, TEXT_HI, 0, &x86, NULL, NULL };
	o.n = 0;
	assert_int_equal(mon_cfi_compile(&in, emit, &o), 1);
	row_is(&o.r[0], 0x2000, MON_CFI_SP, 8, 0, 0);
	assert_int_equal(o.r[0].ra_off, -8);
	row_is(&o.r[1], 0x2004, MON_CFI_STOP, 0, 0, 0);
	row_is(&o.r[2], 0x2008, MON_CFI_STOP, 0, 0, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(frame_pointer_prologue),
		cmocka_unit_test(expressions),
		cmocka_unit_test(special_rules),
		cmocka_unit_test(indirect_and_range),
		cmocka_unit_test(truncations_and_failures),
		cmocka_unit_test(sort_and_squeeze),
		cmocka_unit_test(own_eh_frame),
		cmocka_unit_test(table_order),
		cmocka_unit_test(table_order_real_objects),
		cmocka_unit_test(link_register_machine),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
