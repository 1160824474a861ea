/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * monrun_threads.c — four threads with unequal CPU shares, each in a thread
 * function of its own.
 *
 *   monrun_threads [TOTAL_SECONDS]
 *
 * Thread k (1..4) runs tK_spin until it has used k/10 of TOTAL_SECONDS
 * (default 2.4) of CPU time — shares 10, 20, 30 and 40 % — measuring its own
 * time with CLOCK_THREAD_CPUTIME_ID, and the main thread prints "tK_spin S"
 * for each, the CPU seconds that thread really used.  The four run at once,
 * so on a machine with fewer cores they compete for it; the shares hold all
 * the same, since each counts its own CPU time.
 */
#include <pthread.h>
#include <string.h>

#include "monrun_common.h"

DEFINE_SPIN(t1_spin)
DEFINE_SPIN(t2_spin)
DEFINE_SPIN(t3_spin)
DEFINE_SPIN(t4_spin)

struct job {
	double (*spin)(double);
	double ask, used;
};

static void *run(void *arg)
{
	struct job *j = arg;
	j->used = j->spin(j->ask);
	return NULL;
}

int main(int argc, char **argv)
{
	double total = mr_seconds(argc > 1 ? argv[1] : NULL, 2.4);
	struct job jobs[4] = {
		{ t1_spin, 0.1 * total, 0 }, { t2_spin, 0.2 * total, 0 },
		{ t3_spin, 0.3 * total, 0 }, { t4_spin, 0.4 * total, 0 },
	};
	pthread_t tid[4];
	for (int k = 0; k < 4; k++) {
		int e = pthread_create(&tid[k], NULL, run, &jobs[k]);
		if (e != 0) {
			fprintf(stderr, "pthread_create: %s\n", strerror(e));
			return 1;
		}
	}
	for (int k = 0; k < 4; k++)
		pthread_join(tid[k], NULL);
	for (int k = 0; k < 4; k++)
		printf("t%d_spin %.6f\n", k + 1, jobs[k].used);
	return 0;
}
