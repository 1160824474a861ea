/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * go_cshared_host — a C program that loads a Go library
 * (tests/progs/go_cshared, -buildmode=c-shared) with dlopen(3) and calls
 * its GoWork for argv[2] seconds (tests/integ/monrun_go.sh).  Built twice:
 * with -DLINKED, linked against the library and calling GoWork directly,
 * no dlopen (Go's runtime is there when profiling starts), and without
 * (it comes with dlopen).  Prints "rounds N"; exits 0, or 2 when the
 * library cannot be loaded.
 * Usage: go_cshared_host LIBRARY SECONDS  (LIBRARY unused -DLINKED)
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef LINKED
long GoWork(double secs);
#endif

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
#ifdef LINKED
	printf("rounds %ld\n", GoWork(atof(argv[2])));
	return 0;
#endif
	void *h = dlopen(argv[1], RTLD_NOW);
	long (*work)(double) = h ? (long (*)(double))dlsym(h, "GoWork") : NULL;
	if (work == NULL) {
		fprintf(stderr, "go_cshared_host: %s\n", dlerror());
		return 2;
	}
	printf("rounds %ld\n", work(atof(argv[2])));
	return 0;
}
