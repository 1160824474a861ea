/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_fault_write.c — the profile write failing half-way.
 *
 * This program defines write(2), pwrite(2) and writev(2) itself: linked
 * with libmon.a, the runtime's writer calls these, and they fail with
 * ENOSPC (as a full disk does) once a byte budget is spent, after writing
 * what still fits — the short write of a file system that just filled up.
 * For budgets from 0 to past the whole file, mon_write() must fail with
 * ENOSPC, leave the previous mon.out exactly as it was (or none, if there
 * was none), leave no temporary file behind, and say so in exactly one line
 * on stderr; with the budget lifted, the next write succeeds.  Each case
 * runs in a fork child (libmon's state is per process).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "mon.h"
#include "monout.h"

/* ---- the injected file system ------------------------------------------ */

static long budget = -1;	/* bytes left before ENOSPC; -1: no limit */
static unsigned long failures;	/* writes refused */

/* How much of n bytes to fd may be written now; sets errno when none. */
static size_t allow(int fd, size_t n)
{
	if (fd <= 2 || budget < 0)
		return n;
	if ((unsigned long)budget >= n) {
		budget -= (long)n;
		return n;
	}
	size_t k = (size_t)budget;
	budget = 0;
	if (k == 0) {
		failures++;
		errno = ENOSPC;
	}
	return k;
}

ssize_t write(int fd, const void *p, size_t n)
{
	size_t k = allow(fd, n);
	if (k == 0 && n > 0)
		return -1;
	return syscall(SYS_write, fd, p, k);
}

ssize_t pwrite(int fd, const void *p, size_t n, off_t off)
{
	size_t k = allow(fd, n);
	if (k == 0 && n > 0)
		return -1;
	return syscall(SYS_pwrite64, fd, p, k, off);
}

ssize_t writev(int fd, const struct iovec *v, int cnt)
{
	/* Only the one-line message uses writev, on stderr: never limited. */
	return syscall(SYS_writev, fd, v, cnt);
}

/* ---- helpers ------------------------------------------------------------ */

extern char etext[];

__attribute__((noinline)) static unsigned long work(unsigned long n)
{
	volatile unsigned long x = 1;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

static char *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	struct stat st;
	fstat(fd, &st);
	char *b = malloc((size_t)st.st_size + 1);
	ssize_t k = read(fd, b, (size_t)st.st_size);
	close(fd);
	*len = k < 0 ? 0 : (size_t)k;
	b[*len] = '\0';
	return b;
}

/* Files in the current directory whose names contain ".tmp." */
static int temporaries(void)
{
	int n = 0;
	DIR *d = opendir(".");
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL)
		n += strstr(e->d_name, ".tmp.") != NULL;
	if (d)
		closedir(d);
	return n;
}

static int lines_in(const char *path)
{
	size_t len;
	char *b = slurp(path, &len);
	int n = 0;
	for (size_t i = 0; b && i < len; i++)
		n += b[i] == '\n';
	free(b);
	return n;
}

/* Run fn in a fork child inside a fresh directory; the child's stderr goes
 * to ./stderr there.  The child exits 0 when all its checks held. */
static void in_child(void (*fn)(void))
{
	char dir[] = "/tmp/monprof-fault.XXXXXX";
	assert_non_null(mkdtemp(dir));
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (chdir(dir) < 0)
			_exit(90);
		int fd = open("stderr", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 2);
		close(fd);
		unsetenv("PROFDIR");
		unsetenv("MONPROF_OUT");
		fn();
		_exit(0);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	int good = WIFEXITED(st) && WEXITSTATUS(st) == 0;
	char cmd[160];
	if (good)
		snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	else
		snprintf(cmd, sizeof cmd, "tail -n 5 %s/stderr >&2; rm -rf %s", dir, dir);
	if (!good)
		fprintf(stderr, "child status %#x\n", st);
	if (system(cmd) != 0 || !good)
		fail();
}

/* In a child: a failed check exits with the line number. */
#define EXPECT(c)                                                                    \
	do {                                                                         \
		if (!(c)) {                                                          \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #c);      \
			_exit(1);                                                    \
		}                                                                    \
	} while (0)

static WORD buf[1 << 16];

static void start(void)
{
	monitor((int (*)(void))2, etext, buf, sizeof buf / sizeof *buf, 64);
	EXPECT(mon_outname() != NULL);
	work(3000000);
}

/* ---- the cases ----------------------------------------------------------- */

static void child_keeps_old_file(void)
{
	start();
	EXPECT(mon_write() == 0);
	size_t good_len;
	char *good = slurp("mon.out", &good_len);
	EXPECT(good != NULL && good_len > MONOUT_HEADER_SIZE);
	struct monout m;
	char err[256];
	EXPECT(monout_read_file("mon.out", &m, err, sizeof err) == 0);
	monout_free(&m);

	/* Every budget from nothing to the whole file (in steps that still
	 * hit the header, each record header and the end). */
	int expected_lines = 0;
	for (size_t b = 0; b < good_len; b += b < 200 ? 1 : 97) {
		budget = (long)b;
		errno = 0;
		int rc = mon_write();
		int e = errno;
		budget = -1;
		EXPECT(rc == -1);
		EXPECT(e == ENOSPC);
		expected_lines++;
		size_t now_len;
		char *now = slurp("mon.out", &now_len);
		EXPECT(now != NULL && now_len == good_len && memcmp(now, good, good_len) == 0);
		free(now);
		EXPECT(temporaries() == 0);
	}
	EXPECT(failures > 0);
	EXPECT(lines_in("stderr") == expected_lines);
	/* The message names the file and the reason. */
	size_t elen;
	char *errtext = slurp("stderr", &elen);
	EXPECT(strstr(errtext, "monprof: cannot write profile ") == errtext);
	EXPECT(strstr(errtext, "/mon.out: No space left on device\n") != NULL);
	free(errtext);
	/* Space again: the next write works and is readable. */
	EXPECT(mon_write() == 0);
	EXPECT(monout_read_file("mon.out", &m, err, sizeof err) == 0);
	monout_free(&m);
	EXPECT(temporaries() == 0);
	free(good);
}

static void child_no_half_file(void)
{
	start();
	/* The very first write fails: no mon.out may appear at all, at any
	 * point, also at exit (monitor(0) fails the same way). */
	for (long b = 0; b < 5000; b += 250) {
		budget = b;
		EXPECT(mon_write() == -1 && errno == ENOSPC);
		budget = -1;
		EXPECT(access("mon.out", F_OK) != 0);
		EXPECT(temporaries() == 0);
	}
	budget = 100;
	monitor(0, 0, 0, 0, 0);
	budget = -1;
	EXPECT(access("mon.out", F_OK) != 0);
	EXPECT(temporaries() == 0);
	/* monitor(0) a second time does nothing more. */
	monitor(0, 0, 0, 0, 0);
	EXPECT(access("mon.out", F_OK) != 0);
}

static void keeps_old_file(void **state)
{
	(void)state;
	in_child(child_keeps_old_file);
}

static void no_half_file(void **state)
{
	(void)state;
	in_child(child_no_half_file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(keeps_old_file),
		cmocka_unit_test(no_half_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
