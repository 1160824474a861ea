/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * util.c — helpers every runtime file uses (a leaf: it calls no other
 * file of libmon).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "runtime.h"

int mon_fail(int e)
{
	errno = e;
	return -1;
}

pid_t mon_runtime_tid;
int mon_runtime_live;
pid_t mon_control_tid;

pid_t mon_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

char *mon_put_dec(char *p, uint64_t v)
{
	char d[20];
	int n = 0;
	do
		d[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (n)
		*p++ = d[--n];
	*p = '\0';
	return p;
}

void mon_zero_pages(void *p, size_t bytes)
{
	if (bytes == 0)
		return;
	uintptr_t a = (uintptr_t)p, e = a + bytes;
	uintptr_t pg = (uintptr_t)getauxval(AT_PAGESZ);
	if (pg == 0 || (pg & (pg - 1)) != 0)
		pg = 4096;
	uintptr_t lo = (a + pg - 1) & ~(pg - 1), hi = e & ~(pg - 1);
	if (hi <= lo || syscall(SYS_madvise, lo, hi - lo, MADV_DONTNEED) != 0) {
		memset(p, 0, bytes);
		return;
	}
	memset(p, 0, lo - a);
	memset((void *)hi, 0, e - hi);
}

int mon_writable(const void *p)
{
	static int wake_word;
	/* FUTEX_WAKE_OP atomically applies "add 0" to the aligned 32-bit word
	 * holding p (a write access, done by the kernel: EFAULT instead of a
	 * fault) and wakes nobody (futex(2)).  The word never leaves p's page. */
	int *word = (int *)((uintptr_t)p & ~(uintptr_t)3);
	long r = syscall(SYS_futex, &wake_word, FUTEX_WAKE_OP | FUTEX_PRIVATE_FLAG, 0,
			 (void *)0, word, FUTEX_OP(FUTEX_OP_ADD, 0, FUTEX_OP_CMP_EQ, 0));
	return r >= 0;
}

/* A getdents64(2) record (the kernel's struct linux_dirent64). */
struct task_dirent {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

int mon_task_each(int fd, char *buf, size_t len, void (*fn)(pid_t tid, void *arg), void *arg)
{
	long n;
	while ((n = syscall(SYS_getdents64, fd, buf, len)) > 0) {
		for (long at = 0; at < n;) {
			const struct task_dirent *e = (const struct task_dirent *)(void *)(buf + at);
			at += e->d_reclen;
			pid_t tid = 0;
			for (const char *c = e->d_name; *c >= '0' && *c <= '9'; c++)
				tid = tid * 10 + (*c - '0');
			if (tid > 0)
				fn(tid, arg);
		}
	}
	return n < 0 ? -1 : 0;
}

/* mon_task_each's callback for mon_only_runtime_left: a thread that is
 * neither the leader nor one of the runtime's. */
static void not_ours(pid_t tid, void *arg)
{
	int *other = arg;
	if (tid != getpid() &&
	    (!__atomic_load_n(&mon_runtime_live, __ATOMIC_ACQUIRE) ||
	     tid != __atomic_load_n(&mon_runtime_tid, __ATOMIC_ACQUIRE)) &&
	    tid != __atomic_load_n(&mon_control_tid, __ATOMIC_ACQUIRE))
		*other = 1;
}

int mon_only_runtime_left(void)
{
	struct stat st;
	/* Cheap first: the link count of /proc/self/task is 2 plus the
	 * threads (fs/proc/base.c proc_task_getattr); the leader and two of
	 * ours at most. */
	if (syscall(SYS_newfstatat, AT_FDCWD, "/proc/self/task", &st, 0) != 0 || st.st_nlink > 5)
		return 0;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/task",
			      O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	char buf[1024] __attribute__((aligned(8)));
	int other = 0;
	int rc = mon_task_each(fd, buf, sizeof buf, not_ours, &other);
	syscall(SYS_close, fd);
	if (rc < 0 || other)
		return 0;
	/* The leader's state, after the name's closing parenthesis (proc(5)):
	 * Z once the main thread has ended (pthread_exit) with others alive. */
	fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	long n = syscall(SYS_read, fd, buf, sizeof buf - 1);
	syscall(SYS_close, fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	return p != NULL && p[1] == ' ' && p[2] == 'Z';
}

int mon_fd_each_line(int fd, int (*fn)(char *line, size_t len, void *arg), void *arg)
{
	char buf[4096];
	size_t fill = 0;
	int skip = 0;		/* inside a line longer than buf: dropped up to its newline */
	for (;;) {
		ssize_t k = read(fd, buf + fill, sizeof buf - 1 - fill);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		fill += (size_t)k;
		size_t at = 0;
		for (size_t i = 0; i < fill; i++) {
			if (buf[i] != '\n')
				continue;
			buf[i] = '\0';
			int r = skip ? 0 : fn(buf + at, i - at, arg);
			skip = 0;
			if (r != 0)
				return r;
			at = i + 1;
		}
		if (at == 0 && fill == sizeof buf - 1) {
			skip = 1;
			at = fill;
		}
		memmove(buf, buf + at, fill - at);
		fill -= at;
	}
	if (fill == 0 || skip)
		return 0;
	buf[fill] = '\0';
	return fn(buf, fill, arg);
}

int mon_owner_take(pid_t *word)
{
	pid_t self = mon_gettid(), none = 0;
	for (int i = 0; !__atomic_compare_exchange_n(word, &none, self, 0, __ATOMIC_ACQUIRE,
						     __ATOMIC_RELAXED);
	     i++) {
		if (none == self || i >= 2000)
			return mon_fail(EBUSY);
		none = 0;
		struct timespec ms = { 0, 1000000 };
		nanosleep(&ms, NULL);
	}
	return 0;
}

/* The runtime's lock (runtime.h: what it serialises, and the lock order). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void mon_lock(void)
{
	pthread_mutex_lock(&lock);
}

int mon_trylock(void)
{
	return pthread_mutex_trylock(&lock) == 0;
}

void mon_unlock(void)
{
	pthread_mutex_unlock(&lock);
}

void mon_lock_reset(void)
{
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
	memcpy(&lock, &fresh, sizeof lock);
}
