/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * env.c — the MONPROF_* settings' values, kept past monrun's removal of
 * them from the program's environment.
 *
 * monrun's preload (autostart.c) removes its settings from the environment
 * before profiling starts (that is the runtime's own work, never sampled as
 * the program's), so that the program and what it executes see the
 * environment they were given.  The runtime still reads some of them
 * later: a dormant start switched on by monctl(1) starts the wall-clock
 * sampler and the call stacks then.  mon_env_keep copies the values into
 * libmon's own memory first; mon_env reads them there, and the
 * environment for any other name (or when nothing was kept: a program
 * linked with -lmon, whose environment keeps its settings).
 */
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

#define ENV_KEPT_MAX 32
static const char *const *kept_names;	/* the names kept (the caller's static table) */
static char *kept[ENV_KEPT_MAX];	/* their values, or NULL for unset */
static size_t nkept;

void mon_env_keep(const char *const *names, size_t n)
{
	if (n > ENV_KEPT_MAX)
		n = ENV_KEPT_MAX;
	for (size_t i = 0; i < n; i++) {
		const char *v = getenv(names[i]);
		kept[i] = v != NULL ? mon_strdup(v) : NULL;
	}
	kept_names = names;
	nkept = n;
}

const char *mon_env(const char *name)
{
	for (size_t i = 0; i < nkept; i++)
		if (strcmp(name, kept_names[i]) == 0)
			return kept[i];
	return getenv(name);
}
