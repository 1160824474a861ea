/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sigev_once.h — CPU in a thread the C library starts itself, for the test
 * programs that need one (sigev_thread.c, itimer_stolen.c): a POSIX timer
 * with SIGEV_THREAD notification (timer_create(2), sigevent(7)), whose
 * callback glibc runs in a thread of its own making, every signal blocked.
 */
#ifndef SIGEV_ONCE_H
#define SIGEV_ONCE_H

#include <signal.h>
#include <string.h>
#include <time.h>

/* Run fn once, after after_ns nanoseconds (1 to 999999999), in the timer's
 * thread: 0, or -1 with errno as timer_create(2) or timer_settime(2). */
static inline int sigev_once(void (*fn)(union sigval), long after_ns)
{
	struct sigevent se;
	memset(&se, 0, sizeof se);
	se.sigev_notify = SIGEV_THREAD;
	se.sigev_notify_function = fn;
	timer_t id;
	if (timer_create(CLOCK_MONOTONIC, &se, &id) != 0)
		return -1;
	struct itimerspec its = { { 0, 0 }, { 0, after_ns } };
	return timer_settime(id, 0, &its, NULL);
}

#endif
