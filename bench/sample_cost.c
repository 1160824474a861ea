/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sample_cost.c — fixed work under a bare profiling clock, for
 * bench/sample_cost.sh: what the kernel's timer, the signal's delivery and
 * the return from an empty handler cost per sample, without monprof.
 *
 *   sample_cost none|perf|thread|itimer|ring|ringip ITERATIONS [RATE [STACK]]
 *
 * The work: ITERATIONS passes through a chain of 12 calls ending in an
 * arithmetic loop (a stack of 14 frames under main, as a walk would
 * see).  The clock, armed in this one thread at RATE Hz of its CPU time
 * (default 1000), with an empty SA_SIGINFO handler that only counts:
 *   perf    perf_event_open(2) PERF_COUNT_SW_CPU_CLOCK, user mode, each
 *           overflow a signal (F_SETSIG, F_SETOWN_EX to the thread, O_ASYNC)
 *   thread  timer_create(2) on CLOCK_THREAD_CPUTIME_ID, SIGEV_THREAD_ID
 *   itimer  setitimer(2) ITIMER_PROF (SIGPROF)
 * the clocks monprof's runtime uses (lib/clock.c), and, for issue 25's
 * question whether a clock without signals would be cheaper, the same perf
 * event writing its samples into a ring buffer (perf_event_open(2), "MMAP
 * layout") that a second thread drains, with no signal at all:
 *   ring    each sample the IP, the thread, the user registers and a copy
 *           of the top STACK bytes of the user stack (default 8192, perf
 *           record --call-graph dwarf's default), what an unwinder after
 *           the fact needs
 *   ringip  each sample the IP and the thread only (a flat profile)
 * The drain thread sleeps in poll(2) until the buffer is half full, then
 * counts the samples and frees the space; its CPU is in the process's, as a
 * runtime thread's would be.  It does not unwind the copies.  Prints
 *   signals N
 * (the handler's count; for ring and ringip the samples read, and a line
 * "lost N" for the samples the kernel could not write) on standard output.  Exit 2 on a bad argument, 3
 * when the clock cannot be armed (perf events refused: perf_event_paranoid).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
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

/* The ring clock: the event's descriptor, its mapping (a metadata page and
 * RING_PAGES of data), what the drain thread read. */
#define RING_PAGES 64
static int ring_fd = -1;
static struct perf_event_mmap_page *ring_meta;
static unsigned char *ring_data;
static size_t ring_size;
static volatile int ring_done;
static unsigned long ring_samples, ring_lost;

/* Count the records between the tail and the head, and free them. */
static void ring_drain(void)
{
	uint64_t head = __atomic_load_n(&ring_meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = ring_meta->data_tail;
	while (tail < head) {
		struct perf_event_header h;
		size_t at = (size_t)(tail % ring_size);
		if (at + sizeof h <= ring_size) {
			memcpy(&h, ring_data + at, sizeof h);
		} else {
			size_t first = ring_size - at;
			memcpy(&h, ring_data + at, first);
			memcpy((unsigned char *)&h + first, ring_data, sizeof h - first);
		}
		if (h.size == 0)
			break;
		if (h.type == PERF_RECORD_SAMPLE) {
			ring_samples++;
		} else if (h.type == PERF_RECORD_LOST) {
			uint64_t v[2];	/* id, lost */
			for (size_t i = 0; i < sizeof v; i++)
				((unsigned char *)v)[i] = ring_data[(at + sizeof h + i) % ring_size];
			ring_lost += v[1];
		}
		tail += h.size;
	}
	__atomic_store_n(&ring_meta->data_tail, tail, __ATOMIC_RELEASE);
}

static void *ring_main(void *arg)
{
	(void)arg;
	struct pollfd p = { ring_fd, POLLIN, 0 };
	while (!ring_done) {
		poll(&p, 1, 100);
		ring_drain();
	}
	ring_drain();
	return NULL;
}

/* The perf clock's event: this thread's user CPU time, a sample every ns. */
static void cpu_clock_attr(struct perf_event_attr *a, long ns)
{
	memset(a, 0, sizeof *a);
	a->size = sizeof *a;
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->sample_period = (uint64_t)ns;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

static int arm_ring(long ns, int stack, unsigned stack_bytes)
{
	struct perf_event_attr a;
	cpu_clock_attr(&a, ns);
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	if (stack) {
		a.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		/* AX..R15 with IP, SP, FLAGS, CS, SS, without DS..GS (refused
		 * for a 64-bit task): perf's own mask for x86-64, what a DWARF
		 * unwinder reads; arch/x86/include/uapi/asm/perf_regs.h */
		a.sample_regs_user = ((1ull << 24) - 1) & ~(0xfull << 12);
		a.sample_stack_user = stack_bytes;
	}
	a.watermark = 1;
	ring_size = (size_t)RING_PAGES * (size_t)sysconf(_SC_PAGESIZE);
	a.wakeup_watermark = (uint32_t)(ring_size / 2);
	ring_fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (ring_fd < 0)
		return -1;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *m = mmap(NULL, page + ring_size, PROT_READ | PROT_WRITE, MAP_SHARED, ring_fd, 0);
	if (m == MAP_FAILED)
		return -1;
	ring_meta = m;
	ring_data = (unsigned char *)m + page;
	pthread_t t;
	if (pthread_create(&t, NULL, ring_main, NULL) != 0)
		return -1;
	pthread_detach(t);
	return ioctl(ring_fd, PERF_EVENT_IOC_ENABLE, 0);
}

static int arm(const char *mode, long rate, unsigned stack_bytes)
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
	if (strcmp(mode, "ring") == 0 || strcmp(mode, "ringip") == 0)
		return arm_ring(ns, strcmp(mode, "ring") == 0, stack_bytes);
	if (strcmp(mode, "perf") == 0) {
		struct perf_event_attr a;
		cpu_clock_attr(&a, ns);
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
	unsigned stack_bytes = argc > 4 ? (unsigned)atol(argv[4]) : 8192;
	if (stack_bytes < 8 || stack_bytes > 65528 || stack_bytes % 8 != 0)
		return 2;
	if (strcmp(argv[1], "none") != 0 && arm(argv[1], rate, stack_bytes) != 0) {
		perror("sample_cost: arming the clock");
		return 3;
	}
	for (long i = 0; i < iters; i++)
		chain(12, (uint64_t)i);
	if (ring_fd >= 0) {
		ioctl(ring_fd, PERF_EVENT_IOC_DISABLE, 0);
		ring_done = 1;
		/* the drain thread's last pass: at most its poll's 100 ms */
		struct timespec ts = { 0, 150000000 };
		nanosleep(&ts, NULL);
		printf("signals %lu\nlost %lu\n", ring_samples, ring_lost);
		return 0;
	}
	printf("signals %ld\n", (long)signals);
	return 0;
}
