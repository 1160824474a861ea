#!/bin/sh
# bench/stacks_cost.sh — what call stacks cost (issue 14), on
# tests/progs/stacks_paths.c built -O2 -fomit-frame-pointer doing a fixed
# amount of work (a 40-deep recursion, qsort with a comparator, easy/hard
# calling work): CPU seconds of every process of each run (wait4's
# resource usage of the whole tree: monrun's command, or perf and the
# command it runs), median of RUNS runs, for
#   plain      no profiler
#   flat       monrun -d 0 (today's flat profile)
#   stacks     monrun (stacks of up to 64 PCs)
#   perf       perf record -e cpu-clock --call-graph dwarf (8 KiB of stack
#              copied per sample; the unwinding is left to perf report,
#              whose CPU is shown on its own)
# at each RATE: the CPU above plain's, and what it is per sample ("us/sample
# all": fixed costs included — loading, compiling unwind tables, writing
# the profile); then the marginal cost of a sample, the slope between the
# first two rates (100 and 1000 Hz by default: at most 1000 Hz, where the
# runtime never lowers the rate, so both runs take the samples asked):
# (CPU(b) - CPU(a)) / (samples(b) - samples(a)), which fixed costs do not
# enter.  Above 1000 Hz the rate the runtime set is shown (it lowers a rate
# whose measured tick cost would exceed a quarter of the CPU).  Also the achieved rate of monrun's runs:
# samples / the CPU-seconds the program's phases used (their thread CPU as
# the program printed it: the time the clock ran) / the asked rate.  Not
# part of make check.
#   sh bench/stacks_cost.sh [BUILD_DIR] [ROUNDS] [RUNS] [RATES]
set -u
. "$(dirname "$0")/lib.sh"
ROUNDS=${2:-200}
RUNS=${3:-3}
RATES=${4:-"100 1000 2000 4000"}
need_tools linux-perf
$CC -O2 -fomit-frame-pointer -o "$W/paths" "$ROOT/tests/progs/stacks_paths.c" || die "build paths"
$CC -O2 -o "$W/rusage" "$BENCH/rusage.c" || die "build rusage"
$CC -O1 -I"$ROOT/format" -o "$W/mon_dump" "$ROOT/tests/progs/mon_dump.c" "$ROOT"/format/*.c ||
	die "build mon_dump"
cd "$W" || exit 1

# cpu CMD...: user+sys CPU seconds of CMD and everything it waited for.
cpu() {
	"$W/rusage" "$@" >/dev/null 2>"$W/ru" || { cat "$W/ru" >&2; return 1; }
	tail -n 1 "$W/ru" | awk '{ printf "%.4f\n", $1 + $2 }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
info() { "$W/mon_dump" "$1" info | awk -v k="$2" '$1 == k { print $2; exit }'; }

echo "== call stacks' cost: stacks_paths rounds $ROUNDS, median of $RUNS runs, CPU of every process"
for i in $(seq "$RUNS"); do cpu "$W/paths" rounds "$ROUNDS"; done | median >"$W/plain"
plain=$(cat "$W/plain")
printf "plain: %.3f CPU-s\n" "$plain"
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
printf "%6s %-7s %9s %8s %14s %9s  %s\n" rate config CPU-s samples "us/sample all" achieved \
	"rate set (each run)"
for rate in $RATES; do
	for cfg in flat stacks perf; do
		: >"$W/c" && : >"$W/n" && : >"$W/a" && : >"$W/rep" && : >"$W/set"
		for i in $(seq "$RUNS"); do
			case $cfg in
			flat | stacks)
				d=64; [ $cfg = flat ] && d=0
				"$W/rusage" "$MONRUN" -r "$rate" -d $d -o "$W/m.out" "$W/paths" rounds \
				    "$ROUNDS" >"$W/out" 2>"$W/ru" || { cat "$W/ru" >&2; exit 1; }
				c=$(tail -n 1 "$W/ru" | awk '{ printf "%.4f\n", $1 + $2 }')
				n=$(info "$W/m.out" samples)
				info "$W/m.out" rate_set >>"$W/set"
				awk -v n="$n" -v r="$rate" '$1 == "deep" || $1 == "sort" || $1 == "easy_hard" {
					t += $2 } END { printf "%.4f\n", n / t / r }' "$W/out" >>"$W/a"
				;;
			perf)
				c=$(cpu perf record -q -F "$rate" -e cpu-clock --call-graph dwarf \
				    -o "$W/p.data" -- "$W/paths" rounds "$ROUNDS")
				n=$(perf report --stats -i "$W/p.data" 2>/dev/null |
				    awk '/SAMPLE events:/ { print $3; exit }')
				cpu perf report -i "$W/p.data" --stdio --no-children >/dev/null >>"$W/rep"
				;;
			esac
			echo "$c" >>"$W/c"
			echo "$n" >>"$W/n"
		done
		c=$(median <"$W/c") n=$(median <"$W/n")
		a=$( [ -s "$W/a" ] && median <"$W/a" || echo -)
		set=$( [ -s "$W/set" ] && sort -n "$W/set" | tr '\n' '/' | sed 's|/$||' || echo -)
		awk -v r="$rate" -v cfg="$cfg" -v c="$c" -v n="$n" -v p="$plain" -v a="$a" -v set="$set" 'BEGIN {
			printf "%6d %-7s %9.3f %8d %14.2f %9s  %s\n", r, cfg, c, n, (c - p) / n * 1e6, a, set }'
		echo "$cfg $c $n" >>"$W/points"
		if [ -s "$W/rep" ]; then
			printf "%6s %-7s %9.3f   (perf report: the unwinding perf record left to do)\n" "" \
			    "+report" "$(median <"$W/rep")"
		fi
	done
done
echo "marginal CPU per sample, between the first two rates:"
for cfg in flat stacks perf; do
	awk -v cfg="$cfg" '$1 == cfg { n++; if (n == 1) { c0 = $2; n0 = $3 } if (n == 2) { c1 = $2; n1 = $3 } }
		END { if (n1 > n0) printf "  %-7s %8.2f us\n", cfg, (c1 - c0) / (n1 - n0) * 1e6 }' "$W/points"
done
