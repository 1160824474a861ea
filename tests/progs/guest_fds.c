/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest_fds.c — a program that counts on its descriptors.
 *
 *   guest_fds limit N    N threads alive (each has used some CPU) while the
 *                        program opens one file: prints "open_fd FD" (the
 *                        lowest free number, 3) or "open_failed ERRNO".
 *   guest_fds daemon S   four threads wait while the main thread, like a
 *                        daemon, closes every descriptor above 2 (close()
 *                        one by one, closefrom(3), close_range(3, ~0U, 0)),
 *                        opens its own files (must get 3, 4, 5), dup2()s
 *                        one onto the top 8 numbers of RLIMIT_NOFILE, then
 *                        spins S (default 0.3) CPU-seconds in after_close
 *                        ("after_close CPU").  Then it takes the upper half
 *                        of the numbers behind the C library's back (raw close
 *                        and dup3 system calls), lets the threads exit, and
 *                        checks that each of those numbers still refers to
 *                        its own file.  Exit 0 when all held, 1 otherwise.
 *   guest_fds rawclose S [M]
 *                        two threads spin 0.05 CPU-s, then the main thread
 *                        closes every descriptor above 2 with the raw
 *                        close_range system call (no C library function
 *                        sees it), opens /dev/null 700 times (taking the
 *                        numbers a profiler's descriptors had, when
 *                        RLIMIT_NOFILE is below about 930), and spins S
 *                        CPU-s in after_close while the threads spin 0.1
 *                        CPU-s more in thread_after (with M > 0, each
 *                        thread spins on in steps of a fifth of that until
 *                        its own probe, cputimer_probe.h probe_thread_*,
 *                        started after the opens, has its share of M
 *                        independent samples: 0.5 M the main thread, 0.25 M
 *                        each other; at most 6 CPU-s of steps in the
 *                        main thread, 3 in the others; then the main
 *                        thread spins on until it has used as much CPU as
 *                        the others, a share near a half; the main
 *                        thread's steps printed as "rounds").  Then
 *                        each of the 700 must still be /dev/null and
 *                        close() must succeed on each.  Prints
 *                        "after_close CPU", "thread_after CPU" and the
 *                        probes' counts (probe_print); exit 0 when all
 *                        held.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cputimer_probe.h"
#include "monrun_common.h"

DEFINE_SPIN(thread_work)
DEFINE_SPIN(after_close)
DEFINE_SPIN(thread_after)

static pthread_barrier_t b1, b2;
static double thread_after_cpu[2], neff_wanted;
static struct probe_thread thread_probe[2];

/* Block PROBE_SIGNAL in the calling thread and start its probe P. */
static void probe_thread_blocked(struct probe_thread *p)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, PROBE_SIGNAL);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
	probe_thread_start(p);
}

static void *raw_thr(void *a)
{
	int i = (int)(intptr_t)a;
	thread_work(0.05);
	pthread_barrier_wait(&b1);
	pthread_barrier_wait(&b2);
	probe_thread_blocked(&thread_probe[i]);
	thread_after_cpu[i] = probe_thread_spin(thread_after, 0.1, &thread_probe[i]);
	for (int r = 0; r < 150 && probe_neff_of(&thread_probe[i].c) < 0.25 * neff_wanted; r++)
		thread_after_cpu[i] += probe_thread_spin(thread_after, 0.02, &thread_probe[i]);
	probe_thread_stop(&thread_probe[i]);
	return NULL;
}

static void *thr(void *a)
{
	(void)a;
	thread_work(0.002);
	pthread_barrier_wait(&b1);
	pthread_barrier_wait(&b2);
	return NULL;
}

#define FAIL(...)                                                               \
	do {                                                                    \
		fprintf(stderr, "guest_fds: " __VA_ARGS__);                     \
		fputc('\n', stderr);                                            \
		return 1;                                                       \
	} while (0)

static int same_file(int fd, const struct stat *want)
{
	struct stat st;
	return fstat(fd, &st) == 0 && st.st_dev == want->st_dev && st.st_ino == want->st_ino;
}

static int raw_close(double seconds)
{
	pthread_t t[2];
	pthread_barrier_init(&b1, 0, 3);
	pthread_barrier_init(&b2, 0, 3);
	for (int i = 0; i < 2; i++)
		if ((errno = pthread_create(&t[i], 0, raw_thr, (void *)(intptr_t)i)) != 0)
			FAIL("pthread_create: %s", strerror(errno));
	pthread_barrier_wait(&b1);
	if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
		FAIL("close_range: %s", strerror(errno));
	int fds[700];
	for (int i = 0; i < 700; i++)
		if ((fds[i] = open("/dev/null", O_RDONLY)) < 0)
			FAIL("open number %d: %s", i, strerror(errno));
	pthread_barrier_wait(&b2);
	struct probe_thread main_probe;
	probe_thread_blocked(&main_probe);
	double used = probe_thread_spin(after_close, seconds, &main_probe);
	int r;
	for (r = 0; r < 100 && probe_neff_of(&main_probe.c) < 0.5 * neff_wanted; r++)
		used += probe_thread_spin(after_close, seconds / 5, &main_probe);
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], 0);
		probe_thread_merge(&thread_probe[i]);
	}
	for (; r < 200 && neff_wanted > 0 && used < thread_after_cpu[0] + thread_after_cpu[1]; r++)
		used += probe_thread_spin(after_close, seconds / 5, &main_probe);
	probe_thread_stop(&main_probe);
	probe_thread_merge(&main_probe);
	printf("after_close %.6f\nthread_after %.6f\n", used,
	       thread_after_cpu[0] + thread_after_cpu[1]);
	probe_print(r);
	struct stat null;
	if (stat("/dev/null", &null) != 0)
		FAIL("stat /dev/null: %s", strerror(errno));
	for (int i = 0; i < 700; i++) {
		if (!same_file(fds[i], &null))
			FAIL("descriptor %d, the program's, was changed behind its back", fds[i]);
		if (close(fds[i]) != 0)
			FAIL("close(%d) of the program's own descriptor: %s", fds[i], strerror(errno));
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	if (strcmp(argv[1], "rawclose") == 0) {
		neff_wanted = argc > 3 ? atof(argv[3]) : 0;
		return raw_close(argc > 2 ? atof(argv[2]) : 0.3);
	}
	int n = strcmp(argv[1], "limit") == 0 ? (argc > 2 ? atoi(argv[2]) : 20) : 4;
	pthread_barrier_init(&b1, 0, (unsigned)n + 1);
	pthread_barrier_init(&b2, 0, (unsigned)n + 1);
	pthread_t t[n];
	for (int i = 0; i < n; i++)
		if ((errno = pthread_create(&t[i], 0, thr, 0)) != 0)
			FAIL("pthread_create: %s", strerror(errno));
	pthread_barrier_wait(&b1);
	if (strcmp(argv[1], "limit") == 0) {
		int fd = open("/dev/null", O_RDONLY);
		if (fd < 0)
			printf("open_failed %d\n", errno);
		else
			printf("open_fd %d\n", fd);
		pthread_barrier_wait(&b2);
		for (int i = 0; i < n; i++)
			pthread_join(t[i], 0);
		return 0;
	}
	struct rlimit rl;
	getrlimit(RLIMIT_NOFILE, &rl);
	int top = rl.rlim_cur > 65536 ? 65536 : (int)rl.rlim_cur;
	for (int fd = 3; fd < top; fd++)
		close(fd);
	closefrom(3);
	close_range(3, ~0U, 0);
	int a = open("/dev/null", O_RDONLY), b = open("/dev/zero", O_RDONLY),
	    c = open("/dev/null", O_WRONLY);
	if (a != 3 || b != 4 || c != 5)
		FAIL("after closing every descriptor above 2, open gave %d %d %d", a, b, c);
	struct stat zero;
	fstat(b, &zero);
	for (int fd = top - 8; fd < top; fd++)
		if (dup2(b, fd) != fd || !same_file(fd, &zero))
			FAIL("dup2 onto %d: %s", fd, strerror(errno));
	double used = after_close(argc > 2 ? atof(argv[2]) : 0.3);
	printf("after_close %.6f\n", used);
	/* The upper half of the numbers (where a profiler would put its
	 * own): the program's, behind the C library's back. */
	for (int fd = top / 2; fd < top; fd++) {
		syscall(SYS_close, fd);
		syscall(SYS_dup3, b, fd, 0);
	}
	pthread_barrier_wait(&b2);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], 0);
	for (int fd = top / 2; fd < top; fd++)
		if (!same_file(fd, &zero))
			FAIL("descriptor %d, the program's, was closed or changed behind its back", fd);
	char byte = 1;
	if (read(top - 1, &byte, 1) != 1 || byte != 0)
		FAIL("descriptor %d does not read /dev/zero", top - 1);
	return 0;
}
