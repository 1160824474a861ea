/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * profil_eintr.c — profiling cannot be seen through blocking system calls:
 * none fails with EINTR while a busy thread is sampled at a high rate
 * (the script sets MONPROF_RATE=10000 and runs every clock).
 *
 * The sampled thread alternates 2 ms of CPU with a blocking call, 150
 * times: nanosleep(1 ms); read() on a pipe and recv() on a socket that a
 * helper thread feeds 1 ms after being asked; accept() of a connection the
 * helper makes 1 ms later; waitpid() of a child that exits after 1 ms.
 * Meanwhile the main thread sleeps in nanosleep(30 ms) in a loop (a signal
 * aimed at the process rather than at the thread that used the CPU would
 * land there: nanosleep fails with EINTR whatever SA_RESTART says), and
 * four other threads sit in read() on a pipe, nanosleep(30 ms) in a loop,
 * waitpid() of a child that waits for the end, and accept() then recv() on
 * a socket, all released only when the sampled thread is done.  Every call
 * must succeed the first time: any EINTR fails the test.
 *
 * (On this kernel a per-thread tick is raised only while its thread runs
 * in user mode, so no blocked call is ever interrupted and SA_RESTART is
 * not what keeps these calls whole; on kernels that raise CPU-timer
 * signals from the tick interrupt, it is.)
 */
#include <pthread.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "profil_common.h"

PROFIL_SINK_DEFINE;
DEFINE_SPIN(busy_fn)

static int eintr;	/* EINTRs seen, by any thread */
/* The itimer clock's SIGPROF is sent to the process; when the thread that
 * made it fire is exiting, the kernel gives it to another thread, which may
 * sleep in a call that is never restarted (profil.3).  So under that clock
 * an EINTR in a thread that is not the sampled one is counted apart and the
 * call retried; the sampled thread, always the one running when its clock
 * fires, must never see one. */
static int process_directed;
static int eintr_elsewhere;
static __thread int in_sampled_thread;

#define SYSCALL_OK(call, what)                                                  \
	do {                                                                    \
		for (;;) {                                                      \
			errno = 0;                                              \
			if ((call) >= 0)                                        \
				break;                                          \
			if (errno == EINTR && process_directed &&               \
			    !in_sampled_thread) {                               \
				__atomic_add_fetch(&eintr_elsewhere, 1,         \
						   __ATOMIC_RELAXED);           \
				continue;                                       \
			}                                                       \
			if (errno == EINTR)                                     \
				__atomic_add_fetch(&eintr, 1, __ATOMIC_RELAXED);\
			CHECK(0, "%s: %s", what, strerror(errno));              \
		}                                                               \
	} while (0)

static void ms_sleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	SYSCALL_OK(nanosleep(&ts, NULL), "nanosleep");
}

/* A listening Unix socket in the abstract namespace, unique to us. */
static int listener(struct sockaddr_un *addr, const char *tag)
{
	memset(addr, 0, sizeof *addr);
	addr->sun_family = AF_UNIX;
	snprintf(addr->sun_path + 1, sizeof addr->sun_path - 1, "monprof-eintr-%d-%s",
		 (int)getpid(), tag);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(fd >= 0, "socket");
	CHECK(bind(fd, (struct sockaddr *)addr, sizeof *addr) == 0, "bind: %s", strerror(errno));
	CHECK(listen(fd, 8) == 0, "listen");
	return fd;
}

static int connect_to(const struct sockaddr_un *addr)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(fd >= 0, "socket");
	SYSCALL_OK(connect(fd, (const struct sockaddr *)addr, sizeof *addr), "connect");
	return fd;
}

/* ---- the helper that answers the sampled thread 1 ms after each request */

static int req[2], data_pipe[2], sock_pair[2];
static struct sockaddr_un busy_addr;

static void *helper(void *arg)
{
	(void)arg;
	char op;
	for (;;) {
		ssize_t n;
		SYSCALL_OK(n = read(req[0], &op, 1), "helper read");
		if (n == 0 || op == 'q')
			return NULL;
		ms_sleep(1);
		if (op == 'p')
			SYSCALL_OK(write(data_pipe[1], "x", 1), "helper write");
		else if (op == 's')
			SYSCALL_OK(send(sock_pair[1], "y", 1, 0), "helper send");
		else if (op == 'c')
			close(connect_to(&busy_addr));
	}
}

static void ask(char op)
{
	SYSCALL_OK(write(req[1], &op, 1), "request");
}

/* ---- threads blocked for the whole run --------------------------------- */

static int end_pipe[2], child_gate[2];
static struct sockaddr_un idle_addr;
static int idle_listen;
static volatile int done;

static void *blocked_read(void *arg)
{
	(void)arg;
	char c;
	ssize_t n;
	SYSCALL_OK(n = read(end_pipe[0], &c, 1), "read (blocked thread)");
	CHECK(n == 1, "read returned %zd", n);
	return NULL;
}

static void *blocked_sleep(void *arg)
{
	(void)arg;
	while (!done)
		ms_sleep(30);
	return NULL;
}

static void *blocked_wait(void *arg)
{
	(void)arg;
	pid_t pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		char c;
		close(child_gate[1]);
		while (read(child_gate[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(7);
	}
	int status;
	pid_t r;
	SYSCALL_OK(r = waitpid(pid, &status, 0), "waitpid (blocked thread)");
	CHECK(r == pid && WIFEXITED(status) && WEXITSTATUS(status) == 7, "waitpid: status %#x",
	      status);
	return NULL;
}

static void *blocked_accept(void *arg)
{
	(void)arg;
	int fd;
	char c;
	ssize_t n;
	SYSCALL_OK(fd = accept(idle_listen, NULL, NULL), "accept (blocked thread)");
	SYSCALL_OK(n = recv(fd, &c, 1, 0), "recv (blocked thread)");
	CHECK(n == 1 && c == 'z', "recv returned %zd", n);
	close(fd);
	return NULL;
}

/* ---- the sampled thread ------------------------------------------------- */

static double busy_cpu;

static void *busy_with_calls(void *arg)
{
	(void)arg;
	in_sampled_thread = 1;
	double t0 = thread_cpu();
	int busy_listen = listener(&busy_addr, "busy");
	for (int i = 0; i < 150; i++) {
		busy_fn(0.002);
		char c;
		ssize_t n;
		switch (i % 5) {
		case 0:
			ms_sleep(1);
			break;
		case 1:
			ask('p');
			SYSCALL_OK(n = read(data_pipe[0], &c, 1), "read (sampled thread)");
			CHECK(n == 1, "read returned %zd", n);
			break;
		case 2:
			ask('s');
			SYSCALL_OK(n = recv(sock_pair[0], &c, 1, 0), "recv (sampled thread)");
			CHECK(n == 1, "recv returned %zd", n);
			break;
		case 3: {
			ask('c');
			int fd;
			SYSCALL_OK(fd = accept(busy_listen, NULL, NULL), "accept (sampled thread)");
			close(fd);
			break;
		}
		case 4: {
			pid_t pid = fork();
			CHECK(pid >= 0, "fork");
			if (pid == 0) {
				struct timespec ts = { 0, 1000000 };
				nanosleep(&ts, NULL);
				_exit(3);
			}
			int status;
			pid_t r;
			SYSCALL_OK(r = waitpid(pid, &status, 0), "waitpid (sampled thread)");
			CHECK(r == pid && WIFEXITED(status) && WEXITSTATUS(status) == 3,
			      "waitpid: status %#x", status);
			break;
		}
		}
	}
	close(busy_listen);
	busy_cpu = thread_cpu() - t0;
	done = 1;
	return NULL;
}

int main(void)
{
	CHECK(pipe(req) == 0 && pipe(data_pipe) == 0 && pipe(end_pipe) == 0 &&
		      pipe(child_gate) == 0,
	      "pipe");
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sock_pair) == 0, "socketpair");
	idle_listen = listener(&idle_addr, "idle");

	static unsigned short hist[8192];
	profil_on(hist, sizeof hist, PTEXT_LO(busy_fn), 0x4000);
	int clock = stats_now().clock;
	process_directed = clock == MON_CLOCK_ITIMER;

	pthread_t h, b[4];
	void *(*blocked[4])(void *) = { blocked_read, blocked_sleep, blocked_wait, blocked_accept };
	CHECK(pthread_create(&h, NULL, helper, NULL) == 0, "pthread_create");
	for (int i = 0; i < 4; i++)
		CHECK(pthread_create(&b[i], NULL, blocked[i], NULL) == 0, "pthread_create");

	pthread_t busy;
	CHECK(pthread_create(&busy, NULL, busy_with_calls, NULL) == 0, "pthread_create");
	blocked_sleep(NULL); /* the main thread sleeps until the busy one is done */
	pthread_join(busy, NULL);
	double cpu = busy_cpu;

	/* release everyone */
	ask('q');
	SYSCALL_OK(write(end_pipe[1], "e", 1), "write");
	close(child_gate[1]);
	int fd = connect_to(&idle_addr);
	SYSCALL_OK(send(fd, "z", 1, 0), "send");
	pthread_join(h, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(b[i], NULL);
	close(fd);
	struct mon_stats st = stats_now();
	profil_off();
	printf("clock %s at %u Hz: %llu ticks over %.3f s of the sampled thread's CPU; %d EINTR"
	       " (%d in other threads: the process-directed SIGPROF)\n",
	       mon_clock_name(clock), st.rate_hz, (unsigned long long)st.samples, cpu, eintr,
	       eintr_elsewhere);
	CHECK(eintr == 0, "%d calls failed with EINTR", eintr);
	CHECK(st.samples >= ticks_lower_bound(clock, st.rate_hz, 150 * 0.002),
	      "the busy thread was hardly sampled: %llu ticks", (unsigned long long)st.samples);
	return 0;
}
