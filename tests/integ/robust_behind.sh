#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# libmon's pthread_create behind another library's (the order libtsan.so
# puts it in): new threads still armed before they run, fork still safe
# (tests/progs/robust_behind.c; lib/threads.c, `behind`).
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 1
unset MONPROF_CLOCK MONPROF_RATE PROFDIR
$CC -O1 -g -shared -fPIC -o libshim.so "$ROOT/tests/progs/robust_behind_shim.c" -ldl ||
	{ not_ok robust_behind_build; exit 1; }
# libshim before libmon: its pthread_create is the program's first.
$CC -O1 -g -I"$ROOT/include" -o behind "$ROOT/tests/progs/robust_behind.c" \
	-L"$T" -Wl,-rpath,"$T" -lshim -L"$B/lib" -Wl,-rpath,"$B/lib" -lmon -lpthread ||
	{ not_ok robust_behind_build; exit 1; }
for c in perf thread; do
	try robust_behind_armed_and_fork_$c env MONPROF_CLOCK=$c ./behind
done
