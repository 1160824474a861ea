/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libc_next.c — the C library's definition of a function libmon interposes,
 * in a dynamically linked program and in a static (or static-pie) one.
 *
 * In a dynamically linked program the next definition after ours is found
 * with dlsym(RTLD_NEXT, name) (dlsym(3)): another interposer's, or the C
 * library's.  A static program has no dynamic symbol table: dlsym finds
 * nothing, and libmon's own definition (from libmon.a, linked before libc.a)
 * is the only one of that name in the executable.  The C library's function
 * is then reached by another name:
 *
 *   sigaction        __sigaction — exported by glibc under that name too
 *                    (GLIBC_2.2.5 in its ABI list), so a reference links
 *                    against libc.so and pulls sigaction.o out of libc.a
 *   close            __close — the same (GLIBC_2.2.5)
 *   sigprocmask,     the rt_sigprocmask(2) system call, with glibc's two
 *   pthread_sigmask  internal signals (32, 33: thread cancellation and
 *                    set*id broadcast, nptl(7)) never blocked, as glibc does
 *   execve, execveat the system calls execve(2), execveat(2)
 *   fexecve          execveat(fd, "", argv, envp, AT_EMPTY_PATH) (execveat(2))
 *   execvpe          execve(2) through a search of PATH, as exec(3) tells it
 *                    (default "/bin:/usr/bin"; ENOEXEC runs /bin/sh on it;
 *                    EACCES kept if no later entry works)
 *   posix_spawn      glibc's __posix_spawn, linked in by the reference to
 *                    system(3) below (system.o calls it)
 *   posix_spawnp     __posix_spawn on the first PATH entry that holds an
 *                    executable file of that name
 *   pthread_create   glibc's __pthread_create, linked in by the reference to
 *                    mq_notify(3) below (mq_notify.o calls it; not
 *                    thrd_create, which libmon defines: threads.c)
 *   dlopen           glibc's __dlopen if the static link holds it (it does
 *                    not unless something else of libc.a asked for it);
 *                    else none: dlopen then fails (documented, monitor.3)
 *
 * A weak reference does not pull a member out of an archive (ld(1)), and a
 * strong one to a name libc.so does not export would break the dynamic link
 * of libmon.so and of libmon.a into a dynamic program: hence the exported
 * functions referenced for their members' sake.  Resolved once, in the
 * constructors, never in a signal handler.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime.h"

extern int __sigaction(int, const struct sigaction *, struct sigaction *);
extern int __close(int);
extern int __pthread_create(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *)
	__attribute__((weak));
extern int __posix_spawn(pid_t *, const char *, const posix_spawn_file_actions_t *,
			 const posix_spawnattr_t *, char *const[], char *const[]) __attribute__((weak));
extern void *__dlopen(const char *, int) __attribute__((weak));

/* Referenced only so that a static link holds the members that define the
 * weak names above (see the top of this file). */
__attribute__((used)) static void *const pull_members[] = {
	(void *)mq_notify,
	(void *)system,
};

#define SIGCANCEL_ 32
#define SIGSETXID_ 33

static int mask_syscall(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t s;
	if (set != NULL && how != SIG_UNBLOCK) {
		s = *set;
		sigdelset(&s, SIGCANCEL_);
		sigdelset(&s, SIGSETXID_);
		set = &s;
	}
	return (int)syscall(SYS_rt_sigprocmask, how, set, old, (size_t)(_NSIG / 8));
}

/* sigprocmask(2)'s convention: 0 or -1/errno (EINVAL, EFAULT). */
static int sigprocmask_next(int how, const sigset_t *set, sigset_t *old)
{
	return mask_syscall(how, set, old);
}

/* pthread_sigmask(3)'s convention: 0 or the error number. */
static int pthread_sigmask_next(int how, const sigset_t *set, sigset_t *old)
{
	int saved_errno = errno;
	int rc = mask_syscall(how, set, old) < 0 ? errno : 0;
	errno = saved_errno;
	return rc;
}

static int execve_next(const char *path, char *const argv[], char *const envp[])
{
	return (int)syscall(SYS_execve, path, argv, envp);
}

static int execveat_next(int dirfd, const char *path, char *const argv[], char *const envp[],
			 int flags)
{
	return (int)syscall(SYS_execveat, dirfd, path, argv, envp, flags);
}

static int fexecve_next(int fd, char *const argv[], char *const envp[])
{
	return (int)syscall(SYS_execveat, fd, "", argv, envp, AT_EMPTY_PATH);
}

/* The search of exec(3)'s "p" functions: calls try(path, ctx) on each
 * PATH entry joined with file (file itself if it holds a '/') until try
 * returns something other than -1 with ENOENT/ENOTDIR/EACCES/ESTALE...; the
 * last result, errno EACCES if any entry said so.  ENAMETOOLONG when a
 * joined name exceeds 4095 bytes. */
static int path_search(const char *file, int (*try)(const char *, void *), void *ctx)
{
	if (file == NULL || *file == '\0')
		return mon_fail(ENOENT);
	if (strchr(file, '/') != NULL)
		return try(file, ctx);
	const char *p = getenv("PATH");
	if (p == NULL)
		p = "/bin:/usr/bin";
	size_t flen = strlen(file);
	int saw_eacces = 0;
	char buf[4096];
	for (;;) {
		const char *end = strchr(p, ':');
		size_t dlen = end ? (size_t)(end - p) : strlen(p);
		if (dlen + 1 + flen + 1 > sizeof buf)
			return mon_fail(ENAMETOOLONG);
		size_t n = 0;
		if (dlen == 0)
			buf[n++] = '.';	/* an empty entry is the current directory */
		memcpy(buf + n, p, dlen);
		n += dlen;
		buf[n++] = '/';
		memcpy(buf + n, file, flen + 1);
		int rc = try(buf, ctx);
		if (rc != -1)
			return rc;
		if (errno == EACCES)
			saw_eacces = 1;
		else if (errno != ENOENT && errno != ENOTDIR && errno != ESTALE && errno != ENODEV &&
			 errno != ETIMEDOUT)
			return -1;
		if (end == NULL)
			break;
		p = end + 1;
	}
	return mon_fail(saw_eacces ? EACCES : ENOENT);
}

struct exec_args {
	char *const *argv, *const *envp;
};

static int try_execve(const char *path, void *ctx)
{
	struct exec_args *a = ctx;
	execve_next(path, a->argv, a->envp);
	if (errno == ENOEXEC) {
		/* exec(3): "the shell is invoked with the path of the file as its first argument" */
		size_t n = 0;
		while (a->argv[n] != NULL)
			n++;
		if (n > 4096)
			return mon_fail(E2BIG);
		const char *sh[n + 2];
		sh[0] = "/bin/sh";
		sh[1] = path;
		for (size_t i = 1; i <= n; i++)
			sh[i + 1] = a->argv[i];
		execve_next("/bin/sh", (char *const *)sh, a->envp);
	}
	return -1;
}

static int execvpe_next(const char *file, char *const argv[], char *const envp[])
{
	struct exec_args a = { argv, envp };
	return path_search(file, try_execve, &a);
}

struct spawn_args {
	pid_t *pid;
	const posix_spawn_file_actions_t *fa;
	const posix_spawnattr_t *attr;
	char *const *argv, *const *envp;
};

/* posix_spawnp without the C library's own: the first executable regular
 * file of that name on PATH, spawned with posix_spawn. */
static int try_spawn(const char *path, void *ctx)
{
	struct spawn_args *a = ctx;
	struct stat st;
	if (access(path, X_OK) != 0)
		return -1;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return mon_fail(EACCES);
	int rc = __posix_spawn(a->pid, path, a->fa, a->attr, a->argv, a->envp);
	return rc;	/* an error number or 0: never -1 */
}

static int posix_spawnp_next(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			     const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	if (__posix_spawn == NULL)
		return ENOSYS;
	struct spawn_args a = { pid, fa, attr, argv, envp };
	int saved_errno = errno;
	int rc = path_search(file, try_spawn, &a);
	if (rc == -1)
		rc = errno;
	errno = saved_errno;
	return rc;
}

MON_NO_TSAN void *mon_libc_next(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);
	if (p != NULL)
		return p;
	static const struct {
		const char *name;
		void *fn;
	} table[] = {
		{ "sigaction", (void *)__sigaction },
		{ "close", (void *)__close },
		{ "sigprocmask", (void *)sigprocmask_next },
		{ "pthread_sigmask", (void *)pthread_sigmask_next },
		{ "execve", (void *)execve_next },
		{ "execveat", (void *)execveat_next },
		{ "fexecve", (void *)fexecve_next },
		{ "execvpe", (void *)execvpe_next },
		{ "posix_spawnp", (void *)posix_spawnp_next },
	};
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (strcmp(table[i].name, name) == 0)
			return table[i].fn;
	if (strcmp(name, "posix_spawn") == 0)
		return (void *)__posix_spawn;
	if (strcmp(name, "pthread_create") == 0)
		return (void *)__pthread_create;
	if (strcmp(name, "dlopen") == 0)
		return (void *)__dlopen;
	return NULL;
}
