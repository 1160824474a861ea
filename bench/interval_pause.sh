#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The longest pause a thread spinning beside the interval cuts sees
# (issue 22, item 2): bench/interval_pause.c under monrun at 1000 Hz,
# without intervals and with --interval=1, ROUNDS times each, alternated;
# also the cuts' wall-clock time and the control thread's CPU (monctl
# status).  Usage: sh bench/interval_pause.sh [BUILD] [SECONDS] [ROUNDS]
. "$(dirname "$0")/lib.sh" "${1:-build}"
S=${2:-10}
R=${3:-3}
T=$W
cc -O2 -o "$T/pause" "$ROOT/bench/interval_pause.c" || exit 1
cd "$T" || exit 1
for r in $(seq "$R"); do
	printf 'plain     '
	"$B/bin/monrun" -o "$T/plain.out" "$T/pause" "$S"
	mkdir -p "$T/iv"
	printf 'interval  '
	PROFDIR=$T/iv "$B/bin/monrun" --interval=1 "$T/pause" "$S" &
	pid=$!	# monrun execs the command: the same process
	sleep $((S - 1))
	st=$("$B/bin/monctl" "$pid" status 2>&1 | grep -E '^interval|^control|monctl' | tr '\n' ' ')
	wait
	echo "    $st"
	rm -rf "$T/iv"
done
