/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arch.c — the AArch64 rules the CFI does not state in general terms
 * (arch.h): the vDSO's signal trampoline, PLT stubs, and the CFI's own
 * vendor opcode.
 */
#include "arch.h"

/* gcc emits no CFA expression on AArch64 (no PLT rule, no stack
 * realignment): every one ends the walk (MON_CFI_STOP). */
static void cfa_expr(const uint8_t *e, size_t n, struct mon_cfi_expr *out)
{
	(void)e;
	(void)n;
	out->kind = MON_CFI_STOP;
	out->off = 0;
	out->arg = 0;
}

const struct mon_cfi_machine mon_arch_cfi = {
	.sp_reg = MON_ARCH_DW_SP,
	.fp_reg = MON_ARCH_DW_FP,
	.ra_cfa_off = 0,
	.ra_in_reg = 1,
	.addr_size = 8,
	/* DW_CFA_AARCH64_negate_ra_state: the return address is signed from
	 * here (paciasp) or no longer (autiasp); the walk strips the
	 * signature of every return address (mon_arch_strip_ra). */
	.ignore_op = 0x2d,
	.cfa_expr = cfa_expr,
};

/* The instruction (little-endian, 4-byte aligned) at a: loaded text.  Not
 * instrumented by a sanitizer (its interceptors check their shadow of
 * another object's text: see lib/arch/x86_64/arch.c). */
__attribute__((no_sanitize("address", "thread"))) static uint32_t insn_at(uintptr_t a)
{
	return *(const volatile uint32_t *)a;
}

#define INSN_MOV_X8_139 0xd2801168u	/* movz x8, #139 (__NR_rt_sigreturn) */
#define INSN_SVC_0 0xd4000001u

/* The kernel's FDE starts at a NOP before __kernel_rt_sigreturn (so that
 * an unwinder's return address - 1 falls inside): look in its first 16
 * bytes. */
int mon_arch_sigreturn_at(uintptr_t start, uintptr_t end)
{
	if (start & 3)
		return -1;
	for (uintptr_t a = start; a + MON_ARCH_SIGRETURN_LEN <= end && a < start + 16; a += 4)
		if (insn_at(a) == INSN_MOV_X8_139 && insn_at(a + 4) == INSN_SVC_0)
			return (int)(a - start);
	return -1;
}

/* A PLT entry of binutils' ld (bfd/elfnn-aarch64.c,
 * elfNN_aarch64_small_plt_entry), 16 bytes, 16-byte aligned:
 *   adrp x16, page        1001 0000 .... ....  .... .... ...1 0000
 *   ldr  x17, [x16, #n]   1111 1001 01.. ....  .... ..10 0001 0001
 *   add  x16, x16, #n     1001 0001 00.. ....  .... ..10 0001 0000
 *   br   x17              1101 0110 0001 1111  0000 0010 0010 0000 */
int mon_arch_in_plt(uintptr_t pc)
{
	if (pc & 3)
		return 0;
	uintptr_t e = pc & ~(uintptr_t)15;	/* the same page as pc: mapped */
	return (insn_at(e) & 0x9f00001fu) == 0x90000010u &&
	       (insn_at(e + 4) & 0xffc003ffu) == 0xf9400211u &&
	       (insn_at(e + 8) & 0xffc003ffu) == 0x91000210u && insn_at(e + 12) == 0xd61f0220u;
}
