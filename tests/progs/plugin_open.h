/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * plugin_open.h — for test programs that load plug-ins in turn
 * (cov_plugins.c, wall_plugins.c): include after <dlfcn.h> with
 * _GNU_SOURCE defined (dladdr(3)).
 */
#ifndef PLUGIN_OPEN_H
#define PLUGIN_OPEN_H

#include <dlfcn.h>
#include <stdio.h>

/* dlopen(3) lib (RTLD_NOW) and look up its function sym: the function's
 * address, *handle the handle and *base the object's load address
 * (dladdr's dli_fbase); NULL with a line on stderr when either fails. */
static inline void *plugin_open(const char *lib, const char *sym, void **handle, void **base)
{
	*handle = dlopen(lib, RTLD_NOW);
	if (*handle == NULL) {
		fprintf(stderr, "%s\n", dlerror());
		return NULL;
	}
	void *fn = dlsym(*handle, sym);
	Dl_info di;
	if (fn == NULL || !dladdr(fn, &di)) {
		fprintf(stderr, "no %s in %s\n", sym, lib);
		return NULL;
	}
	*base = di.dli_fbase;
	return fn;
}

#endif
