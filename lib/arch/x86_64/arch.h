/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arch.h — the x86-64 machine, as the runtime sees it (private to libmon;
 * lib/arch/x86_64/, selected by the Makefile's ARCH): the registers a
 * stack walk needs and where a signal's ucontext_t keeps them, the DWARF
 * numbers of those registers, and the rules of code the CFI does not
 * describe in its general terms (the PLT, the signal trampoline).
 *
 * Sources: System V Application Binary Interface, AMD64 Architecture
 * Processor Supplement, figure 3.36 "DWARF Register Number Mapping"
 * (rbp 6, rsp 7, return address 16); <sys/ucontext.h> (gregs[REG_RIP],
 * gregs[REG_RSP], gregs[REG_RBP]); sigreturn(2) (the kernel's signal frame
 * is a ucontext_t at the stack pointer when the restorer runs).
 *
 * A port adds lib/arch/ARCH/arch.h with the same names.
 */
#ifndef MON_ARCH_H
#define MON_ARCH_H

#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

#include "cfi.h"
#include "runtime.h"

#define MON_ARCH_NAME "x86_64"

/* DWARF register numbers. */
#define MON_ARCH_DW_FP 6	/* rbp */
#define MON_ARCH_DW_SP 7	/* rsp */
#define MON_ARCH_DW_RA 16	/* the return address column */

/* The return address is at CFA - 8 (pushed by call). */
#define MON_ARCH_RA_CFA_OFF (-8)
/* Where a frame-pointer frame keeps the caller's frame pointer and return
 * address: [fp] and [fp + 8]; its CFA is fp + 16. */
#define MON_ARCH_FP_CFA_OFF 16

/* The machine's CFI rules for cfi.c (arch.c). */
MON_HIDDEN extern const struct mon_cfi_machine mon_arch_cfi;

/* A system call of two arguments made here, without the C library (whose
 * wrapper a sanitizer intercepts with frames of its own: the tick's path
 * must stay small on the interrupted thread's stack).  Returns the
 * kernel's result: >= 0, or -errno.  Async-signal-safe. */
static inline long mon_arch_syscall2(long nr, long a0, long a1)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "a"(nr), "D"(a0), "S"(a1) : "rcx", "r11", "memory");
	return r;
}

/* The interrupted PC, SP and FP in a signal's ucontext_t (the third
 * argument of an SA_SIGINFO handler).  Async-signal-safe. */
static inline uintptr_t mon_arch_context_pc(const void *uc)
{
	return (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
}

static inline uintptr_t mon_arch_context_sp(const void *uc)
{
	return (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RSP];
}

static inline uintptr_t mon_arch_context_fp(const void *uc)
{
	return (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RBP];
}

/* The third argument register (rdx) in a signal's ucontext_t: where the
 * interrupted code is a signal handler's first instruction, the address of
 * that handler's own ucontext_t, which the kernel passes there for every
 * handler (arch/x86/kernel/signal_64.c x64_setup_rt_frame: rdi the signal,
 * rsi its siginfo, rdx its ucontext, just above the return address at
 * the stack pointer).  Async-signal-safe. */
static inline uintptr_t mon_arch_context_arg2(const void *uc)
{
	return (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RDX];
}

/* The interrupted thread returns from a system call that a signal ended
 * with EINTR: its result register (rax) holds -EINTR, and the instruction
 * that ends at the PC is SYSCALL (0f 05; before holds the 8 bytes that end
 * at the PC, read by the caller).  The kernel leaves -EINTR there for a call
 * it does not restart for a handler (nanosleep, poll, epoll_wait, a call
 * without SA_RESTART: signal(7), "Interruption of system calls"), and for
 * one it restarts winds the PC back onto the SYSCALL and rax back to the
 * call's number; arch/x86/kernel/signal.c handle_signal.  Neither reading
 * alone tells an ended call (an interrupt just after a SYSCALL, or any
 * instruction ending in the bytes 0f 05, meets the second): the caller
 * needs both.  Async-signal-safe. */
static inline long mon_arch_context_result(const void *uc)
{
	return (long)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RAX];
}

static inline int mon_arch_after_syscall(uint64_t before)
{
	return (before >> 48) == 0x050fu;
}

/* x86-64 has no link register: a call pushes the return address (the
 * walk's lr is never known, mon_arch_context_lr and MON_ARCH_UC_LR are
 * unused). */
#define MON_ARCH_HAS_LR 0

static inline uintptr_t mon_arch_context_lr(const void *uc)
{
	(void)uc;
	return 0;
}

/* *uc is a context at the first instruction of a call that a signal
 * handler injected by rewriting the context it returned to, as Go's
 * runtime does to preempt a goroutine (runtime/signal_amd64.go,
 * sigctxt.pushCall: the interrupted PC pushed as the return address, RSP
 * less 8, RIP the function's): undo that in place, *uc becoming the
 * interrupted code's context (RBP was not touched), what it held into
 * *saved for mon_arch_injected_call_redo.  The word at RSP is read: it is
 * on the thread's stack, written by the handler that just returned.  1 if
 * undone, 0 (nothing changed) if RSP cannot be a stack pointer. */
struct mon_arch_injected {
	greg_t rip, rsp;
};

static inline int mon_arch_injected_call_undo(void *ucv, struct mon_arch_injected *saved)
{
	ucontext_t *uc = ucv;
	uintptr_t sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
	if (sp == 0 || sp % sizeof(uintptr_t) != 0)
		return 0;
	saved->rip = uc->uc_mcontext.gregs[REG_RIP];
	saved->rsp = uc->uc_mcontext.gregs[REG_RSP];
	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)*(const uintptr_t *)sp;
	uc->uc_mcontext.gregs[REG_RSP] = (greg_t)(sp + sizeof(uintptr_t));
	return 1;
}

/* Put back what mon_arch_injected_call_undo changed. */
static inline void mon_arch_injected_call_redo(void *ucv, const struct mon_arch_injected *saved)
{
	ucontext_t *uc = ucv;
	uc->uc_mcontext.gregs[REG_RIP] = saved->rip;
	uc->uc_mcontext.gregs[REG_RSP] = saved->rsp;
}


/* A ucontext_t that starts a walk at pc, sp and fp (the wall-clock
 * sampler's copy of a blocked thread's stack); *uc zeroed by the caller. */
static inline void mon_arch_context_set(ucontext_t *uc, uintptr_t pc, uintptr_t sp, uintptr_t fp)
{
	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
	uc->uc_mcontext.gregs[REG_RSP] = (greg_t)sp;
	uc->uc_mcontext.gregs[REG_RBP] = (greg_t)fp;
}

/* A return address as read from memory: x86-64 stores it unchanged. */
static inline uintptr_t mon_arch_strip_ra(uintptr_t ra)
{
	return ra;
}

/* Does the code end with a call instruction where a return address ra
 * points?  before: the 8 bytes before ra as a little-endian word (the byte
 * at ra - 1 in bits 56..63).  The encodings of the Intel SDM, vol. 2A,
 * "CALL": E8 rel32 (5 bytes); FF /2 with ModRM mod 11 or 00 (call reg,
 * call [reg]: 2 bytes, 3 with REX), mod 01 (disp8, 3 bytes, 4 with a SIB), mod 10 or RIP-relative
 * (disp32, 6 bytes, 7 with a SIB).  For the frame-pointer search
 * (unwind.c): a word on the stack that is a return address, not a code
 * pointer at a function's start. */
static inline int mon_arch_after_call(uint64_t before)
{
#define B(i) ((unsigned)(before >> (64 - 8 * (i))) & 0xffu)	/* the byte at ra - i */
	if (B(5) == 0xe8)
		return 1;
	if (B(2) == 0xff && (B(1) & 0xf8) == 0xd0)
		return 1;	/* call reg */
	if (B(3) == 0xff && (B(2) & 0xf8) == 0x50 && B(2) != 0x54)
		return 1;	/* call [reg + disp8] */
	if (B(4) == 0xff && B(3) == 0x54)
		return 1;	/* call [sib + disp8] */
	if (B(2) == 0xff && (B(1) & 0xf8) == 0x10 && B(1) != 0x14 && B(1) != 0x15)
		return 1;	/* call [reg] */
	if (B(6) == 0xff && (B(5) == 0x15 || ((B(5) & 0xf8) == 0x90 && B(5) != 0x94)))
		return 1;	/* call [rip + disp32], call [reg + disp32] */
	if (B(7) == 0xff && B(6) == 0x94)
		return 1;	/* call [sib + disp32] */
	return 0;
#undef B
}

/* The target of a direct call ending at ra (before as above), or 0 when
 * the call is not direct (E8 rel32). */
static inline uintptr_t mon_arch_call_target(uintptr_t ra, uint64_t before)
{
	if (((before >> 24) & 0xffu) != 0xe8)
		return 0;
	return ra + (uintptr_t)(intptr_t)(int32_t)(uint32_t)(before >> 32);
}

/* Byte offsets of the PC, SP and FP in a ucontext_t, for reading them out
 * of a signal frame in memory (one the walk reaches through the
 * trampoline). */
#define MON_ARCH_UC_PC (offsetof(ucontext_t, uc_mcontext.gregs) + REG_RIP * sizeof(greg_t))
#define MON_ARCH_UC_SP (offsetof(ucontext_t, uc_mcontext.gregs) + REG_RSP * sizeof(greg_t))
#define MON_ARCH_UC_FP (offsetof(ucontext_t, uc_mcontext.gregs) + REG_RBP * sizeof(greg_t))
#define MON_ARCH_UC_LR 0	/* no link register */

/* The CFA of a row MON_CFI_PLT: the PLT's expression (cfi.c got it from
 * mon_arch_cfi.cfa_expr), rsp + off + 8 once the stub has pushed its
 * relocation index, that is when (pc & 15) >= k. */
static inline uintptr_t mon_arch_plt_cfa(uintptr_t sp, uintptr_t pc, int32_t off, int16_t k)
{
	return sp + (uintptr_t)(intptr_t)off + ((pc & 15) >= (uintptr_t)(intptr_t)k ? 8 : 0);
}

/* x86-64's PLT stubs have CFI (binutils' ld emits it: MON_CFI_PLT): the
 * walk never asks (MON_ARCH_HAS_LR is 0). */
static inline int mon_arch_in_plt(uintptr_t pc)
{
	(void)pc;
	return 0;
}

/* An object's _init, crti.o's and crtn.o's code (glibc
 * sysdeps/x86_64/crti.S, crtn.S: sub $8,%rsp; call __gmon_start__ if
 * defined; add $8,%rsp; ret), which has no CFI and through which libmon
 * starts under monrun (autostart.c).  Other objects' code in .init comes
 * between as calls (libcrypto's: call OPENSSL_cpuid_setup).  The walk asks
 * for a return address within MON_ARCH_INIT_LEN bytes of an object's
 * DT_INIT, or in no object (a library dlopen is loading): the code there,
 * n bytes (n >= MON_ARCH_INIT_CODE), being up to three direct calls (e8
 * rel32) then add $8,%rsp; ret (48 83 c4 08 c3) ends a frame of 8 bytes
 * below the return address, so the CFA is SP + 16.  Returns the CFA's
 * offset from SP, or 0: not that code. */
#define MON_ARCH_INIT_LEN 64u
#define MON_ARCH_INIT_CODE 24u
static inline int mon_arch_nocfi_cfa_off(const uint8_t *code, size_t n)
{
	static const uint8_t tail[5] = { 0x48, 0x83, 0xc4, 0x08, 0xc3 };
	size_t at = 0;
	for (int calls = 0; calls <= 3 && at + sizeof tail <= n; calls++, at += 5) {
		size_t k = 0;
		while (k < sizeof tail && code[at + k] == tail[k])
			k++;
		if (k == sizeof tail)
			return 16;
		if (code[at] != 0xe8)
			return 0;
	}
	return 0;
}

/* The signal trampoline, glibc's __restore_rt: mov $15,%rax
 * (rt_sigreturn); syscall. */
#define MON_ARCH_SIGRETURN_LEN 9u

/* The offset (0 .. 15) of the trampoline's code from start, an FDE with
 * augmentation 'S' covering [start, end) of loaded text, or -1 if it is
 * not there.  Reads the text (never instrumented by a sanitizer: see
 * arch.c).  Not async-signal-safe only in that it reads code that must be
 * mapped (the FDE's object is loaded). */
MON_HIDDEN int mon_arch_sigreturn_at(uintptr_t start, uintptr_t end);

#endif /* MON_ARCH_H */
