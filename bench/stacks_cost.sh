#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/stacks_cost.sh — what call stacks cost (issue 14), on
# tests/progs/stacks_paths.c built -O2 -fomit-frame-pointer doing a fixed
# amount of work (a 40-deep recursion, qsort with a comparator, easy/hard
# calling work).  Counted: the CPU seconds of every process of a run
# (wait4's resource usage of the whole tree: monrun's command, or perf and
# the command it runs), for
#   plain      no profiler
#   flat       monrun -d 0 (the flat profile alone)
#   stacks     monrun (stacks of up to 64 PCs)
#   perf       perf record -e cpu-clock --call-graph dwarf (8 KiB of user
#              stack copied per sample; the unwinding is left to perf
#              report, whose CPU is shown on its own line)
# at each RATE.  The configurations take turns, round after round (RUNS
# rounds), so that a change of the machine's load falls on all of them; the
# least CPU of each is kept (the run least disturbed by other processes).
# Per sample: (CPU - plain's) / samples ("us/sample", fixed costs included:
# monrun, loading, compiling unwind tables, writing the profile), and the
# stacks' own: (stacks - flat) / samples at the same rate.  The achieved
# rate of monrun's runs: samples / the CPU-seconds of the program's phases
# (their thread CPU as it printed it: the time the clock ran) / the asked
# rate, with the rate the runtime set (it lowers above 1000 Hz a rate whose
# measured tick cost would take more than a quarter of the CPU).  Not part
# of make check.  Last, bench/stacks_walk.c: the walk and the table's add
# alone, in the thread's own CPU time, at 10 and 40 frames under main.
#   sh bench/stacks_cost.sh [BUILD_DIR] [ROUNDS] [RUNS] [RATES]
set -u
. "$(dirname "$0")/lib.sh"
ROUNDS=${2:-200}
RUNS=${3:-5}
RATES=${4:-"100 1000 4000"}
need_tools linux-perf
$CC -O2 -fomit-frame-pointer -o "$W/paths" "$ROOT/tests/progs/stacks_paths.c" || die "build paths"
$CC -O2 -o "$W/rusage" "$BENCH/rusage.c" || die "build rusage"
$CC -O2 -fomit-frame-pointer -I"$ROOT/include" -I"$ROOT/lib" -I"$ROOT/format" -o "$W/stacks_walk" \
	"$BENCH/stacks_walk.c" "$B/lib/libmon.a" -ldl -lpthread -lrt || die "build stacks_walk"
$CC -O1 -I"$ROOT/format" -o "$W/mon_dump" "$ROOT/tests/progs/mon_dump.c" "$ROOT"/format/*.c ||
	die "build mon_dump"
cd "$W" || exit 1

# run TAG CMD...: the CPU of CMD and all it waited for, appended to TAG's list.
run() {
	tag=$1; shift
	"$W/rusage" "$@" >"$W/out" 2>"$W/ru" || { cat "$W/ru" >&2; exit 1; }
	tail -n 1 "$W/ru" | awk '{ printf "%.4f\n", $1 + $2 }' >>"$W/$tag.cpu"
}
info() { "$W/mon_dump" "$1" info | awk -v k="$2" '$1 == k { print $2; exit }'; }
least() { sort -n "$1" | head -n 1; }
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "== call stacks' cost: stacks_paths rounds $ROUNDS, least CPU of $RUNS interleaved runs, every process"
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
for i in $(seq "$RUNS"); do
	run plain "$W/paths" rounds "$ROUNDS"
	for rate in $RATES; do
		for d in 0 64; do
			tag=flat.$rate; [ $d = 64 ] && tag=stacks.$rate
			run "$tag" "$MONRUN" -r "$rate" -d $d -o "$W/m.out" "$W/paths" rounds "$ROUNDS"
			n=$(info "$W/m.out" samples)
			echo "$n" >>"$W/$tag.n"
			info "$W/m.out" rate_set >>"$W/$tag.set"
			awk -v n="$n" -v r="$rate" '$1 == "deep" || $1 == "sort" || $1 == "easy_hard" {
				t += $2 } END { printf "%.4f\n", n / t / r }' "$W/out" >>"$W/$tag.ach"
		done
		run "perf.$rate" perf record -q -F "$rate" -e cpu-clock --call-graph dwarf \
		    -o "$W/p.data" -- "$W/paths" rounds "$ROUNDS"
		perf report --stats -i "$W/p.data" 2>/dev/null |
		    awk '/SAMPLE events:/ { print $3; exit }' >>"$W/perf.$rate.n"
		run "report.$rate" perf report -i "$W/p.data" --stdio --no-children
	done
done
plain=$(least "$W/plain.cpu")
printf "plain: %.3f CPU-s (least of %s)\n" "$plain" "$RUNS"
printf "%6s %-7s %9s %8s %10s %12s %9s  %s\n" rate config CPU-s samples "us/sample" \
	"stacks' own" achieved "rate set"
for rate in $RATES; do
	fl=$(least "$W/flat.$rate.cpu")
	for cfg in flat stacks perf; do
		c=$(least "$W/$cfg.$rate.cpu") n=$(median "$W/$cfg.$rate.n")
		a=- set=- own=-
		if [ "$cfg" != perf ]; then
			a=$(median "$W/$cfg.$rate.ach")
			set=$(sort -n "$W/$cfg.$rate.set" | uniq -c | awk '{ printf "%s%sx%s", (NR > 1 ? "," : ""), $1, $2 }')
		fi
		[ "$cfg" = stacks ] && own=$(awk -v c="$c" -v f="$fl" -v n="$n" 'BEGIN { printf "%.2f", (c - f) / n * 1e6 }')
		awk -v r="$rate" -v cfg="$cfg" -v c="$c" -v n="$n" -v p="$plain" -v a="$a" -v own="$own" \
		    -v set="$set" 'BEGIN {
			printf "%6d %-7s %9.3f %8d %10.2f %12s %9s  %s\n", r, cfg, c, n, (c - p) / n * 1e6,
			    own, a, set }'
	done
	printf "%6s %-7s %9.3f   (perf report: the unwinding perf record left to do)\n" "" "+report" \
	    "$(least "$W/report.$rate.cpu")"
done
echo "the stack sink's own work (bench/stacks_walk.c, thread CPU time, 200000 times each):"
"$W/stacks_walk" 10 | sed 's/^/  depth 10: /'
"$W/stacks_walk" 40 | sed 's/^/  depth 40: /'
