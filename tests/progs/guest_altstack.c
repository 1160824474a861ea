/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest_altstack.c — a SIGSEGV handler on a small alternate signal stack
 * (16 KiB, as runtimes with guard pages use), which itself uses 12 KiB of
 * it and siglongjmps back; N faults (default 3000).
 *
 *   guest_altstack [N]
 *
 * Unprofiled it exits 0 after "handled N faults".  A profiler's tick must
 * never need room on that stack.  Also checks that sigaction reports the
 * handler's mask exactly as set (a profiler may add its signal to it, but
 * must not show it).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static sigjmp_buf env;
static char *guard;
volatile double sink;

__attribute__((noinline)) static void handler_work(void)
{
	volatile char buf[12 * 1024];
	double s = 0;
	for (int i = 0; i < (int)sizeof buf; i++)
		buf[i] = (char)i;
	for (long i = 0; i < 100000; i++)
		s += buf[i % sizeof buf] * 0.5;
	sink = s;
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	handler_work();
	siglongjmp(env, 1);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3000;
	stack_t ss;
	memset(&ss, 0, sizeof ss);
	ss.ss_size = 16 * 1024;
	ss.ss_sp = malloc(ss.ss_size);
	sigaltstack(&ss, 0);
	struct sigaction sa, got;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, 0);
	sigaction(SIGSEGV, NULL, &got);
	for (int k = 1; k < NSIG; k++)
		if (sigismember(&got.sa_mask, k)) {
			fprintf(stderr, "sigaction reports signal %d in SIGSEGV's mask\n", k);
			return 1;
		}
	guard = mmap(0, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int faults = 0;
	for (int i = 0; i < n; i++) {
		if (sigsetjmp(env, 1) == 0)
			guard[0] = 1;
		else
			faults++;
	}
	stack_t off;
	memset(&off, 0, sizeof off);
	off.ss_flags = SS_DISABLE;
	sigaltstack(&off, 0);
	free(ss.ss_sp);
	printf("handled %d faults\n", faults);
	return faults != n;
}
