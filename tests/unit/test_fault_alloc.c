/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_fault_alloc.c — allocation failure at start-up.
 *
 * libmon never allocates through the program's malloc: its memory comes
 * from mmap (lib/alloc.c).  This program defines mmap itself (forwarding to
 * the system call), so that libmon.a, linked in, maps through it; a
 * countdown makes the Nth mapping from now fail with ENOMEM.  For N = 1, 2, ... until a start makes no more
 * allocations than N, each start-up path of the runtime is run with its Nth
 * allocation failing, in a fork child:
 *   profil, monitor, monstartup   return -1/ENOMEM (or succeed, if the
 *       failed allocation was optional); on failure nothing was started (no
 *       file appears at exit) and, with memory back, the same call works;
 *   __monstartup (cc -pg's start)  profiling is off, one line on stderr
 *       says so, nothing is written: never silently disabled.
 * Under AddressSanitizer or ThreadSanitizer mmap is the sanitizer's: each
 * start-up path then runs once, without a fault.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "mon.h"

static long countdown = -1;	/* allocations left before one fails; -1 never */
static long failed;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define REPLACED_ALLOCATOR 0
#else
#define REPLACED_ALLOCATOR 1
#include <sys/mman.h>
#include <sys/syscall.h>

static int refuse(void)
{
	if (countdown < 0)
		return 0;
	if (countdown-- == 0) {
		failed++;
		errno = ENOMEM;
		return 1;
	}
	return 0;
}

/* libmon's memory all comes from mmap (lib/alloc.c, mcount.c, objhist.c:
 * never the program's malloc), so that is where the fault goes.  The C
 * library's own allocator maps memory through its internal entry, not this
 * one. */
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (refuse())
		return MAP_FAILED;
	long r = syscall(SYS_mmap, addr, len, prot, flags, fd, off);
	return r < 0 && r > -4096 ? MAP_FAILED : (void *)r;
}
#endif

extern char etext[];

#define EXPECT(c)                                                                    \
	do {                                                                         \
		if (!(c)) {                                                          \
			fprintf(stderr, "%s:%d: %s (errno %d)\n", __FILE__, __LINE__, #c, \
				errno);                                              \
			_exit(1);                                                    \
		}                                                                    \
	} while (0)

/* Child exit codes: 0 a fault was injected and handled, 3 the start made
 * fewer allocations than the countdown (the loop is done). */
#define DONE 3

static int run(int (*fn)(long), long n, const char *dir)
{
	pid_t pid = fork();
	if (pid == 0) {
		if (chdir(dir) < 0)
			_exit(90);
		int fd = open("stderr", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 2);
		close(fd);
		unsetenv("PROFDIR");
		unsetenv("MONPROF_OUT");
		_exit(fn(n));
	}
	int st;
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void sweep(int (*fn)(long), const char *what)
{
	long n;
	for (n = 0; n < 200; n++) {
		char dir[] = "/tmp/monprof-alloc.XXXXXX";
		assert_non_null(mkdtemp(dir));
		int rc = run(fn, n, dir);
		char cmd[128];
		if (rc != 0 && rc != DONE)
			snprintf(cmd, sizeof cmd, "cat %s/stderr >&2; rm -rf %s", dir, dir);
		else
			snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "cleanup of %s failed\n", dir);
		if (rc == DONE)
			break;
		if (rc != 0)
			fprintf(stderr, "%s: allocation %ld failing: child status %d\n", what, n, rc);
		assert_int_equal(rc, 0);
	}
	/* The start-up path allocates: at least one case injected a fault
	 * (without a replaceable allocator, the one run had none). */
	assert_true(n < 200 && (n > 0 || !REPLACED_ALLOCATOR));
}

static int (*volatile profil_p)(unsigned short *, size_t, size_t, unsigned) = profil;
static unsigned short *volatile null_buf;
static WORD buf[8192];

static int nothing_runs(void)
{
	struct mon_stats st;
	return mon_getstats(&st, sizeof st) == 0 && !st.on && st.threads == 0 && st.clock == MON_CLOCK_NONE;
}

static int case_profil(long n)
{
	static unsigned short bins[256];
	countdown = n;
	errno = 0;
	int rc = profil_p(bins, sizeof bins, 0, 0x8000);
	int e = errno;
	long injected = failed;
	countdown = -1;
	if (injected == 0) {
		EXPECT(rc == 0);
		return DONE;
	}
	if (rc == -1) {
		EXPECT(e == ENOMEM);
		EXPECT(nothing_runs());
		EXPECT(profil_p(bins, sizeof bins, 0, 0x8000) == 0);	/* memory back */
	}
	EXPECT(profil_p(null_buf, 0, 0, 0) == 0);
	EXPECT(nothing_runs());
	return 0;
}

static int case_monitor(long n)
{
	countdown = n;
	errno = 0;
	monitor((int (*)(void))2, etext, buf, 8192, 16);
	int e = errno;
	long injected = failed;
	countdown = -1;
	if (injected == 0) {
		EXPECT(e == 0);
		return DONE;
	}
	if (e != 0) {
		EXPECT(e == ENOMEM);
		EXPECT(nothing_runs());
		/* Nothing started: monitor(0) and exit write nothing. */
		monitor(0, 0, 0, 0, 0);
		EXPECT(access("mon.out", F_OK) != 0);
		errno = 0;
		monitor((int (*)(void))2, etext, buf, 8192, 16);
		EXPECT(errno == 0);
	}
	monitor(0, 0, 0, 0, 0);
	EXPECT(access("mon.out", F_OK) == 0);
	return 0;
}

static int case_monstartup(long n)
{
	countdown = n;
	errno = 0;
	int rc = monstartup((int (*)(void))2, etext);
	int e = errno;
	long injected = failed;
	countdown = -1;
	if (injected == 0) {
		EXPECT(rc == 0);
		return DONE;
	}
	if (rc < 0) {
		EXPECT(e == ENOMEM);
		EXPECT(nothing_runs());
		monitor(0, 0, 0, 0, 0);
		EXPECT(access("mon.out", F_OK) != 0);
		EXPECT(monstartup((int (*)(void))2, etext) == 0);
	}
	monitor(0, 0, 0, 0, 0);
	EXPECT(access("mon.out", F_OK) == 0);
	return 0;
}

static int count_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	int n = 0, c;
	while (f && (c = fgetc(f)) != EOF)
		n += c == '\n';
	if (f)
		fclose(f);
	return n;
}

void __monstartup(unsigned long, unsigned long);
void _mcleanup(void);

static int case_auto(long n)
{
	countdown = n;
	__monstartup(0, 0);
	long injected = failed;
	countdown = -1;
	struct mon_stats st;
	EXPECT(mon_getstats(&st, sizeof st) == 0);
	if (injected == 0) {
		EXPECT(st.clock != MON_CLOCK_NONE);
		return DONE;
	}
	const char *name = mon_outname();
	if (st.clock == MON_CLOCK_NONE) {
		/* Not started: said once, and nothing will be written. */
		EXPECT(count_lines("stderr") == 1);
		_mcleanup();
		EXPECT(count_lines("stderr") == 1);
		EXPECT(name == NULL || access(name, F_OK) != 0);
		return 0;
	}
	_mcleanup();
	EXPECT(name != NULL && access(name, F_OK) == 0);
	return 0;
}

static void alloc_profil(void **s) { (void)s; sweep(case_profil, "profil"); }
static void alloc_monitor(void **s) { (void)s; sweep(case_monitor, "monitor"); }
static void alloc_monstartup(void **s) { (void)s; sweep(case_monstartup, "monstartup"); }
static void alloc_auto(void **s) { (void)s; sweep(case_auto, "__monstartup"); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(alloc_profil),
		cmocka_unit_test(alloc_monitor),
		cmocka_unit_test(alloc_monstartup),
		cmocka_unit_test(alloc_auto),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
