/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * monrun_lib.c — a shared library of the test's own (libmonrun_lib.so, built
 * in the test's scratch directory): monrun_shlib links against it, and
 * monrun_options.sh also uses it as "the user's own" LD_PRELOAD entry.
 * lib_spin burns the CPU time asked for (see monrun_common.h).
 */
#include "monrun_common.h"

DEFINE_SPIN(lib_spin)
