#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/accuracy.sh — issue 6 items 2 and 3: error against the truth and the
# achieved sampling rate, for every tool, on the truth workloads (bench/truth.c
# measures its own functions with the thread CPU clock).
# For each workload, tool and asked rate: the total variation distance (pp)
# between the tool's shares of the measured functions and the program's own
# measurement, the samples taken, and samples per CPU-second of the process
# (achieved rate) against the asked rate.  gprof (the C library's -pg) cannot
# be asked for a rate: it samples at the kernel's USER_HZ (100 Hz) and is run
# once per workload.
#   sh bench/accuracy.sh [BUILD_DIR] [WORKLOADS] [RATES] [TOOLS]
# Defaults: "truth1 truth4", "1000 4000 10000", "monprof perf gperftools gprof".
# Output lines (also to fd 3 when it is open):
#   accuracy WORKLOAD TOOL ASKED SAMPLES ACHIEVED TVD_PP
set -u
. "$(dirname "$0")/lib.sh"
WLS=${2:-truth1 truth4}
RATES=${3:-1000 4000 10000}
TOOLS=${4:-monprof perf gperftools gprof}
need_tools linux-perf google-perftools libgoogle-perftools4
cd "$W" || exit 1
printf '%-8s %-11s %6s %8s %9s %7s %8s\n' workload tool asked samples achieved ratio "TVD pp"
for wl in $WLS; do
	workload "$wl"
	for t in $TOOLS; do
		for rate in $RATES; do
			[ "$t" = gprof ] && [ "$rate" != "$(echo "$RATES" | awk '{ print $1 }')" ] && continue
			rm -f "$W/p.out"
			# shellcheck disable=SC2086
			under "$t" "$rate" "$W/p.out" "$PROG" $ARGS || die "$wl failed under $t"
			p=$PROG
			[ "$t" = gprof ] && p=$PROG-pg && rate=100
			python3 "$BENCH/compare.py" truth "$TRUTH" "$t" "$W/p.out" "$p" >cmp.txt ||
				die "cannot read the $t profile of $wl"
			set -- $(awk '/^samples/ { s = $2 } /^rate/ { r = $2 } /^TVD/ { d = $2 } END { print s, r, d }' cmp.txt)
			printf '%-8s %-11s %6s %8s %9.0f %7.3f %8.2f\n' "$wl" "$t" "$rate" "$1" "$2" \
				"$(ratio "$2" "$rate")" "$3"
			echo "accuracy $wl $t $rate $1 $2 $3" >>"$W/result"
		done
	done
done
{ cat "$W/result" >&3; } 2>/dev/null || true
