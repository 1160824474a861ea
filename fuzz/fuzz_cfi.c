/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_cfi.c — libFuzzer harness for the CFI compiler (lib/cfi.c, with
 * the x86-64 rules of lib/arch/x86_64/arch.c), which the runtime runs on
 * every loaded object's .eh_frame.
 *
 * The input is an .eh_frame image, placed at a fixed address; its first
 * byte picks the text range (all of the 32-bit offsets, or a narrow one)
 * so that both the range checks and the CFA programs get exercised, and
 * the machine (the host's, or a link-register machine: aarch64's rules).
 * Indirect pointers are read from the image itself (a deref that checks
 * its bounds, as the runtime's reads only inside the object).  The input
 * is also read as an .eh_frame_hdr.  Its last bytes (8 times the first
 * byte's top five bits) are also taken as an .eh_frame_hdr of the bytes
 * before them, compiled in its table's order (mon_cfi_compile_by_table):
 * when that is taken and its rows are sorted, they must be the rows
 * mon_cfi_compile gives the same bytes, once sorted and squeezed.
 * Neither may crash,
 * hang or read outside the image; every row emitted must lie in the text
 * range and be of a known kind; sorting must give sorted rows, squeezing
 * no more rows than it got, and mon_cfi_find the row at or below a PC.
 *
 * Built by `make fuzz` with clang -fsanitize=fuzzer,address,undefined.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "cfi.h"

#define VADDR 0x400000u
#define HDR_VADDR 0x800000u	/* where the .eh_frame_hdr of the input's last bytes "is" */
#define MAX_ROWS 65536
#define MAX_MARKS 4096	/* mon_cfi_table_marks of up to 1 MiB of .eh_frame */

struct image {
	const uint8_t *p;
	size_t n;
};

static int deref(void *arg, uint64_t addr, uint64_t *value)
{
	const struct image *im = arg;
	if (addr < VADDR || addr - VADDR > im->n || im->n - (addr - VADDR) < 8)
		return 0;
	memcpy(value, im->p + (addr - VADDR), 8);
	return 1;
}

struct rows {
	struct mon_cfi_row *r;
	size_t n;
	uint64_t lo, hi, base;
};

static int emit(void *arg, const struct mon_cfi_row *row)
{
	struct rows *o = arg;
	if (row->kind > MON_CFI_STOP)
		abort();
	if (row->pc < o->lo - o->base || row->pc > o->hi - o->base)
		abort();
	if (o->n == MAX_ROWS)
		return -1;
	o->r[o->n++] = *row;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A machine with a link register: lib/arch/aarch64/arch.c's rules written
 * out (the harness is built for the host's ARCH), picked by bit 2 of the
 * first byte. */
static void no_expr(const uint8_t *e, size_t n, struct mon_cfi_expr *out)
{
	(void)e;
	(void)n;
	out->kind = MON_CFI_STOP;
	out->off = out->arg = 0;
}

static const struct mon_cfi_machine link_register_machine = {
	.sp_reg = 31, .fp_reg = 29, .ra_cfa_off = 0, .ra_in_reg = 1, .addr_size = 8,
	.ignore_op = 0x2d, .cfa_expr = no_expr,
};

/* The last hlen bytes of in's image as an .eh_frame_hdr of the bytes
 * before them: compiled in its table's order, and checked against
 * mon_cfi_compile of those bytes. */
static void by_table(const struct mon_cfi_input *whole, const uint8_t *copy, size_t hlen)
{
	static struct mon_cfi_row ra[MAX_ROWS], rb[MAX_ROWS], tmp[MAX_ROWS];
	if (hlen == 0 || hlen >= whole->len)
		return;
	uint8_t *hdr = malloc(hlen);	/* its own block: ASan sees a read past it */
	if (hdr == NULL)
		return;
	memcpy(hdr, copy + whole->len - hlen, hlen);
	struct mon_cfi_input in = *whole;
	in.len = whole->len - hlen;
	struct rows b = { rb, 0, whole->text_lo, whole->text_hi, whole->base };
	static uint64_t marks[MAX_MARKS];
	long got = mon_cfi_compile_by_table(&in, hdr, hlen, HDR_VADDR, marks, MAX_MARKS, emit, &b);
	if (got < -2 || (got == -2 && b.n != 0) || (got == -1 && b.n != MAX_ROWS))
		abort();
	if (got >= 0 && mon_cfi_sorted(b.r, b.n)) {
		struct rows a = { ra, 0, whole->text_lo, whole->text_hi, whole->base };
		if (mon_cfi_compile(&in, emit, &a) != got)
			abort();
		if (!mon_cfi_sorted(a.r, a.n))
			mon_cfi_sort(a.r, tmp, a.n);
		a.n = mon_cfi_squeeze(a.r, a.n);
		b.n = mon_cfi_squeeze(b.r, b.n);
		if (a.n != b.n || memcmp(a.r, b.r, a.n * sizeof *a.r) != 0)
			abort();
	}
	free(hdr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct mon_cfi_row rows[MAX_ROWS], tmp[MAX_ROWS];
	if (size < 1)
		return 0;
	/* A copy of exactly the input's size: ASan sees any read past it. */
	uint8_t *copy = malloc(size - 1 ? size - 1 : 1);
	if (copy == NULL)
		return 0;
	memcpy(copy, data + 1, size - 1);
	struct image im = { copy, size - 1 };
	struct rows o = { rows, 0, 0, 0, 0 };
	if (data[0] & 1) {
		o.lo = 0x1000;
		o.hi = 0x1000 + ((uint64_t)data[0] << 8);
		o.base = 0x1000;
	} else {
		o.lo = 0;
		o.hi = UINT32_MAX;
		o.base = 0;
	}
	struct mon_cfi_input in = { copy, size - 1, VADDR, o.lo, o.hi, o.base,
				    (data[0] & 4) ? &link_register_machine : &mon_arch_cfi,
				    (data[0] & 2) ? deref : NULL, &im };
	long got = mon_cfi_compile(&in, emit, &o);
	if (got < -1 || (got == -1 && o.n != MAX_ROWS))
		abort();
	if (!mon_cfi_sorted(o.r, o.n))
		mon_cfi_sort(o.r, tmp, o.n);
	if (!mon_cfi_sorted(o.r, o.n))
		abort();
	size_t before = o.n;
	o.n = mon_cfi_squeeze(o.r, o.n);
	if (o.n > before)
		abort();
	for (size_t i = 0; i < o.n; i++) {
		const struct mon_cfi_row *f = mon_cfi_find(o.r, o.n, o.r[i].pc);
		if (f == NULL || f->pc != o.r[i].pc)
			abort();
	}
	uint64_t frame, nfde;
	(void)mon_cfi_eh_frame_hdr(copy, size - 1, VADDR, deref, &im, &frame, &nfde);
	by_table(&in, copy, (size_t)(data[0] >> 3) * 8);
	free(copy);
	return 0;
}
