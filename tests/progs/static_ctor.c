/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * static_ctor.c — a program whose own constructor works, then does what
 * STATIC_CTOR says, for tests/integ/static_ctor.sh: in a static link the
 * program's constructors run before libmon.a's, while a cc -pg or
 * -finstrument-functions profile is already on.
 *   STATIC_CTOR=exit    the constructor calls exit(0) (main never runs)
 *   STATIC_CTOR=abort   the constructor calls abort()
 *   STATIC_CTOR=fork    the constructor forks; the child goes on to main
 *                       too, the parent waits for it first
 *   unset               the constructor returns
 * The constructor and main each spin SPIN (argv[1], default 30000000)
 * rounds.  Exit 0 (1 if fork fails).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;
static long spin_n = 30000000;

__attribute__((noinline)) static void spin(void)
{
	for (long i = 0; i < spin_n; i++)
		sink += (unsigned long)i;
}

__attribute__((constructor)) static void early(void)
{
	const char *what = getenv("STATIC_CTOR");
	spin();
	if (what == NULL)
		return;
	if (strcmp(what, "exit") == 0)
		exit(0);
	if (strcmp(what, "abort") == 0)
		abort();
	if (strcmp(what, "fork") == 0) {
		pid_t c = fork();
		if (c < 0)
			_exit(1);
		if (c > 0)
			waitpid(c, NULL, 0);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1)
		spin_n = atol(argv[1]);
	spin();
	return 0;
}
