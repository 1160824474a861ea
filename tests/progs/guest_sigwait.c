/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest_sigwait.c — a program that takes every signal synchronously: all
 * signals blocked in every thread, read with one of
 *
 *   guest_sigwait signalfd | sigwaitinfo | sigtimedwait | sigwait [M]
 *
 * A worker thread spins 0.3 CPU-s in worker_spin, sending the process
 * SIGRTMIN+1 every 0.01 CPU-s (30 of them, kill(2): process-directed,
 * real-time so that none merges with one pending), then
 * SIGRTMIN+2.  The main thread reads signals until SIGRTMIN+2, spinning 0.005
 * CPU-s in main_spin after each (with everything blocked), then spins 0.05
 * CPU-s more (with M > 0, in steps of 0.05 CPU-s until its probe has
 * M / 2 independent samples, at most 120 steps, 6 CPU-s: a loaded
 * machine's timers give as few as 5 a CPU-s; the worker, after
 * SIGRTMIN+2, spins on the same way until its own has M / 2), joins the
 * worker, spins on until it has used as much CPU as the worker (a share
 * of a half or more, where a share of 0 is far from the truth) and asks
 * sigpending(2): nothing may be pending.  Each thread runs its own probe
 * (probe_thread_start, cputimer_probe.h), which it reads after every 1 ms
 * of spinning; the main thread's reads take every other signal.  Prints
 * "worker_spin CPU", "main_spin CPU", the probes' counts (probe_print) and
 * exits 0 when it read exactly the
 * 30 SIGRTMIN+1 and the SIGRTMIN+2 it sent; any other signal is reported as
 * "foreign signal N" (exit 1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "cputimer_probe.h"
#include "monrun_common.h"

DEFINE_SPIN(worker_spin)
DEFINE_SPIN(main_spin)

static double worker_cpu, neff_wanted;
static struct probe_thread worker_probe;

static void *worker(void *a)
{
	(void)a;
	probe_thread_start(&worker_probe);
	for (int i = 0; i < 30; i++) {
		worker_cpu += probe_thread_spin(worker_spin, 0.01, &worker_probe);
		/* A real-time signal: queued, never merged with one pending. */
		kill(getpid(), SIGRTMIN + 1);
	}
	kill(getpid(), SIGRTMIN + 2);	/* after every SIGRTMIN+1 */
	for (int r = 0; r < 120 && probe_neff_of(&worker_probe.c) < 0.5 * neff_wanted; r++)
		worker_cpu += probe_thread_spin(worker_spin, 0.05, &worker_probe);
	probe_thread_stop(&worker_probe);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	const char *how = argv[1];
	neff_wanted = argc > 2 ? atof(argv[2]) : 0;
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	/* Every signal is read; the probe's by probe_thread_read. */
	sigdelset(&all, PROBE_SIGNAL);
	struct probe_thread main_probe;
	probe_thread_start(&main_probe);
	int sfd = -1;
	if (strcmp(how, "signalfd") == 0 && (sfd = signalfd(-1, &all, SFD_CLOEXEC)) < 0) {
		perror("signalfd");
		return 1;
	}
	pthread_t t;
	if ((errno = pthread_create(&t, NULL, worker, NULL)) != 0) {
		perror("pthread_create");
		return 1;
	}
	int usr1 = 0, foreign = 0;
	double main_cpu = 0;
	for (;;) {
		int sig = -1;
		if (sfd >= 0) {
			struct signalfd_siginfo ssi;
			if (read(sfd, &ssi, sizeof ssi) == (ssize_t)sizeof ssi)
				sig = (int)ssi.ssi_signo;
		} else if (strcmp(how, "sigwaitinfo") == 0) {
			sig = sigwaitinfo(&all, NULL);
		} else if (strcmp(how, "sigtimedwait") == 0) {
			struct timespec ts = { 5, 0 };
			sig = sigtimedwait(&all, NULL, &ts);
		} else if (sigwait(&all, &sig) != 0) {
			sig = -1;
		}
		if (sig < 0) {
			if (errno == EINTR)
				continue;
			perror(how);
			return 1;
		}
		if (sig == SIGRTMIN + 2)
			break;
		if (sig == SIGRTMIN + 1)
			usr1++;
		else {
			printf("foreign signal %d\n", sig);
			foreign++;
		}
		main_cpu += probe_thread_spin(main_spin, 0.005, &main_probe);
	}
	int r;
	for (r = 0; r < 1 || (r < 120 && probe_neff_of(&main_probe.c) < 0.5 * neff_wanted); r++)
		main_cpu += probe_thread_spin(main_spin, 0.05, &main_probe);
	pthread_join(t, NULL);
	for (; r < 240 && neff_wanted > 0 && main_cpu < worker_cpu; r++)
		main_cpu += probe_thread_spin(main_spin, 0.05, &main_probe);
	probe_thread_stop(&main_probe);
	probe_thread_merge(&main_probe);
	probe_thread_merge(&worker_probe);
	sigset_t pend;
	sigpending(&pend);
	for (int s = 1; s < NSIG; s++)
		if (sigismember(&pend, s) == 1) {
			printf("pending signal %d\n", s);
			foreign++;
		}
	printf("worker_spin %.6f\nmain_spin %.6f\n", worker_cpu, main_cpu);
	probe_print(r);
	if (usr1 != 30 || foreign) {
		fprintf(stderr, "guest_sigwait: %d of 30 SIGRTMIN+1, %d foreign\n", usr1, foreign);
		return 1;
	}
	return 0;
}
