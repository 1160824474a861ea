/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * threads_many — more threads alive at once than the runtime's thread
 * table holds (MON_FACTS_MAX, 8192, in lib/runfacts.c), for
 * tests/integ/threads_churn.sh: every file of an interval run must count
 * the threads it cannot list once, not once more for each interval before;
 * and than the per-thread clocks' table holds (MON_MAX_THREADS, 4096, in
 * lib/threads.c), for tests/integ/threads_clocks_full.sh.
 *
 *   threads_many [THREADS [MS [AFTER]]]   (default 8400, 2500, 0)
 *
 * Starts THREADS threads (64 KiB stacks), each blocked in read(2) on one
 * pipe; prints "alive N" once all are started and each has entered its
 * start routine, sleeps MS milliseconds, closes the pipe's write end (every
 * read returns 0), joins them, prints "joined N" and sleeps AFTER
 * milliseconds more.  Exit 0, or 1 when a thread could not be started.
 *
 * pthread_create(3) may return before the new thread runs (POSIX leaves
 * the order open): "alive" waits for every thread to have entered, so that
 * all N are alive at once, each past libmon's start wrapper (which arms its
 * clock before the routine runs, lib/threads.c).  Without the wait, an
 * ASan-built program on two busy cores had 1996 to 3784 of 4200 threads in
 * their routine when the pipe closed, 300 ms after the last create returned,
 * and the first threads ended before the last began.
 *
 * Every wait here resumes after a signal handler that has SA_RESTART, as
 * libmon's SIGPROF handler has: read(2) on a pipe and on a timerfd, and a
 * futex wait without a timeout (pthread_cond_wait).  nanosleep(2) would not
 * (signal(7): it fails with EINTR whatever the flags): the itimer clock's
 * process-wide SIGPROF, raised while a starting or ending thread blocks
 * every signal, is given to a sleeping thread and ends its sleep, and the
 * clock then stops for good (lib/clock.c itimer_cut, MONOUT_FACT_CLOCK_CUT).
 * That is a limit of the itimer clock with its own test
 * (tests/integ/monrun_itimer_stolen.sh), not what the tests of this
 * program are about: its itimer series in threads_churn.sh had no samples
 * at all in 2 ASan runs of 5 (there the sleeper was libmon's own wait for
 * its control thread, since fixed: tests/unit/test_own_wait.c; main's 1 ms
 * nanosleep calls, 8400 of them among starting threads, were the next in
 * line).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/timerfd.h>
#include <unistd.h>

static int rfd;
static long entered;	/* threads that have entered blocked(), under lock */
static long want = -1;	/* the count main waits for, under lock */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t all_in = PTHREAD_COND_INITIALIZER;

static void *blocked(void *arg)
{
	char c;
	(void)arg;
	pthread_mutex_lock(&lock);
	if (++entered == want)
		pthread_cond_signal(&all_in);
	pthread_mutex_unlock(&lock);
	while (read(rfd, &c, 1) > 0)
		;
	return NULL;
}

/* Sleep ms milliseconds (CLOCK_MONOTONIC) in read(2) on a timerfd. */
static int sleep_ms(long ms)
{
	if (ms == 0)
		return 0;
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	struct itimerspec it = { { 0, 0 }, { ms / 1000, (ms % 1000) * 1000000L } };
	uint64_t n;
	int ok = fd >= 0 && timerfd_settime(fd, 0, &it, NULL) == 0 && read(fd, &n, sizeof n) == sizeof n;
	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 8400;
	long ms = argc > 2 ? atol(argv[2]) : 2500;
	long after = argc > 3 ? atol(argv[3]) : 0;
	int p[2];
	if (n < 1 || ms < 0 || after < 0 || pipe(p) != 0)
		return 2;
	rfd = p[0];
	pthread_t *t = calloc((size_t)n, sizeof *t);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64u << 10);
	long started = 0;
	while (started < n && pthread_create(&t[started], &attr, blocked, NULL) == 0)
		started++;
	pthread_mutex_lock(&lock);
	want = started;
	while (entered < started)
		pthread_cond_wait(&all_in, &lock);
	pthread_mutex_unlock(&lock);
	printf("alive %ld\n", started);
	fflush(stdout);
	if (sleep_ms(ms) != 0)
		return 2;
	close(p[1]);
	for (long i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	printf("joined %ld\n", started);
	fflush(stdout);
	if (sleep_ms(after) != 0)
		return 2;
	free(t);
	return started == n ? 0 : 1;
}
