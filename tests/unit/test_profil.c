/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_profil.c — unit tests of the profil(2) sampling core (lib/profil.c):
 * the bin formula, the saturating bin increment, argument checking, the
 * scale semantics seen through real ticks, moving the histogram while on,
 * and a buffer that disappears while on.
 *
 * Links libmon.a, so it can reach the hidden helpers declared in runtime.h.
 * The in-process tests sample a loop written in assembly (profil_loop
 * below) whose exact addresses are known: 29 two-byte NOPs, dec, jnz, ret —
 * 64 bytes, so every PC a tick can interrupt lies in [L, L + 64), with 4 KiB
 * of int3 on either side that never runs.  A histogram placed around it must
 * receive every tick in the bins the contract's formula gives for that range.
 * Work is measured in thread CPU time; expected tick counts are
 * rate x CPU seconds (see the bounds at each check).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "mon.h"
#include "runtime.h"
#include "sampler.h"

/* The sampled loop: rdi iterations, 64 bytes, padded by 4 KiB of int3. */
void profil_loop(long iterations);
__asm__(".pushsection profil_loop_text,\"ax\",@progbits\n"
	"	.p2align 12\n"
	"	.skip 4096, 0xcc\n"
	"	.globl profil_loop\n"
	"	.hidden profil_loop\n"
	"	.type profil_loop, @function\n"
	"profil_loop:\n"
	"1:\n"
	"	.rept 29\n"
	"	.byte 0x66, 0x90\n" /* xchg %ax,%ax: a 2-byte NOP */
	"	.endr\n"
	"	dec %rdi\n"
	"	jnz 1b\n"
	"	ret\n"
	"	.size profil_loop, .-profil_loop\n"
	"	.skip 4096, 0xcc\n"
	"	.popsection\n");

#define LOOP_LEN 64

static double thread_cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Run profil_loop until this thread has used `seconds` of CPU time. */
static void spin_loop(double seconds)
{
	double t0 = thread_cpu();
	do
		profil_loop(20000);
	while (thread_cpu() - t0 < seconds);
}

/* NULL, hidden from the compiler: <unistd.h> declares profil's buffer
 * nonnull, but NULL is a documented argument (off, or EFAULT). */
static unsigned short *null_buf(void)
{
	unsigned short *p = NULL;
	__asm__("" : "+r"(p));
	return p;
}

static struct mon_stats stats(void)
{
	struct mon_stats st;
	assert_int_equal(mon_getstats(&st, sizeof st), 0);
	return st;
}

/* The bin by the contract's formula, exactly, in 128-bit arithmetic. */
static uint64_t ref_bin(uint64_t pc, uint64_t offset, unsigned scale)
{
	if (pc < offset)
		return UINT64_MAX;
	unsigned __int128 d = (pc - offset) / 2;
	return (uint64_t)((d * scale) >> 16);
}

static uint64_t sum_bins(const unsigned short *b, size_t lo, size_t hi)
{
	uint64_t s = 0;
	for (size_t i = lo; i < hi; i++)
		s += b[i];
	return s;
}

/* ---- 1. the bin formula ------------------------------------------------- */

static const unsigned scales[] = { 2, 3, 0x4000, 0x7fff, 0x8000, 0xc351, 0xffff, 0x10000 };

static void check_bin(uint64_t pc, uint64_t off, unsigned scale)
{
	uint64_t want = ref_bin(pc, off, scale), got = mon_pc_to_bin(pc, off, scale);
	if (got != want)
		fail_msg("pc %#llx offset %#llx scale %#x: bin %#llx, want %#llx",
			 (unsigned long long)pc, (unsigned long long)off, scale,
			 (unsigned long long)got, (unsigned long long)want);
}

static void test_pc_to_bin_table(void **state)
{
	(void)state;
	static const uint64_t offsets[] = { 0, 1, 0x400000, 0x7f0000000000ull,
					    0x8000000000000000ull, UINT64_MAX - 0x10000 };
	static const uint64_t deltas[] = {
		0, 1, 2, 3, 4, 5, 7, 8, 0xfffe, 0xffff, 0x10000, 0x10001, 0x1ffff, 0x20000,
		0x20001, 0x12345678, 0xffffffffull, 0x100000000ull, 0x1ffffffffffffull,
		0x7fffffffffffffffull, 0x8000000000000000ull, 0xfffffffffffffffeull,
		0xffffffffffffffffull,
	};
	for (size_t s = 0; s < sizeof scales / sizeof *scales; s++)
		for (size_t o = 0; o < sizeof offsets / sizeof *offsets; o++)
			for (size_t d = 0; d < sizeof deltas / sizeof *deltas; d++) {
				uint64_t off = offsets[o];
				if (deltas[d] > UINT64_MAX - off)
					continue;
				check_bin(off + deltas[d], off, scales[s]);
			}
	/* PCs at the very top of the address space. */
	for (size_t s = 0; s < sizeof scales / sizeof *scales; s++)
		for (uint64_t k = 0; k < 70000; k += 997) {
			check_bin(UINT64_MAX - k, 0, scales[s]);
			check_bin(UINT64_MAX - k, 0x1000, scales[s]);
		}
	/* Random PCs and offsets (xorshift64, fixed seed). */
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint64_t pc = x, off = (x * 0x2545f4914f6cdd1dull) >> (i % 64);
		check_bin(pc, off, scales[(unsigned)i % (sizeof scales / sizeof *scales)]);
	}
}

static void test_pc_below_offset(void **state)
{
	(void)state;
	for (size_t s = 0; s < sizeof scales / sizeof *scales; s++) {
		assert_true(mon_pc_to_bin(0x1000, 0x1001, scales[s]) == UINT64_MAX);
		assert_true(mon_pc_to_bin(0, UINT64_MAX, scales[s]) == UINT64_MAX);
		assert_true(mon_pc_to_bin(UINT64_MAX - 1, UINT64_MAX, scales[s]) == UINT64_MAX);
	}
}

/* The scale table of the contract, as bytes of text per bin. */
static void test_scale_bytes_per_bin(void **state)
{
	(void)state;
	const uint64_t off = 0x555555554000ull;
	struct {
		unsigned scale;
		uint64_t bytes;
	} t[] = { { 0x10000, 2 }, { 0x8000, 4 }, { 0x4000, 8 }, { 2, 65536 } };
	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		for (uint64_t n = 0; n < 1000; n++) {
			/* the first and the last byte of bin n map to n */
			assert_int_equal(mon_pc_to_bin(off + n * t[i].bytes, off, t[i].scale), n);
			assert_int_equal(mon_pc_to_bin(off + n * t[i].bytes + t[i].bytes - 1, off,
						       t[i].scale), n);
		}
	}
	/* 0xffff: 2 bytes per bin, falling behind by one bin per 65536 bins */
	for (uint64_t n = 0; n < 65536; n += 7) {
		uint64_t b = mon_pc_to_bin(off + 2 * n, off, 0xffff);
		assert_true(b == n || b + 1 == n);
	}
}

/* ---- 5. saturation ------------------------------------------------------ */

static void test_bin_add_saturates(void **state)
{
	(void)state;
	unsigned short bin = 0;
	assert_int_equal(mon_bin_add(&bin, 1), 0);
	assert_int_equal(bin, 1);
	bin = 65534;
	assert_int_equal(mon_bin_add(&bin, 1), 0);
	assert_int_equal(bin, 65535);
	assert_int_equal(mon_bin_add(&bin, 1), 1);
	assert_int_equal(bin, 65535);
	assert_int_equal(mon_bin_add(&bin, 7), 7);
	assert_int_equal(bin, 65535);
	bin = 65530;
	assert_int_equal(mon_bin_add(&bin, 10), 5);
	assert_int_equal(bin, 65535);
	bin = 100;
	assert_int_equal(mon_bin_add(&bin, 65435), 0);
	assert_int_equal(bin, 65535);
	bin = 0;
	assert_true(mon_bin_add(&bin, 1ull << 40) == (1ull << 40) - 65535);
	assert_int_equal(bin, 65535);
	bin = 12;
	assert_true(mon_bin_add(&bin, UINT64_MAX) == UINT64_MAX - (65535 - 12));
	assert_int_equal(bin, 65535);
	bin = 42;
	assert_int_equal(mon_bin_add(&bin, 0), 0);
	assert_int_equal(bin, 42);
}

#define NADD_BINS 64

struct adder {
	unsigned short *bins;	/* NADD_BINS of them */
	int n;			/* adds to each bin */
	uint64_t over;
	int *ready;
};

static void *add_many(void *p)
{
	struct adder *a = p;
	/* start together, so that the adds really overlap */
	__atomic_add_fetch(a->ready, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(a->ready, __ATOMIC_SEQ_CST) < 2)
		;
	for (int i = 0; i < a->n; i++)
		for (int b = 0; b < NADD_BINS; b++)
			a->over += mon_bin_add(&a->bins[b], 1);
	return NULL;
}

/* Two threads (this machine has two CPUs) add to the same 64 bins at once,
 * for milliseconds: nothing is lost, and past 65535 exactly the excess comes
 * back as "did not fit".  A plain read-modify-write loses thousands of adds
 * here. */
static void test_bin_add_concurrent(void **state)
{
	(void)state;
	for (int round = 0; round < 4; round++) {
		unsigned short bins[NADD_BINS];
		memset(bins, 0, sizeof bins);
		int ready = 0;
		int per = round % 2 ? 30000 : 45000; /* 60000 fits; 90000 does not */
		pthread_t t[2];
		struct adder a[2];
		for (int i = 0; i < 2; i++) {
			a[i] = (struct adder){ bins, per, 0, &ready };
			assert_int_equal(pthread_create(&t[i], NULL, add_many, &a[i]), 0);
		}
		uint64_t over = 0;
		for (int i = 0; i < 2; i++) {
			pthread_join(t[i], NULL);
			over += a[i].over;
		}
		uint64_t total = 2ull * (uint64_t)per;
		for (int b = 0; b < NADD_BINS; b++)
			assert_int_equal(bins[b], total <= 65535 ? total : 65535);
		assert_int_equal(over, total <= 65535 ? 0 : NADD_BINS * (total - 65535));
	}
}

/* ---- 2. argument checks and scale semantics (in process) ---------------- */

/* Place a histogram of nbins at offset/scale, spin in the loop, turn off. */
static void sample_loop(unsigned short *buf, size_t nbins, uintptr_t offset, unsigned scale,
			double seconds)
{
	memset(buf, 0, nbins * 2);
	assert_int_equal(profil(buf, nbins * 2, offset, scale), 0);
	spin_loop(seconds);
	assert_int_equal(profil(null_buf(), 0, 0, 0), 0);
}

/*
 * For each scale, a histogram whose bin 0 starts some way below the loop:
 * every tick must land in the bins the formula gives for [L, L + 64), and
 * there must be ticks.  Bound: 0.1 s of CPU at rate r gives mu = 0.1 r
 * ticks; the perf clock ticks at r itself, the others at the kernel tick
 * (>= 100 Hz) with one signal standing for up to w = r / 100 periods, so
 * counting each signal as an independent draw the count has variance
 * <= w mu, and we want at least max(1, mu - 5 sqrt(w mu)).  For scale 2 a
 * bin covers 64 KiB, which takes in the caller too, so there the loop's
 * bin must hold at least 90 % of them.
 */
static void test_scale_semantics(void **state)
{
	(void)state;
	const uintptr_t L = (uintptr_t)profil_loop;
	static const struct {
		unsigned scale;
		uint64_t below;	/* bytes of text between offset and L */
	} t[] = {
		{ 0x10000, 200 }, { 0x10000, 202 }, { 0xffff, 200 }, { 0x8000, 400 },
		{ 0x8000, 402 }, { 0x4000, 800 }, { 0x4000, 804 }, { 0x7fff, 398 },
		{ 0xc351, 262 }, { 2, 3 * 65536 + 4096 },
	};
	static unsigned short buf[1024];
	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		uintptr_t off = L - t[i].below;
		uint64_t lo = ref_bin(L, off, t[i].scale);
		uint64_t hi = ref_bin(L + LOOP_LEN - 1, off, t[i].scale);
		size_t nbins = (size_t)hi + 1 + 100;
		assert_true(nbins <= sizeof buf / 2);
		memset(buf, 0, nbins * 2);
		assert_int_equal(profil(buf, nbins * 2, off, t[i].scale), 0);
		struct mon_stats st = stats();
		spin_loop(0.1);
		assert_int_equal(profil(null_buf(), 0, 0, 0), 0);
		uint64_t all = sum_bins(buf, 0, nbins), in = sum_bins(buf, lo, hi + 1);
		double mu = 0.1 * st.rate_hz, w = st.clock == MON_CLOCK_PERF ? 1 : st.rate_hz / 100.0;
		if (w < 1)
			w = 1;
		/* all < mu - 5 sqrt(w mu), squared (no libm here) */
		double gap = mu - (double)all;
		int too_few = all < 1 || (gap > 0 && gap * gap > 25 * w * mu);
		if (too_few || (t[i].scale == 2 ? in < 0.9 * all : in != all))
			fail_msg("scale %#x, offset L-%llu: %llu ticks in bins %llu..%llu, %llu in "
				 "all (expected ~%.0f, weight %.0f per signal)",
				 t[i].scale, (unsigned long long)t[i].below, (unsigned long long)in,
				 (unsigned long long)lo, (unsigned long long)hi,
				 (unsigned long long)all, mu, w);
	}
	/* With 2 bytes per bin the ticks spread over several of the loop's
	 * 32 bins (the CPU stops at many of its instructions), so a formula
	 * that lumped them into fewer bins would show. */
	sample_loop(buf, 200, L - 200, 0x10000, 0.2);
	int used = 0;
	for (size_t b = 100; b < 132; b++)
		used += buf[b] != 0;
	assert_true(used >= 2);
}

static void test_scale_off_and_too_big(void **state)
{
	(void)state;
	static unsigned short buf[512];
	const uintptr_t off = (uintptr_t)profil_loop - 200;
	struct sigaction before, after;
	int sig = SIGRTMAX - 6;
	sigaction(sig, NULL, &before);

	/* While off, scale > 65536 is EINVAL and nothing starts. */
	errno = 0;
	assert_int_equal(profil(buf, sizeof buf, off, 65537), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(profil(buf, sizeof buf, off, UINT32_MAX), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(stats().on, 0);
	assert_int_equal(stats().clock, MON_CLOCK_NONE);

	/* While on: EINVAL, and sampling goes on into the same histogram. */
	memset(buf, 0, sizeof buf);
	assert_int_equal(profil(buf, sizeof buf, off, 0x10000), 0);
	int clock = stats().clock;
	assert_int_not_equal(clock, MON_CLOCK_NONE);
	errno = 0;
	assert_int_equal(profil(buf, sizeof buf, off, 0x10001), -1);
	assert_int_equal(errno, EINVAL);
	struct mon_stats st = stats();
	assert_int_equal(st.on, 1);
	assert_int_equal(st.clock, clock);
	spin_loop(0.1);
	assert_true(sum_bins(buf, 0, 256) > 0);

	/* scale 1 and scale 0 turn profiling off; ticks stop. */
	for (unsigned s = 0; s < 2; s++) {
		assert_int_equal(profil(buf, sizeof buf, off, 0x10000), 0);
		spin_loop(0.02);
		assert_int_equal(profil(buf, sizeof buf, off, s), 0);
		st = stats();
		assert_int_equal(st.on, 0);
		assert_int_equal(st.clock, MON_CLOCK_NONE);
		uint64_t n = sum_bins(buf, 0, 256), samples = st.samples;
		spin_loop(0.05);
		assert_int_equal(sum_bins(buf, 0, 256), n);
		assert_int_equal(stats().samples, samples);
	}
	sigaction(sig, NULL, &after);
	assert_ptr_equal(after.sa_handler, before.sa_handler);
	assert_int_equal(after.sa_flags, before.sa_flags);
}

/* bufsiz 0 (and 1: no whole bin) is accepted and counts nothing. */
static void test_bufsiz_zero(void **state)
{
	(void)state;
	unsigned short buf[4] = { 0, 0, 0, 0 };
	for (size_t size = 0; size < 2; size++) {
		struct mon_stats st0 = stats();
		assert_int_equal(profil(size ? buf : null_buf(), size, 0, 0x10000), 0);
		assert_int_equal(stats().on, 1);
		spin_loop(0.1);
		assert_int_equal(profil(null_buf(), 0, 0, 0), 0);
		struct mon_stats st1 = stats();
		assert_int_equal(st1.counted, st0.counted);
		assert_true(st1.samples > st0.samples);
		assert_true(st1.dropped > st0.dropped);
		assert_int_equal(buf[0], 0);
	}
}

/* ---- 3. unwritable buffers ----------------------------------------------- */

static void test_efault_leaves_state(void **state)
{
	(void)state;
	long pg = sysconf(_SC_PAGESIZE);
	const uintptr_t off = (uintptr_t)profil_loop - 200;
	unsigned short *ro = mmap(NULL, (size_t)pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned short *none = mmap(NULL, (size_t)pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	/* two pages, the second read-only: only part of the buffer is writable */
	unsigned short *half = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(ro != MAP_FAILED && none != MAP_FAILED && half != MAP_FAILED);
	assert_int_equal(mprotect((char *)half + pg, (size_t)pg, PROT_READ), 0);
	static unsigned short good[256];
	struct {
		unsigned short *buf;
		size_t size;
		int err;
	} bad[] = {
		{ null_buf(), 512, EFAULT },
		{ ro, 512, EFAULT },
		{ none, 512, EFAULT },
		{ half, 2 * (size_t)pg, EFAULT },
		{ (unsigned short *)((char *)half + pg - 2), 4, EFAULT },
		{ (unsigned short *)((char *)good + 1), 64, EINVAL },
	};

	for (int on = 0; on < 2; on++) {
		memset(good, 0, sizeof good);
		if (on)
			assert_int_equal(profil(good, sizeof good, off, 0x10000), 0);
		struct mon_stats st0 = stats();
		for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
			errno = 0;
			if (profil(bad[i].buf, bad[i].size, off, 0x10000) != -1 || errno != bad[i].err)
				fail_msg("case %zu (profiling %s): want -1/%d, got errno %d", i,
					 on ? "on" : "off", bad[i].err, errno);
			struct mon_stats st = stats();
			assert_int_equal(st.on, st0.on);
			assert_int_equal(st.clock, st0.clock);
		}
		spin_loop(0.1);
		if (on) {
			/* still counting into the previous buffer */
			assert_true(sum_bins(good, 0, 256) > 0);
			assert_int_equal(profil(null_buf(), 0, 0, 0), 0);
		} else {
			assert_int_equal(sum_bins(good, 0, 256), 0);
			assert_int_equal(stats().samples, st0.samples);
		}
	}
	munmap(ro, (size_t)pg);
	munmap(none, (size_t)pg);
	munmap(half, 2 * (size_t)pg);
}

/* The buffer is unmapped (or write-protected) while on: the program runs on,
 * profiling has turned itself off (faulted), and a later profil() works. */
static void test_buffer_vanishes(void **state)
{
	(void)state;
	long pg = sysconf(_SC_PAGESIZE);
	const uintptr_t off = (uintptr_t)profil_loop - 200;
	for (int how = 0; how < 2; how++) {
		unsigned short *buf = mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE,
					   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		assert_true(buf != MAP_FAILED);
		assert_int_equal(profil(buf, (size_t)pg, off, 0x10000), 0);
		spin_loop(0.1);
		assert_true(sum_bins(buf, 0, 256) > 0);
		if (how == 0)
			assert_int_equal(munmap(buf, (size_t)pg), 0);
		else
			assert_int_equal(mprotect(buf, (size_t)pg, PROT_READ), 0);
		spin_loop(0.1);
		struct mon_stats st = stats();
		assert_int_equal(st.faulted, 1);
		assert_int_equal(st.on, 0);
		uint64_t counted = st.counted;
		spin_loop(0.02);
		assert_int_equal(stats().counted, counted);
		assert_int_equal(profil(null_buf(), 0, 0, 0), 0);
		if (how == 1)
			munmap(buf, (size_t)pg);
	}
	/* profiling starts again on a good buffer */
	static unsigned short good[256];
	assert_int_equal(profil(good, sizeof good, off, 0x10000), 0);
	spin_loop(0.1);
	struct mon_stats st = stats();
	assert_int_equal(st.faulted, 0);
	assert_int_equal(st.on, 1);
	assert_int_equal(profil(null_buf(), 0, 0, 0), 0);
	assert_true(sum_bins(good, 0, 256) > 0);
}

/* ---- 4. moving the histogram while on ------------------------------------ */

static void test_move_while_on(void **state)
{
	(void)state;
	static unsigned short a[256], b[256], a_copy[256];
	const uintptr_t L = (uintptr_t)profil_loop;
	memset(a, 0, sizeof a);
	memset(b, 0, sizeof b);
	assert_int_equal(profil(a, sizeof a, L - 200, 0x10000), 0);
	spin_loop(0.1);
	/* new buffer, offset and scale: 8 bytes per bin, L in bin 10 */
	assert_int_equal(profil(b, sizeof b, L - 80, 0x4000), 0);
	memcpy(a_copy, a, sizeof a);
	assert_true(sum_bins(a, 100, 132) > 0);
	spin_loop(0.1);
	struct mon_stats st = stats();
	assert_int_equal(st.on, 1);
	assert_int_equal(memcmp(a, a_copy, sizeof a), 0); /* the old one stopped */
	uint64_t in = sum_bins(b, 10, 18), all = sum_bins(b, 0, 256);
	assert_true(in > 0);
	assert_int_equal(in, all);
	/* and back to the first buffer, at a third offset */
	memcpy(a_copy, a, sizeof a);
	assert_int_equal(profil(a, sizeof a, L - 20, 0x10000), 0);
	uint64_t b_then = sum_bins(b, 0, 256);
	spin_loop(0.1);
	assert_int_equal(profil(null_buf(), 0, 0, 0), 0);
	assert_int_equal(sum_bins(b, 0, 256), b_then);
	assert_true(sum_bins(a, 10, 42) > sum_bins(a_copy, 10, 42));
}

/* ---- 5. turning on from off while ticks arrive -------------------------- */

/* Ticks offered by another thread at a PC inside the buffer's range, as
 * fast as it can, while this one turns profil() on and off with the same
 * buffer: a tick meets every moment of each change.  Turning on from off
 * and turning off change no buffer a tick could be writing to, so none may
 * be counted lost (it was: "on" was published inside the sequence lock's
 * odd window, and a tick there was lost; profil_onoff saw 1 in 10000). */
static int ticker_stop, ticker_started;

static void *ticker(void *arg)
{
	uintptr_t pc = *(const uintptr_t *)arg;
	__atomic_store_n(&ticker_started, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&ticker_stop, __ATOMIC_ACQUIRE))
		mon_sampler_tick(NULL, pc, 1);
	return NULL;
}

static void test_on_from_off_loses_nothing(void **state)
{
	(void)state;
	static unsigned short h[256];
	uintptr_t pc = (uintptr_t)profil_loop;
	memset(h, 0, sizeof h);
	struct mon_stats st0 = stats();
	pthread_t t;
	__atomic_store_n(&ticker_stop, 0, __ATOMIC_RELAXED);
	assert_int_equal(pthread_create(&t, NULL, ticker, &pc), 0);
	while (!__atomic_load_n(&ticker_started, __ATOMIC_ACQUIRE))
		sched_yield();
	int toggles = 0;
	/* 2000 changes at least, and on until the ticker hit an on-window
	 * (on one core it may run only between them). */
	for (; toggles < 2000 || (h[100] == 0 && toggles < 200000); toggles++) {
		assert_int_equal(profil(h, sizeof h, pc - 200, 0x10000), 0);
		assert_int_equal(profil(null_buf(), 0, 0, 0), 0);
	}
	__atomic_store_n(&ticker_stop, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(t, NULL), 0);
	struct mon_stats st = stats();
	print_message("%d changes: samples %llu, counted %llu, lost %llu; the PC's bin %u\n",
		      2 * toggles, (unsigned long long)(st.samples - st0.samples),
		      (unsigned long long)(st.counted - st0.counted),
		      (unsigned long long)(st.lost - st0.lost), h[100]);
	assert_true(h[100] > 0);	/* the ticker met profil() on */
	assert_int_equal(st.lost - st0.lost, 0);
	assert_int_equal(st.counted - st0.counted, sum_bins(h, 0, 256));
}

/* The same for sprofil(): a call while on turns it off, so each pair of
 * calls turns it on and off, with a 32-bit counter that does not
 * saturate. */
static void test_sprofil_on_from_off_loses_nothing(void **state)
{
	(void)state;
	static unsigned c[64];
	uintptr_t pc = (uintptr_t)profil_loop;
	memset(c, 0, sizeof c);
	struct prof r = { c, sizeof c, pc - 16, 0x10000 };	/* pc in counter 16 / 4 = 4 */
	struct mon_stats st0 = stats();
	pthread_t t;
	__atomic_store_n(&ticker_stop, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&ticker_started, 0, __ATOMIC_RELAXED);
	assert_int_equal(pthread_create(&t, NULL, ticker, &pc), 0);
	while (!__atomic_load_n(&ticker_started, __ATOMIC_ACQUIRE))
		sched_yield();
	int toggles = 0;
	for (; toggles < 2000 || (c[4] == 0 && toggles < 200000); toggles++) {
		assert_int_equal(sprofil(&r, 1, NULL, PROF_UINT), 0);
		assert_int_equal(sprofil(NULL, 0, NULL, 0), 0);
	}
	__atomic_store_n(&ticker_stop, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(t, NULL), 0);
	struct mon_stats st = stats();
	uint64_t all = 0;
	for (size_t i = 0; i < 64; i++)
		all += c[i];
	print_message("%d changes: counted %llu, lost %llu; the PC's counter %u\n", 2 * toggles,
		      (unsigned long long)(st.counted - st0.counted),
		      (unsigned long long)(st.lost - st0.lost), c[4]);
	assert_true(c[4] > 0);
	assert_int_equal(st.lost - st0.lost, 0);
	assert_int_equal(st.counted - st0.counted, all);
}

/* ---- 11. the counters ---------------------------------------------------- */

static void test_getstats(void **state)
{
	(void)state;
	errno = 0;
	assert_int_equal(mon_getstats(NULL, sizeof(struct mon_stats)), -1);
	assert_int_equal(errno, EFAULT);
	assert_string_equal(mon_clock_name(MON_CLOCK_NONE), "none");
	assert_string_equal(mon_clock_name(MON_CLOCK_PERF), "perf-cpu-clock");
	assert_string_equal(mon_clock_name(MON_CLOCK_THREAD), "thread-cputime");
	assert_string_equal(mon_clock_name(MON_CLOCK_ITIMER), "itimer-prof");
	assert_string_equal(mon_clock_name(42), "unknown");
	assert_string_equal(mon_clock_name(-1), "unknown");

	/* identity with ticks in range, out of range and saturated: a 2-bin
	 * histogram, bin 0 nearly full, covering only the first half of the
	 * loop's 64 bytes (0x10000: bins 0,1 = L..L+3) */
	static unsigned short h[2];
	h[0] = 65535 - 3;
	h[1] = 0;
	const uintptr_t L = (uintptr_t)profil_loop;
	struct mon_stats s0 = stats();
	assert_int_equal(profil(h, sizeof h, L, 0x10000), 0);
	spin_loop(0.2);
	assert_int_equal(profil(null_buf(), 0, 0, 0), 0);
	struct mon_stats s1 = stats();
	uint64_t samples = s1.samples - s0.samples, counted = s1.counted - s0.counted,
		 dropped = s1.dropped - s0.dropped, saturated = s1.saturated - s0.saturated,
		 lost = s1.lost - s0.lost;
	assert_true(samples > 0);
	assert_int_equal(samples, counted + dropped + saturated + lost);
	assert_true(dropped > 0);
	assert_int_equal(counted, (uint64_t)(h[0] - (65535 - 3)) + h[1]);
	assert_int_equal(s1.on, 0);
	assert_int_equal(s1.clock, MON_CLOCK_NONE);
	assert_int_equal(s1.threads, 0);
	if (getenv("MONPROF_RATE") == NULL)
		assert_true(s1.rate_hz >= 1000); /* the default rate */
}

/* mon_getstats(st, size) writes exactly min(size, sizeof) bytes of the
 * library's struct, zeros from there up to a larger size, and nothing past
 * st + size: a program built against an older, smaller struct mon_stats
 * keeps the memory after its struct.  Each size is tried over two guard
 * patterns, so a byte counts as written only if it holds the library's
 * value over both.  Profiling is off: the counters stay put between calls. */
typedef union {
	struct mon_stats st;
	unsigned char b[sizeof(struct mon_stats) + 32];
} stats_buf;

static void test_getstats_size(void **state)
{
	(void)state;
	stats_buf ref;
	memset(&ref, 0, sizeof ref);
	assert_int_equal(mon_getstats(&ref.st, sizeof ref.st), 0);
	assert_int_equal(ref.st.on, 0);
	const size_t full = sizeof(struct mon_stats);
	const size_t sizes[] = {
		0, 1, 7,
		offsetof(struct mon_stats, lost) + sizeof ref.st.lost,	/* an older struct: 5 counters */
		offsetof(struct mon_stats, rate_hz) + 2,		/* ends inside a field */
		offsetof(struct mon_stats, faulted),
		full - 1, full, full + 1, full + 32,
	};
	static const unsigned char guards[] = { 0xa5, 0x5a };
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		size_t size = sizes[i], n = size < full ? size : full;
		for (size_t g = 0; g < sizeof guards; g++) {
			stats_buf u;
			memset(&u, guards[g], sizeof u);
			errno = 0;
			assert_int_equal(mon_getstats(&u.st, size), 0);
			assert_int_equal(errno, 0);
			for (size_t k = 0; k < sizeof u.b; k++) {
				unsigned want = k < n ? ref.b[k] : k < size ? 0 : guards[g];
				if (u.b[k] != want)
					fail_msg("size %zu: byte %zu is 0x%02x, want 0x%02x", size, k,
						 u.b[k], want);
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pc_to_bin_table),
		cmocka_unit_test(test_pc_below_offset),
		cmocka_unit_test(test_scale_bytes_per_bin),
		cmocka_unit_test(test_bin_add_saturates),
		cmocka_unit_test(test_bin_add_concurrent),
		cmocka_unit_test(test_scale_semantics),
		cmocka_unit_test(test_scale_off_and_too_big),
		cmocka_unit_test(test_bufsiz_zero),
		cmocka_unit_test(test_efault_leaves_state),
		cmocka_unit_test(test_buffer_vanishes),
		cmocka_unit_test(test_move_while_on),
		cmocka_unit_test(test_on_from_off_loses_nothing),
		cmocka_unit_test(test_sprofil_on_from_off_loses_nothing),
		cmocka_unit_test(test_getstats),
		cmocka_unit_test(test_getstats_size),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
