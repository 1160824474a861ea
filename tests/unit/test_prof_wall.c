/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_prof_wall.c — prof's wall-clock and off-CPU profiles from end to
 * end on a synthetic profile: a mon.out written with the format module's
 * writer (a RUN, this test program as the OBJECT, CPU-clock STACKS and a
 * WALL record), read by prof_read, attributed against this program's own
 * symbols (its functions below and its data symbols queue_lock and
 * lock_table, which name the futex words), made into the model and
 * rendered by every renderer with --sample=cpu, wall and offcpu.
 *
 * The run it describes, at 100 Hz of wall-clock time (2 s):
 *   tid 100 "main": running 80 samples (no stack: placed on its CPU stacks,
 *     30 in spin and 10 in other, so 60 and 20), runnable 20 (15 and 5,
 *     under [runnable]), blocked in futex on queue_lock held by tid 101 for
 *     100 samples, in lock_wait;
 *   tid 101 "reader": blocked in read on a pipe 150 samples, in
 *     clock_nanosleep 40, in recvfrom on a socket to 127.0.0.1:5432 5 and on
 *     one a client made to its port 8080 5, in
 *     futex on lock_table[1] 7; 5 rounds whose state could not be read; 250
 *     samples due (so it is short of them: a warning).
 * Linked with prof's internal archive and the format's objects.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <link.h>
#include <elf.h>
#include <cmocka.h>
#include <zlib.h>

#include "prof.h"
#include "out/out.h"
#include "monout.h"

/* The code and the data the samples name (their symbols are this
 * program's own: noinline, used, so that each is a function of its own). */
__attribute__((noinline, used)) void wall_thread_start(void) { __asm__ volatile("nop; nop; nop; nop; nop; nop; nop; nop"); }
__attribute__((noinline, used)) void wall_worker(void) { __asm__ volatile("nop; nop; nop; nop; nop; nop; nop; nop"); }
__attribute__((noinline, used)) void wall_spin(void) { __asm__ volatile("nop; nop; nop; nop; nop; nop; nop; nop"); }
__attribute__((noinline, used)) void wall_other(void) { __asm__ volatile("nop; nop; nop; nop; nop; nop; nop; nop"); }
__attribute__((noinline, used)) void wall_lock_wait(void) { __asm__ volatile("nop; nop; nop; nop; nop; nop; nop; nop"); }
__attribute__((noinline, used)) void wall_reader(void) { __asm__ volatile("nop; nop; nop; nop; nop; nop; nop; nop"); }
int queue_lock = 1;
long lock_table[4] = { 1, 2, 3, 4 };

static uint64_t bias, text_lo, text_hi;

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	bias = info->dlpi_addr;	/* the first object is the program */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			text_lo = bias + ph->p_vaddr;
			text_hi = text_lo + ph->p_memsz;
		}
	}
	return 1;
}

static uint64_t at(void (*f)(void), int off)
{
	return (uint64_t)(uintptr_t)f + (uint64_t)off;
}

static char path[] = "/tmp/test_prof_wall.XXXXXX";
static char exe[4096];

/* Writes the profile described above; with_wall 0: the same run without
 * its WALL record. */
static void write_profile(int with_wall)
{
	dl_iterate_phdr(phdr_cb, NULL);
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	struct monout_writer w;
	struct monout_run run;
	memset(&run, 0, sizeof run);
	run.rate_hz = 1000;
	run.clock = 1;
	run.reason = MONOUT_WHY_OTHER;
	run.pid = 100;
	assert_int_equal(monout_begin(&w, fd, 0), 0);
	assert_int_equal(monout_put_run(&w, &run), 0);
	struct monout_object obj = { bias, text_lo, text_hi, MONOUT_OBJ_MAIN, 0, NULL,
				     (uint32_t)strlen(exe), exe, 0, 0, 0, 0, 0 };
	assert_int_equal(monout_put_object(&w, &obj), 0);
	/* CPU-clock stacks of tid 100: 30 in spin, 10 in other. */
	struct monout_stacks_head sh;
	memset(&sh, 0, sizeof sh);
	sh.max_depth = 64;
	assert_int_equal(monout_stacks_open(&w, &sh), 0);
	uint64_t spin[3] = { at(wall_spin, 2), at(wall_worker, 3), at(wall_thread_start, 3) };
	uint64_t other[3] = { at(wall_other, 2), at(wall_worker, 5), at(wall_thread_start, 3) };
	assert_int_equal(monout_stacks_add(&w, 30, 100, 0, spin, 3), 0);
	assert_int_equal(monout_stacks_add(&w, 10, 100, 0, other, 3), 0);
	assert_int_equal(monout_stacks_close(&w), 0);
	if (with_wall) {
		struct monout_wall_head h = { 100, 64, 2000000, 200, 4, 3000, 7000, 0, 0, 0, EM_X86_64 };
		if (with_wall == 2) {	/* a sampler of 6 % of one CPU: wall-cost */
			h.user_usec = 40000;
			h.sys_usec = 80000;
		}
		assert_int_equal(monout_wall_open(&w, &h), 0);
		struct monout_wall_thread t0 = { 100, 200, 200, 0, 0, 2000000, 0, "main" };
		struct monout_wall_thread t1 = { 101, 250, 207, 5, 0, 2000000, 0, "reader" };
		assert_int_equal(monout_wall_thread(&w, &t0), 0);
		assert_int_equal(monout_wall_thread(&w, &t1), 0);
		struct monout_wait futex = { 1, MONOUT_WAIT_FUTEX, MONOUT_NO_FD, 0,
			(uint64_t)(uintptr_t)&queue_lock, 0, MONOUT_WAIT_OWNER | MONOUT_WAIT_MUTEX,
			(uint64_t)(uintptr_t)&queue_lock - bias, 101, 0, NULL };
		struct monout_wait table = { 2, MONOUT_WAIT_FUTEX, MONOUT_NO_FD, 0,
			(uint64_t)(uintptr_t)&lock_table[1], 0, 0,
			(uint64_t)(uintptr_t)&lock_table[1] - bias, 0, 0, NULL };
		struct monout_wait pipe = { 3, MONOUT_WAIT_FD, 4, MONOUT_FD_PIPE, 0, MONOUT_NO_OBJECT,
					    0, 0, 0, 12, "pipe:[31337]" };
		static const char sock[] = "tcp 127.0.0.1:41234 127.0.0.1:5432";
		struct monout_wait sk = { 4, MONOUT_WAIT_FD, 5, MONOUT_FD_SOCKET, 0, MONOUT_NO_OBJECT,
					  0, 0, 0, (uint32_t)strlen(sock), sock };
		assert_int_equal(monout_wall_wait(&w, &futex), 0);
		assert_int_equal(monout_wall_wait(&w, &table), 0);
		assert_int_equal(monout_wall_wait(&w, &pipe), 0);
		static const char srv[] = "tcp 127.0.0.1:8080 127.0.0.1:45678";
		struct monout_wait sv = { 5, MONOUT_WAIT_FD, 6, MONOUT_FD_SOCKET, 0, MONOUT_NO_OBJECT,
					  0, 0, 0, (uint32_t)strlen(srv), srv };
		/* A listening socket: no peer ("-"). */
		static const char lst[] = "tcp 0.0.0.0:6379 -";
		struct monout_wait ls = { 6, MONOUT_WAIT_FD, 7, MONOUT_FD_SOCKET, 0, MONOUT_NO_OBJECT,
					  0, 0, 0, (uint32_t)strlen(lst), lst };
		assert_int_equal(monout_wall_wait(&w, &sk), 0);
		assert_int_equal(monout_wall_wait(&w, &sv), 0);
		assert_int_equal(monout_wall_wait(&w, &ls), 0);
		uint64_t lock[3] = { at(wall_lock_wait, 2), at(wall_worker, 7), at(wall_thread_start, 3) };
		uint64_t rd[2] = { at(wall_reader, 2), at(wall_thread_start, 5) };
		struct monout_wall_sample s[] = {
			{ 80, 100, MONOUT_WALL_RUNNING, MONOUT_NO_SYSCALL, MONOUT_NO_WAIT, 0, 0, NULL, 0 },
			{ 20, 100, MONOUT_WALL_RUNNABLE, MONOUT_NO_SYSCALL, MONOUT_NO_WAIT, 0, 0, NULL, 0 },
			{ 100, 100, MONOUT_WALL_BLOCKED, 202, 1, 3, 0, lock, 0 },
			{ 150, 101, MONOUT_WALL_BLOCKED, 0, 3, 2, 0, rd, 0 },
			{ 40, 101, MONOUT_WALL_BLOCKED, 230, MONOUT_NO_WAIT, 2, 0, rd, 0 },
			{ 5, 101, MONOUT_WALL_BLOCKED, 45, 4, 2, 0, rd, 0 },
			{ 3, 101, MONOUT_WALL_BLOCKED, 45, 5, 2, 0, rd, 0 },
			{ 2, 101, MONOUT_WALL_BLOCKED, 43, 6, 2, 0, rd, 0 },
			{ 7, 101, MONOUT_WALL_BLOCKED, 202, 2, 2, 0, rd, 0 },
		};
		for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
			assert_int_equal(monout_wall_sample(&w, &s[i]), 0);
		if (with_wall == 2) {
			/* Uninterruptible: an fsync of a file (wait 7), and one
			 * whose descriptor was not described. */
			static const char wal[] = "/var/lib/db/wal.log";
			struct monout_wait fw = { 7, MONOUT_WAIT_FD, 8, MONOUT_FD_FILE, 0,
						  MONOUT_NO_OBJECT, 0, 0, 0, (uint32_t)strlen(wal), wal };
			assert_int_equal(monout_wall_wait(&w, &fw), 0);
			struct monout_wall_sample dsk[] = {
				{ 4, 101, MONOUT_WALL_DISK, 74, 7, 2, 0, rd, 0 },
				{ 2, 101, MONOUT_WALL_DISK, 74, MONOUT_NO_WAIT, 2, 0, rd, 0 },
			};
			for (size_t i = 0; i < sizeof dsk / sizeof dsk[0]; i++)
				assert_int_equal(monout_wall_sample(&w, &dsk[i]), 0);
		}
		assert_int_equal(monout_wall_close(&w), 0);
	}
	assert_int_equal(monout_end(&w), 0);
	close(fd);
}

static void quiet(const struct prof_warning *wn, void *arg)
{
	(void)wn;
	(void)arg;
}

struct run {
	struct prof_attr a;
	struct prof_profile p;
};

static void build(struct run *r, int with_wall)
{
	struct prof_data d;
	char err[512];
	prof_warnings_clear();
	prof_warn_set_sink(quiet, NULL);
	write_profile(with_wall);
	assert_int_equal(prof_read(path, NULL, &d, err, sizeof err), 0);
	unlink(path);
	strcpy(path, "/tmp/test_prof_wall.XXXXXX");
	attr_init(&r->a, 1);
	if (attr_add(&r->a, &d, NULL, err, sizeof err) != 0)
		fail_msg("attr_add: %s", err);
	prof_data_free(&d);
	attr_finish(&r->a);
	assert_int_equal(profile_build(&r->a, 1, &r->p), 0);
}

static void done(struct run *r)
{
	profile_free(&r->p);
	attr_free(&r->a);
	prof_warnings_clear();
	prof_warn_set_sink(NULL, NULL);
}

static char *render(const struct prof_profile *p, const char *format, int event, int threads,
		    size_t *len)
{
	struct prof_opts o = { .demangle = 1, .event = event, .threads = threads };
	o.renderer = prof_renderer_find(format);
	char *buf = NULL;
	size_t n;
	FILE *f = open_memstream(&buf, len ? len : &n);
	assert_non_null(f);
	assert_int_equal(prof_render(p, &o, f, stderr), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* r built from the profile with_wall (as build), and its view in format
 * (as render): the text to free. */
static char *build_render(struct run *r, int with_wall, const char *format, int event,
			  int threads)
{
	build(r, with_wall);
	return render(&r->p, format, event, threads, NULL);
}

/* The line of t that holds needle, as a string (static buffer). */
static const char *line_of(const char *t, const char *needle)
{
	static char b[1024];
	const char *s = strstr(t, needle);
	if (!s)
		return "";
	while (s > t && s[-1] != '\n')
		s--;
	size_t n = strcspn(s, "\n");
	snprintf(b, sizeof b, "%.*s", (int)n, s);
	return b;
}

/* The model: the sample types and events, each wall sample's values per
 * type, the running samples placed on the CPU stacks in proportion, the
 * states.  Mutations caught: off-CPU counting running samples (total
 * 390 + ...), running samples dropped for want of a stack (wall total 332),
 * unreadable rounds left out (wall 407). */
static void wall_model(void **state)
{
	(void)state;
	struct run r;
	build(&r, 1);
	const struct prof_profile *p = &r.p;
	assert_true(p->events[PROF_EV_CPU].present);
	assert_true(p->events[PROF_EV_WALL].present);
	assert_true(p->events[PROF_EV_OFFCPU].present);
	assert_true(prof_has_type(p, PROF_VAL_WALL));
	assert_string_equal(p->sample_types[PROF_VAL_WALL].type, "wall");
	assert_string_equal(p->sample_types[PROF_VAL_WALL].export_unit, "nanoseconds");
	assert_string_equal(p->sample_types[PROF_VAL_OFFCPU].type, "off-cpu");
	assert_string_equal(p->event_types[PROF_EV_WALL].column, "Wallsecs");
	assert_int_equal(prof_event_find("offcpu"), PROF_EV_OFFCPU);
	assert_int_equal(prof_event_find("off-cpu"), PROF_EV_OFFCPU);
	assert_int_equal(prof_event_find("heap"), -1);
	/* 80 + 20 + 100 + 150 + 40 + 10 + 7 + 5 unreadable */
	assert_float_equal(p->events[PROF_EV_WALL].total_samples, 412, 1e-9);
	assert_float_equal(p->events[PROF_EV_WALL].total_seconds, 4.12, 1e-9);
	/* Not running: all but the 80 running and the 5 not read. */
	assert_float_equal(p->events[PROF_EV_OFFCPU].total_samples, 327, 1e-9);
	assert_float_equal(p->events[PROF_EV_WALL].rate_hz, 100, 0);
	assert_true(p->events[PROF_EV_WALL].have_stacks);
	/* The CPU event is the stacks' (40 samples at 1000 Hz). */
	assert_float_equal(p->events[PROF_EV_CPU].rate_hz, 1000, 0);
	/* Running placed 3:1 on the CPU stacks (60 spin, 20 other). */
	double spin = 0, other = 0;
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct prof_sample *s = &p->samples[i];
		if (s->state != PROF_TS_RUNNING)
			continue;
		const char *leaf = p->functions[p->locations[s->locations[0]].lines[0].function].name;
		if (strcmp(leaf, "wall_spin") == 0)
			spin += s->value[PROF_VAL_WALL_SAMPLES];
		if (strcmp(leaf, "wall_other") == 0)
			other += s->value[PROF_VAL_WALL_SAMPLES];
		assert_float_equal(s->value[PROF_VAL_OFFCPU], 0, 0);
		assert_float_equal(s->value[PROF_VAL_CPU], 0, 0);
	}
	assert_float_equal(spin, 60, 1e-9);
	assert_float_equal(other, 20, 1e-9);
	done(&r);
}

/* An uninterruptible wait in a descriptor's system call names the file
 * as an interruptible one does (a new user's "[uninterruptible fsync]"
 * said which call, not which file); one not described keeps the call. */
static void wall_disk_file(void **state)
{
	(void)state;
	struct run r;
	char *t = build_render(&r, 2, "text", PROF_EV_WALL, 0);
	assert_non_null(strstr(t, "[uninterruptible fsync /var/lib/db/wal.log]"));
	assert_non_null(strstr(t, "[uninterruptible fsync]"));
	free(t);
	done(&r);
}

/* The wait reasons, as leaf frames of the flat wall-clock view: the futex
 * by the data symbol it lies in and its holder, a word inside an array,
 * the pipe, the socket by its service's end, a sleep by its system call's
 * name.  Mutations: data symbols not read (the futex named by address),
 * the owner left out, syscall numbers not named, the socket's client port
 * kept, a listening socket's missing peer shown as "-". */
static void wall_text(void **state)
{
	(void)state;
	struct run r;
	char *t = build_render(&r, 1, "text", PROF_EV_WALL, 0);
	assert_non_null(strstr(t, " %Time Wallsecs  Cumsecs  #Calls   msec/call   %Incl InclSecs  Name"));
	/* 150 samples at 100 Hz of 412: 36.4 %, 1.50 s */
	assert_non_null(strstr(line_of(t, "[read pipe]"), "  36.4     1.50"));
	assert_non_null(strstr(line_of(t, "[futex queue_lock, held by tid 101 (reader)]"), "  24.3     1.00"));
	assert_non_null(strstr(t, "[futex lock_table+0x8]"));
	assert_non_null(strstr(t, "[clock_nanosleep]"));
	/* A client's socket and a server's, each by the service's port. */
	assert_non_null(strstr(t, "[recvfrom socket tcp 127.0.0.1:5432]"));
	assert_non_null(strstr(t, "[recvfrom socket tcp 127.0.0.1:8080]"));
	/* A listening socket by its own address, no "-" for the peer it has not. */
	assert_non_null(strstr(t, "[accept socket tcp 0.0.0.0:6379]"));
	assert_non_null(strstr(line_of(t, "wall_spin"), "  14.6     0.60"));
	assert_non_null(strstr(line_of(t, "[runnable]"), "   4.9     0.20"));
	assert_non_null(strstr(t, "[state not read]"));
	/* wall_thread_start holds every stack but the unreadable rounds. */
	assert_non_null(strstr(line_of(t, "wall_thread_start"), "  98.8     4.07"));
	free(t);
	/* Off-CPU: no running time, the runnable time is in. */
	t = render(&r.p, "text", PROF_EV_OFFCPU, 0, NULL);
	assert_non_null(strstr(t, "OffCPUsecs"));
	if (getenv("WALL_DUMP"))
		fputs(t, stderr);
	/* wall_spin only as the caller of its runnable samples */
	assert_non_null(strstr(line_of(t, "wall_spin"), "   0.0       0.00       3.27                         4.6     0.15"));
	assert_non_null(strstr(t, "[runnable]"));
	assert_null(strstr(t, "[state not read]"));
	free(t);
	/* CPU: as before, none of it. */
	t = render(&r.p, "text", PROF_EV_CPU, 0, NULL);
	assert_non_null(strstr(t, " %Time Seconds Cumsecs"));
	assert_null(strstr(t, "[read pipe]"));
	assert_null(strstr(t, "wall_lock_wait"));
	free(t);
	done(&r);
}

/* --threads --sample=wall: each thread's wall time by state, its waiting
 * time by reason.  Mutation: prof_thread_states not called (no split line),
 * or the split by the CPU event (nothing). */
static void wall_threads(void **state)
{
	(void)state;
	struct run r;
	char *t = build_render(&r, 1, "text", PROF_EV_WALL, 1);
	assert_non_null(strstr(t, "Thread main-100: 200 samples of 200 due\n  wall-clock 2.00 s: running 0.80 s "
				  "(40.0 %), runnable 0.20 s (10.0 %), blocked 1.00 s (50.0 %)\n"));
	assert_non_null(strstr(t, "Thread reader-101: 212 samples of 250 due\n  wall-clock 2.12 s: blocked "
				  "2.07 s (97.6 %), state not read 0.05 s (2.4 %)\n"
				  "       1.50 s  70.8 %  [read pipe]\n"));
	free(t);
	done(&r);
}

/* The exports: folded and flame count wall samples; pprof names every
 * sample type with its unit and makes the asked one the default; callgrind
 * writes one event per sample type, the asked ones first.  Mutations: a
 * renderer reading PROF_VAL_SAMPLES (no wall lines), pprof writing only the
 * CPU types, callgrind's events fixed. */
static void wall_exports(void **state)
{
	(void)state;
	struct run r;
	char *t = build_render(&r, 1, "folded", PROF_EV_WALL, 0);
	assert_non_null(strstr(t, "wall_thread_start;wall_worker;wall_lock_wait;"
				  "[futex queue_lock, held by tid 101 (reader)] 100\n"));
	assert_non_null(strstr(t, "wall_thread_start;wall_worker;wall_spin 60\n"));
	assert_non_null(strstr(t, "wall_thread_start;wall_worker;wall_spin;[runnable] 15\n"));
	free(t);
	t = render(&r.p, "folded", PROF_EV_CPU, 0, NULL);
	assert_string_equal(t, "wall_thread_start;wall_worker;wall_other 10\n"
			       "wall_thread_start;wall_worker;wall_spin 30\n");
	free(t);
	t = render(&r.p, "callgrind", PROF_EV_WALL, 0, NULL);
	if (getenv("WALL_DUMP"))
		fputs(t, stderr);
	assert_non_null(strstr(t, "\nevents: Wall_samples Wall_ns Samples CPU_ns OffCPU_samples "
				  "OffCPU_ns\n"));
	assert_non_null(strstr(t, "desc: Wall-clock sampling: 100 samples per second of each thread\n"));
	assert_non_null(strstr(t, "\ntotals: 412 4120000000 40 40000000 327 3270000000\n"));
	free(t);
	t = render(&r.p, "callgrind", PROF_EV_CPU, 0, NULL);
	assert_non_null(strstr(t, "\nevents: Samples CPU_ns Wall_samples Wall_ns OffCPU_samples "
				  "OffCPU_ns\n"));
	free(t);
	t = render(&r.p, "flame", PROF_EV_WALL, 0, NULL);
	assert_non_null(strstr(t, "412 samples (4.120 s of wall-clock at 100 Hz"));
	assert_non_null(strstr(t, "off-CPU: what a thread waited for"));
	/* The pipe wait's frame in the off-CPU family (teal: green and blue
	 * above 170, red below 70). */
	const char *g = strstr(t, "<title>[read pipe] (150 samples");
	assert_non_null(g);
	const char *fill = strstr(g, "fill=\"#");
	assert_non_null(fill);
	unsigned rr, gg, bb;
	assert_int_equal(sscanf(fill + 7, "%2x%2x%2x", &rr, &gg, &bb), 3);
	assert_true(rr < 70 && gg >= 170 && bb >= 190);
	free(t);
	/* JSON and CSV: a wait frame is a row with no object. */
	t = render(&r.p, "json", PROF_EV_WALL, 1, NULL);
	assert_non_null(strstr(t, "\"sample\":\"wall\",\"rate_hz\":100,\"total_ticks\":412,"));
	assert_non_null(strstr(t, "{\"name\":\"[read pipe]\",\"kind\":\"wait\",\"object\":null,"
				  "\"address\":null,\"size\":null,"));
	assert_non_null(strstr(t, "{\"tid\":101,\"name\":\"reader\",\"samples_due\":250,"
				  "\"states_unread\":5,\"states\":{\"blocked\":2.07,"
				  "\"state not read\":0.05},\"waits\":[{\"name\":\"[read pipe]\","
				  "\"seconds\":1.5},"));
	free(t);
	t = render(&r.p, "csv", PROF_EV_OFFCPU, 0, NULL);
	assert_non_null(strstr(t, "\n[read pipe],wait,,,45.871560,1.500000,"));
	free(t);
	/* pprof: the string table has every type; gunzip and look. */
	size_t n;
	t = render(&r.p, "pprof", PROF_EV_WALL, 0, &n);
	unsigned char *raw = malloc(1 << 20);
	z_stream z;
	memset(&z, 0, sizeof z);
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (unsigned char *)t;
	z.avail_in = (uInt)n;
	z.next_out = raw;
	z.avail_out = 1 << 20;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	size_t rn = z.total_out;
	inflateEnd(&z);
	static const char *const want[] = { "wall-samples", "off-cpu-samples", "off-cpu",
					    "nanoseconds", "[read pipe]" };
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		assert_non_null(memmem(raw, rn, want[i], strlen(want[i])));
	free(raw);
	free(t);
	done(&r);
}

/* Honest accounting: the warnings and -s's lines.  Mutations: wall_warn
 * not called (no wall-missed, wall-short), unreadable rounds not counted. */
static void wall_warnings(void **state)
{
	(void)state;
	struct run r;
	build(&r, 1);
	size_t n;
	const struct prof_warning *w = prof_warnings(&n);
	int missed = 0, shortw = 0, unread = 0, cost = 0;
	for (size_t i = 0; i < n; i++) {
		cost |= strcmp(w[i].code, "wall-cost") == 0;
		missed |= strcmp(w[i].code, "wall-missed") == 0 && strstr(w[i].text, "4 of 204");
		shortw |= strcmp(w[i].code, "wall-short") == 0 &&
			  strstr(w[i].text, "reader-101 212 of 250") != NULL;
		unread |= strcmp(w[i].code, "wall-unreadable") == 0 && strstr(w[i].text, "5 wall");
	}
	assert_true(missed);
	assert_true(shortw);
	assert_true(unread);
	assert_false(cost);	/* 0.010 s in 2 s: 0.5 % of one CPU */
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	struct prof_opts o = { .event = PROF_EV_WALL };
	assert_int_equal(prof_render_summary(&r.p, &o, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "wall-clock sampler: 200 rounds on time, 4 late (2.0 % of "
				    "those due; their samples taken at its next look) in 2.00 s; its own "
				    "thread used 0.003 s user + 0.007 s "
				    "system CPU (0.50 % of one CPU"));
	assert_non_null(strstr(buf, "wall-clock samples: 407 taken of 450 due"));
	assert_non_null(strstr(buf, "columns: %Time share of all samples; Wallsecs wall-clock "
				    "seconds sampled there"));
	free(buf);
	done(&r);
}

/* The flame graph has room for one warning: the first about the samples it
 * draws, and a legend of the families it draws.  The CPU graph of a run with
 * wall sampling names no wall sampler's warning and has no off-CPU family;
 * the wall and off-CPU graphs name no CPU clock's warning.  Mutations: the
 * first warning of the list whatever its kind (the CPU graph says "WALL
 * MISSED"), the off-CPU legend wherever the profile has wall samples. */
static void wall_flame_warnings(void **state)
{
	(void)state;
	struct run r;
	build(&r, 1);
	static const struct prof_warning mixed[] = {
		{ "wall-missed", (char *)"WALL MISSED" },
		{ "stacks-lost", (char *)"CPU TABLE FULL" },
		{ "exec-images", (char *)"EXEC CHAIN" },
		{ "wall-short", (char *)"WALL SHORT" },
	};
	const struct prof_warning *kept = r.p.facts.warnings;
	size_t nkept = r.p.facts.nwarnings;
	r.p.facts.warnings = mixed;
	r.p.facts.nwarnings = sizeof mixed / sizeof mixed[0];
	char *t = render(&r.p, "flame", PROF_EV_CPU, 0, NULL);
	assert_non_null(strstr(t, "</title>warning: CPU TABLE FULL (and 1 more: see prof's "
				  "standard error)</text>"));
	assert_null(strstr(t, "WALL"));
	assert_null(strstr(t, "off-CPU: what a thread waited for"));
	free(t);
	for (int e = PROF_EV_WALL; e <= PROF_EV_OFFCPU; e++) {
		t = render(&r.p, "flame", e, 0, NULL);
		assert_non_null(strstr(t, "</title>warning: WALL MISSED (and 2 more: see prof's "
					  "standard error)</text>"));
		assert_null(strstr(t, "CPU TABLE FULL"));
		assert_non_null(strstr(t, "off-CPU: what a thread waited for"));
		free(t);
	}
	r.p.facts.warnings = kept;
	r.p.facts.nwarnings = nkept;
	done(&r);
}

/* A sampler that used 6 % of one CPU (0.120 s in 2 s): prof says so, with
 * the remedy.  Mutation: no wall-cost warning in wall_warn. */
static void wall_cost_said(void **state)
{
	(void)state;
	struct run r;
	build(&r, 2);
	size_t n;
	const struct prof_warning *w = prof_warnings(&n);
	int cost = 0;
	for (size_t i = 0; i < n; i++)
		cost |= strcmp(w[i].code, "wall-cost") == 0 &&
			strstr(w[i].text, "used 6 % of one CPU (0.120 s in 2.00 s") &&
			strstr(w[i].text, "monrun --wall=HZ");
	assert_true(cost);
	done(&r);
}

/* Without a WALL record the CPU profile is as it was and no wall event is
 * present (main.c then refuses --sample=wall). */
static void no_wall(void **state)
{
	(void)state;
	struct run r;
	build(&r, 0);
	assert_true(r.p.events[PROF_EV_CPU].present);
	assert_false(r.p.events[PROF_EV_WALL].present);
	assert_false(r.p.events[PROF_EV_OFFCPU].present);
	assert_false(prof_has_type(&r.p, PROF_VAL_WALL));
	char *t = render(&r.p, "callgrind", PROF_EV_CPU, 0, NULL);
	assert_non_null(strstr(t, "\nevents: Samples CPU_ns\n"));
	free(t);
	t = render(&r.p, "json", PROF_EV_CPU, 0, NULL);
	assert_null(strstr(t, "\"sample\":"));
	free(t);
	done(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wall_model),
		cmocka_unit_test(wall_text),
		cmocka_unit_test(wall_disk_file),
		cmocka_unit_test(wall_threads),
		cmocka_unit_test(wall_exports),
		cmocka_unit_test(wall_warnings),
		cmocka_unit_test(wall_flame_warnings),
		cmocka_unit_test(wall_cost_said),
		cmocka_unit_test(no_wall),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
