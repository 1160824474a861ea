/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * memread.c — checked reads of our own process's memory (memread.h).
 *
 * Every read that is not known safe goes through process_vm_readv(2) on
 * our own pid: an unmapped page gives EFAULT, never a fault.  The
 * interrupted thread's own stack, from its sp up to its top (below the
 * thread's descriptor, pthread_self(), which glibc puts at the top of the
 * stack block of every thread but the main one, a guard page under it; or
 * the end of the main thread's "[stack]" mapping, proc(5), a guard gap
 * under it; the main thread's descriptor is elsewhere, among the
 * libraries' mappings), is checked once per thread, one byte a page, kept
 * in TLS and read directly from then on: that range stays mapped while the
 * thread lives.  It only grows (downwards as the stack deepens), so that a
 * nested walk may read either.  Another stack (a coroutine's, an alternate
 * signal stack) is checked a few pages at a time by each walk.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "memread.h"
#include "runtime.h"
#include "objects.h"

#define PAGE 4096u
#define PROBE_PAGES 8u		/* stack pages verified by one system call */
#define BATCH_PAGES 16u		/* pages verified by one call of pages_readable */
#define STACK_SPAN (8u << 20)	/* how far above sp the stack is read directly */
#define THREAD_STACK_MAX (64u << 20)	/* larger distances are not taken for a stack */

static pid_t own_pid;			/* set by refresh and in a fork child */
static uintptr_t main_stack_top;	/* end of the "[stack]" mapping, or 0 */
static uintptr_t main_self;		/* the main thread's pthread_self(), or 0 */
/* This thread's stack as far as a walk verified it: [lo, hi). */
static __thread uintptr_t tstack_lo __attribute__((tls_model("initial-exec")));
static __thread uintptr_t tstack_hi __attribute__((tls_model("initial-exec")));

/* Where process_vm_readv(2) is not implemented (ENOSYS: qemu-user, which
 * runs the aarch64 tests on an x86-64 host), a read is checked by
 * write(2) to descriptor -1 from the address: qemu validates the guest
 * buffer before it looks at the descriptor (EFAULT: unreadable, EBADF:
 * readable), and the bytes are then read directly.  Used only when
 * mon_memread_refresh found both answers on a PROT_NONE page and on a
 * readable word (a kernel checks the descriptor first: EBADF for both,
 * and the probe stays off).  Unlike process_vm_readv this is not atomic
 * with the read: a mapping another thread removes in between faults. */
static int probe_by_write;

__attribute__((no_sanitize("address", "thread"))) MON_BOUNDED_STACK static long
probe_read(struct iovec *local, struct iovec *remote, unsigned long nr)
{
	char *to = local->iov_base;
	size_t room = local->iov_len;
	long got = 0;
	for (unsigned long i = 0; i < nr; i++) {
		size_t n = remote[i].iov_len;
		if (n > room)
			break;
		if (syscall(SYS_write, -1, remote[i].iov_base, n) != -1 || errno != EBADF)
			break;
		for (size_t k = 0; k < n; k++)
			to[k] = ((const volatile char *)remote[i].iov_base)[k];
		to += n;
		room -= n;
		got += (long)n;
	}
	return got > 0 ? got : -1;
}

MON_BOUNDED_STACK static long vm_read(struct mon_memreader *r, struct iovec *local, unsigned long nl,
		    struct iovec *remote, unsigned long nr)
{
	if (r->pid == 0)
		r->pid = __atomic_load_n(&own_pid, __ATOMIC_RELAXED);
	if (r->pid == 0)
		r->pid = (pid_t)syscall(SYS_getpid);
	long got = syscall(SYS_process_vm_readv, r->pid, local, nl, remote, nr, 0ul);
	if (got < 0 && errno == ENOSYS && nl == 1 && __atomic_load_n(&probe_by_write, __ATOMIC_RELAXED))
		got = probe_read(local, remote, nr);
	return got;
}

/* Whether probe_read can tell (see probe_by_write); outside handlers. */
static void probe_check(void)
{
	uintptr_t word = 0, out;
	struct iovec l = { &out, sizeof out }, rm = { &word, sizeof word };
	if (syscall(SYS_process_vm_readv, (pid_t)syscall(SYS_getpid), &l, 1ul, &rm, 1ul, 0ul) >= 0 ||
	    errno != ENOSYS)
		return;
	void *page = (void *)syscall(SYS_mmap, NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
				     -1, 0l);
	if (page == MAP_FAILED)
		return;
	int none = syscall(SYS_write, -1, page, 1ul) == -1 && errno == EFAULT;
	int readable = syscall(SYS_write, -1, &word, sizeof word) == -1 && errno == EBADF;
	syscall(SYS_munmap, page, PAGE);
	__atomic_store_n(&probe_by_write, none && readable, __ATOMIC_RELAXED);
}

/* Any 8 bytes, checked. */
MON_BOUNDED_STACK static int read_checked(struct mon_memreader *r, uintptr_t a, uintptr_t *out)
{
	struct iovec local = { out, 8 }, remote = { (void *)a, 8 };
	return vm_read(r, &local, 1, &remote, 1) == 8;
}

/* 1 if every page of [lo, hi) (page-aligned) can be read: one byte of
 * each, BATCH_PAGES pages a call (a bounded stack: 16 iovecs). */
MON_BOUNDED_STACK static int pages_readable(struct mon_memreader *r, uintptr_t lo, uintptr_t hi)
{
	struct iovec remote[BATCH_PAGES], local;
	char sink[BATCH_PAGES];
	local.iov_base = sink;
	while (lo < hi) {
		unsigned n = 0;
		for (; n < BATCH_PAGES && lo + (uintptr_t)n * PAGE < hi; n++) {
			remote[n].iov_base = (void *)(lo + (uintptr_t)n * PAGE);
			remote[n].iov_len = 1;
		}
		local.iov_len = n;
		if (vm_read(r, &local, 1, remote, n) != (long)n)
			return 0;
		lo += (uintptr_t)n * PAGE;
	}
	return 1;
}

/* The self-reader's reads outside [lo, hi): the next pages of the stack
 * above hi (verified PROBE_PAGES at a time, one byte of each), or any
 * other address checked. */
__attribute__((no_sanitize("address", "thread"))) static int read_self(struct mon_memreader *r,
									 uintptr_t a,
									 uintptr_t *out)
{
	if (a >= r->lo && a <= UINTPTR_MAX - 8 && a - r->lo < STACK_SPAN &&
	    a + 8 - r->hi <= PROBE_PAGES * PAGE && a + 8 > r->hi) {
		struct iovec remote[PROBE_PAGES], local;
		char sink[PROBE_PAGES];
		for (unsigned i = 0; i < PROBE_PAGES; i++) {
			remote[i].iov_base = (void *)(r->hi + i * PAGE);
			remote[i].iov_len = 1;
		}
		local.iov_base = sink;
		local.iov_len = PROBE_PAGES;
		long got = vm_read(r, &local, 1, remote, PROBE_PAGES);
		if (got > 0)
			r->hi += (uintptr_t)got * PAGE;
		if (a + 8 <= r->hi) {
			*out = *(const uintptr_t *)a;
			return 1;
		}
		return 0;
	}
	return read_checked(r, a, out);
}

/* Start reading at sp (see the top of this file). */
MON_BOUNDED_STACK static void self_at(struct mon_memreader *r, uintptr_t sp)
{
	uintptr_t page = sp & ~(uintptr_t)(PAGE - 1);
	r->lo = r->hi = page;
	uintptr_t lo = tstack_lo, hi = tstack_hi;
	if (hi != 0 && sp >= lo && sp < hi) {
		r->hi = hi;
		return;
	}
	uintptr_t self = (uintptr_t)pthread_self(), top = 0;
	uintptr_t mtop = __atomic_load_n(&main_stack_top, __ATOMIC_RELAXED);
	if (self != main_self && main_self != 0 && sp < self && self - sp < THREAD_STACK_MAX)
		top = (self + PAGE) & ~(uintptr_t)(PAGE - 1);
	else if (sp < mtop && mtop - sp < THREAD_STACK_MAX)
		top = mtop;
	if (top == 0)
		return;
	if (hi == top && page < lo) {
		if (!pages_readable(r, page, lo))
			return;
		tstack_lo = page;	/* the range only grows: a nested walk may read either */
	} else if (hi == 0 || hi != top) {
		if (!pages_readable(r, page, top))
			return;
		tstack_hi = 0;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		tstack_lo = page;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		tstack_hi = top;
	} else {
		return;
	}
	r->hi = top;
}

MON_BOUNDED_STACK void mon_memread_self(struct mon_memreader *r, uintptr_t sp)
{
	r->lo = r->hi = 0;
	r->read = read_self;
	r->at = self_at;
	r->pid = 0;
	self_at(r, sp);
}

void mon_memread_other(struct mon_memreader *r)
{
	r->lo = r->hi = 0;
	r->read = read_checked;
	r->at = NULL;
	r->pid = 0;
}

/* The end of the main thread's stack mapping, "[stack]" in /proc/self/maps
 * (proc(5): "LO-HI perms offset dev inode   path"). */
static int stack_line(char *l, size_t len, void *arg)
{
	uint64_t lo, hi;
	const char *c = l;
	if (len <= 7 || strcmp(l + len - 7, "[stack]") != 0 || !mon_hexval(&c, &lo) || *c++ != '-' ||
	    !mon_hexval(&c, &hi))
		return 0;
	*(uintptr_t *)arg = (uintptr_t)hi;
	return 1;
}

static uintptr_t find_main_stack_top(void)
{
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	uintptr_t top = 0;
	mon_fd_each_line(fd, stack_line, &top);
	close(fd);
	return top;
}

__attribute__((constructor)) void mon_memread_init(void)
{
	MON_ONCE();
	/* The main thread's descriptor is not on its stack (see self_at). */
	if (syscall(SYS_gettid) == syscall(SYS_getpid))
		main_self = (uintptr_t)pthread_self();
}

void mon_memread_refresh(void)
{
	__atomic_store_n(&own_pid, (pid_t)syscall(SYS_getpid), __ATOMIC_RELAXED);
	int saved = errno;
	static int probed;
	if (!probed) {
		probe_check();
		probed = 1;
	}
	errno = saved;
	if (__atomic_load_n(&main_stack_top, __ATOMIC_RELAXED) == 0)
		__atomic_store_n(&main_stack_top, find_main_stack_top(), __ATOMIC_RELAXED);
}

void mon_memread_forked(void)
{
	__atomic_store_n(&own_pid, (pid_t)syscall(SYS_getpid), __ATOMIC_RELAXED);
}
