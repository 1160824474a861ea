#!/bin/sh
# bench/growth.sh — issue 6 item 4: how monprof's overhead grows with the
# sampling rate and with the number of threads (prof's report time against
# text size and symbols is bench/prof_speed.sh).  Each figure is
# bench/overhead.sh's median ratio over alternating rounds, on the truth
# workloads at TRUTH_SECS CPU-seconds (default 2).
#   sh bench/growth.sh [BUILD_DIR] [RUNS]
# Lines "overhead ..." (see overhead.sh) go to fd 3 when it is open.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-build}
RUNS=${2:-5}
export TRUTH_SECS=${TRUTH_SECS:-2}
echo "== growth with the rate: truth1 (one thread), monprof; ratios CPU, wall"
for rate in 1000 4000 10000; do
	sh "$ROOT/bench/overhead.sh" "$B" truth1 "$rate" "$RUNS" monprof | sed -n 3p | sed "s/^monprof   /$rate Hz/"
done
echo "== growth with threads (2 cores), monprof at 1000 Hz; ratios CPU, wall"
for n in 1 2 4 8; do
	wl=threads$n
	[ "$n" = 1 ] && wl=truth1
	sh "$ROOT/bench/overhead.sh" "$B" "$wl" 1000 "$RUNS" monprof | sed -n 3p | sed "s/^monprof /$n threads/"
done
