/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_own_wait.c — a wait of the runtime's own in a thread of the
 * program's (lib/clock.c mon_clock_own_nap, mon_clock_own_wait_begin/_end)
 * does not stop the itimer clock.
 *
 * ITIMER_PROF's SIGPROF is the process's.  When the thread whose CPU
 * expired it blocks every signal, the kernel gives it to another thread
 * (kernel/signal.c complete_signal), and a handler ends that thread's
 * nanosleep(2) with EINTR whatever SA_RESTART says (signal(7)).  Ended in a
 * call of the program's, that is harm no handler can undo, and the clock
 * stops for the rest of the run (itimer_cut).  Ended in a wait of libmon's,
 * which simply waits again, it is no harm: the control thread's start
 * (every signal blocked, heavy under ASan) stopped the clock that way while
 * main waited for its tid, 2 runs in 5 of tests/integ/threads_churn.sh.
 *
 *   own_nap_keeps_clock     a thread that blocks every signal spins 0.3 s
 *                           of CPU while main waits in mon_clock_own_nap:
 *                           the clock is not cut.  Mutation caught:
 *                           mon_clock_own_nap without the own-work window,
 *                           red.
 *   program_sleep_cuts      the same with main in nanosleep(2): the clock
 *                           is cut (the setup gives main the ticks; this
 *                           case runs last, the cut being for good)
 *
 * Its own process image: the clock's configuration is read before main, so
 * main() sets MONPROF_CLOCK=itimer and runs the program again.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "autostart_rerun.h"
#include "mon.h"
#include "runtime.h"

extern char etext[];

static char dir[] = "/tmp/monprof-ownwait.XXXXXX";
static int spun;		/* the spinner is done */
static volatile unsigned long sink;

/* 0.3 s of this thread's CPU with every signal blocked (the system call
 * itself: libmon's sigprocmask is the program's, virtual). */
static void *spinner(void *arg)
{
	(void)arg;
	sigset_t all;
	sigfillset(&all);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, NULL, (size_t)(_NSIG / 8));
	struct timespec a, b;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do {
		for (int i = 0; i < 10000; i++)
			sink += (unsigned long)i * 2654435761u;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 300000000L);
	__atomic_store_n(&spun, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void start(void)
{
	struct mon_stats st;
	memset(&st, 0, sizeof st);
	mon_getstats(&st, sizeof st);
	if (st.on)
		return;
	if (monstartup((int (*)(void))2, etext) < 0)
		fail_msg("monstartup: errno %d", errno);
	mon_getstats(&st, sizeof st);
	if (st.clock != MON_CLOCK_ITIMER) {
		fprintf(stderr, "# the itimer clock is not available here (clock %d)\n", st.clock);
		skip();
	}
}

/* Spin in another thread while main waits in wait(): 1 ms at a time. */
static void wait_out_spinner(void (*wait)(void))
{
	pthread_t t;
	__atomic_store_n(&spun, 0, __ATOMIC_RELAXED);
	assert_int_equal(pthread_create(&t, NULL, spinner, NULL), 0);
	while (!__atomic_load_n(&spun, __ATOMIC_ACQUIRE))
		wait();
	assert_int_equal(pthread_join(t, NULL), 0);
}

static void own_nap(void)
{
	mon_clock_own_nap(1000000);
}

static void program_sleep(void)
{
	struct timespec ms = { 0, 1000000 };
	nanosleep(&ms, NULL);
}

static void own_nap_keeps_clock(void **s)
{
	(void)s;
	start();
	wait_out_spinner(own_nap);
	assert_false(mon_itimer_was_cut());
}

static void program_sleep_cuts(void **s)
{
	(void)s;
	start();
	assert_false(mon_itimer_was_cut());
	wait_out_spinner(program_sleep);
	assert_true(mon_itimer_was_cut());
}

int main(int argc, char **argv)
{
	(void)argc;
	if (autostart_rerun(argv, "itimer", "1000", dir) < 0)
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(own_nap_keeps_clock),
		cmocka_unit_test(program_sleep_cuts),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	autostart_cleanup(dir);
	return rc;
}
