#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/switch_cost.sh [BUILD] — what a profiling clock costs per context
# switch (docs/performance.md section 16): bench/pingpong.c's two processes
# pass a byte N times (default 200000; ROUNDS rounds, default 5), each
# round running every mode in turn, the CPU of both from getrusage(2)
# (bench/treecpu.c), with the context switches it counted:
#   plain       unprofiled
#   perf1000    monrun -f -r 1000 -d 0 (the perf clock, flat)
#   perf1       monrun -f -r 1 -d 0 (the same clock, a tick a CPU-second)
#   thread1000  monrun -f -r 1000 -d 0 -c thread
#   perfrec     perf record -F 1000 -e cpu-clock
# Prints each run, then per mode the median CPU per round trip (µs), the
# median of the differences to plain within a round per context switch
# (µs), and their range.  Not part of make check.
. "$(dirname "$0")/lib.sh"
ROUNDS=${ROUNDS:-5}
N=${N:-200000}
MODES=${MODES:-plain perf1000 perf1 thread1000 perfrec}
$CC -O2 -o "$W/treecpu" "$BENCH/treecpu.c" || die "build treecpu"
$CC -O2 -o "$W/pingpong" "$BENCH/pingpong.c" || die "build pingpong"
cd "$W" || exit 1
: >"$W/runs"
for r in $(seq "$ROUNDS"); do
	echo "# round $r: $(uptime | sed 's/.*load/load/')"
	for m in $MODES; do
		case $m in
		plain) p= ;;
		perf1000) p="$MONRUN -f -r 1000 -d 0 -o $W/mon.out" ;;
		perf1) p="$MONRUN -f -r 1 -d 0 -o $W/mon.out" ;;
		thread1000) p="$MONRUN -f -r 1000 -d 0 -c thread -o $W/mon.out" ;;
		perfrec) p="perf record -q -F 1000 -e cpu-clock -o $W/perf.data --" ;;
		*) die "unknown mode $m" ;;
		esac
		# shellcheck disable=SC2086
		"$W/treecpu" "$W/cpu" $p "$W/pingpong" "$N" >/dev/null 2>&1 || die "$m: pingpong failed"
		echo "$m $r $(cat "$W/cpu")" | tee -a "$W/runs"
		rm -f "$W"/mon.out* "$W/perf.data"
	done
done
echo "# mode cpu_us_per_round_trip(median) added_us_per_switch(median min-max) switches_per_round_trip"
awk -v n="$N" '
	function med(s,   k, a, i, j, t) {
		k = split(s, a, " ")
		for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		lo = a[1]; hi = a[k]
		return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
	}
	{ m = $1; r = $2; cpu[m, r] = $3 + $4; sw[m, r] = $6 + $7
	  if (!(m in seen)) { seen[m] = 1; order[++no] = m } rounds[r] = 1 }
	END {
		for (i = 1; i <= no; i++) {
			m = order[i]; c = ""; d = ""; s = ""
			for (r in rounds) {
				if (!((m, r) in cpu)) continue
				c = c " " 1e6 * cpu[m, r] / n; s = s " " sw[m, r] / n
				if ((("plain", r) in cpu) && sw[m, r] > 0)
					d = d " " 1e6 * (cpu[m, r] - cpu["plain", r]) / sw[m, r]
			}
			mc = med(c); md = med(d); dlo = lo; dhi = hi
			printf "%-10s %7.2f   %6.2f (%.2f-%.2f)   %.2f\n", m, mc, md, dlo, dhi, med(s)
		}
	}' "$W/runs"
