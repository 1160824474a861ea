/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wall_plugins.c — two plug-ins loaded in turn at one address, each
 * sleeping in a function of its own, for the wall sampler's object sets
 * (tests/integ/wall_plugins.sh).
 *
 *   wall_plugins [MS]
 *
 * dlopen("./plugA.so"), plug_wait(MS) (default 300), dlclose; then
 * dlopen("./plugB.so"), plug_wait(2 * MS), dlclose (neither is loaded
 * when the profile is written).  The dynamic linker puts the second where
 * the first was.  Prints "plugA_wait US" and "plugB_wait US" (the
 * microseconds each wait took, CLOCK_MONOTONIC) and "same_address 1" or
 * "same_address 0".  Run it in the directory holding the plug-ins.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "plugin_open.h"

static long now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 300;
	const char *libs[2] = { "./plugA.so", "./plugB.so" };
	const char *names[2] = { "plugA_wait", "plugB_wait" };
	void *base[2] = { 0, 0 };
	for (int k = 0; k < 2; k++) {
		void *h;
		void (*wait)(long) = (void (*)(long))plugin_open(libs[k], "plug_wait", &h, &base[k]);
		if (wait == NULL)
			return 1;
		long t0 = now_us();
		wait(k ? 2 * ms : ms);
		printf("%s %ld\n", names[k], now_us() - t0);
		dlclose(h);
	}
	printf("same_address %d\n", base[0] == base[1]);
	return 0;
}
