/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * thread_exit.c — threads that do nothing, for bench/syscall_count.sh:
 * thread_exit N starts N threads one after the other, each of which
 * returns at once and is joined, so that every system call a thread makes
 * is the runtime's or the C library's.  Exit 0, or 1 when
 * pthread_create fails.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void *run(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	for (int i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, run, NULL) != 0) {
			fputs("thread_exit: pthread_create failed\n", stderr);
			return 1;
		}
		pthread_join(t, NULL);
	}
	return 0;
}
