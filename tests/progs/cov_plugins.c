/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cov_plugins.c — two plug-ins loaded in turn at one address (case
 * plugins-same-address.c), by relative names.
 *
 *   cov_plugins [SECONDS [close]]
 *
 * dlopen("./plugA.so"), run it SECONDS (default 0.1), dlclose; then
 * dlopen("./plugB.so"), run it 4 * SECONDS, and keep it loaded.  The
 * dynamic linker puts the second where the first was (the process has
 * nothing else to map between); with "close" the second is dlclosed too
 * (then neither is loaded when the profile is written).  Prints "plugA_hot S", "plugB_hot S" (CPU
 * seconds) and "same_address 1" or "same_address 0".  Run it in the
 * directory holding the plug-ins.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>

#include "monrun_common.h"
#include "plugin_open.h"

int main(int argc, char **argv)
{
	double s = mr_seconds(argc > 1 ? argv[1] : NULL, 0.1);
	const char *libs[2] = { "./plugA.so", "./plugB.so" };
	const char *names[2] = { "plugA_hot", "plugB_hot" };
	void *base[2] = { 0, 0 };
	for (int k = 0; k < 2; k++) {
		void *h;
		double (*run)(double) = (double (*)(double))plugin_open(libs[k], "plug_run", &h,
									 &base[k]);
		if (run == NULL)
			return 1;
		printf("%s %.6f\n", names[k], run(k ? 4 * s : s));
		if (k == 0 || (argc > 2 && strcmp(argv[2], "close") == 0))
			dlclose(h);
	}
	printf("same_address %d\n", base[0] == base[1]);
	return 0;
}
