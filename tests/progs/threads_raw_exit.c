/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * threads_raw_exit — a thread that ends by the raw exit system call, not
 * by returning or pthread_exit(3): no TSD destructor runs, so the runtime
 * never hears of its end (lib/runfacts.c's mon_facts_thread_end), for
 * tests/integ/threads_raw_exit.sh.  The file written at exit must still
 * list it ended: it was gone when that file was written.
 *
 *   threads_raw_exit [MS]   (default 100)
 *
 * The thread names itself "rawexit", spins until its own CPU clock reads
 * MS milliseconds, and calls exit(2) through syscall(2).  main joins it
 * (the kernel clears the thread's tid word, CLONE_CHILD_CLEARTID, and
 * pthread_join returns), prints "raw TID" and "joined", and exits 0.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long spin_ms = 100;
static volatile pid_t raw_tid;

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void *raw_thread(void *arg)
{
	volatile unsigned long x = 0;
	(void)arg;
	pthread_setname_np(pthread_self(), "rawexit");
	raw_tid = (pid_t)syscall(SYS_gettid);
	while (cpu_ms() < spin_ms)
		for (int k = 0; k < 10000; k++)
			x += (unsigned long)k;
	syscall(SYS_exit, 0);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	if (argc > 1)
		spin_ms = atol(argv[1]);
	if (spin_ms < 0 || pthread_create(&t, NULL, raw_thread, NULL) != 0)
		return 1;
	pthread_join(t, NULL);
	printf("raw %d\njoined\n", (int)raw_tid);
	return 0;
}
