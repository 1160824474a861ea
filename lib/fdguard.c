/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fdguard.c — the program's descriptors stay the program's.
 *
 * The perf clock needs one descriptor per thread.  They are kept out of
 * the program's way: moved at once (F_DUPFD_CLOEXEC) to the top quarter of
 * the RLIMIT_NOFILE range, but never above FD_SETSIZE (1024): numbers the
 * program's select(2) can take stay free below it, and the kernel's
 * descriptor table, which grows to cover the highest number open and which
 * every fork(2) copies, stays small (mon_fd_floor: 768 under the usual
 * limit of 1024, 1024 under any limit above 1365; at 15 000 under a limit of
 * 20 000, the table was 16 384 entries, 32 us a fork here, and under a
 * container's 1 048 576 it would be a million); close-on-exec; and when no
 * number is free up there the thread gets the CPU-time timer clock
 * instead, which needs none (clock.c).  From the program's side, ours do not exist:
 * close(2) of one fails with EBADF and leaves it open (a daemon that
 * closes every descriptor above 2 keeps its profile), close_range(2) and
 * closefrom(3) close everything else in their range, dup2(2)/dup3(2) onto
 * one of ours first move ours to another free high number.  Before libmon
 * uses or closes a number it checks that it still refers to its own event
 * (the event ID, PERF_EVENT_IOC_ID): a number the program took over
 * through a raw system call is left alone, and the program's own calls on
 * such a number (close, close_range, closefrom, dup2, dup3) act on it as
 * on any of the program's (the number is no longer marked ours).  A
 * program that closes ours with the raw system call (syscall(SYS_close_range,
 * ...)) does not stop the clock: each event's metadata page is mapped
 * (clock.c), which holds the event open (issue 21, item 2).
 *
 * Two bitmaps over descriptor numbers below MON_FD_MAX: `live` (ours now)
 * and `ever` (ours at some time; the tick dispatcher tells a perf event's
 * signal by si_fd, which stays the number the event had when its signal
 * was set up, and a tick may still be pending after its event closed).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime.h"

#define WORDS (MON_FD_MAX / 64)

static uint64_t live[WORDS], ever[WORDS];
static int live_lo = INT_MAX, live_hi = -1;	/* bounds of the numbers ever live */

MON_NO_TSAN static int test(const uint64_t *map, int fd)
{
	return fd >= 0 && fd < MON_FD_MAX &&
	       (__atomic_load_n(&map[fd / 64], __ATOMIC_ACQUIRE) >> (fd % 64)) & 1;
}

/* Who knows the event ID behind a number of ours (mon_fd_set_identity). */
static uint64_t (*identity)(int fd);

void mon_fd_set_identity(uint64_t (*id_of)(int fd))
{
	__atomic_store_n(&identity, id_of, __ATOMIC_RELEASE);
}

/* The other owners' checks (mon_fd_add_verifier), in slot order. */
static int (*verifiers[MON_FD_VERIFIERS])(int fd);

int mon_fd_add_verifier(int (*still)(int fd))
{
	for (int i = 0; i < MON_FD_VERIFIERS; i++) {
		int (*none)(int) = NULL;
		if (__atomic_load_n(&verifiers[i], __ATOMIC_ACQUIRE) == still ||
		    __atomic_compare_exchange_n(&verifiers[i], &none, still, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			return 0;
	}
	return mon_fail(ENOSPC);
}

MON_NO_TSAN int mon_fd_ours(int fd)
{
	if (!test(live, fd))
		return 0;
	/* Still the event we put there?  An unknown ID (a number being set
	 * up, or no clock table) asks the other owners; a number none of
	 * them knows counts as ours. */
	uint64_t (*id_of)(int) = __atomic_load_n(&identity, __ATOMIC_ACQUIRE);
	uint64_t id = id_of != NULL ? id_of(fd) : 0;
	int still = 1;
	if (id != 0) {
		still = mon_fd_is_event(fd, id);
	} else {
		for (int i = 0; i < MON_FD_VERIFIERS; i++) {
			int (*v)(int) = __atomic_load_n(&verifiers[i], __ATOMIC_ACQUIRE);
			int r = v != NULL ? v(fd) : -1;
			if (r >= 0) {
				still = r;
				break;
			}
		}
	}
	if (still)
		return 1;
	mon_fd_drop(fd);	/* the program's now */
	return 0;
}

MON_NO_TSAN int mon_fd_was_ours(int fd)
{
	return test(ever, fd);
}

MON_NO_TSAN void mon_fd_adopt(int fd)
{
	if (fd < 0 || fd >= MON_FD_MAX)
		return;
	uint64_t bit = (uint64_t)1 << (fd % 64);
	__atomic_fetch_or(&ever[fd / 64], bit, __ATOMIC_RELEASE);
	__atomic_fetch_or(&live[fd / 64], bit, __ATOMIC_RELEASE);
	int lo = __atomic_load_n(&live_lo, __ATOMIC_RELAXED);
	while (fd < lo && !__atomic_compare_exchange_n(&live_lo, &lo, fd, 0, __ATOMIC_RELAXED,
						       __ATOMIC_RELAXED))
		;
	int hi = __atomic_load_n(&live_hi, __ATOMIC_RELAXED);
	while (fd > hi && !__atomic_compare_exchange_n(&live_hi, &hi, fd, 0, __ATOMIC_RELAXED,
						       __ATOMIC_RELAXED))
		;
}

MON_NO_TSAN void mon_fd_drop(int fd)
{
	if (fd < 0 || fd >= MON_FD_MAX)
		return;
	__atomic_fetch_and(&live[fd / 64], ~((uint64_t)1 << (fd % 64)), __ATOMIC_RELEASE);
}

MON_NO_TSAN int mon_fd_floor(void)
{
	struct rlimit rl;
	rlim_t lim = MON_FD_MAX;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < lim)
		lim = rl.rlim_cur;
	rlim_t floor = lim - lim / 4;
	return (int)(floor > FD_SETSIZE ? FD_SETSIZE : floor);
}

MON_NO_TSAN int mon_fd_raise(int fd)
{
	int floor = mon_fd_floor();
	if (fd >= floor && fd < MON_FD_MAX) {
		if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
			return -1;
		return fd;
	}
	int nfd = fcntl(fd, F_DUPFD_CLOEXEC, floor);
	int e = errno;
	syscall(SYS_close, fd);
	if (nfd < 0 || nfd >= MON_FD_MAX) {
		if (nfd >= 0)
			syscall(SYS_close, nfd);
		return mon_fail(nfd < 0 ? e : EMFILE);
	}
	return nfd;
}

MON_NO_TSAN int mon_fd_is_event(int fd, uint64_t id)
{
	uint64_t now;
	return fd >= 0 && ioctl(fd, PERF_EVENT_IOC_ID, &now) == 0 && now == id;
}

/* ---- the program's calls ------------------------------------------------ */

/* close(2): ours are not the program's to close (EBADF, as if there were
 * no such descriptor); anything else as the C library does. */
static int (*real_close)(int);

MON_NO_TSAN __attribute__((constructor(101))) void mon_fdguard_init(void)
{
	MON_ONCE();
	int saved_errno = errno;
	real_close = (int (*)(int))mon_libc_next("close");
	errno = saved_errno;
}

MON_NO_TSAN MON_EXPORT int close(int fd)
{
	if (mon_fd_ours(fd))
		return mon_fail(EBADF);
	if (real_close != NULL)
		return real_close(fd);	/* a cancellation point, as it should be */
	return (int)syscall(SYS_close, fd);
}

/* Close [first, last] except ours with the system call itself.  0 or
 * -1/errno. */
MON_NO_TSAN static int close_around(unsigned first, unsigned last, unsigned flags)
{
	int lo = __atomic_load_n(&live_lo, __ATOMIC_RELAXED);
	int hi = __atomic_load_n(&live_hi, __ATOMIC_RELAXED);
	if ((flags & CLOSE_RANGE_CLOEXEC) || hi < 0 || last < (unsigned)lo || first > (unsigned)hi)
		return (int)syscall(SYS_close_range, first, last, flags);
	unsigned from = first;
	int rest = 1;	/* [from, last] still to close */
	for (unsigned fd = first > (unsigned)lo ? first : (unsigned)lo;
	     fd <= last && fd <= (unsigned)hi; fd++) {
		if (!mon_fd_ours((int)fd))
			continue;
		if (fd > from && syscall(SYS_close_range, from, fd - 1, flags) < 0)
			return -1;
		if (fd == last) {
			rest = 0;
			break;
		}
		from = fd + 1;
	}
	if (rest && syscall(SYS_close_range, from, last, flags) < 0)
		return -1;
	return 0;
}

/* close_range(2): same arguments, results and errors; ours stay open. */
MON_NO_TSAN MON_EXPORT int close_range(unsigned first, unsigned last, int flags)
{
	if (first > last)
		return mon_fail(EINVAL);
	return close_around(first, last, (unsigned)flags);
}

/* closefrom(3): every descriptor from lowfd up, except ours. */
MON_NO_TSAN MON_EXPORT void closefrom(int lowfd)
{
	int saved_errno = errno;
	if (lowfd < 0)
		lowfd = 0;
	if (close_around((unsigned)lowfd, ~0u, 0) < 0) {
		/* No close_range in this kernel: one by one, up to the limit. */
		struct rlimit rl;
		long top = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
				   ? (long)rl.rlim_cur : 65536;
		for (long fd = lowfd; fd < top; fd++)
			if (!mon_fd_ours((int)fd))
				syscall(SYS_close, (int)fd);
	}
	errno = saved_errno;
}

/* Who moves a descriptor of ours that the program wants (threads.c, for
 * the perf clocks' descriptors); set before the first one is made. */
static void (*mover)(int fd), (*wall_mover)(int fd);

void mon_fd_set_mover(void (*move)(int fd))
{
	__atomic_store_n(&mover, move, __ATOMIC_RELEASE);
}

void mon_fd_set_wall_mover(void (*move)(int fd))
{
	__atomic_store_n(&wall_mover, move, __ATOMIC_RELEASE);
}

MON_NO_TSAN static void fd_move(int fd)
{
	void (*m)(int) = __atomic_load_n(&mover, __ATOMIC_ACQUIRE);
	if (m != NULL)
		m(fd);
	m = __atomic_load_n(&wall_mover, __ATOMIC_ACQUIRE);
	if (m != NULL && mon_fd_ours(fd))
		m(fd);
}

/* Move ours away from newfd before the program's dup2/dup3 takes it. */
MON_NO_TSAN static void make_room(int newfd)
{
	if (mon_fd_ours(newfd))
		fd_move(newfd);
}

/* dup2(2), dup3(2): same arguments, results and errors; ours do not
 * exist for the program (EBADF as oldfd), and if newfd is one of ours, ours
 * moves to another number first (profiling goes on). */
MON_NO_TSAN MON_EXPORT int dup2(int oldfd, int newfd)
{
	if (mon_fd_ours(oldfd))
		return mon_fail(EBADF);
	if (oldfd == newfd)
		return fcntl(oldfd, F_GETFD) < 0 ? -1 : newfd;
	make_room(newfd);
	return (int)syscall(SYS_dup3, oldfd, newfd, 0);
}

MON_NO_TSAN MON_EXPORT int dup3(int oldfd, int newfd, int flags)
{
	if (mon_fd_ours(oldfd))
		return mon_fail(EBADF);
	make_room(newfd);
	return (int)syscall(SYS_dup3, oldfd, newfd, flags);
}
