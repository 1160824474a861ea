#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/growth.sh — issue 6 item 4: how monprof's overhead grows with the
# sampling rate and with the number of threads (text size: textsize.sh;
# prof's report time against symbols: prof_speed.sh, against the rate:
# report_rate.sh).  Each figure is bench/overhead.sh's median ratio over
# alternating rounds, on the truth workloads at TRUTH_SECS CPU-seconds
# (default 2).
#   sh bench/growth.sh [BUILD_DIR] [RUNS]
# Lines "growth rate|threads VALUE CPU_RATIO WALL_RATIO" go to fd 3 when it
# is open (overhead.sh's own lines do not, so that run.sh's summary keeps
# the four-tool overhead runs).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-build}
RUNS=${2:-5}
export TRUTH_SECS=${TRUTH_SECS:-2}
out() {	# out KIND VALUE LABEL: print overhead.sh's monprof line, relabelled
	line=$(sed -n 3p)
	echo "$line" | sed "s/^monprof *//" | awk -v l="$3" '{ printf "%-10s %9s %9s\n", l, $1, $2 }'
	{ echo "$line" | awk -v k="$1" -v v="$2" '{ print "growth", k, v, $2, $3 }' >&3; } 2>/dev/null || true
}
echo "== growth with the rate: truth1 (one thread), monprof; ratios"
printf '%-10s %9s %9s\n' rate CPU wall
for rate in 1000 4000 10000; do
	sh "$ROOT/bench/overhead.sh" "$B" truth1 "$rate" "$RUNS" monprof 3>/dev/null | out rate "$rate" "$rate Hz"
done
echo "== growth with threads (2 cores), monprof at 1000 Hz; ratios"
printf '%-10s %9s %9s\n' threads CPU wall
for n in 1 2 4 8; do
	wl=threads$n
	[ "$n" = 1 ] && wl=truth1
	sh "$ROOT/bench/overhead.sh" "$B" "$wl" 1000 "$RUNS" monprof 3>/dev/null | out threads "$n" "$n"
done
