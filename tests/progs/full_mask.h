/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * full_mask.h — does sigaction(2) report a handler's mask as the full set
 * the program gave (guest_handlers.c, handler_before.c)?
 */
#ifndef FULL_MASK_H
#define FULL_MASK_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

/* Exits 1, naming the first signal missing, unless sig's mask as
 * sigaction reports it holds every signal but SIGKILL and SIGSTOP (which
 * the kernel drops) and the C library's own below SIGRTMIN (which its
 * sigfillset leaves out).  when: the moment, for the message. */
static inline void full_mask_seen(int sig, const char *when)
{
	struct sigaction q;
	if (sigaction(sig, NULL, &q) != 0) {
		perror("sigaction");
		exit(1);
	}
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP && (s < 32 || s >= SIGRTMIN) &&
		    sigismember(&q.sa_mask, s) != 1) {
			fprintf(stderr, "%s, signal %d not in the mask reported for signal %d\n",
				when, s, sig);
			exit(1);
		}
}

#endif
