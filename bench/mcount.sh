#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/mcount.sh — cost of call counting (issue 3, goal 4e): naive recursive
# fib built with cc -pg, run with the C library's profiler and with libmon,
# side by side; prints the median CPU seconds of each and the ratio
# libmon / glibc (goal: at most 0.85).  Not part of make check.
#   sh bench/mcount.sh [BUILD_DIR] [N] [RUNS]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "${1:-$ROOT/build}" && pwd)
N=${2:-38}
RUNS=${3:-5}
CC=${CC:-cc}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
$CC -O2 -pg -o "$T/fib-glibc" "$ROOT/bench/fib.c"
$CC -O2 -pg -o "$T/fib-libmon" "$ROOT/bench/fib.c" -L"$B/lib" -Wl,-rpath,"$B/lib" -lmon
$CC -O2 -o "$T/fib-none" "$ROOT/bench/fib.c"
cpu() {	# median user+system seconds of RUNS runs of $1
	for i in $(seq "$RUNS"); do
		( cd "$T" && /usr/bin/time -f '%U %S' "$1" "$N" 2>&1 >/dev/null | tail -n 1 )
	done | awk '{ print $1 + $2 }' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
none=$(cpu "$T/fib-none")
glibc=$(cpu "$T/fib-glibc")
mon=$(cpu "$T/fib-libmon")
printf 'fib(%s), median of %s runs, CPU seconds\n' "$N" "$RUNS"
printf '  no profiling   %6.2f\n  glibc -pg      %6.2f\n  libmon -pg     %6.2f\n' "$none" "$glibc" "$mon"
awk -v a="$mon" -v b="$glibc" 'BEGIN { printf "  ratio libmon/glibc %.2f (goal <= 0.85)\n", a / b }'
{ echo "calls $N $none $glibc $mon" >&3; } 2>/dev/null || true
