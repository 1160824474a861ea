/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * monrun_dlopen.c — a program that loads a plugin with dlopen(3) once it is
 * running and spends most of its CPU time in it.
 *
 *   monrun_dlopen PLUGIN keep|close [MAIN_SECONDS [PLUGIN_SECONDS]]
 *
 * Burns MAIN_SECONDS (default 0.2) in main_spin, then dlopen()s PLUGIN
 * (monrun_plugin.c), calls its plugin_spin for PLUGIN_SECONDS (default 0.8)
 * and, with "close", dlclose()s it before exiting, so the profile must keep
 * the samples of an object that is gone.  Prints "main_spin S" and
 * "plugin_spin S", the CPU seconds each really used.  Exit 1 if the plugin
 * cannot be loaded.
 */
#include <dlfcn.h>
#include <string.h>

#include "monrun_common.h"

DEFINE_SPIN(main_spin)

int main(int argc, char **argv)
{
	if (argc < 3 || (strcmp(argv[2], "keep") != 0 && strcmp(argv[2], "close") != 0)) {
		fprintf(stderr, "usage: monrun_dlopen PLUGIN keep|close [MAIN_S [PLUGIN_S]]\n");
		return 2;
	}
	double m = mr_seconds(argc > 3 ? argv[3] : NULL, 0.2);
	double p = mr_seconds(argc > 4 ? argv[4] : NULL, 0.8);
	double used_main = main_spin(m);
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		fprintf(stderr, "dlopen %s: %s\n", argv[1], dlerror());
		return 1;
	}
	double (*spin)(double);
	*(void **)&spin = dlsym(h, "plugin_spin");
	if (spin == NULL) {
		fprintf(stderr, "dlsym plugin_spin: %s\n", dlerror());
		return 1;
	}
	double used_plugin = spin(p);
	if (strcmp(argv[2], "close") == 0 && dlclose(h) != 0) {
		fprintf(stderr, "dlclose: %s\n", dlerror());
		return 1;
	}
	printf("main_spin %.6f\nplugin_spin %.6f\n", used_main, used_plugin);
	return 0;
}
