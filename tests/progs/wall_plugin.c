/*
 * wall_plugin.c — a plug-in for wall_plugins.c, built twice: with
 * -DPLUG=plugA_wait into plugA.so and -DPLUG=plugB_wait into plugB.so.  Its
 * plug_wait(ms) sleeps that long (one nanosleep) in the function PLUG.
 */
#include <time.h>

#ifndef PLUG
#error "build with -DPLUG=name"
#endif

static volatile int after;

__attribute__((noinline)) static void PLUG(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
	after++;	/* not a tail call: PLUG stays on the stack */
}

void plug_wait(long ms);
void plug_wait(long ms)
{
	PLUG(ms);
	after++;
}
