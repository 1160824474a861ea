/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_util.c — unit tests of libmon's leaf helpers (lib/util.c): the line
 * reader over a descriptor that reads /proc/self/maps and perf maps.
 *
 * Links libmon.a, so it can reach the hidden interfaces (runtime.h).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "runtime.h"

struct seen {
	char lines[8][64];
	size_t lens[8];
	int n;
	int stop_at;		/* return 7 on this line (1-based), 0: never */
};

static int record(char *line, size_t len, void *arg)
{
	struct seen *s = arg;
	assert_int_equal(strlen(line), len);	/* NUL-terminated, newline gone */
	if (s->n < 8) {
		snprintf(s->lines[s->n], sizeof s->lines[0], "%.40s", line);
		s->lens[s->n] = len;
	}
	s->n++;
	return s->n == s->stop_at ? 7 : 0;
}

/* A temporary file holding text, positioned at 0. */
static int file_of(const char *text, size_t n)
{
	FILE *f = tmpfile();
	assert_non_null(f);
	int fd = dup(fileno(f));
	fclose(f);
	assert_int_equal(write(fd, text, n), (ssize_t)n);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

static void lines_and_last_without_newline(void **state)
{
	(void)state;
	const char *t = "one\n\nthree\nlast";
	int fd = file_of(t, strlen(t));
	struct seen s = { .n = 0 };
	assert_int_equal(mon_fd_each_line(fd, record, &s), 0);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.lines[0], "one");
	assert_string_equal(s.lines[1], "");
	assert_string_equal(s.lines[2], "three");
	assert_string_equal(s.lines[3], "last");
	close(fd);
}

/* Lines that cross the 4096-byte buffer are whole; a line too long for it
 * is skipped whole (no fragment of it comes out as a line of its own). */
static void long_lines(void **state)
{
	(void)state;
	size_t n = 0, cap = 20000;
	char *t = malloc(cap);
	assert_non_null(t);
	memset(t, 'a', 100);
	t[100] = '\n';
	n = 101;
	memset(t + n, 'b', 4000);	/* crosses the first buffer's end */
	n += 4000;
	t[n++] = '\n';
	memset(t + n, 'x', 9000);	/* too long: skipped */
	n += 9000;
	t[n++] = '\n';
	memcpy(t + n, "after\n", 6);
	n += 6;
	int fd = file_of(t, n);
	struct seen s = { .n = 0 };
	assert_int_equal(mon_fd_each_line(fd, record, &s), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.lens[0], 100);
	assert_int_equal(s.lens[1], 4000);
	assert_string_equal(s.lines[2], "after");
	close(fd);
	free(t);
}

static void stops_and_errors(void **state)
{
	(void)state;
	const char *t = "1\n2\n3\n4\n";
	int fd = file_of(t, strlen(t));
	struct seen s = { .n = 0, .stop_at = 2 };
	assert_int_equal(mon_fd_each_line(fd, record, &s), 7);
	assert_int_equal(s.n, 2);
	close(fd);
	errno = 0;
	assert_int_equal(mon_fd_each_line(fd, record, &s), -1);
	assert_int_equal(errno, EBADF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lines_and_last_without_newline),
		cmocka_unit_test(long_lines),
		cmocka_unit_test(stops_and_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
