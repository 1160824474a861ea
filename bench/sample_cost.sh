#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/sample_cost.sh [BUILD] — the price of one sample, taken apart (issue
# 25, item 1), on this machine, per clock (perf, thread, itimer), against
# perf record at the same rate.  The same fixed work (bench/sample_cost.c:
# ITER passes through 14 frames, built -O2 -fomit-frame-pointer) is run in
# turns, ROUNDS rounds (default 5), each run's user+system CPU from wait4
# (bench/rusage.c), each configuration at RATE (default 1000 Hz) and at
# LOW (10 Hz), so that what a run pays once (starting, building the unwind
# tables, writing the profile; perf's start-up and its file) cancels:
#   bare C     the clock C armed with an empty handler that counts its
#              signals: the kernel's timer, the signal's delivery and the
#              return from the handler
#   flat C     monrun -c C, MONPROF_STACK_DEPTH=0: histogram only
#   stacks C   monrun -c C: with the call stack walked (the default)
#   perf       perf record -e cpu-clock, flat and --call-graph dwarf (perf's
#              own CPU and the target's, both under wait4)
#   ring       the perf clock's event without a signal: the kernel writes each
#              sample (IP, thread, user registers, STACK bytes of the user
#              stack, default 8192) into a ring buffer that a thread of the
#              program drains (issue 25 item 3: would such a clock be
#              cheaper?); ringip: IP and thread only.  The price a sample is
#              the kernel's and the drain's; unwinding the copy is not in it
#              (compare the walk column).
# The price of one more signal, from the medians over the rounds: CPU at
# RATE less CPU at LOW, over the signals more (the bare runs' counts: the
# same kernel clock at the same rate delivers as many to monrun; perf's its
# samples, perf report --stats):
#   kernel     bare
#   handler    flat − bare: dispatch, histogram
#   walk       stacks − flat
# and each run's overhead at RATE over the plain run, fixed part included.
# Not part of make check.  The thread and itimer clocks deliver at the
# kernel's tick (CONFIG_HZ), fewer signals than asked, each weighted
# (lib/clock.c), so their price a second is lower than perf's.
. "$(dirname "$0")/lib.sh"
ROUNDS=${ROUNDS:-5}
RATE=${RATE:-1000}
ITER=${ITER:-400000}
command -v perf >/dev/null 2>&1 || need_tools linux-perf
$CC -O2 -g -fomit-frame-pointer -o "$W/work" "$BENCH/sample_cost.c" || die "build"
$CC -O2 -o "$W/rusage" "$BENCH/rusage.c" || die "build rusage"
# cpu CMD...: user+sys seconds of CMD (and its children) on stdout;
# CMD's stdout in $W/last.out
cpu() { "$W/rusage" "$@" 2>"$W/ru" >"$W/last.out"; awk 'NF == 3 { printf "%.4f", $1 + $2 }' "$W/ru"; }
LOW=10
: >"$W/rows"
for r in $(seq "$ROUNDS"); do
	echo "plain $(cpu "$W/work" none "$ITER") 0" >>"$W/rows"
	for q in "$RATE" "$LOW"; do
		for c in perf thread itimer; do
			v=$(cpu "$W/work" "$c" "$ITER" "$q")
			echo "bare_${c}_$q $v $(awk '{ print $2 }' "$W/last.out")" >>"$W/rows"
			echo "flat_${c}_$q $(MONPROF_STACK_DEPTH=0 cpu "$MONRUN" -c "$c" -r "$q" -o "$W/f.mon" "$W/work" none "$ITER") 0" >>"$W/rows"
			echo "stacks_${c}_$q $(cpu "$MONRUN" -c "$c" -r "$q" -o "$W/s.mon" "$W/work" none "$ITER") 0" >>"$W/rows"
		done
		for c in ring ringip; do
			v=$(cpu "$W/work" "$c" "$ITER" "$q" "${STACK:-8192}")
			echo "bare_${c}_$q $v $(awk '$1 == "signals" { print $2 }' "$W/last.out")" >>"$W/rows"
		done
		for g in flat dwarf; do
			if [ $g = flat ]; then set --; else set -- --call-graph dwarf; fi
			v=$(cpu perf record -q -F "$q" -e cpu-clock "$@" -o "$W/p.data" -- "$W/work" none "$ITER")
			n=$(perf report -i "$W/p.data" --stats 2>/dev/null | awk '$1 == "SAMPLE" && $2 == "events:" { print $3; exit }')
			echo "perf${g}_$q $v ${n:-0}" >>"$W/rows"
		done
	done
	echo "round $r of $ROUNDS done (load $(cut -d' ' -f1 /proc/loadavg))" >&2
done
# medians of CPU and of the counts
awk '{ cpu[$1] = cpu[$1] " " $2; n[$1] = n[$1] " " $3 }
function med(s,   a, k, i, j, t) { k = split(s, a, " "); for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
END { for (x in cpu) print x, med(cpu[x]), med(n[x]) }' "$W/rows" | sort >"$W/med"
awk -v R="$RATE" -v L="$LOW" '{ c[$1] = $2; n[$1] = $3 }
END {
	p = c["plain"]
	printf "# plain: %.3f CPU-s of work; price of one more signal (CPU at %d Hz less at %d Hz, over the signals more), microseconds\n", p, R, L
	printf "# %-11s %9s %9s %10s %9s %9s %12s %13s\n", "clock", "signals", "kernel", "handler", "walk", "total", "overhead-%", "fixed-ms"
	split("perf thread itimer", cl, " ")
	for (i = 1; i <= 3; i++) {
		k = cl[i]; ds = n["bare_" k "_" R] - n["bare_" k "_" L]
		if (ds < 1) { printf "  %-11s (no more signals at %d Hz)\n", k, R; continue }
		kern = (c["bare_" k "_" R] - c["bare_" k "_" L]) / ds
		flat = (c["flat_" k "_" R] - c["flat_" k "_" L]) / ds
		st = (c["stacks_" k "_" R] - c["stacks_" k "_" L]) / ds
		printf "  %-11s %9d %9.1f %10.1f %9.1f %9.1f %11.1f%% %13.1f\n", k, n["bare_" k "_" R], 1e6 * kern,
			1e6 * (flat - kern), 1e6 * (st - flat), 1e6 * st, 100 * (c["stacks_" k "_" R] - p) / p,
			1000 * (c["stacks_" k "_" L] - p - n["bare_" k "_" L] * st)
	}
	split("ring ringip", rl, " ")
	for (i = 1; i <= 2; i++) {
		k = rl[i]; ds = n["bare_" k "_" R] - n["bare_" k "_" L]
		if (ds < 1) { printf "  %-11s (no more samples at %d Hz, or perf events refused)\n", k, R; continue }
		kern = (c["bare_" k "_" R] - c["bare_" k "_" L]) / ds
		printf "  %-11s %9d %9.1f %10s %9s %9s %11.1f%% %13s   (%s)\n", k, n["bare_" k "_" R], 1e6 * kern, "", "", "",
			100 * (c["bare_" k "_" R] - p) / p, "",
			k == "ring" ? "kernel writes IP, registers and the stack copy; a thread drains" : "kernel writes IP and thread; a thread drains"
	}
	split("flat dwarf", gl, " ")
	for (i = 1; i <= 2; i++) {
		g = "perf" gl[i]; ds = n[g "_" R] - n[g "_" L]
		if (ds < 1) continue
		pr = (c[g "_" R] - c[g "_" L]) / ds
		printf "  %-11s %9d %9s %10s %9s %9.1f %11.1f%% %13.1f   (perf record%s)\n", "perf-" gl[i], n[g "_" R], "", "", "",
			1e6 * pr, 100 * (c[g "_" R] - p) / p, 1000 * (c[g "_" L] - p - n[g "_" L] * pr),
			gl[i] == "dwarf" ? " --call-graph dwarf" : ""
	}
}' "$W/med"
