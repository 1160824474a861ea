/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * runfacts.c — what the samples can be measured against: each thread's
 * user and system CPU as the kernel counted it, the samples each thread
 * took, and the elapsed (wall-clock) time of the profiled run.
 *
 * A report can only say how much of the program's CPU its samples cover if
 * the profile holds that CPU: getrusage(RUSAGE_SELF) gives the process's
 * total, but a thread that was never sampled (it blocked the clock's signal,
 * or ran before the clock was armed in it) shows only when the profile
 * lists the threads with their CPU and their samples side by side.
 *
 * The table is a fixed array of struct monout_thread in mapped memory
 * (written to mon.out as it is).  A thread claims an entry with one atomic
 * add the first time it takes a tick (in the signal handler: async-signal-
 * safe, no lock), when it ends (thread-specific-data destructor, through
 * threads.c), or when the writer finds it alive in /proc/self/task.  Its CPU
 * is filled when it ends (its CPU clock split as getrusage(RUSAGE_THREAD)
 * splits it: mon_facts_own_cpu) and, for
 * threads still alive, at each write: the thread's CPU clock (clock_gettime
 * of its CPU-time clock id, nanoseconds, user + system) split in the ratio
 * of /proc/self/task/TID/stat's utime and stime (proc(5)).  Everything the
 * writer calls is async-signal-safe (open, read, getdents64, clock_gettime),
 * so a write from a fatal-signal handler lists the threads too.
 *
 * Interval profiles (control.c) reuse entries: once an ended thread's
 * entry is in an interval's file and the thread is gone (tgkill(2) with
 * signal 0 answers ESRCH, so no late tick can land in it), the writer
 * clears it and marks it free (tid FREE_TID); a thread that finds every
 * entry claimed takes a free one with one compare-and-swap.  A server that
 * starts a thread per connection then keeps every thread listed for as
 * long as it runs, as long as no more than MON_FACTS_MAX are alive at
 * once.  A thread without an entry is counted, once a file: at its end
 * (ended_unlisted) or, alive, by the write that found it (docs/mon.out.5's
 * threads_unlisted: the interval's threads that the file does not list).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "monrt.h"
#include "runfacts.h"

/* MONOUT_FACT_NEXT_*: why the image this one is about to exec will not be
 * profiled (mon_facts_next_image: follow.c's look at its file). */
static uint32_t next_image_flags;

void mon_facts_next_image(uint32_t flags)
{
	__atomic_store_n(&next_image_flags, flags, __ATOMIC_RELAXED);
}

#define MON_FACTS_MAX 8192
#define FREE_TID UINT64_MAX	/* an entry given back (interval profiles) */
/* An entry the writer claimed for a live thread (adopt) while the thread
 * claimed one of its own: the thread keeps its own, and the writer's is
 * dropped (tid ABANDONED_TID, one compare-and-swap from tid, by whichever
 * side finds the pair first), never listed and given back by the writer.
 * Each side looks for the other's claim after making its own (a Dekker
 * pair: claim_order), so one of them finds it.  Left
 * as they were, the two entries listed one thread twice in every file while
 * it lived, and the threads without an entry one more (8192 + 210 in
 * tests/integ/threads_churn.sh's threads_many_count, 2 ASan runs of 12
 * beside two busy loops; its end in two files: 12 001 ended rows for
 * 12 000 threads, threads_churn_listed).  The writer that finds the pair
 * gives its entry back at once; one the thread dropped is given back by
 * the next interval's write (without intervals it stays unused).  Left
 * open: a thread preempted between its claim and its look, while the
 * writer lists entries past its own claim, is listed twice in that one
 * file. */
#define ABANDONED_TID (UINT64_MAX - 1)

static struct monout_thread *table;	/* MON_FACTS_MAX entries, mapped once */
static unsigned nused;			/* entries claimed from the end */
static unsigned nfree;			/* entries given back, tid FREE_TID */
static unsigned free_hint;		/* where claim's search for one starts */
static struct monout_thread *base;	/* mon_facts_put_window's: the last interval's counts */
static unsigned base_hi;		/* entries of base ever written: [0, base_hi) (the writer's) */
static unsigned ended_unlisted;		/* threads that ended without an entry */
/* The last ENDED_RING of them, by tid: a write that finds one still in the
 * task list (between its end and its exit) does not count it again.  A
 * thread takes its slot (ended_ring_head) and stores its tid before it is
 * counted in ended_unlisted: a write that read the count and then found
 * the thread in the task list missed it in the ring when the slot was
 * taken from the count and stored after, and counted the thread twice,
 * ended and alive (found reading the code for the double count that
 * ABANDONED_TID's race gave). */
#define ENDED_RING 4096u
static uint32_t ended_ring[ENDED_RING];
static unsigned ended_ring_head;	/* slots taken */
/* The claims' order: a thread's claim and the writer's adopt each end with
 * a sequentially consistent read-modify-write of it before looking for the
 * other's (ABANDONED_TID): one of the two comes second and sees the
 * other's (a fence would do, but gcc's ThreadSanitizer refuses
 * atomic_thread_fence). */
static unsigned claim_order;
/* Entry i was found alive by the write whose pass is stamp[i] (the writer's). */
static uint32_t *stamp;
static uint32_t pass_no;
/* Each entry's samples at the cut (mon_facts_cut_samples), for the
 * interval's file: read with RUN's counters, not later in the write,
 * which let a thread's samples exceed the file's (802 against 799). */
static uint64_t *snap;
static unsigned nsnap;		/* entries snap holds; 0: none taken */
/* Entries the writer claimed for live threads that had none (they had not
 * ticked yet): (tid << 32) | (entry + 1), 0 for an empty slot, at most
 * ADOPT_PROBE slots from the tid's hash.  The thread takes its entry from
 * here the first time it needs one (mine_as), so that it has one entry,
 * not two, and the one it ends in is given back. */
#define ADOPT_SLOTS 16384u
#define ADOPT_PROBE 32u
static uint64_t *adopt;
static unsigned nadopt;			/* slots in use */
static unsigned base_ended_unlisted;	/* ended_unlisted at the last interval's cut */
static uint64_t own_cut_usec;	/* mon_clock_own_usec at the last interval's cut */
static unsigned gen = 1;		/* changes in a fork child: TLS indexes are stale */
static uint64_t start_ns;		/* CLOCK_MONOTONIC at the start of profiling */
/* The process's user and system CPU used before that: the dynamic linker's
 * own work, the program's .preinit_array and the C library's own
 * initialization under monrun (which starts at the first library ld.so
 * initializes after the C library, autostart.c __gmon_start__), and
 * everything before a late monstartup(3), and the runtime's own start
 * (mon_facts_armed).  Kept apart because a clock that
 * counts user time only (the perf clock) must be judged against the user
 * part alone: with a phase spending 0.15 s user and 0.16 s system before
 * the start, the sum left the run's user CPU at "0 %" sampled. */
static uint64_t before_usec[2];
/* Profiling off (moncontrol(0), monctl off, a dormant start): the process
 * CPU used meanwhile, which no clock sampled, is written with the CPU
 * before the start (FACTS cpu_before_usec) so that prof judges coverage
 * over the CPU of the time profiling was on (mon_facts_profiling). */
static uint64_t off_usec[2];		/* process user, system CPU while off, the spells ended */
static uint64_t off_since_usec[2];	/* process CPU when the current spell began */
static int off_now;			/* in a spell off */
static uint64_t off_cut_usec[2];	/* off CPU at the last interval cut */
static int off_ever, off_in_window;	/* off at some time: in the run, since the last cut */
static long clk_tck = 100;

/* Defined only by a unit test (tests/unit/test_facts_claim.c), which runs
 * a tick inside mine_as's claim with it; the library leaves it undefined
 * (a weak reference: null, no call). */
MON_HIDDEN void mon_facts_claim_probe(void) __attribute__((weak));

static __thread struct {
	unsigned gen;
	unsigned idx;		/* entry + 1; 0: none yet */
	unsigned full;		/* gen in which the table was found full */
	unsigned claiming;	/* gen while mine_as claims outside a handler */
	uint64_t held, held_late;	/* ticks that came in that claim */
} self __attribute__((tls_model("initial-exec")));

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;
	if (clock_gettime(c, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t tv_usec(struct timeval tv);

void mon_facts_process_cpu(uint64_t v[2])
{
	struct rusage ru;
	v[0] = v[1] = 0;
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		v[0] = tv_usec(ru.ru_utime);
		v[1] = tv_usec(ru.ru_stime);
	}
}

void mon_facts_armed(void)
{
	uint64_t c[2];
	mon_facts_process_cpu(c);
	/* The rate check (mon_clock_check_rate, in the arming just done) has
	 * its own count in FACTS (check_usec), which prof adds to this one:
	 * not twice.  Its CPU is a spin, user time. */
	uint32_t asked, set, cost, flags, check = 0;
	mon_clock_facts(&asked, &set, &cost, &flags, &check);
	/* So has a dlopen's work another thread did meanwhile
	 * (mon_clock_own_usec; user and system alike, taken from user). */
	uint64_t own = check + mon_clock_own_usec();
	c[0] = c[0] > own ? c[0] - own : 0;
	before_usec[0] = c[0];
	before_usec[1] = c[1];
}

void mon_facts_profiling(int on)
{
	uint64_t c[2];
	mon_facts_process_cpu(c);
	if (!on && !off_now) {
		off_since_usec[0] = c[0];
		off_since_usec[1] = c[1];
		off_now = off_ever = off_in_window = 1;
	} else if (on && off_now) {
		for (int i = 0; i < 2; i++)
			off_usec[i] += c[i] > off_since_usec[i] ? c[i] - off_since_usec[i] : 0;
		off_now = 0;
	}
}

/* The process CPU of every spell off so far, the current one to now, less
 * cut (the last cut's, or zeros): user CPU alone under a clock that
 * samples user time only (flags: MONOUT_FACT_USER_ONLY), whose system time
 * prof already counts as not sampled. */
static uint64_t off_cpu_usec(uint32_t flags, const uint64_t cut[2], uint64_t out[2])
{
	uint64_t c[2] = { 0, 0 };
	if (off_now)
		mon_facts_process_cpu(c);
	for (int i = 0; i < 2; i++)
		out[i] = off_usec[i] + (off_now && c[i] > off_since_usec[i] ? c[i] - off_since_usec[i] : 0);
	uint64_t u = out[0] > cut[0] ? out[0] - cut[0] : 0;
	uint64_t s = out[1] > cut[1] ? out[1] - cut[1] : 0;
	return (flags & MONOUT_FACT_USER_ONLY) ? u : u + s;
}

/* The process's CPU when exec started this image, and the exec'ing
 * thread's (follow.c, MONPROF_EXEC): what the earlier images used, in
 * their own profiles.  The kernel's counts go on across exec(2): the
 * process's (getrusage RUSAGE_SELF) and the thread's (its CPU clock), and
 * the exec'ing thread is the new image's first, with the process's pid
 * (execve(2): "all threads other than the calling thread are destroyed",
 * and the caller takes the leader's pid). */
static uint64_t exec_usec[2], exec_thread_usec[2];
static pid_t exec_tid;		/* 0: no exec before this image */

void mon_facts_exec_cpu(const uint64_t process[2], const uint64_t thread[2])
{
	for (int i = 0; i < 2; i++) {
		exec_usec[i] = process[i];
		exec_thread_usec[i] = thread[i];
	}
	exec_tid = getpid();
}

static uint64_t less(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

void mon_facts_image_cpu(uint64_t v[2])
{
	mon_facts_process_cpu(v);
	v[0] = less(v[0], exec_usec[0]);
	v[1] = less(v[1], exec_usec[1]);
}

/* Thread tid's CPU read now as user, sys: this image's part. */
static void thread_since_exec(pid_t tid, uint64_t *user, uint64_t *sys)
{
	if (exec_tid == 0 || tid != exec_tid)
		return;
	*user = less(*user, exec_thread_usec[0]);
	*sys = less(*sys, exec_thread_usec[1]);
}

/* The CPU before the start that the clock could have seen: this image's,
 * the user part alone under a clock of user time only, as off_cpu_usec. */
static uint64_t before_cpu_usec(uint32_t flags)
{
	uint64_t u = less(before_usec[0], exec_usec[0]);
	uint64_t s = less(before_usec[1], exec_usec[1]);
	return u + ((flags & MONOUT_FACT_USER_ONLY) ? 0 : s);
}

int mon_facts_init(void)
{
	if (start_ns == 0) {
		start_ns = now_ns(CLOCK_MONOTONIC);
		mon_facts_process_cpu(before_usec);
	}
	long t = sysconf(_SC_CLK_TCK);
	if (t > 0)
		clk_tck = t;
	if (table != NULL)
		return 0;
	void *p = mmap(NULL, MON_FACTS_MAX * (sizeof *table + sizeof *stamp) +
				     ADOPT_SLOTS * sizeof *adopt,
		       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return mon_fail(ENOMEM);
	adopt = (uint64_t *)((char *)p + MON_FACTS_MAX * sizeof *table);
	stamp = (uint32_t *)(adopt + ADOPT_SLOTS);
	__atomic_store_n(&table, (struct monout_thread *)p, __ATOMIC_RELEASE);
	return 0;
}

static unsigned adopt_slot(pid_t tid, unsigned k)
{
	return ((uint32_t)tid * 2654435761u + k) % ADOPT_SLOTS;
}

/* The writer claimed entry i for live thread tid: leave it for the thread.
 * 0, or -1 when no slot was free (the entry is then the writer's to give
 * back: the thread would claim one of its own, unseen). */
static int adopt_put(pid_t tid, unsigned i)
{
	uint64_t v = (uint64_t)(uint32_t)tid << 32 | (uint64_t)(i + 1);
	/* Counted before the slot is filled (and slots are emptied before
	 * the count goes down), so nadopt is never below the slots in use:
	 * a fork between the two finds the table not empty. */
	__atomic_add_fetch(&nadopt, 1, __ATOMIC_RELAXED);
	for (unsigned k = 0; k < ADOPT_PROBE; k++) {
		uint64_t empty = 0;
		if (__atomic_compare_exchange_n(&adopt[adopt_slot(tid, k)], &empty, v, 0,
						__ATOMIC_RELEASE, __ATOMIC_RELAXED))
			return 0;
	}
	__atomic_sub_fetch(&nadopt, 1, __ATOMIC_RELAXED);
	return -1;
}

/* The writer takes back its slot for entry i of tid, if the thread never
 * took it: 1 if it did. */
static int adopt_cancel(pid_t tid, unsigned i)
{
	uint64_t v = (uint64_t)(uint32_t)tid << 32 | (uint64_t)(i + 1);
	for (unsigned k = 0; k < ADOPT_PROBE; k++) {
		uint64_t want = v;
		if (__atomic_compare_exchange_n(&adopt[adopt_slot(tid, k)], &want, 0, 0,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			__atomic_sub_fetch(&nadopt, 1, __ATOMIC_RELAXED);
			return 1;
		}
	}
	return 0;
}

/* The entry the writer claimed for tid, taken; NULL if none.  Async-signal-
 * safe: at most ADOPT_PROBE loads and one compare-and-swap. */
static struct monout_thread *adopt_take(pid_t tid)
{
	if (__atomic_load_n(&nadopt, __ATOMIC_RELAXED) == 0)
		return NULL;
	for (unsigned k = 0; k < ADOPT_PROBE; k++) {
		uint64_t *slot = &adopt[adopt_slot(tid, k)];
		uint64_t v = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
		if (v == 0 || (uint32_t)(v >> 32) != (uint32_t)tid)
			continue;
		if (!__atomic_compare_exchange_n(slot, &v, 0, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			continue;
		__atomic_sub_fetch(&nadopt, 1, __ATOMIC_RELAXED);
		unsigned i = (unsigned)(v & 0xffffffffu) - 1;
		if (i < MON_FACTS_MAX && __atomic_load_n(&table[i].tid, __ATOMIC_ACQUIRE) == (uint64_t)tid)
			return &table[i];
	}
	return NULL;
}

/* A free entry taken for tid (its fields were cleared when it was given
 * back); NULL when none is.  Async-signal-safe: one compare-and-swap an
 * entry, at most MON_FACTS_MAX loads. */
static struct monout_thread *claim_free(pid_t tid)
{
	unsigned from = __atomic_load_n(&free_hint, __ATOMIC_RELAXED);
	for (unsigned k = 0; k < MON_FACTS_MAX && __atomic_load_n(&nfree, __ATOMIC_ACQUIRE); k++) {
		unsigned i = (from + k) % MON_FACTS_MAX;
		uint64_t want = FREE_TID;
		if (__atomic_load_n(&table[i].tid, __ATOMIC_RELAXED) != FREE_TID ||
		    !__atomic_compare_exchange_n(&table[i].tid, &want, 0, 0, __ATOMIC_ACQUIRE,
						 __ATOMIC_RELAXED))
			continue;
		__atomic_sub_fetch(&nfree, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&free_hint, i + 1, __ATOMIC_RELAXED);
		__atomic_store_n(&table[i].tid, (uint64_t)tid, __ATOMIC_RELEASE);
		return &table[i];
	}
	return NULL;
}

/* Claim a new entry for tid; NULL when the table is full or not made. */
static struct monout_thread *claim(pid_t tid)
{
	if (__atomic_load_n(&table, __ATOMIC_RELAXED) == NULL)
		return NULL;
	unsigned i = __atomic_fetch_add(&nused, 1, __ATOMIC_RELAXED);
	if (i >= MON_FACTS_MAX) {
		__atomic_store_n(&nused, MON_FACTS_MAX, __ATOMIC_RELAXED);
		return claim_free(tid);
	}
	table[i].flags = 0;
	table[i].samples = 0;
	table[i].late = 0;
	__atomic_store_n(&table[i].tid, (uint64_t)tid, __ATOMIC_RELEASE);
	return &table[i];
}

/* An entry that holds a thread (not unclaimed, not given back). */
static int listed(uint64_t tid)
{
	return tid != 0 && tid != FREE_TID && tid != ABANDONED_TID;
}

/* Entry t, claimed for tid, dropped (ABANDONED_TID) if it still holds tid. */
static void abandon(struct monout_thread *t, pid_t tid)
{
	uint64_t want = (uint64_t)tid;
	__atomic_compare_exchange_n(&t->tid, &want, ABANDONED_TID, 0, __ATOMIC_ACQ_REL,
				    __ATOMIC_RELAXED);
}

/* Is thread tid of this process gone (tgkill(2) with signal 0: ESRCH)? */
static int gone(uint64_t tid)
{
	int e = errno;
	long r = syscall(SYS_tgkill, (long)getpid(), (long)tid, 0L);
	int g = r < 0 && errno == ESRCH;
	errno = e;
	return g;
}

/* Clear entry i and mark it free.  The writer's. */
static void release_entry(unsigned i)
{
	if (base != NULL)
		memset(&base[i], 0, sizeof base[i]);
	table[i].user_usec = table[i].sys_usec = 0;
	table[i].flags = 0;
	memset(table[i].name, 0, sizeof table[i].name);
	__atomic_store_n(&table[i].samples, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&table[i].late, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&table[i].tid, FREE_TID, __ATOMIC_RELEASE);
	__atomic_add_fetch(&nfree, 1, __ATOMIC_RELEASE);
}

/* Entry i's thread ended, its end is in a file, and base[i] holds it:
 * give the entry back if the thread is gone (not between its end, the TSD
 * destructor, and its exit, when a tick could still land in it).  The
 * writer's, under monitor.c's write lock. */
static void give_back(unsigned i)
{
	uint64_t tid = __atomic_load_n(&table[i].tid, __ATOMIC_ACQUIRE);
	if (listed(tid) && (table[i].flags & MONOUT_THREAD_ENDED) && gone(tid))
		release_entry(i);
}

/* Entry i holds a thread the last pass did not find alive (stamp): if the
 * thread is gone, either the writer claimed the entry for it and it ended
 * before taking it over (it ended in an entry of its own: this one is
 * given back unwritten; 1), or it ended without its end being recorded
 * (not through the TSD destructor): the entry is marked ended, to be
 * written once more and given back (0).  -1: alive, nothing done. */
static int vanished(unsigned i, uint64_t tid)
{
	if (stamp[i] == pass_no || !gone(tid))
		return -1;
	if (adopt_cancel((pid_t)tid, i)) {
		release_entry(i);
		return 1;
	}
	__atomic_fetch_or(&table[i].flags, MONOUT_THREAD_ENDED, __ATOMIC_RELEASE);
	return 0;
}

/* Does the writer's claim of entry i for tid wait in adopt, not taken? */
static int adopt_holds(pid_t tid, unsigned i)
{
	uint64_t v = (uint64_t)(uint32_t)tid << 32 | (uint64_t)(i + 1);
	for (unsigned k = 0; k < ADOPT_PROBE; k++)
		if (__atomic_load_n(&adopt[adopt_slot(tid, k)], __ATOMIC_ACQUIRE) == v)
			return 1;
	return 0;
}

/* As vanished(), for a write that changes no entry (the file written at
 * exit, a snapshot): 1 to leave entry i out (the writer's claim, never
 * taken: the thread ended in an entry of its own), 0 to write it ended
 * (gone without its end recorded), -1 alive.  Without it the file at
 * exit listed such entries as threads alive (threads_churn_last_main). */
static int vanished_peek(unsigned i, uint64_t tid)
{
	if (stamp[i] == pass_no || !gone(tid))
		return -1;
	return adopt_holds((pid_t)tid, i);
}

/* The calling thread's entry, claimed on first use (tid: the thread's id,
 * 0 to ask the kernel).  Async-signal-safe. */
static struct monout_thread *mine_as(pid_t tid)
{
	unsigned g = __atomic_load_n(&gen, __ATOMIC_RELAXED);
	if (self.gen == g && self.idx != 0)
		return &table[self.idx - 1];
	if (self.full == g && __atomic_load_n(&nfree, __ATOMIC_RELAXED) == 0)
		return NULL;
	if (tid == 0)
		tid = mon_gettid();
	/* A tick that comes while this thread claims (mine_as from a thread's
	 * end or a write, ticks not blocked) must not claim a second entry
	 * for it: mon_facts_tick holds its count, added once the entry is
	 * this thread's.  Without it the thread had two entries, one ended
	 * and one found gone later: two ended rows for one thread
	 * (threads_churn.sh threads_churn_listed), and a file that counted
	 * one thread more than there were (threads_many_count). */
	__atomic_store_n(&self.claiming, g, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	struct monout_thread *t = NULL;
	if (self.gen == g && self.idx != 0)	/* a tick claimed before ours began */
		t = &table[self.idx - 1];
	else if ((t = adopt_take(tid)) == NULL && (t = claim(tid)) != NULL) {
		/* The writer may have claimed one for us meanwhile: ours wins. */
		__atomic_fetch_add(&claim_order, 1, __ATOMIC_SEQ_CST);
		struct monout_thread *w = adopt_take(tid);
		if (w != NULL)
			abandon(w, tid);
	}
	if (mon_facts_claim_probe)
		mon_facts_claim_probe();
	if (t == NULL) {
		self.full = g;
	} else {
		self.gen = g;
		self.idx = (unsigned)(t - table) + 1;
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&self.claiming, 0, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/* No tick touches held now (claiming is cleared): it counts in t. */
	uint64_t held = self.held, held_late = self.held_late;
	self.held = self.held_late = 0;
	if (t != NULL && held) {
		if (held_late)	/* late before samples, as in mon_facts_tick */
			__atomic_add_fetch(&t->late, held_late, __ATOMIC_RELAXED);
		__atomic_add_fetch(&t->samples, held, __ATOMIC_RELAXED);
	}
	return t;
}

static struct monout_thread *mine(void)
{
	return mine_as(0);
}

void mon_facts_tick(uint64_t weight, int late)
{
	if (__atomic_load_n(&self.claiming, __ATOMIC_RELAXED) ==
	    __atomic_load_n(&gen, __ATOMIC_RELAXED)) {
		/* This thread is inside mine_as's claim (the tick came in it):
		 * held for it, added to the entry it gets. */
		self.held += weight;
		if (late)
			self.held_late += weight;
		return;
	}
	struct monout_thread *t = mine();
	if (t == NULL)
		return;
	if (late)	/* before samples: a write's late never exceeds its samples */
		__atomic_add_fetch(&t->late, weight, __ATOMIC_RELAXED);
	__atomic_add_fetch(&t->samples, weight, __ATOMIC_RELAXED);
}

static uint64_t tv_usec(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
}

/* The calling thread's CPU so far into *user and *sys, microseconds: the
 * precise total of its CPU clock (CLOCK_THREAD_CPUTIME_ID, the scheduler's
 * runtime) split in the ratio of getrusage(RUSAGE_THREAD)'s user and system
 * times, which the kernel samples at its tick: a thread that ran less than
 * a tick (4 ms at 250 Hz) had 0 s in both, and its CPU was counted as a
 * thread's that ended unseen.  -1 if neither could be read. */
int mon_facts_own_cpu(uint64_t *user, uint64_t *sys)
{
	struct rusage ru;
	int have_ru = getrusage(RUSAGE_THREAD, &ru) == 0;
	uint64_t ut = have_ru ? tv_usec(ru.ru_utime) : 0, st = have_ru ? tv_usec(ru.ru_stime) : 0;
	uint64_t total = now_ns(CLOCK_THREAD_CPUTIME_ID) / 1000u;
	if (total == 0) {
		if (!have_ru)
			return -1;
		total = ut + st;
	}
	*sys = ut + st ? (uint64_t)((unsigned __int128)total * st / (ut + st)) : 0;
	*user = total - *sys;
	return 0;
}

/* The calling thread's (tid) CPU in this image into *user and *sys,
 * microseconds: mon_facts_own_cpu less what it used before an exec
 * (thread_since_exec).  -1 if it could not be read. */
static int own_image_cpu(pid_t tid, uint64_t *user, uint64_t *sys)
{
	if (mon_facts_own_cpu(user, sys) < 0)
		return -1;
	thread_since_exec(tid, user, sys);
	return 0;
}

void mon_facts_thread_end(pid_t tid)
{
	int saved_errno = errno;
	struct monout_thread *t = mine_as(tid);
	uint64_t user, sys;
	if (t != NULL && own_image_cpu(tid ? tid : mon_gettid(), &user, &sys) == 0) {
		char name[MONOUT_THREAD_NAME_LEN] = { 0 };
		prctl(PR_GET_NAME, name, 0, 0, 0);
		memcpy(t->name, name, sizeof name);
		t->user_usec = user;
		t->sys_usec = sys;
		__atomic_store_n(&t->flags, MONOUT_THREAD_ENDED | MONOUT_THREAD_CPU, __ATOMIC_RELEASE);
	} else if (t == NULL && __atomic_load_n(&table, __ATOMIC_RELAXED) != NULL) {
		unsigned k = __atomic_fetch_add(&ended_ring_head, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&ended_ring[k % ENDED_RING], (uint32_t)(tid ? tid : mon_gettid()),
				 __ATOMIC_RELEASE);
		__atomic_fetch_add(&ended_unlisted, 1, __ATOMIC_RELEASE);
	}
	errno = saved_errno;
}

void mon_facts_reset(void)
{
	/* A fork child: only the forking thread exists, and its CPU and
	 * elapsed time start at the fork. */
	__atomic_add_fetch(&gen, 1, __ATOMIC_RELAXED);
	unsigned n = __atomic_load_n(&nused, __ATOMIC_RELAXED);
	if (table != NULL)
		memset(table, 0, (n < MON_FACTS_MAX ? n : MON_FACTS_MAX) * sizeof *table);
	__atomic_store_n(&nused, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&nfree, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&free_hint, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&ended_unlisted, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&ended_ring_head, 0, __ATOMIC_RELAXED);
	base_ended_unlisted = 0;
	own_cut_usec = 0;	/* (after the reset of mon_clock_own_usec in a fork child) */
	nsnap = 0;
	/* (a slot is 0 again when taken or cancelled: with none in use, as
	 * nearly always, the table is all zero and not touched at all) */
	if (adopt != NULL && __atomic_load_n(&nadopt, __ATOMIC_RELAXED) != 0)
		mon_zero_pages(adopt, ADOPT_SLOTS * sizeof *adopt);
	__atomic_store_n(&nadopt, 0, __ATOMIC_RELAXED);
	start_ns = now_ns(CLOCK_MONOTONIC);
	before_usec[0] = before_usec[1] = 0;	/* the child's CPU counts from the fork */
	exec_usec[0] = exec_usec[1] = 0;
	exec_tid = 0;
	/* and its spells off: one goes on if the parent's did */
	off_usec[0] = off_usec[1] = off_cut_usec[0] = off_cut_usec[1] = 0;
	off_ever = off_in_window = off_now;
	if (off_now)
		mon_facts_process_cpu(off_since_usec);
	if (base != NULL && base_hi) {	/* (an unfollowed child of a series before its first cut: untouched) */
		mon_zero_pages(base, base_hi * sizeof *base);
		base_hi = 0;
	}
}

/* Read a small file into buf (NUL-terminated); length or -1. */
static ssize_t read_small(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t len = 0;
	while (len + 1 < cap) {
		ssize_t k = read(fd, buf + len, cap - 1 - len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		len += (size_t)k;
	}
	close(fd);
	buf[len] = '\0';
	return (ssize_t)len;
}

/* Fill t (thread tid, alive) with its CPU now, its name too. */
static void sample_live(struct monout_thread *t, pid_t tid)
{
	char path[64], buf[512];
	char *p = memcpy(path, "/proc/self/task/", 16);
	p = mon_put_dec(p + 16, (uint64_t)tid);
	memcpy(p, "/stat", 6);
	if (read_small(path, buf, sizeof buf) <= 0)
		return;
	/* "tid (comm) state ppid ..." : comm may hold spaces and parentheses;
	 * the fields after it start at the last ')'. */
	char *open_p = strchr(buf, '('), *close_p = strrchr(buf, ')');
	if (open_p == NULL || close_p == NULL || close_p < open_p)
		return;
	size_t nl = (size_t)(close_p - open_p - 1);
	if (nl > MONOUT_THREAD_NAME_LEN - 1)
		nl = MONOUT_THREAD_NAME_LEN - 1;
	char name[MONOUT_THREAD_NAME_LEN] = { 0 };
	memcpy(name, open_p + 1, nl);
	/* Fields 3.. after ')': state(3) ... utime(14) stime(15). */
	uint64_t f[16] = { 0 };
	int field = 2;
	for (char *c = close_p + 1; *c && field < 15;) {
		while (*c == ' ')
			c++;
		if (!*c)
			break;
		field++;
		uint64_t v = 0;
		while (*c && *c != ' ') {
			if (*c >= '0' && *c <= '9')
				v = v * 10 + (uint64_t)(*c - '0');
			c++;
		}
		if (field < 16)
			f[field] = v;
	}
	uint64_t ut = f[14], st = f[15];
	/* The precise total from the thread's CPU clock (the kernel's
	 * encoding behind pthread_getcpuclockid: ~tid << 3 | CPUCLOCK_SCHED |
	 * per-thread), split in the ratio of the tick-sampled utime/stime, as
	 * getrusage(2) itself does. */
	clockid_t clk = (clockid_t)((~(unsigned)tid) << 3) | 6;
	uint64_t total = now_ns(clk) / 1000u;
	if (total == 0)
		total = (ut + st) * 1000000u / (uint64_t)clk_tck;
	uint64_t sys = ut + st ? (uint64_t)((unsigned __int128)total * st / (ut + st)) : 0;
	/* The thread may have ended meanwhile: its own figures (getrusage at
	 * its end) stand, and its ENDED flag is never taken away. */
	if (__atomic_load_n(&t->flags, __ATOMIC_ACQUIRE) & MONOUT_THREAD_ENDED)
		return;
	uint64_t user = total - sys;
	thread_since_exec(tid, &user, &sys);
	memcpy(t->name, name, sizeof name);
	t->user_usec = user;
	t->sys_usec = sys;
	__atomic_fetch_or(&t->flags, MONOUT_THREAD_CPU, __ATOMIC_RELEASE);
}

/* Did thread tid end without an entry lately (its end already counted)? */
static int ended_lately(pid_t tid)
{
	unsigned n = __atomic_load_n(&ended_ring_head, __ATOMIC_ACQUIRE);
	for (unsigned k = 0; k < n && k < ENDED_RING; k++)
		if (__atomic_load_n(&ended_ring[k], __ATOMIC_RELAXED) == (uint32_t)tid)
			return 1;
	return 0;
}

struct sample_pass {
	pid_t me;		/* the writing thread */
	unsigned unlisted;	/* live threads found without an entry */
};

/* mon_task_each's callback: thread tid's entry up to date. */
static void sample_one(pid_t tid, void *arg)
{
	struct sample_pass *pass = arg;
	pid_t me = pass->me;
	if (tid == __atomic_load_n(&mon_runtime_tid, __ATOMIC_RELAXED) ||
	    tid == __atomic_load_n(&mon_control_tid, __ATOMIC_RELAXED))
		return;	/* the wall sampler is in WALL, the control thread in
			 * INTERVAL, not here */
	struct monout_thread *t = NULL;
	unsigned used = __atomic_load_n(&nused, __ATOMIC_ACQUIRE);
	for (unsigned i = used < MON_FACTS_MAX ? used : MON_FACTS_MAX; i-- > 0;)
		if (__atomic_load_n(&table[i].tid, __ATOMIC_ACQUIRE) == (uint64_t)tid) {
			if (table[i].flags & MONOUT_THREAD_ENDED)
				return;	/* ended, not yet gone from the task list */
			t = &table[i];
			break;
		}
	if (t == NULL && tid == me) {
		t = mine();
	} else if (t == NULL && (t = claim(tid)) != NULL) {
		unsigned mi = (unsigned)(t - table);
		if (adopt_put(tid, mi) < 0) {
			release_entry(mi);	/* counted as without one, below */
			t = NULL;
		} else {
			/* The thread may have claimed one of its own meanwhile
			 * (it found no claim of ours), and even ended in it:
			 * its own wins (mine_as). */
			__atomic_fetch_add(&claim_order, 1, __ATOMIC_SEQ_CST);
			used = __atomic_load_n(&nused, __ATOMIC_ACQUIRE);
			for (unsigned i = used < MON_FACTS_MAX ? used : MON_FACTS_MAX; i-- > 0;) {
				if (i == mi ||
				    __atomic_load_n(&table[i].tid, __ATOMIC_ACQUIRE) != (uint64_t)tid)
					continue;
				if (!adopt_cancel(tid, mi))
					abandon(t, tid);	/* taken by the thread, which drops it too */
				release_entry(mi);
				if (table[i].flags & MONOUT_THREAD_ENDED)
					return;	/* as above: ended, not yet gone */
				t = &table[i];
				break;
			}
		}
	}
	if (t != NULL) {
		stamp[t - table] = pass_no;
		sample_live(t, tid);
	} else if (!ended_lately(tid)) {
		pass->unlisted++;
	}
}

/* Bring every live thread's entry up to date; the number of live threads
 * that have none (the table full). */
static unsigned sample_all(void)
{
	int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	char buf[2048] __attribute__((aligned(8)));
	struct sample_pass pass = { mon_gettid(), 0 };
	pass_no++;
	mon_task_each(fd, buf, sizeof buf, sample_one, &pass);
	close(fd);
	/* The writing thread itself, as a thread at its end.  Not the
	 * runtime's own threads (their CPU is the profiler's cost, in WALL
	 * and INTERVAL). */
	pid_t me = pass.me;
	if (me == __atomic_load_n(&mon_runtime_tid, __ATOMIC_RELAXED) ||
	    me == __atomic_load_n(&mon_control_tid, __ATOMIC_RELAXED))
		return pass.unlisted;
	struct monout_thread *t = mine();
	uint64_t user, sys;
	if (t != NULL && own_image_cpu(me, &user, &sys) == 0) {
		t->user_usec = user;
		t->sys_usec = sys;
	}
	return pass.unlisted;
}


int mon_facts_window_init(void)
{
	if (base != NULL)
		return 0;
	void *p = mmap(NULL, MON_FACTS_MAX * (sizeof *base + sizeof *snap), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return mon_fail(ENOMEM);
	snap = (uint64_t *)((struct monout_thread *)p + MON_FACTS_MAX);
	base = p;
	return 0;
}

void mon_facts_cut_samples(void)
{
	if (table == NULL || snap == NULL)
		return;
	unsigned n = __atomic_load_n(&nused, __ATOMIC_ACQUIRE);
	n = n < MON_FACTS_MAX ? n : MON_FACTS_MAX;
	for (unsigned i = 0; i < n; i++)
		snap[i] = __atomic_load_n(&table[i].samples, __ATOMIC_RELAXED);
	nsnap = n ? n : 1;
}

/* CLOCK_MONOTONIC now (ns), and CLOCK_REALTIME at the same instant in
 * *real (the two read back to back). */
static uint64_t now_pair(uint64_t *real)
{
	uint64_t m = now_ns(CLOCK_MONOTONIC);
	*real = now_ns(CLOCK_REALTIME);
	return m;
}

/* The SPAN record: the profile ended at end_real (CLOCK_REALTIME ns) after
 * elapsed_usec.  Readers place a process tree's files on one time axis
 * with it (RUN's time is whole seconds). */
static int put_span(struct monout_writer *w, uint64_t end_real, uint64_t elapsed_usec)
{
	struct monout_span sp = { 0, end_real };
	uint64_t el = elapsed_usec * 1000u;
	sp.start_ns = end_real > el ? end_real - el : 0;
	return monout_put_span(w, &sp);
}

int mon_facts_put_window(struct monout_writer *w, const struct mon_facts_window *win)
{
	unsigned cut_n = nsnap;	/* this write's: the next cut takes its own */
	nsnap = 0;
	struct monout_facts f;
	memset(&f, 0, sizeof f);
	uint64_t real, mono = now_pair(&real), now = mono;
	/* The interval's own span, as INTERVAL's start and end say: not the
	 * time this write takes (reading every thread's stat, 0.6 s for 8400
	 * threads), which is the next interval's. */
	if (win->until_ns && win->until_ns < now)
		now = win->until_ns;
	f.elapsed_usec = now > win->since_ns ? (now - win->since_ns) / 1000u : 0;
	if (put_span(w, real - (mono - now), f.elapsed_usec) < 0)
		return -1;
	mon_clock_facts(&f.rate_asked, &f.rate_set, &f.tick_cost_ns, &f.flags, &f.check_usec);
	f.flags |= __atomic_load_n(&next_image_flags, __ATOMIC_RELAXED);
	uint64_t off[2];
	f.cpu_before_usec = (win->first ? before_cpu_usec(f.flags) : 0) + off_cpu_usec(f.flags, off_cut_usec, off);
	if (!win->first)
		f.check_usec = 0;	/* the rate check ran in the first interval */
	/* The runtime's own work in the program's threads since the last cut
	 * (mon_clock_own_begin: a dlopen's objects), not sampled by design:
	 * FACTS counts it with the rate check. */
	uint64_t own = mon_clock_own_usec();
	f.check_usec += (uint32_t)(own > own_cut_usec ? own - own_cut_usec : 0);
	if (win->advance)
		own_cut_usec = own;
	if (off_in_window || off_now)
		f.flags |= MONOUT_FACT_PROFILING_OFF;
	if (win->advance) {
		off_cut_usec[0] = off[0];
		off_cut_usec[1] = off[1];
		off_in_window = off_now;
	}
	if (table == NULL)
		return monout_put_facts(w, &f);
	/* The ended count before the pass (acquire: their ring slots are
	 * seen by it), so that a thread counted there is not counted live. */
	unsigned ended = __atomic_load_n(&ended_unlisted, __ATOMIC_ACQUIRE);
	f.threads_unlisted = sample_all() + (ended - base_ended_unlisted);
	if (f.threads_unlisted)
		f.flags |= MONOUT_FACT_THREADS_FULL;
	if (win->advance)
		base_ended_unlisted = ended;
	if (monout_put_facts(w, &f) < 0 || monout_put_threads_open(w) < 0)
		return -1;
	unsigned n = __atomic_load_n(&nused, __ATOMIC_ACQUIRE);
	n = n < MON_FACTS_MAX ? n : MON_FACTS_MAX;
	for (unsigned i = 0; i < n; i++) {
		struct monout_thread t = table[i];
		t.late = __atomic_load_n(&table[i].late, __ATOMIC_RELAXED);
		t.samples = __atomic_load_n(&table[i].samples, __ATOMIC_RELAXED);
		if (cut_n)	/* the cut's count; claimed since: its samples are the next file's */
			t.samples = i < cut_n ? snap[i] : 0;
		t.flags = __atomic_load_n(&table[i].flags, __ATOMIC_ACQUIRE);
		if (t.tid == ABANDONED_TID && win->advance)
			release_entry(i);
		if (!listed(t.tid))
			continue;
		struct monout_thread was = { 0 };
		if (base != NULL && base[i].tid == t.tid)
			was = base[i];
		if (was.flags & MONOUT_THREAD_ENDED) {
			/* ended before this interval: in an earlier file */
			if (win->advance)
				give_back(i);
			continue;
		}
		if (!(t.flags & MONOUT_THREAD_ENDED)) {
			int v = win->advance && base != NULL ? vanished(i, t.tid)
							     : vanished_peek(i, t.tid);
			if (v == 1)
				continue;
			if (v == 0)
				t.flags |= MONOUT_THREAD_ENDED;
		}
		if (win->advance && base != NULL) {
			base[i] = t;
			base_hi = i + 1 > base_hi ? i + 1 : base_hi;
		}
		t.samples -= was.samples < t.samples ? was.samples : t.samples;
		t.late -= was.late < t.late ? was.late : t.late;
		t.late = t.late < t.samples ? t.late : t.samples;	/* the cut's samples */
		t.user_usec -= was.user_usec < t.user_usec ? was.user_usec : t.user_usec;
		t.sys_usec -= was.sys_usec < t.sys_usec ? was.sys_usec : t.sys_usec;
		if (monout_put_threads_add(w, &t) < 0)
			return -1;
		if (win->advance && base != NULL && (t.flags & MONOUT_THREAD_ENDED))
			give_back(i);
	}
	return monout_put_threads_close(w);
}

void mon_facts_window_advance(void)
{
	uint64_t off[2];
	off_cpu_usec(0, off_cut_usec, off);	/* an interval skipped: its time off is not the next one's */
	off_cut_usec[0] = off[0];
	off_cut_usec[1] = off[1];
	off_in_window = off_now;
	if (table == NULL || base == NULL)
		return;
	sample_all();
	unsigned n = __atomic_load_n(&nused, __ATOMIC_ACQUIRE);
	n = n < MON_FACTS_MAX ? n : MON_FACTS_MAX;
	base_ended_unlisted = __atomic_load_n(&ended_unlisted, __ATOMIC_RELAXED);
	base_hi = n > base_hi ? n : base_hi;
	for (unsigned i = 0; i < n; i++) {
		base[i] = table[i];
		base[i].late = __atomic_load_n(&table[i].late, __ATOMIC_RELAXED);
		base[i].samples = __atomic_load_n(&table[i].samples, __ATOMIC_RELAXED);
		base[i].flags = __atomic_load_n(&table[i].flags, __ATOMIC_ACQUIRE);
		if (base[i].flags & MONOUT_THREAD_ENDED)
			give_back(i);	/* its end falls in the time skipped */
	}
}

int mon_facts_put(struct monout_writer *w)
{
	struct monout_facts f;
	memset(&f, 0, sizeof f);
	uint64_t real, now = now_pair(&real);
	f.elapsed_usec = start_ns && now > start_ns ? (now - start_ns) / 1000u : 0;
	if (put_span(w, real, f.elapsed_usec) < 0)
		return -1;
	mon_clock_facts(&f.rate_asked, &f.rate_set, &f.tick_cost_ns, &f.flags, &f.check_usec);
	f.flags |= __atomic_load_n(&next_image_flags, __ATOMIC_RELAXED);
	f.check_usec += (uint32_t)mon_clock_own_usec();	/* a dlopen's objects (as above) */
	static const uint64_t none[2];
	uint64_t off[2];
	f.cpu_before_usec = before_cpu_usec(f.flags) + off_cpu_usec(f.flags, none, off);
	if (off_ever)
		f.flags |= MONOUT_FACT_PROFILING_OFF;
	if (table == NULL)
		return monout_put_facts(w, &f);
	unsigned ended = __atomic_load_n(&ended_unlisted, __ATOMIC_ACQUIRE);	/* first: as above */
	f.threads_unlisted = sample_all() + ended;
	if (f.threads_unlisted)
		f.flags |= MONOUT_FACT_THREADS_FULL;
	if (monout_put_facts(w, &f) < 0)
		return -1;
	if (monout_put_threads_open(w) < 0)
		return -1;
	unsigned n = __atomic_load_n(&nused, __ATOMIC_ACQUIRE);
	n = n < MON_FACTS_MAX ? n : MON_FACTS_MAX;
	for (unsigned i = 0; i < n; i++) {
		struct monout_thread t = table[i];
		t.flags = __atomic_load_n(&table[i].flags, __ATOMIC_ACQUIRE);
		if (!listed(t.tid))
			continue;
		int v = t.flags & MONOUT_THREAD_ENDED ? -1 : vanished_peek(i, t.tid);
		if (v == 1)
			continue;
		if (v == 0)
			t.flags |= MONOUT_THREAD_ENDED;
		if (monout_put_threads_add(w, &t) < 0)
			return -1;
	}
	return monout_put_threads_close(w);
}
