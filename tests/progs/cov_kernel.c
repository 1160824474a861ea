/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cov_kernel.c — system-call CPU against user CPU (case kernel-time.c).
 *
 *   cov_kernel [SECONDS [USER_SECONDS]]
 *
 * kernel_heavy reads /dev/zero in 1 MiB blocks until its thread has used
 * SECONDS (default 0.25) of CPU, nearly all of it system time spent in
 * read(2); user_heavy spins USER_SECONDS (default: as long) in user mode.  Prints "kernel_side S"
 * (kernel_heavy's CPU seconds, user + system: thread CPU clock) and
 * "user_side S".  A profile charges system time to the code that made the
 * system call (the C library's read, called from kernel_heavy), as profil(2)
 * and ITIMER_PROF do: read + kernel_heavy hold kernel_side's share.
 * Also prints "kernel_preempted N": kernel_heavy's involuntary context
 * switches (getrusage(2) RUSAGE_THREAD ru_nivcsw), a loaded machine's mark.
 */
#define _GNU_SOURCE	/* RUSAGE_THREAD */
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "monrun_common.h"

static char block[1 << 20];

__attribute__((noinline)) static double kernel_heavy(double seconds)
{
	int fd = open("/dev/zero", O_RDONLY);
	if (fd < 0) {
		perror("/dev/zero");
		exit(1);
	}
	double start = mr_thread_cpu(), now;
	do {
		if (read(fd, block, sizeof block) < 0) {
			perror("read");
			exit(1);
		}
		now = mr_thread_cpu();
	} while (now - start < seconds);
	close(fd);
	return now - start;
}

DEFINE_SPIN(user_heavy)

int main(int argc, char **argv)
{
	double s = mr_seconds(argc > 1 ? argv[1] : NULL, 0.25);
	struct rusage r0, r1;
	getrusage(RUSAGE_THREAD, &r0);
	double k = kernel_heavy(s);
	getrusage(RUSAGE_THREAD, &r1);
	double u = user_heavy(mr_seconds(argc > 2 ? argv[2] : NULL, s));
	printf("kernel_side %.6f\nuser_side %.6f\nkernel_preempted %ld\n", k, u,
	       r1.ru_nivcsw - r0.ru_nivcsw);
	return 0;
}
