/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * monitor.c — monitor(3), monstartup(3), moncontrol(3): System V's
 * histogram plus call counts on top of profil(2), and the assembly of a
 * profile for the writer.
 *
 * A monitor() buffer is split as System V split it (System V's monitor(3C)
 * manual page; illumos usr/src/lib/libc/port/gen/mon.c): struct
 * hdr, nfunc struct cnt cells, then the histogram, handed to profil() with
 * the scale histogram-bytes / range-bytes.  Calling monitor() again keeps
 * counting (the new cells add capacity) and moves sampling to the new
 * histogram.  The compiler's instrumentation (cc -pg, -finstrument-
 * functions) starts the same machinery with a buffer of libmon's own over
 * the whole program text (mon_auto_start).
 *
 * Everything the profile needs besides the live tables — the loaded
 * objects, the command line, the output name — is gathered when profiling
 * starts (and refreshed at every write made outside a signal handler), so
 * that a write from a fatal-signal handler only reads memory and calls
 * write(2).  Writes are serialised by a lock word holding the writer's
 * thread id: a handler never waits for its own thread.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "bins.h"
#include "monrt.h"
#include "objects.h"
#include "objhist.h"
#include "runfacts.h"
#include "sampler.h"
#include "settings.h"
#include "stacks.h"
#include "wall.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;	/* monitor() calls */
static int started;		/* profiling set up in this image */
static int finished;		/* stopped and written (monitor(0) or exit) */
static int paused;		/* moncontrol(0) */
static int at_exit_registered;
static pid_t start_pid;		/* the process that started profiling */

/* The histogram being filled now. */
static struct {
	uintptr_t lowpc, highpc;
	unsigned scale;
	WORD *bins;
	size_t nbins;
} hist;
static WORD *own_bins;		/* monstartup()'s buffer */
static int whole;		/* whole-process mode: object histograms (objhist.c) */
/* Fork calls of a process profiled without following its children
 * (monrun without -f): their children write no profile, so the file says
 * how many there were (FORKS) and prof names -f.  Counted in the parent
 * after each call, a failed one too (pthread_atfork(3)'s parent handler
 * cannot tell). */
static uint64_t forks_unfollowed;
static int follow_forks = 1;	/* whole mode: fork children go on profiling */
static int by_monstartup;	/* the running profile was started by monstartup() */
static int with_stacks;		/* whole mode or monstartup(): call stacks (stacks.c) */
static int dormant;		/* MONPROF_DORMANT=1 and not switched on yet */

/* Prepared for the writer. */
static struct monout_object *objects;
static size_t nobjects;
static char *cmdline;
static uint32_t cmdline_len, argc;
static pid_t write_owner;	/* tid of the thread writing, 0 if none */

/* ---- the loaded objects ------------------------------------------------- */

struct collect {
	struct monout_object *v;
	size_t n, cap;
	int failed;
};

static void build_id_of(const struct dl_phdr_info *info, struct monout_object *o, uint8_t **out)
{
	unsigned char id[64];
	size_t len = mon_build_id(info, id, sizeof id);
	uint8_t *b = len ? mon_alloc(len) : NULL;
	if (b == NULL)
		return;
	memcpy(b, id, len);
	o->build_id_len = (uint32_t)len;
	*out = b;
}

static int collect_one(const struct mon_object_info *oi, void *arg)
{
	struct collect *c = arg;
	const struct dl_phdr_info *info = oi->phdr;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			uintptr_t a = info->dlpi_addr + ph->p_vaddr;
			if (a < lo)
				lo = a;
			if (a + ph->p_memsz > hi)
				hi = a + ph->p_memsz;
		}
	}
	if (hi == 0)
		return 0;	/* no code */
	if (c->n == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 16;
		struct monout_object *v = mon_realloc(c->v, ncap * sizeof *v);
		if (v == NULL) {
			c->failed = 1;
			return 1;
		}
		c->v = v;
		c->cap = ncap;
	}
	struct monout_object *o = &c->v[c->n];
	memset(o, 0, sizeof *o);
	o->load_bias = info->dlpi_addr;
	o->text_lo = lo;
	o->text_hi = hi;
	if (c->n == 0 && oi->main)
		o->flags = MONOUT_OBJ_MAIN;
	else if (oi->vdso)
		o->flags = MONOUT_OBJ_VDSO;
	char *path = oi->path != NULL ? mon_strdup(oi->path) : NULL;
	if (path == NULL) {
		c->failed = 1;
		return 1;
	}
	o->path = path;
	o->path_len = (uint32_t)strlen(path);
	uint8_t *bid = NULL;
	build_id_of(info, o, &bid);
	o->build_id = bid;
	if (o->build_id_len == 0)	/* what tells a rebuilt file (mon.out(5), FILES) */
		o->file_flags = mon_object_file_id(oi, &o->file_size, &o->file_mtime_ns,
						   &o->text_crc);
	c->n++;
	return 0;
}

static void free_objects(struct monout_object *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		mon_free((void *)v[i].path);
		mon_free((void *)v[i].build_id);
	}
	mon_free(v);
}

/* Refresh the object list (normal context, under the write lock or before
 * profiling starts).  On failure the previous list stays: returns -1, else
 * 0. */
static int refresh_objects(void)
{
	struct collect c = { NULL, 0, 0, 0 };
	mon_objects_each(collect_one, &c);
	if (c.failed || c.n == 0) {
		free_objects(c.v, c.n);
		return -1;
	}
	struct monout_object *old = objects;
	size_t oldn = nobjects;
	objects = c.v;
	nobjects = c.n;
	free_objects(old, oldn);
	return 0;
}

/* The main program's text, [lo, hi). */
static int main_text(uintptr_t *lo, uintptr_t *hi)
{
	if (nobjects == 0)
		refresh_objects();
	if (nobjects == 0 || !(objects[0].flags & MONOUT_OBJ_MAIN))
		return -1;
	*lo = objects[0].text_lo;
	*hi = objects[0].text_hi;
	return 0;
}

static void read_cmdline(void)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		/* No /proc: the program's name alone (argv[0], as the C library
		 * kept it). */
		const char *n = program_invocation_name;
		char *b = n != NULL ? mon_strdup(n) : NULL;
		if (b != NULL) {
			mon_free(cmdline);
			cmdline = b;
			cmdline_len = (uint32_t)strlen(b) + 1;
			argc = 1;
		}
		return;
	}
	size_t cap = 4096, len = 0;
	char *b = mon_alloc(cap);
	while (b != NULL) {
		if (len == cap) {
			char *nb = mon_realloc(b, cap * 2);
			if (nb == NULL)
				break;
			b = nb;
			cap *= 2;
		}
		ssize_t k = read(fd, b + len, cap - len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		len += (size_t)k;
	}
	close(fd);
	if (b == NULL)
		return;
	uint32_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += b[i] == '\0';
	mon_free(cmdline);
	cmdline = b;
	cmdline_len = (uint32_t)len;
	argc = n;
}

/* ---- writing ------------------------------------------------------------ */

struct fill_ctx {
	int reason, signo;
	struct mon_interval_cut *cut;	/* an interval's file, or NULL: the whole run */
	int have_st;			/* st: the counters read at the cut */
	struct mon_stats st;
	/* The bins an advancing cut took at once after reading st (NULL:
	 * take them while writing): the main histogram's, and those of the
	 * first ntaken object histograms (mon_objhist_all's order). */
	WORD *taken16;
	uint32_t **taken32;
	size_t ntaken;
};

/* What the last interval's file held (the base the next one is measured
 * from): the sampler's counters and the process's CPU. */
static struct {
	uint64_t samples, counted, dropped, saturated, lost;
	uint64_t user_usec, sys_usec;
	uint64_t calls_lost;	/* moved by files only (mon_interval_skip keeps the calls) */
	int cut;		/* an interval was cut already */
	int on_since;		/* sampling was on at some moment since the cut */
} base;

/* Filled by control.c's constructor, run by mon_runtime_init first (init.c
 * names it: so a static link holds control.o, which nothing else names;
 * without it cc -pg -static ignored MONPROF_DORMANT, MONPROF_INTERVAL and
 * MONPROF_CONTROL: monctl.sh monctl_linked_pg_static). */
struct mon_control_calls mon_control_calls;

/* An interval goes on: take the bins' counts for its file, leaving zero
 * (an atomic exchange: a tick adding meanwhile goes to the next
 * interval).  Only in the control thread (mon_alloc). */
static uint32_t *take_bins32(uint32_t *bins, size_t n, const uint64_t *touched)
{
	uint32_t *v = mon_alloc((n ? n : 1) * sizeof *v);
	/* Only the spans a tick touched (objhist.h): the rest are zero.  A
	 * bin added to just before its span's bit is set stays for the next
	 * interval. */
	for (size_t s = 0; v != NULL && s * MON_OBJHIST_SPAN < n; s++) {
		if (touched != NULL && !(__atomic_load_n(&touched[s / 64], __ATOMIC_ACQUIRE) &
					 (1ull << (s % 64))))
			continue;
		size_t end = (s + 1) * MON_OBJHIST_SPAN < n ? (s + 1) * MON_OBJHIST_SPAN : n;
		for (size_t i = s * MON_OBJHIST_SPAN; i < end; i++)
			v[i] = __atomic_load_n(&bins[i], __ATOMIC_RELAXED)
				       ? __atomic_exchange_n(&bins[i], 0, __ATOMIC_RELAXED) : 0;
	}
	return v;
}

static WORD *take_bins16(WORD *bins, size_t n)
{
	WORD *v = mon_alloc((n ? n : 1) * sizeof *v);
	for (size_t i = 0; v != NULL && i < n; i++)
		v[i] = __atomic_load_n(&bins[i], __ATOMIC_RELAXED)
			       ? __atomic_exchange_n(&bins[i], 0, __ATOMIC_RELAXED) : 0;
	return v;
}

static int fill(struct monout_writer *w, void *arg)
{
	const struct fill_ctx *ctx = arg;
	struct mon_interval_cut *cut = ctx->cut;
	struct mon_stats st;
	struct monout_run r;
	memset(&r, 0, sizeof r);
	if (ctx->have_st)
		st = ctx->st;
	else
		mon_getstats(&st, sizeof st);
	r.pid = (uint64_t)getpid();
	r.ppid = (uint64_t)getppid();
	r.clock = (uint32_t)(st.clock ? st.clock : mon_clock_last);
	r.rate_hz = st.rate_hz;
	/* This image's CPU: after an exec, the earlier images' is in
	 * their own files. */
	uint64_t cpu[2];
	mon_facts_image_cpu(cpu);
	r.user_usec = cpu[0];
	r.sys_usec = cpu[1];
	r.samples = st.samples;
	r.counted = st.counted;
	r.dropped = st.dropped;
	r.saturated = st.saturated;
	r.lost = st.lost;
	r.calls_lost = mon_count_lost();
	if (cut != NULL) {
		/* Only what this interval took (the counters count on). */
		uint64_t now_s[7] = { st.samples, st.counted, st.dropped, st.saturated, st.lost,
				      r.user_usec, r.sys_usec };
		uint64_t *was[7] = { &base.samples, &base.counted, &base.dropped, &base.saturated,
				     &base.lost, &base.user_usec, &base.sys_usec };
		uint64_t *out[7] = { &r.samples, &r.counted, &r.dropped, &r.saturated, &r.lost,
				     &r.user_usec, &r.sys_usec };
		for (int i = 0; i < 7; i++) {
			*out[i] = now_s[i] > *was[i] ? now_s[i] - *was[i] : 0;
			if (cut->advance)
				*was[i] = now_s[i];
		}
		cut->rec.samples_total = st.samples;
		/* The calls lost as the calls (mon_count_cut): those since
		 * the last file's. */
		uint64_t cl = r.calls_lost;
		r.calls_lost = cl > base.calls_lost ? cl - base.calls_lost : 0;
		if (cut->advance)
			base.calls_lost = cl;
	}
	struct timespec now;
	if (clock_gettime(CLOCK_REALTIME, &now) == 0)
		r.time = (uint64_t)now.tv_sec;
	r.signal = (uint32_t)ctx->signo;
	r.reason = (uint32_t)ctx->reason;
	r.argc = argc;
	r.cmdline = cmdline;
	r.cmdline_len = cmdline_len;
	if (monout_put_run(w, &r) < 0)
		return -1;
	uint64_t nforks = __atomic_load_n(&forks_unfollowed, __ATOMIC_RELAXED);
	if (nforks && monout_put_forks(w, nforks) < 0)
		return -1;
	if (cut != NULL && monout_put_interval(w, &cut->rec) < 0)
		return -1;
	uint32_t hist_object = MONOUT_NO_OBJECT;
	size_t nobj, extra = 0;
	/* The first OBJECT records of unloaded objects, numbered nobjects + i
	 * (one writer at a time: the write is serialised). */
	static struct monout_object unloaded[64];
	struct mon_objhist *const *oh = mon_objhist_all(&nobj);
	/* Each loaded object's object set: its latest histogram's (objhist.h). */
	for (size_t i = 0; i < nobjects; i++)
		for (size_t k = 0; k < nobj; k++)
			if (oh[k]->highpc - 1 >= objects[i].text_lo &&
			    oh[k]->highpc - 1 < objects[i].text_hi &&
			    oh[k]->load_bias == objects[i].load_bias &&
			    strcmp(oh[k]->path, objects[i].path) == 0 && oh[k]->set > objects[i].set)
				objects[i].set = oh[k]->set;
	for (size_t i = 0; i < nobjects; i++) {
		if (monout_put_object(w, &objects[i]) < 0)
			return -1;
		if (hist.lowpc >= objects[i].text_lo && hist.lowpc < objects[i].text_hi &&
		    hist_object == MONOUT_NO_OBJECT)
			hist_object = (uint32_t)i;
	}
	if (monout_put_files(w, objects, nobjects) < 0)
		return -1;
	if (hist.bins != NULL && hist.nbins > 0) {
		struct monout_hist h;
		memset(&h, 0, sizeof h);
		h.lowpc = hist.lowpc;
		h.highpc = hist.highpc;
		h.nbins = hist.nbins;
		h.scale = hist.scale;
		h.bin_bytes = sizeof(WORD);
		h.flags = MONOUT_HIST_SATURATES;
		h.object = hist_object;
		h.raw = hist.bins;
		WORD *taken = ctx->taken16;
		if (taken == NULL && cut != NULL && cut->advance)
			taken = take_bins16(hist.bins, hist.nbins);
		if (taken != NULL)
			h.raw = taken;
		int rc = monout_put_hist(w, &h);
		if (taken != ctx->taken16)
			mon_free(taken);
		if (rc < 0)
			return -1;
	}
	for (size_t k = 0; k < nobj; k++) {
		struct monout_hist h;
		memset(&h, 0, sizeof h);
		h.lowpc = oh[k]->lowpc;
		h.highpc = oh[k]->lowpc + ((uint64_t)oh[k]->nbins << oh[k]->shift);
		h.nbins = oh[k]->nbins;
		h.scale = mon_bin_scale((uint64_t)1 << oh[k]->shift);
		h.bin_bytes = sizeof oh[k]->bins[0];
		h.flags = MONOUT_HIST_SPARSE;	/* most of a process's text is never hit */
		h.touched = oh[k]->touched;
		h.touched_span = MON_OBJHIST_SPAN;
		h.object = MONOUT_NO_OBJECT;
		h.raw = oh[k]->bins;
		for (size_t i = 0; i < nobjects; i++)
			if (oh[k]->highpc - 1 >= objects[i].text_lo &&
			    oh[k]->highpc - 1 < objects[i].text_hi &&
			    oh[k]->load_bias == objects[i].load_bias &&
			    strcmp(oh[k]->path, objects[i].path) == 0) {
				h.object = (uint32_t)i;
				break;
			}
		if (h.object == MONOUT_NO_OBJECT) {
			/* An object unloaded (dlclose) since it was sampled: describe
			 * it from what its histogram kept. */
			struct monout_object o;
			memset(&o, 0, sizeof o);
			o.load_bias = oh[k]->load_bias;
			o.text_lo = oh[k]->lowpc;
			o.text_hi = oh[k]->highpc;
			o.build_id = oh[k]->build_id;
			o.build_id_len = (uint32_t)oh[k]->build_id_len;
			o.path = oh[k]->path;
			o.path_len = (uint32_t)strlen(oh[k]->path);
			o.set = oh[k]->set;
			if (monout_put_object(w, &o) < 0)
				return -1;
			if (extra < sizeof unloaded / sizeof unloaded[0])
				unloaded[extra] = o;	/* for the wall sampler's waits */
			h.object = (uint32_t)(nobjects + extra++);
		}
		uint32_t *taken = k < ctx->ntaken ? ctx->taken32[k] : NULL;
		int own = 0;
		if (taken == NULL && cut != NULL && cut->advance) {
			taken = take_bins32(oh[k]->bins, oh[k]->nbins, oh[k]->touched);
			own = 1;
		}
		if (taken != NULL)
			h.raw = taken;
		int rc = monout_put_hist(w, &h);
		if (own)
			mon_free(taken);
		if (rc < 0)
			return -1;
	}
	if (cut != NULL) {
		struct mon_facts_window win = { cut->since_ns, cut->until_ns, !base.cut,
						cut->advance };
		if (mon_facts_put_window(w, &win) < 0)
			return -1;
	} else if (mon_facts_put(w) < 0) {
		return -1;
	}
	uint32_t vdso = MONOUT_NO_OBJECT;
	uint64_t vdso_bias = 0;
	for (size_t i = 0; i < nobjects && vdso == MONOUT_NO_OBJECT; i++)
		if (objects[i].flags & MONOUT_OBJ_VDSO) {
			vdso = (uint32_t)i;
			vdso_bias = objects[i].load_bias;
		}
	if (mon_objhist_put_extra(w, vdso, vdso_bias) < 0)
		return -1;
	if (mon_stacks_put(w) < 0)
		return -1;
	/* An interval's file: the wall samples since the last cut (wall.c). */
	int wall_part = cut == NULL ? MON_WALL_WHOLE : cut->advance ? MON_WALL_CUT
				    : MON_WALL_SINCE_CUT;
	if (mon_wall_put(w, objects, nobjects, unloaded,
			 extra < sizeof unloaded / sizeof unloaded[0] ? extra
			 : sizeof unloaded / sizeof unloaded[0], wall_part) < 0)
		return -1;
	if (mon_count_put(w) < 0)
		return -1;
	return mon_follow_put(w);
}

/* The arc table overflowed (MONPROF_ARCS, mcount.c): glibc's words (its
 * mcount's "call graph buffer size limit exceeded, gmon.out will not be
 * generated", which tst-mcount-overflow looks for), with our file's name,
 * the limit and the remedy; once per process.  Async-signal-safe. */
static void say_arcs_overflow(uint64_t limit)
{
	static pid_t told;
	pid_t me = getpid();
	if (__atomic_exchange_n(&told, me, __ATOMIC_ACQ_REL) == me)
		return;
	char num[24];
	size_t nlen = (size_t)(mon_put_dec(num, (uint64_t)limit) - num);
	const char *name = mon_file_name();
	static const char a[] = "monprof: mcount: call graph buffer size limit exceeded, ";
	static const char b[] = " will not be generated: the program made more than ";
	static const char c[] = " arcs (caller, callee pairs); raise MONPROF_ARCS (monrun -a)\n";
	struct iovec v[5] = {
		{ (void *)a, sizeof a - 1 },
		{ (void *)(name ? name : MON_OUT), strlen(name ? name : MON_OUT) },
		{ (void *)b, sizeof b - 1 },
		{ num, nlen },
		{ (void *)c, sizeof c - 1 },
	};
	ssize_t r;
	do
		r = writev(STDERR_FILENO, v, 5);
	while (r < 0 && errno == EINTR);
}

/* Take the writer's lock word (waiting at most about two seconds for a
 * write in another thread); 0, or -1/EBUSY. */
static int write_lock(void)
{
	int outer = mon_clock_own_wait_begin();	/* a wait of ours (clock.c) */
	int rc = mon_owner_take(&write_owner);
	mon_clock_own_wait_end(outer);
	return rc;
}

/* An advancing cut takes every histogram's bins at once after reading the
 * counters, before it writes anything (objects, their CRCs, stack tables
 * take milliseconds, more on a loaded machine): a tick between the read
 * and its bin's take is counted in the next file but binned in this one.
 * cut_ticks says how many ticks that window let in.  Only in the control
 * thread (mon_alloc). */
static void take_all(struct fill_ctx *ctx)
{
	if (hist.bins != NULL && hist.nbins > 0)
		ctx->taken16 = take_bins16(hist.bins, hist.nbins);
	size_t nobj;
	struct mon_objhist *const *oh = mon_objhist_all(&nobj);
	ctx->taken32 = nobj ? mon_alloc(nobj * sizeof *ctx->taken32) : NULL;
	for (size_t k = 0; ctx->taken32 != NULL && k < nobj; k++) {
		ctx->taken32[k] = take_bins32(oh[k]->bins, oh[k]->nbins, oh[k]->touched);
		ctx->ntaken = k + 1;
		if (ctx->taken32[k] == NULL)
			break;	/* no memory: the rest are taken while writing */
	}
}

static void taken_free(struct fill_ctx *ctx)
{
	mon_free(ctx->taken16);
	for (size_t k = 0; k < ctx->ntaken; k++)
		mon_free(ctx->taken32[k]);
	mon_free(ctx->taken32);
}

int mon_write_interval(struct mon_interval_cut *cut, int reason, int signo, int in_handler)
{
	if (getpid() != __atomic_load_n(&mon_pid, __ATOMIC_RELAXED))
		return mon_fail(ESRCH);
	if (write_lock() < 0)
		return -1;
	if (!in_handler)
		refresh_objects();
	else if (reason == MONOUT_WHY_EXIT || reason == MONOUT_WHY_SIGNAL)
		mon_sampler_close();
	struct fill_ctx ctx = { reason, signo, cut, 0, { 0 }, NULL, NULL, 0 };
	if (cut->advance && mon_stacks_cut_begin() < 0)
		cut->advance = 0;	/* no memory for a fresh table: nothing is taken */
	cut->taken = cut->advance;
	/* The counters at once after the stack table's cut, not when the
	 * file's RUN record is filled: a tick between the two would count in
	 * this file and keep its stack in the next, as many of them as the
	 * time between lets in (2 under ASan). */
	if (cut->advance)
		mon_facts_cut_samples();
	ctx.have_st = mon_getstats(&ctx.st, sizeof ctx.st) == 0;
	cut->rec.cut_ticks = 0;
	if (cut->advance) {
		take_all(&ctx);
		struct mon_stats after;
		if (ctx.have_st && mon_getstats(&after, sizeof after) == 0 &&
		    after.counted > ctx.st.counted)
			cut->rec.cut_ticks = after.counted - ctx.st.counted > UINT32_MAX
						     ? UINT32_MAX
						     : (uint32_t)(after.counted - ctx.st.counted);
	}
	/* The calls: each arc's count read once, here (mcount.c). */
	if (!in_handler)
		mon_count_part_prepare();
	mon_count_cut(cut->advance);
	cut->rec.flags |= MONOUT_INTERVAL_OWN_CALLS;
	int rc = mon_file_write_as(cut->name, MONOUT_F_SNAPSHOT * (reason != MONOUT_WHY_EXIT &&
								   reason != MONOUT_WHY_EXEC),
				   fill, &ctx, cut->quiet, &cut->bytes);
	int e = errno;
	taken_free(&ctx);
	mon_count_cut_end(cut->advance);
	if (cut->advance) {
		mon_stacks_cut_end();
		base.cut = 1;
		base.on_since = !paused;
	}
	__atomic_store_n(&write_owner, 0, __ATOMIC_RELEASE);
	errno = e;
	return rc;
}

/* The counters' base moves to now (fill's cut part, without a file). */
static void base_now(void)
{
	struct mon_stats st;
	mon_getstats(&st, sizeof st);
	base.samples = st.samples;
	base.counted = st.counted;
	base.dropped = st.dropped;
	base.saturated = st.saturated;
	base.lost = st.lost;
	uint64_t cpu[2];
	mon_facts_image_cpu(cpu);
	base.user_usec = cpu[0];
	base.sys_usec = cpu[1];
}

int mon_interval_skip(void)
{
	if (getpid() != __atomic_load_n(&mon_pid, __ATOMIC_RELAXED))
		return mon_fail(ESRCH);
	if (write_lock() < 0)
		return -1;
	size_t nobj;
	struct mon_objhist *const *oh = mon_objhist_all(&nobj);
	for (size_t k = 0; k < nobj; k++)
		for (size_t i = 0; i < oh[k]->nbins; i++)
			if (__atomic_load_n(&oh[k]->bins[i], __ATOMIC_RELAXED))
				__atomic_store_n(&oh[k]->bins[i], 0, __ATOMIC_RELAXED);
	for (size_t i = 0; hist.bins != NULL && i < hist.nbins; i++)
		if (__atomic_load_n(&hist.bins[i], __ATOMIC_RELAXED))
			__atomic_store_n(&hist.bins[i], 0, __ATOMIC_RELAXED);
	if (mon_stacks_cut_begin() == 0)
		mon_stacks_cut_end();
	mon_wall_cut_skip();
	base_now();
	mon_facts_window_advance();
	base.cut = 1;
	base.on_since = !paused;
	__atomic_store_n(&write_owner, 0, __ATOMIC_RELEASE);
	return 0;
}

int mon_interval_idle(void)
{
	/* Not "finished": every exit path sets it before it writes.  Before
	 * the first cut the interval began with the process, sampling, but
	 * for a dormant start never switched on (no file for it, monrun(1)). */
	if (!started || !paused || (!base.cut && !dormant) || base.on_since)
		return 0;
	struct mon_stats st;
	mon_getstats(&st, sizeof st);
	return st.samples == base.samples;
}

int mon_profiling_state(void)
{
	return !started || finished ? 0 : paused ? 2 : 1;
}

int mon_write_profile(int reason, int signo, uint32_t flags, int in_handler)
{
	/* Interval profiles: every write is an interval's file (control.c). */
	if (mon_control_calls.write_last != NULL && mon_control_calls.intervals != NULL &&
	    mon_control_calls.intervals())
		return mon_control_calls.write_last(reason, signo, flags, in_handler);
	/* Never the parent's profile from a child libmon did not fork and has
	 * not adopted (threads.c): its samples are the parent's. */
	if (getpid() != __atomic_load_n(&mon_pid, __ATOMIC_RELAXED))
		return mon_fail(ESRCH);
	/* Past the arc limit the call graph is short: no file (glibc's rule),
	 * and stderr says why and what to do. */
	uint64_t arc_limit;
	if (mon_count_overflowed(&arc_limit)) {
		int e = errno;
		say_arcs_overflow(arc_limit);
		/* No file is due and stderr said why: the watcher (control.c)
		 * has nothing to add ("ended without writing its profile: it
		 * was killed" after an exit 0). */
		if (reason != MONOUT_WHY_SNAPSHOT && mon_control_calls.wrote != NULL)
			mon_control_calls.wrote();
		errno = e;
		return mon_fail(ENOSPC);
	}
	/* Wait (at most about two seconds) for a write in another thread. */
	if (write_lock() < 0)
		return -1;
	if (!in_handler)
		refresh_objects();
	else if (reason == MONOUT_WHY_EXIT || reason == MONOUT_WHY_SIGNAL)
		mon_sampler_close();	/* _exit or a fatal signal: the clocks still run */
	mon_count_sync();
	struct fill_ctx ctx = { reason, signo, NULL, 0, { 0 }, NULL, NULL, 0 };
	/* The last profile is being written: the watcher (control.c) has
	 * nothing to say, even when a signal held back during the write ends
	 * the process the moment the file is complete (monfile.c); a write
	 * that fails says so itself. */
	if (reason != MONOUT_WHY_SNAPSHOT && mon_control_calls.wrote != NULL)
		mon_control_calls.wrote();
	int rc = mon_file_write(flags, fill, &ctx, 0);
	int e = errno;
	__atomic_store_n(&write_owner, 0, __ATOMIC_RELEASE);
	errno = e;
	return rc;
}

void mon_write_wait(void)
{
	pid_t self = mon_gettid();
	for (int i = 0; i < 2000; i++) {
		pid_t owner = __atomic_load_n(&write_owner, __ATOMIC_ACQUIRE);
		if (owner == 0 || owner == self)
			return;
		mon_clock_own_nap(1000000);
	}
}

/* ---- starting and stopping ---------------------------------------------- */

/* profil(NULL, ...) turns sampling off; <unistd.h> declares buf nonnull. */
static void profil_off(void)
{
	unsigned short *none = NULL;
	MON_LAUNDER(none);
	profil(none, 0, 0, 0);
}

static void at_exit(void)
{
	int saved_errno = errno;
	mon_finish(MONOUT_WHY_EXIT);
	errno = saved_errno;
}

/* Is this exec followed (follow.c)?  Whole-process mode, still
 * profiling, libmon.so preloadable; in a vfork child (whose memory, flags
 * included, is its parent's) only under -f. */
static int exec_follows(int *vfork_child)
{
	if (!started || finished || !whole || !mon_follow_possible())
		return 0;
	*vfork_child = getpid() != mon_pid;
	return !*vfork_child || follow_forks;
}

/* Which environment: MON_FOLLOW_EXEC, _VFORK or _SPAWN; -1 for none. */
static int env_kind(int spawn)
{
	int vc;
	if (!exec_follows(&vc))
		return -1;
	if (spawn)
		return follow_forks ? MON_FOLLOW_SPAWN : -1;
	return vc ? MON_FOLLOW_VFORK : MON_FOLLOW_EXEC;
}

static size_t exec_env_size(char *const envp[], int spawn)
{
	int k = env_kind(spawn);
	return k < 0 ? 0 : mon_follow_env_size(envp, k, follow_forks);
}

static char **exec_env_build(char *const envp[], int spawn, void *buf, size_t size)
{
	int k = env_kind(spawn);
	return k < 0 ? NULL : mon_follow_env_build(envp, k, follow_forks, buf, size);
}

static int wall_stopped_for_exec;	/* mon_wall_stop before an exec */

static void before_exec(const char *path, int how, int fd)
{
	struct mon_stats st;
	int vc;
	if (!started || finished)
		return;
	int follow = exec_follows(&vc);
	if (follow)
		mon_follow_looks_at(path, how, fd);
	/* A fork child that only execs (monrun -f on a shell or make) has
	 * nothing to say: no file for it. */
	if (getpid() != start_pid && mon_getstats(&st, sizeof st) == 0 && st.samples == 0 &&
	    mon_wall_rounds() == 0) {
		if (follow)
			mon_follow_ending(path, NULL);
		return;
	}
	if (getpid() == mon_pid && mon_wall_running()) {
		mon_wall_stop();	/* its thread would die in the exec: end it first */
		wall_stopped_for_exec = 1;
	}
	if (follow) {
		/* The new image will write the usual name: ours gets .execN. */
		mon_file_set_exec_suffix(mon_follow_image_no());
		mon_follow_ending(path, NULL);
	}
	int rc = mon_write_profile(MONOUT_WHY_EXEC, 0, 0, 0);
	if (follow)	/* the file written: NAME.execN, or an interval's */
		mon_follow_ending(path, rc == 0 ? mon_file_last_written() : NULL);
}

static void exec_failed(void)
{
	if (getpid() != mon_pid)
		return;		/* vfork child: nothing of ours changed */
	if (wall_stopped_for_exec) {
		wall_stopped_for_exec = 0;
		mon_wall_resume();
	}
	mon_file_set_exec_suffix(0);
	/* An interval's file stays: the series goes on from it (control.c). */
	mon_follow_failed(mon_control_calls.intervals != NULL && mon_control_calls.intervals());
	if (mon_control_calls.exec_failed != NULL)
		mon_control_calls.exec_failed();
}

/* In a fork child, before its clock is armed (threads.c holds its lock:
 * take none here).  The child's profile holds the child's own time and
 * calls: start its copies from zero (profil(2) keeps filling the copied
 * buffer) while no tick can land, so that the samples it counts are the
 * samples its histograms hold. */
static void fork_reset(void)
{
	__atomic_store_n(&write_owner, 0, __ATOMIC_RELAXED);
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
	memcpy(&lock, &fresh, sizeof lock);
	mon_facts_reset();
	__atomic_store_n(&forks_unfollowed, 0, __ATOMIC_RELAXED);
	memset(&base, 0, sizeof base);	/* the child's intervals count from zero */
	if (!started || finished || (whole && !follow_forks))
		return;
	mon_count_reset();
	mon_objhist_reset();
	mon_stacks_reset();
	/* The child is this thread alone.  Our own bins (private anonymous
	 * memory): their pages dropped, not written (writing every bin backed
	 * a page of each in every child of a forking server).  A buffer the
	 * program gave monitor() may be memory a drop would not zero (shared,
	 * or a file's): only its nonzero bins are written. */
	if (hist.bins != NULL && hist.bins == own_bins)
		mon_zero_pages(hist.bins, hist.nbins * sizeof *hist.bins);
	else
		for (size_t i = 0; hist.bins != NULL && i < hist.nbins; i++)
			if (hist.bins[i])
				__atomic_store_n(&hist.bins[i], 0, __ATOMIC_RELAXED);
}

/* Is a child made now one monrun without -f does not follow (FORKS)? */
static int counts_unfollowed(void)
{
	return started && !finished && whole && !follow_forks;
}

static void fork_parent(void)
{
	if (counts_unfollowed())
		__atomic_add_fetch(&forks_unfollowed, 1, __ATOMIC_RELAXED);
}

/* Children that run a program without passing fork_parent: dash runs its
 * commands in vfork children, and posix_spawn's child is a vfork of the C
 * library's.  Without -f neither is followed, so each is counted as an
 * unfollowed fork (the FORKS record: prof names -f).  A vfork child
 * shares this memory, so its count is the parent's; it may try several
 * paths (a PATH search: an exec a path), counted once by its pid.  Two
 * vfork children of two threads trying paths in turn could count twice.
 * Children of system(3) and popen(3) spawn inside the C library, past
 * every interposed name: not counted. */
static pid_t vfork_counted;

static void vfork_exec(void)
{
	if (!counts_unfollowed())
		return;
	pid_t self = getpid();
	if (__atomic_exchange_n(&vfork_counted, self, __ATOMIC_RELAXED) != self)
		__atomic_add_fetch(&forks_unfollowed, 1, __ATOMIC_RELAXED);
}

static void spawned(int rc)
{
	if (rc == 0 && counts_unfollowed())
		__atomic_add_fetch(&forks_unfollowed, 1, __ATOMIC_RELAXED);
}

/* In a fork child, before its clock is armed: will fork_child stop it at
 * once?  Under monrun without -f, unless the program's own profil() or
 * sprofil() still needs a clock in the child. */
static int fork_unsampled(void)
{
	return started && !finished && whole && !follow_forks &&
	       (mon_sampling_users() & ~MON_USER_OBJHIST) == 0;
}

static void fork_child(void)
{
	/* The wall sampler did not come along: the child's own starts when the
	 * child goes on profiling, after its control thread (as whole_started
	 * orders them): started first, the sampler listed the control thread
	 * as the program's, with the program's thread waiting for it
	 * ("[futex mon_control_tid]"), in nginx's workers under monrun -f. */
	mon_wall_fork_child(started && !finished && !(whole && !follow_forks));
	if (!started || finished)
		return;
	mon_follow_fork_child();
	if (whole && !follow_forks) {
		/* monrun without -f: the child is not profiled and writes nothing. */
		finished = 1;
		__atomic_store_n(&mon_counting, 0, __ATOMIC_RELEASE);
		mon_objhist_stop();
		mon_stacks_stop();
		return;
	}
	if (whole && mon_control_calls.starting != NULL)
		mon_control_calls.starting();	/* forgets the parent's thread (the watcher is the parent's) */
	if (whole && mon_control_calls.started != NULL)
		mon_control_calls.started();	/* the child's own control thread */
	mon_wall_fork_go();
}

/* Objects were dlopen'ed while sampling them all: list them for the file
 * now, so that a write from a signal handler knows them too.  Early (dlopen
 * still running): no lock is waited for (write_owner is only tried).
 * Returns 1 when the unwind tables and the list are both current, 0 when
 * one was left for later (a writer held write_owner, a lock was busy, no
 * memory). */
static int after_dlopen(int early)
{
	pid_t self = mon_gettid(), none = 0;
	int current = mon_stacks_loaded(early) == 0;
	if (__atomic_compare_exchange_n(&write_owner, &none, self, 0, __ATOMIC_ACQUIRE,
					__ATOMIC_RELAXED)) {
		if (refresh_objects() < 0)
			current = 0;
		__atomic_store_n(&write_owner, 0, __ATOMIC_RELEASE);
	} else {
		current = 0;
	}
	return current;
}

__attribute__((constructor)) void mon_monitor_init(void)
{
	MON_ONCE();
	mon_hooks.before_exec = before_exec;
	mon_hooks.fork_reset = fork_reset;
	mon_hooks.exec_failed = exec_failed;
	mon_hooks.exec_env_size = exec_env_size;
	mon_hooks.exec_env_build = exec_env_build;
	mon_hooks.vfork_exec = vfork_exec;
	mon_hooks.spawned = spawned;
	mon_hooks.fork_child = fork_child;
	mon_hooks.fork_unsampled = fork_unsampled;
	mon_hooks.fork_parent = fork_parent;
	mon_hooks.after_dlopen = after_dlopen;
}

/* Every constructor of libmon's, once each (init.c's and this file's):
 * a start can come before them (cc -pg's __monstartup runs from the first
 * _init; a static link runs the program's constructors before libmon.a's). */
static void start_init(void)
{
	mon_runtime_init();
	mon_monitor_init();
}

static void say(const char *lead, size_t n, const char *why);

/* A new run after monitor(0) (monitor.3, "A new run"): everything the last
 * one counted is dropped — call counts and arcs, the stacks, the sampler's
 * counters, the run's facts — so that the next file holds this run alone.
 * The clocks are stopped (mon_finish).  Under lock. */
static void restart(void)
{
	mon_count_restart();
	mon_stacks_reset();
	if (whole)
		mon_objhist_reset();
	if (mon_hooks.counters_reset)
		mon_hooks.counters_reset(0);
	mon_facts_reset();
	mon_clock_unsampled_reset();
}

/* Set up once per image: output name, tables, handlers.  Under lock. */
static int setup(int mode)
{
	if (started)
		return 0;
	/* An invalid MONPROF_* value: one line on stderr (settings.c), and
	 * no profiling (silently for start_failed: it was said). */
	if (mon_settings_check() < 0)
		return mon_fail(mode == MON_MODE_AUTO ? ECANCELED : EINVAL);
	if (mon_control_calls.configure != NULL)
		mon_control_calls.configure();
	mon_follow_setup();
	struct mon_file_inherited inh;
	int followed = mon_follow_inherited(&inh.root, &inh.dir, &inh.with_pid);
	if (mon_file_setup(mode, followed ? &inh : NULL) < 0)
		return -1;
	if (mon_count_init() < 0 || mon_facts_init() < 0)
		return -1;
	refresh_objects();
	read_cmdline();
	start_pid = getpid();
	/* No /proc (a container or jail without it): what only it tells is
	 * missing from the profile; say what, once. */
	if (access("/proc/self/task", F_OK) != 0 && errno == ENOENT) {
		static const char lead[] = "monprof: /proc is not mounted: ";
		say(lead, sizeof lead - 1,
		    "threads running before profiling started are not sampled; threads' CPU "
		    "times, the arguments and the stack bounds are not recorded");
	}
	if (!at_exit_registered) {
		at_exit_registered = 1;
		atexit(at_exit);
	}
	static const struct mon_fatal_calls calls = { mon_started, mon_write_profile,
						       mon_write_wait, mon_write_at_exit };
	mon_fatal_install(&calls);
	/* The program's name, found now and kept (objects.c): a daemon that
	 * changes directory or root later is still named as it was run. */
	mon_free(mon_self_exe());
	started = 1;
	return 0;
}

/* "LEAD WHY\n" (lead, n bytes, starts with "monprof: ") on standard error
 * in one writev(2) (no stdio: the program's buffers are its own); why NULL
 * reads "unknown error". */
static void say(const char *lead, size_t n, const char *why)
{
	if (why == NULL)
		why = "unknown error";
	struct iovec v[3] = {
		{ (void *)lead, n },
		{ (void *)why, strlen(why) },
		{ (void *)"\n", 1 },
	};
	ssize_t r;
	do
		r = writev(STDERR_FILENO, v, 3);
	while (r < 0 && errno == EINTR);
}

/* Call stacks on, before the clocks (every sample then has its stack).
 * They cannot start (no memory for the table): the
 * flat profile goes on, and stderr says so once.  Under lock. */
static void stacks_on(void)
{
	static int told;
	if (mon_stacks_start() == 0 || told)
		return;
	told = 1;
	int e = errno;
	static const char lead[] = "monprof: no call stacks in this profile: ";
	const char *why = strerrordesc_np(e);
	say(lead, sizeof lead - 1, why);
}

/* Wall-clock sampling on when MONPROF_WALL asks (wall.c), beside the CPU
 * clocks.  It cannot start: the CPU profile goes on, and stderr says so
 * once.  Under lock. */
static void wall_on(void)
{
	static int told;
	unsigned hz = mon_wall_setting();
	if (hz == 0 || mon_wall_start(hz, mon_stacks_depth_setting()) == 0 || told)
		return;
	told = 1;
	int e = errno;
	static const char lead[] = "monprof: no wall-clock samples in this profile: ";
	say(lead, sizeof lead - 1, strerrordesc_np(e));
}

/* Start sampling bins[0..nbins) over [lo, hi).  Under lock. */
static int start_hist(uintptr_t lo, uintptr_t hi, WORD *bins, size_t nbins, unsigned scale,
		      int must)
{
	if (scale == 0)
		scale = mon_bin_scale_fit(lo, hi, nbins);
	if (profil(bins, nbins * sizeof(WORD), lo, scale) < 0) {
		if (must)
			return -1;
		bins = NULL;	/* counting goes on without a histogram */
		nbins = 0;
	}
	hist.lowpc = lo;
	hist.highpc = hi;
	hist.scale = scale;
	hist.bins = bins;
	hist.nbins = nbins;
	return 0;
}

MON_EXPORT void monitor(mon_pc_t lowpc, mon_pc_t highpc, WORD *buffer, size_t bufsize,
			size_t nfunc)
{
	int saved_errno = errno;
	uintptr_t lo = (uintptr_t)lowpc.mon_p, hi = (uintptr_t)highpc.mon_p;
	MON_LAUNDER(buffer);
	if (lo == 0) {
		mon_finish(MONOUT_WHY_MONITOR);
		errno = saved_errno;
		return;
	}
	start_init();	/* called from a constructor of a static program's */
	pthread_mutex_lock(&lock);
	int e = 0, was_started = started;
	uintptr_t tlo, thi;
	if (main_text(&tlo, &thi) == 0 && lo < tlo)
		lo = tlo;	/* "(int (*)())2": the start of the program's text */
	size_t head = sizeof(struct hdr) / sizeof(WORD);
	size_t cellw = sizeof(struct cnt) / sizeof(WORD);
	if (buffer == NULL || lo >= hi || ((uintptr_t)buffer % _Alignof(struct hdr)) != 0) {
		e = EINVAL;
	} else if (nfunc > (SIZE_MAX - head) / cellw || head + nfunc * cellw >= bufsize) {
		e = ENOSPC;
	} else if (setup(MON_MODE_EXPLICIT) < 0) {
		e = errno;
	} else {
		if (started && finished)
			restart();	/* after monitor(0): a new run */
		size_t ssiz = head + nfunc * cellw;
		struct hdr *h = (struct hdr *)(void *)buffer;
		struct cnt *cells = (struct cnt *)(void *)(h + 1);
		WORD *bins = buffer + ssiz;
		size_t nbins = bufsize - ssiz;
		h->lpc = (char *)lo;
		h->hpc = (char *)hi;
		h->nfns = nfunc;
		memset(cells, 0, nfunc * sizeof *cells);
		memset(bins, 0, nbins * sizeof *bins);
		if (start_hist(lo, hi, bins, nbins, 0, 1) < 0) {
			e = errno;
			/* Nothing started: no file at monitor(0) or exit. */
			if (!was_started)
				started = 0;
		} else {
			if (nfunc)
				mon_count_add_block(cells, nfunc);
			finished = 0;
			paused = 0;
			base.on_since = 1;
			__atomic_store_n(&mon_counting, 1, __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&lock);
	errno = e ? e : saved_errno;
}

/* Default histogram: one bin per 4 bytes of text up to 64 MiB of text, one
 * per 8 bytes beyond (System V's cc -p used 8; finer costs little). */
static int start_default(uintptr_t lo, uintptr_t hi, int mode, int must)
{
	if (setup(mode) < 0)
		return -1;
	size_t per = hi - lo > ((size_t)64 << 20) ? 8 : 4;
	size_t nbins = (hi - lo + per - 1) / per;
	WORD *bins = mon_alloc((nbins ? nbins : 1) * sizeof *bins);
	if (bins == NULL)
		return mon_fail(ENOMEM);
	memset(bins, 0, (nbins ? nbins : 1) * sizeof *bins);	/* mon_alloc reuses memory */
	WORD *old = own_bins;
	if (start_hist(lo, hi, bins, nbins, mon_bin_scale(per), must) < 0) {
		int e = errno;
		mon_free(bins);
		errno = e;
		return -1;
	}
	own_bins = bins;
	mon_free(old);
	finished = 0;
	paused = 0;
	base.on_since = 1;
	__atomic_store_n(&mon_counting, 1, __ATOMIC_RELEASE);
	return 0;
}

MON_EXPORT int monstartup(mon_pc_t lowpc, mon_pc_t highpc)
{
	uintptr_t lo = (uintptr_t)lowpc.mon_p, hi = (uintptr_t)highpc.mon_p, tlo, thi;
	int saved_errno = errno;
	start_init();	/* called from a constructor of a static program's */
	pthread_mutex_lock(&lock);
	if (main_text(&tlo, &thi) == 0 && lo < tlo)
		lo = tlo;
	int was_started = started;
	/* A second monstartup while the first one's profile runs: refused,
	 * the first goes on (monitor.3).  After monitor(0): a new run, from
	 * zero. */
	int rc = lo >= hi ? mon_fail(EINVAL)
		 : started && !finished && by_monstartup ? mon_fail(EBUSY)
					: setup(MON_MODE_EXPLICIT);
	if (rc == 0 && started && finished)
		restart();
	if (rc == 0) {
		stacks_on();	/* before the clock: every sample has its stack */
		rc = start_default(lo, hi, MON_MODE_EXPLICIT, 1);
		if (rc == 0) {
			with_stacks = 1;
			by_monstartup = 1;
			wall_on();
		}
		else if (!with_stacks) {
			int e = errno;
			mon_stacks_stop();
			errno = e;
		}
	}
	int e = errno;
	if (rc < 0 && !was_started)
		started = 0;	/* nothing started: no file at exit */
	pthread_mutex_unlock(&lock);
	errno = rc < 0 ? e : saved_errno;
	return rc;
}

/* Whole-process profiling, its first part: set up, or, asked by
 * MONPROF_DORMANT, loaded and ready with no clock.  *arm: the clocks are
 * still to start (arm_whole, after the runtime's own start).  Under lock. */
static int start_whole(int *arm)
{
	*arm = 0;
	if (setup(MON_MODE_AUTO) < 0)
		return -1;
	const char *dv = getauxval(AT_SECURE) ? NULL : mon_env("MONPROF_DORMANT");
	if (dv != NULL && strcmp(dv, "1") == 0) {
		/* Loaded, tables and names ready, no clock and no sink: monctl on
		 * (moncontrol(1)) starts what follows. */
		whole = 1;
		with_stacks = 1;
		finished = 0;
		paused = 1;
		dormant = 1;
		mon_facts_profiling(0);
		return 0;
	}
	*arm = 1;
	return 0;
}

/* Whole-process profiling, its second part: a histogram for every loaded
 * object (32-bit bins, one per 4 bytes of text), the clocks in every
 * thread, counting on.  Before the runtime's own start (its watcher
 * process, whole_started), so that a start that fails here leaves no
 * watcher behind, but with this thread's ticks left out until that start
 * is done (mon_clock_own_work): sampled, it was the program's CPU (about
 * 0.1 ms a process, the watcher's clone(2) most: 2 samples a run of a 20 ms
 * program at 20 kHz, start_once -> mon_whole_start -> started -> syscall);
 * it is in the CPU before the start (mon_facts_armed, after it).  The
 * control thread (only with intervals or monctl) starts after that: its
 * creation is sampled as before.  Under lock. */
static int arm_whole(void)
{
	stacks_on();
	if (mon_objhist_start(4) < 0) {
		int e = errno;
		mon_stacks_stop();
		errno = e;
		return -1;
	}
	whole = 1;
	with_stacks = 1;
	finished = 0;
	paused = 0;
	base.on_since = 1;
	__atomic_store_n(&mon_counting, 1, __ATOMIC_RELEASE);
	return 0;	/* the wall sampler: after control_start (whole_started) */
}

/* Whole-process profiling could not start (cc -pg, -finstrument-functions,
 * monrun): no caller can read errno, so say it, once, on stderr with
 * write(2), and run the program unprofiled (no file at exit), rather than
 * disable profiling silently.  PROFDIR set and empty asked for exactly
 * that: no message.  Under lock. */
static void start_failed(int e)
{
	finished = 1;
	__atomic_store_n(&mon_counting, 0, __ATOMIC_RELEASE);
	if (e == ECANCELED)
		return;
	const char *why = e == ENOTSUP ? "no profiling clock could be started "
					 "(perf events, CPU-time timers and ITIMER_PROF refused)"
				       : strerrordesc_np(e);
	static const char lead[] = "monprof: not profiling this program: ";
	say(lead, sizeof lead - 1, why);
}

/* After start_whole (ok: it did not fail), outside our lock: when
 * start_whole left them to start (arm), the clocks (arm_whole), with this
 * thread's ticks left out (mon_clock_own_work) through the runtime's own
 * start, the watcher (control.c starting); then the CPU before the start
 * read again (mon_facts_armed), which holds that start's; then the
 * control thread (control.c started; it takes our lock to switch
 * profiling on and off), then the wall sampler (not dormant): after both,
 * so that it never samples the program's thread waiting (wait4) for the
 * watcher's start, nor the control thread, as the program's.  A start
 * that fails leaves neither watcher nor thread. */
static void whole_started(int ok, int arm)
{
	if (!ok)
		return;
	if (arm) {
		mon_clock_own_work(1);
		pthread_mutex_lock(&lock);
		ok = arm_whole() == 0;
		if (!ok)
			start_failed(errno);
		pthread_mutex_unlock(&lock);
		if (!ok) {
			mon_clock_own_work(0);
			return;
		}
	}
	if (mon_control_calls.starting != NULL)
		mon_control_calls.starting();
	if (arm) {
		pthread_mutex_lock(&lock);
		mon_facts_armed();
		pthread_mutex_unlock(&lock);
		mon_clock_own_work(0);
	}
	if (mon_control_calls.started != NULL)
		mon_control_calls.started();
	pthread_mutex_lock(&lock);
	if (whole && !dormant && !finished)
		wall_on();
	pthread_mutex_unlock(&lock);
}

void mon_auto_start(uintptr_t lowpc, uintptr_t highpc)
{
	static int once;
	(void)lowpc;
	(void)highpc;
	if (__atomic_exchange_n(&once, 1, __ATOMIC_ACQ_REL))
		return;
	int saved_errno = errno, ok = 0, arm = 0;
	start_init();	/* cc -pg's start comes before libmon's constructors */
	pthread_mutex_lock(&lock);
	if (!started) {
		ok = start_whole(&arm) == 0;
		if (!ok)
			start_failed(errno);
	}
	pthread_mutex_unlock(&lock);
	whole_started(ok, arm);
	errno = saved_errno;
}

void mon_whole_start(int follow)
{
	int saved_errno = errno, ok = 0, arm = 0;
	pthread_mutex_lock(&lock);
	follow_forks = follow;
	if (!started) {
		ok = start_whole(&arm) == 0;
		if (!ok)
			start_failed(errno);
	}
	pthread_mutex_unlock(&lock);
	whole_started(ok, arm);
	errno = saved_errno;
}

int mon_dormant(void)
{
	return dormant;
}

void mon_finish(int reason)
{
	/* A child process libmon did not fork (threads.c): adopted now, or, in
	 * a vfork child, left alone. */
	if (mon_threads_adopt_process() < 0)
		return;
	pthread_mutex_lock(&lock);
	if (!started || finished) {
		pthread_mutex_unlock(&lock);
		return;
	}
	finished = 1;
	by_monstartup = 0;
	__atomic_store_n(&mon_counting, 0, __ATOMIC_RELEASE);
	if (dormant) {
		/* Never switched on: nothing was sampled, no file. */
		if (mon_control_calls.wrote != NULL)
			mon_control_calls.wrote();
		pthread_mutex_unlock(&lock);
		return;
	}
	if (hist.bins != NULL && !paused)
		profil_off();
	if (whole)
		mon_objhist_stop();
	if (with_stacks)
		mon_stacks_stop();
	pthread_mutex_unlock(&lock);
	mon_wall_stop();
	mon_write_profile(reason, 0, 0, 0);
}

void mon_write_at_exit(void)
{
	struct mon_stats st;
	if (!started || finished || getpid() != mon_pid || dormant)
		return;		/* not profiling, written already, a vfork child, or
				 * dormant and never switched on */
	if (getpid() != start_pid && mon_getstats(&st, sizeof st) == 0 && st.samples == 0 &&
	    mon_wall_rounds() == 0)
		return;		/* a fork child that did nothing (exec failed?) */
	finished = 1;
	__atomic_store_n(&mon_counting, 0, __ATOMIC_RELEASE);
	mon_write_profile(MONOUT_WHY_EXIT, 0, 0, 1);
}

int mon_started(void)
{
	return started && !finished;
}

MON_EXPORT int moncontrol(int mode)
{
	int saved_errno = errno;
	pthread_mutex_lock(&lock);
	if (!started || finished) {
		pthread_mutex_unlock(&lock);
		return mon_fail(EINVAL);
	}
	int was = !paused;
	if (mode && paused) {
		if (with_stacks)
			stacks_on();
		if (hist.bins != NULL)
			profil(hist.bins, hist.nbins * sizeof(WORD), hist.lowpc, hist.scale);
		if (whole)
			mon_objhist_start(4);
		if (dormant)
			wall_on();	/* a dormant start's wall sampler begins now */
		dormant = 0;
		__atomic_store_n(&mon_counting, 1, __ATOMIC_RELEASE);
		mon_wall_pause(0);
		paused = 0;
		mon_facts_profiling(1);
		base.on_since = 1;
	} else if (!mode && !paused) {
		__atomic_store_n(&mon_counting, 0, __ATOMIC_RELEASE);
		if (hist.bins != NULL)
			profil_off();
		if (whole)
			mon_objhist_stop();
		if (with_stacks)
			mon_stacks_stop();
		mon_wall_pause(1);
		paused = 1;
		mon_facts_profiling(0);
	}
	pthread_mutex_unlock(&lock);
	errno = saved_errno;
	return was;
}

MON_EXPORT int mon_write(void)
{
	if (!started)
		return mon_fail(ENOENT);
	return mon_write_profile(MONOUT_WHY_SNAPSHOT, 0, MONOUT_F_SNAPSHOT, 0);
}

MON_EXPORT int mon_setclock(int clock, unsigned rate_hz)
{
	if (clock < MON_CLOCK_NONE || clock > MON_CLOCK_ITIMER || rate_hz < 1 ||
	    rate_hz > MON_SETTING_RATE_MAX)
		return mon_fail(EINVAL);
	int saved_errno = errno;
	mon_lock();
	mon_clock_set_next(clock, rate_hz);
	mon_unlock();
	errno = saved_errno;
	return 0;
}

MON_EXPORT const char *mon_outname(void)
{
	return started ? mon_file_name() : NULL;
}

/* ---- the compiler's hooks (the counting itself is in mcount.c) ------- */

/* -finstrument-functions.  The first call starts whole-program profiling
 * (nothing else tells a library that the program is instrumented). */
MON_EXPORT void __cyg_profile_func_enter(void *this_fn, void *call_site)
{
	static int tried;
	if (__builtin_expect(!__atomic_load_n(&tried, __ATOMIC_RELAXED), 0)) {
		if (!__atomic_exchange_n(&tried, 1, __ATOMIC_ACQ_REL)) {
			int saved_errno = errno;
			mon_auto_start(0, 0);
			errno = saved_errno;
		}
	}
	mon_count((uintptr_t)call_site, (uintptr_t)this_fn);
}

MON_EXPORT void __cyg_profile_func_exit(void *this_fn, void *call_site)
{
	(void)this_fn;
	(void)call_site;
}

/* gcrt1.o (cc -pg) calls __monstartup(text start, etext) before main and
 * registers _mcleanup with atexit. */
MON_EXPORT void __monstartup(unsigned long lowpc, unsigned long highpc)
{
	int saved_errno = errno;
	mon_auto_start(lowpc, highpc);
	errno = saved_errno;
}

MON_EXPORT void _mcleanup(void)
{
	int saved_errno = errno;
	mon_finish(MONOUT_WHY_EXIT);
	errno = saved_errno;
}
