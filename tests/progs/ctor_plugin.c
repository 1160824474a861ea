/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ctor_plugin.c — a shared object whose constructor does the work: it
 * spins in ctor_spin for 0.1 CPU-s while dlopen(3) loads it, before
 * dlopen returns (prof_dlopen_ctor.sh).  ctor_cpu() gives the CPU it used.
 */
#include "monrun_common.h"

DEFINE_SPIN(ctor_spin)

static double used;

__attribute__((constructor)) static void ctor_init(void)
{
	used = ctor_spin(0.1);
}

double ctor_cpu(void);
double ctor_cpu(void)
{
	return used;
}
