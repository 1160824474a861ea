/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * prof_forkdl_lib.c — the shared libraries prof_forkdl's children load with
 * dlopen(3): built twice, with -DLIB_SPIN=a_spin (liba.so) and
 * -DLIB_SPIN=b_spin (libb.so), each exporting a spin function of that name
 * (monrun_common.h) that burns the CPU seconds asked for.
 */
#include "monrun_common.h"

#ifndef LIB_SPIN
#define LIB_SPIN lib_spin
#endif

DEFINE_SPIN(LIB_SPIN)
