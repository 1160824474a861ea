/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sample_cost.c — fixed work under a bare profiling clock, for
 * bench/sample_cost.sh: what the kernel's timer, the signal's delivery and
 * the return from an empty handler cost per sample, without monprof.
 *
 *   sample_cost none|perf|thread|itimer ITERATIONS [RATE]
 *
 * The work: ITERATIONS passes through a chain of 12 calls ending in an
 * arithmetic loop (a stack of 14 frames under main, as a walk would
 * see).  The clock, armed in this one thread at RATE Hz of its CPU time
 * (default 1000), with an empty SA_SIGINFO handler that only counts:
 *   perf    perf_event_open(2) PERF_COUNT_SW_CPU_CLOCK, user mode, each
 *           overflow a signal (F_SETSIG, F_SETOWN_EX to the thread, O_ASYNC)
 *   thread  timer_create(2) on CLOCK_THREAD_CPUTIME_ID, SIGEV_THREAD_ID
 *   itimer  setitimer(2) ITIMER_PROF (SIGPROF)
 * the clocks monprof's runtime uses (lib/clock.c).  Prints
 *   signals N
 * (the handler's count) on standard output.  Exit 2 on a bad argument, 3
 * when the clock cannot be armed (perf events refused: perf_event_paranoid).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t signals;
static volatile uint64_t sink;

static void on_tick(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	signals++;
}

__attribute__((noinline)) static uint64_t leaf(uint64_t x)
{
	for (int i = 0; i < 2000; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

__attribute__((noinline)) static uint64_t chain(int depth, uint64_t x)
{
	uint64_t r = depth ? chain(depth - 1, x + 1) : leaf(x);
	sink += r;	/* not a tail call: each level keeps its frame */
	return r ^ (uint64_t)depth;
}

static int arm(const char *mode, long rate)
{
	int sig = strcmp(mode, "itimer") == 0 ? SIGPROF : SIGRTMIN + 3;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_tick;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL) != 0)
		return -1;
	long ns = 1000000000L / rate;
	if (strcmp(mode, "perf") == 0) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof a);
		a.size = sizeof a;
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_CPU_CLOCK;
		a.sample_period = (uint64_t)ns;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		a.wakeup_events = 1;
		int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			return -1;
		struct f_owner_ex o = { F_OWNER_TID, (pid_t)syscall(SYS_gettid) };
		if (fcntl(fd, F_SETSIG, sig) < 0 || fcntl(fd, F_SETOWN_EX, &o) < 0 ||
		    fcntl(fd, F_SETFL, O_ASYNC) < 0)
			return -1;
		ioctl(fd, PERF_EVENT_IOC_REFRESH, 0);
		return ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	}
	if (strcmp(mode, "thread") == 0) {
		struct sigevent se;
		timer_t id;
		memset(&se, 0, sizeof se);
		se.sigev_notify = SIGEV_THREAD_ID;
		se.sigev_signo = sig;
		se._sigev_un._tid = (pid_t)syscall(SYS_gettid);
		if (timer_create(CLOCK_THREAD_CPUTIME_ID, &se, &id) != 0)
			return -1;
		struct itimerspec its = { { 0, ns }, { 0, ns } };
		return timer_settime(id, 0, &its, NULL);
	}
	if (strcmp(mode, "itimer") == 0) {
		struct itimerval it = { { 0, ns / 1000 }, { 0, ns / 1000 } };
		return setitimer(ITIMER_PROF, &it, NULL);
	}
	return -1;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	long iters = atol(argv[2]), rate = argc > 3 ? atol(argv[3]) : 1000;
	if (iters < 1 || rate < 1 || rate > 100000)
		return 2;
	if (strcmp(argv[1], "none") != 0 && arm(argv[1], rate) != 0) {
		perror("sample_cost: arming the clock");
		return 3;
	}
	for (long i = 0; i < iters; i++)
		chain(12, (uint64_t)i);
	printf("signals %ld\n", (long)signals);
	return 0;
}
