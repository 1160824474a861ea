/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arch.h — the AArch64 machine, as the runtime sees it (private to libmon;
 * lib/arch/aarch64/, selected by the Makefile's ARCH): the registers a
 * stack walk needs and where a signal's ucontext_t keeps them, the DWARF
 * numbers of those registers, and the rules of code the CFI does not
 * describe in its general terms (the signal trampoline, return addresses
 * signed by pointer authentication).
 *
 * Sources: "DWARF for the Arm 64-bit Architecture (AArch64)" (ARM IHI
 * 0057), section 4.1 "DWARF register names" (x0-x30 are 0-30, sp 31; the
 * return address column is x30, the link register) and 4.3 (the vendor
 * opcode DW_CFA_AARCH64_negate_ra_state, 0x2d); "Procedure Call Standard
 * for the Arm 64-bit Architecture" (AAPCS64), 6.4.6 "The Frame Pointer" (a
 * frame record of two words, {caller's x29, x30}, at x29); <sys/ucontext.h>
 * (uc_mcontext.pc, .sp, .regs[29], .regs[30]); the kernel's
 * arch/arm64/kernel/signal.c (struct rt_sigframe: a siginfo_t, then the
 * ucontext_t, at the stack pointer when the trampoline runs) and
 * arch/arm64/kernel/vdso/sigreturn.S (__kernel_rt_sigreturn: mov x8, #139
 * (__NR_rt_sigreturn); svc #0, inside an FDE marked a signal frame).
 *
 * The same names as every lib/arch/ARCH/arch.h (docs/architecture.md).
 */
#ifndef MON_ARCH_H
#define MON_ARCH_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

#include "cfi.h"
#include "runtime.h"

#define MON_ARCH_NAME "aarch64"

/* DWARF register numbers. */
#define MON_ARCH_DW_FP 29	/* x29 */
#define MON_ARCH_DW_SP 31	/* sp */
#define MON_ARCH_DW_RA 30	/* x30, the link register: the return address column */

/* The return address of a frame walked by its frame pointer (no CFI):
 * the frame record {x29, x30} is at fp, its CFA fp + 16, the caller's
 * x29 at CFA - 16 and the return address at CFA - 8. */
#define MON_ARCH_RA_CFA_OFF (-8)
#define MON_ARCH_FP_CFA_OFF 16

/* The machine's CFI rules for cfi.c (arch.c). */
MON_HIDDEN extern const struct mon_cfi_machine mon_arch_cfi;

/* A bl puts the return address in x30: a leaf (or a prologue before it
 * saves x30) returns through the register, never through memory. */
#define MON_ARCH_HAS_LR 1

/* A system call of two arguments made here, without the C library (whose
 * wrapper a sanitizer intercepts with frames of its own: the tick's path
 * must stay small on the interrupted thread's stack).  Returns the
 * kernel's result: >= 0, or -errno.  Async-signal-safe. */
static inline long mon_arch_syscall2(long nr, long a0, long a1)
{
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a0;
	register long x1 __asm__("x1") = a1;
	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1) : "memory");
	return x0;
}

/* The interrupted PC, SP, FP (x29) and LR (x30) in a signal's ucontext_t
 * (the third argument of an SA_SIGINFO handler).  Async-signal-safe. */
static inline uintptr_t mon_arch_context_pc(const void *uc)
{
	return (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.pc;
}

static inline uintptr_t mon_arch_context_sp(const void *uc)
{
	return (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.sp;
}

static inline uintptr_t mon_arch_context_fp(const void *uc)
{
	return (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.regs[29];
}

static inline uintptr_t mon_arch_context_lr(const void *uc)
{
	return (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.regs[30];
}

/* The third argument register (x2) in a signal's ucontext_t: where the
 * interrupted code is an SA_SIGINFO handler's first instruction, the
 * address of that handler's own ucontext_t (arch/arm64/kernel/signal.c
 * setup_rt_frame: x0 the signal, x1 its siginfo, x2 its ucontext, in the
 * frame at the stack pointer).  Async-signal-safe. */
static inline uintptr_t mon_arch_context_arg2(const void *uc)
{
	return (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.regs[2];
}

/* The interrupted thread returns from a system call that a signal ended
 * with EINTR: x0 holds -EINTR and the instruction before the PC is
 * SVC #0 (d4000001; before holds the 8 bytes that end at the PC, read by
 * the caller): the kernel leaves -EINTR there for a call it does not
 * restart for a handler, and for one it restarts winds the PC back onto
 * the SVC and x0 back to the first argument (arch/arm64/kernel/signal.c
 * do_signal).  Async-signal-safe. */
static inline long mon_arch_context_result(const void *uc)
{
	return (long)((const ucontext_t *)uc)->uc_mcontext.regs[0];
}

static inline int mon_arch_after_syscall(uint64_t before)
{
	return (uint32_t)(before >> 32) == 0xd4000001u;
}

/* *uc is a context at the first instruction of a call that a signal
 * handler injected by rewriting the context it returned to, as Go's
 * runtime does to preempt a goroutine (runtime/signal_arm64.go,
 * sigctxt.pushCall: SP less 16, the old LR stored at SP, LR the
 * interrupted PC, PC the function's): undo that in place, *uc becoming the
 * interrupted code's context (x29 was not touched), what it held into
 * *saved for mon_arch_injected_call_redo.  The word at SP is read: it is on
 * the thread's stack, written by the handler that just returned.  1 if
 * undone, 0 (nothing changed) if SP cannot be a stack pointer. */
struct mon_arch_injected {
	uint64_t pc, sp, lr;
};

static inline int mon_arch_injected_call_undo(void *ucv, struct mon_arch_injected *saved)
{
	ucontext_t *uc = ucv;
	uintptr_t sp = (uintptr_t)uc->uc_mcontext.sp;
	if (sp == 0 || sp % 16 != 0)
		return 0;
	saved->pc = uc->uc_mcontext.pc;
	saved->sp = uc->uc_mcontext.sp;
	saved->lr = uc->uc_mcontext.regs[30];
	uc->uc_mcontext.pc = uc->uc_mcontext.regs[30];
	uc->uc_mcontext.regs[30] = *(const uint64_t *)sp;
	uc->uc_mcontext.sp = sp + 16;
	return 1;
}

/* Put back what mon_arch_injected_call_undo changed. */
static inline void mon_arch_injected_call_redo(void *ucv, const struct mon_arch_injected *saved)
{
	ucontext_t *uc = ucv;
	uc->uc_mcontext.pc = saved->pc;
	uc->uc_mcontext.sp = saved->sp;
	uc->uc_mcontext.regs[30] = saved->lr;
}


/* A ucontext_t that starts a walk at pc, sp and fp, the link register not
 * known (0: a frame whose return address is still in it ends the walk);
 * *uc zeroed by the caller. */
static inline void mon_arch_context_set(ucontext_t *uc, uintptr_t pc, uintptr_t sp, uintptr_t fp)
{
	uc->uc_mcontext.pc = pc;
	uc->uc_mcontext.sp = sp;
	uc->uc_mcontext.regs[29] = fp;
}

/* A return address as read from memory or x30, without the pointer
 * authentication code that paciasp may have put in its upper bits (Armv8.3
 * PAC, gcc -mbranch-protection=pac-ret, Debian's default for arm64).
 * xpaclri strips x30's in place; it is in the hint space, so a CPU without
 * PAC runs it as a NOP (and then has no code to strip).  Async-signal-safe. */
static inline uintptr_t mon_arch_strip_ra(uintptr_t ra)
{
	register uintptr_t x30 __asm__("x30") = ra;
	__asm__("hint 7" /* xpaclri */ : "+r"(x30));
	return x30;
}

/* Does the code end with a call instruction where a return address ra
 * points?  before: the 8 bytes before ra as a little-endian word (the
 * instruction at ra - 4 in bits 32..63).  BL (imm26) and BLR (Arm ARM,
 * C6.2 "BL", "BLR").  For the frame-pointer search (unwind.c). */
static inline int mon_arch_after_call(uint64_t before)
{
	uint32_t insn = (uint32_t)(before >> 32);
	return (insn & 0xfc000000u) == 0x94000000u || (insn & 0xfffffc1fu) == 0xd63f0000u;
}

/* The target of a direct call (BL) ending at ra, or 0. */
static inline uintptr_t mon_arch_call_target(uintptr_t ra, uint64_t before)
{
	uint32_t insn = (uint32_t)(before >> 32);
	if ((insn & 0xfc000000u) != 0x94000000u)
		return 0;
	int64_t imm = (int64_t)((uint64_t)(insn & 0x03ffffffu) << 38) >> 36;	/* imm26 * 4 */
	return ra - 4 + (uintptr_t)imm;
}

/* Byte offsets of the PC, SP, FP and LR from the stack pointer at the
 * signal trampoline: the kernel's struct rt_sigframe is a siginfo_t (128
 * bytes) followed by the ucontext_t, whose layout glibc's matches. */
#define MON_ARCH_UC_BASE sizeof(siginfo_t)
#define MON_ARCH_UC_PC (MON_ARCH_UC_BASE + offsetof(ucontext_t, uc_mcontext.pc))
#define MON_ARCH_UC_SP (MON_ARCH_UC_BASE + offsetof(ucontext_t, uc_mcontext.sp))
#define MON_ARCH_UC_FP (MON_ARCH_UC_BASE + offsetof(ucontext_t, uc_mcontext.regs) + 29 * 8)
#define MON_ARCH_UC_LR (MON_ARCH_UC_BASE + offsetof(ucontext_t, uc_mcontext.regs) + 30 * 8)

/* AArch64's PLT stubs do not touch sp or x30 and binutils gives them no
 * CFI: cfi.c never makes a MON_CFI_PLT row here (mon_arch_cfi recognises
 * no CFA expression of a PLT), and the walk never calls this. */
static inline uintptr_t mon_arch_plt_cfa(uintptr_t sp, uintptr_t pc, int32_t off, int16_t k)
{
	(void)pc;
	(void)k;
	return sp + (uintptr_t)(intptr_t)off;
}

/* The signal trampoline, the vDSO's __kernel_rt_sigreturn: mov x8, #139;
 * svc #0 (two instructions). */
#define MON_ARCH_SIGRETURN_LEN 8u

/* The offset (0, 4, 8 or 12) of the trampoline's code from start, an FDE
 * with augmentation 'S' covering [start, end) of loaded text (the
 * kernel's FDE starts at a NOP before it), or -1 if it is not there.
 * Reads the text (mapped: the FDE's object is loaded). */
MON_HIDDEN int mon_arch_sigreturn_at(uintptr_t start, uintptr_t end);

/* Whether the code at pc (4-byte aligned, in a loaded object, no CFI
 * covering it) is a PLT stub of binutils' ld for AArch64 (adrp x16; ldr
 * x17, [x16, #n]; add x16, x16, #n; br x17), which leaves sp, x29 and x30
 * as the caller set them: 1 yes, 0 no.  Reads the text. */
MON_HIDDEN int mon_arch_in_plt(uintptr_t pc);

/* An object's _init, by the code at a return address in its first
 * MON_ARCH_INIT_LEN bytes (x86-64: crti.o's).  aarch64's crti.o _init
 * keeps a frame record (stp x29, x30; mov x29, sp), which the frame
 * pointer walk follows: none here.  Returns 0. */
#define MON_ARCH_INIT_LEN 64u
#define MON_ARCH_INIT_CODE 24u
static inline int mon_arch_nocfi_cfa_off(const uint8_t *code, size_t n)
{
	(void)code;
	(void)n;
	return 0;
}

#endif /* MON_ARCH_H */
