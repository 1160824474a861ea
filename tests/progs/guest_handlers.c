/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest_handlers.c — a program that spends its CPU in its own signal
 * handlers.
 *
 *   guest_handlers usr [N [M]]    installs SIGUSR1 and SIGUSR2 handlers that spin
 *                             (usr1_spin 0.02, usr2_spin 0.02 CPU-s a
 *                             signal), then N times (default 10) spins
 *                             0.01 CPU-s in main_spin and sends itself
 *                             SIGUSR1 and SIGUSR2 (pthread_kill).
 *   guest_handlers alarm [N [M]]  a SIGALRM handler that spins (alrm_spin 0.03
 *                             CPU-s) while main waits in pause(); N alarms
 *                             (ITIMER_REAL, 1 ms one-shot each), with 0.01
 *                             CPU-s of main_spin between them.
 * With M > 0, the rounds go on past N until the probe below has M
 * independent samples (at most 40 N rounds).
 *
 * The probe: a CPU-time timer of the program's own (CLOCK_THREAD_CPUTIME_ID,
 * 1 ms, SIGRTMAX-1 to the process, whose only thread this is).  The kernel checks CPU-time timers only
 * at its tick, and only in the thread that is on the CPU then
 * (timer_create(2), time(7): "the accuracy ... is limited by the
 * resolution of the software clock"); on a loaded machine (a virtual one
 * whose processor the host takes away, or one whose scheduler switches
 * between ticks) a timer's signal comes 10 to 140 ms of CPU late, its
 * overrun counting the periods missed (measured: 14 to 70 signals in 0.5
 * CPU-s, 125 expected at 250 Hz).  A profiling clock that is such a timer
 * (monrun's thread and itimer clocks) is checked at the same ticks, so its
 * samples are as few and as unequal: a sample of weight w (1 + overrun)
 * charges w periods to one PC.  The probe counts what the kernel gave:
 * the number of independent samples a weighted share is worth is
 * (sum w)^2 / sum w^2 (Kish's effective sample size), printed as
 * "probe_neff N" with "probe_signals S" and "probe_periods W".  The probe
 * must not move the clock's samples: both signals come at the same return
 * to user mode, and the kernel sets up a frame for each pending signal,
 * the first dequeued at the bottom; the handler on top runs first, and the
 * PC it is given is the entry of the handler below.  The kernel dequeues a
 * thread's own pending signals before the process's, each set lowest
 * number first (dequeue_signal, kernel/signal.c), so the probe is a
 * process-directed signal above the clock's: the thread clock's
 * SIGRTMAX-6 (to the thread) and the itimer clock's SIGPROF (to the
 * process) are dequeued first and sample the program's PC.  (Measured: a
 * probe on SIGRTMIN+1 to the thread got 100 % of both clocks' samples.)
 * Prints "NAME CPU" for each spin function (the CPU it used); exits 0
 * when every signal was handled, 1 otherwise.
 */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "monrun_common.h"

DEFINE_SPIN(usr1_spin)
DEFINE_SPIN(usr2_spin)
DEFINE_SPIN(alrm_spin)
DEFINE_SPIN(main_spin)

static volatile double cpu_usr1, cpu_usr2, cpu_alrm;
static volatile sig_atomic_t handled;
static volatile unsigned long probe_signals;
static volatile double probe_w, probe_w2;	/* sum of weights, of their squares */

static void on_probe(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	double w = 1.0 + (si->si_code == SI_TIMER && si->si_overrun > 0 ? si->si_overrun : 0);
	probe_signals++;
	probe_w += w;
	probe_w2 += w * w;
}

static double probe_neff(void)
{
	return probe_w2 > 0 ? probe_w * probe_w / probe_w2 : 0;
}

/* Start the probe (top of this file): 1 ms periods of this thread's CPU. */
static void probe_start(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_probe;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	struct sigevent se;
	memset(&se, 0, sizeof se);
	se.sigev_notify = SIGEV_SIGNAL;
	se.sigev_signo = SIGRTMAX - 1;
	timer_t t;
	struct itimerspec it = { { 0, 1000000 }, { 0, 1000000 } };
	if (sigaction(SIGRTMAX - 1, &sa, NULL) != 0 ||
	    timer_create(CLOCK_THREAD_CPUTIME_ID, &se, &t) != 0 || timer_settime(t, 0, &it, NULL) != 0) {
		perror("probe");
		exit(1);
	}
}

static void on_usr1(int sig)
{
	(void)sig;
	cpu_usr1 += usr1_spin(0.02);
	handled++;
}

static void on_usr2(int sig)
{
	(void)sig;
	cpu_usr2 += usr2_spin(0.02);
	handled++;
}

static void on_alrm(int sig)
{
	(void)sig;
	cpu_alrm += alrm_spin(0.03);
	handled++;
}

static void set(int sig, void (*fn)(int))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (sigaction(sig, &sa, NULL) != 0) {
		perror("sigaction");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	int n = argc > 2 ? atoi(argv[2]) : 10, want;
	double m = argc > 3 ? atof(argv[3]) : 0;
	double cpu_main = 0;
	int i;
	probe_start();
	if (strcmp(argv[1], "usr") == 0) {
		set(SIGUSR1, on_usr1);
		set(SIGUSR2, on_usr2);
		for (i = 0; i < n || (probe_neff() < m && i < 40 * n); i++) {
			cpu_main += main_spin(0.01);
			pthread_kill(pthread_self(), SIGUSR1);
			pthread_kill(pthread_self(), SIGUSR2);
		}
		want = 2 * i;
	} else {
		set(SIGALRM, on_alrm);
		for (i = 0; i < n || (probe_neff() < m && i < 40 * n); i++) {
			cpu_main += main_spin(0.01);
			struct itimerval it = { { 0, 0 }, { 0, 1000 } };
			sigset_t block, old;
			sigemptyset(&block);
			sigaddset(&block, SIGALRM);
			/* The alarm is taken in pause(), never before it. */
			sigprocmask(SIG_BLOCK, &block, &old);
			setitimer(ITIMER_REAL, &it, NULL);
			sigsuspend(&old);
			sigprocmask(SIG_SETMASK, &old, NULL);
		}
		want = i;
	}
	printf("usr1_spin %.6f\nusr2_spin %.6f\nalrm_spin %.6f\nmain_spin %.6f\n", cpu_usr1,
	       cpu_usr2, cpu_alrm, cpu_main);
	printf("probe_signals %lu\nprobe_periods %.0f\nprobe_neff %.1f\nrounds %d\n", probe_signals,
	       probe_w, probe_neff(), i);
	if (handled != want) {
		fprintf(stderr, "guest_handlers: %d of %d signals handled\n", (int)handled, want);
		return 1;
	}
	return 0;
}
