/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest_onstack — a program built like Go's runtime: its code runs on small
 * stacks that cannot take a signal frame (a goroutine's starts at 2 KiB and
 * has no guard page), so every handler it installs asks for the alternate
 * signal stack (SA_ONSTACK), on every signal it does not leave to the
 * default (Go's runtime.initsig), the profiling clock's among them.
 *
 * It spins on a small stack of its own (makecontext(3)) twice, for CPU time
 * of its thread: first with every signal blocked (the kernel's system call,
 * past libmon's view), which measures how deep the spin itself goes, then
 * with the signals let in, for SECONDS.  Before each run the stack is
 * filled with a pattern; after it, the deepest byte changed tells how much
 * of the stack the run used.  A tick delivered on the small stack leaves a
 * signal frame there (the kernel's, hundreds of bytes to kilobytes, and the
 * handler's own): it shows as the second run going deeper than the first.
 *
 * Prints "spin_bytes N" (the blocked run), "ticked_bytes N" (the second)
 * and "small_stack_bytes N", and exits 0; 2 on a setup error.
 * Usage: guest_onstack [SECONDS]   (CPU seconds of the second run; 0.3)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define SMALL_STACK (64 * 1024)
#define ALT_STACK (64 * 1024)
#define FILL 0xA5

static ucontext_t back, small;
static unsigned char *stack_mem;
static double spin_for;
static volatile unsigned long sink;

static double thread_cpu(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
}

/* Runs on the small stack: CPU until spin_for seconds of this thread's. */
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

/* Bytes of the small stack the last run used: from its top down to the
 * deepest byte that no longer holds the pattern. */
static size_t used(void)
{
	size_t i = 0;
	while (i < SMALL_STACK && stack_mem[i] == FILL)
		i++;
	return SMALL_STACK - i;
}

static size_t run_small(double seconds)
{
	memset(stack_mem, FILL, SMALL_STACK);
	spin_for = seconds;
	if (getcontext(&small) < 0)
		return 0;
	small.uc_stack.ss_sp = stack_mem;
	small.uc_stack.ss_size = SMALL_STACK;
	small.uc_link = &back;
	makecontext(&small, spin_small, 0);
	if (swapcontext(&back, &small) < 0)
		return 0;
	return used();
}

static long raw_mask(int how, const sigset_t *set, sigset_t *old)
{
	return syscall(SYS_rt_sigprocmask, how, set, old, (size_t)(_NSIG / 8));
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0.3;
	stack_t ss = { .ss_sp = malloc(ALT_STACK), .ss_flags = 0, .ss_size = ALT_STACK };
	stack_mem = mmap(NULL, SMALL_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ss.ss_sp == NULL || stack_mem == MAP_FAILED || sigaltstack(&ss, NULL) < 0) {
		perror("guest_onstack: setup");
		return 2;
	}
	/* Every signal but those that end or stop the program (left to their
	 * defaults, so that a fault is a fault and the test's time limit a
	 * kill) and SIGPROF (the itimer clock's, which a handler of the
	 * program's would take from it). */
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
		/* The C library's own real-time signals (SIGCANCEL, SIGSETXID)
		 * are below SIGRTMIN and refused: that is fine. */
		if (!skip)
			sigaction(s, &sa, NULL);
	}
	thread_cpu();	/* its first call binds clock_gettime (the loader's
			 * resolver saves the vector registers): not in the runs */
	sigset_t all, was;
	sigfillset(&all);
	raw_mask(SIG_SETMASK, &all, &was);
	size_t spin_bytes = run_small(0.05);
	raw_mask(SIG_SETMASK, &was, NULL);
	size_t ticked_bytes = run_small(seconds);
	printf("spin_bytes %zu\nticked_bytes %zu\nsmall_stack_bytes %d\n", spin_bytes, ticked_bytes,
	       SMALL_STACK);
	return 0;
}
