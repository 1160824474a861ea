/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wall_truth — threads that time their own phases, for the wall-clock
 * sampler's accuracy tests (tests/integ/wall_truth.sh).
 *
 *   wall_truth [MS]     each phase lasts about MS milliseconds (default 1200)
 *
 * Six threads start together (a barrier) and each runs one phase in a
 * function of its own, called from a start function of its own:
 *   cpu    phase_cpu: on the CPU (a loop of arithmetic)
 *   sleep  phase_sleep: one long nanosleep, holding queue_lock
 *   mutex  phase_mutex: pthread_mutex_lock(&queue_lock), held by sleep
 *   pipe   phase_pipe: a blocking read of a pipe main writes after MS
 *   epoll  phase_epoll: epoll_wait with 2 ms timeouts until MS has passed
 *   cond   phase_cond: pthread_cond_wait until main signals after MS
 * After its phase each thread sleeps a while in tail_sleep (its own share
 * of MS: cpu 1/2, sleep 0, mutex 1/4, pipe 3/4, epoll 1/10, cond 2/5), so
 * that a phase's share of the wall time is not its thread's share.
 * Each measures its whole life (from its start function's first line to
 * its last) and its phase with CLOCK_MONOTONIC, and the CPU it used in the
 * phase with CLOCK_THREAD_CPUTIME_ID, and prints
 *   thread NAME tid TID life_us N phase_us N phase_cpu_us N
 * and main prints "holder TID" (the thread holding queue_lock).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t cond_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready_cond = PTHREAD_COND_INITIALIZER;
static int ready;
static pthread_barrier_t start_line;
static int pipe_fd[2], epoll_fd;
static long phase_ms = 1200;

struct timing {
	const char *name;
	pid_t tid;
	uint64_t life_us, phase_us, phase_cpu_us;
};
static struct timing timings[6];

static uint64_t now_us(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

#define PHASE_BEGIN(t)                                              \
	uint64_t p0 = now_us(CLOCK_MONOTONIC), c0 = now_us(CLOCK_THREAD_CPUTIME_ID)
#define PHASE_END(t)                                                \
	do {                                                        \
		(t)->phase_us = now_us(CLOCK_MONOTONIC) - p0;        \
		(t)->phase_cpu_us = now_us(CLOCK_THREAD_CPUTIME_ID) - c0; \
	} while (0)

static volatile double sink;

__attribute__((noinline)) static void phase_cpu(struct timing *t)
{
	PHASE_BEGIN(t);
	uint64_t end = p0 + (uint64_t)phase_ms * 1000u;
	double x = 0;
	while (now_us(CLOCK_MONOTONIC) < end)
		for (int i = 0; i < 20000; i++)
			x += i * 0.5;
	sink = x;
	PHASE_END(t);
}

__attribute__((noinline)) static void phase_sleep(struct timing *t)
{
	PHASE_BEGIN(t);
	struct timespec d = { phase_ms / 1000, (phase_ms % 1000) * 1000000L };
	while (nanosleep(&d, &d) != 0)
		;
	PHASE_END(t);
}

__attribute__((noinline)) static void phase_mutex(struct timing *t)
{
	PHASE_BEGIN(t);
	pthread_mutex_lock(&queue_lock);
	PHASE_END(t);
	pthread_mutex_unlock(&queue_lock);
}

__attribute__((noinline)) static void phase_pipe(struct timing *t)
{
	PHASE_BEGIN(t);
	char c;
	while (read(pipe_fd[0], &c, 1) != 1)
		;
	PHASE_END(t);
}

__attribute__((noinline)) static void phase_epoll(struct timing *t)
{
	PHASE_BEGIN(t);
	uint64_t end = p0 + (uint64_t)phase_ms * 1000u;
	struct epoll_event ev;
	while (now_us(CLOCK_MONOTONIC) < end)
		epoll_wait(epoll_fd, &ev, 1, 2);
	PHASE_END(t);
}

__attribute__((noinline)) static void phase_cond(struct timing *t)
{
	PHASE_BEGIN(t);
	pthread_mutex_lock(&cond_lock);
	while (!ready)
		pthread_cond_wait(&ready_cond, &cond_lock);
	pthread_mutex_unlock(&cond_lock);
	PHASE_END(t);
}

__attribute__((noinline)) static void tail_sleep(long permille)
{
	long ns = phase_ms * 1000000L / 1000 * permille;
	struct timespec d = { ns / 1000000000L, ns % 1000000000L };
	while (d.tv_sec + d.tv_nsec && nanosleep(&d, &d) != 0)
		;
}

#define START(NAME, K, BODY)                                        \
	__attribute__((noinline)) static void *start_##NAME(void *a) \
	{                                                           \
		(void)a;                                            \
		struct timing *t = &timings[K];                     \
		uint64_t l0 = now_us(CLOCK_MONOTONIC);              \
		t->name = #NAME;                                    \
		t->tid = gettid();                                  \
		BODY;                                               \
		t->life_us = now_us(CLOCK_MONOTONIC) - l0;          \
		return NULL;                                        \
	}

START(cpu, 0, pthread_barrier_wait(&start_line); phase_cpu(t); tail_sleep(500))
START(sleep, 1, pthread_mutex_lock(&queue_lock); pthread_barrier_wait(&start_line); phase_sleep(t);
      pthread_mutex_unlock(&queue_lock))
START(mutex, 2, pthread_barrier_wait(&start_line); phase_mutex(t); tail_sleep(250))
START(pipe, 3, pthread_barrier_wait(&start_line); phase_pipe(t); tail_sleep(750))
START(epoll, 4, pthread_barrier_wait(&start_line); phase_epoll(t); tail_sleep(100))
START(cond, 5, pthread_barrier_wait(&start_line); phase_cond(t); tail_sleep(400))

int main(int argc, char **argv)
{
	if (argc > 1)
		phase_ms = atol(argv[1]);
	if (pipe(pipe_fd) < 0)
		return 1;
	epoll_fd = epoll_create1(0);
	int efd = eventfd(0, 0);
	struct epoll_event ev = { .events = EPOLLIN };
	if (epoll_fd < 0 || efd < 0 || epoll_ctl(epoll_fd, EPOLL_CTL_ADD, efd, &ev) < 0)
		return 1;
	pthread_barrier_init(&start_line, NULL, 7);
	void *(*fn[6])(void *) = { start_cpu, start_sleep, start_mutex, start_pipe, start_epoll,
				   start_cond };
	pthread_t th[6];
	/* The holder first: it takes queue_lock before the barrier opens. */
	for (int i = 0; i < 6; i++)
		if (pthread_create(&th[i], NULL, fn[(i + 1) % 6], NULL) != 0)
			return 1;
	pthread_barrier_wait(&start_line);
	struct timespec d = { phase_ms / 1000, (phase_ms % 1000) * 1000000L };
	while (nanosleep(&d, &d) != 0)
		;
	if (write(pipe_fd[1], "x", 1) != 1)
		return 1;
	pthread_mutex_lock(&cond_lock);
	ready = 1;
	pthread_cond_signal(&ready_cond);
	pthread_mutex_unlock(&cond_lock);
	for (int i = 0; i < 6; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < 6; i++)
		printf("thread %s tid %d life_us %llu phase_us %llu phase_cpu_us %llu\n", timings[i].name,
		       (int)timings[i].tid, (unsigned long long)timings[i].life_us,
		       (unsigned long long)timings[i].phase_us,
		       (unsigned long long)timings[i].phase_cpu_us);
	printf("holder %d\n", (int)timings[1].tid);
	return 0;
}
