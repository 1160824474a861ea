/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dlopen_reopen.c — a plug-in host that opens again what it has open, for
 * tests/integ/guest_dlopen.sh: such a dlopen(3) only raises the object's
 * count in the loader, makes no system call, and libmon's dlopen
 * (lib/objhist.c) must then add none of its own.
 *
 *   dlopen_reopen PLUGIN.so N SECONDS [LATE.so]
 *
 * Opens PLUGIN.so, then N times: dlopen of it again and dlclose, dlopen
 * with RTLD_NOLOAD and dlclose, dlopen(NULL) and dlclose.  Then closes it
 * (the loader unmaps it), opens LATE.so (default PLUGIN.so again: a real
 * load either way, which libmon must see) and calls its plugin_spin for
 * SECONDS of CPU.  Prints "reopened N"; exit 0, 1 if a dlopen failed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "plugin_open.h"

static int reopen(const char *lib, int mode)
{
	void *h = dlopen(lib, mode);
	if (h == NULL) {
		fprintf(stderr, "dlopen_reopen: %s\n", dlerror());
		return -1;
	}
	dlclose(h);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: dlopen_reopen PLUGIN.so N SECONDS [LATE.so]\n");
		return 2;
	}
	const char *lib = argv[1];
	long n = atol(argv[2]);
	double seconds = atof(argv[3]);
	void *h, *base;
	if (plugin_open(lib, "plugin_spin", &h, &base) == NULL)
		return 1;
	for (long i = 0; i < n; i++)
		if (reopen(lib, RTLD_NOW) < 0 || reopen(lib, RTLD_NOW | RTLD_NOLOAD) < 0 ||
		    reopen(NULL, RTLD_NOW) < 0)
			return 1;
	dlclose(h);
	const char *late = argc > 4 ? argv[4] : lib;
	double (*spin)(double) = (double (*)(double))plugin_open(late, "plugin_spin", &h, &base);
	if (spin == NULL)
		return 1;
	spin(seconds);
	printf("reopened %ld\n", n);
	return 0;
}
