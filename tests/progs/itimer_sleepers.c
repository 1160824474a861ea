/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * itimer_sleepers.c — threads that only wait, for
 * tests/integ/monrun_itimer_stolen.sh: under the itimer clock with --wall,
 * the only CPU used is the runtime's own (the wall sampler reading every
 * thread's clock), and a tick its CPU raised must not end a waiting
 * thread's call.
 *
 *   itimer_sleepers [THREADS [SECONDS]]
 *
 * THREADS threads (default 64, at most 1024) and main each sleep in
 * nanosleep(2) calls of 20 ms for SECONDS of CLOCK_MONOTONIC (default 3),
 * counting the calls that failed with EINTR and those that returned 0 before
 * their time.  Prints "eintr E early N of CALLS"; exit 0, 2 on an error.
 * The threads start sleeping only when every one has started, and end only
 * when every one has stopped sleeping (two barriers): a starting thread's
 * first steps and an ending thread's last run with every signal blocked
 * (the C library's), and a tick their CPU raises goes to any other thread,
 * which is not what this program measures (itimer_cut stops the clock
 * there: 1 EINTR in 8765 calls once, beside a loaded check run).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double seconds = 3;
static pthread_barrier_t all_started, all_done;
static unsigned long calls, eintr, early;

static double mono(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *sleeper(void *arg)
{
	double end = *(const double *)arg;
	unsigned long n = 0, e = 0, x = 0;
	pthread_barrier_wait(&all_started);
	while (mono() < end) {
		struct timespec ts = { 0, 20000000 };
		double t0 = mono();
		int rc = nanosleep(&ts, NULL);
		n++;
		if (rc != 0 && errno == EINTR)
			e++;
		else if (rc == 0 && mono() - t0 < 0.020)
			x++;
	}
	__atomic_add_fetch(&calls, n, __ATOMIC_RELAXED);
	__atomic_add_fetch(&eintr, e, __ATOMIC_RELAXED);
	__atomic_add_fetch(&early, x, __ATOMIC_RELAXED);
	pthread_barrier_wait(&all_done);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 64;
	if (argc > 2)
		seconds = atof(argv[2]);
	if (n < 0 || n > 1024 || seconds <= 0)
		return 2;
	static pthread_t t[1024];
	if (pthread_barrier_init(&all_started, NULL, (unsigned)n + 1) != 0 ||
	    pthread_barrier_init(&all_done, NULL, (unsigned)n + 1) != 0)
		return 2;
	double end = mono() + seconds;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, sleeper, &end) != 0)
			return 2;
	sleeper(&end);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("eintr %lu early %lu of %lu\n", eintr, early, calls);
	return 0;
}
