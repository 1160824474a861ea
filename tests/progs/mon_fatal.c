/* SPDX-License-Identifier: BSD-2-Clause */
/* mon_fatal.c — the profile survives abort(), fatal signals and snapshots.
   Usage: mon_fatal MODE (built with -pg): calls leaf() 1234 times, spins,
   then: abort | term (SIGTERM to itself) | segv (a store to a page
   mapped PROT_NONE: a real fault, not the undefined behaviour of a NULL
   store that UBSan stops first) |
   snapshot (raise SIGUSR2, link mon.out to snap.out, leaf() 100 more times,
   exit 7)
   | exit7 (just exit 7) | handled (installs its own SIGTERM handler first,
   then SIGTERM to itself: the program's handler runs, exit 9) | overflow
   (unbounded recursion: SIGSEGV with the stack exhausted) |
   overflow_thread (the same in a second thread) | altstack (prints what
   sigaltstack(2) tells the program in a new thread and the main one,
   before and after setting and disabling an alternate stack of its own;
   exit 7). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static volatile double sink;

__attribute__((noinline)) void leaf(int i)
{
	sink += i;
}

__attribute__((noinline)) void spin(long n)
{
	for (long i = 0; i < n; i++)
		sink += i * 0.5;
}

/* Never returns: each frame keeps 256 bytes live across the call. */
__attribute__((noinline)) unsigned long deep(unsigned long n)
{
	volatile char pad[256];
	pad[n % 256] = (char)n;
	return deep(n + 1) + pad[n % 256];
}

static void *deep_thread(void *arg)
{
	(void)arg;
	sink += (double)deep(0);
	return NULL;
}

static void show_altstack(const char *where)
{
	static char mine[65536];
	stack_t o, ss = { .ss_sp = mine, .ss_size = sizeof mine, .ss_flags = 0 };
	stack_t off = { .ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE };
	sigaltstack(NULL, &o);
	printf("%s first: flags %d size %zu\n", where, o.ss_flags, o.ss_size);
	if (sigaltstack(&ss, &o) != 0)
		printf("%s set failed\n", where);
	printf("%s before set: flags %d size %zu\n", where, o.ss_flags, o.ss_size);
	sigaltstack(NULL, &o);
	printf("%s after set: flags %d size %zu mine %d\n", where, o.ss_flags, o.ss_size,
	       o.ss_sp == (void *)mine);
	sigaltstack(&off, NULL);
	sigaltstack(NULL, &o);
	printf("%s after disable: flags %d size %zu\n", where, o.ss_flags, o.ss_size);
}

static void *altstack_thread(void *arg)
{
	(void)arg;
	show_altstack("thread");
	return NULL;
}

static void own_handler(int sig)
{
	(void)sig;
	_exit(9);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "exit7";
	if (strcmp(mode, "handled") == 0)
		signal(SIGTERM, own_handler);
	for (int i = 0; i < 1234; i++)
		leaf(i);
	spin(50000000);
	if (strcmp(mode, "abort") == 0)
		abort();
	if (strcmp(mode, "term") == 0 || strcmp(mode, "handled") == 0)
		kill(getpid(), SIGTERM);
	if (strcmp(mode, "segv") == 0) {
		volatile int *nowhere = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (nowhere != MAP_FAILED)
			*nowhere = 1;
	}
	if (strcmp(mode, "overflow") == 0)
		sink += (double)deep(0);
	if (strcmp(mode, "overflow_thread") == 0 || strcmp(mode, "altstack") == 0) {
		pthread_t t;
		if (pthread_create(&t, NULL, mode[0] == 'o' ? deep_thread : altstack_thread, NULL) == 0)
			pthread_join(t, NULL);
	}
	if (strcmp(mode, "altstack") == 0)
		show_altstack("main");
	if (strcmp(mode, "snapshot") == 0) {
		raise(SIGUSR2);
		link("mon.out", "snap.out");	/* keep the snapshot: exit rewrites mon.out */
		for (int i = 0; i < 100; i++)
			leaf(i);
	}
	return 7;
}
