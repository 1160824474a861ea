/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * prof_forkdl.c — a server whose workers load a library after the fork,
 * each at an address of its own (as nginx's workers dlopen libnss_systemd
 * in getpwnam): for prof --output's merge of objects seen at several load
 * biases (prof_save_layouts.sh).
 *
 *   prof_forkdl LIBA LIBB N [SECONDS]
 *
 * The parent burns SECONDS (default 0.05) of CPU in parent_spin, then forks
 * N children (1 to 32) one after the other.  Child i first takes memory
 * that moves what it maps next, by i % 3:
 *   0  nothing: dlopen(LIBA), the layout the others are compared with;
 *   1  dlopen(LIBB) first, so LIBB lies where LIBA lies in child 0 and
 *      LIBA below it;
 *   2  an anonymous mapping of 16 KiB times (i / 3 + 1), then dlopen(LIBA);
 * then burns SECONDS in LIBA's a_spin (and, for 1, SECONDS in LIBB's
 * b_spin) and exits.  Each child prints "child I a_spin S base 0xADDR"
 * (the CPU seconds used and where LIBA was loaded: dladdr(3)'s dli_fbase)
 * and, for 1, "child I b_spin S base 0xADDR"; the parent
 * "parent_spin S".  Exit 0, or 1 when a fork, a dlopen or a child fails.
 */
#define _GNU_SOURCE 1	/* dladdr(3) */
#include <dlfcn.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "monrun_common.h"

DEFINE_SPIN(parent_spin)

/* Loads path and runs its function fn for s seconds; prints the line. */
static int run_lib(int i, const char *path, const char *fn, double s)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		fprintf(stderr, "prof_forkdl: dlopen %s: %s\n", path, dlerror());
		return -1;
	}
	double (*spin)(double);
	*(void **)&spin = dlsym(h, fn);
	Dl_info info;
	if (spin == NULL || dladdr(*(void **)&spin, &info) == 0) {
		fprintf(stderr, "prof_forkdl: %s: no %s\n", path, fn);
		return -1;
	}
	double used = spin(s);
	printf("child %d %s %.6f base %p\n", i, fn, used, info.dli_fbase);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: prof_forkdl LIBA LIBB N [SECONDS]\n");
		return 2;
	}
	int n = atoi(argv[3]);
	double s = mr_seconds(argc > 4 ? argv[4] : NULL, 0.05);
	if (n < 1 || n > 32) {
		fprintf(stderr, "prof_forkdl: N from 1 to 32\n");
		return 2;
	}
	printf("parent_spin %.6f\n", parent_spin(s));
	fflush(stdout);
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			perror("prof_forkdl: fork");
			return 1;
		}
		if (pid == 0) {
			int rc = 0;
			if (i % 3 == 2 && mmap(NULL, (size_t)(i / 3 + 1) << 14, PROT_READ | PROT_WRITE,
					       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
				rc = -1;
			void *hb = NULL;
			if (rc == 0 && i % 3 == 1 && (hb = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL)) == NULL)
				rc = -1;
			if (rc == 0)
				rc = run_lib(i, argv[1], "a_spin", s);
			if (rc == 0 && hb != NULL)
				rc = run_lib(i, argv[2], "b_spin", s);
			fflush(stdout);
			_exit(rc == 0 ? 0 : 1);
		}
		int st;
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "prof_forkdl: child %d failed\n", i);
			return 1;
		}
	}
	return 0;
}
