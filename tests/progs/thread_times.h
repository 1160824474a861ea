/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * thread_times.h — a thread's own measure of its time, for the test
 * programs that check the wall sampler's shares against it (wall_duty.c,
 * wall_turns.c): clocks in nanoseconds, the run-queue wait, and times
 * drawn about a mean.
 */
#ifndef THREAD_TIMES_H
#define THREAD_TIMES_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* Clock c now, ns. */
static inline uint64_t ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The calling thread's run-queue wait so far, ns: schedstat's second field
 * (/proc/thread-self/schedstat, proc(5)), kept open per thread; 0 when not
 * known (no CONFIG_SCHED_INFO). */
static inline uint64_t run_wait(void)
{
	static __thread int fd = -1;
	char buf[128];
	if (fd < 0)
		fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	unsigned long long cpu = 0, wait = 0;
	if (sscanf(buf, "%llu %llu", &cpu, &wait) != 2)
		return 0;
	return wait;
}

/* About mean_us microseconds: uniform in [mean / 2, 3 mean / 2), so that
 * a program's turns do not keep step with a periodic sampler. */
static inline long about(unsigned *seed, long mean_us)
{
	return mean_us / 2 + (long)((double)rand_r(seed) / ((double)RAND_MAX + 1) * (double)mean_us);
}

#endif /* THREAD_TIMES_H */
