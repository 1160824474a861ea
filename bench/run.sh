#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/run.sh — `make bench`: monprof side by side with perf, the C
# library's -pg + gprof and gperftools (issues 5 and 6), in one run.
#   sh bench/run.sh [BUILD_DIR]
# Runs, in order of importance:
#   perf_agreement.sh  one SQLite run sampled by perf and monprof at 4 kHz
#   accuracy.sh        error against the truth workloads; achieved rate, 1/4/10 kHz
#   overhead.sh        profiled / unprofiled, every tool, at 1 kHz, 5 rounds
#   cost.sh            monprof's cost at 1 kHz as perf sees it (steady when loaded)
#   mcount.sh          call counting against the C library's -pg (fib)
#   prof_speed.sh      prof's report time against gprof's, by number of symbols
#   growth.sh          monprof's overhead by rate and by threads
#   textsize.sh        monprof's cost, mon.out and prof's time by text size
#   report_rate.sh     prof's report time by sampling rate
# then prints the summary table (docs/performance.md explains it).  About
# 12-15 minutes on 2 cores.  May install linux-perf and google-perftools.
# BENCH_QUICK=1 runs fewer rounds (3) for a first look.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-build}
S=$ROOT/bench
RUNS=5
[ "${BENCH_QUICK:-0}" = 1 ] && RUNS=3
R=$(mktemp "${TMPDIR:-/tmp}/monbench-results.XXXXXX") || exit 1
trap 'rm -f "$R"' EXIT
start=$(date +%s)
echo "monprof bench: $(uname -r), $(nproc) CPUs, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)," \
	"load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
sh "$S/perf_agreement.sh" "$B" 3>>"$R" || echo "perf_agreement.sh FAILED"
echo
sh "$S/accuracy.sh" "$B" 3>>"$R" || echo "accuracy.sh FAILED"
echo
for wl in truth1 truth4 sqlite; do
	TRUTH_SECS=2 sh "$S/overhead.sh" "$B" "$wl" 1000 "$RUNS" "monprof gprof gperftools perf" 3>>"$R" ||
		echo "overhead.sh $wl FAILED"
	echo
done
sh "$S/cost.sh" "$B" 1000 3>>"$R" || echo "cost.sh FAILED"
echo
echo "== call counting: fib built -pg"
sh "$S/mcount.sh" "$B" 38 "$RUNS" 3>>"$R" || echo "mcount.sh FAILED"
echo
echo "== report time: prof against gprof -p on the same gmon.out"
sh "$S/prof_speed.sh" "$B" "2000 20000" 3>>"$R" || echo "prof_speed.sh FAILED"
echo
sh "$S/growth.sh" "$B" "$RUNS" 3>>"$R" || echo "growth.sh FAILED"
echo
sh "$S/textsize.sh" "$B" 3 3>>"$R" || echo "textsize.sh FAILED"
echo
sh "$S/report_rate.sh" "$B" 3>>"$R" || echo "report_rate.sh FAILED"
echo
echo "== summary (asked rate 1000 Hz unless said; gprof samples at 100 Hz whatever is asked)"
awk '
$1 == "accuracy" { k = $2 " " $3; seen[k] = 1; order[++n] = k
	if ($4 == 1000 || $3 == "gprof") tvd[k] = $7
	ach[k, $4] = $6 / $4 }
$1 == "overhead" && $4 == 1000 { ovw[$2 " " $3] = $6; ovc[$2 " " $3] = $5 }
END {
	printf "%-8s %-11s %8s %8s %8s %8s %9s %9s\n", "workload", "tool", "TVD pp", "ach/1k", "ach/4k", "ach/10k", "over.wall", "over.CPU"
	for (i = 1; i <= n; i++) {
		k = order[i]; if (done[k]++) continue
		split(k, a, " ")
		if (a[2] == "gprof")
			printf "%-8s %-11s %8.2f %8s %8s %8s %9.3f %9.3f\n", a[1], a[2], tvd[k], "100Hz", "-", "-", ovw[k], ovc[k]
		else
			printf "%-8s %-11s %8.2f %8.3f %8.3f %8.3f %9.3f %9.3f\n", a[1], a[2], tvd[k], ach[k, 1000], ach[k, 4000], ach[k, 10000], ovw[k], ovc[k]
	}
	for (k in ovw) if (k ~ /^sqlite /) printf "%-8s %-11s %8s %8s %8s %8s %9.3f %9.3f\n", "sqlite", substr(k, 8), "-", "-", "-", "-", ovw[k], ovc[k]
}' "$R"
awk '$1 == "calls" { printf "call counting, fib(%s): libmon -pg / glibc -pg = %.2f (goal <= 0.85); glibc -pg / none = %.2f\n", $2, $5 / $4, $4 / $3 }
$1 == "overhead-by-perf" { printf "monprof cost seen by perf at %s Hz: %.2f %% of the CPU time\n", $3, $4 }
$1 == "report" { printf "report time, %s symbols: prof / gprof = %.2f\n", $3, $4 / $5 }
$1 == "textsize" { printf "text %.1f MB: mon.out %.1f MB written in %.3f s CPU at exit, monprof cost seen by perf %.2f %%, prof %.3f s\n", $2 / 1e6, $3 / 1e6, $5, $7, $8 }
$1 == "growth" { printf "monprof overhead, %s %s: CPU %.3f, wall %.3f\n", $2, $3, $4, $5 }
$1 == "reportrate" { printf "report time at %s Hz (%s samples): prof %.3f s\n", $2, $3, $5 }' "$R"
echo "bench took $(( $(date +%s) - start )) s"
