/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * unwind_walk.c — the runtime's stack unwinder (lib/unwind.c) on the
 * paths a stack may take.  Built -O2 -fomit-frame-pointer -rdynamic, linked
 * with libmon.a (tests/integ/unwind.sh).
 *
 *   unwind_walk CASE [PLUGIN.so]
 *
 * A timer (CLOCK_MONOTONIC, delivered to one thread: SIGEV_THREAD_ID) ticks
 * every 250 microseconds; its SIGPROF handler calls mon_unwind on the
 * ucontext and keeps the walk.  Outside the handler the walks are
 * symbolized (dladdr1: the functions below are global, -rdynamic) and
 * checked.  Each case runs until the walks it needs were taken (counted,
 * never timed).  CASE:
 *   recurse    a 40-deep recursion: all 40 frames, then main
 *   qsort      a comparator called by the C library's qsort reaches main
 *              through a frame of the C library
 *   signal     ticks in the program's own SIGUSR1 handler go through the
 *              kernel's signal frame into the function that raised it, and
 *              main
 *   vdso       ticks in clock_gettime's vDSO code reach main
 *   plt        a loop calling rand_r through the PLT: ticks in the PLT reach
 *              main; and walks from contexts set at a lazy-binding PLT entry
 *              (before and after its push) find the return address
 *   coroutine  a makecontext/swapcontext coroutine on a heap stack: the walk
 *              reaches the coroutine's entry without a fault (prints how it
 *              ends)
 *   garbage    rbp full of garbage: in a function with CFI the walk reaches
 *              main; in one without, it ends truncated, without a fault
 *   jit        code in an anonymous mapping: the walk is its PC alone,
 *              flagged JIT
 *   dlopen     a thread dlopen/dlclose's PLUGIN.so in a loop (refreshing the
 *              tables) while both threads' ticks unwind: no crash, no
 *              deadlock, and the tables do not grow after the first rounds
 *   stats      all of the above paths in main's thread at 4 kHz: >= 99 % of
 *              the walks reach main
 * Prints what it counted; exit 0 when the case holds, 1 when not.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "unwind.h"

int main(int argc, char **argv);

#define MAXD 128
#define NWALK 4096

struct walk {
	unsigned n, flags;
	int tag;
	int tid;
	uintptr_t pcs[MAXD];
};

static struct walk walks[NWALK];
static unsigned nwalks;
static volatile int tag;	/* what the main thread is doing now */
static volatile int stop_ticks;

static void on_tick(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)si;
	if (stop_ticks)
		return;
	unsigned i = __atomic_fetch_add(&nwalks, 1, __ATOMIC_RELAXED);
	if (i >= NWALK)
		return;
	struct walk *w = &walks[i];
	w->tag = tag;
	w->tid = (int)syscall(SYS_gettid);
	w->n = mon_unwind(ctx, w->pcs, MAXD, &w->flags);
}

static timer_t timers[2];
static int ntimers;

/* Tick the calling thread every period_ns of wall-clock time. */
static void tick_me(long period_ns)
{
	struct sigevent se;
	memset(&se, 0, sizeof se);
	se.sigev_notify = SIGEV_THREAD_ID;
	se.sigev_signo = SIGPROF;
	se._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	timer_t t;
	if (timer_create(CLOCK_MONOTONIC, &se, &t) != 0) {
		perror("timer_create");
		exit(1);
	}
	struct itimerspec its = { { 0, period_ns }, { 0, period_ns } };
	timer_settime(t, 0, &its, NULL);
	timers[ntimers++] = t;
}

static void ticks_off(void)
{
	stop_ticks = 1;
	for (int i = 0; i < ntimers; i++)
		timer_delete(timers[i]);
	ntimers = 0;
}

static void setup(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_tick;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	if (mon_unwind_refresh() != 0) {
		perror("mon_unwind_refresh");
		exit(1);
	}
}

static unsigned taken(void)
{
	unsigned n = __atomic_load_n(&nwalks, __ATOMIC_RELAXED);
	return n < NWALK ? n : NWALK;
}

/* ---- symbols ------------------------------------------------------------ */

struct sym {
	const char *name;	/* function, or NULL */
	const char *file;	/* object */
	uintptr_t lo, hi;
};

static struct sym sym_of(uintptr_t pc)
{
	struct sym s = { NULL, NULL, 0, 0 };
	Dl_info di;
	const ElfW(Sym) *es = NULL;
	if (dladdr1((void *)pc, &di, (void **)&es, RTLD_DL_SYMENT) == 0)
		return s;
	s.file = di.dli_fname;
	if (di.dli_sname != NULL && es != NULL) {
		s.lo = (uintptr_t)di.dli_saddr;
		s.hi = s.lo + es->st_size;
		if (pc >= s.lo && pc < s.hi)
			s.name = di.dli_sname;
		else if (es->st_size == 0)
			s.name = di.dli_sname;	/* a symbol without size: name only */
	}
	return s;
}

static int is_fn(uintptr_t pc, const char *name)
{
	struct sym s = sym_of(pc);
	return s.name != NULL && strcmp(s.name, name) == 0;
}

static int in_file(uintptr_t pc, const char *part)
{
	struct sym s = sym_of(pc);
	return s.file != NULL && strstr(s.file, part) != NULL;
}

static int index_of(const struct walk *w, const char *name, unsigned from)
{
	for (unsigned i = from; i < w->n; i++)
		if (is_fn(w->pcs[i], name))
			return (int)i;
	return -1;
}

static int reaches_main(const struct walk *w)
{
	return index_of(w, "main", 0) >= 0;
}

static void print_walk(const char *why, const struct walk *w)
{
	printf("# %s: %u frames, flags %u:", why, w->n, w->flags);
	for (unsigned i = 0; i < w->n && i < 64; i++) {
		struct sym s = sym_of(w->pcs[i]);
		printf(" %s", s.name ? s.name : s.file ? s.file : "?");
	}
	printf("\n");
}

/* ---- the workloads (global, never inlined: symbolized by name) --------- */

#define NOINLINE __attribute__((noinline, noclone))
volatile unsigned long sink;

NOINLINE void spin_leaf(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 7;
}

NOINLINE int rec(int n, unsigned long work)
{
	if (n == 0) {
		spin_leaf(work);
		return 0;
	}
	int r = rec(n - 1, work);
	__asm__ volatile("" ::: "memory");	/* no tail call, no loop made of it */
	return r + 1;
}

NOINLINE int cmp_spin(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	for (int i = 0; i < 200; i++)
		sink += (unsigned long)i;
	return (x > y) - (x < y);
}

NOINLINE void do_qsort(void)
{
	static int v[512];
	for (int i = 0; i < 512; i++)
		v[i] = (int)((i * 2654435761u) >> 7);
	qsort(v, 512, sizeof v[0], cmp_spin);
	__asm__ volatile("" ::: "memory");
}

NOINLINE void usr1_spin(int sig)
{
	(void)sig;
	spin_leaf(200000);
	__asm__ volatile("" ::: "memory");
}

NOINLINE void sig_interrupted(void)
{
	raise(SIGUSR1);
	sink++;
}

NOINLINE void vdso_loop(void)
{
	struct timespec ts;
	for (int i = 0; i < 2000; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		sink += (unsigned long)ts.tv_nsec;
	}
}

NOINLINE void plt_loop(void)
{
	unsigned seed = 1;
	for (long i = 0; i < 20000; i++)
		sink += (unsigned long)rand_r(&seed);
}

/* Functions whose rbp holds garbage while they spin: one with CFI (the walk
 * must not care), one without (the frame-pointer fallback reads garbage).
 * The garbage looks like a frame pointer (aligned, above rsp) but points
 * 1 TiB above the stack: unmapped or not even a canonical address, so an
 * unchecked read would fault. */
void garbage_cfi(unsigned long n);
void garbage_nocfi(unsigned long n);
__asm__(".text\n"
	".globl garbage_cfi\n"
	".type garbage_cfi,@function\n"
	"garbage_cfi:\n"
	".cfi_startproc\n"
	"  push %rbp\n"
	"  .cfi_def_cfa_offset 16\n"
	"  .cfi_offset %rbp, -16\n"
	"  movabs $0x10000000000, %rax\n"
	"  lea (%rsp,%rax), %rbp\n"
	"  and $-16, %rbp\n"
	"1: dec %rdi\n"
	"  jnz 1b\n"
	"  pop %rbp\n"
	"  .cfi_def_cfa_offset 8\n"
	"  ret\n"
	".cfi_endproc\n"
	".size garbage_cfi, .-garbage_cfi\n"
	".p2align 6\n"
	".globl garbage_nocfi\n"
	".type garbage_nocfi,@function\n"
	"garbage_nocfi:\n"
	"  push %rbp\n"
	"  movabs $0x10000000000, %rax\n"
	"  lea (%rsp,%rax), %rbp\n"
	"  and $-16, %rbp\n"
	"2: dec %rdi\n"
	"  jnz 2b\n"
	"  pop %rbp\n"
	"  ret\n"
	".size garbage_nocfi, .-garbage_nocfi\n"
	".p2align 6\n");

NOINLINE void co_spin(void)
{
	spin_leaf(200000);
	__asm__ volatile("" ::: "memory");
}

static ucontext_t co_main, co_ctx;
NOINLINE void co_entry(void)
{
	for (;;) {
		co_spin();
		swapcontext(&co_ctx, &co_main);
	}
}

/* ---- the cases -------------------------------------------------------- */

enum { T_NONE, T_REC, T_QSORT, T_SIG, T_VDSO, T_PLT, T_CO, T_GCFI, T_GNOCFI, T_JIT };

/* Run fn until `want` walks with tag t were taken (at most limit rounds). */
static unsigned count_tag(int t)
{
	unsigned n = 0, k = taken();
	for (unsigned i = 0; i < k; i++)
		n += walks[i].tag == t;
	return n;
}

static void run_until(int t, void (*fn)(void), unsigned want)
{
	tag = t;
	while (count_tag(t) < want && taken() < NWALK)
		fn();
	tag = T_NONE;
}

static void w_rec(void) { rec(39, 100000); }
static void w_gcfi(void) { garbage_cfi(100000); }
static void w_gnocfi(void) { garbage_nocfi(100000); }
static void w_co(void) { swapcontext(&co_main, &co_ctx); }

static int case_recurse(void)
{
	tick_me(250000);
	run_until(T_REC, w_rec, 50);
	ticks_off();
	unsigned leaf = 0, good = 0;
	for (unsigned i = 0; i < taken(); i++) {
		const struct walk *w = &walks[i];
		if (w->tag != T_REC || !is_fn(w->pcs[0], "spin_leaf"))
			continue;
		leaf++;
		unsigned j = 1, nrec = 0;
		while (j < w->n && is_fn(w->pcs[j], "rec")) {
			nrec++;
			j++;
		}
		if (nrec == 40 && reaches_main(w) && w->flags == 0)
			good++;
		else
			print_walk("recurse: not all 40 frames then main", w);
	}
	printf("recurse: %u walks in spin_leaf, %u with 40 rec frames then main\n", leaf, good);
	return leaf >= 10 && good == leaf ? 0 : 1;
}

static int case_qsort(void)
{
	tick_me(250000);
	run_until(T_QSORT, do_qsort, 50);
	ticks_off();
	unsigned leaf = 0, good = 0;
	for (unsigned i = 0; i < taken(); i++) {
		const struct walk *w = &walks[i];
		if (w->tag != T_QSORT || !is_fn(w->pcs[0], "cmp_spin"))
			continue;
		leaf++;
		int q = index_of(w, "do_qsort", 1);
		int libc = 0;
		for (int j = 1; q > 0 && j < q; j++)
			/* the C library's qsort, or AddressSanitizer's, which
			 * intercepts it in a sanitizer build */
			libc |= in_file(w->pcs[j], "libc.so") || in_file(w->pcs[j], "libasan.so");
		if (q > 0 && libc && index_of(w, "main", (unsigned)q) > q && w->flags == 0)
			good++;
		else
			print_walk("qsort: not cmp_spin, libc, do_qsort, main", w);
	}
	printf("qsort: %u walks in cmp_spin, %u through the C library to main\n", leaf, good);
	return leaf >= 10 && good == leaf ? 0 : 1;
}

static int case_signal(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = usr1_spin;
	sigaction(SIGUSR1, &sa, NULL);
	tick_me(250000);
	run_until(T_SIG, sig_interrupted, 50);
	ticks_off();
	unsigned inh = 0, good = 0;
	for (unsigned i = 0; i < taken(); i++) {
		const struct walk *w = &walks[i];
		if (w->tag != T_SIG)
			continue;
		int h = index_of(w, "usr1_spin", 0);
		if (h < 0)
			continue;
		inh++;
		int s = index_of(w, "sig_interrupted", (unsigned)h + 1);
		if (s > h && index_of(w, "main", (unsigned)s) > s && w->flags == 0)
			good++;
		else
			print_walk("signal: not handler, sig_interrupted, main", w);
	}
	printf("signal: %u walks in the handler, %u through the signal frame to main\n", inh, good);
	return inh >= 10 && good == inh ? 0 : 1;
}

static int case_vdso(void)
{
	tick_me(250000);
	unsigned rounds = 0;
	tag = T_VDSO;
	for (;;) {
		vdso_loop();
		unsigned n = 0;
		for (unsigned i = 0; i < taken(); i++)
			n += walks[i].tag == T_VDSO && in_file(walks[i].pcs[0], "vdso");
		if (n >= 20 || taken() >= NWALK)
			break;
		rounds++;
	}
	tag = T_NONE;
	ticks_off();
	unsigned leaf = 0, good = 0;
	for (unsigned i = 0; i < taken(); i++) {
		const struct walk *w = &walks[i];
		if (w->tag != T_VDSO || !in_file(w->pcs[0], "vdso"))
			continue;
		leaf++;
		int v = index_of(w, "vdso_loop", 1);
		if (v > 0 && index_of(w, "main", (unsigned)v) > v && w->flags == 0)
			good++;
		else
			print_walk("vdso: not vdso, vdso_loop, main", w);
	}
	printf("vdso: %u walks in the vDSO, %u to main\n", leaf, good);
	if (leaf == 0) {
		printf("SKIP no tick landed in the vDSO in %u walks (clock_gettime not in the vDSO?)\n",
		       taken());
		return 77;
	}
	return leaf >= 10 && good == leaf ? 0 : 1;
}

/* The executable's .plt section (runtime range), from its section headers. */
static int find_plt(uintptr_t *lo, uintptr_t *hi)
{
	int fd = open("/proc/self/exe", O_RDONLY);
	if (fd < 0)
		return -1;
	ElfW(Ehdr) eh;
	int rc = -1;
	if (pread(fd, &eh, sizeof eh, 0) == sizeof eh && eh.e_shentsize == sizeof(ElfW(Shdr))) {
		ElfW(Shdr) *sh = calloc(eh.e_shnum, sizeof *sh);
		if (sh && pread(fd, sh, eh.e_shnum * sizeof *sh, (off_t)eh.e_shoff) ==
			     (ssize_t)(eh.e_shnum * sizeof *sh)) {
			const ElfW(Shdr) *ss = &sh[eh.e_shstrndx];
			char *names = malloc(ss->sh_size);
			if (names && pread(fd, names, ss->sh_size, (off_t)ss->sh_offset) ==
					     (ssize_t)ss->sh_size) {
				uintptr_t bias = 0;
				Dl_info di;
				if (dladdr((void *)find_plt, &di))
					bias = (uintptr_t)di.dli_fbase;
				/* a PIE's first segment is at vaddr 0: dli_fbase is the bias */
				if (eh.e_type == ET_EXEC)
					bias = 0;
				for (unsigned i = 0; i < eh.e_shnum; i++)
					if (sh[i].sh_name < ss->sh_size &&
					    strcmp(names + sh[i].sh_name, ".plt") == 0) {
						*lo = bias + sh[i].sh_addr;
						*hi = *lo + sh[i].sh_size;
						rc = 0;
					}
			}
			free(names);
		}
		free(sh);
	}
	close(fd);
	return rc;
}

NOINLINE uintptr_t plt_walk(uintptr_t rip, const uintptr_t *stack, uintptr_t *pc1)
{
	ucontext_t uc;
	memset(&uc, 0, sizeof uc);
	uc.uc_mcontext.gregs[REG_RIP] = (greg_t)rip;
	uc.uc_mcontext.gregs[REG_RSP] = (greg_t)(uintptr_t)stack;
	uc.uc_mcontext.gregs[REG_RBP] = 0;
	uintptr_t pcs[4];
	unsigned flags;
	unsigned n = mon_unwind(&uc, pcs, 4, &flags);
	*pc1 = n >= 2 ? pcs[1] : 0;
	return n;
}

static int case_plt(void)
{
	uintptr_t lo = 0, hi = 0;
	if (find_plt(&lo, &hi) < 0 || hi - lo < 32) {
		printf("SKIP the executable has no lazy-binding .plt\n");
		return 77;
	}
	int bad = 0;
	/* Contexts at the first entry after PLT0: at its jmp *GOT (offset 0:
	 * the return address at rsp) and after its push (offset 11: the
	 * return address at rsp + 8, above the pushed relocation index). */
	uintptr_t ret = (uintptr_t)case_plt + 1;
	uintptr_t stack0[4] = { ret, 0, 0, 0 }, stack11[4] = { 3, ret, 0, 0 }, pc1;
	plt_walk(lo + 16, stack0, &pc1);
	printf("plt: context at entry+0: caller %s\n", pc1 == ret - 1 ? "found" : "wrong");
	bad |= pc1 != ret - 1;
	plt_walk(lo + 16 + 11, stack11, &pc1);
	printf("plt: context at entry+11 (after the push): caller %s\n",
	       pc1 == ret - 1 ? "found" : "wrong");
	bad |= pc1 != ret - 1;
	/* Ticks in a loop through the PLT. */
	tick_me(250000);
	tag = T_PLT;
	/* A tick seldom lands on the stub's one jmp (3 in 20 buffers of 4096
	 * ticks on a loaded machine): when the buffer is full, keep the walks
	 * in the PLT and go on, until 10 of them or 200 buffers; at least 3
	 * are needed, every one through plt_loop to main. */
	for (unsigned fills = 0;;) {
		plt_loop();
		unsigned n = 0;
		for (unsigned i = 0; i < taken(); i++)
			n += walks[i].tag == T_PLT && walks[i].pcs[0] >= lo && walks[i].pcs[0] < hi;
		if (n >= 10)
			break;
		if (taken() >= NWALK) {
			if (++fills == 200)
				break;
			stop_ticks = 1;
			unsigned k = 0;
			for (unsigned i = 0; i < NWALK; i++)
				if (walks[i].tag == T_PLT && walks[i].pcs[0] >= lo && walks[i].pcs[0] < hi)
					walks[k++] = walks[i];
			__atomic_store_n(&nwalks, k, __ATOMIC_RELAXED);
			stop_ticks = 0;
		}
	}
	tag = T_NONE;
	ticks_off();
	unsigned inplt = 0, good = 0;
	for (unsigned i = 0; i < taken(); i++) {
		const struct walk *w = &walks[i];
		if (w->tag != T_PLT || w->pcs[0] < lo || w->pcs[0] >= hi)
			continue;
		inplt++;
		if (w->n >= 2 && is_fn(w->pcs[1], "plt_loop") && reaches_main(w) && w->flags == 0)
			good++;
		else
			print_walk("plt: not plt, plt_loop, main", w);
	}
	printf("plt: %u walks in the PLT [%#lx, %#lx), %u through plt_loop to main\n", inplt,
	       (unsigned long)lo, (unsigned long)hi, good);

	return !bad && inplt >= 3 && good == inplt ? 0 : 1;
}

static int case_coroutine(void)
{
	size_t size = 256 * 1024;
	char *stack = malloc(size);
	getcontext(&co_ctx);
	co_ctx.uc_stack.ss_sp = stack;
	co_ctx.uc_stack.ss_size = size;
	co_ctx.uc_link = NULL;
	makecontext(&co_ctx, co_entry, 0);
	tick_me(250000);
	run_until(T_CO, w_co, 50);
	ticks_off();
	unsigned leaf = 0, entry = 0, trunc = 0, end_normal = 0;
	const struct walk *example = NULL;
	for (unsigned i = 0; i < taken(); i++) {
		const struct walk *w = &walks[i];
		if (w->tag != T_CO || index_of(w, "co_spin", 0) < 0)
			continue;
		leaf++;
		int e = index_of(w, "co_entry", 0);
		if (e < 0) {
			print_walk("coroutine: co_entry not reached", w);
			continue;
		}
		entry++;
		trunc += (w->flags & MON_STACK_TRUNCATED) != 0;
		end_normal += w->flags == 0;
		example = w;
	}
	if (example)
		print_walk("coroutine: a walk", example);
	printf("coroutine: %u walks in co_spin, %u reach co_entry (%u end there normally, "
	       "%u truncated)\n", leaf, entry, end_normal, trunc);
	return leaf >= 10 && entry == leaf ? 0 : 1;
}

static int case_garbage(void)
{
	tick_me(250000);
	run_until(T_GCFI, w_gcfi, 30);
	run_until(T_GNOCFI, w_gnocfi, 30);
	ticks_off();
	unsigned cfi = 0, cfi_good = 0, nocfi = 0, nocfi_trunc = 0;
	for (unsigned i = 0; i < taken(); i++) {
		const struct walk *w = &walks[i];
		if (w->tag == T_GCFI && is_fn(w->pcs[0], "garbage_cfi")) {
			cfi++;
			if (reaches_main(w) && w->flags == 0)
				cfi_good++;
			else
				print_walk("garbage: with CFI, main not reached", w);
		} else if (w->tag == T_GNOCFI && is_fn(w->pcs[0], "garbage_nocfi")) {
			nocfi++;
			if ((w->flags & MON_STACK_TRUNCATED) && w->n >= 1)
				nocfi_trunc++;
			else
				print_walk("garbage: without CFI, not truncated", w);
		}
	}
	printf("garbage: with CFI %u walks, %u to main; without CFI %u walks, %u truncated\n", cfi,
	       cfi_good, nocfi, nocfi_trunc);
	return cfi >= 10 && cfi_good == cfi && nocfi >= 10 && nocfi_trunc == nocfi ? 0 : 1;
}

static unsigned char *jit_code;
static void w_jit(void) { ((void (*)(unsigned long))(void *)jit_code)(1000000); }

static int case_jit(void)
{
	/* mov rax, rdi; 1: dec rax; jnz 1b; ret */
	static const unsigned char code[] = { 0x48, 0x89, 0xf8, 0x48, 0xff, 0xc8, 0x75, 0xfb, 0xc3 };
	jit_code = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (jit_code == MAP_FAILED)
		return 1;
	memcpy(jit_code, code, sizeof code);
	if (mprotect(jit_code, 4096, PROT_READ | PROT_EXEC) != 0)
		return 1;
	tick_me(250000);
	run_until(T_JIT, w_jit, 30);
	ticks_off();
	unsigned in = 0, good = 0;
	for (unsigned i = 0; i < taken(); i++) {
		const struct walk *w = &walks[i];
		if (w->tag != T_JIT || w->pcs[0] < (uintptr_t)jit_code ||
		    w->pcs[0] >= (uintptr_t)jit_code + sizeof code)
			continue;
		in++;
		if (w->n == 1 && w->flags == MON_STACK_JIT)
			good++;
		else
			print_walk("jit: not the JIT PC alone, flagged", w);
	}
	printf("jit: %u walks in the generated code, %u its PC alone with the JIT flag\n", in, good);
	return in >= 10 && good == in ? 0 : 1;
}

static const char *plugin;
static volatile int loader_done;
static unsigned rounds_done;
static size_t bytes_early, bytes_late;
static unsigned tables_early, tables_late;

static void *loader(void *arg)
{
	(void)arg;
	tick_me(250000);
	for (unsigned i = 0; i < 300; i++) {
		void *h = dlopen(plugin, RTLD_NOW | RTLD_LOCAL);
		if (h == NULL) {
			fprintf(stderr, "dlopen: %s\n", dlerror());
			break;
		}
		if (mon_unwind_refresh() != 0)
			break;
		void (*fn)(unsigned long) = (void (*)(unsigned long))dlsym(h, "plugin_spin");
		if (fn)
			fn(20000);
		dlclose(h);
		if (mon_unwind_refresh() != 0)
			break;
		if (i == 19)
			bytes_early = mon_unwind_table_bytes(NULL, &tables_early);
		rounds_done = i + 1;
	}
	bytes_late = mon_unwind_table_bytes(NULL, &tables_late);
	loader_done = 1;
	return NULL;
}

static void w_rec_short(void) { rec(39, 1000); }

static int case_dlopen(void)
{
	if (plugin == NULL) {
		printf("usage: unwind_walk dlopen PLUGIN.so\n");
		return 2;
	}
	tick_me(250000);
	pthread_t t;
	pthread_create(&t, NULL, loader, NULL);
	tag = T_REC;
	while (!loader_done)
		w_rec_short();
	tag = T_NONE;
	pthread_join(t, NULL);
	ticks_off();
	unsigned mine = 0, main_ok = 0, other = 0;
	int self = (int)syscall(SYS_gettid);
	for (unsigned i = 0; i < taken(); i++) {
		const struct walk *w = &walks[i];
		if (w->tid == self && w->tag == T_REC) {
			mine++;
			main_ok += reaches_main(w) && w->flags == 0;
		} else if (w->tid != self) {
			other++;
		}
	}
	printf("dlopen: %u rounds; walks: %u in main's thread (%u reach main), %u in the loader; "
	       "tables after 20 rounds %u (%zu bytes), after all %u (%zu bytes)\n", rounds_done,
	       mine, main_ok, other, tables_early, bytes_early, tables_late, bytes_late);
	return rounds_done == 300 && tables_late == tables_early && bytes_late == bytes_early &&
	       mine > 0 && main_ok * 100 >= mine * 99 ? 0 : 1;
}

static void w_all(void)
{
	rec(39, 20000);
	do_qsort();
	sig_interrupted();
	vdso_loop();
	plt_loop();
	garbage_cfi(20000);
}

static int case_stats(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = usr1_spin;
	sigaction(SIGUSR1, &sa, NULL);
	tick_me(250000);
	tag = T_REC;
	while (taken() < 3000)
		w_all();
	ticks_off();
	unsigned n = taken(), good = 0;
	unsigned shown = 0;
	for (unsigned i = 0; i < n; i++) {
		if (reaches_main(&walks[i]))
			good++;
		else if (shown++ < 10)
			print_walk("stats: main not reached", &walks[i]);
	}
	printf("stats: %u walks, %u reach main (%.2f %%)\n", n, good, 100.0 * good / n);
	return good * 100 >= n * 99 ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: unwind_walk CASE [PLUGIN.so]\n");
		return 2;
	}
	plugin = argc > 2 ? argv[2] : NULL;
	setup();
	const char *c = argv[1];
	int rc = !strcmp(c, "recurse") ? case_recurse()
		 : !strcmp(c, "qsort") ? case_qsort()
		 : !strcmp(c, "signal") ? case_signal()
		 : !strcmp(c, "vdso") ? case_vdso()
		 : !strcmp(c, "plt") ? case_plt()
		 : !strcmp(c, "coroutine") ? case_coroutine()
		 : !strcmp(c, "garbage") ? case_garbage()
		 : !strcmp(c, "jit") ? case_jit()
		 : !strcmp(c, "dlopen") ? case_dlopen()
		 : !strcmp(c, "stats") ? case_stats()
		 : 2;
	if (rc == 2)
		fprintf(stderr, "unwind_walk: unknown case %s\n", c);
	if (taken() >= NWALK && rc != 0)
		printf("# the walk buffer filled up (%u walks)\n", NWALK);
	return rc;
}
