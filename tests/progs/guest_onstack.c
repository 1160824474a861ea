/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest_onstack — a program whose handlers all run on its alternate signal
 * stack (SA_ONSTACK, on every signal it does not leave to the default: the
 * profiling clock's among them), which it fills with a pattern to see who
 * used it.  libmon must put none of its ticks there: a program's alternate
 * stack may be a few KiB, and a tick's frame and handler are more
 * (lib/sigguard.c; Go's runtime alone, whose alternate stacks are 32 KiB
 * or libmon's, gets its ticks there).
 *
 * It raises SIGUSR1 once: its handler runs on the alternate stack, which
 * shows the stack is in use ("own_altstack_bytes N", more than 0).  Then it
 * fills the stack again and spins for SECONDS of its thread's CPU on a
 * stack of its own (makecontext(3), 64 KiB), whose bottom frame is glibc's
 * __start_context: "spin_altstack_bytes N" says how much of the alternate
 * stack was used meanwhile, where no signal of the program's came.
 * Exits 0; 2 on a setup error.
 * Usage: guest_onstack [SECONDS]   (CPU seconds of the spin; 0.3)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define CONTEXT_STACK (64 * 1024)
#define ALT_STACK (64 * 1024)
#define FILL 0xA5

static ucontext_t back, spin_ctx;
static unsigned char *alt_mem;
static double spin_for;
static volatile unsigned long sink;
static volatile sig_atomic_t own_handled;

static double thread_cpu(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	if (sig == SIGUSR1)
		own_handled = 1;
}

/* Runs on the context's stack: CPU until spin_for seconds of this thread's. */
__attribute__((noinline)) static void spin_small(void)
{
	double end = thread_cpu() + spin_for;
	unsigned long x = 1;
	do {
		for (int i = 0; i < 20000; i++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
		sink = x;
	} while (thread_cpu() < end);
}

/* Bytes of the alternate stack used since it was filled: from its top
 * down to the deepest byte that no longer holds the pattern. */
static size_t alt_used(void)
{
	size_t i = 0;
	while (i < ALT_STACK && alt_mem[i] == FILL)
		i++;
	return ALT_STACK - i;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0.3;
	unsigned char *ctx_mem = mmap(NULL, CONTEXT_STACK, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	alt_mem = mmap(NULL, ALT_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	stack_t ss = { .ss_sp = alt_mem, .ss_flags = 0, .ss_size = ALT_STACK };
	if (ctx_mem == MAP_FAILED || alt_mem == MAP_FAILED || sigaltstack(&ss, NULL) < 0) {
		perror("guest_onstack: setup");
		return 2;
	}
	/* Every signal but those that end or stop the program (left to their
	 * defaults, so that a fault is a fault and the test's time limit a
	 * kill), SIGPROF (the itimer clock's, which a handler of the
	 * program's would take from it) and SIGCHLD. */
	static const int left[] = { SIGKILL, SIGSTOP, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP,
				    SIGABRT, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPROF, SIGCHLD };
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	sigfillset(&sa.sa_mask);
	for (int s = 1; s <= SIGRTMAX; s++) {
		int skip = 0;
		for (size_t i = 0; i < sizeof left / sizeof left[0]; i++)
			skip |= s == left[i];
		/* The C library's own real-time signals (below SIGRTMIN) are
		 * refused: that is fine. */
		if (!skip)
			sigaction(s, &sa, NULL);
	}
	memset(alt_mem, FILL, ALT_STACK);
	raise(SIGUSR1);
	size_t own = own_handled ? alt_used() : 0;
	memset(alt_mem, FILL, ALT_STACK);
	spin_for = seconds;
	if (getcontext(&spin_ctx) < 0)
		return 2;
	spin_ctx.uc_stack.ss_sp = ctx_mem;
	spin_ctx.uc_stack.ss_size = CONTEXT_STACK;
	spin_ctx.uc_link = &back;
	makecontext(&spin_ctx, spin_small, 0);
	if (swapcontext(&back, &spin_ctx) < 0)
		return 2;
	printf("own_altstack_bytes %zu\nspin_altstack_bytes %zu\n", own, alt_used());
	return 0;
}
