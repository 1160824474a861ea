/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wall_eintr — blocking system calls that count every EINTR and every
 * timed wait that ended before its time, for tests/integ/wall_guest.sh.
 *
 *   wall_eintr [N]     N calls of each kind (default 1300), each kind in a
 *                      thread of its own, all at once
 *
 * Kinds: nanosleep 200 us, epoll_wait 1 ms (an eventfd never signalled),
 * poll 1 ms (no descriptors), select 300 us, futex FUTEX_WAIT 200 us (a word
 * nobody changes), read of a pipe and of a socketpair (a writer thread
 * sends a byte every 200 us), sigtimedwait 500 us (SIGUSR2, blocked, never
 * sent), io_uring_enter 1 ms (waiting for a completion of a ring with
 * nothing submitted, its timeout given by IORING_ENTER_EXT_ARG; ETIME at
 * its end).  SIGWINCH and SIGURG are caught without SA_RESTART, so that a
 * signal sent to any of these threads would show as EINTR.  Prints one line
 * per kind and a total:
 *   kind NAME calls N eintr N early N other N
 *   total calls N eintr N early N other N
 * ("other": an unexpected result).  A kind the kernel refuses (io_uring
 * disabled, /proc/sys/kernel/io_uring_disabled, or older than 5.11) is
 * not run and says so instead:
 *   kind NAME refused REASON
 * Exit 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <linux/io_uring.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long n_calls = 1300;
static int pipe_fd[2], sock_fd[2], epoll_fd;
static volatile int readers_done;

struct tally {
	const char *name;
	long calls, eintr, early, other;
};
#define KINDS 9
static struct tally tallies[KINDS];
static int ring_fd = -1;
static const char *ring_refused;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void caught(int sig)
{
	(void)sig;
}

/* One result: rc, errno, elapsed vs the timeout asked (0: untimed). */
static void note(struct tally *t, long rc, int e, int want_timeout_errno, uint64_t took,
		 uint64_t timeout_ns)
{
	t->calls++;
	if (rc < 0 && e == EINTR)
		t->eintr++;
	else if (rc < 0 && e != want_timeout_errno)
		t->other++;
	else if (timeout_ns && took < timeout_ns)
		t->early++;
}

static void *k_nanosleep(void *a)
{
	struct tally *t = a;
	for (long i = 0; i < n_calls; i++) {
		struct timespec d = { 0, 200000 };
		uint64_t t0 = now_ns();
		int rc = nanosleep(&d, NULL);
		note(t, rc, errno, 0, now_ns() - t0, 200000);
	}
	return NULL;
}

static void *k_epoll(void *a)
{
	struct tally *t = a;
	struct epoll_event ev;
	for (long i = 0; i < n_calls; i++) {
		uint64_t t0 = now_ns();
		int rc = epoll_wait(epoll_fd, &ev, 1, 1);
		if (rc > 0)
			t->other++;
		note(t, rc, errno, 0, now_ns() - t0, 1000000);
	}
	return NULL;
}

static void *k_poll(void *a)
{
	struct tally *t = a;
	for (long i = 0; i < n_calls; i++) {
		uint64_t t0 = now_ns();
		int rc = poll(NULL, 0, 1);
		note(t, rc, errno, 0, now_ns() - t0, 1000000);
	}
	return NULL;
}

static void *k_select(void *a)
{
	struct tally *t = a;
	for (long i = 0; i < n_calls; i++) {
		struct timeval tv = { 0, 300 };
		uint64_t t0 = now_ns();
		int rc = select(0, NULL, NULL, NULL, &tv);
		note(t, rc, errno, 0, now_ns() - t0, 300000);
	}
	return NULL;
}

static void *k_futex(void *a)
{
	struct tally *t = a;
	static int word;
	for (long i = 0; i < n_calls; i++) {
		struct timespec d = { 0, 200000 };
		uint64_t t0 = now_ns();
		long rc = syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, &d, NULL, 0);
		int e = errno;
		if (rc == 0)
			t->other++;	/* nobody wakes it */
		note(t, rc, e, ETIMEDOUT, now_ns() - t0, 200000);
	}
	return NULL;
}

static void *k_read(void *a)
{
	struct tally *t = a;
	int fd = t == &tallies[5] ? pipe_fd[0] : sock_fd[0];
	for (long i = 0; i < n_calls; i++) {
		char c;
		ssize_t rc = read(fd, &c, 1);
		if (rc == 0)
			t->other++;
		note(t, rc, errno, 0, 0, 0);
	}
	__atomic_add_fetch(&readers_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *k_sigtimedwait(void *a)
{
	struct tally *t = a;
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
	for (long i = 0; i < n_calls; i++) {
		struct timespec d = { 0, 500000 };
		uint64_t t0 = now_ns();
		int rc = sigtimedwait(&s, NULL, &d);
		note(t, rc, errno, EAGAIN, now_ns() - t0, 500000);
	}
	return NULL;
}

/* Waits for a completion on a ring where nothing was submitted: the wait
 * ends at its timeout, -ETIME. */
static void *k_io_uring(void *a)
{
	(void)a;
#ifdef IORING_FEAT_EXT_ARG
	struct tally *t = a;
	for (long i = 0; i < n_calls; i++) {
		struct __kernel_timespec d = { 0, 1000000 };
		struct io_uring_getevents_arg arg;
		memset(&arg, 0, sizeof arg);
		arg.ts = (uint64_t)(uintptr_t)&d;
		uint64_t t0 = now_ns();
		long rc = syscall(SYS_io_uring_enter, ring_fd, 0, 1,
				  IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG, &arg, sizeof arg);
		int e = errno;
		if (rc > 0)
			t->other++;	/* nothing was submitted */
		note(t, rc, e, ETIME, now_ns() - t0, 1000000);
	}
#endif
	return NULL;
}

/* A ring of 4 entries whose waits take a timeout (IORING_FEAT_EXT_ARG), or
 * ring_refused says why not. */
static void ring_open(void)
{
#ifndef IORING_FEAT_EXT_ARG
	ring_refused = "built with <linux/io_uring.h> before Linux 5.11 (no IORING_FEAT_EXT_ARG)";
#else
	struct io_uring_params p;
	memset(&p, 0, sizeof p);
	ring_fd = (int)syscall(SYS_io_uring_setup, 4, &p);
	if (ring_fd < 0)
		ring_refused = strerror(errno);
	else if (!(p.features & IORING_FEAT_EXT_ARG))
		ring_refused = "no IORING_FEAT_EXT_ARG (Linux before 5.11)";
#endif
}

/* Sends a byte to the pipe and the socket every 200 us until both readers
 * have all they want. */
static void *writer(void *a)
{
	(void)a;
	while (__atomic_load_n(&readers_done, __ATOMIC_ACQUIRE) < 2) {
		struct timespec d = { 0, 200000 };
		nanosleep(&d, NULL);
		if (write(pipe_fd[1], "x", 1) < 0 || write(sock_fd[1], "y", 1) < 0)
			break;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		n_calls = atol(argv[1]);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = caught;	/* no SA_RESTART */
	sigaction(SIGWINCH, &sa, NULL);
	sigaction(SIGURG, &sa, NULL);
	if (pipe(pipe_fd) < 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sock_fd) < 0)
		return 1;
	epoll_fd = epoll_create1(0);
	int efd = eventfd(0, 0);
	struct epoll_event ev = { .events = EPOLLIN };
	if (epoll_fd < 0 || efd < 0 || epoll_ctl(epoll_fd, EPOLL_CTL_ADD, efd, &ev) < 0)
		return 1;
	ring_open();
	static const char *names[KINDS] = { "nanosleep", "epoll_wait", "poll", "select", "futex",
					    "read_pipe", "read_socket", "sigtimedwait", "io_uring_enter" };
	void *(*fn[KINDS])(void *) = { k_nanosleep, k_epoll, k_poll, k_select, k_futex, k_read,
				       k_read, k_sigtimedwait, k_io_uring };
	pthread_t th[KINDS + 1];
	int started[KINDS + 1] = { 0 };
	for (int i = 0; i < KINDS; i++) {
		tallies[i].name = names[i];
		if (fn[i] == k_io_uring && ring_refused)
			continue;
		if (pthread_create(&th[i], NULL, fn[i], &tallies[i]) != 0)
			return 1;
		started[i] = 1;
	}
	if (pthread_create(&th[KINDS], NULL, writer, NULL) != 0)
		return 1;
	started[KINDS] = 1;
	for (int i = 0; i <= KINDS; i++)
		if (started[i])
			pthread_join(th[i], NULL);
	struct tally sum = { "total", 0, 0, 0, 0 };
	for (int i = 0; i < KINDS; i++) {
		const struct tally *t = &tallies[i];
		if (!started[i]) {
			printf("kind %s refused %s\n", t->name, ring_refused);
			continue;
		}
		printf("kind %s calls %ld eintr %ld early %ld other %ld\n", t->name, t->calls, t->eintr,
		       t->early, t->other);
		sum.calls += t->calls;
		sum.eintr += t->eintr;
		sum.early += t->early;
		sum.other += t->other;
	}
	printf("total calls %ld eintr %ld early %ld other %ld\n", sum.calls, sum.eintr, sum.early,
	       sum.other);
	return 0;
}
