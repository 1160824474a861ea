#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A waiting thread stopped and continued (a new user's finding: after
# kill -STOP and -CONT, half of a sleep's time was under [restart_syscall]).
# The kernel resumes an interrupted timed call (nanosleep, poll, futex
# with a timeout) with restart_syscall(2), and /proc's "syscall" then shows
# that number, not the call's; the PC is the call's.  The sampler names the
# call and wait of the thread's last blocked sample (lib/wall.c
# resumed_call).  sleep(1) (a copy, stopsleep) sleeps 3 s under monrun
# --wall=100; after 1 s it is stopped for 1 s.
#   wall_stopped_call    no [restart_syscall] row: all the blocked time under
#                        [clock_nanosleep], at least 90 % of the run
# Mutation: resumed_call returning 0: [restart_syscall] about 1.5 s of 3.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"

cd "$T" || exit 1
cp "$(command -v sleep)" "$T/stopsleep" || { not_ok wall_stopped_build; exit 0; }
timeout 60 "$MONRUN" --wall=100 -o "$T/s.mon" "$T/stopsleep" 3 >"$T/s.out" 2>"$T/s.err" &
run=$!
pid=
for i in $(seq 50); do
	pid=$(pgrep -n -x stopsleep) && break
	sleep 0.1
done
sleep 1
[ -n "$pid" ] && kill -STOP "$pid"
sleep 1
[ -n "$pid" ] && kill -CONT "$pid"
wait $run
rc=$?
cat "$T/s.err"
"$PROF" -m "$T/s.mon" --sample=wall "$T/stopsleep" >"$T/w.txt" 2>"$T/w.err"
restart=$(awk '$NF == "[restart_syscall]" { print $2 }' "$T/w.txt")
sleepy=$(awk '$NF == "[clock_nanosleep]" { print $1 }' "$T/w.txt")
if [ $rc = 0 ] && [ -n "$pid" ] && [ -z "$restart" ] && awk -v p="${sleepy:-0}" 'BEGIN { exit !(p >= 90) }'; then
	ok "wall_stopped_call # [clock_nanosleep] ${sleepy} % of the wall time"
else
	not_ok wall_stopped_call "exit $rc, pid '$pid': [restart_syscall] ${restart:-none} s, [clock_nanosleep] ${sleepy:-none} %"
	head -n 5 "$T/w.txt"
fi
