#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The runtime's stack unwinder (lib/unwind.c, issue 14) on every path a
# stack may take, in a program built -O2 -fomit-frame-pointer (as Debian
# builds the C library): a 40-deep recursion, qsort's comparator, a tick in
# the program's own signal handler, the vDSO, the PLT, a makecontext
# coroutine, rbp full of garbage, JIT code, dlopen/dlclose in a loop while
# walks run, >= 99 % of walks reaching main at 4 kHz, and >= 95 % through
# libpython3.11.  The checks and their counts are unwind_walk.c's and
# unwind_python.c's (tests/progs).
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 1
build_prog_static walk unwind_walk.c -I"$ROOT/lib" -O2 -fomit-frame-pointer -rdynamic \
	-Wl,-z,lazy || { not_ok unwind_build; exit 1; }
$CC -O2 -fomit-frame-pointer -shared -fPIC -o plugin.so "$ROOT/tests/progs/unwind_plugin.c" ||
	{ not_ok unwind_plugin_build; exit 1; }
for c in recurse qsort signal vdso plt coroutine garbage jit; do
	try "unwind_$c" timeout 300 ./walk "$c"
done
try unwind_dlopen timeout 600 ./walk dlopen "$T/plugin.so"
try unwind_stats timeout 300 ./walk stats
build_prog_static pywalk unwind_python.c -I"$ROOT/lib" -O2 -fomit-frame-pointer -rdynamic ||
	{ not_ok unwind_python_build; exit 1; }
# (LeakSanitizer, in a sanitizer build, would report the embedded
# interpreter's own allocations, which it never frees at exit.)
try unwind_python env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" timeout 300 ./pywalk
