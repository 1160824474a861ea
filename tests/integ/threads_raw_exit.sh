#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A thread gone without its end recorded (tests/progs/threads_raw_exit.c:
# it ends by the raw exit system call, so no TSD destructor tells the
# runtime) is listed ended in the file written at exit, not alive: it was
# gone when that file was written.  The same check drops an entry the
# writer claimed for a live thread that then ended in an entry of its own
# (lib/runfacts.c's vanished_peek), the race the proof run's
# threads_churn_last_main hit once ("the last file lists 2 threads as
# alive").
#   raw_exit_run        exit 0, the thread's tid printed
#   raw_exit_ended      monrun, one file at exit: the thread's row is there,
#                       with samples, and ended (flag 1)
#   raw_exit_interval   monrun --interval=60 (the run is one interval, its
#                       file written at exit): the same
# Mutation: vanished_peek returning -1: both rows alive, both checks fail.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mon_helpers.inc"

build_dump
$CC -O2 -g -o "$T/raw" "$ROOT/tests/progs/threads_raw_exit.c" -lpthread

# row FILE TID: "SAMPLES FLAGS" of TID's row in FILE, empty when none
row() {
	"$T/mon_dump" "$1" info | awk -v t="$2" '$1 == "thread" && $2 == t { print $(NF - 2), $NF }'
}
# check NAME FILE: the rawexit thread's row has samples and is ended
check() {
	set -- "$1" "$2" $(row "$2" "$tid")
	if [ -n "$4" ] && [ "$3" -gt 0 ] && [ $(($4 % 2)) -eq 1 ]; then
		ok "$1"
	else
		not_ok "$1" "row of thread $tid: '${3:-none} ${4:-}' (samples, flags), want samples > 0 and flag 1 (ended)"
		"$T/mon_dump" "$2" info | grep '^thread'
	fi
}

timeout 60 "$B/bin/monrun" -o "$T/one.mon" "$T/raw" 100 >"$T/one.out" 2>"$T/one.err"
rc=$?
cat "$T/one.out" "$T/one.err"
tid=$(awk '$1 == "raw" { print $2 }' "$T/one.out")
if [ $rc -eq 0 ] && [ -n "$tid" ] && [ -s "$T/one.mon" ]; then
	ok raw_exit_run
else
	not_ok raw_exit_run "exit $rc, tid '${tid}'"
fi
check raw_exit_ended "$T/one.mon"

mkdir -p "$T/d"
PROFDIR=$T/d timeout 60 "$B/bin/monrun" --interval=60 "$T/raw" 100 >"$T/iv.out" 2>"$T/iv.err"
cat "$T/iv.out" "$T/iv.err"
tid=$(awk '$1 == "raw" { print $2 }' "$T/iv.out")
f=$(ls "$T/d" | grep '\.i[0-9]*\.' | head -n 1)
if [ -n "$f" ] && [ "$(ls "$T/d" | grep -c '\.i[0-9]*\.')" = 1 ]; then
	check raw_exit_interval "$T/d/$f"
else
	not_ok raw_exit_interval "files: $(ls "$T/d" | tr '\n' ' '), want one interval file"
fi
