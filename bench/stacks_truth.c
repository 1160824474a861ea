/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stacks_truth.c — a program whose call stacks are known, so that inclusive
 * time from sampled stacks can be scored against what really happened.
 *
 *   stacks_truth SECONDS OUT
 *
 * main runs four phases in turn, several rounds, about SECONDS of CPU in
 * all, and measures each with the thread CPU clock (clock_gettime(2),
 * CLOCK_THREAD_CPUTIME_ID):
 *   hard     calls work() once per round for a long job (about 30 %);
 *   easy     calls work() 1000 times per round for short jobs (about 10 %):
 *            gprof, splitting work's time by call counts, charges nearly
 *            all of it to easy; stacks charge each caller what it caused;
 *   sorter   sorts with the C library's qsort(3) through a comparator
 *            (about 25 %): stacks must go through qsort's frames to main;
 *            its memory is touched before the phases (no page faults: the
 *            phases spend user time only, which every profiling clock sees);
 *   recurse  a 40-deep recursion, spinning in a leaf at the bottom (about
 *            25 %): recursion counts once per sample in inclusive time.
 * OUT receives "name cpu_ns" for hard, easy, sorter, recurse, work (the sum
 * of the time inside work, measured around each call, main's own calls
 * measuring the speed of work included) and main (the whole of main's
 * body): a function's inclusive share of main is name / main.
 *
 * Build -O2 -fomit-frame-pointer (as Debian builds its libraries): the
 * unwinder must use the CFI, not frame pointers.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline, noclone))

static volatile uint64_t sink;

static uint64_t thread_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t work_ns;

/* The shared callee: n steps of a multiply-xorshift chain. */
NOINLINE void work(uint64_t n);
NOINLINE void work(uint64_t n)
{
	uint64_t x = sink + 7;
	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + 7;
		x ^= x >> 29;
	}
	sink = x;
}

static NOINLINE void timed_work(uint64_t n)
{
	uint64_t t0 = thread_ns();
	work(n);
	work_ns += thread_ns() - t0;
}

NOINLINE void hard(uint64_t n);
NOINLINE void hard(uint64_t n)
{
	timed_work(n);
	__asm__ volatile("" ::: "memory");	/* no tail call: hard keeps its frame */
}

NOINLINE void easy(uint64_t n);
NOINLINE void easy(uint64_t n)
{
	for (int i = 0; i < 1000; i++)
		timed_work(n / 1000);
}

static int NOINLINE compare_keys(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	/* A comparator with some work of its own, as real ones have. */
	for (int i = 0; i < 8; i++) {
		x = x * 6364136223846793005ull + 1;
		y = y * 6364136223846793005ull + 1;
	}
	return x < y ? -1 : x > y;
}

/* The keys' memory, touched once in main before the phases: a sort spends
 * no system time on page faults (the perf clock samples user time only,
 * while the thread CPU clock counts both). */
#define SORT_MAX (4u << 20)
static uint64_t *keys;

NOINLINE void sorter(size_t n);
NOINLINE void sorter(size_t n)
{
	uint64_t x = 88172645463325252ull;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		keys[i] = x;
	}
	qsort(keys, n, sizeof *keys, compare_keys);
	sink += keys[n / 2];
}

NOINLINE uint64_t recurse(int depth, uint64_t n);
/* Called through a volatile pointer, so the compiler cannot turn the
 * recursion into a loop: 40 real frames. */
static uint64_t (*volatile recurse_ptr)(int, uint64_t) = recurse;
NOINLINE uint64_t recurse(int depth, uint64_t n)
{
	if (depth == 0) {
		uint64_t x = sink + 3;
		for (uint64_t i = 0; i < n; i++) {
			x = x * 6364136223846793005ull + 3;
			x ^= x >> 31;
		}
		return x;
	}
	uint64_t r = recurse_ptr(depth - 1, n);
	__asm__ volatile("" ::: "memory");	/* no tail call: the frame stays */
	return r + (uint64_t)depth;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: stacks_truth SECONDS OUT\n");
		return 2;
	}
	double seconds = atof(argv[1]);
	uint64_t m0 = thread_ns();
	/* Steps of work per CPU-second, measured once (its time is main's). */
	uint64_t steps = 1u << 20, t;
	for (;;) {
		uint64_t t0 = thread_ns();
		work(steps);
		t = thread_ns() - t0;
		work_ns += t;	/* main's own calls of work */
		if (t > 20000000u)
			break;
		steps *= 2;
	}
	double per_s = (double)steps * 1e9 / (double)t;
	keys = malloc(SORT_MAX * sizeof *keys);
	if (keys == NULL)
		return 1;
	for (size_t i = 0; i < SORT_MAX; i++)
		keys[i] = i;
	int rounds = 20;
	double round_s = seconds / rounds;
	uint64_t hard_ns = 0, easy_ns = 0, sort_ns = 0, rec_ns = 0;
	/* qsort of n keys with this comparator: calibrated on the first round. */
	size_t nsort = 20000;
	for (int r = 0; r < rounds; r++) {
		uint64_t a = thread_ns();
		hard((uint64_t)(per_s * round_s * 0.30));
		uint64_t b = thread_ns();
		easy((uint64_t)(per_s * round_s * 0.10));
		uint64_t c = thread_ns();
		sorter(nsort);
		uint64_t d = thread_ns();
		recurse(40, (uint64_t)(per_s * round_s * 0.25));
		uint64_t e = thread_ns();
		hard_ns += b - a;
		easy_ns += c - b;
		sort_ns += d - c;
		rec_ns += e - d;
		if (r == 0 && d > c) {	/* aim the sort at 25 % of a round */
			double k = round_s * 0.25 * 1e9 / (double)(d - c);
			nsort = (size_t)((double)nsort * (k > 50 ? 50 : k));
			if (nsort < 1000)
				nsort = 1000;
			if (nsort > SORT_MAX)
				nsort = SORT_MAX;
		}
	}
	uint64_t main_ns = thread_ns() - m0;
	FILE *f = fopen(argv[2], "w");
	if (f == NULL)
		return 1;
	fprintf(f, "hard %llu\neasy %llu\nsorter %llu\nrecurse %llu\nwork %llu\nmain %llu\n",
		(unsigned long long)hard_ns, (unsigned long long)easy_ns,
		(unsigned long long)sort_ns, (unsigned long long)rec_ns,
		(unsigned long long)work_ns, (unsigned long long)main_ns);
	return fclose(f) != 0;
}
