/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_stacks.c — unit tests of the call-stack table (lib/stacks.c):
 * identical stacks merged, the thread and flags part of a stack's identity,
 * the depth cap, a full table counting lost samples, concurrent inserts
 * from several threads adding up exactly, inserts from signal handlers
 * interrupting inserts of other threads, and a reader that goes through
 * the groups of slots stacks were stored in, not the whole table.
 *
 * Links libmon.a, so it can reach the hidden interfaces (stacks.h).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "stacks.h"
#include "unwind.h"

struct seen {
	uint64_t samples;
	unsigned entries;
	uint64_t count[64];
	uint64_t tid[64];
	uint32_t flags[64], depth[64];
	uint64_t pc0[64], last[64];
};

static int collect(uint64_t count, uint64_t tid, uint32_t flags, const uint64_t *pcs,
		   uint32_t depth, void *arg)
{
	struct seen *s = arg;
	s->samples += count;
	if (s->entries < 64) {
		s->count[s->entries] = count;
		s->tid[s->entries] = tid;
		s->flags[s->entries] = flags;
		s->depth[s->entries] = depth;
		s->pc0[s->entries] = pcs[0];
		s->last[s->entries] = pcs[depth - 1];
	}
	s->entries++;
	return 0;
}

static struct seen seen_of(const struct mon_stack_table *t)
{
	struct seen s;
	memset(&s, 0, sizeof s);
	assert_int_equal(mon_stack_table_each(t, collect, &s), 0);
	return s;
}

static void sizes(void **state)
{
	(void)state;
	errno = 0;
	assert_null(mon_stack_table_new(8, 64));
	assert_int_equal(errno, EINVAL);
	assert_null(mon_stack_table_new(64, 0));
	assert_null(mon_stack_table_new(64, MON_STACK_DEPTH_MAX + 1));
	struct mon_stack_table *t = mon_stack_table_new(MON_STACKS_FIRST, 64);
	assert_non_null(t);
	assert_int_equal(mon_stack_table_capacity(t), MON_STACKS_FIRST);
	assert_int_equal(mon_stack_table_depth(t), 64);
	/* 32768 slots of 40 bytes and the map of their 512 groups of 64 (64
	 * bytes), in whole pages, and 16384 * 64 PCs of 8 bytes. */
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	assert_true(mon_stack_table_bytes(MON_STACKS_FIRST, 64) ==
		    (32768u * 40u + 64u + page - 1) / page * page + 16384u * 64u * 8u);
	mon_stack_table_free(t);
}

static void merged(void **state)
{
	(void)state;
	struct mon_stack_table *t = mon_stack_table_new(64, 8);
	assert_non_null(t);
	uintptr_t a[3] = { 0x1000, 0x2000, 0x3000 }, b[3] = { 0x1000, 0x2000, 0x3001 };
	assert_int_equal(mon_stack_table_add(t, 7, 0, a, 3, 2), 1);
	assert_int_equal(mon_stack_table_add(t, 7, 0, a, 3, 5), 1);	/* same: merged */
	assert_int_equal(mon_stack_table_add(t, 7, 0, b, 3, 1), 1);	/* another PC */
	assert_int_equal(mon_stack_table_add(t, 8, 0, a, 3, 1), 1);	/* another thread */
	assert_int_equal(mon_stack_table_add(t, 7, MON_STACK_TRUNCATED, a, 3, 4), 1);
	assert_int_equal(mon_stack_table_add(t, 7, 0, a, 2, 1), 1);	/* shorter */
	struct seen s = seen_of(t);
	assert_int_equal(s.entries, 5);
	assert_int_equal(mon_stack_table_used(t), 5);
	assert_true(s.samples == 2 + 5 + 1 + 1 + 4 + 1);
	int found = 0;
	for (unsigned i = 0; i < s.entries; i++)
		if (s.tid[i] == 7 && s.flags[i] == 0 && s.depth[i] == 3 && s.last[i] == 0x3000) {
			assert_true(s.count[i] == 7);
			found++;
		}
	assert_int_equal(found, 1);
	assert_true(mon_stack_table_truncated(t) == 4);
	assert_true(mon_stack_table_lost(t) == 0);
	mon_stack_table_reset(t);
	s = seen_of(t);
	assert_true(s.entries == 0 && mon_stack_table_used(t) == 0 &&
		    mon_stack_table_truncated(t) == 0);
	mon_stack_table_free(t);
}

static void depth_cap(void **state)
{
	(void)state;
	struct mon_stack_table *t = mon_stack_table_new(16, 4);
	assert_non_null(t);
	uintptr_t pcs[10];
	for (unsigned i = 0; i < 10; i++)
		pcs[i] = 0x400000 + 16 * i;
	assert_int_equal(mon_stack_table_add(t, 1, 0, pcs, 10, 1), 1);
	assert_int_equal(mon_stack_table_add(t, 1, 0, pcs, 4, 1), 1);	/* exactly 4: no flag */
	struct seen s = seen_of(t);
	assert_int_equal(s.entries, 2);
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(s.depth[i], 4);
		assert_true(s.pc0[i] == 0x400000 && s.last[i] == 0x400000 + 16 * 3);
	}
	assert_true((s.flags[0] ^ s.flags[1]) == MON_STACK_DEPTH);
	mon_stack_table_free(t);
}

static void full(void **state)
{
	(void)state;
	struct mon_stack_table *t = mon_stack_table_new(16, 4);
	assert_non_null(t);
	uint64_t inserted = 0;
	for (uintptr_t k = 0; k < 100; k++) {
		uintptr_t pc = 0x1000 + k;
		mon_stack_table_add(t, 1, 0, &pc, 1, k + 1);
		inserted += k + 1;
	}
	/* A stack already there still counts when the table is full. */
	uintptr_t first = 0x1000;
	assert_int_equal(mon_stack_table_add(t, 1, 0, &first, 1, 3), 1);
	inserted += 3;
	struct seen s = seen_of(t);
	assert_int_equal(s.entries, 16);
	assert_int_equal(mon_stack_table_used(t), 16);
	assert_true(s.samples + mon_stack_table_lost(t) == inserted);
	assert_true(mon_stack_table_lost(t) > 0);
	mon_stack_table_free(t);
}

/* ---- several threads at once ---------------------------------------------- */

enum { THREADS = 4, ROUNDS = 100000, DISTINCT = 50 };

struct worker {
	struct mon_stack_table *t;
	unsigned id;
	uint64_t inserted, counted;
};

static void *insert_many(void *arg)
{
	struct worker *w = arg;
	uintptr_t pcs[6];
	uint64_t x = 0x9e3779b97f4a7c15u * (w->id + 1);
	for (unsigned r = 0; r < ROUNDS; r++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		unsigned k = (unsigned)(x % DISTINCT);
		for (unsigned i = 0; i < 6; i++)
			pcs[i] = 0x10000 + 0x100 * k + i;
		/* Half the stacks are shared by every thread (tid 0), half
		 * the thread's own. */
		uint64_t tid = (k & 1) ? w->id + 1 : 0;
		uint64_t weight = 1 + (x >> 60);
		w->inserted += weight;
		w->counted += (uint64_t)mon_stack_table_add(w->t, tid, 0, pcs, 6 - (k % 3), weight) *
			      weight;
	}
	return NULL;
}

static void run_workers(struct mon_stack_table *t, uint64_t *inserted, uint64_t *counted)
{
	pthread_t th[THREADS];
	struct worker w[THREADS];
	*inserted = *counted = 0;
	for (unsigned i = 0; i < THREADS; i++) {
		w[i] = (struct worker){ t, i, 0, 0 };
		assert_int_equal(pthread_create(&th[i], NULL, insert_many, &w[i]), 0);
	}
	for (unsigned i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		*inserted += w[i].inserted;
		*counted += w[i].counted;
	}
}

static void concurrent(void **state)
{
	(void)state;
	struct mon_stack_table *t = mon_stack_table_new(1024, 8);
	assert_non_null(t);
	uint64_t inserted, counted;
	run_workers(t, &inserted, &counted);
	struct seen s = seen_of(t);
	/* Room for all: every sample counted, exactly once. */
	assert_true(mon_stack_table_lost(t) == 0);
	assert_true(counted == inserted);
	assert_true(s.samples == inserted);
	/* 25 shared stacks + 25 per thread; a race may make a second entry
	 * of a stack (never more than one per thread racing). */
	unsigned distinct = DISTINCT / 2 + THREADS * (DISTINCT / 2);
	assert_true(s.entries >= distinct && s.entries <= distinct * THREADS);
	mon_stack_table_free(t);

	/* Too small for all: lost counts exactly the rest. */
	t = mon_stack_table_new(32, 8);
	assert_non_null(t);
	run_workers(t, &inserted, &counted);
	s = seen_of(t);
	assert_int_equal(s.entries, 32);
	assert_true(mon_stack_table_lost(t) > 0);
	assert_true(s.samples == counted);
	assert_true(s.samples + mon_stack_table_lost(t) == inserted);
	mon_stack_table_free(t);
}

/* Every thread inserts the same new stacks in the same order, released
 * together: they race for the same empty slots, all the time. */
enum { RACE_STACKS = 20000 };
static pthread_barrier_t race_start;

static void *race(void *arg)
{
	struct worker *w = arg;
	pthread_barrier_wait(&race_start);
	for (uintptr_t k = 0; k < RACE_STACKS; k++) {
		uintptr_t pcs[2] = { 0x500000 + k, 0x600000 };
		w->counted += (uint64_t)mon_stack_table_add(w->t, 0, 0, pcs, 2, 1);
		w->inserted++;
	}
	return NULL;
}

static void racing_claims(void **state)
{
	(void)state;
	struct mon_stack_table *t = mon_stack_table_new(RACE_STACKS * 2, 2);
	assert_non_null(t);
	pthread_t th[THREADS];
	struct worker w[THREADS];
	assert_int_equal(pthread_barrier_init(&race_start, NULL, THREADS), 0);
	for (unsigned i = 0; i < THREADS; i++) {
		w[i] = (struct worker){ t, i, 0, 0 };
		assert_int_equal(pthread_create(&th[i], NULL, race, &w[i]), 0);
	}
	uint64_t inserted = 0;
	for (unsigned i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		inserted += w[i].inserted;
	}
	pthread_barrier_destroy(&race_start);
	struct seen s = seen_of(t);
	print_message("%u entries for %u stacks inserted by %u threads\n", s.entries,
		      (unsigned)RACE_STACKS, (unsigned)THREADS);
	assert_true(mon_stack_table_lost(t) == 0);
	assert_true(s.samples == inserted);
	assert_true(s.entries >= RACE_STACKS && s.entries <= RACE_STACKS * THREADS);
	mon_stack_table_free(t);
}

/* ---- from signal handlers: a handler's insert interrupts another -------- */

static struct mon_stack_table *sig_table;
static uint64_t sig_inserted;

static void on_signal(int sig)
{
	(void)sig;
	uintptr_t pcs[3] = { 0x7000, 0x7100, (uintptr_t)syscall(SYS_gettid) };
	mon_stack_table_add(sig_table, 99, 0, pcs, 3, 1);
	__atomic_add_fetch(&sig_inserted, 1, __ATOMIC_RELAXED);
}

static void *signalled(void *arg)
{
	struct worker *w = arg;
	/* A CPU-time timer for this thread: signals land in the middle of
	 * its own inserts. */
	timer_t tm;
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGRTMIN + 1;
	ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &tm) == 0) {
		struct itimerspec its = { { 0, 50000 }, { 0, 50000 } };
		timer_settime(tm, 0, &its, NULL);
		/* Until this thread's handlers inserted 20 times (the timer
		 * fires on the thread's CPU time, at the kernel's tick). */
		for (int i = 0; i < 1000 && __atomic_load_n(&sig_inserted, __ATOMIC_RELAXED) <
							(w->id + 1) * 20; i++)
			insert_many(w);
		struct itimerspec off;
		memset(&off, 0, sizeof off);
		timer_settime(tm, 0, &off, NULL);
		timer_delete(tm);
	}
	return NULL;
}

static void in_handlers(void **state)
{
	(void)state;
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGRTMIN + 1, &sa, &old), 0);
	sig_table = mon_stack_table_new(4096, 8);
	assert_non_null(sig_table);
	pthread_t th[THREADS];
	struct worker w[THREADS];
	for (unsigned i = 0; i < THREADS; i++) {
		w[i] = (struct worker){ sig_table, i, 0, 0 };
		assert_int_equal(pthread_create(&th[i], NULL, signalled, &w[i]), 0);
	}
	uint64_t inserted = 0;
	for (unsigned i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		inserted += w[i].inserted;
	}
	sigaction(SIGRTMIN + 1, &old, NULL);
	struct seen s = seen_of(sig_table);
	uint64_t handled = __atomic_load_n(&sig_inserted, __ATOMIC_RELAXED);
	print_message("%llu inserts by threads, %llu by their signal handlers, %u entries\n",
		      (unsigned long long)inserted, (unsigned long long)handled, s.entries);
	assert_true(handled > 0);	/* the handlers did interrupt */
	assert_true(mon_stack_table_lost(sig_table) == 0);
	assert_true(s.samples == inserted + handled);
	mon_stack_table_free(sig_table);
}

/* Pages of [p, p + len) resident or mapped (mincore(2)); len page-aligned. */
static size_t resident(const void *p, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = len / page, k = 0;
	unsigned char *v = test_malloc(n);
	assert_int_equal(mincore((void *)(uintptr_t)p, len, v), 0);
	for (size_t i = 0; i < n; i++)
		k += v[i] & 1;
	test_free(v);
	return k;
}

/* A process that stored a few stacks in a large table reads only the
 * pages they are in when it writes them: a fork-per-connection server
 * writes a profile per connection (docs/performance.md, section 16).
 * Reading a page never written maps it (the zero page), which mincore(2)
 * counts: going through every slot made the 5 MiB of slots resident. */
static void readers_skip_unused(void **state)
{
	(void)state;
	struct mon_stack_table *t = mon_stack_table_new(65536, 8);
	assert_non_null(t);
	const void *slots;
	size_t len = mon_stack_table_slot_map(t, &slots);
	/* Page by page, as without transparent huge pages: one huge page
	 * would make 2 MiB resident at the first store. */
	madvise((void *)(uintptr_t)slots, len, MADV_NOHUGEPAGE);
	uintptr_t a[2] = { 0x1000, 0x2000 }, b[2] = { 0x1000, 0x2001 }, c[1] = { 0x3000 };
	assert_int_equal(mon_stack_table_add(t, 7, 0, a, 2, 1), 1);
	assert_int_equal(mon_stack_table_add(t, 7, 0, b, 2, 2), 1);
	assert_int_equal(mon_stack_table_add(t, 8, 0, c, 1, 3), 1);
	size_t before = resident(slots, len);
	struct seen s = seen_of(t);
	size_t after = resident(slots, len);
	print_message("slot pages %zu: resident %zu after the inserts, %zu after the read\n",
		      len / (size_t)sysconf(_SC_PAGESIZE), before, after);
	assert_int_equal(s.entries, 3);
	assert_true(s.samples == 6);
	/* A group of 64 slots (2560 bytes) lies in at most 2 pages. */
	assert_true(after <= before + 2 * 3);
	mon_stack_table_free(t);
}

/* The calling thread's minor page faults so far (getrusage(2)). */
static long minor_faults(void)
{
	struct rusage ru;
	assert_int_equal(getrusage(RUSAGE_THREAD, &ru), 0);
	return ru.ru_minflt;
}

/* A stack's first store touches its slot's page by a write, never a read
 * first: a page first read is mapped to the kernel's zero page and the
 * write after it is a second fault, which replaces that page and flushes
 * it from the TLB of every CPU the process runs on (1 to 3.5 ms of a
 * handler in a VM: the itimer clock's next tick then reached a sleeping
 * thread, monrun_itimer_stolen.sh itimer_runtime_no_eintr, 10 runs of 40).
 * So one insert into a fresh table faults twice at most (its slot's page
 * and its PCs' page), a second once.  Mutation: state_of a plain load (or
 * an atomic OR of 0, which GCC compiles to a load and a compare-and-swap):
 * 3 and 2 faults.  Under a
 * sanitizer the shadow memory's own faults are counted too: skipped. */
static void first_access_writes(void **state)
{
	(void)state;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	print_message("skipped: a sanitizer's shadow memory faults too\n");
	skip();
#endif
	uintptr_t pcs[3] = { 0x1000, 0x2000, 0x3000 };
	/* The code and this thread's stack first, in a table of their own. */
	struct mon_stack_table *warm = mon_stack_table_new(16384, 8);
	assert_non_null(warm);
	assert_int_equal(mon_stack_table_add(warm, 1, 0, pcs, 3, 1), 1);
	struct mon_stack_table *t = mon_stack_table_new(16384, 8);
	assert_non_null(t);
	const void *slots;
	size_t len = mon_stack_table_slot_map(t, &slots);
	madvise((void *)(uintptr_t)slots, len, MADV_NOHUGEPAGE);
	long f0 = minor_faults();
	assert_int_equal(mon_stack_table_add(t, 1, 0, pcs, 3, 1), 1);
	long f1 = minor_faults();
	/* Another stack: another slot's page, the same page of PCs. */
	uintptr_t more[3] = { 0x1000, 0x2000, 0x3001 };
	assert_int_equal(mon_stack_table_add(t, 1, 0, more, 3, 1), 1);
	long f2 = minor_faults();
	print_message("page faults: %ld for a fresh table's first stack, %ld for its second\n",
		      f1 - f0, f2 - f1);
	assert_true(f1 - f0 <= 2);
	assert_true(f2 - f1 <= 1);
	mon_stack_table_free(warm);
	mon_stack_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sizes),
		cmocka_unit_test(merged),
		cmocka_unit_test(depth_cap),
		cmocka_unit_test(full),
		cmocka_unit_test(concurrent),
		cmocka_unit_test(racing_claims),
		cmocka_unit_test(in_handlers),
		cmocka_unit_test(readers_skip_unused),
		cmocka_unit_test(first_access_writes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
