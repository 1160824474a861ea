/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * strip_phases.c — a program whose work differs from one interval to the
 * next, for the flame graph's strip of samples over time
 * (tests/integ/prof_flame.sh).
 *
 *   strip_phases DIR
 *
 * Run under monrun --interval=1 with PROFDIR=DIR.  The program watches DIR
 * for the interval files the runtime writes there, so that its phases
 * follow the intervals whatever the machine's speed or load: it sleeps
 * while DIR holds no interval file (interval 1), spins in strip_spin, in
 * CPU slices of 5 ms, until DIR holds one more (interval 2), then sleeps
 * 0.1 s and returns (interval 3, written at exit).  So interval 2 holds
 * nearly all the CPU samples, intervals 1 and 3 next to none.  A run left
 * behind ends by SIGALRM after 60 s.
 */
#include <dirent.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "monrun_common.h"

DEFINE_SPIN(strip_spin)

/* The whole interval files in dir (names holding ".i", not the temporary
 * ones, which hold ".tmp."). */
static int interval_files(const char *dir)
{
	DIR *d = opendir(dir);
	if (d == NULL) {
		perror(dir);
		exit(1);
	}
	int n = 0;
	for (struct dirent *e; (e = readdir(d)) != NULL;)
		n += strstr(e->d_name, ".i") != NULL && strstr(e->d_name, ".tmp.") == NULL;
	closedir(d);
	return n;
}

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };
	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: strip_phases DIR\n");
		return 2;
	}
	alarm(60);
	while (interval_files(argv[1]) < 1)
		nap(10);
	while (interval_files(argv[1]) < 2)
		strip_spin(0.005);
	nap(100);
	return 0;
}
