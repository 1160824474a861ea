#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# PROFDIR: unset -> ./mon.out; empty -> nothing; DIR -> DIR/PID.progname
# (cc -pg) or DIR/PID.mon.out (explicit monitor()); an unwritable PROFDIR
# gives one line on stderr and leaves the exit status alone; fork children
# write their own files.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mon_helpers.inc"
build_dump || { not_ok build_dump; exit 1; }
cd "$T" || exit 1
unset PROFDIR
build_prog prog mon_fatal.c -pg || not_ok build_pg
build_prog seed mon_seed.c 2>/dev/null || not_ok build_seed
build_prog fork mon_fork.c -pg || not_ok build_fork

mkdir run && cd run || exit 1
../prog exit7; rc=$?
expect "unset: exit status kept" "$rc" 7
expect "unset: ./mon.out only" "$(ls -A)" "mon.out"
rm -f mon.out

PROFDIR= ../prog exit7; rc=$?
expect "empty: exit status kept" "$rc" 7
expect "empty: no file" "$(ls -A)" ""
PROFDIR= ../seed seed >/dev/null
expect "empty, explicit monitor(): no file" "$(ls -A)" ""

mkdir "$T/pd"
PROFDIR=$T/pd ../prog exit7 &
pid=$!
wait $pid
expect "DIR: cc -pg writes DIR/PID.progname" "$(ls -A "$T/pd")" "$pid.prog"
expect "DIR: nothing in the working directory" "$(ls -A)" ""
dump "$T/pd/$pid.prog" check && ok "DIR: file reads" || not_ok "DIR: file reads"
expect "DIR: pid recorded" "$(info "$T/pd/$pid.prog" pid)" "$pid"
rm -f "$T/pd"/*

PROFDIR=$T/pd ../seed seed >/dev/null &
pid=$!
wait $pid
expect "DIR: monitor() writes DIR/PID.mon.out" "$(ls -A "$T/pd")" "$pid.mon.out"
rm -f "$T/pd"/*

# A relative PROFDIR is taken relative to the start directory.
PROFDIR=. ../prog exit7 &
pid=$!
wait $pid
expect "relative DIR" "$(ls -A)" "$pid.prog"
rm -f ./*

# Unwritable: PROFDIR names a file, so nothing can be created under it.
touch "$T/notadir"
PROFDIR=$T/notadir ../prog exit7 2>"$T/err"; rc=$?
expect "unwritable: exit status kept" "$rc" 7
expect "unwritable: one line on stderr" "$(wc -l <"$T/err")" 1
grep -q "^monprof: cannot write profile $T/notadir/[0-9]*\.prog: Not a directory\$" "$T/err" &&
	ok "unwritable: the line names the file and why" || not_ok "unwritable: message" "$(cat "$T/err")"
# A full disk (file size limit): the write fails, SIGXFSZ does not kill.
(ulimit -f 1; ../prog exit7 2>"$T/err"); rc=$?
expect "file too large: exit status kept" "$rc" 7
grep -q "^monprof: cannot write profile .*mon.out: File too large\$" "$T/err" &&
	ok "file too large: message" || not_ok "file too large: message" "$(cat "$T/err")"
expect "file too large: no partial file left" "$(ls -A)" ""

# fork: parent and child each write their own file, with their own time.
mkdir "$T/fk"
PROFDIR=$T/fk ../fork &
pid=$!
wait $pid
n=$(ls "$T/fk" | wc -l)
expect "fork: two files" "$n" 2
[ -f "$T/fk/$pid.fork" ] && ok "fork: parent's file is PID.fork" || not_ok "fork: parent's file" "$(ls "$T/fk")"
child=$(ls "$T/fk" | grep -v "^$pid\\." | head -n 1)
expect "fork: child's file names the child" "$(info "$T/fk/$child" ppid)" "$pid"
set -- $(dump "$T/fk/$pid.fork" ticks parent_work ../fork)
p_in=${1:-0} p_all=${2:-0}
set -- $(dump "$T/fk/$pid.fork" ticks child_work ../fork)
p_child=${1:-0}
set -- $(dump "$T/fk/$child" ticks child_work ../fork)
c_in=${1:-0} c_all=${2:-0}
set -- $(dump "$T/fk/$child" ticks parent_work ../fork)
c_parent=${1:-0}
if [ "$p_all" -ge 100 ] && [ $((p_in * 10)) -ge $((p_all * 8)) ] && [ "$p_child" -le 5 ]; then
	ok "fork: parent's time in parent_work ($p_in of $p_all)"
else
	not_ok "fork: parent's time" "parent_work $p_in child_work $p_child of $p_all"
fi
if [ "$c_all" -ge 100 ] && [ $((c_in * 10)) -ge $((c_all * 8)) ] && [ "$c_parent" -le 5 ]; then
	ok "fork: child's time in child_work ($c_in of $c_all)"
else
	not_ok "fork: child's time" "child_work $c_in parent_work $c_parent of $c_all"
fi
# Without PROFDIR the child must not overwrite the parent's mon.out.
../fork &
pid=$!
wait $pid
[ -f mon.out ] && expect "fork, PROFDIR unset: parent's mon.out" "$(info mon.out pid)" "$pid" ||
	not_ok "fork, PROFDIR unset: parent's mon.out"
expect "fork, PROFDIR unset: child's PID.fork beside it" "$(ls | grep -c '^[0-9]*\.fork$')" 1
