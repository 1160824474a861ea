#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/process_cost.sh — what profiling adds to each short process
# (issue 25; the per-process start and end): a shell loop runs a short
# command N times, unprofiled, under `monrun`, under `monrun -d 0` (flat
# profile only: no unwind tables) and, with BASE_BUILD, under that build's
# monrun, in turns, ROUNDS rounds.  CPU is the kernel's accounting of the
# loop's whole process tree (bench/treecpu.c: the shell, each command,
# monrun's own exec and the runtime's watcher process), page faults the
# kernel's count for the tree (perf stat -e page-faults, one more run).
# Printed per process: the median over the rounds of CPU/N, and what each
# profiled way adds to the unprofiled one.
#   sh bench/process_cost.sh [BUILD_DIR] [ROUNDS] [N] [BASE_BUILD]
set -u
. "$(dirname "$0")/lib.sh"
ROUNDS=${2:-5}
N=${3:-40}
BASE=${4:-}
if [ -n "$BASE" ]; then
	case $BASE in /*) ;; *) BASE=$ROOT/$BASE ;; esac
	[ -x "$BASE/bin/monrun" ] || die "no monrun in $BASE/bin"
fi
$CC -O2 -o "$W/treecpu" "$BENCH/treecpu.c" || die "cannot build treecpu"
cd "$W" || exit 1
seq 1 2000 >small.txt
mkdir -p out

# The commands: the smallest program, a coreutils one with three shared
# libraries, a filter over a small file, and an interpreter's start.
set -- "true" "/bin/true" \
	"mkdir" "mkdir -p d/e" \
	"gzip" "gzip -c small.txt" \
	"python3" "/usr/bin/python3 -c pass"
have_perf=0
command -v perf >/dev/null 2>&1 && perf stat -e page-faults -x, -o F -- true >/dev/null 2>&1 &&
	have_perf=1

# way NAME: the prefix that runs a command that way.
way() {
	case $1 in
	plain) echo "" ;;
	monrun) echo "$MONRUN -o $W/out/m" ;;
	flat) echo "$MONRUN -d 0 -o $W/out/f" ;;
	base) echo "$BASE/bin/monrun -o $W/out/b" ;;
	esac
}
ways="plain monrun flat"
[ -n "$BASE" ] && ways="$ways base"

printf '== per process: CPU (ms, median of %s rounds of %s runs) and page faults\n' "$ROUNDS" "$N"
printf '%-8s %-7s %9s %9s %9s %9s\n' command way cpu_ms added faults added
while [ $# -ge 2 ]; do
	name=$1 cmd=$2
	shift 2
	prog=${cmd%% *}
	command -v "$prog" >/dev/null 2>&1 || { echo "$name: no $prog, skipped"; continue; }
	r=1
	while [ "$r" -le "$ROUNDS" ]; do
		for w in $ways; do
			# shellcheck disable=SC2016
			./treecpu "T.$name.$w.$r" sh -c 'i=0; while [ $i -lt '"$N"' ]; do '"$(way "$w") $cmd"' >/dev/null; rmdir d/e d 2>/dev/null; i=$((i + 1)); done' ||
				die "$name $w failed"
		done
		r=$((r + 1))
	done
	for w in $ways; do
		ms=$(for f in T."$name"."$w".*; do awk -v n="$N" '{ printf "%.3f\n", ($1 + $2) * 1000 / n }' "$f"; done |
			sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
		pf=-
		if [ "$have_perf" = 1 ]; then
			perf stat -e page-faults -x, -o F -- sh -c 'i=0; while [ $i -lt '"$N"' ]; do '"$(way "$w") $cmd"' >/dev/null; rmdir d/e d 2>/dev/null; i=$((i + 1)); done' >/dev/null 2>&1
			pf=$(awk -F, -v n="$N" '/page-faults/ { printf "%.0f", $1 / n }' F)
		fi
		[ "$w" = plain ] && { base_ms=$ms; base_pf=$pf; }
		awk -v c="$name" -v w="$w" -v m="$ms" -v b="$base_ms" -v p="$pf" -v q="$base_pf" 'BEGIN {
			a = (w == "plain") ? "" : sprintf("%+.2f", m - b)
			f = (p == "-" || w == "plain") ? "" : sprintf("%+d", p - q)
			printf "%-8s %-7s %9.2f %9s %9s %9s\n", c, w, m, a, p, f }'
	done
done
echo "(plain: unprofiled; monrun: $MONRUN; flat: monrun -d 0${BASE:+; base: $BASE/bin/monrun})"
