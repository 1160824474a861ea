#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/unwind_cost.sh — the stack walk's cost, libmon's unwinder against
# libunwind's, in one run (bench/unwind_cost.c; docs/architecture.md quotes
# it).  Installs libunwind-dev when missing (skips libunwind if it cannot).
#   sh bench/unwind_cost.sh [BUILD_DIR] [WALKS]
. "$(dirname "$0")/lib.sh" "${1:-build}"
[ -f "$B/lib/libmon.a" ] || die "build libmon first (make)"
LU=
dpkg -s libunwind-dev >/dev/null 2>&1 || need_tools libunwind-dev || true
pkg-config --exists libunwind 2>/dev/null && LU="-DHAVE_LIBUNWIND $(pkg-config --cflags --libs libunwind)"
# shellcheck disable=SC2086
$CC -O2 -g -fomit-frame-pointer -I"$ROOT/lib" -I"$ROOT/include" -o "$W/unwind_cost" \
	"$BENCH/unwind_cost.c" "$B/lib/libmon.a" $LU -ldl -lpthread -lrt || die "cannot build unwind_cost.c"
echo "unwind_cost: $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$W/unwind_cost" "${2:-20000}"
