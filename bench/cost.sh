#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/cost.sh — monprof's overhead seen from outside, by perf, rather than
# as a difference of two noisy run times.  perf samples the SQLite driver at
# 10 kHz twice: unprofiled, and under monrun -r RATE.  monprof's cost is the
# share of perf's samples that land in libmon (the tick handler, and writing
# the profile at exit: a fixed cost per run) plus the rise
# of the kernel's share (the signal delivery and return of every tick, the
# per-thread timers).  Robust on a loaded machine: it counts where the CPU
# time went, not how long the run took.
#   sh bench/cost.sh [BUILD_DIR] [RATE] [ROWS]
set -u
. "$(dirname "$0")/lib.sh"
RATE=${2:-1000}
ROWS=${3:-150000}
need_tools linux-perf
build_sqlite "$W"
cd "$W" || exit 1
share() {	# share() FILE: "kernel% libmon%" of the sqlite_driver samples
	# (--sort comm,dso: with --comm, perf report drops the kernel row)
	perf report -i "$1" --stdio --sort comm,dso 2>/dev/null |
		awk '/^ *[0-9.]+%/ && $2 == "sqlite_driver" { v = $1 + 0; s += v
			if ($3 ~ /^libmon/) m += v; if ($3 ~ /kernel/) k += v }
			END { printf "%.3f %.3f\n", 100 * k / s, 100 * m / s }'
}
perf record -q -F 10000 -e cpu-clock -o P0 -- ./sqlite_driver "$ROWS" >/dev/null 2>&1 || die "perf record failed"
perf record -q -F 10000 -e cpu-clock -o P1 -- "$MONRUN" -r "$RATE" -o M ./sqlite_driver "$ROWS" \
	>/dev/null 2>&1 || die "perf record of monrun failed"
set -- $(share P0) $(share P1)
echo "== monprof's cost at $RATE Hz seen by perf at 10 kHz (sqlite_driver $ROWS)"
echo "kernel share unprofiled $1 %, under monprof $3 %; in libmon $4 %"
awk -v k0="$1" -v k1="$3" -v m="$4" -v r="$RATE" 'BEGIN {
	c = (k1 - k0) + m
	printf "monprof cost: %.2f %% of the CPU time (ticks, handler and writing the profile)\n", c
	printf "cost %d %.3f\n", r, c > "/dev/stderr" }' 2>"$W/result"
{ sed 's/^/overhead-by-perf /' "$W/result" >&3; } 2>/dev/null || true
