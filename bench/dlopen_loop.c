/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dlopen_loop.c — a program that loads and unloads a shared object in a
 * loop in one thread while others run, for issue 14's stress goal: the
 * runtime walks stacks (and refreshes its unwind tables after each dlopen)
 * while the dynamic loader's lock is taken and objects come and go.
 *
 *   dlopen_loop PLUGIN.so SECONDS
 *
 * One thread dlopen(3)s PLUGIN.so, calls its plugin_spin, and dlclose(3)s
 * it, round after round; a second calls malloc/free in a loop (the
 * allocator's locks); main recurses and spins.  All stop after SECONDS of
 * wall-clock time.  Prints the rounds; exit 0, or 1 if a dlopen failed.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile int stop;
static volatile uint64_t sink;
static const char *plugin;
static unsigned long rounds, allocs;
static int failed;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *loader(void *arg)
{
	(void)arg;
	while (!stop) {
		void *h = dlopen(plugin, RTLD_NOW | RTLD_LOCAL);
		if (h == NULL) {
			fprintf(stderr, "dlopen: %s\n", dlerror());
			failed = 1;
			break;
		}
		void (*fn)(unsigned long) = (void (*)(unsigned long))dlsym(h, "plugin_spin");
		if (fn)
			fn(20000);
		dlclose(h);
		rounds++;
	}
	return NULL;
}

static void *allocator(void *arg)
{
	(void)arg;
	while (!stop) {
		void *p[64];
		for (int i = 0; i < 64; i++)
			p[i] = malloc((size_t)(16 + 32 * i));
		for (int i = 0; i < 64; i++)
			free(p[i]);
		allocs += 64;
	}
	return NULL;
}

__attribute__((noinline)) static uint64_t rec(int depth)
{
	if (depth == 0) {
		uint64_t x = sink;
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005ull + 1;
		return x;
	}
	uint64_t r = rec(depth - 1);
	__asm__ volatile("" ::: "memory");
	return r + 1;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: dlopen_loop PLUGIN.so SECONDS\n");
		return 2;
	}
	plugin = argv[1];
	double end = now() + atof(argv[2]);
	pthread_t a, b;
	pthread_create(&a, NULL, loader, NULL);
	pthread_create(&b, NULL, allocator, NULL);
	while (now() < end && !failed)
		sink += rec(30);
	stop = 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("dlopen_loop: %lu dlopen/dlclose rounds, %lu mallocs\n", rounds, allocs);
	return failed;
}
