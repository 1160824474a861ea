/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * robust_behind_shim.c — a shared library whose pthread_create comes before
 * libmon's (linked before -lmon), as libtsan.so's does in a program built
 * with -fsanitize=thread: it calls the next pthread_create (libmon's) with a
 * start routine of its own, which then runs after libmon's.  Built by
 * tests/integ/robust_behind.sh for tests/progs/robust_behind.c.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

int shim_threads(void);

static int (*next_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
static int started;	/* threads that went through shim_start */

struct shim_start {
	void *(*fn)(void *);
	void *arg;
};

static void *shim_start(void *p)
{
	struct shim_start s = *(struct shim_start *)p;
	free(p);
	__atomic_add_fetch(&started, 1, __ATOMIC_RELAXED);
	return s.fn(s.arg);
}

int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	if (next_create == NULL)
		next_create = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
				       void *))dlsym(RTLD_NEXT, "pthread_create");
	struct shim_start *s = malloc(sizeof *s);
	if (next_create == NULL || s == NULL) {
		free(s);
		return 11;	/* EAGAIN */
	}
	s->fn = fn;
	s->arg = arg;
	int rc = next_create(t, attr, shim_start, s);
	if (rc != 0)
		free(s);
	return rc;
}

/* Threads started through this library so far. */
int shim_threads(void)
{
	return __atomic_load_n(&started, __ATOMIC_RELAXED);
}
