/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest_blocked.c — a worker thread that blocks every signal, as thread
 * pools do (liblzma's, for one): the worker is created while the creating
 * thread blocks everything, and blocks everything again itself.
 *
 *   guest_blocked [SECONDS [M]]
 *
 * The worker spins 3/4 of SECONDS (default 0.8) of its CPU time in
 * worker_spin, the main thread 1/4 in main_spin; each prints "NAME CPU".
 * Each thread runs its own probe (probe_thread_*, cputimer_probe.h: the
 * worker blocks every signal, so each thread reads its probe's signals
 * itself); with M > 0 each spins on in steps of 0.05 CPU-s until its probe
 * has its part of M independent samples (the worker 3/4, the main thread
 * 1/4; at most 6 CPU-s more), and the probes' counts are printed
 * (probe_print).
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

#include "cputimer_probe.h"
#include "monrun_common.h"

DEFINE_SPIN(worker_spin)
DEFINE_SPIN(main_spin)

static double total, worker_used, neff_wanted;
static struct probe_thread worker_probe;
static int pending, view_blocked;

static void *worker(void *arg)
{
	(void)arg;
	sigset_t all, cur, pend;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	probe_thread_start(&worker_probe);
	worker_used = probe_thread_spin(worker_spin, 0.75 * total, &worker_probe);
	for (int r = 0; r < 120 && probe_neff_of(&worker_probe.c) < 0.75 * neff_wanted; r++)
		worker_used += probe_thread_spin(worker_spin, 0.05, &worker_probe);
	probe_thread_stop(&worker_probe);	/* nothing of the probe's stays pending */
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
	neff_wanted = argc > 2 ? atof(argv[2]) : 0;
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
	sigset_t probe;
	sigemptyset(&probe);
	sigaddset(&probe, PROBE_SIGNAL);
	pthread_sigmask(SIG_BLOCK, &probe, NULL);
	struct probe_thread main_probe;
	probe_thread_start(&main_probe);
	double m = probe_thread_spin(main_spin, 0.25 * total, &main_probe);
	int r;
	for (r = 0; r < 120 && probe_neff_of(&main_probe.c) < 0.25 * neff_wanted; r++)
		m += probe_thread_spin(main_spin, 0.05, &main_probe);
	pthread_join(t, NULL);
	probe_thread_stop(&main_probe);
	probe_thread_merge(&main_probe);
	probe_thread_merge(&worker_probe);
	printf("worker_spin %.6f\nmain_spin %.6f\n", worker_used, m);
	probe_print(r);
	printf("worker_pending %d\nworker_view_blocked %d\n", pending, view_blocked);
	printf("pid %d\n", (int)getpid());
	return 0;
}
