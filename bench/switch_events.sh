#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/switch_events.sh — what a context switch costs with a cpu-clock
# perf event, by the event's shape (bench/switch_events.c: none, each,
# inherited, one, one-inherit, one-percpu), N round trips (default 200000),
# ROUNDS rounds (default 5) with every mode in turn; prints each run, then
# per mode the median CPU per round trip (µs) and the median, over rounds,
# of the difference to none's in the same round per context switch (µs).
# Needs perf events for the user's own tasks (perf_event_paranoid <= 2).
# Not part of make check.
. "$(dirname "$0")/lib.sh"
ROUNDS=${ROUNDS:-5}
N=${N:-200000}
MODES="none each inherited one one-inherit one-percpu"
$CC -O2 -o "$W/switch_events" "$BENCH/switch_events.c" || die "build switch_events"
: >"$W/runs"
for r in $(seq "$ROUNDS"); do
	echo "# round $r: $(uptime | sed 's/.*load/load/')"
	for m in $MODES; do
		"$W/switch_events" "$m" "$N" | sed "s/^/$r /" | tee -a "$W/runs" || die "switch_events $m"
	done
done
echo "# mode: median CPU per round trip (us); added per context switch over none's, median (range)"
for m in $MODES; do
	awk -v m="$m" '$2 == "none" { base[$1] = $5; bsw[$1] = $7 }
		$2 == m { cpu[$1] = $5; sw[$1] = $7; n[$1] = $3 }
		function med(a, k,   i, j, t, c, v) { c = 0; for (i in a) v[++c] = a[i]
			for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
			return c % 2 ? v[(c + 1) / 2] : (v[c / 2] + v[c / 2 + 1]) / 2 }
		END { lo = 1e9; hi = -1e9
			for (r in cpu) { d[r] = (cpu[r] - base[r]) * n[r] / sw[r]; if (d[r] < lo) lo = d[r]; if (d[r] > hi) hi = d[r] }
			printf "%-12s %7.2f us  %6.2f us (%.2f to %.2f)\n", m, med(cpu), med(d), lo, hi }' "$W/runs"
done
