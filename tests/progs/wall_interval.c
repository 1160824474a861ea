/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wall_interval — wall-clock samples cut into interval files
 * (tests/integ/wall_interval.sh), run under
 * PROFDIR=DIR monrun --interval=1 --wall=HZ.
 *
 *   wall_interval DIR N [exit|abort|exec]
 *
 * A steady thread blocks in read(2) of a pipe, in steady_wait, the whole
 * run.  A phase thread waits on a condition variable in wait_alpha in
 * even phases and in wait_beta in odd ones.  main watches DIR (every 5 ms,
 * in watch_dir): phase k begins when k interval files are there, so the
 * file of sequence k + 1 holds phase k (but for the moment main takes to
 * notice a file).  Once N - 1 files exist, main sleeps half a second more in
 * phase N - 1 (the last interval, written at exit), then ends the threads
 * and returns (abort: calls abort(3) instead, the last interval written
 * from the fatal signal's handler; exec: execs /bin/true, the last
 * interval written before the exec).  Prints "steady tid TID", "phase tid TID" and "steady_us N"
 * (the steady thread's life, CLOCK_MONOTONIC microseconds).  Exit 0, or 1
 * when DIR cannot be read or no file came within 60 s.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int fds[2];
static long steady_us;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int phase, done;

static long now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

__attribute__((noinline)) static void steady_wait(void)
{
	char c;
	if (read(fds[0], &c, 1) != 1)
		return;
	__asm__ volatile("");
}

static void *steady(void *arg)
{
	(void)arg;
	long t0 = now_us();
	printf("steady tid %d\n", gettid());
	fflush(stdout);
	steady_wait();
	steady_us = now_us() - t0;
	return NULL;
}

/* Wait (lock held) until the phase is no longer k or the run is done. */
__attribute__((noinline)) static void wait_alpha(int k)
{
	while (phase == k && !done)
		pthread_cond_wait(&changed, &lock);
	__asm__ volatile("");
}

__attribute__((noinline)) static void wait_beta(int k)
{
	while (phase == k && !done)
		pthread_cond_wait(&changed, &lock);
	__asm__ volatile("");
}

static void *phases(void *arg)
{
	(void)arg;
	printf("phase tid %d\n", gettid());
	fflush(stdout);
	pthread_mutex_lock(&lock);
	while (!done) {
		int k = phase;
		if (k % 2 == 0)
			wait_alpha(k);
		else
			wait_beta(k);
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

/* The interval files in dir (names holding ".i"), -1 if unreadable. */
__attribute__((noinline)) static int watch_dir(const char *dir)
{
	struct timespec ts = { 0, 5000000 };
	nanosleep(&ts, NULL);
	DIR *d = opendir(dir);
	if (d == NULL)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		n += strstr(e->d_name, ".i") != NULL && e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void set_phase(int k, int end)
{
	pthread_mutex_lock(&lock);
	phase = k;
	done = end;
	pthread_cond_broadcast(&changed);
	pthread_mutex_unlock(&lock);
}

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4)
		return 2;
	const char *end = argc == 4 ? argv[3] : "exit";
	int want = atoi(argv[2]);
	pthread_t a, b;
	if (pipe(fds) != 0 || pthread_create(&a, NULL, steady, NULL) != 0 ||
	    pthread_create(&b, NULL, phases, NULL) != 0)
		return 1;
	int rc = 0;
	long t0 = now_us();
	for (int k = 0; k < want - 1;) {
		int n = watch_dir(argv[1]);
		if (n < 0 || now_us() - t0 > 60000000L) {
			rc = 1;
			break;
		}
		if (n > k) {
			k = n < want - 1 ? n : want - 1;
			set_phase(k, 0);
		}
	}
	struct timespec half = { 0, 500000000 };
	nanosleep(&half, NULL);
	set_phase(phase, 1);
	if (write(fds[1], "x", 1) != 1)
		rc = 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("steady_us %ld\n", steady_us);
	fflush(stdout);
	if (rc == 0 && strcmp(end, "abort") == 0)
		abort();
	if (rc == 0 && strcmp(end, "exec") == 0) {
		execl("/bin/true", "true", (char *)NULL);
		return 1;
	}
	return rc;
}
