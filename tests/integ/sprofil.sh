#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# sprofil(3): glibc's multi-region profil on libmon's sampler
# (tests/progs/sprofil_regions.c checks; see its comment), under the
# automatic clock and each CPU-time clock by name.
# Mutations caught: the overlap rule reversed (regions sorted by pr_off
# upward: the region below spin_a takes its samples, and the wide one gets
# none, so the spin times out); PROF_UINT ignored (16-bit counters: the
# 4-byte alignment check and the 32-bit counter check fail); the overflow
# bin not charged (spin_d's samples go nowhere: its spin times out); a
# second call not turning profiling off (the stats still show a clock).
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 1
build_prog sprofil sprofil_regions.c || { not_ok sprofil_build; exit 1; }
try sprofil_auto ./sprofil
try sprofil_thread env MONPROF_CLOCK=thread ./sprofil
try sprofil_itimer env MONPROF_CLOCK=itimer ./sprofil
try sprofil_rate env MONPROF_CLOCK=itimer MONPROF_RATE=250 ./sprofil
# Both headers, both languages: <mon.h> uses glibc's struct prof.
printf '#include <sys/profil.h>\n#include "mon.h"\nint main(void) { return sprofil(0, 0, 0, PROF_UINT); }\n' >both.c
check sprofil_headers_c $CC -Wall -Wextra -Werror -std=c11 -I"$ROOT/include" -c both.c -o both.o
if command -v c++ >/dev/null 2>&1; then
	cp both.c both.cc
	check sprofil_headers_cxx c++ -Wall -Werror -I"$ROOT/include" -c both.cc -o both2.o
fi
