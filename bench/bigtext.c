/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bigtext.c — the driver of bench/textsize.sh's generated programs, whose
 * text size is set by the generated assembly linked with it: NFUNC leaf
 * functions f0..f{NFUNC-1}, each a countdown loop followed by padding
 * (int3 bytes) that makes the function, and so the executable segment,
 * as large as asked.  main calls every function in turn, for ROUNDS rounds,
 * with equal work, so the profile's hits are spread over the whole text.
 *   bigtext MILLIONS [STAMP_FILE]
 * MILLIONS: total loop iterations, in millions (about 1 CPU-second per 2000
 * here).  At the end of main, before exit() runs the profiler's writer,
 * the program writes "process_cpu_s monotonic_s" (CLOCK_PROCESS_CPUTIME_ID,
 * CLOCK_MONOTONIC) to STAMP_FILE, so bench/rusage.c can tell what exit cost.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef void leaf_fn(unsigned long iterations);
extern leaf_fn *const bigtext_funcs[];
extern const unsigned long bigtext_nfunc;

enum { ROUNDS = 20 };

static double seconds(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double millions = argc > 1 ? atof(argv[1]) : 2000;
	unsigned long per_call = (unsigned long)(millions * 1e6 / ROUNDS / bigtext_nfunc);
	FILE *f;

	if (per_call == 0)
		per_call = 1;
	for (int r = 0; r < ROUNDS; r++)
		for (unsigned long i = 0; i < bigtext_nfunc; i++)
			bigtext_funcs[i](per_call);
	if (argc > 2) {
		double cpu = seconds(CLOCK_PROCESS_CPUTIME_ID), mono = seconds(CLOCK_MONOTONIC);

		f = fopen(argv[2], "w");
		if (f == NULL)
			return 1;
		fprintf(f, "%.6f %.6f\n", cpu, mono);
		if (fclose(f) != 0)
			return 1;
	}
	return 0;
}
