/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wall_ends — fork, exec and _exit with the wall sampler running, for
 * tests/integ/wall_ends.sh.  A second thread of the program sleeps beside
 * main all along (the wall sampler has something to see).
 *
 *   wall_ends fork     sleep 200 ms, fork; the child sleeps 300 ms in
 *                      child_sleep and exits 7; the parent waits, prints
 *                      "child PID status N", sleeps 100 ms, exits 0
 *   wall_ends exec     sleep 200 ms; execve of a missing file (it fails:
 *                      ENOENT), sleep 200 ms, then exec /bin/sh -c 'exit 5'
 *   wall_ends _exit    sleep 300 ms, _exit(3)
 * Each prints "pid PID" first.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void ms_sleep(long ms)
{
	struct timespec d = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&d, &d) != 0)
		;
}

__attribute__((noinline)) static void child_sleep(void)
{
	ms_sleep(300);
	__asm__ volatile("" ::: "memory");	/* a call, not a tail jump */
}

static void *beside(void *a)
{
	(void)a;
	for (;;)
		ms_sleep(1000);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	pthread_t t;
	if (pthread_create(&t, NULL, beside, NULL) != 0)
		return 1;
	printf("pid %d\n", (int)getpid());
	fflush(stdout);
	if (strcmp(mode, "fork") == 0) {
		ms_sleep(200);
		pid_t c = fork();
		if (c == 0) {
			child_sleep();
			_exit(7);
		}
		int st = 0;
		if (c < 0 || waitpid(c, &st, 0) != c)
			return 1;
		printf("child %d status %d\n", (int)c, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		ms_sleep(100);
		return 0;
	}
	if (strcmp(mode, "exec") == 0) {
		ms_sleep(200);
		char *const nargv[] = { "missing", NULL };
		execv("/nonexistent/missing", nargv);
		printf("exec failed %s\n", strerror(errno));
		fflush(stdout);
		ms_sleep(200);
		execl("/bin/sh", "sh", "-c", "exit 5", (char *)NULL);
		return 1;
	}
	if (strcmp(mode, "_exit") == 0) {
		ms_sleep(300);
		_exit(3);
	}
	return 2;
}
