/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wall_plugin.c — a plug-in for wall_plugins.c, built twice: with
 * -DPLUG=plugA_wait -DLOCK=plugA_lock into plugA.so and with plugB_*
 * into plugB.so.  Its plug_wait(ms), in the function PLUG, sleeps ms (one
 * nanosleep), then waits ms for the mutex LOCK (in the plug-in's data)
 * that a thread of its own holds that long.
 */
#include <pthread.h>
#include <semaphore.h>
#include <time.h>

#if !defined(PLUG) || !defined(LOCK)
#error "build with -DPLUG=name -DLOCK=name"
#endif

pthread_mutex_t LOCK = PTHREAD_MUTEX_INITIALIZER;
static sem_t held;
static volatile int after;

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

static void *holder(void *arg)
{
	pthread_mutex_lock(&LOCK);
	sem_post(&held);
	nap((long)arg);
	pthread_mutex_unlock(&LOCK);
	return NULL;
}

__attribute__((noinline)) static void PLUG(long ms)
{
	nap(ms);
	pthread_t t;
	sem_init(&held, 0, 0);
	if (pthread_create(&t, NULL, holder, (void *)ms) == 0) {
		sem_wait(&held);
		pthread_mutex_lock(&LOCK);	/* held by holder for ms */
		pthread_mutex_unlock(&LOCK);
		pthread_join(t, NULL);
	}
	after++;	/* not a tail call: PLUG stays on the stack */
}

void plug_wait(long ms);
void plug_wait(long ms)
{
	PLUG(ms);
	after++;
}
