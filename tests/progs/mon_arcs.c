/* SPDX-License-Identifier: BSD-2-Clause */
/* 120 functions, each called once from main: 120 call-graph arcs, as
 * glibc's tst-mcount-overflow makes many arcs (facts only, nothing copied).
 * Build: cc -O1 -pg mon_arcs.c -lmon.  "fork": a child forks, and both
 * processes write their own file (GMON_OUT_PREFIX.PID each). */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int sink;

#define F(n) __attribute__((noinline)) void f##n(void); void f##n(void) { sink += n; }
#define F10(d) F(d##0) F(d##1) F(d##2) F(d##3) F(d##4) F(d##5) F(d##6) F(d##7) F(d##8) F(d##9)
F10(1) F10(2) F10(3) F10(4) F10(5) F10(6) F10(7) F10(8) F10(9) F10(10) F10(11) F10(12)
#define C(n) f##n();
#define C10(d) C(d##0) C(d##1) C(d##2) C(d##3) C(d##4) C(d##5) C(d##6) C(d##7) C(d##8) C(d##9)

int main(int argc, char **argv)
{
	C10(1) C10(2) C10(3) C10(4) C10(5) C10(6) C10(7) C10(8) C10(9) C10(10) C10(11) C10(12)
	if (argc > 1 && strcmp(argv[1], "fork") == 0) {
		pid_t pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0)
			exit(0);
		int st;
		waitpid(pid, &st, 0);
		return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
	}
	return 0;
}
