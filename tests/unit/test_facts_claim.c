/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_facts_claim.c — a tick that comes while a thread claims its entry of
 * the per-thread table (lib/runfacts.c mine_as, from the thread's end or a
 * write, ticks not blocked) does not claim a second entry.
 *
 * The tick's handler asks for the same thread's entry (mon_facts_tick).
 * Before the thread's own claim has recorded its entry, the handler found
 * none and claimed another: one thread in two entries, both written to
 * mon.out as ended threads, and in interval files a thread counted twice
 * (tests/integ/threads_churn.sh: 8192 + 210 for 8401 threads in
 * threads_many_count, 1 loaded ASan run in 3).
 *
 *   tick_in_claim_one_entry  a thread with no entry ends
 *                            (mon_facts_thread_end); a tick is taken inside
 *                            its claim (mon_facts_claim_probe, the claim's
 *                            test hook, calls mon_facts_tick as the handler
 *                            does).  The file lists the thread once, and the
 *                            tick is counted in that row.  Mutation caught:
 *                            mine_as without its claiming mark, two rows.
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
#include <unistd.h>

#include <cmocka.h>

#include "autostart_rerun.h"
#include "mon.h"
#include "monout.h"
#include "runfacts.h"

extern char etext[];

static char dir[] = "/tmp/monprof-factsclaim.XXXXXX";
static __thread int armed;	/* this thread's next claim runs a tick */
static int probed;		/* ticks the probe ran */

void mon_facts_claim_probe(void);
void mon_facts_claim_probe(void)
{
	if (!armed)
		return;
	armed = 0;
	__atomic_add_fetch(&probed, 1, __ATOMIC_RELAXED);
	mon_facts_tick(1, 0);
}

/* A thread that ends at once, its claim made at its end with a tick in it;
 * its tid in *arg. */
static void *ends(void *arg)
{
	*(pid_t *)arg = (pid_t)syscall(SYS_gettid);
	armed = 1;
	mon_facts_thread_end(0);
	armed = 0;
	return NULL;
}

static void tick_in_claim_one_entry(void **s)
{
	(void)s;
	if (monstartup((int (*)(void))2, etext) < 0)
		fail_msg("monstartup: errno %d", errno);
	/* A thread a real tick reached first has its entry already: the probe
	 * does not run in it.  Another thread then. */
	pid_t tid = 0;
	for (int i = 0; i < 20 && __atomic_load_n(&probed, __ATOMIC_RELAXED) == 0; i++) {
		pthread_t t;
		assert_int_equal(pthread_create(&t, NULL, ends, &tid), 0);
		assert_int_equal(pthread_join(t, NULL), 0);
	}
	assert_int_equal(probed, 1);
	monitor(0, 0, 0, 0, 0);

	struct monout m;
	char err[256];
	if (monout_read_file("mon.out", &m, err, sizeof err) < 0)
		fail_msg("mon.out: %s", err);
	unsigned rows = 0;
	uint64_t samples = 0;
	uint32_t flags = 0;
	for (size_t i = 0; i < m.nthreads; i++)
		if (m.threads[i].tid == (uint64_t)tid) {
			rows++;
			samples += m.threads[i].samples;
			flags |= m.threads[i].flags;
		}
	monout_free(&m);
	fprintf(stderr, "# thread %d: %u rows, %llu samples\n", (int)tid, rows,
		(unsigned long long)samples);
	assert_int_equal(rows, 1);
	assert_true(samples >= 1);
	assert_true(flags & MONOUT_THREAD_ENDED);
}

int main(int argc, char **argv)
{
	(void)argc;
	if (autostart_rerun(argv, "itimer", "100", dir) < 0)
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tick_in_claim_one_entry),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	autostart_cleanup(dir);
	return rc;
}
