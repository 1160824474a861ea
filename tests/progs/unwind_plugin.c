/* SPDX-License-Identifier: BSD-2-Clause */
/* unwind_plugin.c — a shared object that unwind_walk's dlopen case loads and
 * unloads in a loop (tests/integ/unwind.sh). */
volatile unsigned long plugin_sink;

void plugin_spin(unsigned long n);
__attribute__((noinline)) void plugin_spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		plugin_sink += i;
}
