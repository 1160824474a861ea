#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/perf_agreement.sh — issue 5: does monprof see what perf sees?
# One execution of the SQLite driver is sampled by both at once:
#   perf record -F 4000 -e cpu-clock -o P -- monrun -r 4000 -o M ./sqlite_driver ROWS
# (~7 CPU-seconds, ~28 000 samples each).  perf's top 15 user-space functions
# form the set; each side is renormalised to 100 % within it, and the total
# variation distance (TVD) between them is printed in percentage points
# (goal < 2 pp), beside the TVD that sampling noise alone would give.
# Functions are matched by object and symbol address, so perf's versioned
# names and its choice among aliases do not count as disagreement.
# Also prints where perf saw monprof itself: libmon's signal handler and the
# kernel's signal delivery.
#   sh bench/perf_agreement.sh [BUILD_DIR] [ROWS] [TOP]
set -u
. "$(dirname "$0")/lib.sh"
ROWS=${2:-300000}
TOP=${3:-15}
need_tools linux-perf
build_sqlite "$W"
cd "$W" || exit 1
perf record -q -F 4000 -e cpu-clock -o P -- "$MONRUN" -r 4000 -o M ./sqlite_driver "$ROWS" \
	>/dev/null 2>perf.err || { cat perf.err >&2; die "perf record failed"; }
echo "== perf vs monprof, one run of sqlite_driver $ROWS, both at 4000 Hz cpu-clock"
python3 "$BENCH/compare.py" perf-vs-prof P M ./sqlite_driver "$TOP" | tee agree.txt
"$PROF" -s -m M ./sqlite_driver 2>&1 >/dev/null | grep -E '^(clock|samples|run)' | sed 's/^/monprof: /'
perf report -i P --stdio --sort comm,dso 2>/dev/null |
	awk '/^ *[0-9.]+%/ && $2 == "sqlite_driver" { n++; v[n] = $1 + 0; d[n] = $3; s += $1 }
		END { for (i = 1; i <= n; i++) printf "perf: %.2f%% of the samples in %s\n", 100 * v[i] / s, d[i] }'
perf report -i P --stdio --comm sqlite_driver --sort sym 2>/dev/null |
	awk '/\[k\] (irqentry_exit_to_user_mode|exit_to_user_mode|__fpu_restore_sig|copy_fpstate_to_sigframe|x64_setup_rt_frame|restore_sigcontext|__x64_sys_rt_sigreturn)$/ {
		s += $1 } END { printf "perf: %.2f%% in the kernel'\''s signal delivery and return\n", s }'
tvd=$(awk '/^TVD/ { print $2 }' agree.txt)
awk -v t="$tvd" 'BEGIN { printf "perf agreement: TVD %.2f pp over the top functions (goal < 2): %s\n", t, t < 2 ? "met" : "NOT met" }'
