/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * profil_errno.c — the tick handler preserves errno.
 *
 * Two threads each set errno to a changing value, spin ~50 us, and check
 * that errno still holds it, for 0.3 s of CPU sampled at the script's
 * MONPROF_RATE (10000): thousands of ticks land between a set and its
 * check.  Then the buffer is write-protected while the loop goes on: the
 * tick that finds it unwritable fails a system call inside the handler
 * (EFAULT), which must not leak into the program's errno either, and
 * profiling turns itself off.
 */
#include <pthread.h>
#include <sys/mman.h>

#include "profil_common.h"

PROFIL_SINK_DEFINE;

/* Set errno, spin, check it, for `seconds` of CPU; returns the checks made. */
__attribute__((noinline)) static long errno_loop(double seconds, int base)
{
	long checks = 0;
	double t0 = thread_cpu();
	int v = base;
	do {
		for (int k = 0; k < 32; k++) {
			errno = v;
			for (int i = 0; i < 20000; i++)
				profil_sink += i * 0.5;
			CHECK(errno == v, "errno %d after a tick, was set to %d", errno, v);
			checks++;
			v = v % 120 + 1 == EFAULT ? EFAULT + 1 : v % 120 + 1;
		}
	} while (thread_cpu() - t0 < seconds);
	return checks;
}

static void *other(void *arg)
{
	(void)arg;
	errno_loop(0.3, 60);
	return NULL;
}

int main(void)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	unsigned short *buf = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(buf != MAP_FAILED, "mmap");
	/* 0x10 bytes of text per bin: the whole program in 4 pages of bins */
	profil_on(buf, 4 * pg, (uintptr_t)errno_loop & ~(uintptr_t)0xffff, 0x2000);
	pthread_t t;
	CHECK(pthread_create(&t, NULL, other, NULL) == 0, "pthread_create");
	long checks = errno_loop(0.3, 1);
	pthread_join(t, NULL);
	struct mon_stats st = stats_now();
	CHECK(st.counted > 0, "nothing counted");
	printf("clock %s at %u Hz: %ld errno checks, %llu ticks\n", mon_clock_name(st.clock),
	       st.rate_hz, checks, (unsigned long long)st.samples);

	/* the buffer becomes read-only while ticks keep coming */
	CHECK(mprotect(buf, 4 * pg, PROT_READ) == 0, "mprotect");
	errno_loop(0.05, 7);
	st = stats_now();
	CHECK(st.faulted == 1 && st.on == 0, "profiling did not turn itself off on the fault");
	profil_off();
	return 0;
}
