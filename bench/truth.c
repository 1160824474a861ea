/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * truth.c — workloads whose profile is known: the program measures its own
 * functions' CPU time with the thread CPU clock around long calls, so every
 * profiler can be scored against what really happened.
 *
 *   truth 1 SECONDS OUT   one thread, three leaf functions with unequal shares
 *                         (about 60 / 30 / 10 %), called in turn, ~1.4 ms a call
 *   truth 4 SECONDS OUT   four threads on this 2-core machine, each running its
 *                         own leaf function with unequal work (4 : 3 : 2 : 1)
 *   truth T SECONDS OUT   T threads (T >= 2) with equal work, one function
 *                         each (the thread-growth table)
 *
 * SECONDS is the approximate CPU time of the whole run.  OUT receives one line
 * "function cpu_ns" per function (the sum of the thread CPU clock across its
 * calls) and "_process cpu_ns", the CPU time of the whole process at the end
 * (what the samples per CPU-second are divided by).
 *
 * The functions are leaves doing integer arithmetic (no library calls), kept
 * out of line and distinct (different constants), so a flat profile must
 * charge their samples to exactly these names.  The time outside them (the
 * loop calling them, reading the clock) is not part of the truth; the scorer
 * renormalises over the measured functions.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline, noclone))

static volatile uint64_t sink;

/* One leaf body: a multiply-xorshift chain the compiler cannot shorten. */
#define LEAF(NAME, K)                                                        \
	static NOINLINE void NAME(uint64_t n)                                \
	{                                                                    \
		uint64_t x = sink + (K);                                     \
		for (uint64_t i = 0; i < n; i++) {                           \
			x = x * 6364136223846793005ull + (K);                \
			x ^= x >> 29;                                        \
		}                                                            \
		sink = x;                                                    \
	}

LEAF(work_a, 11)
LEAF(work_b, 23)
LEAF(work_c, 37)
LEAF(thread_w1, 41)
LEAF(thread_w2, 53)
LEAF(thread_w3, 67)
LEAF(thread_w4, 79)
LEAF(thread_eq, 97)
LEAF(calib_leaf, 3)

static uint64_t thread_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Iterations of a leaf per CPU-millisecond, measured once with a leaf of
 * its own (its samples must not land in a measured function). */
static uint64_t per_ms;

static void calibrate(void)
{
	uint64_t n = 200000, t;
	for (;;) {
		uint64_t t0 = thread_ns();
		calib_leaf(n);
		t = thread_ns() - t0;
		if (t > 20000000u)
			break;
		n *= 2;
	}
	per_ms = n * 1000000u / t;
	if (per_ms == 0)
		per_ms = 1;
}

struct job {
	void (*fn)(uint64_t);
	const char *name;
	uint64_t calls, ns;
};

/* Iterations per call: about 1.37 ms, a length no sampling period here
 * (0.1, 0.25, 1, 4 or 10 ms) divides, so that a periodic sampler cannot lock
 * onto the round of 10 calls (13.7 ms) and see one function more than its
 * share (at exactly 1 ms a call the 10 ms round aliased with gprof's 100 Hz). */
static uint64_t per_call(void)
{
	return per_ms * 137 / 100;
}

/* Calls of about 1.37 ms, each timed with the thread CPU clock. */
static void *run_job(void *arg)
{
	struct job *j = arg;
	for (uint64_t c = 0; c < j->calls; c++) {
		uint64_t t0 = thread_ns();
		j->fn(per_call());
		j->ns += thread_ns() - t0;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: truth 1|4|THREADS SECONDS OUT\n");
		return 2;
	}
	int mode = atoi(argv[1]);
	double secs = atof(argv[2]);
	if (mode < 1 || secs <= 0) {
		fprintf(stderr, "truth: bad arguments\n");
		return 2;
	}
	calibrate();
	uint64_t total_calls = (uint64_t)(secs * 1000 / 1.37);
	struct job jobs[64];
	int n = 0;
	if (mode == 1) {
		/* Interleaved in rounds of 10 calls: a a a a a a b b b c. */
		struct job a = { work_a, "work_a", 0, 0 }, b = { work_b, "work_b", 0, 0 },
			   c = { work_c, "work_c", 0, 0 };
		for (uint64_t r = 0; r < total_calls / 10; r++) {
			for (int k = 0; k < 6; k++) {
				uint64_t t0 = thread_ns();
				work_a(per_call());
				a.ns += thread_ns() - t0;
			}
			for (int k = 0; k < 3; k++) {
				uint64_t t0 = thread_ns();
				work_b(per_call());
				b.ns += thread_ns() - t0;
			}
			uint64_t t0 = thread_ns();
			work_c(per_call());
			c.ns += thread_ns() - t0;
		}
		jobs[n++] = a;
		jobs[n++] = b;
		jobs[n++] = c;
	} else {
		static void (*const fns4[4])(uint64_t) = { thread_w1, thread_w2, thread_w3, thread_w4 };
		static const char *const names4[4] = { "thread_w1", "thread_w2", "thread_w3", "thread_w4" };
		int threads = mode > 64 ? 64 : mode;
		for (int t = 0; t < threads; t++) {
			jobs[t].ns = 0;
			if (mode == 4) {
				jobs[t].fn = fns4[t];
				jobs[t].name = names4[t];
				jobs[t].calls = total_calls * (uint64_t)(4 - t) / 10;
			} else {
				jobs[t].fn = thread_eq;
				jobs[t].name = "thread_eq";
				jobs[t].calls = total_calls / (uint64_t)threads;
			}
		}
		pthread_t tid[64];
		for (int t = 0; t < threads; t++)
			if (pthread_create(&tid[t], NULL, run_job, &jobs[t]) != 0) {
				fprintf(stderr, "truth: pthread_create failed\n");
				return 1;
			}
		for (int t = 0; t < threads; t++)
			pthread_join(tid[t], NULL);
		n = threads;
	}
	FILE *f = fopen(argv[3], "w");
	if (!f) {
		perror(argv[3]);
		return 1;
	}
	for (int i = 0; i < n; i++)
		fprintf(f, "%s %llu\n", jobs[i].name, (unsigned long long)jobs[i].ns);
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	fprintf(f, "_process %llu\n", (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec);
	return fclose(f) == 0 ? 0 : 1;
}
