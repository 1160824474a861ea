/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mcount.S — the AArch64 entry point of code built for call counting
 * (mcount.c counts the arcs).
 *
 * _mcount: gcc -pg calls it after the instrumented function's prologue as
 *     mov x0, x30        (x30 stripped of its PAC first: xpaclri)
 *     bl  _mcount
 * so x0 is the function's return address (frompc, the caller's PC) and
 * x30 our return address, inside the function (selfpc).  gcc emits the
 * call as an ordinary one (AAPCS64: it saves the function's argument
 * registers x0-x8 and v0-v7 itself, checked with aarch64-linux-gnu-gcc -pg
 * -S), so _mcount may clobber every caller-saved register, as glibc's C
 * _mcount does.  gcc for AArch64 has no -mfentry: no __fentry__ here.
 *
 * Counting off (mon_counting, a 32-bit word, 0): return.  Else a tail
 * call mon_count(frompc, selfpc), which returns into the function.
 */
	.hidden mon_counting
	.hidden mon_count

	.text
	.globl _mcount
	.type _mcount, %function
	.p2align 2
_mcount:
	.cfi_startproc			/* CFA sp, return address x30: an unwinder goes on */
	adrp x2, mon_counting
	ldr w2, [x2, :lo12:mon_counting]
	cbz w2, 1f
	mov x1, x30			/* selfpc */
	b mon_count			/* (x0 = frompc) returns to x30 */
1:	ret
	.cfi_endproc
	.size _mcount, .-_mcount

	.section .note.GNU-stack, "", %progbits
