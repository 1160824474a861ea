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
#   wall_stopped_call    no [restart_syscall] row: the blocked time under
#                        [clock_nanosleep] at least 80 % of the time not
#                        [stopped] (two thirds of the run when the stop
#                        lasts 1 s; a loaded machine's kill -CONT comes
#                        later, and the stop is longer), and with the
#                        stop's [stopped] at least 90 %
# Mutation: resumed_call returning 0: [restart_syscall] about 1.5 s of 3.
# A stop of the whole process stops the sampler too: its look after the
# continue is late, and the rounds of the stop were charged to what that
# look found (a thread seen running, not run since, runnable for the whole
# stop: running 3.76 s and runnable 0.25 s of a truth of 2 s running and 2
# s stopped; and the late rounds said the machine was busy).  The sampler
# tells a stop from a busy machine (lib/wall.c stopped_for).
# tests/progs/wall_group_stop.c (main spins 3 s of the clock, a thread
# sleeps as long) under --wall=100, stopped after 1 s for 1.5 s:
#   wall_stopped_group   each thread stopped between 1.5 s less 0.25 s and
#                        the time from the test's kill -STOP to its kill
#                        -CONT (as measured here) plus 0.05 s; main running
#                        at most 3 s less 1.5 s plus 0.3 s; under 20 % of
#                        the rounds late (the stop's were half of them)
#   wall_stopped_off     the same program stopped 1 s, with monctl off sent
#                        while it is stopped and on 0.5 s after the
#                        continue: each thread stopped 1 s (within
#                        [0.75, measured + 0.05]), whichever of the pause
#                        and the sampler's late look comes first (a
#                        reviewer's finding: the pause first, in 4 runs of
#                        6, the stop was main's running time)
# Mutations: stopped_for returning 0: stopped 0 s, main running 2.92 s, and
# the late-rounds warning; without the look at the pause's start, 0 s
# stopped in wall_stopped_off when the pause comes first, which the
# scheduler decides (the reviewer's runs: 4 of 6; here, idle: 0 of 4, so
# that mutation is caught only now and then).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"

cd "$T" || exit 1

# stop_run NAME MON BEFORE LEN OFF PROG ARGS...: PROG (process name NAME)
# under monrun --wall=100 writing MON, stopped BEFORE s after it started for
# LEN s; OFF 1: with --control, monctl off sent while it is stopped and on
# 0.5 s after the continue.  Sets rc, pid and stop_ms (from kill -STOP to
# kill -CONT, as measured here); MON.err holds monrun's stderr.
stop_run() {
	_name=$1 _mon=$2 _before=$3 _len=$4 _off=$5
	shift 5
	_ctl=
	[ "$_off" = 1 ] && _ctl=--control
	timeout 60 "$MONRUN" --wall=100 $_ctl -o "$_mon" "$@" >"$_mon.out" 2>"$_mon.err" &
	_run=$!
	pid=
	for i in $(seq 50); do
		pid=$(pgrep -n -x "$_name") && break
		sleep 0.1
	done
	sleep "$_before"
	_t0=$(date +%s%N)
	if [ -n "$pid" ]; then
		kill -STOP "$pid"
		[ "$_off" = 1 ] && ("$MONCTL" "$pid" off >/dev/null 2>&1 &)
		sleep "$_len"
		kill -CONT "$pid"
	fi
	stop_ms=$((($(date +%s%N) - _t0) / 1000000))
	if [ "$_off" = 1 ]; then
		sleep 0.5
		[ -n "$pid" ] && "$MONCTL" "$pid" on >/dev/null 2>&1
	fi
	wait $_run
	rc=$?
	cat "$_mon.err"
}

# "  wall-clock 6.01 s: running 2.01 s (33.4 %), blocked ..., stopped 2.00 s (33.3 %)":
# "RUNNING STOPPED" seconds, a line a thread.
states() {
	awk '$1 == "wall-clock" { r = 0; st = 0
		for (i = 4; i <= NF; i++) { if ($i == "running") r = $(i + 1); if ($i == "stopped") st = $(i + 1) }
		printf "%s %s\n", r, st }' "$1"
}

# Why the two threads' stopped seconds are not within [LO, stop_ms + 0.05]
# (and, RUN given, main's running not at most RUN): empty if they are.
stopped_why() {
	states "$1" | awk -v s="$stop_ms" -v lo="$2" -v most="${3:-}" '
		{ n++; run[n] = $1; st[n] = $2 }
		END { hi = s / 1000 + 0.05
			if (n != 2) { printf "%d threads", n; exit }
			for (i = 1; i <= 2; i++) if (st[i] < lo || st[i] > hi) printf "stopped %s s outside [%s, %.2f]; ", st[i], lo, hi
			m = run[1] > run[2] ? run[1] : run[2]
			if (most != "" && m > most) printf "running %s s above %s; ", m, most }'
}

cp "$(command -v sleep)" "$T/stopsleep" || { not_ok wall_stopped_build; exit 0; }
stop_run stopsleep "$T/s.mon" 1 1 0 "$T/stopsleep" 3
"$PROF" -m "$T/s.mon" --sample=wall "$T/stopsleep" >"$T/w.txt" 2>"$T/w.err"
restart=$(awk '$NF == "[restart_syscall]" { print $2 }' "$T/w.txt")
sleepy=$(awk '$NF == "[clock_nanosleep]" { print $1 }' "$T/w.txt")
stopped=$(awk '$NF == "[stopped]" { print $1 }' "$T/w.txt")
if [ $rc = 0 ] && [ -n "$pid" ] && [ -z "$restart" ] &&
    awk -v p="${sleepy:-0}" -v s="${stopped:-0}" 'BEGIN { exit !(p >= 0.8 * (100 - s) && p + s >= 90) }'; then
	ok "wall_stopped_call # [clock_nanosleep] ${sleepy} %, [stopped] ${stopped:-0} % of the wall time"
else
	not_ok wall_stopped_call "exit $rc, pid '$pid': [restart_syscall] ${restart:-none} s, [clock_nanosleep] ${sleepy:-none} %, [stopped] ${stopped:-none} %"
	head -n 5 "$T/w.txt"
fi

build_plain gstop wall_group_stop.c -pthread || { not_ok wall_stopped_group_build; exit 0; }
stop_run gstop "$T/g.mon" 1 1.5 0 "$T/gstop" 3
"$PROF" -m "$T/g.mon" --sample=wall --threads=all "$T/gstop" >"$T/g.txt" 2>"$T/g.perr"
got=$(states "$T/g.txt" | tr '\n' ' ')
why=$(stopped_why "$T/g.txt" 1.25 1.8)
# Late rounds: the stop's half of them without stopped_for (150 of 302); a
# busy machine's own, a few.
late=$(sed -n 's/.* wall-clock sampling rounds (\([0-9.]*\) %) ran late.*/\1/p' "$T/g.perr")
if [ $rc = 0 ] && [ -n "$pid" ] && [ -z "$why" ] && awk -v l="${late:-0}" 'BEGIN { exit !(l < 20) }'; then
	ok "wall_stopped_group # running, stopped per thread: $got; ${late:-0} % of the rounds late"
else
	not_ok wall_stopped_group "exit $rc, pid '$pid': $why ($got); ${late:-0} % of the rounds late"
	head -n 4 "$T/g.perr"
fi

# The stop, with monctl off while stopped and on 0.5 s after the continue.
stop_run gstop "$T/o.mon" 1 1 1 "$T/gstop" 4
"$PROF" -m "$T/o.mon" --sample=wall --threads=all "$T/gstop" >"$T/o.txt" 2>"$T/o.perr"
got=$(states "$T/o.txt" | tr '\n' ' ')
why=$(stopped_why "$T/o.txt" 0.75)
if [ $rc = 0 ] && [ -n "$pid" ] && [ -z "$why" ]; then
	ok "wall_stopped_off # running, stopped per thread: $got"
else
	not_ok wall_stopped_off "exit $rc, pid '$pid': $why ($got)"
	head -n 4 "$T/o.perr"
fi
