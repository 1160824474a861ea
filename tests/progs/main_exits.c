/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * main_exits.c — main ends with pthread_exit(3) while another thread works:
 * the process ends when that thread ends (the C library's last thread calls
 * exit(0)), its atexit handlers run (tests/integ/monrun_main_exits.sh).
 *
 *   main_exits [MS]
 *
 * main registers an atexit handler (1 MiB of stack; prints "atexit ran"), starts a thread
 * that spins MS milliseconds (default 300) in worker_spin and prints
 * "worker done", then calls pthread_exit.  Exit status 0.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long ms = 300;
static volatile unsigned long sink;

static void said(void)
{
	/* 1 MiB of stack, as a program's handler may use: a thread of the
	 * C library's default size holds it, the runtime's 256 KiB ones not. */
	volatile char big[1 << 20];
	for (size_t i = 0; i < sizeof big; i += 4096)
		big[i] = (char)i;
	printf("atexit ran%s\n", big[4096] == 0 ? "" : "");
}

__attribute__((noinline)) static void worker_spin(void)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 20000; i++)
			sink += (unsigned long)i * 2654435761u;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

static void *worker(void *arg)
{
	(void)arg;
	worker_spin();
	printf("worker done\n");
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		ms = atol(argv[1]);
	atexit(said);
	pthread_t t;
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 2;
	pthread_exit(NULL);
}
