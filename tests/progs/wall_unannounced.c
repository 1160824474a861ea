/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wall_unannounced.c — a thread libmon's pthread_create never sees, for the
 * wall sampler's thread count (lib/wall.c task_count).
 *
 *   wall_unannounced [MS]
 *
 * Starts three threads with pthread_create ("known"; each blocks reading a
 * pipe), waits 200 ms, lets one of them end and at once starts a fourth with
 * the C library's own pthread_create, taken from libc.so.6 by dlsym(3) past
 * libmon's ("unannounced"), which sleeps MS milliseconds (1500) in
 * clock_nanosleep and ends.  So at the next thread count one known thread is
 * gone and one unknown has come: the count alone is the same as before.
 * Then the others end.  Prints "unannounced TID"; exit 0.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static int pipes[3][2];
static long sleep_ms = 1500;
static pid_t u_tid;

static void *known(void *arg)
{
	int *p = arg;
	char c;
	prctl(PR_SET_NAME, "known");
	while (read(p[0], &c, 1) < 0)
		;
	return NULL;
}

static void *unannounced(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "unannounced");
	u_tid = gettid();	/* printed by main: nothing here allocates */
	struct timespec ts = { sleep_ms / 1000, sleep_ms % 1000 * 1000000L };
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) != 0)
		;
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		sleep_ms = atol(argv[1]);
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	int (*libc_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *) =
		libc ? (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))
			dlsym(libc, "pthread_create") : NULL;
	if (libc_create == NULL) {
		fprintf(stderr, "wall_unannounced: no pthread_create in libc.so.6\n");
		return 2;
	}
	pthread_t k[3], u;
	for (int i = 0; i < 3; i++)
		if (pipe(pipes[i]) != 0 || pthread_create(&k[i], NULL, known, pipes[i]) != 0)
			return 2;
	struct timespec ts = { 0, 200000000L };
	nanosleep(&ts, NULL);
	if (write(pipes[0][1], "x", 1) != 1 || pthread_join(k[0], NULL) != 0)
		return 2;
	if (libc_create(&u, NULL, unannounced, NULL) != 0)
		return 2;
	pthread_join(u, NULL);
	printf("unannounced %d\n", (int)u_tid);
	for (int i = 1; i < 3; i++)
		if (write(pipes[i][1], "x", 1) != 1 || pthread_join(k[i], NULL) != 0)
			return 2;
	return 0;
}
