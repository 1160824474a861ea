/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arch.c — the x86-64 rules the CFI does not state in general terms
 * (arch.h): the two CFA expressions gcc and binutils emit, and glibc's
 * signal trampoline.
 */
#include <string.h>

#include "arch.h"

/* DW_CFA_def_cfa_expression (DWARF 4, 6.4.2.2; operations 2.5.1):
 *   the PLT's, from binutils' ld: DW_OP_breg7 (rsp) N; DW_OP_breg16 (rip) 0;
 *     DW_OP_lit15; DW_OP_and; DW_OP_litK; DW_OP_ge; DW_OP_lit3; DW_OP_shl;
 *     DW_OP_plus — CFA = rsp + N + (((rip & 15) >= K) << 3);
 *   gcc's stack realignment ("DRAP"): DW_OP_breg6 (rbp) N; DW_OP_deref —
 *     CFA = *(rbp + N).
 * Anything else: not recognised (MON_CFI_STOP). */
static void cfa_expr(const uint8_t *e, size_t n, struct mon_cfi_expr *out)
{
	out->kind = MON_CFI_STOP;
	out->off = 0;
	out->arg = 0;
	if (n < 2 || (e[0] != 0x77 && e[0] != 0x76))
		return;
	/* The SLEB128 operand of the breg. */
	size_t i = 1;
	int64_t v = 0;
	unsigned shift = 0;
	uint8_t b;
	do {
		if (i == n)
			return;
		b = e[i++];
		if (shift < 64)
			v |= (int64_t)((uint64_t)(b & 0x7f) << shift);
		shift += 7;
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		v |= (int64_t)(~(uint64_t)0 << shift);
	const uint8_t *p = e + i;
	size_t left = n - i;
	if (e[0] == 0x77) {
		static const uint8_t tail1[] = { 0x80, 0x00, 0x3f, 0x1a };	/* breg16 0, lit15, and */
		if (left != sizeof tail1 + 5 || memcmp(p, tail1, sizeof tail1) != 0)
			return;
		p += sizeof tail1;
		/* DW_OP_lit0..15 (0x30..), ge, lit3, shl, plus. */
		if (p[0] < 0x30 || p[0] > 0x3f || p[1] != 0x2a || p[2] != 0x33 || p[3] != 0x24 ||
		    p[4] != 0x22)
			return;
		out->kind = MON_CFI_PLT;
		out->off = v;
		out->arg = p[0] - 0x30;
	} else {
		if (left != 1 || p[0] != 0x06)	/* DW_OP_deref */
			return;
		out->kind = MON_CFI_DEREF;
		out->off = v;
	}
}

const struct mon_cfi_machine mon_arch_cfi = {
	.sp_reg = MON_ARCH_DW_SP,
	.fp_reg = MON_ARCH_DW_FP,
	.ra_cfa_off = MON_ARCH_RA_CFA_OFF,
	.addr_size = 8,
	.cfa_expr = cfa_expr,
};

static const uint8_t restorer[MON_ARCH_SIGRETURN_LEN] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00,
							  0x00, 0x00, 0x0f, 0x05 };

/* 1 if the n bytes of loaded text at a are want's.  Not through memcmp and
 * not instrumented: a sanitizer's interceptor checks its shadow of the
 * other object's text, and ThreadSanitizer took a SIGBUS doing so in a
 * process under a file size limit (ulimit -f 1). */
__attribute__((no_sanitize("address", "thread"))) static int text_is(uintptr_t a,
									   const uint8_t *want,
									   size_t n)
{
	const volatile uint8_t *p = (const volatile uint8_t *)a;
	for (size_t i = 0; i < n; i++)
		if (p[i] != want[i])
			return 0;
	return 1;
}

/* glibc's FDE for the trampoline starts a byte before __restore_rt (so
 * that a return address - 1 falls inside): look in its first 16 bytes. */
int mon_arch_sigreturn_at(uintptr_t start, uintptr_t end)
{
	for (uintptr_t a = start; a + sizeof restorer <= end && a < start + 16; a++)
		if (text_is(a, restorer, sizeof restorer))
			return (int)(a - start);
	return -1;
}
