/*
 * demangle.c — C++ names for -C, through the C++ runtime's own demangler.
 *
 * libstdc++ exports __cxa_demangle (the Itanium C++ ABI's demangler) with C
 * linkage.  prof is a C program and need not link the C++ runtime: it loads
 * libstdc++.so.6 with dlopen the first time -C meets a mangled name, so
 * prof works (without demangling) where no C++ runtime is installed.
 */
#include "prof.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

/* The Itanium ABI's signature: returns a malloc'd string, or NULL with
 * *status -1 (no memory), -2 (not a mangled name) or -3 (bad argument). */
typedef char *demangle_fn(const char *mangled, char *out, size_t *len, int *status);

static demangle_fn *demangler;
static int tried;

const char *prof_demangle(const char *name, char *buf, size_t buflen)
{
	if (name == NULL || name[0] != '_' || name[1] != 'Z')
		return NULL;
	if (!tried) {
		tried = 1;
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
		if (h) {
			void *sym = dlsym(h, "__cxa_demangle");
			memcpy(&demangler, &sym, sizeof sym);
		}
	}
	if (demangler == NULL)
		return NULL;
	int status = 0;
	char *d = demangler(name, NULL, NULL, &status);
	if (d == NULL || status != 0) {
		free(d);
		return NULL;
	}
	snprintf(buf, buflen, "%s", d);
	free(d);
	return buf;
}
