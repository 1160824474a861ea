/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * profil_common.h — helpers shared by the profil(2) test programs
 * (tests/progs/profil_*.c, driven by tests/integ/profil_*.sh).
 *
 * Each program checks one part of the profil(2) contract (include/mon.h,
 * docs/profil.3) and exits 0, or prints "file:line: what failed" and exits
 * 1.  A program that finds the clock it was asked to use refused by this
 * kernel prints "SKIP why" and exits 77 (profil_on).
 *
 * Work is measured in CPU time, never wall-clock time: a spin function runs
 * until its thread has used the CPU time asked for (CLOCK_THREAD_CPUTIME_ID),
 * so the number of ticks it should receive is rate x CPU seconds however
 * busy the machine is.
 *
 * Each spin function lives in a section of its own ("ptext_NAME"), so the
 * linker's __start_ptext_NAME / __stop_ptext_NAME give its exact address
 * range, and the ticks charged to it are the bins that range maps to.
 */
#ifndef PROFIL_COMMON_H
#define PROFIL_COMMON_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <mon.h>

#define CHECK(cond, ...)                                                        \
	do {                                                                    \
		if (!(cond)) {                                                  \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__,  \
				__LINE__, #cond);                               \
			fprintf(stderr, __VA_ARGS__);                           \
			fputc('\n', stderr);                                    \
			exit(1);                                                \
		}                                                               \
	} while (0)

#define SKIP(...)                                                               \
	do {                                                                    \
		printf("SKIP ");                                                \
		printf(__VA_ARGS__);                                            \
		printf("\n");                                                   \
		exit(77);                                                       \
	} while (0)

static inline double ts_seconds(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU seconds used so far by the calling thread / by the whole process. */
static inline double thread_cpu(void)
{
	return ts_seconds(CLOCK_THREAD_CPUTIME_ID);
}

static inline double process_cpu(void)
{
	return ts_seconds(CLOCK_PROCESS_CPUTIME_ID);
}

static inline struct mon_stats stats_now(void)
{
	struct mon_stats st;
	CHECK(mon_getstats(&st, sizeof st) == 0, "mon_getstats: %s", strerror(errno));
	return st;
}

/* The clock MONPROF_CLOCK asks for (MON_CLOCK_NONE when unset: automatic). */
static inline int clock_asked(void)
{
	const char *c = getenv("MONPROF_CLOCK");
	if (c == NULL)
		return MON_CLOCK_NONE;
	if (strcmp(c, "perf") == 0)
		return MON_CLOCK_PERF;
	if (strcmp(c, "thread") == 0)
		return MON_CLOCK_THREAD;
	if (strcmp(c, "itimer") == 0)
		return MON_CLOCK_ITIMER;
	return MON_CLOCK_NONE;
}

/*
 * Can this thread have the kernel clock behind a per-thread profiling
 * clock?  0 if so, else the errno the kernel gave: a perf cpu-clock event
 * (refused where perf_event_paranoid or seccomp forbid it), a POSIX timer
 * on the thread's CPU clock.  Made independently of libmon, to tell a
 * kernel that refuses a clock (skip) from libmon failing to use one.
 */
static inline int clock_probe(int clock)
{
	int e = 0;
	if (clock == MON_CLOCK_PERF) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof a);
		a.size = sizeof a;
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_CPU_CLOCK;
		a.sample_period = 1000000;
		a.disabled = 1;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			e = errno;
		else
			close(fd);
	} else if (clock == MON_CLOCK_THREAD) {
		struct sigevent se;
		timer_t t;
		memset(&se, 0, sizeof se);
		se.sigev_notify = SIGEV_NONE;
		if (timer_create(CLOCK_THREAD_CPUTIME_ID, &se, &t) < 0)
			e = errno;
		else
			timer_delete(t);
	}
	return e;
}

/* profil() on, or exit 77 if the kernel refuses the clock MONPROF_CLOCK
 * names (profil fails with ENOTSUP and so does clock_probe, but not for
 * lack of a resource: EAGAIN is retried for up to a second); checks that
 * the clock in effect is the one asked for. */
static inline void profil_on(unsigned short *buf, size_t bufsiz, uintptr_t offset,
			     unsigned scale)
{
	for (int tries = 0; profil(buf, bufsiz, offset, scale) != 0; tries++) {
		int want = clock_asked();
		CHECK(errno == ENOTSUP && want != MON_CLOCK_NONE, "profil: %s", strerror(errno));
		int e = clock_probe(want);
		CHECK(e != 0, "profil: ENOTSUP, but this kernel gives the %s clock",
		      mon_clock_name(want));
		if (e != EAGAIN && e != ENOMEM)
			SKIP("MONPROF_CLOCK=%s refused by this kernel (%s)", getenv("MONPROF_CLOCK"),
			     strerror(e));
		CHECK(tries < 10, "profil: ENOTSUP; the kernel is short of a resource (%s)",
		      strerror(e));
		struct timespec ts = { 0, 100000000 };
		nanosleep(&ts, NULL);
	}
	struct mon_stats st = stats_now();
	CHECK(st.on == 1, "profiling not on after profil()");
	int want = clock_asked();
	CHECK(want == MON_CLOCK_NONE || st.clock == want, "clock %s in effect, %s asked",
	      mon_clock_name(st.clock), mon_clock_name(want));
}

/* NULL, hidden from the compiler: <unistd.h> declares profil's buffer
 * nonnull, but NULL is a documented argument (off, or EFAULT). */
static inline unsigned short *null_buf(void)
{
	unsigned short *p = NULL;
	__asm__("" : "+r"(p));
	return p;
}

static inline void profil_off(void)
{
	CHECK(profil(null_buf(), 0, 0, 0) == 0, "profil off: %s", strerror(errno));
}

/* ---- spin functions in sections of their own ---------------------------- */

/* Per thread: threads spinning at once would otherwise race on one
 * variable (a data race ThreadSanitizer reports, and undefined in C11). */
extern __thread volatile double profil_sink;
#define PROFIL_SINK_DEFINE __thread volatile double profil_sink

/* Declare the range of section ptext_NAME. */
#define PTEXT_DECLARE(name) extern char __start_ptext_##name[], __stop_ptext_##name[]
#define PTEXT_LO(name) ((uintptr_t)__start_ptext_##name)
#define PTEXT_HI(name) ((uintptr_t)__stop_ptext_##name)

/*
 * DEFINE_SPIN(name): double name(double seconds) spins until the calling
 * thread has used `seconds` of CPU time in it and returns the CPU time it
 * used.  Everything but the clock_gettime call between chunks (a system
 * call of ~1 us every ~400 us of work, 0.2 % of the time) runs inside the
 * section; system time matters because the perf clock samples user time
 * only.  Not instrumented by ThreadSanitizer: its calls for each memory
 * access would move the work into libtsan's text, outside the section.
 */
#define DEFINE_SPIN(name)                                                       \
	PTEXT_DECLARE(name);                                                    \
	__attribute__((noinline, noclone, aligned(64), section("ptext_" #name)))  \
	double name(double seconds);                                            \
	__attribute__((noinline, noclone, aligned(64), section("ptext_" #name),   \
		       no_sanitize("thread")))                                  \
	double name(double seconds)                                             \
	{                                                                       \
		double t0 = thread_cpu(), t;                                    \
		do {                                                            \
			for (int i_ = 0; i_ < 100000; i_++)                      \
				profil_sink += i_ * 0.5;                        \
		} while ((t = thread_cpu()) - t0 < seconds);                    \
		return t - t0;                                                  \
	}

/* ---- histograms ---------------------------------------------------------- */

/* Bin of pc by the contract's formula ((pc - offset) / 2) * scale / 65536,
 * computed exactly in 128 bits; UINT64_MAX below offset. */
static inline uint64_t ref_bin(uintptr_t pc, uintptr_t offset, unsigned scale)
{
	if (pc < offset)
		return UINT64_MAX;
	unsigned __int128 d = (pc - offset) / 2;
	return (uint64_t)((d * scale) >> 16);
}

/* Ticks charged to the text [lo, hi): the sum of the bins it maps to. */
static inline uint64_t hist_range(const unsigned short *buf, size_t nbins, uintptr_t offset,
				  unsigned scale, uintptr_t lo, uintptr_t hi)
{
	uint64_t b0 = ref_bin(lo, offset, scale), b1 = ref_bin(hi - 1, offset, scale), sum = 0;
	for (uint64_t b = b0; b <= b1 && b < nbins; b++)
		sum += buf[b];
	return sum;
}

static inline uint64_t hist_total(const unsigned short *buf, size_t nbins)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < nbins; i++)
		sum += buf[i];
	return sum;
}

/*
 * Under ThreadSanitizer an asynchronous signal that arrives while the thread
 * makes no call the sanitizer intercepts is held until its next such call,
 * and a second one of the same number arriving meanwhile is lost (measured:
 * 2 of 1000 queued real-time signals reached a spinning thread's handler).
 * The perf clock sends one signal per tick, so under TSan most of its ticks
 * never reach libmon; the CPU-timer clocks count missed periods (overruns,
 * CPU time) and lose nothing.  Tick-count bounds for the perf clock are
 * therefore only checked without TSan (the plain and ASan runs check them).
 */
#ifdef __SANITIZE_THREAD__
#define TICKS_COUNTABLE(clock) ((clock) != MON_CLOCK_PERF)
#else
#define TICKS_COUNTABLE(clock) 1
#endif

/* Threads of this process (entries of /proc/self/task), or 0.  A sanitizer's
 * runtime may run threads of its own, which profil() samples too. */
static inline unsigned process_threads(void)
{
	unsigned n = 0;
	DIR *d = opendir("/proc/self/task");
	if (d == NULL)
		return 0;
	for (struct dirent *e; (e = readdir(d)) != NULL;)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}


/*
 * The reference clock: what this kernel, on this machine, under its load at
 * this moment, delivers of a perf cpu-clock rate.  It is the perf clock of
 * libmon built again in a few lines, independently of libmon: a software
 * cpu-clock event on the calling thread, user time only, period 1e9/rate
 * ns, raising REF_SIGNAL at that thread, whose handler only counts.
 *
 * Why it exists: the perf cpu-clock is an hrtimer.  Where a timer interrupt
 * costs tens of microseconds (measured on this project's VMs: 50-70 us a
 * tick), the timer fires late, the kernel forwards it past the periods it
 * missed without counting them, and periods that end in kernel mode are
 * not sampled (user time only).  So the share of the asked rate that is
 * delivered depends on the machine and its load, not on libmon.  A test of
 * libmon's perf clock measures this clock's share alone (ref_share, below)
 * just before and just after libmon's run, and compares: the comparison
 * holds on any machine, loaded or idle, while a wrong period, weight or
 * lost tick in libmon still shows.
 *
 * ref_clock_install() once per process (before any ref_clock_start);
 * ref_clock_start(rate) in a thread returns a descriptor (or -1 with errno);
 * ref_clock_stop(fd) stops it and returns the signals this thread took.
 */
#define REF_SIGNAL (SIGRTMIN + 2)	/* not libmon's SIGRTMAX-6 */
#ifndef F_SETOWN_EX	/* fcntl(2)'s Linux requests, without _GNU_SOURCE */
#define F_SETSIG 10
#define F_SETOWN_EX 15
#define F_OWNER_TID 0
struct f_owner_ex {
	int type;
	pid_t pid;
};
#endif
static __thread volatile unsigned long ref_ticks __attribute__((unused));
static void ref_on_signal(int sig) __attribute__((unused));

static void ref_on_signal(int sig)
{
	(void)sig;
	ref_ticks++;
}

static inline void ref_clock_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = ref_on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(REF_SIGNAL, &sa, NULL) == 0, "sigaction: %s", strerror(errno));
}

static inline int ref_clock_start(unsigned rate_hz)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000000000ull / rate_hz;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.wakeup_events = 1;
	pid_t tid = (pid_t)syscall(SYS_gettid);
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -1;
	struct f_owner_ex owner = { F_OWNER_TID, tid };
	ref_ticks = 0;
	if (fcntl(fd, F_SETFL, O_ASYNC) < 0 || fcntl(fd, F_SETSIG, REF_SIGNAL) < 0 ||
	    fcntl(fd, F_SETOWN_EX, &owner) < 0 || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static inline unsigned long ref_clock_stop(int fd)
{
	if (fd < 0)
		return 0;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	close(fd);
	return ref_ticks;
}

/*
 * ref_share — the share of `rate` that the reference clock delivers now on
 * this machine, alone: `nthreads` threads (1..8) each run it while spinning
 * `seconds` of their own CPU time; returns ticks / (rate x their CPU time).
 * Run while libmon's clock is off: two perf clocks raising signals in one
 * thread can starve each other (measured under ASan: either one down to
 * 22-40 % of the other's ticks), so the reference is measured before and
 * after libmon's run, not beside it.  Needs the pthread library.
 */
struct ref_share_arg {
	unsigned rate;
	double seconds, cpu;
	unsigned long ticks;
	int err;
};

static inline void *ref_share_thread(void *p)
{
	struct ref_share_arg *a = p;
	double t0 = thread_cpu();
	int fd = ref_clock_start(a->rate);
	a->err = fd < 0 ? errno : 0;
	volatile unsigned long x = 0;
	while (thread_cpu() - t0 < a->seconds)
		for (int i = 0; i < 20000; i++)
			x += (unsigned long)i;
	a->ticks = ref_clock_stop(fd);
	a->cpu = thread_cpu() - t0;
	return NULL;
}

static inline double ref_share(unsigned rate, double seconds, int nthreads)
{
	pthread_t t[8];
	struct ref_share_arg a[8];
	double ticks = 0, cpu = 0;
	CHECK(nthreads >= 1 && nthreads <= 8, "ref_share: %d threads", nthreads);
	for (int i = 0; i < nthreads; i++) {
		a[i] = (struct ref_share_arg){ rate, seconds, 0, 0, 0 };
		CHECK(pthread_create(&t[i], NULL, ref_share_thread, &a[i]) == 0, "pthread_create");
	}
	for (int i = 0; i < nthreads; i++) {
		pthread_join(t[i], NULL);
		CHECK(a[i].err == 0, "reference clock: %s", strerror(a[i].err));
		ticks += (double)a[i].ticks;
		cpu += a[i].cpu;
	}
	return cpu > 0 ? ticks / (rate * cpu) : 0;
}

/*
 * The share of `rate` the reference clock delivers on this machine now
 * (ref_share, one thread spinning 0.1 s of CPU), at most 1; measured once
 * per rate in a process.  If libmon's perf clock is on meanwhile, the
 * measuring thread has both and the share comes out low: a lower bound
 * that uses it is only more lenient.  1 if the kernel refuses the event
 * (then libmon cannot use the perf clock either).
 */
static inline double perf_share_now(unsigned rate)
{
	static unsigned rates[8];
	static double shares[8];
	static int n;
	for (int i = 0; i < n; i++)
		if (rates[i] == rate)
			return shares[i];
	struct sigaction cur;
	if (sigaction(REF_SIGNAL, NULL, &cur) == 0 && cur.sa_handler != ref_on_signal)
		ref_clock_install();
	/* Where the queue of pending signals is full (RLIMIT_SIGPENDING), the
	 * kernel raises SIGIO instead of REF_SIGNAL (fcntl(2), F_SETSIG): a tick
	 * too, as libmon counts it. */
	struct sigaction io, io_was;
	memset(&io, 0, sizeof io);
	io.sa_handler = ref_on_signal;
	io.sa_flags = SA_RESTART;
	sigaction(SIGIO, &io, &io_was);
	double s = 1;
	int fd = ref_clock_start(rate);
	if (fd >= 0) {
		ref_clock_stop(fd);
		s = ref_share(rate, 0.1, 1);
		if (s > 1)
			s = 1;
	}
	sigaction(SIGIO, &io_was, NULL);
	if (n < 8) {
		rates[n] = rate;
		shares[n++] = s;
	}
	printf("reference perf clock: %.1f %% of %u Hz delivered now\n", 100 * s, rate);
	return s;
}

/*
 * Lower bound for the ticks a function that used `cpu` seconds should get
 * at `rate` Hz from `clock`.  Expected mu = rate x cpu for the clocks that
 * count CPU time; for the perf clock, an hrtimer whose share of the rate
 * depends on the machine and its load (see the reference clock above),
 * mu = 0.9 x the share the reference clock delivers now x rate x cpu (0.9:
 * the share moves with the load between its measurement and the run).  The clocks are
 * periodic in CPU time; the perf clock fires at the rate itself, but the
 * thread timer and ITIMER_PROF fire only at the kernel tick (HZ >= 100), one
 * signal standing for up to w = rate / 100 periods.  Counting each signal
 * as an independent draw of weight w, the count has variance <= w * mu; we
 * accept anything above mu - 5 sigma.  Callers run long enough that this is
 * well above 0.
 */
static inline double ticks_lower_bound(int clock, double rate, double cpu)
{
	double mu = rate * cpu, w = clock == MON_CLOCK_PERF ? 1 : rate / 100.0;
	if (clock == MON_CLOCK_PERF && rate >= 1)
		mu *= 0.9 * perf_share_now((unsigned)rate);
	if (w < 1)
		w = 1;
	return mu - 5 * sqrt(w * mu);
}

#endif /* PROFIL_COMMON_H */
