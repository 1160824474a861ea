/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * robust_deny.c — run a command with some system calls refused, to inject
 * faults into the runtime from outside: the profiling clocks one by one
 * (perf_event_open, timer_create, setitimer), as a container's seccomp
 * policy or perf_event_paranoid would refuse them.
 *
 *   robust_deny LIST COMMAND [ARG...]
 *
 * LIST is a comma-separated list of perf, timer, itimer (or "none").  Each
 * listed call fails with EACCES (perf_event_open) or EPERM (the others) in
 * COMMAND and everything it runs: a seccomp filter survives exec.  Exit
 * status: COMMAND's; 125 if the filter could not be installed.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: robust_deny perf,timer,itimer|none COMMAND [ARG...]\n");
		return 125;
	}
	struct sock_filter f[16];
	unsigned n = 0;
	/* Only x86-64 system call numbers are checked: refuse anything else. */
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, arch));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, nr));
	char list[256];
	snprintf(list, sizeof list, "%s", argv[1]);
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		long nr;
		unsigned e;
		if (strcmp(tok, "perf") == 0) {
			nr = SYS_perf_event_open;
			e = EACCES;
		} else if (strcmp(tok, "timer") == 0) {
			nr = SYS_timer_create;
			e = EPERM;
		} else if (strcmp(tok, "itimer") == 0) {
			nr = SYS_setitimer;
			e = EPERM;
		} else if (strcmp(tok, "none") == 0) {
			continue;
		} else {
			fprintf(stderr, "robust_deny: unknown call %s\n", tok);
			return 125;
		}
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | e);
	}
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { (unsigned short)n, f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0) {
		perror("robust_deny: seccomp");
		return 125;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
