/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mcount.S — the x86-64 entry points of code built for call counting
 * (mcount.c counts the arcs; mcount.h gives the table's layout).
 *
 * mcount / _mcount: gcc -pg calls it after the instrumented function's
 * prologue (frame pointer set: 8(%rbp) is the function's return address,
 * the caller's PC; our own return address is inside the function).
 * __fentry__: gcc -pg -mfentry calls it before the prologue (the caller's
 * return address is just above ours).  Both save every register that may
 * hold an argument of the instrumented function (the System V AMD64 ABI's
 * %rdi %rsi %rdx %rcx %r8 %r9, %rax for varargs' vector count, %r10 the
 * static chain of nested functions) and count the arc (frompc, selfpc)
 * with mon_count, which touches no vector register (mcount.c is built
 * general-regs-only).
 *
 * mcount's fast path: counting on (mon_counting, a 32-bit word), and the
 * arc at its home cell of the first table (mon_arc_cell0: cells of
 * ARC_CELL bytes, index hash2(frompc, selfpc) & (2^ARC_BITS0 - 1)): one
 * add to its count, locked unless __libc_single_threaded.  Five registers,
 * no call.  Anything else: mon_count.
 *
 * Both have call-frame information (.cfi_*: the CFA moves with each push
 * and pop), so that a sample taken in them is unwound into the counted
 * function and on: without it the walk took the frame pointer, the
 * counted function's, and skipped that function, charging mcount's time
 * to its caller's caller (a new user's qsort comparator under -pg).
 */
#include "mcount.h"

	.hidden mon_counting
	.hidden mon_arc_cell0
	.hidden mon_count

	.text
	.globl mcount
	.type mcount, @function
	.globl _mcount
	.type _mcount, @function
	.p2align 4
mcount:
_mcount:
	.cfi_startproc
	cmpl $0, mon_counting(%rip)
	je 9f
	pushq %rdi
	.cfi_adjust_cfa_offset 8
	pushq %rsi
	.cfi_adjust_cfa_offset 8
	pushq %rdx
	.cfi_adjust_cfa_offset 8
	pushq %rcx
	.cfi_adjust_cfa_offset 8
	pushq %rax
	.cfi_adjust_cfa_offset 8
	movq 40(%rsp), %rsi		/* selfpc: our return address */
	movq 8(%rbp), %rdi		/* frompc: the function's return address */
	movq mon_arc_cell0(%rip), %rcx
	testq %rcx, %rcx
	jz 2f
	movabsq $HASH2_MUL1, %rax
	imulq %rsi, %rax
	xorq %rdi, %rax
	movabsq $HASH2_MUL2, %rdx
	imulq %rdx, %rax
	movq %rax, %rdx
	shrq $HASH2_SHIFT, %rdx
	xorq %rdx, %rax
	andl $((1 << ARC_BITS0) - 1), %eax
	leaq (%rax,%rax,2), %rax	/* index * 3 ... */
	leaq (%rcx,%rax,8), %rcx	/* ... * 8: the cell (ARC_CELL is 24) */
	cmpq %rsi, ARC_SELFPC(%rcx)
	jne 2f
	cmpq %rdi, ARC_FROMPC(%rcx)
	jne 2f
	movq __libc_single_threaded@GOTPCREL(%rip), %rdx
	cmpb $0, (%rdx)
	je 1f
	addq $1, ARC_COUNT(%rcx)	/* one thread: one instruction is enough */
	jmp 3f
1:	lock addq $1, ARC_COUNT(%rcx)
	jmp 3f
	/* Slow path: mon_count, with every argument register saved. */
2:	pushq %r8
	.cfi_adjust_cfa_offset 8
	pushq %r9
	.cfi_adjust_cfa_offset 8
	pushq %r10
	.cfi_adjust_cfa_offset 8
	pushq %r11
	.cfi_adjust_cfa_offset 8
	call mon_count
	popq %r11
	.cfi_adjust_cfa_offset -8
	popq %r10
	.cfi_adjust_cfa_offset -8
	popq %r9
	.cfi_adjust_cfa_offset -8
	popq %r8
	.cfi_adjust_cfa_offset -8
3:	popq %rax
	.cfi_adjust_cfa_offset -8
	popq %rcx
	.cfi_adjust_cfa_offset -8
	popq %rdx
	.cfi_adjust_cfa_offset -8
	popq %rsi
	.cfi_adjust_cfa_offset -8
	popq %rdi
	.cfi_adjust_cfa_offset -8
9:	ret
	.cfi_endproc
	.size mcount, .-mcount
	.size _mcount, .-_mcount

	.globl __fentry__
	.type __fentry__, @function
	.p2align 4
__fentry__:
	.cfi_startproc
	pushq %rax
	.cfi_adjust_cfa_offset 8
	pushq %rcx
	.cfi_adjust_cfa_offset 8
	pushq %rdx
	.cfi_adjust_cfa_offset 8
	pushq %rsi
	.cfi_adjust_cfa_offset 8
	pushq %rdi
	.cfi_adjust_cfa_offset 8
	pushq %r8
	.cfi_adjust_cfa_offset 8
	pushq %r9
	.cfi_adjust_cfa_offset 8
	pushq %r10
	.cfi_adjust_cfa_offset 8
	subq $8, %rsp			/* 16-byte alignment at the call */
	.cfi_adjust_cfa_offset 8
	movq 72(%rsp), %rsi		/* selfpc */
	movq 80(%rsp), %rdi		/* frompc: the caller's return address */
	call mon_count
	addq $8, %rsp
	.cfi_adjust_cfa_offset -8
	popq %r10
	.cfi_adjust_cfa_offset -8
	popq %r9
	.cfi_adjust_cfa_offset -8
	popq %r8
	.cfi_adjust_cfa_offset -8
	popq %rdi
	.cfi_adjust_cfa_offset -8
	popq %rsi
	.cfi_adjust_cfa_offset -8
	popq %rdx
	.cfi_adjust_cfa_offset -8
	popq %rcx
	.cfi_adjust_cfa_offset -8
	popq %rax
	.cfi_adjust_cfa_offset -8
	ret
	.cfi_endproc
	.size __fentry__, .-__fentry__

	.section .note.GNU-stack, "", @progbits
