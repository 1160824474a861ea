/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clone.c — syscall(3), so that a child process made with the clone or
 * clone3 system call through it is a fork for libmon (issue 21, item 3).
 *
 * The C library's fork runs the pthread_atfork handlers; a program that
 * makes its child with syscall(SYS_clone, SIGCHLD, ...) or
 * syscall(SYS_clone3, ...) runs none, and the child would go on with the
 * parent's clocks and counters: at its exit it disabled the parent's perf
 * events (their descriptors are shared) and wrote a copy of the parent's
 * samples.  This syscall(3) makes every system call itself, as the C
 * library's does (the instruction, -1 and errno for a result in
 * [-4095, -1]), and runs the fork handlers it was given (threads.c's)
 * around a clone or clone3 that makes a process of its own memory.  It
 * uses nothing of libmon's (every other file calls syscall()); the handlers
 * come through mon_clone_set_fork.  A clone made by an instruction of the
 * program's own is not seen here: threads.c notices it afterwards.
 * syscall(SYS_exit_group, ...) runs the exit handler it was given first
 * (fatal.c's: the profile is written as at _exit); an exit_group made by
 * the program's own instruction is not seen (control.c's watcher tells
 * the user, and interval profiles lose at most the interval in progress).
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "runtime.h"

static void (*fork_prepare)(void), (*fork_parent)(void), (*fork_child)(void);
static void (*before_exit)(void);

void mon_clone_set_exit(void (*before)(void))
{
	__atomic_store_n(&before_exit, before, __ATOMIC_RELEASE);
}

void mon_clone_set_fork(void (*prepare)(void), void (*parent)(void), void (*child)(void))
{
	fork_parent = parent;
	fork_child = child;
	__atomic_store_n(&fork_prepare, prepare, __ATOMIC_RELEASE);
}

/* The system call itself, as syscall(3) makes it: -1/errno for a result in
 * [-4095, -1]. */
MON_NO_TSAN static long raw_syscall(long n, long a, long b, long c, long d, long e, long f)
{
	long r;
#if defined(__x86_64__)
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;
	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	r = x0;
#else
#error "monprof: no system call instruction for this architecture"
#endif
	if ((unsigned long)r > -4096ul) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

/* Six argument words from ap, as syscall(3) takes them whatever the call:
 * words the caller did not pass are read, never used. */
__attribute__((no_sanitize("address"))) MON_NO_TSAN static void args_of(va_list ap, long a[6])
{
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
}

__attribute__((no_sanitize("address"))) MON_NO_TSAN long mon_raw_syscall(long number, ...)
{
	va_list ap;
	long a[6];
	va_start(ap, number);
	args_of(ap, a);
	va_end(ap);
	return raw_syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* Is this clone/clone3 a new process of its own memory (a fork)?  Flags
 * of clone(2): CLONE_VM (a thread or vfork: memory shared) and CLONE_VFORK
 * (the parent waits, holding our lock, for the child's exec or exit) are
 * not; a clone3 whose struct clone_args cannot be read is not either (the
 * kernel fails it). */
static int forks(long n, long a0, long a1)
{
	uint64_t flags;
	if (n == SYS_clone)
		flags = (uint64_t)a0;
	else if (a1 >= (long)sizeof(uint64_t)) {
		/* struct clone_args's first field, read by the kernel
		 * (process_vm_readv(2) on ourselves): a bad pointer is the
		 * system call's EFAULT, not a fault here. */
		struct iovec to = { &flags, sizeof flags }, from = { (void *)a0, sizeof flags };
		if (raw_syscall(SYS_process_vm_readv, raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0),
				(long)&to, 1, (long)&from, 1, 0) != (long)sizeof flags)
			return 0;
	} else
		return 0;
	return !(flags & (CLONE_VM | CLONE_VFORK | CLONE_THREAD));
}

/* syscall(3): same arguments, results and errors (the system call's, -1
 * and errno for its errors).  clone(2) and clone3(2) without CLONE_VM are
 * forks for libmon: its fork handlers run around them (the child re-armed
 * with counters from zero, followed only under monrun -f), as they do
 * around the C library's fork.  Not a cancellation point, as the C
 * library's is not. */
/* Not instrumented by ASan: the C library's syscall(3) reads six argument
 * words whatever the call takes, and so does this one; words the caller did
 * not pass are read, never used (the sixth comes from its stack frame). */
__attribute__((no_sanitize("address"))) MON_NO_TSAN MON_EXPORT long syscall(long number, ...)
{
	va_list ap;
	long a[6];
	va_start(ap, number);
	args_of(ap, a);
	va_end(ap);
	if (number == SYS_exit_group) {
		/* The process ends without atexit (Go's runtime, a C program's
		 * syscall(SYS_exit_group)): the profile is written first, as
		 * at _exit. */
		void (*b)(void) = __atomic_load_n(&before_exit, __ATOMIC_ACQUIRE);
		if (b != NULL)
			b();
	}
	void (*prepare)(void) = __atomic_load_n(&fork_prepare, __ATOMIC_ACQUIRE);
	if ((number != SYS_clone && number != SYS_clone3) || prepare == NULL ||
	    !forks(number, a[0], a[1]))
		return raw_syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
	prepare();
	long r = raw_syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
	int e = errno;
	if (r == 0)
		fork_child();
	else
		fork_parent();
	errno = e;
	return r;
}
