/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arch_syscall_context.c — the machine's reading of a signal's context at a
 * system call (lib/arch/ARCH/arch.h mon_arch_context_result and
 * mon_arch_after_syscall, which the itimer clock's itimer_cut, lib/clock.c,
 * uses to tell a call its tick ended with EINTR: the result register
 * -EINTR and the system call's instruction just before the PC, both), checked
 * against what the kernel, or qemu-user emulating it, really hands a handler.
 * Built for the host (tests/integ/arch_syscall.sh) and for aarch64
 * (tests/aarch64/qemu.sh) with -Ilib -Ilib/arch/ARCH -Iformat -Iinclude.
 *
 *   arch_syscall_context [PREFIX]
 *
 * A thread is signalled with pthread_kill, every few milliseconds, while it:
 *   eintr      blocks in read(2) on an empty pipe, the handler installed
 *              without SA_RESTART: the read fails with EINTR, and a context
 *              reads as the ended call (signal(7), "Interruption of system
 *              calls"; the kernel sets the result: arch/x86/kernel/signal.c
 *              handle_signal, arch/arm64/kernel/signal.c do_signal);
 *   restart    the same with SA_RESTART: the kernel winds the PC back onto
 *              the system call's instruction to run it again (seen at least
 *              once), no context reads as an ended call, and the read goes
 *              on to return the byte main then writes;
 *   after_call loops on the getppid system call: contexts just after the
 *              call's instruction (seen at least once), none read as an
 *              ended call (its result is the parent's pid);
 *   result_reg loops with -EINTR in the result register, outside any call:
 *              none reads as an ended call.
 * So each of the two readings is checked both ways: the result without the
 * instruction (result_reg), the instruction without the result (after_call,
 * restart), and both (eintr).  The signals are sent until what each case
 * waits for is seen, at most 250 of them at 20 ms (eintr, restart: 10) or
 * 2 ms (after_call, result_reg).
 * Prints one "ok PREFIX_CASE ..." or "not ok PREFIX_CASE ..." line per case
 * (PREFIX default arch_syscall); exit 0 when all hold, 1 when one does not,
 * 2 on an error of the test's own.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"

/* The system call's own instruction at pc (not "just before"): a context
 * the kernel wound back to run the call again. */
static int at_syscall_insn(uintptr_t pc)
{
#if defined(__x86_64__)
	const unsigned char *p = (const unsigned char *)pc;
	return p[0] == 0x0f && p[1] == 0x05;	/* SYSCALL */
#elif defined(__aarch64__)
	uint32_t w;
	memcpy(&w, (const void *)pc, sizeof w);
	return w == 0xd4000001u;		/* SVC #0 */
#else
#error "arch_syscall_context.c: no machine code for this ARCH"
#endif
}

/* What the deliveries of the current case saw (the handler adds up). */
static volatile sig_atomic_t deliveries, cuts, afters, ats, eintr_regs;
static volatile int stop;

static void on_usr1(int sig, siginfo_t *si, void *uc)
{
	uintptr_t pc = mon_arch_context_pc(uc);
	uint64_t before = 0;
	(void)sig;
	(void)si;
	long result = mon_arch_context_result(uc);
	/* The 8 bytes that end at the PC: code, mapped (pc is in the C
	 * library or this program, past their first 8 bytes). */
	memcpy(&before, (const void *)(pc - 8), sizeof before);
	int after = mon_arch_after_syscall(before);
	cuts += result == -EINTR && after;
	afters += after;
	eintr_regs += result == -EINTR;
	ats += at_syscall_insn(pc);
	deliveries++;
}

static int fds[2];
static volatile ssize_t read_result;
static volatile int read_errno, state;	/* 1 running, 2 done */

static void *reader(void *arg)
{
	char c;
	(void)arg;
	state = 1;
	ssize_t n = read(fds[0], &c, 1);
	read_errno = n < 0 ? errno : 0;
	read_result = n;
	state = 2;
	return NULL;
}

static void *caller(void *arg)
{
	(void)arg;
	state = 1;
	while (!stop)
		(void)syscall(SYS_getppid);
	state = 2;
	return NULL;
}

/* -EINTR in the result register, no system call: the loop's every
 * instruction keeps it there. */
static void *eintr_in_register(void *arg)
{
	(void)arg;
	state = 1;
#if defined(__x86_64__)
	__asm__ volatile("1: mov $-4, %%rax\n\t"
			 "cmpl $0, %0\n\t"
			 "je 1b"
			 :
			 : "m"(stop)
			 : "rax", "cc", "memory");
#elif defined(__aarch64__)
	__asm__ volatile("1: mov x0, #-4\n\t"
			 "ldr w1, %0\n\t"
			 "cbz w1, 1b"
			 :
			 : "m"(stop)
			 : "x0", "x1", "cc", "memory");
#endif
	state = 2;
	return NULL;
}

static void pause_ms(long ms)
{
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&t, &t) != 0 && errno == EINTR)
		;
}

enum kind { EINTR_CASE, RESTART_CASE, AFTER_CALL_CASE, RESULT_REG_CASE };

/* One case: 0 when it holds, 1 when not, 2 on an error. */
static int run_case(const char *prefix, const char *name, enum kind k)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO | (k == EINTR_CASE ? 0 : SA_RESTART);
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) != 0 || pipe(fds) != 0) {
		perror("arch_syscall_context: sigaction/pipe");
		return 2;
	}
	deliveries = cuts = afters = ats = eintr_regs = 0;
	state = 0;
	stop = 0;
	read_result = -2;
	void *(*fn)(void *) = k == AFTER_CALL_CASE	? caller
			      : k == RESULT_REG_CASE ? eintr_in_register
						      : reader;
	pthread_t t;
	if (pthread_create(&t, NULL, fn, NULL) != 0) {
		fprintf(stderr, "arch_syscall_context: pthread_create failed\n");
		return 2;
	}
	while (!state)
		pause_ms(1);
	long gap = k == EINTR_CASE || k == RESTART_CASE ? 20 : 2;
	int sent = 0;
	for (int i = 0; i < 250; i++) {
		pause_ms(gap);
		if (state == 2)
			break;	/* eintr: the read ended */
		if (k == RESTART_CASE && sent >= 10 && ats > 0)
			break;
		if (k == AFTER_CALL_CASE && afters > 0 && deliveries >= 20)
			break;
		if (k == RESULT_REG_CASE && eintr_regs >= 20)
			break;
		pthread_kill(t, SIGUSR1);
		sent++;
	}
	pause_ms(gap);
	int ended_by_signal = state == 2;
	stop = 1;
	if (!ended_by_signal && write(fds[1], "x", 1) != 1) {
		perror("arch_syscall_context: write");
		return 2;
	}
	pthread_join(t, NULL);
	/* Read once the thread is gone: no handler writes them any more. */
	int n = deliveries, ncut = cuts, nafter = afters, nat = ats, nreg = eintr_regs;
	int good = 0;
	switch (k) {
	case EINTR_CASE:
		good = ended_by_signal && read_result == -1 && read_errno == EINTR && ncut >= 1;
		break;
	case RESTART_CASE:
		good = read_result == 1 && nat >= 1 && ncut == 0;
		break;
	case AFTER_CALL_CASE:
		good = nafter >= 1 && ncut == 0;
		break;
	case RESULT_REG_CASE:
		good = nreg >= 1 && ncut == 0;
		break;
	}
	char got[64] = "";
	if (k == EINTR_CASE || k == RESTART_CASE)
		snprintf(got, sizeof got, "; the read returned %zd, errno %d", (ssize_t)read_result,
			 read_errno);
	printf("%s %s_%s (%d signals sent, %d delivered: %d read as an ended call, %d just after a "
	       "system call's instruction, %d at one, %d with -EINTR in the result register%s)\n",
	       good ? "ok" : "not ok", prefix, name, sent, n, ncut, nafter, nat, nreg, got);
	close(fds[0]);
	close(fds[1]);
	return !good;
}

int main(int argc, char **argv)
{
	const char *prefix = argc > 1 ? argv[1] : "arch_syscall";
	int r[4];
	r[0] = run_case(prefix, "eintr", EINTR_CASE);
	r[1] = run_case(prefix, "restart", RESTART_CASE);
	r[2] = run_case(prefix, "after_call", AFTER_CALL_CASE);
	r[3] = run_case(prefix, "result_reg", RESULT_REG_CASE);
	int rc = 0;
	for (int i = 0; i < 4; i++)
		if (r[i] == 2)
			return 2;
		else if (r[i])
			rc = 1;
	return rc;
}
