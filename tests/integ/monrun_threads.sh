#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# monrun on a 4-thread program whose threads use 10, 20, 30 and 40 % of its
# CPU, each in a function of its own and each measuring its own CPU time:
# prof's shares must match those times within five standard deviations of
# the binomial spread and within 2 percentage points.
#
# Two points at five sigma need at least 5^2 * 0.25 / 0.02^2 = 15625
# samples: 2.4 CPU-s at 10 kHz give 24000.  Only the perf clock samples each
# thread's CPU at that rate (the tick-driven clocks lump ticks at the
# kernel's HZ), so -c perf is asked for and the check is skipped where the
# kernel refuses perf events.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"

RATE=10000
mkdir -p "$T/run"
if build_plain threads monrun_threads.c -pthread; then
	ok monrun_threads_build
else
	not_ok monrun_threads_build
fi
# Which clock does this kernel let us have?  A short run with the default
# choice (perf first) tells.
(cd "$T/run" && "$MONRUN" "$T/threads" 0.04 >/dev/null)
"$PROF" -m "$T/run/mon.out" --format=json "$T/threads" >"$T/probe.json" 2>/dev/null
clock=$(head -n 1 "$T/probe.json" | sed -n 's/.*"clock":"\([^"]*\)".*/\1/p')
case $clock in
perf*) ;;
*)
	for k in 1 2 3 4; do
		ok "monrun_threads_share_t$k # skip perf clock unavailable (clock '$clock')"
	done
	exit 0 ;;
esac
rm -f "$T/run/mon.out"
(cd "$T/run" && "$MONRUN" -c perf -r $RATE "$T/threads" 2.4 >"$T/thr.out")
rc=$?
"$PROF" -m "$T/run/mon.out" --format=json "$T/threads" >"$T/thr.json" 2>"$T/thr.err"
if [ $rc -eq 0 ]; then ok monrun_threads_runs; else not_ok monrun_threads_runs "exit $rc"; fi
prof_csv "$T/run/mon.out" "$T/thr.csv" "$T/threads" ||
	not_ok monrun_threads_prof_reads "$(cat "$T/thr.csv.err")"

n=0 c=0
for k in 1 2 3 4; do
	eval "k$k=\$(ticks \"\$T/thr.csv\" t${k}_spin) c$k=\$(truth \"\$T/thr.out\" t${k}_spin)"
done
n=$(awk -v a="$k1" -v b="$k2" -v c="$k3" -v d="$k4" 'BEGIN { printf "%d", a + b + c + d + 0.5 }')
c=$(awk -v a="$c1" -v b="$c2" -v c="$c3" -v d="$c4" 'BEGIN { print a + b + c + d }')
# A perf clock whose timer interrupt comes late skips periods (the kernel
# counts one sample for an overrun: docs/reliability.md, "Bounds"); how
# many it skips follows the machine's load over the run, not the thread,
# so a thread alive while the machine was busier loses more of its due
# samples.  Bound and cap widen by what the run lost: a thread losing up
# to twice the run's share L of its due samples moves its share by p L /
# (1 - L) at most (L = 0 where every period was taken: the bounds are the
# binomial spread and 2 pp).  Under ASan at 10 kHz (a proof run of
# 2026-12-03) 56 % of the rate was taken, and t1 had 7.5 % of the samples
# against 10 % of the CPU.
set_hz=$(json_num "$T/thr.json" rate_hz)
# Past half the periods skipped the shares measure the machine, not the
# profiler: the checks are skipped, saying so (the widening is at most p).
lost=$(awk -v n="$n" -v r="${set_hz:-0}" -v c="$c" 'BEGIN { w = r * c; l = (w > 0) ? 1 - n / w : 0
	print (l < 0) ? 0 : l }')
echo "# $n samples of the $(awk -v r="${set_hz:-0}" -v c="$c" 'BEGIN { printf "%.0f", r * c }') due: the perf clock skipped a share $lost of its periods"
for k in 1 2 3 4; do
	eval "kk=\$k$k cc=\$c$k"
	p=$(awk -v a="$cc" -v t="$c" 'BEGIN { print (t > 0) ? a / t : 0 }')
	skew=$(awk -v p="$p" -v l="$lost" 'BEGIN { print p * l / (1 - l) }')
	if awk -v l="$lost" 'BEGIN { exit !(l > 0.5) }'; then
		ok "monrun_threads_share_t$k # skip the perf clock skipped $lost of its periods (a loaded machine): the shares would measure it"
	else
		share_ok monrun_threads_share_t$k "$kk" "$n" "$p" 0.02 "$skew"
	fi
	echo "# t${k}_spin: $kk of $n samples, CPU $cc of $c s"
done
# The four functions are where the process's CPU went: all but a few of the
# samples are theirs (none lost to a thread the profiler did not see).
total=$(json_num "$T/thr.json" total_ticks)
if awk -v n="$n" -v t="$total" 'BEGIN { exit !(t > 0 && n >= 0.97 * t) }'; then
	ok monrun_threads_samples_accounted
else
	not_ok monrun_threads_samples_accounted "t1..t4 $n of $total ticks"
fi
# monrun -r sets the rate asked; the runtime may lower a rate whose ticks
# would take more than a quarter of the CPU (coverage_rate.sh): the file
# holds the rate set, never above the asked one, and the samples never
# exceed it.  How many of those ticks the perf clock delivers is the
# machine's (a dear timer interrupt skips periods: docs/reliability.md,
# "Bounds"), so the share achieved is printed, not checked against a number.
rate=$(json_num "$T/thr.json" rate_hz)
if [ -n "$rate" ] && awk -v r="$rate" -v a=$RATE 'BEGIN { exit !(r > 0 && r <= a) }' &&
   awk -v n="$n" -v r="$rate" -v c="$c" 'BEGIN { w = r * c; printf "# %.1f %% of the rate set achieved\n", 100 * n / w; exit !(n <= 1.05 * w + 5 * sqrt(w)) }'; then
	ok monrun_threads_samples_at_rate
else
	not_ok monrun_threads_samples_at_rate "$n samples for $c CPU-s at ${rate:-?} Hz set (asked $RATE)"
fi
