/* SPDX-License-Identifier: BSD-2-Clause */
/* From shared/cases/fork-both-sides.c. Build: cc -O1 -pg mon_fork.c -lmon; run with PROFDIR set to an empty directory.
   With the C library's own -pg the child records no samples at all, and without a prefix both
   processes write the same gmon.out. Right: two files, the parent's with time in parent_work, the
   child's with time in child_work (about twice as much). */
#include <sys/wait.h>
#include <unistd.h>

static volatile double sink;

__attribute__((noinline)) static void parent_work(long n)
{
	for (long i = 0; i < n; i++)
		sink += i * 0.5;
}

__attribute__((noinline)) static void child_work(long n)
{
	for (long i = 0; i < n; i++)
		sink += i * 0.25;
}

int main(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		child_work(400000000);
		return 0;
	}
	parent_work(200000000);
	waitpid(pid, 0, 0);
	return 0;
}
