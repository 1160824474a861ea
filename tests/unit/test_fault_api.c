/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_fault_api.c — bad input to every public function of <mon.h> gets the
 * defined result its manual page gives (profil.3, monitor.3), never
 * undefined behaviour: null, misaligned, read-only and unmapped buffers,
 * absurd sizes, scales and ranges, and calls out of order (moncontrol
 * before monitor, monitor(0) twice, mon_write before anything).  Each case
 * runs in a fork child, because libmon's state lives as long as the
 * process; a child that crashes fails the case.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "mon.h"

extern char etext[];

#define EXPECT(c)                                                                    \
	do {                                                                         \
		if (!(c)) {                                                          \
			fprintf(stderr, "%s:%d: %s (errno %d)\n", __FILE__, __LINE__, #c, \
				errno);                                              \
			_exit(1);                                                    \
		}                                                                    \
	} while (0)

static void in_child(void (*fn)(void))
{
	char dir[] = "/tmp/monprof-api.XXXXXX";
	assert_non_null(mkdtemp(dir));
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (chdir(dir) < 0)
			_exit(90);
		unsetenv("PROFDIR");
		unsetenv("MONPROF_OUT");
		fn();
		_exit(0);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	char cmd[80];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fprintf(stderr, "child status %#x\n", st);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* profil() through a pointer: <unistd.h> declares buf nonnull, and the
 * call with NULL is exactly what is being tested. */
static int (*volatile profil_p)(unsigned short *, size_t, size_t, unsigned) = profil;
static unsigned short *volatile null_buf;

static int off_and_quiet(void)
{
	struct mon_stats st;
	EXPECT(mon_getstats(&st, sizeof st) == 0);
	return !st.on && st.clock == MON_CLOCK_NONE && st.threads == 0;
}

/* ---- profil -------------------------------------------------------------- */

static void child_profil(void)
{
	static unsigned short bins[64];
	/* Scale above 1.0. */
	errno = 0;
	EXPECT(profil_p(bins, sizeof bins, 0, 65537) == -1 && errno == EINVAL);
	EXPECT(profil_p(bins, sizeof bins, 0, UINT32_MAX) == -1 && errno == EINVAL);
	/* NULL buffer with a size. */
	EXPECT(profil_p(null_buf, 128, 0, 0x8000) == -1 && errno == EFAULT);
	/* Misaligned buffer. */
	EXPECT(profil_p((unsigned short *)(void *)((char *)bins + 1), 64, 0, 0x8000) == -1 &&
	       errno == EINVAL);
	/* A size that runs off the end of the address space, and one that
	 * runs into unmapped memory. */
	EXPECT(profil_p(bins, SIZE_MAX, 0, 0x8000) == -1 && errno == EFAULT);
	long pg = sysconf(_SC_PAGESIZE);
	char *two = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	EXPECT(two != MAP_FAILED);
	EXPECT(munmap(two + pg, (size_t)pg) == 0);
	EXPECT(profil_p((unsigned short *)(void *)two, 2 * (size_t)pg, 0, 0x8000) == -1 &&
	       errno == EFAULT);
	/* A read-only buffer. */
	EXPECT(mprotect(two, (size_t)pg, PROT_READ) == 0);
	EXPECT(profil_p((unsigned short *)(void *)two, (size_t)pg, 0, 0x8000) == -1 &&
	       errno == EFAULT);
	/* Nothing of the above started anything. */
	EXPECT(off_and_quiet());
	/* Off while off, NULL off, scale 1, size 0 and 1: all "off", 0. */
	EXPECT(profil_p(null_buf, 0, 0, 0) == 0);
	EXPECT(profil_p(bins, sizeof bins, 0, 1) == 0);
	EXPECT(profil_p(bins, sizeof bins, 0, 0) == 0);
	EXPECT(off_and_quiet());
	/* An offset above every PC: on, everything dropped, no crash. */
	EXPECT(profil_p(bins, sizeof bins, SIZE_MAX, 0x10000) == 0);
	EXPECT(profil_p(bins, sizeof bins, SIZE_MAX, 2) == 0);
	EXPECT(profil_p(null_buf, 0, 0, 0) == 0);
	EXPECT(off_and_quiet());
	/* A failed call while on leaves profiling on, in the old buffer. */
	EXPECT(profil_p(bins, sizeof bins, 0, 0x8000) == 0);
	EXPECT(profil_p(null_buf, 128, 0, 0x8000) == -1 && errno == EFAULT);
	struct mon_stats st;
	EXPECT(mon_getstats(&st, sizeof st) == 0 && st.on);
	EXPECT(profil_p(null_buf, 0, 0, 0) == 0);
	munmap(two, (size_t)pg);
}

/* ---- queries ------------------------------------------------------------- */

static void child_queries(void)
{
	struct mon_stats *volatile nst = NULL;
	EXPECT(mon_getstats(nst, sizeof *nst) == -1 && errno == EFAULT);
	EXPECT(strcmp(mon_clock_name(-1), "unknown") == 0);
	EXPECT(strcmp(mon_clock_name(1 << 30), "unknown") == 0);
	EXPECT(strcmp(mon_clock_name(MON_CLOCK_NONE), "none") == 0);
	/* Before anything started. */
	EXPECT(mon_outname() == NULL);
	errno = 0;
	EXPECT(mon_write() == -1 && errno == ENOENT);
	EXPECT(moncontrol(1) == -1 && errno == EINVAL);
	EXPECT(moncontrol(0) == -1 && errno == EINVAL);
	/* monitor(0) before monitor(): nothing to stop, no file. */
	monitor(0, 0, 0, 0, 0);
	EXPECT(access("mon.out", F_OK) != 0);
	EXPECT(off_and_quiet());
}

/* ---- monitor ------------------------------------------------------------- */

static WORD buf[8192];

static void child_monitor(void)
{
	WORD *volatile nbuf = NULL;
	int lo_i = 2;
	errno = 0;
	monitor((int (*)(void))(uintptr_t)lo_i, etext, nbuf, 8192, 10);
	EXPECT(errno == EINVAL);
	/* Misaligned (not like a pointer). */
	errno = 0;
	monitor((int (*)(void))(uintptr_t)lo_i, etext, buf + 1, 4096, 10);
	EXPECT(errno == EINVAL);
	/* Reversed or empty range. */
	errno = 0;
	monitor((const void *)etext, (const void *)((uintptr_t)etext - 16), buf, 8192, 10);
	EXPECT(errno == EINVAL);
	errno = 0;
	monitor((const void *)etext, (const void *)etext, buf, 8192, 10);
	EXPECT(errno == EINVAL);
	/* Too small for the header, the cells and one bin; absurd nfunc. */
	errno = 0;
	monitor((int (*)(void))(uintptr_t)lo_i, etext, buf, 0, 0);
	EXPECT(errno == ENOSPC);
	errno = 0;
	monitor((int (*)(void))(uintptr_t)lo_i, etext, buf,
		sizeof(struct hdr) / sizeof(WORD) + 10 * sizeof(struct cnt) / sizeof(WORD), 10);
	EXPECT(errno == ENOSPC);
	errno = 0;
	monitor((int (*)(void))(uintptr_t)lo_i, etext, buf, 8192, SIZE_MAX);
	EXPECT(errno == ENOSPC);
	errno = 0;
	monitor((int (*)(void))(uintptr_t)lo_i, etext, buf, 8192, SIZE_MAX / 4);
	EXPECT(errno == ENOSPC);
	/* None of this started anything. */
	EXPECT(mon_outname() == NULL);
	EXPECT(moncontrol(1) == -1 && errno == EINVAL);
	EXPECT(off_and_quiet());

	/* A good call, then the order games. */
	errno = 0;
	monitor((int (*)(void))(uintptr_t)lo_i, etext, buf, 8192, 10);
	EXPECT(errno == 0);
	EXPECT(moncontrol(0) == 1);
	EXPECT(moncontrol(0) == 0);	/* paused twice: still paused */
	EXPECT(moncontrol(7) == 0);	/* any non-zero resumes */
	EXPECT(moncontrol(1) == 1);
	monitor(0, 0, 0, 0, 0);
	EXPECT(access("mon.out", F_OK) == 0);
	EXPECT(unlink("mon.out") == 0);
	monitor(0, 0, 0, 0, 0);	/* twice: nothing more is written */
	EXPECT(access("mon.out", F_OK) != 0);
	EXPECT(moncontrol(1) == -1 && errno == EINVAL);	/* after the end */
	EXPECT(off_and_quiet());
	/* The buffer's header says what monitor() was given. */
	const struct hdr *h = (const struct hdr *)(const void *)buf;
	EXPECT(h->nfns == 10 && h->lpc < h->hpc && h->hpc == etext);
}

static void child_monstartup(void)
{
	errno = 0;
	EXPECT(monstartup((const void *)etext, (const void *)etext) == -1 && errno == EINVAL);
	EXPECT(monstartup((const void *)((uintptr_t)etext + 64), (const void *)etext) == -1 &&
	       errno == EINVAL);
	EXPECT(mon_outname() == NULL);
	EXPECT(monstartup((int (*)(void))2, etext) == 0);
	EXPECT(mon_outname() != NULL);
	/* Again while running: refused, the first goes on (monitor.3). */
	errno = 0;
	EXPECT(monstartup((int (*)(void))2, etext) == -1 && errno == EBUSY);
	EXPECT(mon_write() == 0);
	EXPECT(access("mon.out", F_OK) == 0);
	monitor(0, 0, 0, 0, 0);
	monitor(0, 0, 0, 0, 0);
	EXPECT(off_and_quiet());
}

static void child_profdir_empty(void)
{
	setenv("PROFDIR", "", 1);
	errno = 0;
	monitor((int (*)(void))2, etext, buf, 8192, 10);
	EXPECT(errno == ECANCELED);
	EXPECT(monstartup((int (*)(void))2, etext) == -1 && errno == ECANCELED);
	EXPECT(mon_outname() == NULL);
	EXPECT(moncontrol(1) == -1 && errno == EINVAL);
	monitor(0, 0, 0, 0, 0);
	EXPECT(access("mon.out", F_OK) != 0);
	EXPECT(off_and_quiet());
}

static void bad_profil(void **s) { (void)s; in_child(child_profil); }
static void bad_queries(void **s) { (void)s; in_child(child_queries); }
static void bad_monitor(void **s) { (void)s; in_child(child_monitor); }
static void bad_monstartup(void **s) { (void)s; in_child(child_monstartup); }
static void profdir_empty(void **s) { (void)s; in_child(child_profdir_empty); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bad_profil),
		cmocka_unit_test(bad_queries),
		cmocka_unit_test(bad_monitor),
		cmocka_unit_test(bad_monstartup),
		cmocka_unit_test(profdir_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
