#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/overhead.sh — what profiling costs (issue 5, issue 6 item 3).
# Runs the workload unprofiled and under each tool in alternation (none, tool1,
# tool2, ..., none, tool1, ...) RUNS times, so slow drifts of this shared
# machine hit every column alike, and prints for each tool the median over the
# rounds of (profiled / unprofiled of the same round), for CPU time (user +
# system of every process involved, the profiler's own included) and for wall
# time.  CPU time is the steadier figure on a loaded machine; wall time is what
# issue 6 asks for; both are printed.
#   sh bench/overhead.sh [BUILD_DIR] [WORKLOAD] [RATE] [RUNS] [TOOLS]
# WORKLOAD: sqlite (default), truth1, truth4, threadsN (see lib.sh);
# RATE: samples per CPU-second asked of every tool (default 1000, monprof's
# default); RUNS: rounds (default 7); TOOLS: default "monprof".
# Output: a heading, then one line per tool:
#   overhead WORKLOAD TOOL RATE cpu_ratio wall_ratio none_cpu none_wall
set -u
. "$(dirname "$0")/lib.sh"
WL=${2:-sqlite}
RATE=${3:-1000}
RUNS=${4:-7}
TOOLS=${5:-monprof}
for t in $TOOLS; do
	case $t in
	perf) need_tools linux-perf ;;
	gperftools) need_tools libgoogle-perftools4 ;;
	gprof) command -v gprof >/dev/null || need_tools binutils ;;
	esac
done
workload "$WL"
cd "$W" || exit 1
# shellcheck disable=SC2086
under none "$RATE" /dev/null "$PROG" $ARGS || die "$WL fails unprofiled"	# warm the caches
r=1
while [ "$r" -le "$RUNS" ]; do
	# shellcheck disable=SC2086
	timed none "$RATE" /dev/null "$PROG" $ARGS >>"none.t" || die "$WL failed"
	for t in $TOOLS; do
		rm -f "$W/prof.$t"
		# shellcheck disable=SC2086
		timed "$t" "$RATE" "$W/prof.$t" "$PROG" $ARGS >>"$t.t" || die "$WL failed under $t"
	done
	r=$((r + 1))
done
echo "== overhead: $WL at $RATE Hz, median of $RUNS alternating rounds (profiled / unprofiled)"
printf '%-11s %9s %9s\n' tool "CPU" "wall"
nc=$(awk '{ print $1 }' none.t | median) nw=$(awk '{ print $2 }' none.t | median)
for t in $TOOLS; do
	c=$(paste none.t "$t.t" | awk '{ print $3 / $1 }' | median)
	w=$(paste none.t "$t.t" | awk '{ print $4 / $2 }' | median)
	printf '%-11s %9.3f %9.3f\n' "$t" "$c" "$w"
	echo "overhead $WL $t $RATE $c $w $nc $nw" >>"$W/result"
done
printf '%-11s %8.2fs %8.2fs  (median of the unprofiled runs)\n' none "$nc" "$nw"
{ cat "$W/result" >&3; } 2>/dev/null || true
