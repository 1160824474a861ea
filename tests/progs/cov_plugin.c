/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cov_plugin.c — a plug-in for cov_plugins.c, built twice: with
 * -DPLUG=plugA_hot into plugA.so and -DPLUG=plugB_hot into plugB.so.  Its
 * plug_run(seconds) spins that long in the function PLUG and returns the
 * CPU seconds used.
 */
#include "monrun_common.h"

#ifndef PLUG
#error "build with -DPLUG=name"
#endif

DEFINE_SPIN(PLUG)

double plug_run(double seconds);
double plug_run(double seconds)
{
	return PLUG(seconds);
}
