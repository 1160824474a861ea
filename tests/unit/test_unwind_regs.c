/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_unwind_regs.c — unit tests of the walk from a register set
 * (mon_unwind_regs, lib/unwind.c) through the reader that checks every
 * read (mon_memread_other, lib/memread.c): from this thread's own PC, SP
 * and frame pointer the walk reaches main through this file's frames; with
 * the frame pointer unknown it still does (CFI); another thread's stack,
 * from the registers that thread published, is walked from here while the
 * thread waits; an unmapped SP ends the walk truncated, never a fault; a
 * NULL register set or reader, or max 0, gives no PC.  Code without CFI:
 * a frame pointer of 0 in the dynamic linker's (its _start, where
 * _dl_start_user runs the constructors) is the outermost frame, a whole
 * stack, but in other code it is not (a register that code without frame
 * pointers used for data); an object's _init (crti.o's: sub $8; call; add
 * $8; ret; at DT_INIT) is walked by the code after its call, before the
 * frame pointer; the same code elsewhere, or other code without CFI whose
 * frame pointer is no frame's, ends the walk truncated.
 *
 * Links libmon.a, so it reaches the hidden interfaces (unwind.h).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <elf.h>
#include <link.h>

#include <stdio.h>

#include <cmocka.h>

#include "arch.h"
#include "unwind.h"

/* Registers of the caller of here(), as a wall-clock sampler would read
 * them for a blocked thread (its PC where it will resume, its SP, FP). */
__attribute__((noinline)) static void here(struct mon_unwind_regs *r)
{
	r->pc = (uintptr_t)__builtin_return_address(0);
	r->sp = (uintptr_t)__builtin_frame_address(0) + 16;	/* the caller's SP after the call */
	uintptr_t fp;
	__asm__ volatile("mov (%%rbp), %0" : "=r"(fp));	/* the caller's rbp */
	r->fp = fp;
	r->known = MON_REG_FP;
}

static uintptr_t main_lo, main_hi;	/* main's call of run_group_below_main: see there */

static int reaches(const uintptr_t *pcs, unsigned n, uintptr_t lo, uintptr_t hi)
{
	for (unsigned i = 0; i < n; i++)
		if (pcs[i] >= lo && pcs[i] < hi)
			return 1;
	return 0;
}

__attribute__((noinline)) static unsigned walk_here(unsigned known, uintptr_t *pcs, unsigned *flags)
{
	struct mon_unwind_regs r;
	here(&r);
	r.known = known;
	struct mon_memreader m;
	mon_memread_other(&m);
	return mon_unwind_regs(&r, &m, pcs, 256, flags);
}

static void from_own_registers(void **state)
{
	(void)state;
	uintptr_t pcs[256];
	unsigned flags = 99;
	unsigned n = walk_here(MON_REG_FP, pcs, &flags);
	assert_true(n >= 3);
	assert_true(pcs[0] > (uintptr_t)walk_here && pcs[0] < (uintptr_t)walk_here + 256);
	assert_true(reaches(pcs, n, main_lo, main_hi));
	assert_int_equal(flags & MON_STACK_TRUNCATED, 0);
	n = walk_here(0, pcs, &flags);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	/* The sanitizer builds compile this file with -fno-omit-frame-pointer
	 * (the Makefile's SAN_FLAGS): every frame's CFA is then the frame
	 * pointer, which a walk without FP cannot know (unwind.h), so the walk
	 * ends at the first frame; the plain build checks it reaches main. */
	fprintf(stderr, "test_unwind_regs: skip the walk without FP under sanitizers: "
			"frames built with frame pointers need FP\n");
	(void)n;
#else
	assert_true(reaches(pcs, n, main_lo, main_hi));
#endif
}

static void bad_input(void **state)
{
	(void)state;
	uintptr_t pcs[8];
	unsigned flags = 0;
	struct mon_memreader m;
	mon_memread_other(&m);
	struct mon_unwind_regs r;
	here(&r);
	assert_int_equal(mon_unwind_regs(NULL, &m, pcs, 8, &flags), 0);
	assert_int_equal(flags, MON_STACK_TRUNCATED);
	assert_int_equal(mon_unwind_regs(&r, NULL, pcs, 8, &flags), 0);
	assert_int_equal(mon_unwind_regs(&r, &m, pcs, 0, &flags), 0);
	assert_int_equal(flags, MON_STACK_DEPTH);
	/* An SP in an unmapped page: the first frame's reads fail, checked. */
	void *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	munmap(p, 4096);
	r.sp = r.fp = (uintptr_t)p + 2048;
	unsigned n = mon_unwind_regs(&r, &m, pcs, 8, &flags);
	assert_true(n >= 1 && n <= 2);
	assert_int_equal(pcs[0], r.pc);
	assert_true(flags & MON_STACK_TRUNCATED);
}

/* Code without CFI (a top-level asm block has none): crti.o's _init as
 * glibc builds it for x86-64, and a stub of other code. */
__asm__(".text\n"
	".globl nocfi_init\n.type nocfi_init,@function\nnocfi_init:\n"
	"\tsub $8,%rsp\n\tcall *%rax\n"
	".globl nocfi_init_ret\nnocfi_init_ret:\n"
	"\tadd $8,%rsp\n\tret\n.size nocfi_init,.-nocfi_init\n"
	".globl nocfi_other\n.type nocfi_other,@function\nnocfi_other:\n"
	"\tcall *%rax\n"
	".globl nocfi_other_ret\nnocfi_other_ret:\n"
	"\tnop\n\tpop %rbx\n\tret\n.size nocfi_other,.-nocfi_other\n");
extern char nocfi_init_ret[], nocfi_other_ret[];

__attribute__((noinline)) static void callee(void)
{
	__asm__ volatile("" ::: "memory");
}

/* A walk from callee's first instruction (CFA = SP + 8, the return address
 * at SP) on a made-up stack whose return address is ret, with fp. */
static unsigned walk_made(uintptr_t *stack, uintptr_t ret, uintptr_t fp, uintptr_t *pcs,
			  unsigned *flags)
{
	stack[0] = ret;
	struct mon_unwind_regs r = { 0 };
	r.pc = (uintptr_t)callee;
	r.sp = (uintptr_t)stack;
	r.fp = fp;
	r.known = MON_REG_FP;
	struct mon_memreader m;
	mon_memread_other(&m);
	*flags = 99;
	return mon_unwind_regs(&r, &m, pcs, 8, flags);
}

/* The return address of the call in this program's own _init (crti.o's,
 * at DT_INIT): the address of its "add $8,%rsp; ret", or 0. */
static int first_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			for (const Elf64_Dyn *d = (const Elf64_Dyn *)(info->dlpi_addr +
								      info->dlpi_phdr[i].p_vaddr);
			     d->d_tag != DT_NULL; d++)
				if (d->d_tag == DT_INIT)
					*(uintptr_t *)arg = info->dlpi_addr + d->d_un.d_ptr;
	return 1;
}

static uintptr_t own_init_ret(void)
{
	uintptr_t init = 0;
	dl_iterate_phdr(first_object, &init);
	static const unsigned char tail[] = { 0x48, 0x83, 0xc4, 0x08, 0xc3 };
	for (unsigned k = 1; init && k < 32; k++)
		if (memcmp((const void *)(init + k), tail, sizeof tail) == 0)
			return init + k;
	return 0;
}

static void code_without_cfi(void **state)
{
	(void)state;
	uintptr_t stack[8] = { 0 }, pcs[8];
	unsigned flags;
	/* This program's _init: its frame is 8 bytes and the return address;
	 * the one after it is 0, the outermost.  With a frame pointer that is
	 * no frame's (1), and one that looks like a frame's (into the stack,
	 * as call_init's is): _init's rule comes first. */
	uintptr_t init_ret = own_init_ret();
	assert_true(init_ret != 0);
	stack[1] = 0x5a5a5a5a;
	stack[2] = 0;
	unsigned n = walk_made(stack, init_ret, 1, pcs, &flags);
	assert_int_equal(n, 2);
	assert_int_equal(pcs[1], init_ret - 1);
	assert_int_equal(flags, 0);
	stack[4] = 0x1234;
	n = walk_made(stack, init_ret, (uintptr_t)&stack[4], pcs, &flags);
	assert_int_equal(n, 2);
	assert_int_equal(flags, 0);
	/* The same code elsewhere (not an object's DT_INIT): no rule, ended
	 * early; other code without CFI: ended early. */
	n = walk_made(stack, (uintptr_t)nocfi_init_ret, 1, pcs, &flags);
	assert_int_equal(n, 2);
	assert_int_equal(flags, MON_STACK_TRUNCATED);
	n = walk_made(stack, (uintptr_t)nocfi_other_ret, 1, pcs, &flags);
	assert_int_equal(n, 2);
	assert_int_equal(flags, MON_STACK_TRUNCATED);
	/* The same with a frame pointer of 0: still ended early, not the
	 * outermost frame (outside the dynamic linker, 0 may be data). */
	n = walk_made(stack, (uintptr_t)nocfi_other_ret, 0, pcs, &flags);
	assert_int_equal(n, 2);
	assert_int_equal(flags, MON_STACK_TRUNCATED);
	/* ld.so's _start: "call _dl_start" is its first 8 bytes (mov
	 * %rsp,%rdi; call), so _start + 8 is that call's return address, in
	 * code without CFI; with a frame pointer of 0 the stack is whole. */
	const Elf64_Ehdr *ld = (const Elf64_Ehdr *)getauxval(AT_BASE);
	assert_non_null(ld);
	uintptr_t ret = (uintptr_t)ld + ld->e_entry + 8;
	n = walk_made(stack, ret, 0, pcs, &flags);
	assert_int_equal(n, 2);
	assert_int_equal(pcs[1], ret - 1);
	assert_int_equal(flags, 0);
	/* An _init in no object yet (a library dlopen is loading, with
	 * libcrypto's extra call in .init): walked on to its caller, here
	 * ld.so's _start; other code in no object stops the walk as JIT. */
	unsigned char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				   -1, 0);
	assert_true(page != MAP_FAILED);
	static const unsigned char init_code[] = { 0xe8, 1, 2, 3, 4, 0x48, 0x83, 0xc4, 0x08, 0xc3 };
	memcpy(page + 100, init_code, sizeof init_code);
	stack[2] = ret;
	n = walk_made(stack, (uintptr_t)page + 100, 0, pcs, &flags);
	assert_int_equal(n, 3);
	assert_int_equal(pcs[1], (uintptr_t)page + 99);
	assert_int_equal(pcs[2], ret - 1);
	assert_int_equal(flags, 0);
	n = walk_made(stack, (uintptr_t)page + 101, 0, pcs, &flags);
	assert_int_equal(n, 2);
	assert_int_equal(flags, MON_STACK_JIT);
	munmap(page, 4096);
}

/* The code after a call in crti's _init (x86-64 arch.h). */
static void init_code_rule(void **state)
{
	(void)state;
	static const unsigned char plain[24] = { 0x48, 0x83, 0xc4, 0x08, 0xc3 };
	static const unsigned char calls[24] = { 0xe8, 0, 0, 0, 0, 0xe8, 0, 0, 0, 0,
						 0x48, 0x83, 0xc4, 0x08, 0xc3 };
	static const unsigned char four[24] = { 0xe8, 0, 0, 0, 0, 0xe8, 0, 0, 0, 0, 0xe8, 0, 0, 0,
						0, 0xe8, 0, 0, 0, 0, 0x48, 0x83, 0xc4, 0x08 };
	static const unsigned char other[24] = { 0x48, 0x83, 0xc4, 0x10, 0xc3 };
	assert_int_equal(mon_arch_nocfi_cfa_off(plain, sizeof plain), 16);
	assert_int_equal(mon_arch_nocfi_cfa_off(calls, sizeof calls), 16);
	assert_int_equal(mon_arch_nocfi_cfa_off(four, sizeof four), 0);
	assert_int_equal(mon_arch_nocfi_cfa_off(other, sizeof other), 0);
	assert_int_equal(mon_arch_nocfi_cfa_off(plain, 4), 0);
}

/* Another thread publishes its registers and waits; this one walks its
 * stack. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int phase;
static struct mon_unwind_regs other;

__attribute__((noinline)) static void other_deep(int n)
{
	if (n > 0) {
		other_deep(n - 1);
		__asm__ volatile("" ::: "memory");
		return;
	}
	here(&other);
	pthread_mutex_lock(&mu);
	phase = 1;
	pthread_cond_broadcast(&cv);
	while (phase != 2)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
}

static void *other_main(void *arg)
{
	(void)arg;
	other_deep(10);
	return NULL;
}

static void another_thread(void **state)
{
	(void)state;
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, other_main, NULL), 0);
	pthread_mutex_lock(&mu);
	while (phase != 1)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	uintptr_t pcs[64];
	unsigned flags = 0;
	struct mon_memreader m;
	mon_memread_other(&m);
	unsigned n = mon_unwind_regs(&other, &m, pcs, 64, &flags);
	pthread_mutex_lock(&mu);
	phase = 2;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	pthread_join(t, NULL);
	/* other_deep's 11 frames, then other_main. */
	unsigned deep = 0;
	for (unsigned i = 0; i < n; i++)
		deep += pcs[i] >= (uintptr_t)other_deep && pcs[i] < (uintptr_t)other_deep + 256;
	assert_true(deep >= 11);
	assert_true(reaches(pcs, n, (uintptr_t)other_main, (uintptr_t)other_main + 64));
}

/* The tests run below this call, so every walk from them passes through
 * its return address: main_lo/main_hi bracket it (the unwinder reports a
 * caller's PC as its return address minus 1), whatever main's size. */
__attribute__((noinline)) static int run_group_below_main(const struct CMUnitTest *tests, size_t n)
{
	uintptr_t ra = (uintptr_t)__builtin_return_address(0);
	main_lo = ra - 1;
	main_hi = ra + 1;
	return _cmocka_run_group_tests("test_unwind_regs", tests, n, NULL, NULL);
}

int main(void)
{
	mon_unwind_refresh();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(from_own_registers),
		cmocka_unit_test(bad_input),
		cmocka_unit_test(another_thread),
		cmocka_unit_test(code_without_cfi),
		cmocka_unit_test(init_code_rule),
	};
	int rc = run_group_below_main(tests, sizeof tests / sizeof tests[0]);
	__asm__ volatile("" ::: "memory");	/* keep the call a call, not a tail jump */
	return rc;
}
