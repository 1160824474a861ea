/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench/interpose_cost.c — what one call of each function libmon interposes
 * costs the program, and the per-thread and per-process starts (issue 25,
 * item 1: "the runtime's work outside ticks").  Run unprofiled and under
 * monrun by bench/interpose_cost.sh, which prints the two side by side.
 *
 *   interpose_cost            every operation: "NAME NS" lines, the median
 *                             of 7 batches, nanoseconds per call (CLOCK_MONOTONIC)
 *   interpose_cost NAME N     NAME only, N times, no timing (for perf stat's
 *                             count of system calls per call)
 *
 * The operations are the calls servers make often (PostgreSQL's backends
 * block and unblock signals around every latch wait; nginx dup2s and
 * closes descriptors around every worker start) and the starts the runtime
 * pays for: pthread_create+join (a thread's clock) and fork+_exit+waitpid
 * (a process's clocks, a fork child's output file).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void on_usr1(int sig)
{
	(void)sig;
}

static void *nothing(void *arg)
{
	return arg;
}

static sigset_t usr1;
static int spare_fd;

static void op_sigprocmask(void)
{
	sigset_t old;
	sigprocmask(SIG_BLOCK, &usr1, &old);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static void op_pthread_sigmask(void)
{
	sigset_t old;
	pthread_sigmask(SIG_BLOCK, &usr1, &old);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void op_sigaction_get(void)
{
	struct sigaction sa;
	sigaction(SIGUSR1, NULL, &sa);
}

static void op_sigaction_set(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
}

static void op_sigpending(void)
{
	sigset_t s;
	sigpending(&s);
}

static void op_dup2_close(void)
{
	dup2(spare_fd, 100);
	close(100);
}

static void op_close_ebadf(void)
{
	close(1000);
}

static void op_syscall_getpid(void)
{
	syscall(SYS_getpid);
}

static void op_dlopen_loaded(void)
{
	void *h = dlopen("libm.so.6", RTLD_NOW);
	if (h != NULL)
		dlclose(h);
}

static void op_thread_start(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, nothing, NULL) == 0)
		pthread_join(t, NULL);
}

static void op_fork(void)
{
	pid_t p = fork();
	if (p == 0)
		_exit(0);
	if (p > 0)
		waitpid(p, NULL, 0);
}

static const struct op {
	const char *name;
	void (*fn)(void);
	long n;		/* calls in a batch */
} ops[] = {
	{ "sigprocmask_block_restore", op_sigprocmask, 20000 },
	{ "pthread_sigmask_block_restore", op_pthread_sigmask, 20000 },
	{ "sigaction_get", op_sigaction_get, 20000 },
	{ "sigaction_set", op_sigaction_set, 20000 },
	{ "sigpending", op_sigpending, 20000 },
	{ "dup2_close", op_dup2_close, 20000 },
	{ "close_ebadf", op_close_ebadf, 20000 },
	{ "syscall_getpid", op_syscall_getpid, 20000 },
	{ "dlopen_dlclose_loaded", op_dlopen_loaded, 2000 },
	{ "pthread_create_join", op_thread_start, 300 },
	{ "fork_exit_wait", op_fork, 40 },
};

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	signal(SIGUSR1, on_usr1);
	spare_fd = open("/dev/null", O_RDONLY);
	size_t nops = sizeof ops / sizeof ops[0];
	if (argc == 3) {
		long n = atol(argv[2]);
		for (size_t i = 0; i < nops; i++)
			if (strcmp(ops[i].name, argv[1]) == 0) {
				for (long k = 0; k < n; k++)
					ops[i].fn();
				return 0;
			}
		fprintf(stderr, "interpose_cost: no operation %s\n", argv[1]);
		return 2;
	}
	for (size_t i = 0; i < nops; i++) {
		double t[7];
		for (int b = 0; b < 7; b++) {
			double t0 = now_ns();
			for (long k = 0; k < ops[i].n; k++)
				ops[i].fn();
			t[b] = (now_ns() - t0) / (double)ops[i].n;
		}
		qsort(t, 7, sizeof t[0], cmp);
		printf("%s %.1f\n", ops[i].name, t[3]);
	}
	return 0;
}
