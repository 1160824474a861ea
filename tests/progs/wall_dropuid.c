/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wall_dropuid.c — a program that stops being dumpable, as a server started
 * as root does when it changes user (tests/integ/wall_not_dumpable.sh).
 * Run as root it changes its group and user IDs to 65534 (nobody), which
 * makes the kernel clear its dumpable flag (prctl(2) PR_SET_DUMPABLE);
 * otherwise it clears the flag itself.  Its /proc/PID files are then
 * root's.  Then a thread started after that, dropuid_sleeper, sleeps in
 * nanosleep(2) calls of 10 ms for about 1 s while main joins it.
 *
 *   wall_dropuid [AGAIN_S]
 *
 * With AGAIN_S: then the process makes itself dumpable again
 * (prctl(PR_SET_DUMPABLE, 1), which any process may do: its /proc/PID
 * files are its own user's again) and a second sleeper sleeps AGAIN_S
 * seconds the same way, and it prints "dumpable D" once more (1 expected).
 * Prints "dumpable D" (0 expected); exit 0, 2 if a call failed.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) static void *dropuid_sleeper(void *arg)
{
	int n = arg ? *(const int *)arg : 100;
	for (int i = 0; i < n; i++) {
		struct timespec ts = { 0, 10000000 };
		nanosleep(&ts, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (geteuid() == 0) {
		if (setgid(65534) != 0 || setuid(65534) != 0)
			return 2;
	} else if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
		return 2;
	}
	printf("dumpable %d\n", prctl(PR_GET_DUMPABLE, 0, 0, 0, 0));
	fflush(stdout);
	pthread_t t;
	if (pthread_create(&t, NULL, dropuid_sleeper, NULL) != 0)
		return 2;
	pthread_join(t, NULL);
	if (argc > 1) {
		int n = (int)(atof(argv[1]) * 100);
		if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0)
			return 2;
		printf("dumpable %d\n", prctl(PR_GET_DUMPABLE, 0, 0, 0, 0));
		fflush(stdout);
		if (pthread_create(&t, NULL, dropuid_sleeper, &n) != 0)
			return 2;
		pthread_join(t, NULL);
	}
	return 0;
}
