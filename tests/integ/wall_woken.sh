#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A thread woken often that then waits for a CPU (issue 20: running,
# runnable and blocked told apart): tests/progs/wall_woken.c's event thread
# shares a CPU with a busy thread under SCHED_IDLE, is woken by a pipe every
# 25 ms and then waits for the CPU; it measures its own life, CPU time and
# run-queue wait (schedstat: the kernel's accounting).  Under monrun
# --wall=200 for 5 s, its blocked samples must be its blocked time (life less
# CPU and run-queue wait): the wall sampler charges a thread that has not
# run since it was seen blocked to that blocked sample again, and once it has
# run, moves the rounds its run-queue wait before its first run covered to
# runnable (wall.c's woken_wait).
#   wall_woken_run      exit 0, the event thread's line and its samples
#   wall_woken_blocked  the truth's blocked share lies within 2 pp + 3
#                       binomial sigmas of [blocked, blocked + missed] / due
#                       (the thread's due rounds; its missed ones, due less
#                       taken, may be of any state)
# Skipped when the process may use one CPU only (the sampler would wait
# with the event thread), or when the thread waited for the CPU less than
# 15 % of its life in three tries (too little to tell).
# Mutation: woken_wait returning at once (rounds waiting for a CPU stay
# blocked): blocked 89.5 % and 85.7 % of the samples against a truth of
# 35.8 % and 22.5 %; with it 34.6 % and 24.2 % against 34.7 % and 26.8 %.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wall_lib.inc"

[ -r /proc/self/schedstat ] || { echo "SKIP no /proc/PID/schedstat (the kernel's CONFIG_SCHEDSTATS)"; exit 77; }
build_wall_dump
$CC -O2 -g -o "$T/woken" "$ROOT/tests/progs/wall_woken.c" -lpthread

for try in 1 2 3; do
	timeout 120 "$B/bin/monrun" --wall=200 -o "$T/w.mon" "$T/woken" 5000 >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 3 ] && { echo "SKIP the process may use one CPU only"; exit 77; }
	tid=$(awk '$1 == "event" { print $3 }' "$T/out")
	wall_dump "$T/w.mon" "$T/woken" >"$T/wall.txt" 2>&1
	# truth: runnable, blocked (of life); sampled: due, taken, blocked samples
	awk -v tid="$tid" 'FNR == NR { if ($1 == "event") { life = $5; cpu = $7; wq = $9 }; next }
		$1 == "thread" && $2 == tid { due = $6; taken = $8 }
		$1 == "sample" && $4 == tid && $6 == "blocked" { b += $2 }
		END { printf "%.2f %.2f %d %d %d\n", life ? 100 * wq / life : 0,
			life ? 100 * (life - cpu - wq) / life : 0, due, taken, b }' "$T/out" "$T/wall.txt" >"$T/sum"
	read -r runnable truth due taken blocked <"$T/sum"
	echo "# try $try: truth runnable $runnable %, blocked $truth %; due $due, taken $taken, blocked samples $blocked"
	awk -v r="$runnable" 'BEGIN { exit !(r >= 15) }' && break
done
if [ $rc -eq 0 ] && [ -n "$tid" ] && [ "$taken" -gt 0 ]; then
	ok wall_woken_run
else
	not_ok wall_woken_run "exit $rc, event tid '$tid', taken '$taken': $(head -n 2 "$T/err")"
	exit 0
fi
if ! awk -v r="$runnable" 'BEGIN { exit !(r >= 15) }'; then
	ok "wall_woken_blocked # skip the machine kept the thread waiting for a CPU only $runnable % of its life (15 % needed to tell)"
	exit 0
fi
verdict=$(awk -v t="$truth" -v due="$due" -v taken="$taken" -v b="$blocked" 'BEGIN {
	lo = 100 * b / due; hi = 100 * (b + due - taken) / due; p = t / 100
	sig = 100 * sqrt(p * (1 - p) / taken); bound = 2 + 3 * sig
	d = t < lo ? lo - t : t > hi ? t - hi : 0
	printf "%s sampled %.1f-%.1f %% of due, truth %.1f %%: %.1f pp off, bound %.1f pp\n",
		d <= bound ? "ok" : "bad", lo, hi, t, d, bound }')
echo "# $verdict"
case $verdict in
ok*) ok wall_woken_blocked ;;
*) wall_san_not_ok wall_woken_blocked "$verdict" "the instrumented sampler runs late beside busy threads" ;;
esac
