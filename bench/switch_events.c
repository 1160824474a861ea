/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * switch_events.c — which task-bound perf events make a context switch
 * dear, for bench/switch_events.sh (docs/performance.md section 16).  A
 * parent and its fork child pass one byte back and forth through two pipes
 * N times (as bench/pingpong.c); before, each process or the parent alone
 * opens a software cpu-clock event (perf_event_open(2): PERF_TYPE_SOFTWARE,
 * PERF_COUNT_SW_CPU_CLOCK, user time only, a sample every 1 ms, its
 * overflow a SIGPROF to the thread, F_SETOWN_EX, as lib/clock.c arms the
 * perf clock).  The event's timer is an hrtimer that the kernel stops when
 * the task leaves a CPU and starts when it comes back, unless the task it
 * switches to has an equivalent event context: clones of one parent's, by
 * inherit (kernel/events/core.c perf_event_context_sched_out,
 * context_equiv), which is how perf record's inherited events switch.
 *
 *   switch_events MODE N
 *     none        no event
 *     each        each process opens its own, cpu -1 (libmon's way)
 *     inherited   the parent opens one with inherit before fork: the
 *                 child's is a clone of it
 *     one         the parent alone opens one, cpu -1, after fork
 *     one-inherit the parent alone, with inherit, after fork
 *     one-percpu  the parent alone, one event per CPU (perf record's
 *                 default shape)
 *
 * Prints "MODE N cpu_us_per_round_trip W switches S": the CPU of both
 * processes (getrusage(2) of self and children), over N; S their
 * voluntary and involuntary context switches.  Exit 0; 1 if an event
 * could not be opened (perf_event_paranoid: the message says so).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t ticks;

static void on_tick(int sig)
{
	(void)sig;
	ticks++;
}

/* Open and start a cpu-clock event of the calling thread on cpu (-1: any),
 * inherited by threads and children made after when inherit; its overflow
 * signals this thread. */
static void open_event(int inherit, int cpu)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000000;	/* ns of CPU: 1 kHz */
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.wakeup_events = 1;
	a.inherit = (unsigned)inherit;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		perror("perf_event_open");
		exit(1);
	}
	struct f_owner_ex o = { F_OWNER_TID, gettid() };
	if (fcntl(fd, F_SETOWN_EX, &o) < 0 || fcntl(fd, F_SETSIG, SIGPROF) < 0 ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC) < 0 ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
		perror("perf event set-up");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	static const char *const modes[] = { "none", "each", "inherited", "one", "one-inherit",
					     "one-percpu" };
	int mode = -1;
	long n = argc == 3 ? strtol(argv[2], NULL, 10) : 0;
	for (int i = 0; argc == 3 && i < 6; i++)
		if (strcmp(argv[1], modes[i]) == 0)
			mode = i;
	if (mode < 0 || n <= 0) {
		fputs("usage: switch_events none|each|inherited|one|one-inherit|one-percpu N\n", stderr);
		return 2;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_tick;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	int ab[2], ba[2];
	if (pipe(ab) < 0 || pipe(ba) < 0)
		return 1;
	if (mode == 2)
		open_event(1, -1);
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (mode == 1)
		open_event(0, -1);
	if (pid > 0 && mode == 3)
		open_event(0, -1);
	if (pid > 0 && mode == 4)
		open_event(1, -1);
	if (pid > 0 && mode == 5)
		for (long c = 0; c < sysconf(_SC_NPROCESSORS_CONF); c++)
			open_event(0, (int)c);
	char c = 'x';
	if (pid == 0) {
		for (long i = 0; i < n; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	for (long i = 0; i < n; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			return 1;
	int status;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return 1;
	struct rusage s, k;
	getrusage(RUSAGE_SELF, &s);
	getrusage(RUSAGE_CHILDREN, &k);
	double us = (double)(s.ru_utime.tv_sec + s.ru_stime.tv_sec + k.ru_utime.tv_sec +
			     k.ru_stime.tv_sec) * 1e6 +
		    (double)(s.ru_utime.tv_usec + s.ru_stime.tv_usec + k.ru_utime.tv_usec +
			     k.ru_stime.tv_usec);
	printf("%s %ld cpu_us_per_round_trip %.2f switches %ld\n", modes[mode], n, us / (double)n,
	       s.ru_nvcsw + s.ru_nivcsw + k.ru_nvcsw + k.ru_nivcsw);
	return 0;
}
