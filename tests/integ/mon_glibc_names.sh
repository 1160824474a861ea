#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# glibc's names for the same things (issue 23, item 9):
#   GMON_OUT_PREFIX=P  where PROFDIR (and monrun -o) are unset, the file is
#                      P.PID in every process, as glibc's gmon.c names
#                      gmon.out; PROFDIR wins over it; empty is unset;
#   MONPROF_ARCS=N     (monrun -a N) the arc table's limit, glibc's maxarcs:
#                      past it, the message of glibc's tst-mcount-overflow
#                      and no file at all (no call graph silently short);
#   mon_setclock()     the clock and rate for the next start, from code.
# Mutations caught: monfile.c without the GMON_OUT_PREFIX branch (prefix
# checks fail: mon.out written); mcount.c without the limit check (a file is
# written, no message); clock.c's apply_next not called (mon_setclock.c
# fails at its "next start" check).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mon_helpers.inc"
build_dump || { not_ok build_dump; exit 1; }
cd "$T" || exit 1
unset PROFDIR GMON_OUT_PREFIX MONPROF_ARCS MONPROF_OUT
build_prog arcs mon_arcs.c -pg || { not_ok build_arcs; exit 1; }
build_prog setclock mon_setclock.c || { not_ok build_setclock; exit 1; }

mkdir run && cd run || exit 1
GMON_OUT_PREFIX=$T/run/prof.data ../arcs &
pid=$!
wait $pid
expect "prefix: the file is PREFIX.PID" "$(ls -A)" "prof.data.$pid"
dump "prof.data.$pid" check && ok "prefix: the file reads" || not_ok "prefix: the file reads"
expect "prefix: calls counted" "$(dump "prof.data.$pid" calls f120 ../arcs)" 1
rm -f ./*

# A relative prefix is taken from the start directory; a fork child writes
# PREFIX.CHILDPID beside its parent's.
GMON_OUT_PREFIX=p ../arcs fork &
pid=$!
wait $pid; rc=$?
expect "prefix, fork: exit status" "$rc" 0
expect "prefix, fork: two files" "$(ls -A | wc -l | tr -d ' ')" 2
[ -f "p.$pid" ] && ok "prefix, fork: the parent's is PREFIX.PID" ||
	not_ok "prefix, fork: the parent's file" "$(ls -A)"
child=$(ls -A | grep -v "^p\.$pid\$" | head -n 1)
case $child in
p.[0-9]*) expect "prefix, fork: the child's is PREFIX.CHILDPID" "$(info "$child" ppid)" "$pid" ;;
*) not_ok "prefix, fork: the child's file" "$(ls -A)" ;;
esac
rm -f ./*

mkdir "$T/pd"
PROFDIR=$T/pd GMON_OUT_PREFIX=p ../arcs &
pid=$!
wait $pid
expect "PROFDIR wins over the prefix" "$(ls -A "$T/pd") | $(ls -A)" "$pid.arcs | "
rm -f "$T/pd"/*
GMON_OUT_PREFIX= ../arcs
expect "empty prefix: mon.out" "$(ls -A)" "mon.out"
rm -f ./*

# The arc table's limit.  120 functions called from main make at least 120
# arcs: 1000 holds them, 50 does not.
MONPROF_ARCS=1000 ../arcs 2>"$T/err"
expect "limit not reached: mon.out" "$(ls -A)" "mon.out"
expect "limit not reached: every call counted" "$(dump mon.out calls f120 ../arcs)" 1
expect "limit not reached: no message" "$(cat "$T/err")" ""
rm -f ./*
MONPROF_ARCS=50 GMON_OUT_PREFIX=$T/run/ovf.data ../arcs 2>"$T/err"; rc=$?
expect "overflow: exit status kept" "$rc" 0
grep -q "^monprof: mcount: call graph buffer size limit exceeded, $T/run/ovf.data.[0-9]* will not be generated: the program made more than 50 arcs" "$T/err" &&
	ok "overflow: glibc's message, the file, the limit" || not_ok "overflow: message" "$(cat "$T/err")"
grep -q "raise MONPROF_ARCS (monrun -a)" "$T/err" &&
	ok "overflow: the message names the remedy" || not_ok "overflow: remedy" "$(cat "$T/err")"
expect "overflow: no data file" "$(ls -A)" ""
# No file was due and the message said why: the watcher (the process that
# reports a profile never written) says nothing.  Standard error through a
# pipe read to its end: the watcher holds it until it exits.  Mutation
# caught: the overflow's return not telling the watcher ("ended without
# writing its profile: it was killed ..." after an exit 0).
MONPROF_ARCS=50 ../arcs 2>&1 >/dev/null | cat >"$T/err"
if grep -q "call graph buffer size limit exceeded" "$T/err" && ! grep -q "ended without writing" "$T/err"; then
	ok "overflow: the watcher says nothing more"
else
	not_ok "overflow: the watcher" "$(cat "$T/err")"
fi
MONPROF_ARCS=49 ../arcs 2>"$T/err"
grep -q "^monprof: MONPROF_ARCS=49: the arc table holds 50 to 1073741824 arcs; not profiling\$" "$T/err" &&
	ok "below glibc's minarcs: refused, said" || not_ok "MONPROF_ARCS=49" "$(cat "$T/err")"
expect "refused: no file" "$(ls -A)" ""
"$B/bin/monrun" -a 10 true 2>"$T/err"; rc=$?
expect "monrun -a 10: usage error" "$rc" 2
grep -q "^monrun: -a 10: the arc table holds 50 to 1073741824 arcs\$" "$T/err" &&
	ok "monrun -a: the range" || not_ok "monrun -a: message" "$(cat "$T/err")"
"$B/bin/monrun" -a 50 -o "$T/run/m.out" ../arcs 2>"$T/err"
grep -q "call graph buffer size limit exceeded, $T/run/m.out will not be generated" "$T/err" &&
	ok "monrun -a 50: the limit reaches the program" || not_ok "monrun -a 50" "$(cat "$T/err")"
expect "monrun -a 50: no file" "$(ls -A)" ""

# The clock and rate from code (mon_setclock.c checks; the environment asks
# for another clock and rate).
try mon_setclock env MONPROF_CLOCK=itimer MONPROF_RATE=3000 ../setclock
