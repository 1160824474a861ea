/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_itimer_nested.c — under the itimer clock, a tick that expires while
 * a thread's tick handler still runs is that thread's, not a sleeping
 * thread's (lib/clock.c on_tick, lib/sigguard.c MON_SIG_NESTS).
 *
 * ITIMER_PROF's SIGPROF is the process's: the kernel gives it to the thread
 * whose CPU time expired the timer unless that thread blocks it, and then
 * to any thread that does not, one sleeping in nanosleep(2) as readily as
 * any (kernel/signal.c complete_signal).  A handler blocking its own signal
 * and running past the next expiry (a first walk, a page fault, the
 * address-space lock: up to 5.5 ms, tests/progs/itimer_sleepers.c) so
 * ended a sleeper's call with EINTR (itimer_runtime_no_eintr in
 * tests/integ/monrun_itimer_stolen.sh, 1 run in 7 here), and the clock
 * stopped for the rest of the run (itimer_cut).
 *
 *   handler_past_expiry_no_eintr  main spins; the tick handler's sample goes
 *                                 through slow_tick (mon_clock_deliver_to),
 *                                 which makes 20 of main's ticks
 *                                 run on until a tick comes nested (at
 *                                 most 50 ms of CPU each); a
 *                                 second thread sleeps in 2 ms nanosleep
 *                                 calls meanwhile.  0 of its calls fail
 *                                 with EINTR, none ends early, the clock
 *                                 was not cut, and ticks came nested (the
 *                                 situation arose: at least one of the 20).
 *                                 Mutation caught: mon_sig_own without
 *                                 MON_SIG_NESTS for the itimer clock.
 *
 * Its own process image: libmon's configuration is read before main, so
 * main() sets MONPROF_CLOCK and runs the program again.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
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
#include "sampler.h"

extern char etext[];

#define SLOW_TICKS 20
#define SLOW_CPU_NS 50000000ull	/* a slow tick's most CPU: 12 kernel ticks at HZ 250 */

static char dir[] = "/tmp/monprof-itimernest.XXXXXX";
static pid_t main_tid;
static int slow_left;		/* main's ticks still to be made slow */
static int stop;
static unsigned long calls, eintr, early;

static uint64_t thread_cpu(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static uint64_t mono(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* Where the tick handler hands the sample on (mon_clock_deliver_to, in
 * place of the sampler's): in main, CPU until a tick came nested, or 50 ms
 * of it, then the sample as usual.  The kernel looks at the process's CPU
 * timers at its own tick (HZ: 250 here, so 4 ms apart), and the handler
 * starts just after one: a handler of less than a kernel tick never sees
 * the timer expire again, whatever the itimer's period. */
static void slow_tick(const void *context, uintptr_t pc, uint64_t weight)
{
	if ((pid_t)syscall(SYS_gettid) == main_tid && __atomic_load_n(&slow_left, __ATOMIC_RELAXED) > 0) {
		__atomic_sub_fetch(&slow_left, 1, __ATOMIC_RELAXED);
		uint64_t t0 = thread_cpu();
		unsigned long n0 = mon_clock_nested_ticks();
		while (mon_clock_nested_ticks() == n0 && thread_cpu() - t0 < SLOW_CPU_NS)
			;
	}
	mon_sampler_tick(context, pc, weight);
}

static void *sleeper(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		struct timespec ts = { 0, 2000000 };
		uint64_t t0 = mono();
		int rc = nanosleep(&ts, NULL);
		calls++;
		if (rc != 0 && errno == EINTR)
			eintr++;
		else if (rc == 0 && mono() - t0 < 2000000)
			early++;
	}
	return NULL;
}

static void handler_past_expiry_no_eintr(void **s)
{
	(void)s;
	main_tid = (pid_t)syscall(SYS_gettid);
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, sleeper, NULL), 0);
	if (monstartup((int (*)(void))2, etext) < 0)
		fail_msg("monstartup: errno %d", errno);
	mon_clock_deliver_to(slow_tick);
	__atomic_store_n(&slow_left, SLOW_TICKS, __ATOMIC_RELAXED);
	/* Main spins until its 20 slow ticks are done or the clock was cut (a
	 * bound of 60 s of wall-clock time, beside the script's own limit). */
	uint64_t end = mono() + 60000000000ull;
	while (__atomic_load_n(&slow_left, __ATOMIC_RELAXED) > 0 && !mon_itimer_was_cut() && mono() < end)
		;
	int cut = mon_itimer_was_cut();
	unsigned long nested = mon_clock_nested_ticks();
	mon_clock_deliver_to(mon_sampler_tick);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	assert_int_equal(pthread_join(t, NULL), 0);
	monitor(0, 0, 0, 0, 0);
	fprintf(stderr, "# slow ticks left %d; nested ticks %lu; sleeper: eintr %lu early %lu of %lu; cut %d\n",
		slow_left, nested, eintr, early, calls, cut);
	assert_int_equal(slow_left, 0);
	assert_true(calls > 0);
	assert_int_equal(eintr, 0);
	assert_int_equal(early, 0);
	assert_int_equal(cut, 0);
	assert_true(nested >= 1);
}

int main(int argc, char **argv)
{
	(void)argc;
	if (autostart_rerun(argv, "itimer", "1000", dir) < 0)
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(handler_past_expiry_no_eintr),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	autostart_cleanup(dir);
	return rc;
}
