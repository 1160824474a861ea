/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * monrun_plugin.c — a plugin that monrun_dlopen loads with dlopen(3) after
 * it has started (libmonrun_plugin.so in the test's scratch directory; the
 * program is not linked against it).  plugin_spin burns the CPU time asked
 * for (see monrun_common.h).
 */
#include "monrun_common.h"

DEFINE_SPIN(plugin_spin)
