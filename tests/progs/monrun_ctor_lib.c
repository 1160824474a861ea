/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * monrun_ctor_lib.c — a shared library whose constructor does the work a
 * C++ library's static initializers do: it burns CTOR_SECONDS of CPU (from
 * the environment; none if unset) in ctor_spin before main runs.  ld.so
 * runs this constructor before a preloaded libmon's (monrun); the program
 * (monrun_ctor.c) prints the CPU it took.  Built a second time as a plugin
 * the program dlopens: -DCTOR_ENV='"PLUGIN_SECONDS"' -Dctor_spin=plugin_spin
 * -Dctor_used=plugin_used (dlopen runs its constructor before it returns).
 * CTOR_EXIT=N: the constructor then calls exit(N).
 */
#include "monrun_common.h"

#ifndef CTOR_ENV
#define CTOR_ENV "CTOR_SECONDS"
#endif

DEFINE_SPIN(ctor_spin)

double ctor_used(void);
static double used;

double ctor_used(void)
{
	return used;
}

__attribute__((constructor)) static void ctor(void)
{
	const char *s = getenv(CTOR_ENV);
	if (s != NULL)
		used = ctor_spin(mr_seconds(s, 0));
	/* CTOR_EXIT=N: then exit(N), the program's main never runs. */
	const char *e = getenv("CTOR_EXIT");
	if (e != NULL && getenv("PLUGIN_SECONDS") == NULL)
		exit(atoi(e));
}
