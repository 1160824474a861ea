/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest_blocked.c — a worker thread that blocks every signal, as thread
 * pools do (liblzma's, for one): the worker is created while the creating
 * thread blocks everything, and blocks everything again itself.
 *
 *   guest_blocked [SECONDS]
 *
 * The worker spins 3/4 of SECONDS (default 0.8) of its CPU time in
 * worker_spin, the main thread 1/4 in main_spin; each prints "NAME CPU".
 * Then the worker says what it sees of its own signals: "worker_pending N",
 * the number of real-time signals pending for it (blocked, so never
 * delivered: a profiler's ticks piling up would show here), and
 * "worker_view_blocked 1" if pthread_sigmask says SIGRTMAX-6 is blocked,
 * as the worker asked (the program's view must be kept), and "pid N".
 */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "monrun_common.h"

DEFINE_SPIN(worker_spin)
DEFINE_SPIN(main_spin)

static double total, worker_used;
static int pending, view_blocked;

static void *worker(void *arg)
{
	(void)arg;
	sigset_t all, cur, pend;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	worker_used = worker_spin(0.75 * total);
	sigpending(&pend);
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
		pending += sigismember(&pend, s) == 1;
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	view_blocked = sigismember(&cur, SIGRTMAX - 6) == 1;
	return NULL;
}

int main(int argc, char **argv)
{
	total = mr_seconds(argc > 1 ? argv[1] : NULL, 0.8);
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_t t;
	int e = pthread_create(&t, NULL, worker, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0) {
		fprintf(stderr, "pthread_create: %s\n", strerror(e));
		return 1;
	}
	double m = main_spin(0.25 * total);
	pthread_join(t, NULL);
	printf("worker_spin %.6f\nmain_spin %.6f\n", worker_used, m);
	printf("worker_pending %d\nworker_view_blocked %d\n", pending, view_blocked);
	printf("pid %d\n", (int)getpid());
	return 0;
}
