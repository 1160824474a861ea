/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest_handlers.c — a program that spends its CPU in its own signal
 * handlers.
 *
 *   guest_handlers usr [N [M]]    installs SIGUSR1 and SIGUSR2 handlers that spin
 *                             (usr1_spin 0.02, usr2_spin 0.02 CPU-s a
 *                             signal; SIGUSR2's with every signal in its
 *                             sa_mask, the sigfillset idiom: the
 *                             profiling clock's signal too), then N times
 *                             (default 10) spins 0.01 CPU-s in main_spin
 *                             and sends itself SIGUSR1 and SIGUSR2
 *                             (pthread_kill).  sigaction must report
 *                             SIGUSR2's mask as set, before and after.
 *   guest_handlers alarm [N [M]]  a SIGALRM handler that spins (alrm_spin 0.03
 *                             CPU-s) while main waits in pause(); N alarms
 *                             (ITIMER_REAL, 1 ms one-shot each), with 0.01
 *                             CPU-s of main_spin between them.
 * With M > 0, the rounds go on past N until the probe (cputimer_probe.h:
 * the CPU-time timer that counts the independent samples a CPU-time clock
 * gives here) has M (at most 40 N rounds).
 * Prints "NAME CPU" for each spin function (the CPU it used); exits 0
 * when every signal was handled, 1 otherwise.
 */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cputimer_probe.h"
#include "full_mask.h"
#include "monrun_common.h"

DEFINE_SPIN(usr1_spin)
DEFINE_SPIN(usr2_spin)
DEFINE_SPIN(alrm_spin)
DEFINE_SPIN(main_spin)

static volatile double cpu_usr1, cpu_usr2, cpu_alrm;
static volatile sig_atomic_t handled;

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

static void set(int sig, void (*fn)(int), int full)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fn;
	if (full)
		sigfillset(&sa.sa_mask);
	else
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
		set(SIGUSR1, on_usr1, 0);
		set(SIGUSR2, on_usr2, 1);
		full_mask_seen(SIGUSR2, "installed");
		for (i = 0; i < n || (probe_neff() < m && i < 40 * n); i++) {
			cpu_main += main_spin(0.01);
			pthread_kill(pthread_self(), SIGUSR1);
			pthread_kill(pthread_self(), SIGUSR2);
		}
		want = 2 * i;
		full_mask_seen(SIGUSR2, "after the run");
	} else {
		set(SIGALRM, on_alrm, 0);
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
	probe_print(i);
	if (handled != want) {
		fprintf(stderr, "guest_handlers: %d of %d signals handled\n", (int)handled, want);
		return 1;
	}
	return 0;
}
