/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cov_threads.c — threads whose CPU the profile must record.
 *
 *   cov_threads [SECONDS]
 *
 * Two threads named "cov-a" and "cov-b" (pthread_setname_np) spin SECONDS
 * (default 0.2) and 2 * SECONDS of CPU and end; the main thread then sleeps
 * 0.05 s of wall-clock time (no CPU) and spins SECONDS.  Prints "cov-a S"
 * and "cov-b S" (each thread's whole CPU, from its CPU clock just before it
 * returns), "main_spin S", and "elapsed S": wall-clock seconds from main's
 * start to its end (CLOCK_MONOTONIC), which the run's elapsed time holds.
 */
#define _GNU_SOURCE
#include <pthread.h>

#include "monrun_common.h"

DEFINE_SPIN(thread_spin)
DEFINE_SPIN(main_spin)

struct job {
	const char *name;
	double seconds, cpu;
};

static void *worker(void *p)
{
	struct job *j = p;
	pthread_setname_np(pthread_self(), j->name);
	thread_spin(j->seconds);
	j->cpu = mr_thread_cpu();
	return NULL;
}

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double t0 = mono();
	double s = mr_seconds(argc > 1 ? argv[1] : NULL, 0.2);
	struct job jobs[2] = { { "cov-a", s, 0 }, { "cov-b", 2 * s, 0 } };
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, &jobs[i]) != 0) {
			fprintf(stderr, "pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	struct timespec nap = { 0, 50000000 };
	nanosleep(&nap, NULL);
	double m = main_spin(s);
	printf("cov-a %.6f\ncov-b %.6f\nmain_spin %.6f\nelapsed %.6f\n", jobs[0].cpu, jobs[1].cpu, m,
	       mono() - t0);
	return 0;
}
