#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/itimer_eintr.sh — how often the itimer clock ends a sleeping
# thread's nanosleep with EINTR, two builds in turn (A B A B ...), for a
# change whose effect is a rate, not a time: tests/progs/itimer_sleepers.c
# (64 threads and main in 20 ms sleeps for 3 s) under
# `monrun -c itimer --wall=1000`, as monrun_itimer_stolen.sh
# itimer_runtime_no_eintr runs it.  Best on a quiet machine: busy cores
# hide the long tick handlers that caused it (docs/reliability.md §5).
#   sh bench/itimer_eintr.sh BUILD_A BUILD_B [RUNS]
# Prints each run with an EINTR or an early return, then
# "A: n of RUNS runs; B: n of RUNS runs".
. "$(dirname "$0")/lib.sh" "${1:?usage: itimer_eintr.sh BUILD_A BUILD_B [RUNS]}"
A=$B
B=$(cd "${2:?usage: itimer_eintr.sh BUILD_A BUILD_B [RUNS]}" && pwd) || exit 1
RUNS=${3:-40}
[ -x "$A/bin/monrun" ] && [ -x "$B/bin/monrun" ] || die "build both trees first (make)"
$CC -O1 -g -o "$W/sleepers" "$ROOT/tests/progs/itimer_sleepers.c" -pthread || die "cannot build itimer_sleepers.c"
echo "itimer_eintr: $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)"
na=0 nb=0 i=0
while [ $i -lt "$RUNS" ]; do
	i=$((i + 1))
	for side in A B; do
		if [ $side = A ]; then m=$A/bin/monrun; else m=$B/bin/monrun; fi
		out=$(cd "$W" && timeout 60 "$m" -c itimer --wall=1000 -o "$W/mon.out.$side" ./sleepers 64 3 2>&1 |
			grep '^eintr')
		case $out in
		"eintr 0 early 0 of "*) ;;
		*)
			echo "$side run $i: ${out:-no result}"
			if [ $side = A ]; then na=$((na + 1)); else nb=$((nb + 1)); fi
			;;
		esac
	done
done
echo "A: $na of $RUNS runs; B: $nb of $RUNS runs"
