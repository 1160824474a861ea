/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arch_syscall_context.c — the machine's reading of a signal's context at a
 * system call (lib/arch/ARCH/arch.h mon_arch_context_result and
 * mon_arch_after_syscall, which the itimer clock's itimer_cut, lib/clock.c,
 * uses to tell a call its tick ended with EINTR), checked against what the
 * kernel, or qemu-user emulating it, really hands a handler.  Built for the
 * host (tests/integ/arch_syscall.sh) and for aarch64 (tests/aarch64/qemu.sh)
 * with -Ilib -Ilib/arch/ARCH -Iformat -Iinclude.
 *
 * A thread blocks in read(2) on an empty pipe; main signals it with
 * pthread_kill until the read returns (a signal that came before the read
 * began is retried, every 20 ms, at most 5 s):
 *   eintr     the handler installed without SA_RESTART: the read fails with
 *             EINTR, and the context of the signal that ended it has the
 *             result -EINTR and an instruction before the PC that is the
 *             system call's (signal(7), "Interruption of system calls"),
 *             which no context outside a call has;
 *   restart   with SA_RESTART: the kernel rewinds the PC to the system call
 *             to run it again (arch/x86/kernel/signal.c,
 *             arch/arm64/kernel/signal.c handle_signal), so the context is
 *             not taken for an ended call; the read goes on and returns the
 *             byte main then writes.
 *   arch_syscall_context [PREFIX]
 *
 * Prints one "ok PREFIX_CASE ..." or "not ok PREFIX_CASE ..." line per case
 * (PREFIX default arch_syscall); exit 0 when both hold, 1 when one does
 * not, 2 on an error of the test's own.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"

static int fds[2];
static volatile sig_atomic_t deliveries;
/* The deliveries whose context reads as a call a signal ended (as
 * itimer_cut reads it), and the last delivery's context.  A signal sent
 * while the handler of the one that ended the read runs comes at its
 * sigreturn, in the same ended call: it counts as such too; one sent
 * before the read began or after it returned does not. */
static volatile sig_atomic_t cuts;
static volatile long seen_result;
static volatile int seen_after_syscall, seen_read_ok;

static void on_usr1(int sig, siginfo_t *si, void *uc)
{
	uintptr_t pc = mon_arch_context_pc(uc);
	uint64_t before = 0;
	(void)sig;
	(void)si;
	seen_result = mon_arch_context_result(uc);
	/* The 8 bytes that end at the PC: code of the C library's, mapped. */
	seen_read_ok = pc >= 8;
	if (pc >= 8)
		memcpy(&before, (const void *)(pc - 8), sizeof before);
	seen_after_syscall = mon_arch_after_syscall(before);
	if (seen_result == -EINTR && seen_after_syscall)
		cuts++;
	deliveries++;
}

static volatile ssize_t read_result;
static volatile int read_errno, reading;

static void *reader(void *arg)
{
	char c;
	(void)arg;
	reading = 1;
	ssize_t n = read(fds[0], &c, 1);
	read_errno = n < 0 ? errno : 0;
	read_result = n;
	reading = 2;
	return NULL;
}

static void pause_ms(long ms)
{
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&t, &t) != 0 && errno == EINTR)
		;
}

/* One case: 0 when it holds, 1 when not, 2 on an error. */
static int run_case(const char *prefix, const char *name, int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO | flags;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) != 0 || pipe(fds) != 0) {
		perror("arch_syscall_context: sigaction/pipe");
		return 2;
	}
	deliveries = 0;
	cuts = 0;
	reading = 0;
	read_result = -2;
	pthread_t t;
	if (pthread_create(&t, NULL, reader, NULL) != 0) {
		fprintf(stderr, "arch_syscall_context: pthread_create failed\n");
		return 2;
	}
	while (!reading)
		pause_ms(1);
	int restart = (flags & SA_RESTART) != 0;
	int sent = 0, rc = 0;
	/* Without SA_RESTART: signal until the read ends.  With it: signal
	 * 10 times at 20 ms (the read blocked by then, each a restart), then
	 * end the read with a byte. */
	for (int i = 0; i < 250 && reading != 2 && !(restart && sent >= 10); i++) {
		pause_ms(20);
		if (reading == 2)
			break;
		pthread_kill(t, SIGUSR1);
		sent++;
	}
	pause_ms(20);
	int ended_by_signal = reading == 2;
	long result = seen_result;
	int after = seen_after_syscall, readable = seen_read_ok;
	if (!ended_by_signal && write(fds[1], "x", 1) != 1) {
		perror("arch_syscall_context: write");
		return 2;
	}
	pthread_join(t, NULL);
	int ncut = cuts;
	if (!restart) {
		if (ended_by_signal && read_result == -1 && read_errno == EINTR && readable && ncut >= 1)
			printf("ok %s_%s (read ended after %d signals; %d of %d contexts read as the ended call: result -EINTR, the system call's instruction before the PC)\n",
			       prefix, name, sent, ncut, (int)deliveries);
		else {
			printf("not ok %s_%s — read %s (%zd, errno %d) after %d signals; %d contexts read as an ended call; the last said result %ld (-EINTR is %d), %s\n",
			       prefix, name, ended_by_signal ? "ended" : "never ended", (ssize_t)read_result, read_errno,
			       sent, ncut, result, -EINTR, after ? "after a system call" : "not after a system call");
			rc = 1;
		}
	} else {
		if (!ended_by_signal && read_result == 1 && deliveries > 0 && ncut == 0)
			printf("ok %s_%s (%d signals, the read restarted each time and read the byte; result %ld, %s)\n",
			       prefix, name, (int)deliveries, result, after ? "after a system call" : "at the system call");
		else {
			printf("not ok %s_%s — read %s (%zd, errno %d) after %d signals (%d delivered, %d read as an ended call); the last said result %ld, %s\n",
			       prefix, name, ended_by_signal ? "ended by a signal" : "went on", (ssize_t)read_result,
			       read_errno, sent, (int)deliveries, ncut, result,
			       after ? "after a system call" : "not after a system call");
			rc = 1;
		}
	}
	close(fds[0]);
	close(fds[1]);
	return rc;
}

int main(int argc, char **argv)
{
	const char *prefix = argc > 1 ? argv[1] : "arch_syscall";
	int a = run_case(prefix, "eintr", 0);
	int b = run_case(prefix, "restart", SA_RESTART);
	if (a == 2 || b == 2)
		return 2;
	return a || b;
}
