/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * monrun_vdso.c — time inside the vDSO (case vdso-time.c).
 *
 *   monrun_vdso [SECONDS]
 *
 * Calls clock_gettime(CLOCK_MONOTONIC) — answered in the vDSO without a
 * system call — until the thread has used SECONDS (default 0.2) of CPU,
 * then spins SECONDS / 4 in user_part.  Prints "vdso_loop S" and
 * "user_part S" (CPU seconds).
 */
#include "monrun_common.h"

DEFINE_SPIN(user_part)

int main(int argc, char **argv)
{
	double s = mr_seconds(argc > 1 ? argv[1] : NULL, 0.2);
	struct timespec ts;
	long acc = 0;
	double start = mr_thread_cpu(), now;
	do {
		for (int i = 0; i < 10000; i++) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			acc += ts.tv_nsec & 1;
		}
		now = mr_thread_cpu();
	} while (now - start < s);
	double u = user_part(s / 4);
	printf("vdso_loop %.6f\nuser_part %.6f\nacc %d\n", now - start, u, acc > 0);
	return 0;
}
