/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * monrun_exit.c — a program that ends in a chosen way after some work.
 *
 *   monrun_exit exit3|abort|term|wait [SECONDS [READY_FILE]]
 *
 * Burns SECONDS (default 0.2) of CPU in work_spin, then:
 *   exit3  exit(3)
 *   abort  abort(3): killed by SIGABRT
 *   term   raises SIGTERM at itself: killed by SIGTERM
 *   wait   writes its pid to READY_FILE and waits (pause) to be killed from
 *          outside;
 *          a forgotten run ends by SIGALRM after 30 s
 * It leaves the signals' dispositions as they are (the default).
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "monrun_common.h"

DEFINE_SPIN(work_spin)

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: monrun_exit exit3|abort|term|wait [SECONDS [READY]]\n");
		return 2;
	}
	work_spin(mr_seconds(argc > 2 ? argv[2] : NULL, 0.2));
	if (strcmp(argv[1], "exit3") == 0)
		exit(3);
	if (strcmp(argv[1], "abort") == 0)
		abort();
	if (strcmp(argv[1], "term") == 0) {
		raise(SIGTERM);
		return 98;
	}
	if (strcmp(argv[1], "wait") == 0 && argc > 3) {
		/* Written whole under a temporary name, then renamed: the
		 * test sees no file or the whole pid. */
		char tmp[4096];
		snprintf(tmp, sizeof tmp, "%s.tmp", argv[3]);
		FILE *f = fopen(tmp, "w");
		if (f == NULL || fprintf(f, "%ld\n", (long)getpid()) < 0 || fclose(f) != 0 ||
		    rename(tmp, argv[3]) != 0) {
			perror(argv[3]);
			return 1;
		}
		alarm(30);	/* SIGALRM's default action ends a forgotten run */
		for (;;)
			pause();
	}
	fprintf(stderr, "monrun_exit: unknown mode %s\n", argv[1]);
	return 2;
}
