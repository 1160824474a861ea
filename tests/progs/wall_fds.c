/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wall_fds — threads blocked on descriptors of every kind the wall sampler
 * describes, for tests/integ/wall_fds.sh.
 *
 *   wall_fds DIR [MS]   each wait lasts about MS milliseconds (default 400);
 *                       DIR: where the FIFO is made (DIR/wall_fds.fifo)
 *
 * Each thread blocks in a start function of its own:
 *   start_eventfd   read(2) of an eventfd main writes after MS
 *   start_timerfd   read(2) of a timerfd armed to expire after MS
 *   start_signalfd  read(2) of a signalfd for SIGUSR1 (blocked in every
 *                   thread), sent to the process after MS
 *   start_recv      recv(2) on a TCP connection to 127.0.0.1, whose other
 *                   end main writes after MS
 *   start_accept    accept(2) on a TCP socket listening on 127.0.0.1, which
 *                   main connects to after MS
 *   start_fifo      read(2) of the FIFO DIR/wall_fds.fifo (a path), opened
 *                   for writing by main beforehand and written after MS
 * Prints "listen PORT" (the listening socket's port), "recv LOCAL PEER"
 * (the ports of the recv thread's connection) and "done"; exit 0.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static int efd, tfd, sfd, conn_fd, listen_fd, fifo_fd;
static pthread_barrier_t ready;

#define START(NAME, BODY)                                             \
	__attribute__((noinline)) static void *start_##NAME(void *a)   \
	{                                                             \
		(void)a;                                              \
		pthread_barrier_wait(&ready);                         \
		BODY;                                                 \
		return NULL;                                          \
	}

START(eventfd, uint64_t v; if (read(efd, &v, sizeof v) != sizeof v) exit(2))
START(timerfd, uint64_t v; if (read(tfd, &v, sizeof v) != sizeof v) exit(2))
START(signalfd, struct signalfd_siginfo si; if (read(sfd, &si, sizeof si) != sizeof si) exit(2))
START(recv, char c; if (recv(conn_fd, &c, 1, 0) != 1) exit(2))
START(accept, int fd = accept(listen_fd, NULL, NULL); if (fd < 0) exit(2); close(fd))
START(fifo, char c; if (read(fifo_fd, &c, 1) != 1) exit(2))

static int tcp_listener(struct sockaddr_in *at)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	socklen_t len = sizeof *at;
	memset(at, 0, sizeof *at);
	at->sin_family = AF_INET;
	at->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)at, sizeof *at) < 0 || listen(fd, 4) < 0 ||
	    getsockname(fd, (struct sockaddr *)at, &len) < 0)
		exit(1);
	return fd;
}

static int tcp_connect(const struct sockaddr_in *to)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (const struct sockaddr *)to, sizeof *to) < 0)
		exit(1);
	return fd;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 1;
	long ms = argc > 2 ? atol(argv[2]) : 400;
	sigset_t usr1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);	/* every thread inherits it */
	efd = eventfd(0, 0);
	tfd = timerfd_create(CLOCK_MONOTONIC, 0);
	sfd = signalfd(-1, &usr1, 0);
	struct sockaddr_in lat, sat;
	listen_fd = tcp_listener(&lat);
	int server = tcp_listener(&sat);
	conn_fd = tcp_connect(&sat);
	int served = accept(server, NULL, NULL);
	char fifo[4096];
	snprintf(fifo, sizeof fifo, "%s/wall_fds.fifo", argv[1]);
	unlink(fifo);
	if (efd < 0 || tfd < 0 || sfd < 0 || served < 0 || mkfifo(fifo, 0600) < 0)
		return 1;
	fifo_fd = open(fifo, O_RDWR);	/* no wait for a writer; reads block */
	int fifo_w = open(fifo, O_WRONLY);
	if (fifo_fd < 0 || fifo_w < 0)
		return 1;
	struct sockaddr_in cat;
	socklen_t clen = sizeof cat;
	if (getsockname(conn_fd, (struct sockaddr *)&cat, &clen) < 0)
		return 1;
	printf("listen %d\nrecv %d %d\n", ntohs(lat.sin_port), ntohs(cat.sin_port), ntohs(sat.sin_port));
	fflush(stdout);

	void *(*fn[])(void *) = { start_eventfd, start_timerfd, start_signalfd,
				  start_recv, start_accept, start_fifo };
	enum { N = sizeof fn / sizeof *fn };
	pthread_t th[N];
	pthread_barrier_init(&ready, NULL, N + 1);
	for (int i = 0; i < N; i++)
		if (pthread_create(&th[i], NULL, fn[i], NULL) != 0)
			return 1;
	pthread_barrier_wait(&ready);
	struct itimerspec its = { { 0, 0 }, { ms / 1000, (ms % 1000) * 1000000L } };
	timerfd_settime(tfd, 0, &its, NULL);
	struct timespec d = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&d, &d) != 0)
		;
	uint64_t one = 1;
	if (write(efd, &one, sizeof one) != sizeof one || kill(getpid(), SIGUSR1) < 0 ||
	    send(served, "x", 1, 0) != 1 || write(fifo_w, "y", 1) != 1)
		return 1;
	int c = tcp_connect(&lat);
	for (int i = 0; i < N; i++)
		pthread_join(th[i], NULL);
	close(c);
	unlink(fifo);
	puts("done");
	return 0;
}
