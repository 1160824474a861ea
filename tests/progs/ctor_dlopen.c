/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ctor_dlopen.c — loads the shared object PATH with dlopen(3), whose
 * constructor does the work (ctor_plugin.c), and prints "ctor_spin S", the
 * CPU seconds it used (prof_dlopen_ctor.sh).
 *
 *   ctor_dlopen PATH
 */
#include <dlfcn.h>

#include "monrun_common.h"

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	void *h = dlopen(argv[1], RTLD_NOW);
	if (h == NULL) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	double (*cpu)(void) = (double (*)(void))dlsym(h, "ctor_cpu");
	if (cpu == NULL)
		return 1;
	printf("ctor_spin %.6f\n", cpu());
	return 0;
}
