/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stacks_many.c — a program whose samples have many distinct call stacks
 * (issue 22, item 6: a large C++ program's hour, in seconds): a recursion
 * DEPTH levels deep through eight distinct functions, the next one chosen
 * by a pseudo-random number, so that nearly every sample's stack is new
 * (8^DEPTH paths).  Spins SECONDS of CPU.  Run it under monrun and read
 * the STACKS record's lost samples (bench/stacks_growth.sh, tests/integ/stacks_growth.sh).
 *
 *   stacks_many SECONDS [DEPTH [fork]]
 *
 * With "fork", a child made after the spin spins SECONDS more (its own
 * stacks, in a file of its own under monrun -f), and the parent waits.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t rng = 88172645463325252ull;
static volatile uint64_t sink;
static int depth = 12;

static double cpu(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

typedef void step_fn(int);
static step_fn *steps[8];

static void next(int level)
{
	if (level >= depth) {
		for (int i = 0; i < 20000; i++)
			sink = sink * 6364136223846793005ull + (uint64_t)i;
		return;
	}
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	steps[rng & 7](level + 1);
}

#define STEP(N)                                                                 \
	__attribute__((noinline)) static void step##N(int level)                \
	{                                                                       \
		next(level);                                                    \
		__asm__ volatile("" ::: "memory");                              \
	}
STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7)

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 10;
	if (argc > 2)
		depth = atoi(argv[2]);
	step_fn *s[8] = { step0, step1, step2, step3, step4, step5, step6, step7 };
	for (int i = 0; i < 8; i++)
		steps[i] = s[i];
	double end = cpu() + secs;
	while (cpu() < end)
		for (int k = 0; k < 100; k++)
			next(0);
	if (argc > 3 && strcmp(argv[3], "fork") == 0) {
		fflush(stdout);
		pid_t c = fork();
		if (c == 0) {
			end = cpu() + secs;
			while (cpu() < end)
				for (int k = 0; k < 100; k++)
					next(0);
			printf("child %d\n", (int)getpid());
			return 0;
		}
		int st;
		if (c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			return 1;
	}
	printf("done %llu\n", (unsigned long long)sink & 1);
	return 0;
}
