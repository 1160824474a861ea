#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A program that ends with the exit_group system call (issue 22: Debian's
# go "exits through the raw exit_group call: no profile, exit 0, not a
# word").
#  - through syscall(3) (syscall(SYS_exit_group, 0)): the profile is written
#    as at _exit, with the work done (mutation: clone.c's exit hook removed);
#  - through the instruction itself (inline assembly): no library sees it;
#    the user is told on standard error, naming --interval (mutation: the
#    watcher not started);
#  - the same with --interval=1: the intervals before the last are written,
#    and the message says which was the last one written;
#  - a normal exit says nothing of the kind (the watcher stays silent), and
#    the exit status is the program's;
#  - under -f, a fork child that ends normally (writing its own profile)
#    does not silence its parent's watcher: the parent killed with SIGKILL
#    afterwards is still told of (mutation: the child's write sets the
#    shared page, as before watch_mine(): PostgreSQL's postmaster, whose
#    backends come and go, was killed -9 without a word).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"
. "$(dirname "$0")/mon_helpers.inc"

if build_plain ispin interval_spin.c && build_dump; then
	ok exitgroup_build
else
	not_ok exitgroup_build
	exit 0
fi

# wait_said FILE: the watcher writes after the program ended (at most 5 s).
wait_said() {
	for _i in $(seq 50); do
		grep -q "ended without writing" "$1" && return 0
		sleep 0.1
	done
	return 1
}

mkdir -p "$T/a" "$T/b" "$T/c" "$T/d" "$T/e"
(cd "$T/a" && "$MONRUN" "$T/ispin" exitgroup "$T/ready" 0.3 >/dev/null 2>"$T/a.err")
rc=$?
if [ $rc -eq 0 ] && [ -s "$T/a/mon.out" ] && [ "$(info "$T/a/mon.out" samples)" -gt 100 ]; then
	ok exitgroup_syscall_written
else
	not_ok exitgroup_syscall_written "rc $rc, $(ls "$T/a") $(cat "$T/a.err")"
fi

(cd "$T/b" && "$MONRUN" "$T/ispin" asm "$T/ready" 0.3 >/dev/null 2>"$T/b.err")
rc=$?
if [ $rc -eq 0 ] && wait_said "$T/b.err" && grep -q -- "--interval" "$T/b.err"; then
	ok exitgroup_asm_told
else
	not_ok exitgroup_asm_told "rc $rc: $(cat "$T/b.err")"
fi

(cd "$T/c" && PROFDIR=$T/c "$MONRUN" --interval=1 "$T/ispin" asm "$T/ready" 2.5 >/dev/null \
    2>"$T/c.err")
n=$(ls "$T/c" | grep -c '\.i[0-9]')
last=$(ls "$T/c" | grep '\.i[0-9]' | sed 's/.*\.i0*\([0-9]*\)\..*/\1/' | sort -n | tail -n 1)
if [ "$n" -ge 1 ] && wait_said "$T/c.err" && grep -q "numbered $last is lost" "$T/c.err"; then
	ok exitgroup_asm_intervals
else
	not_ok exitgroup_asm_intervals "$n files (last $last): $(cat "$T/c.err")"
fi

(cd "$T/d" && "$MONRUN" "$T/ispin" exit "$T/ready" 0.1 >/dev/null 2>"$T/d.err")
rc=$?
sleep 0.5
if [ $rc -eq 0 ] && [ -s "$T/d/mon.out" ] && ! grep -q "ended without" "$T/d.err"; then
	ok exitgroup_normal_silent
else
	not_ok exitgroup_normal_silent "rc $rc: $(cat "$T/d.err")"
fi

# sh forks a subshell that loops (a file of its own), then kills itself.
(cd "$T/e" && PROFDIR=$T/e timeout 60 "$MONRUN" -f sh -c \
    '(i=0; while [ $i -lt 300000 ]; do i=$((i + 1)); done); kill -9 $$' >/dev/null 2>"$T/e.err") \
    2>/dev/null
rc=$?
kids=$(ls "$T/e" | grep -c '\.sh$')
if [ "$kids" -ge 1 ] && wait_said "$T/e.err"; then
	ok exitgroup_child_keeps_watch
else
	not_ok exitgroup_child_keeps_watch "rc $rc, $kids files of the child ($(ls "$T/e" | tr '\n' ' ')): $(cat "$T/e.err")"
fi
