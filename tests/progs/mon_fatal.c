/* mon_fatal.c — the profile survives abort(), fatal signals and snapshots.
   Usage: mon_fatal MODE (built with -pg): calls leaf() 1234 times, spins,
   then: abort | term (SIGTERM to itself) | segv (a store to a page
   mapped PROT_NONE: a real fault, not the undefined behaviour of a NULL
   store that UBSan stops first) |
   snapshot (raise SIGUSR2, link mon.out to snap.out, leaf() 100 more times,
   exit 7)
   | exit7 (just exit 7) | handled (installs its own SIGTERM handler first,
   then SIGTERM to itself: the program's handler runs, exit 9). */
#include <signal.h>
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
	if (strcmp(mode, "snapshot") == 0) {
		raise(SIGUSR2);
		link("mon.out", "snap.out");	/* keep the snapshot: exit rewrites mon.out */
		for (int i = 0; i < 100; i++)
			leaf(i);
	}
	return 7;
}
