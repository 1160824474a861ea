/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * exec.c — profiling is off in the new program (profil(2): "turned off
 * when an exec is executed").
 *
 * The kernel keeps ITIMER_PROF and pending signals across execve(2); the
 * new image has our handler reset to the default action, so a tick pending
 * at that moment kills it ("Profiling timer expired" with the C library's
 * profiler).  libmon's exec functions therefore stop every clock, discard
 * any pending tick and give the program its own disposition and timer back
 * before the real exec; if the exec fails they re-arm and profiling goes on.
 * In a vfork child (which shares our memory but not our clocks) they touch
 * nothing.  The layers above may write their profile first (before_exec).
 */
#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "mon.h"
#include "runtime.h"

extern char **environ;

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execvpe_fn)(const char *, char *const[], char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);
typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			const posix_spawnattr_t *, char *const[], char *const[]);

static execve_fn real_execve;
static execvpe_fn real_execvpe;
static fexecve_fn real_fexecve;
static execveat_fn real_execveat;
static spawn_fn real_posix_spawn, real_posix_spawnp;

__attribute__((constructor)) void mon_exec_init(void)
{
	MON_ONCE();
	int saved_errno = errno;
	real_execve = (execve_fn)mon_libc_next("execve");
	real_execvpe = (execvpe_fn)mon_libc_next("execvpe");
	real_fexecve = (fexecve_fn)mon_libc_next("fexecve");
	real_execveat = (execveat_fn)mon_libc_next("execveat");
	real_posix_spawn = (spawn_fn)mon_libc_next("posix_spawn");
	real_posix_spawnp = (spawn_fn)mon_libc_next("posix_spawnp");
	errno = saved_errno;
}

int mon_exec_prepare(const char *path, int how, int fd)
{
	int saved_errno = errno;
	int was_on = 0;
	if (getpid() != mon_pid) {
		/* vfork child: the clocks are the parent's */
		if (mon_hooks.vfork_exec)
			mon_hooks.vfork_exec();
		errno = saved_errno;
		return 0;
	}
	mon_lock();
	if (mon_clock_active != MON_CLOCK_NONE) {
		was_on = mon_clock_active;
		mon_threads_stop();
	}
	mon_unlock();
	/* The old image's profile, written after sampling stopped so that
	 * the writing itself is not in it. */
	if (mon_hooks.before_exec)
		mon_hooks.before_exec(path, how, fd);
	errno = saved_errno;
	return was_on;
}

void mon_exec_failed(void)
{
	int saved_errno = errno;
	if (mon_hooks.exec_failed)
		mon_hooks.exec_failed();
	mon_lock();
	if (mon_clock_active == MON_CLOCK_NONE)
		mon_threads_start();
	mon_unlock();
	errno = saved_errno;
}

/* The exec functions' own frames are left out of AddressSanitizer's
 * instrumentation: in a vfork child (a shell's) whose exec succeeds they
 * never return, and the poison ASan puts around their stack arrays (the
 * alloca'd environment and argument vectors) was left in the memory the
 * parent shares, which the parent's next deeper call then hit: a
 * dynamic-stack-buffer-overflow in sigprocmask's frame under dash
 * (prof_tree_times under ASan, once).  They hold no buffer of their own to
 * check: exec_env_build, which fills one, is instrumented. */
#define MON_EXEC_FRAME __attribute__((no_sanitize("address")))

/* Profiling off, the real exec — with the environment that has the new
 * image profiled when exec is followed (follow.c), built on this stack —,
 * and back on if it returned (failed).  ENV_ names the environment
 * argument inside the argument list. */
#define EXEC_THROUGH(real, path, how, fd, envp, ...)                           \
	do {                                                                   \
		if ((real) == NULL)                                            \
			return mon_fail(ENOSYS);                               \
		int was_on_ = mon_exec_prepare(path, how, fd);                 \
		char *const *ENV_ = (envp);                                    \
		size_t need_ = mon_hooks.exec_env_size ? mon_hooks.exec_env_size(envp, 0) : 0; \
		if (need_ > 0) {                                               \
			void *buf_ = __builtin_alloca(need_);                  \
			char **e_ = mon_hooks.exec_env_build(envp, 0, buf_, need_); \
			if (e_ != NULL)                                        \
				ENV_ = e_;                                     \
		}                                                              \
		int rc_ = (real)(__VA_ARGS__);                                 \
		if (was_on_)                                                   \
			mon_exec_failed();                                     \
		else if (mon_hooks.exec_failed)                                \
			mon_hooks.exec_failed();                               \
		return rc_;                                                    \
	} while (0)

MON_EXPORT MON_EXEC_FRAME int execve(const char *path, char *const argv[], char *const envp[])
{
	EXEC_THROUGH(real_execve, path, MON_EXEC_PATH, -1, envp, path, argv, ENV_);
}

MON_EXPORT MON_EXEC_FRAME int execvpe(const char *file, char *const argv[], char *const envp[])
{
	EXEC_THROUGH(real_execvpe, file, MON_EXEC_SEARCH, -1, envp, file, argv, ENV_);
}

MON_EXPORT MON_EXEC_FRAME int fexecve(int fd, char *const argv[], char *const envp[])
{
	char *const *args = argv;
	MON_LAUNDER(args);
	EXEC_THROUGH(real_fexecve, args && args[0] ? args[0] : "", MON_EXEC_FD, fd, envp, fd, argv,
		     ENV_);
}

MON_EXPORT MON_EXEC_FRAME int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
			int flags)
{
	EXEC_THROUGH(real_execveat, path, MON_EXEC_AT, dirfd, envp, dirfd, path, argv, ENV_, flags);
}

MON_EXPORT MON_EXEC_FRAME int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

MON_EXPORT MON_EXEC_FRAME int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

/* The list forms gather their arguments into a vector on the stack (exec
 * may be called after fork in a threaded program: no malloc). */
#define GATHER_ARGS(first, ap, argv, envp_out)                                 \
	do {                                                                   \
		size_t n_ = 0;                                                 \
		va_list c_;                                                    \
		va_copy(c_, ap);                                               \
		if ((first) != NULL)                                           \
			for (n_ = 1; va_arg(c_, char *) != NULL; n_++)         \
				;                                              \
		va_end(c_);                                                    \
		argv = __builtin_alloca((n_ + 1) * sizeof(char *));            \
		argv[0] = (char *)(first);                                     \
		for (size_t i_ = 1; i_ <= n_; i_++)                            \
			argv[i_] = va_arg(ap, char *);                         \
		argv[n_] = NULL;                                               \
		envp_out;                                                      \
	} while (0)

MON_EXPORT MON_EXEC_FRAME int execl(const char *path, const char *arg, ...)
{
	char **argv;
	va_list ap;
	MON_LAUNDER(arg);
	va_start(ap, arg);
	GATHER_ARGS(arg, ap, argv, (void)0);
	va_end(ap);
	return execve(path, argv, environ);
}

MON_EXPORT MON_EXEC_FRAME int execlp(const char *file, const char *arg, ...)
{
	char **argv;
	va_list ap;
	MON_LAUNDER(arg);
	va_start(ap, arg);
	GATHER_ARGS(arg, ap, argv, (void)0);
	va_end(ap);
	return execvpe(file, argv, environ);
}

MON_EXPORT MON_EXEC_FRAME int execle(const char *path, const char *arg, ...)
{
	char **argv, **envp;
	va_list ap;
	MON_LAUNDER(arg);
	va_start(ap, arg);
	GATHER_ARGS(arg, ap, argv, envp = va_arg(ap, char **));
	va_end(ap);
	return execve(path, argv, envp);
}

/* posix_spawn(3): the child execs in the C library without going through
 * the functions above.  Nothing changes in this process (the clocks stay
 * on); when fork children are followed (monrun -f, -pg programs) the
 * child is given the environment that has its program profiled. */
#define SPAWN_THROUGH(real, ...)                                                \
	do {                                                                   \
		if ((real) == NULL)                                            \
			return ENOSYS;                                         \
		char *const *ENV_ = envp;                                      \
		size_t need_ = mon_hooks.exec_env_size ? mon_hooks.exec_env_size(envp, 1) : 0; \
		if (need_ > 0) {                                               \
			void *buf_ = __builtin_alloca(need_);                  \
			char **e_ = mon_hooks.exec_env_build(envp, 1, buf_, need_); \
			if (e_ != NULL)                                        \
				ENV_ = e_;                                     \
		}                                                              \
		int rc_ = (real)(__VA_ARGS__);                                 \
		if (mon_hooks.spawned)                                         \
			mon_hooks.spawned(rc_);                                \
		return rc_;                                                    \
	} while (0)

MON_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
			   const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	SPAWN_THROUGH(real_posix_spawn, pid, path, fa, attr, argv, ENV_);
}

MON_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			    const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	SPAWN_THROUGH(real_posix_spawnp, pid, file, fa, attr, argv, ENV_);
}
