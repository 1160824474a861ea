/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * monrun_shlib.c — a program linked against a shared library of its own
 * (libmonrun_lib.so, from monrun_lib.c).
 *
 *   monrun_shlib [MAIN_SECONDS [LIB_SECONDS]]
 *
 * Burns MAIN_SECONDS (default 0.5) of CPU in its own main_spin and
 * LIB_SECONDS (default 1.0) in the library's lib_spin, then prints
 * "main_spin S" and "lib_spin S", the CPU seconds each really used: the
 * shares that prof's report of a monrun profile must show.
 */
#include "monrun_common.h"

double lib_spin(double seconds);
DEFINE_SPIN(main_spin)

int main(int argc, char **argv)
{
	double m = mr_seconds(argc > 1 ? argv[1] : NULL, 0.5);
	double l = mr_seconds(argc > 2 ? argv[2] : NULL, 1.0);
	double used_main = main_spin(m);
	double used_lib = lib_spin(l);
	printf("main_spin %.6f\nlib_spin %.6f\n", used_main, used_lib);
	return 0;
}
