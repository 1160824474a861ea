/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * prof_lib.c — a shared library for prof's tests: an exported function, a
 * static one, and one whose symbol is a mangled C++ name (for -C), given
 * with an asm label so that no C++ compiler is needed.
 */
volatile int prof_lib_sink;

static __attribute__((noinline)) int lib_static(int x)
{
	return x * 3 + prof_lib_sink;
}

__attribute__((noinline)) int prof_lib_func(int x)
{
	return lib_static(x) + 1;
}

int cxx_named(int x) __asm__("_ZN2ns3fooEi");
__attribute__((noinline)) int cxx_named(int x)
{
	return x + prof_lib_sink;
}
