/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wall_woken — a thread woken often that then waits for a CPU, for
 * tests/integ/wall_woken.sh: its waits for a CPU after each wake-up are
 * runnable time, not blocked time.
 *
 *   wall_woken [MS [PERIOD_MS]]   (default 5000 ms, a wake-up every 25 ms)
 *
 * A busy thread spins for MS on the last CPU this process may use; an
 * event thread shares that CPU under SCHED_IDLE (sched(7): it runs only
 * when the busy thread lets it, so after each wake-up it waits for the CPU
 * for up to a time slice of the busy thread's), and reads a pipe byte by
 * byte in event_read (a blocking read(2)), doing a little work for each.
 * A waker thread, free to run on the other CPUs (as the wall sampler is),
 * writes a byte every PERIOD_MS.  The event thread measures its own life
 * (CLOCK_MONOTONIC), CPU time (CLOCK_THREAD_CPUTIME_ID) and run-queue wait
 * (the kernel's accounting: /proc/thread-self/schedstat's second field,
 * Documentation/scheduler/sched-stats.rst) from its first line to its last,
 * and prints
 *   event tid TID life_ns N cpu_ns N wait_ns N
 * Its truth: runnable for wait_ns, running for cpu_ns, blocked the rest.
 * Exits 3 (nothing printed) when the process may use only one CPU.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long ms = 5000, period_ms = 25;
static int fds[2], last_cpu;
static volatile int done;

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t run_wait_ns(void)
{
	char buf[128];
	unsigned long long run = 0, wait = 0;
	int fd = open("/proc/thread-self/schedstat", O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (sscanf(buf, "%llu %llu", &run, &wait) != 2)
		return 0;
	return wait;
}

static void pin_last(void)
{
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(last_cpu, &one);
	sched_setaffinity(0, sizeof one, &one);
}

static void *busy(void *arg)
{
	(void)arg;
	pin_last();
	volatile uint64_t x = 1;
	while (!done)
		x = x * 6364136223846793005ull + 1;
	return NULL;
}

static void *waker(void *arg)
{
	(void)arg;
	struct timespec ts = { period_ms / 1000, (period_ms % 1000) * 1000000L };
	while (!done) {
		nanosleep(&ts, NULL);
		if (write(fds[1], "x", 1) != 1)
			break;
	}
	close(fds[1]);
	return NULL;
}

__attribute__((noinline)) static ssize_t event_read(char *c)
{
	ssize_t n = read(fds[0], c, 1);
	__asm__ volatile("" ::: "memory");
	return n;
}

static void *event(void *arg)
{
	(void)arg;
	pin_last();
	struct sched_param sp = { 0 };
	sched_setscheduler(0, SCHED_IDLE, &sp);
	uint64_t l0 = now_ns(CLOCK_MONOTONIC), c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	uint64_t w0 = run_wait_ns();
	char c;
	volatile uint64_t x = 1;
	while (event_read(&c) == 1)
		for (int i = 0; i < 2000; i++)
			x = x * 6364136223846793005ull + 1;
	uint64_t w1 = run_wait_ns();
	uint64_t l1 = now_ns(CLOCK_MONOTONIC), c1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	printf("event tid %ld life_ns %llu cpu_ns %llu wait_ns %llu\n", (long)syscall(SYS_gettid),
	       (unsigned long long)(l1 - l0), (unsigned long long)(c1 - c0),
	       (unsigned long long)(w1 - w0));
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		ms = atol(argv[1]);
	if (argc > 2)
		period_ms = atol(argv[2]);
	cpu_set_t set;
	if (ms < 1 || period_ms < 1 || sched_getaffinity(0, sizeof set, &set) != 0 ||
	    CPU_COUNT(&set) < 2 || pipe(fds) != 0)
		return 3;
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			last_cpu = i;
	pthread_t b, w, e;
	pthread_create(&e, NULL, event, NULL);
	pthread_create(&b, NULL, busy, NULL);
	pthread_create(&w, NULL, waker, NULL);
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
	done = 1;
	pthread_join(w, NULL);
	pthread_join(e, NULL);
	pthread_join(b, NULL);
	return 0;
}
