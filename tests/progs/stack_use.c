/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stack_use.c — how many bytes of the program's stacks the profiler's
 * signal handling uses, measured by painting.
 *
 *   stack_use thread DEPTH     a thread on a painted 1 MiB stack of its own
 *                              (pthread_attr_setstack) recurses DEPTH frames
 *                              and spins there while the clock ticks
 *   stack_use altstack N       a SIGSEGV handler on a painted 256 KiB
 *                              alternate stack (SA_ONSTACK) spins in its
 *                              handler for N faults while the clock ticks
 *
 * Prints "frame_bytes F" (the kernel's signal frame, measured in this run:
 * a handler of this program's own for SIGUSR2 on the same stack, the
 * distance from the stack pointer the signal interrupted, or from the
 * alternate stack's top, to the handler's entry), "samples S" (ticks the
 * runtime counted meanwhile, mon_getstats through dlsym; 0 unprofiled),
 * and:
 *   thread:   "handler_bytes H": the deepest byte written below the
 *             spinning frame's stack pointer, minus the red zone (128
 *             bytes, the System V AMD64 ABI's) and F: what the tick's
 *             handler itself used, the stack walk included;
 *   altstack: "entry_bytes E": bytes between the kernel's frame and the
 *             program's SIGSEGV handler (handlers of the runtime in
 *             between; 0 when the kernel enters the program's handler
 *             directly), and "handler_bytes H": the deepest byte written
 *             below the spinning handler's stack pointer, minus the red
 *             zone and F: a tick that lands on the alternate stack (while
 *             the handler spins, or when siglongjmp unblocks a pending
 *             one), and what siglongjmp itself uses there (0 in a plain
 *             build; a sanitizer's interceptor's frames).
 * The clock ticks the spinning code for at least 0.3 s: a thread, until 100
 * samples or 10 s (0.3 s unprofiled); the fault handler, 0.3 s (libmon
 * holds the ticks in an SA_ONSTACK handler, lib/sigguard.c: the one
 * pending at its end comes when siglongjmp unblocks it, on the alternate
 * stack).  Exit 0, or 1 on a failure to set up.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
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

#define PAINT 0x5a5a5a5a5a5a5a5aull
#define RED_ZONE 128

struct stats {	/* the first fields of <mon.h>'s struct mon_stats */
	uint64_t samples, counted, dropped, saturated, lost;
	unsigned rate_hz;
	int clock, on;
	unsigned threads;
	int faulted;
};

static int stop;			/* atomic: set by the thread that lets it tick */
static volatile uintptr_t probe_entry, probe_interrupted;
static uintptr_t spin_sp;	/* atomic: the spinning frame's stack pointer, 0 until then */
static uint64_t *area;
static size_t area_len;
static volatile uint64_t spins;

static int profiled(void)
{
	return dlsym(RTLD_DEFAULT, "mon_getstats") != NULL;
}

static uint64_t samples(void)
{
	int (*get)(struct stats *, size_t) = (int (*)(struct stats *, size_t))dlsym(RTLD_DEFAULT,
										      "mon_getstats");
	struct stats st;
	memset(&st, 0, sizeof st);
	if (get == NULL || get(&st, sizeof st) != 0)
		return 0;
	return st.samples;
}

static uintptr_t sp_now(void)
{
	uintptr_t sp;
	__asm__ volatile("mov %%rsp, %0" : "=r"(sp));
	return sp;
}

/* The probe: where the kernel entered a handler (its stack pointer at
 * entry, just above the return address: rbp + 16 after the prologue). */
__attribute__((noinline)) static void on_probe(int sig, siginfo_t *si, void *ucv)
{
	(void)sig;
	(void)si;
	ucontext_t *uc = ucv;
	probe_entry = (uintptr_t)__builtin_frame_address(0) + 16;
	probe_interrupted = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
}

static int install(int sig, void (*fn)(int, siginfo_t *, void *), int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | flags;
	sigemptyset(&sa.sa_mask);
	return sigaction(sig, &sa, NULL);
}

/* Paint [area, below) with PAINT: a loop that calls nothing. */
static void paint(uintptr_t below)
{
	volatile uint64_t *p = area;
	while ((uintptr_t)(p + 1) <= below)
		*p++ = PAINT;
}

/* The lowest address written in the area. */
static uintptr_t lowest(void)
{
	size_t i = 0;
	while (i < area_len / 8 && area[i] == PAINT)
		i++;
	return (uintptr_t)&area[i];
}

/* Spin, calling nothing, until stop. */
static void spin(void)
{
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
		spins = spins + 1;
}

static uint64_t frame_bytes;

__attribute__((noinline)) static void bottom(void)
{
	/* The kernel's frame, on this very stack. */
	syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), SIGUSR2);
	frame_bytes = probe_interrupted - probe_entry;
	uintptr_t sp = sp_now();
	paint(sp - 512);
	__atomic_store_n(&spin_sp, sp, __ATOMIC_RELEASE);
	spin();
}

__attribute__((noinline)) static void recurse(int n)
{
	volatile char pad[32];
	pad[0] = (char)n;
	if (n > 0)
		recurse(n - 1);
	else
		bottom();
	pad[1] = pad[0];
}

static void *thread_main(void *arg)
{
	recurse((int)(intptr_t)arg);
	return NULL;
}

/* Let the clock tick the spinning code: until WANT samples or 10 s, 0.3 s
 * at least. */
static uint64_t let_it_tick(uint64_t want)
{
	uint64_t s0 = samples();
	struct timespec t = { 0, 10 * 1000 * 1000 };
	for (int i = 0; i < 1000; i++) {
		nanosleep(&t, NULL);
		if (i >= 30 && (!profiled() || samples() - s0 >= want))
			break;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	return samples() - s0;
}

static int run_thread(int depth)
{
	area_len = 1u << 20;
	area = mmap(NULL, area_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED || install(SIGUSR2, on_probe, 0) != 0)
		return 1;
	paint((uintptr_t)area + area_len);
	pthread_attr_t a;
	pthread_t t;
	pthread_attr_init(&a);
	pthread_attr_setstack(&a, area, area_len);
	if (pthread_create(&t, &a, thread_main, (void *)(intptr_t)depth) != 0)
		return 1;
	while (__atomic_load_n(&spin_sp, __ATOMIC_ACQUIRE) == 0)
		sched_yield();
	uint64_t n = let_it_tick(100);
	pthread_join(t, NULL);
	uintptr_t low = lowest();
	long used = (long)(spin_sp - low) - RED_ZONE - (long)frame_bytes;
	printf("frame_bytes %llu\nsamples %llu\nhandler_bytes %ld\n", (unsigned long long)frame_bytes,
	       (unsigned long long)n, used < 0 ? 0 : used);
	return 0;
}

static sigjmp_buf env;
static char *guard;
static volatile uintptr_t segv_entry;
static volatile int faults, want_faults;

__attribute__((noinline)) static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	uintptr_t entry = (uintptr_t)__builtin_frame_address(0) + 16;
	if (segv_entry == 0 || entry > segv_entry)
		segv_entry = entry;	/* the highest entry seen: the least in between */
	if (++faults == want_faults) {
		uintptr_t sp = sp_now();
		paint(sp - 512);
		__atomic_store_n(&spin_sp, sp, __ATOMIC_RELEASE);
		spin();
	}
	siglongjmp(env, 1);
}

static void *ticker(void *arg)
{
	(void)arg;
	while (__atomic_load_n(&spin_sp, __ATOMIC_ACQUIRE) == 0)
		sched_yield();
	let_it_tick(0);	/* its ticks are held: 0.3 s */
	return NULL;
}

static int run_altstack(int n)
{
	area_len = 256u << 10;
	area = mmap(NULL, area_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		return 1;
	stack_t ss;
	memset(&ss, 0, sizeof ss);
	ss.ss_sp = area;
	ss.ss_size = area_len;
	uintptr_t top = (uintptr_t)area + area_len;
	if (sigaltstack(&ss, NULL) != 0 || install(SIGUSR2, on_probe, SA_ONSTACK) != 0 ||
	    install(SIGSEGV, on_segv, SA_ONSTACK) != 0)
		return 1;
	syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), SIGUSR2);
	frame_bytes = top - probe_entry;
	paint(top);
	guard = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pthread_t t;
	want_faults = n;
	if (pthread_create(&t, NULL, ticker, NULL) != 0)
		return 1;
	for (int i = 0; i < n; i++)
		if (sigsetjmp(env, 1) == 0)
			guard[0] = 1;
	pthread_join(t, NULL);
	uintptr_t low = lowest();
	long entry = (long)(top - segv_entry) - (long)frame_bytes;
	long used = (long)(spin_sp - low) - RED_ZONE - (long)frame_bytes;
	printf("frame_bytes %llu\nsamples %llu\nentry_bytes %ld\nhandler_bytes %ld\nfaults %d\n",
	       (unsigned long long)frame_bytes, (unsigned long long)samples(), entry < 0 ? 0 : entry,
	       used < 0 ? 0 : used, faults);
	return faults != n;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "thread") == 0)
		return run_thread(atoi(argv[2]));
	if (argc == 3 && strcmp(argv[1], "altstack") == 0)
		return run_altstack(atoi(argv[2]));
	fprintf(stderr, "usage: stack_use thread DEPTH | altstack N\n");
	return 2;
}
