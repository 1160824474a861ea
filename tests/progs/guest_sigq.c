/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest_sigq.c — a program that counts on its quota of pending signals
 * (RLIMIT_SIGPENDING: every POSIX timer takes one of it, for its signal,
 * from timer_create on).
 *
 *   guest_sigq T N    T threads (default 4) spin 0.05 CPU-s each in
 *                     thread_spin and wait; the main thread then makes N
 *                     (default 4) timers of its own (timer_create,
 *                     CLOCK_MONOTONIC, SIGEV_SIGNAL), spins 0.1 CPU-s in
 *                     main_spin, deletes them and lets the threads end.
 * Prints "quota USED LIMIT" (the user's queued signals and the limit,
 * /proc/self/status SigQ, before its own timers), "timers_made K" and the
 * spin functions' CPU; exits 0 when all N timers were made, 1 otherwise.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "monrun_common.h"

DEFINE_SPIN(thread_spin)
DEFINE_SPIN(main_spin)

static pthread_barrier_t b1, b2;
static double thread_cpu[64];

static void *thr(void *a)
{
	*(double *)a = thread_spin(0.05);
	pthread_barrier_wait(&b1);
	pthread_barrier_wait(&b2);
	return NULL;
}

int main(int argc, char **argv)
{
	int nt = argc > 1 ? atoi(argv[1]) : 4, n = argc > 2 ? atoi(argv[2]) : 4;
	if (nt < 0 || nt > 64 || n < 0 || n > 64)
		return 2;
	pthread_t t[64];
	pthread_barrier_init(&b1, NULL, (unsigned)nt + 1);
	pthread_barrier_init(&b2, NULL, (unsigned)nt + 1);
	for (int i = 0; i < nt; i++)
		if ((errno = pthread_create(&t[i], NULL, thr, &thread_cpu[i])) != 0) {
			perror("pthread_create");
			return 1;
		}
	pthread_barrier_wait(&b1);
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	while (f != NULL && fgets(line, sizeof line, f) != NULL) {
		unsigned used, limit;
		if (sscanf(line, "SigQ: %u/%u", &used, &limit) == 2)
			printf("quota %u %u\n", used, limit);
	}
	if (f != NULL)
		fclose(f);
	timer_t id[64];
	int made = 0;
	for (int i = 0; i < n; i++) {
		struct sigevent se;
		memset(&se, 0, sizeof se);
		se.sigev_notify = SIGEV_SIGNAL;
		se.sigev_signo = SIGRTMIN + 3;
		if (timer_create(CLOCK_MONOTONIC, &se, &id[made]) == 0)
			made++;
		else
			fprintf(stderr, "guest_sigq: timer_create %d: %s\n", i, strerror(errno));
	}
	printf("timers_made %d\n", made);
	printf("main_spin %.6f\n", main_spin(0.1));
	for (int i = 0; i < made; i++)
		timer_delete(id[i]);
	pthread_barrier_wait(&b2);
	double tc = 0;
	for (int i = 0; i < nt; i++) {
		pthread_join(t[i], NULL);
		tc += thread_cpu[i];
	}
	printf("thread_spin %.6f\n", tc);
	return made == n ? 0 : 1;
}
