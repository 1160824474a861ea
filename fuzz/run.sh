#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# fuzz/run.sh NAME... — make fuzz's run of the libFuzzer harnesses
# $FUZZ_B/fuzz/fuzz_NAME (built by make fuzz-build), one after the other:
#  1. replay: every seed ($FUZZ_B/fuzz/seeds/NAME/, fuzz/make-seeds.sh) and
#     every input that once failed (fuzz/regress/NAME/), each by name; a
#     failure names the input;
#  2. fuzz: FUZZ_TIME seconds (0: no limit) or FUZZ_RUNS executions (-1: no
#     limit), whichever ends first, from the corpus $FUZZ_B/fuzz/corpus-NAME/
#     (new inputs go there), the seeds and fuzz/regress/NAME/; a failure's
#     input is written to $FUZZ_B/fuzz/crash-NAME/ and named.
# A directory that does not exist is left out (git keeps no empty folder:
# fuzz/regress/NAME/ exists only once NAME has found something).
# Prints each harness's executions and rate; the last line is
# "fuzz: N harnesses, M executions, no failure", or "fuzz: FAIL NAME: ..."
# naming the input, with exit status 1.  The log of each run is
# $FUZZ_B/fuzz/NAME.log (NAME.replay.log for the replay).
set -u
B=${FUZZ_B:-build}
TIME=${FUZZ_TIME:-60}
RUNS=${FUZZ_RUNS:--1}
# -timeout: an input that takes 10 s is a hang, and fails as one.
OPTS="-timeout=10 -rss_limit_mb=2048"
cd "$(dirname "$0")/.." || exit 1
fail() {
	echo "fuzz: FAIL $1: $2"
	echo "  (once fixed, copy the input to fuzz/regress/$1/: make check replays it)"
	exit 1
}
total=0 count=0
for n in "$@"; do
	bin=$B/fuzz/fuzz_$n
	[ -x "$bin" ] || fail "$n" "no harness $bin (make fuzz-build)"
	corpus=$B/fuzz/corpus-$n crash=$B/fuzz/crash-$n
	mkdir -p "$corpus" "$crash"
	dirs=
	for d in "$B/fuzz/seeds/$n" "fuzz/regress/$n"; do
		[ -d "$d" ] && dirs="$dirs $d"
	done
	# 1. Each input by name (libFuzzer runs file arguments one by one and
	# prints "Running: FILE" before each).
	files=$(for d in $dirs; do find "$d" -type f; done | sort)
	if [ -n "$files" ]; then
		# shellcheck disable=SC2086 # the names come from find: no blanks
		if ! "$bin" $OPTS $files >"$B/fuzz/$n.replay.log" 2>&1; then
			tail -n 30 "$B/fuzz/$n.replay.log"
			input=$(sed -n 's/^Running: //p' "$B/fuzz/$n.replay.log" | tail -n 1)
			fail "$n" "input ${input:-?} (log $B/fuzz/$n.replay.log)"
		fi
	fi
	echo "fuzz: $n: replayed $(echo "$files" | grep -c .) inputs; fuzzing for ${TIME} s / $RUNS runs"
	# 2. Fuzzing, in rounds: libFuzzer's -timeout is wall-clock time, so
	# on a busy machine (shared cores, nice 19) an input may pass it only
	# because the harness was not running.  A timeout is replayed alone
	# with the same limit; an input that then runs within it was the
	# machine's, not a hang: said, and fuzzing goes on for what is left of
	# the time and runs (at most 5 such rounds).  Anything else fails.
	runs=0 left_t=$TIME left_r=$RUNS started=$(date +%s) round=0
	while :; do
		round=$((round + 1))
		# shellcheck disable=SC2086
		if "$bin" $OPTS -max_total_time="$left_t" -runs="$left_r" -print_final_stats=1 \
			-artifact_prefix="$crash/" "$corpus" $dirs >"$B/fuzz/$n.log" 2>&1; then
			r=$(sed -n 's/^stat::number_of_executed_units: *//p' "$B/fuzz/$n.log")
			runs=$((runs + ${r:-0}))
			break
		fi
		input=$(sed -n 's/.*Test unit written to \([^ ]*\).*/\1/p' "$B/fuzz/$n.log" | tail -n 1)
		r=$(sed -n 's/^stat::number_of_executed_units: *//p' "$B/fuzz/$n.log")
		runs=$((runs + ${r:-0}))
		case ${input##*/} in
		timeout-*)
			if [ $round -le 5 ] && "$bin" $OPTS "$input" >"$B/fuzz/$n.retry.log" 2>&1; then
				echo "fuzz: $n: $input passed the time limit under load and ran in" \
				    "$(sed -n 's/^Executed .* in \([0-9]* ms\).*/\1/p' "$B/fuzz/$n.retry.log") alone: not a hang; going on"
				mv "$input" "$input.load"
				[ "$RUNS" -ge 0 ] && { left_r=$((RUNS - runs)); [ $left_r -gt 0 ] || break; }
				if [ "$TIME" -gt 0 ]; then
					left_t=$((TIME - ($(date +%s) - started)))
					[ $left_t -gt 0 ] || break
				fi
				continue
			fi ;;
		esac
		tail -n 40 "$B/fuzz/$n.log"
		fail "$n" "input ${input:-? (no artifact: see $B/fuzz/$n.log)}"
	done
	rate=$(( runs / ( $(date +%s) - started + 1 ) ))
	echo "fuzz: $n: $runs executions, about $rate per second, no failure"
	total=$((total + runs)) count=$((count + 1))
done
echo "fuzz: $count harnesses, $total executions, no failure"
