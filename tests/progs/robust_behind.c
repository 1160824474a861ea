/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * robust_behind.c — libmon's pthread_create called by another library's
 * (tests/progs/robust_behind_shim.c, linked first), the order a program
 * built with -fsanitize=thread and the shared libmon has (lib/threads.c,
 * `behind`).  Checks:
 *   - every new thread is armed before its start routine runs (each of 3
 *     workers, started while the earlier ones wait, sees itself and all
 *     earlier threads armed);
 *   - the threads really went through the other library first;
 *   - fork does not deadlock when a fork child handler registered before
 *     libmon's (as ThreadSanitizer's is) starts a thread, and profiling
 *     goes on in the child.
 * Exits 0, 1 with "file:line: ..." on a failed check, 77 (SKIP) with the
 * itimer clock (one process-wide timer: nothing is armed per thread).
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mon.h>

int shim_threads(void);

#define CHECK(c, ...)                                                              \
	do {                                                                       \
		if (!(c)) {                                                        \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__,     \
				__LINE__, #c);                                     \
			fprintf(stderr, __VA_ARGS__);                              \
			fputc('\n', stderr);                                       \
			exit(1);                                                   \
		}                                                                  \
	} while (0)

/* A fork child handler registered before any library's constructor runs
 * (ThreadSanitizer registers its own at start-up too): it starts and joins
 * a thread while libmon's own child handler has not run yet. */
static int child_thread_rc = -1;
static void *nothing(void *p)
{
	return p;
}
static void start_thread_in_child(void)
{
	pthread_t t;
	child_thread_rc = pthread_create(&t, NULL, nothing, NULL);
	if (child_thread_rc == 0)
		pthread_join(t, NULL);
}
static void register_early(void)
{
	pthread_atfork(NULL, NULL, start_thread_in_child);
}
__attribute__((section(".preinit_array"), used)) static void (*const early)(void) = register_early;

static pthread_barrier_t all_started;
static unsigned armed_at_start[3];

static void *worker(void *p)
{
	struct mon_stats st;
	unsigned i = (unsigned)(uintptr_t)p;
	mon_getstats(&st, sizeof st);
	armed_at_start[i] = st.threads;
	pthread_barrier_wait(&all_started);
	return NULL;
}

static unsigned short bins[1024];

int main(void)
{
	alarm(60);	/* a deadlock fails the test instead of hanging it */
	CHECK(profil(bins, sizeof bins, (uintptr_t)main, 0x8000) == 0, "profil: %s",
	      strerror(errno));
	struct mon_stats st;
	mon_getstats(&st, sizeof st);
	if (st.clock == MON_CLOCK_ITIMER) {
		printf("SKIP the itimer clock arms no thread\n");
		return 77;
	}
	pthread_barrier_init(&all_started, NULL, 4);
	pthread_t t[3];
	int shim0 = shim_threads();
	for (unsigned i = 0; i < 3; i++) {
		CHECK(pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)i) == 0, "create");
		/* wait until worker i has looked, so the next one sees it */
		while (__atomic_load_n(&armed_at_start[i], __ATOMIC_RELAXED) == 0)
			usleep(1000);
	}
	pthread_barrier_wait(&all_started);
	for (unsigned i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	CHECK(shim_threads() - shim0 == 3, "%d threads through the other library, 3 started",
	      shim_threads() - shim0);
	for (unsigned i = 0; i < 3; i++)
		CHECK(armed_at_start[i] >= i + 2, "worker %u started with %u threads armed, want >= %u",
		      i, armed_at_start[i], i + 2);

	pid_t pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		mon_getstats(&st, sizeof st);
		_exit(child_thread_rc == 0 && st.on && st.threads >= 1 ? 7 : 8);
	}
	int status;
	CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 7,
	      "child: status %#x (8: its thread or its profiling failed)", status);
	CHECK(profil(NULL, 0, 0, 0) == 0, "profil off");
	printf("behind: 3 threads armed at start (%u %u %u armed), fork child ok\n",
	       armed_at_start[0], armed_at_start[1], armed_at_start[2]);
	return 0;
}
