/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * prof_wall_truth.c — a program that waits in known ways, for
 * tests/integ/prof_wall.sh: a holder thread keeps queue_lock (a global
 * mutex, so a data symbol names it) for 300 ms while a waiter thread
 * blocks on it, then the waiter blocks in read(2) on a pipe the main thread
 * writes 200 ms later, then sleeps 300 ms in nanosleep(2).  Prints the
 * holder's thread id (gettid(2)) on standard output.
 */
#define _GNU_SOURCE
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static int fds[2];
static volatile unsigned long sink;
static pthread_mutex_t go_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go = PTHREAD_COND_INITIALIZER;
static int held;

/* Runs on the CPU for ms milliseconds of CLOCK_MONOTONIC. */
__attribute__((noinline)) static void spin_ms(int ms)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 10000; i++)
			sink += (unsigned long)i;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

__attribute__((noinline)) static void waiter_lock(void)
{
	pthread_mutex_lock(&queue_lock);
	pthread_mutex_unlock(&queue_lock);
}

__attribute__((noinline)) static void waiter_read(void)
{
	char c;
	if (read(fds[0], &c, 1) != 1)
		perror("read");
}

__attribute__((noinline)) static void waiter_sleep(void)
{
	struct timespec t = { 0, 300000000 };
	nanosleep(&t, NULL);
}

static void *holder(void *p)
{
	(void)p;
	pthread_setname_np(pthread_self(), "holder");	/* prof names it in the lock's wait */
	pthread_mutex_lock(&queue_lock);
	printf("%d\n", (int)gettid());
	fflush(stdout);
	pthread_mutex_lock(&go_lock);
	held = 1;
	pthread_cond_signal(&go);
	pthread_mutex_unlock(&go_lock);
	spin_ms(300);
	pthread_mutex_unlock(&queue_lock);
	return NULL;
}

static void *waiter(void *p)
{
	(void)p;
	pthread_mutex_lock(&go_lock);
	while (!held)
		pthread_cond_wait(&go, &go_lock);
	pthread_mutex_unlock(&go_lock);
	waiter_lock();
	waiter_read();
	waiter_sleep();
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	if (pipe(fds) != 0 || pthread_create(&a, NULL, holder, NULL) != 0 ||
	    pthread_create(&b, NULL, waiter, NULL) != 0)
		return 1;
	pthread_join(a, NULL);
	spin_ms(200);
	if (write(fds[1], "x", 1) != 1)
		return 1;
	pthread_join(b, NULL);
	return 0;
}
