/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * coverage.c — how much of the program's CPU the samples cover, and the
 * symbols a profile carries for code no file describes.
 *
 * A profile of mon.out minor 2 records, besides the samples, each thread's
 * user and system CPU as the kernel counted it, the elapsed time, the rate
 * asked and the rate the clock ran at (docs/mon.out.5).  A sample stands for
 * 1/rate seconds of CPU, so samples / rate against the CPU the kernel counted
 * says how much of the run the report can see.  Below 90 % (and at least ten
 * sample periods missing, so that a short run's start-up does not count),
 * prof says so on stderr by default and names the threads that took the
 * fewest samples for their CPU; it also says when the clock did not see
 * system time that is a quarter of the CPU or more (the perf clock counts
 * user time only), and when the runtime lowered the rate asked (a tick that costs
 * too much CPU, as the kernel lowers perf_event_max_sample_rate).
 */
#include "prof.h"
#include "timeline.h"

#include <stdlib.h>
#include <string.h>

#include "monout.h"

#define COVER_MIN 0.90	/* below this share of the CPU, warn */
#define COVER_PERIODS 10.0	/* and only if this many sample periods are missing */
#define COVER_SYS 0.25	/* system time not sampled: warn from this share of the CPU */
#define SHORT_PERIODS 2.0	/* a thread of less CPU than this many periods is short */
/* Under the thread and itimer clocks, a thread of less CPU than this is
 * short: their timers are looked at only at the kernel's tick, on the
 * thread then on a CPU, so the CPU a thread uses after its last such tick
 * (a tick's worth at most, 4 ms at 250 Hz) is never sampled: a tenth or
 * more of such a thread's.  60 threads of 15 ms, one after another: 84 %
 * covered under either, no warning under the perf clock (an hrtimer on
 * the thread's own CPU time). */
#define SHORT_TICK_S 0.040
#define SHORT_THREADS_MIN 10	/* short threads are named as a cause from this many */
/* Late ticks (THREADS' late: ticks of the thread clock standing for more
 * than 20 ms of a thread's CPU each): warn from this share of the samples.
 * Measured on 2 CPUs, a thread reading /dev/zero for 0.25 s of CPU, then
 * spinning for as long, timer at 1 kHz: idle, 62-68 ticks a phase and
 * 246-252 samples for each 250 (the truth); with two busy loops beside it,
 * 8-51 ticks a phase, most of them late, and 108-354 samples a phase. */
#define LATE_SHARE 0.10
/* Start-up (exec, the dynamic linker, what ran before profiling started:
 * startup_warn): warn from this share of the program's CPU and this much
 * CPU.  A dynamic program's start-up is 1-3 ms of CPU here. */
#define STARTUP_SHARE 0.10
#define STARTUP_MIN_S 0.050

/* A thread's CPU while profiling that its clock could see: start-up (before
 * the clock ran) left out, and system time when the clock counted user time
 * only. */
static double thread_cpu(const struct prof_thread *t)
{
	double c = t->user_s + (t->user_only ? 0 : t->sys_s) - t->before_s;
	return c > 0 ? c : 0;
}

/* The thread's samples per CPU-second (1 where the file gives none). */
static double rate_or_one(const struct prof_thread *t)
{
	return t->rate_hz > 0 ? t->rate_hz : 1;
}

static double thread_sampled(const struct prof_thread *t)
{
	return t->samples / rate_or_one(t);
}

int coverage_add(struct prof_attr *a, const struct prof_data *d)
{
	if (a->cov == NULL && (a->cov = calloc(1, sizeof *a->cov)) == NULL)
		return -1;
	struct prof_cov *c = a->cov;
	const struct prof_run *r = &d->run;
	c->nfiles++;
	if (!r->have_facts)
		return 0;
	double rate = r->rate_hz > 0 ? r->rate_hz : 1;
	/* The rates of the first file whose clock ran (a file's that never
	 * started one are 0), else of the first file. */
	int clocked = prof_run_clocked(r);
	if (c->nfacts++ == 0 || (clocked && !c->clocked)) {
		c->rate_asked = r->rate_asked;
		c->rate_set = r->rate_set;
		c->tick_cost_ns = r->tick_cost_ns;
		c->clocked = clocked;
	}
	c->flags |= r->fact_flags;
	size_t k = 0;
	while (k < c->npids && c->pids[k] != r->pid)
		k++;
	if (k == c->npids) {	/* an interval series is one process's files */
		if (c->npids == c->pidcap) {
			size_t cap = c->pidcap ? c->pidcap * 2 : 16;
			uint64_t *v = realloc(c->pids, cap * sizeof *v);
			if (v == NULL)
				return -1;
			c->pids = v;
			c->pidcap = cap;
		}
		c->pids[c->npids++] = r->pid;
	}
	c->elapsed_sum += r->elapsed_s;
	if (r->elapsed_s > c->elapsed_max)
		c->elapsed_max = r->elapsed_s;
	double start, end;
	if (prof_file_span(d, &start, &end) == 0) {
		/* INTERVAL's and SPAN's bounds are to the nanosecond; RUN's
		 * write time is whole seconds. */
		if (r->span_known == 1)
			c->coarse = 1;
		if (c->ntimes++ == 0 || start < c->start_s)
			c->start_s = start;
		if (end > c->end_s)
			c->end_s = end;
	}
	c->elapsed_s = c->elapsed_max;
	c->spanned = 0;
	/* (longer by more than the microsecond elapsed times have: write
	 * times of the same second give the longest file's again, plus the
	 * rounding of seconds since the Epoch) */
	if (c->ntimes == c->nfacts && c->end_s - c->start_s > c->elapsed_s + 1e-6) {
		c->elapsed_s = c->end_s - c->start_s;
		c->spanned = 1;
	}
	c->cpu_before_s += r->cpu_before_s;
	c->startup_s += r->startup_s;
	/* The process's CPU holds the wall sampler's thread's, which is the
	 * profiler's cost (summary.c says it), not the program's: left out,
	 * or it was judged as the program's unsampled system time, or (the
	 * sampler is not in THREADS) as threads that ended unseen.  The
	 * totals, then split as the process's: the kernel splits each
	 * thread's CPU into user and system at its tick, so the sampler's
	 * split is its own estimate (0.174 s user + 0.000 s system for a
	 * thread of system calls), and field by field one side went below 0
	 * and the program's CPU came out above what it was (a reviewer's
	 * finding: again "CPU in threads that ended unseen"). */
	double user = r->user_s, sys = r->sys_s;
	if (d->have_wall) {
		double all = user + sys, own = d->wall.user_s + d->wall.sys_s;
		double left = all > own ? all - own : 0;
		user = all > 0 ? left * (user / all) : 0;
		sys = left - user;
		c->runtime_s += own;
	}
	c->cpu_user_s += user;
	c->cpu_sys_s += sys;
	if (r->fact_flags & MONOUT_FACT_USER_ONLY)
		c->sys_unsampled_s += sys;
	c->sampled_s += (double)r->samples / rate;
	c->threads_unlisted += r->threads_unlisted;
	c->anon_samples += r->anon_samples;
	if (d->nthreads) {
		if (c->nthreads + d->nthreads > c->cap) {
			size_t cap = (c->nthreads + d->nthreads) * 2;
			struct prof_thread *v = realloc(c->threads, cap * sizeof *v);
			if (v == NULL)
				return -1;
			c->threads = v;
			c->cap = cap;
		}
		memcpy(c->threads + c->nthreads, d->threads, d->nthreads * sizeof *d->threads);
		for (size_t i = 0; i < d->nthreads; i++) {
			c->threads[c->nthreads + i].user_only =
				(r->fact_flags & MONOUT_FACT_USER_ONLY) != 0;
			c->threads[c->nthreads + i].pid = r->pid;
			c->threads[c->nthreads + i].seq = c->nthreads + i;
			c->threads[c->nthreads + i].file = c->nfiles;
		}
		c->nthreads += d->nthreads;
	}
	return 0;
}

/* One (pid, tid) together, the same rate and clock adjacent, in the
 * files' order (seq). */
static int same_thread(const struct prof_thread *p, const struct prof_thread *q)
{
	return p->pid == q->pid && p->tid == q->tid && p->rate_hz == q->rate_hz &&
	       p->user_only == q->user_only;
}

static int by_thread(const void *x, const void *y)
{
	const struct prof_thread *p = x, *q = y;
	if (p->pid != q->pid)
		return p->pid < q->pid ? -1 : 1;
	if (p->tid != q->tid)
		return p->tid < q->tid ? -1 : 1;
	if (p->rate_hz != q->rate_hz)
		return p->rate_hz < q->rate_hz ? -1 : 1;
	if (p->user_only != q->user_only)
		return p->user_only - q->user_only;
	return p->seq < q->seq ? -1 : p->seq > q->seq;
}

void coverage_threads_merge(struct prof_cov *c)
{
	if (c->nthreads < 2)
		return;
	qsort(c->threads, c->nthreads, sizeof *c->threads, by_thread);
	/* An entry of a later file continues the thread of the one before,
	 * unless that one ended (its tid was then a new thread's) or is of
	 * the same file (input.c keeps two entries of one file apart only
	 * for that reason). */
	size_t k = 0;
	for (size_t i = 0; i < c->nthreads; i++) {
		struct prof_thread *t = &c->threads[i];
		struct prof_thread *m = k ? &c->threads[k - 1] : NULL;
		if (m && same_thread(m, t) && !m->ended && m->file != t->file) {
			m->user_s += t->user_s;
			m->sys_s += t->sys_s;
			m->samples += t->samples;
			m->late += t->late;
			m->before_s += t->before_s;
			m->cpu_known = m->cpu_known && t->cpu_known;
			m->ended = t->ended;
			m->file = t->file;
			if (!m->name[0])
				memcpy(m->name, t->name, sizeof m->name);
		} else {
			c->threads[k++] = *t;
		}
	}
	c->nthreads = k;
}

void coverage_free(struct prof_attr *a)
{
	if (a->cov) {
		free(a->cov->threads);
		free(a->cov->pids);
		free(a->cov);
		a->cov = NULL;
	}
}

/* CPU the clock could see: from the start of profiling, user, plus system
 * unless it counted user only. */
static double seen_cpu(const struct prof_cov *c)
{
	double v = c->cpu_user_s + c->cpu_sys_s - c->sys_unsampled_s - c->cpu_before_s;
	return v > 0 ? v : 0;
}

void coverage_summary(const struct prof_cov *c, double rate_hz, FILE *e)
{
	if (c == NULL || c->nfacts == 0) {
		fprintf(e, "coverage: not recorded (a file older than mon.out minor 2, or gmon.out)\n");
		return;
	}
	double cpu = seen_cpu(c);
	char own[96] = "";
	if (c->runtime_s > 0)
		snprintf(own, sizeof own, " (the wall-clock sampler's %.3f s left out: the profiler's "
			 "cost)", c->runtime_s);
	fprintf(e, "CPU: %.3f s user + %.3f s system%s, %.3f s of it not sampled by design (start-up, "
		"the profiler's own work: rate check, loaded objects%s); "
		"samples stand for %.3f s = %.0f %% of the %s CPU %s\n", c->cpu_user_s,
		c->cpu_sys_s, own, c->cpu_before_s,
		(c->flags & MONOUT_FACT_PROFILING_OFF) ? ", profiling off" : "",
		c->sampled_s, cpu > 0 ? 100.0 * c->sampled_s / cpu : 0.0,
		(c->flags & MONOUT_FACT_USER_ONLY) ? "user" : "user + system",
		(c->flags & MONOUT_FACT_PROFILING_OFF) ? "while profiling was on"
						       : "since profiling started");
	if (c->flags & MONOUT_FACT_USER_ONLY)
		fprintf(e, "system time: not sampled (the perf clock counts user time only)\n");
	else if (c->flags & MONOUT_FACT_SYSTEM)
		fprintf(e, "system time: sampled, charged to the code that made the system call\n");
	/* Above 100 % of the user CPU: the kernel's user and system times are
	 * an estimate, each of its timer ticks charged whole to the mode it
	 * interrupted, then scaled to the thread's runtime (kernel/sched/
	 * cputime.c account_process_tick, cputime_adjust; proc(5) utime,
	 * stime), while the perf clock looks at each of its own ticks (and one
	 * due while a system call returns with interrupts off fires in user
	 * mode): the two estimates differ (a loop of user code: 1.92 s user,
	 * 0.09 s system, 1.96 s sampled; the demo's SQLite: 1.56 s user, 0.40
	 * s system, 1.88 s sampled).  Against user + system it is a share. */
	/* Said only where the share as printed above is over 100 %
	 * (100.4 % prints as 100 %). */
	int over = (c->flags & MONOUT_FACT_USER_ONLY) && cpu > 0 &&
		   100.0 * c->sampled_s / cpu >= 100.5;
	if (over)
		fprintf(e, "over 100 %% of the user CPU: the kernel splits CPU time into user and "
			"system at its own timer tick, while the perf clock looks for user mode at "
			"each of its ticks, and the two estimates differ; the samples stand for "
			"%.0f %% of user + system\n",
			100.0 * c->sampled_s / (cpu + c->sys_unsampled_s));
	char files[64];
	if (c->npids == c->nfacts)
		snprintf(files, sizeof files, "%zu processes", c->nfacts);
	else
		snprintf(files, sizeof files, "%zu files of %zu process%s", c->nfacts, c->npids,
			 c->npids == 1 ? "" : "es");
	/* The span is as good as its ends: whole seconds of a write time
	 * (RUN's), or an interval's own bounds (nanoseconds). */
	if (c->nfacts > 1)
		fprintf(e, "elapsed: %.3f s (wall clock, %s%s; %s, %.3f s summed, the longest "
			"%.3f s); CPU / elapsed = %.2f\n", c->elapsed_s,
			!c->spanned ? (c->npids == c->nfacts ? "the longest process's"
				       : "the longest file's")
			: c->npids == c->nfacts ? "from the first process's start to the last one's end"
			: "from the first file's start to the last one's end",
			!c->spanned ? (c->coarse ? ": the span the files' write times give (whole "
				       "seconds) is no longer" : "")
			: c->coarse ? ", within a second: the files' write times are whole seconds"
			: "",
			files, c->elapsed_sum, c->elapsed_max,
			c->elapsed_s > 0 ? (c->cpu_user_s + c->cpu_sys_s) / c->elapsed_s : 0.0);
	else
		fprintf(e, "elapsed: %.3f s (wall clock); CPU / elapsed = %.2f\n", c->elapsed_s,
			c->elapsed_s > 0 ? (c->cpu_user_s + c->cpu_sys_s) / c->elapsed_s : 0.0);
	fprintf(e, "rate: asked %u Hz, set %u Hz", c->rate_asked, c->rate_set);
	if (c->tick_cost_ns)
		fprintf(e, " (a tick costs %.1f us of CPU)", c->tick_cost_ns / 1000.0);
	fprintf(e, ", achieved %.0f samples per %sCPU-second%s%s\n",
		cpu > 0 ? (c->sampled_s * (rate_hz > 0 ? rate_hz : 1)) / cpu : 0.0,
		(c->flags & MONOUT_FACT_USER_ONLY) ? "user " : "",
		over ? " (of the kernel's estimate of user time: see above)" : "",
		(c->flags & MONOUT_FACT_RATE_LOWERED) ? "; lowered by the runtime" : "");
	if (c->anon_samples)
		fprintf(e, "%llu %s in anonymous code (rows [anon] or names from perf maps)\n",
			(unsigned long long)c->anon_samples,
			prof_pl(c->anon_samples, "sample", "samples"));
	for (size_t i = 0; i < c->nthreads; i++) {
		const struct prof_thread *t = &c->threads[i];
		double s = thread_sampled(t), tc = thread_cpu(t);
		fprintf(e, "thread %llu %s: ", (unsigned long long)t->tid, t->name[0] ? t->name : "-");
		if (t->cpu_known)
			fprintf(e, "%.3f s user + %.3f s system, ", t->user_s, t->sys_s);
		fprintf(e, "%llu %s = %.3f s", (unsigned long long)t->samples,
			prof_pl(t->samples, "sample", "samples"), s);
		if (t->cpu_known && t->user_s + t->sys_s > 0 && tc < 2.0 / rate_or_one(t))
			/* A share of so little CPU says nothing: the kernel's
			 * split of it into user and system, and the CPU before
			 * profiling started, are estimates of about that size
			 * (a fresh user's "1058 % of its user time"). */
			fprintf(e, " (less than two sample periods of %sCPU%s: no share)",
				t->user_only ? "user " : "",
				t->before_s > 0 ? " since profiling started" : "");
		else if (t->cpu_known && tc > 0 && t->user_only && 100.0 * s / tc >= 100.5 &&
		    t->user_s + t->sys_s - t->before_s > 0)
			/* The perf clock against the kernel's estimate of user
			 * time (the over-100 % line above says why). */
			fprintf(e, " (%.0f %% of its user time as the kernel estimates it, %.0f %% of "
				"its user + system)", 100.0 * s / tc,
				100.0 * s / (t->user_s + t->sys_s - t->before_s));
		else if (t->cpu_known && tc > 0 && t->before_s > 0)
			/* Its CPU before profiling started is not counted: say
			 * what the share is of (a fresh user's finding). */
			fprintf(e, " (%.0f %% of the %.3f s%s it used since profiling started)",
				100.0 * s / tc, tc, t->user_only ? " of user time" : "");
		else if (t->cpu_known && tc > 0)
			fprintf(e, " (%.0f %%)", 100.0 * s / tc);
		fputc('\n', e);
	}
	if (c->threads_unlisted)
		fprintf(e, "%u %s not listed (the runtime's table of 8192 threads was full: "
			"see the threads-unlisted warning)\n",
			c->threads_unlisted, prof_pl(c->threads_unlisted, "thread", "threads"));
}

static int by_late(const void *x, const void *y)
{
	const struct prof_thread *p = x, *q = y;
	return p->late < q->late ? 1 : p->late > q->late ? -1 : (p->tid > q->tid) - (p->tid < q->tid);
}

/* The thread clock's late ticks: each charged more than 20 ms of a
 * thread's CPU to the one place the thread was at, so the time moved from
 * where it was spent: the kernel found the thread running at few of its
 * ticks (busy CPUs), or the thread blocked the signal past libmon (the raw
 * rt_sigprocmask call).  Returns 1 when it warned. */
static int late_warn(const struct prof_cov *c)
{
	uint64_t late = 0, samples = 0;
	for (size_t i = 0; i < c->nthreads; i++) {
		late += c->threads[i].late;
		samples += c->threads[i].samples;
	}
	if (samples == 0 || late < COVER_PERIODS || (double)late < LATE_SHARE * (double)samples)
		return 0;
	struct prof_thread *v = malloc(c->nthreads * sizeof *v);
	char most[400] = "";
	if (v != NULL) {
		memcpy(v, c->threads, c->nthreads * sizeof *v);
		qsort(v, c->nthreads, sizeof *v, by_late);
		size_t at = 0;
		for (size_t i = 0; i < c->nthreads && i < 3 && v[i].late > 0 && at < sizeof most; i++)
			at += (size_t)snprintf(most + at, sizeof most - at, "%s%s (tid %llu, %llu of %llu)",
					       i ? ", " : "; most in ", v[i].name[0] ? v[i].name : "?",
					       (unsigned long long)v[i].tid, (unsigned long long)v[i].late,
					       (unsigned long long)v[i].samples);
		free(v);
	}
	prof_warn("late-ticks", "%.0f %% of the samples (%llu of %llu) came in late ticks, each "
		  "standing for more than 20 ms of a thread's CPU%s: the thread clock's signal "
		  "reached the thread long after its timer expired, because the kernel looks at "
		  "the timer only at its tick on the thread then running (seldom when other work "
		  "keeps the CPUs busy), or because the thread held the signal back (every signal "
		  "blocked by the raw rt_sigprocmask call); each such tick charges all that CPU to "
		  "where the thread was then, so time moves from where it was spent to what ran "
		  "next; with busy CPUs, the perf clock (monrun -c perf, where "
		  "kernel.perf_event_paranoid allows it) samples each thread on its own CPU time",
		  100.0 * (double)late / (double)samples, (unsigned long long)late,
		  (unsigned long long)samples, most);
	return 1;
}

/* CPU before profiling started, which no clock sampled and no share
 * counts.  monrun and cc -pg start at the first library's initialization
 * (crti.o's call of __gmon_start__: lib/autostart.c), the earliest a
 * library can; before it run only the dynamic linker and an executable's
 * .preinit_array (glibc elf/dl-init.c runs that first), unless the program
 * starts profiling itself (monstartup, monitor, profil), later.  Returns 1
 * when it warned. */
static int startup_warn(const struct prof_cov *c, double rate)
{
	double all = c->cpu_user_s + ((c->flags & MONOUT_FACT_USER_ONLY) ? 0 : c->cpu_sys_s);
	if (all <= 0 || c->startup_s < STARTUP_MIN_S || c->startup_s < COVER_PERIODS / rate ||
	    c->startup_s < STARTUP_SHARE * all)
		return 0;
	prof_warn("start-up", "%.3f s of %s CPU (%.0f %% of the program's) ran before profiling "
		  "started and is in no sample: what ran before it began, which under monrun "
		  "and cc -pg is the dynamic linker and the program's .preinit_array functions "
		  "(run before any library is initialized, so before any profiler in the process "
		  "can start) and the profiler's own start, and where the program starts profiling itself (monstartup, "
		  "monitor, profil), all it did before that call; to profile that code, start "
		  "profiling earlier (run the program under monrun, or call monstartup sooner)",
		  c->startup_s, (c->flags & MONOUT_FACT_USER_ONLY) ? "user" : "user + system",
		  100.0 * c->startup_s / all);
	return 1;
}

static int by_missing(const void *x, const void *y)
{
	const struct prof_thread *p = x, *q = y;
	double mp = thread_cpu(p) - thread_sampled(p), mq = thread_cpu(q) - thread_sampled(q);
	return mp < mq ? 1 : mp > mq ? -1 : 0;
}

int coverage_warn(const struct prof_attr *a)
{
	const struct prof_cov *c = a->cov;
	int warned = 0;
	if (c == NULL || c->nfacts == 0)
		return 0;
	double rate = c->rate_set ? c->rate_set : (a->rate_hz > 0 ? a->rate_hz : 1);
	double cpu = seen_cpu(c), missing = cpu - c->sampled_s;
	if (cpu > 0 && c->sampled_s < COVER_MIN * cpu && missing >= COVER_PERIODS / rate) {
		char msg[1024];
		size_t at = 0;
#define ADD(...) (at += (size_t)snprintf(msg + at, at < sizeof msg ? sizeof msg - at : 0, __VA_ARGS__))
		/* (Under a clock of user time only, the user CPU: say so, as the
		 * run's system time is the larger part of some programs'.) */
		ADD("the samples cover %.0f %% of the %s the program used since profiling "
		    "started (%.3f s of %.3f s); the shares are of what was sampled",
		    100.0 * c->sampled_s / cpu, c->sys_unsampled_s > 0 ? "user CPU" : "CPU",
		    c->sampled_s, cpu);
		/* The threads that missed the most CPU. */
		struct prof_thread *v = NULL;
		size_t n = 0;
		/* With profiling off for a while, a thread's CPU (THREADS)
		 * holds that time too: no thread can be judged. */
		int judge = !(c->flags & MONOUT_FACT_PROFILING_OFF);
		if (judge && c->nthreads && (v = malloc(c->nthreads * sizeof *v)) != NULL) {
			for (size_t i = 0; i < c->nthreads; i++) {
				const struct prof_thread *t = &c->threads[i];
				double tc = thread_cpu(t), s = thread_sampled(t);
				if (t->cpu_known && tc > 0 && s < COVER_MIN * tc &&
				    tc - s >= COVER_PERIODS / rate)
					v[n++] = *t;
			}
			qsort(v, n, sizeof *v, by_missing);
		}
		double listed = 0, short_cpu = 0, short_sampled = 0;
		size_t nshort = 0;
		int ticked = strncmp(a->clock, "thread", 6) == 0 || strncmp(a->clock, "itimer", 6) == 0;
		double short_s = SHORT_PERIODS / rate;
		if (ticked && short_s < SHORT_TICK_S)
			short_s = SHORT_TICK_S;
		for (size_t i = 0; i < c->nthreads; i++)
			if (c->threads[i].cpu_known) {
				double tc = thread_cpu(&c->threads[i]);
				listed += tc;
				/* A thread of less than two periods of CPU: its
				 * clock's count starts at the thread's start, and
				 * it mostly ends before a period is reached (under
				 * the thread clock, of less than SHORT_TICK_S). */
				if (judge && tc > 0 && tc < short_s) {
					nshort++;
					short_cpu += tc;
					short_sampled += thread_sampled(&c->threads[i]);
				}
			}
		if (n) {
			ADD("; the threads whose samples miss the most CPU:");
			for (size_t i = 0; i < n && i < 5; i++) {
				const struct prof_thread *t = &v[i];
				ADD("%s %s (tid %llu, %.3f s CPU, %llu %s)", i ? "," : "",
				    t->name[0] ? t->name : "?", (unsigned long long)t->tid,
				    thread_cpu(t), (unsigned long long)t->samples,
				    prof_pl(t->samples, "sample", "samples"));
			}
			if (n > 5)
				ADD(" and %zu more", n - 5);
		}
		if (nshort >= SHORT_THREADS_MIN && short_cpu - short_sampled >= COVER_PERIODS / rate &&
		    short_cpu - short_sampled >= 0.25 * missing) {
			if (ticked)
				ADD("; %zu threads used less than %.3f s of CPU each (%.3f s in all, "
				    "%.3f s of it sampled): the %s clock's timer is looked at only at "
				    "the kernel's tick, on the thread then on a CPU, so the CPU a thread "
				    "uses after its last tick (up to a tick: 1 to 10 ms by the kernel's "
				    "HZ, 4 ms at 250 Hz) is never sampled, whatever the rate; the perf "
				    "clock (monrun -c perf) samples such threads",
				    nshort, short_s, short_cpu, short_sampled,
				    strncmp(a->clock, "itimer", 6) == 0 ? "itimer" : "thread");
			else
				ADD("; %zu threads used less than %.0f sample periods of CPU each "
				    "(%.3f s in all, %.3f s of it sampled): each thread's clock counts "
				    "from the thread's start, and most such threads end before their "
				    "count reaches a period; raise the rate (monrun -r HZ, "
				    "MONPROF_RATE) so that a period is well below such a thread's CPU",
				    nshort, SHORT_PERIODS, short_cpu, short_sampled);
		}
		if (judge && c->nthreads && cpu - listed >= COVER_PERIODS / rate &&
		    cpu - listed > 0.1 * cpu) {
			ADD("; %.3f s of CPU in threads that ended unseen", cpu - listed);
			/* Not started by libmon's pthread_create or thrd_create:
			 * no per-thread clock was armed in them.  glibc's own
			 * (timer_create's SIGEV_THREAD callbacks, aio_*, mq_notify)
			 * also block every signal, so that no signal clock can
			 * sample them, the itimer's included (its tick goes to
			 * another thread). */
			ADD(" (a thread the C library starts itself, for a SIGEV_THREAD timer's "
			    "callback, POSIX AIO or mq_notify, blocks every signal, so no CPU "
			    "clock samples it: monrun --wall counts its time as running%s)",
			    strncmp(a->clock, "itimer", 6) != 0
				    ? "; a thread made by a raw clone gets no per-thread clock: "
				      "monrun -c itimer samples it"
				    : "");
		}
#undef ADD
		prof_warn("coverage", "%s", msg);
		free(v);
		warned = 1;
	}
	warned |= late_warn(c);
	warned |= startup_warn(c, rate);
	/* The ticks themselves cost system time (signal delivery: 50-90 us a
	 * tick measured on a VM, 5-9 % of the CPU at 1000 Hz): what the
	 * runtime measured of it is left out, and the threshold is well above
	 * what the rest can be. */
	double all = c->cpu_user_s + c->cpu_sys_s - c->cpu_before_s;
	double ticks_sys = a->samples * (c->tick_cost_ns / 1e9);
	double sys = c->sys_unsampled_s - (ticks_sys < c->sys_unsampled_s ? ticks_sys : 0);
	/* Start-up (exec, dynamic linking: mostly page faults) is left out too;
	 * not where CPU before also holds the time profiling was off (mostly
	 * user CPU, which would hide the system time). */
	if (!(c->flags & MONOUT_FACT_PROFILING_OFF))
		sys -= c->cpu_before_s < sys ? c->cpu_before_s : sys;
	if ((c->flags & MONOUT_FACT_USER_ONLY) && all > 0 && sys >= COVER_SYS * all &&
	    sys >= COVER_PERIODS / rate) {
		prof_warn("system-unsampled", "system CPU time (%.3f s, %.0f %% of the CPU) was not "
			  "sampled: the perf clock counts user time only; the shares are of user time%s "
			  "(the thread clock, monrun -c thread, charges system time to the code that "
			  "made the system call)", c->sys_unsampled_s,
			  100.0 * c->sys_unsampled_s / (c->cpu_user_s + c->cpu_sys_s),
			  a->nwalls ? ", and the wall-clock view's running time, in system calls "
				      "too, lies on the user code's stacks" : "");
		warned = 1;
	}
	if (c->threads_unlisted) {
		/* Their CPU is in the samples, but no row of theirs in the
		 * per-thread views, nor their CPU in the coverage above. */
		prof_warn("threads-unlisted", "%u %s not listed: the runtime's table of 8192 "
			  "threads was full; %s samples are in the profile, but %s CPU and %s "
			  "in the per-thread views (--threads) are not; cut the run into "
			  "intervals (monrun --interval=SEC, MONPROF_INTERVAL=SEC; if it was cut "
			  "already, into shorter ones): each file gives back the entries of the "
			  "threads that ended",
			  c->threads_unlisted, prof_pl(c->threads_unlisted, "thread was", "threads were"),
			  prof_pl(c->threads_unlisted, "its", "their"),
			  prof_pl(c->threads_unlisted, "its", "their"),
			  prof_pl(c->threads_unlisted, "its row", "their rows"));
		warned = 1;
	}
	if (c->flags & MONOUT_FACT_RATE_LOWERED) {
		char cost[64] = "";
		if (c->tick_cost_ns)
			snprintf(cost, sizeof cost, " (a tick costs %.1f us of CPU here)",
				 c->tick_cost_ns / 1000.0);
		prof_warn("rate-lowered", "the rate asked, %u Hz, could not be held%s; the runtime "
			  "lowered it to %u Hz", c->rate_asked, cost, c->rate_set);
		warned = 1;
	}
	return warned;
}

static int by_addr(const void *x, const void *y)
{
	const struct prof_sym *p = x, *q = y;
	return p->addr < q->addr ? -1 : p->addr > q->addr;
}

static int by_range(const void *x, const void *y)
{
	const uint64_t *p = x, *q = y;
	return p[0] < q[0] ? -1 : p[0] > q[0];
}

static size_t underscores(const char *s)
{
	size_t n = 0;
	while (s[n] == '_')
		n++;
	return n;
}

int coverage_image_syms(struct prof_image *im, const struct prof_object *o)
{
	size_t pool = 0;
	for (size_t i = 0; i < o->nxsyms; i++)
		pool += strlen(o->xsyms[i].name) + 1;
	im->syms = calloc(o->nxsyms, sizeof *im->syms);
	im->strings = malloc(pool ? pool : 1);
	im->texts = calloc(2 * o->nxsyms + 1, sizeof *im->texts);
	if (!im->syms || !im->strings || !im->texts)
		return -1;
	im->strings_len = pool;
	char *p = im->strings;
	/* Unnamed ranges (functions the unwind table separates but no
	 * symbol names) are code without a symbol: text, not symbols. */
	for (size_t i = 0; i < o->nxsyms; i++) {
		const struct prof_xsym *x = &o->xsyms[i];
		if (x->name[0] == '\0' && x->size > 0) {
			im->texts[im->ntexts].lo = x->start - o->bias;
			im->texts[im->ntexts].hi = x->start - o->bias + x->size;
			im->ntexts++;
		}
	}
	for (size_t i = 0; i < o->nxsyms; i++) {
		const struct prof_xsym *x = &o->xsyms[i];
		if (x->name[0] == '\0')
			continue;
		size_t l = strlen(x->name) + 1;
		memcpy(p, x->name, l);
		struct prof_sym *y = &im->syms[im->nsyms++];
		y->addr = x->start - o->bias;
		y->size = x->size;
		y->name = p;
		y->nsyn = 1;
		p += l;
	}
	qsort(im->syms, im->nsyms, sizeof *im->syms, by_addr);
	/* One symbol per address: of aliases, the fewest leading underscores,
	 * then the shorter name (clock_gettime before __vdso_clock_gettime). */
	size_t w = 0;
	for (size_t i = 0; i < im->nsyms; i++) {
		if (w && im->syms[w - 1].addr == im->syms[i].addr) {
			struct prof_sym *k = &im->syms[w - 1];
			const char *a = k->name, *b = im->syms[i].name;
			if (underscores(b) < underscores(a) ||
			    (underscores(b) == underscores(a) && strlen(b) < strlen(a)))
				k->name = b;
			if (im->syms[i].size > k->size)
				k->size = im->syms[i].size;
			k->nsyn++;
			continue;
		}
		im->syms[w++] = im->syms[i];
	}
	im->nsyms = w;
	/* The code: each symbol's own range and each unnamed range (no rows
	 * for what lies between: headers, data), sorted and disjoint. */
	{
		for (size_t i = 0; i < im->nsyms; i++) {
			uint64_t lo = im->syms[i].addr, hi = lo + (im->syms[i].size ? im->syms[i].size : 1);
			im->texts[im->ntexts].lo = lo;
			im->texts[im->ntexts].hi = hi;
			im->ntexts++;
		}
	}
	qsort(im->texts, im->ntexts, sizeof *im->texts, by_range);
	size_t k = 0;
	for (size_t i = 0; i < im->ntexts; i++) {
		if (k && im->texts[i].lo < im->texts[k - 1].hi) {
			if (im->texts[i].hi > im->texts[k - 1].hi)
				im->texts[k - 1].hi = im->texts[i].hi;
			continue;
		}
		im->texts[k++] = im->texts[i];
	}
	im->ntexts = k;
	return 0;
}
