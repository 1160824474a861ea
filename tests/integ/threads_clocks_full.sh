#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# More threads alive at once than the per-thread clocks' table holds
# (lib/threads.c MON_MAX_THREADS, 4096): tests/progs/threads_many.c with
# 4200 threads blocked in read(2), under monrun -c thread.  The threads
# started beyond the table have no clock; that was said nowhere.
#   clocks_full_run        exit 0, 4200 threads started and joined
#   clocks_full_warned     prof -s warns (clocks-full) and names the itimer clock
#   clocks_room_quiet      1000 threads: no such warning
#   clocks_full_itimer     4200 threads under -c itimer (one process-wide
#                          clock, no table): no such warning
# Mutations: threads.c's arm() not noting it (mon_clock_note_clocks_full
# removed): clocks_full_warned fails.  threads_many's wait for every thread
# to enter its routine removed, built with ASan, two busy loops on the two
# cores: the profile warned in 0 of 6 runs (6 of 6 with the wait).
. "$(dirname "$0")/lib.sh"

# threads_many says "alive" once every thread has entered its routine, so
# past libmon's start wrapper, which armed its clock (or noted the table
# full) first: 4200 threads alive at once however slowly they start.  (It
# once said so when pthread_create had returned 4200 times: an ASan-built
# program on two busy cores had 1996 to 3784 threads in their routine when
# the pipe closed, the table never filled, and clocks_full_warned failed;
# each thread had been armed as it started, none went without a clock.)
$CC -O2 -g -o "$T/many" "$ROOT/tests/progs/threads_many.c" -lpthread
# run NAME CLOCK THREADS: the profile $T/NAME.mon, prof -s in $T/NAME.prof
run() {
	timeout 120 "$B/bin/monrun" -c "$2" -o "$T/$1.mon" "$T/many" "$3" 300 >"$T/$1.out" 2>"$T/$1.err"
	rc=$?
	cat "$T/$1.out" "$T/$1.err"
	"$B/bin/prof" -s "$T/$1.mon" >"$T/$1.prof" 2>&1
}
run full thread 4200
if [ $rc -eq 0 ] && grep -qx 'joined 4200' "$T/full.out"; then
	ok clocks_full_run
else
	not_ok clocks_full_run "exit $rc, $(tail -n 1 "$T/full.out")"
fi
w=$(grep 'more threads were alive at once than the runtime' "$T/full.prof")
if [ -n "$w" ] && printf '%s\n' "$w" | grep -q 'monrun -c itimer'; then
	ok clocks_full_warned
else
	not_ok clocks_full_warned "no clocks-full warning naming the itimer clock: $(grep warning "$T/full.prof" | head -n 3)"
fi
run room thread 1000
if [ $rc -eq 0 ] && ! grep -q 'per-thread clocks hold' "$T/room.prof"; then
	ok clocks_room_quiet
else
	not_ok clocks_room_quiet "exit $rc: $(grep 'per-thread clocks hold' "$T/room.prof")"
fi
run itimer itimer 4200
if [ $rc -eq 0 ] && ! grep -q 'per-thread clocks hold' "$T/itimer.prof"; then
	ok clocks_full_itimer
else
	not_ok clocks_full_itimer "exit $rc: $(grep 'per-thread clocks hold' "$T/itimer.prof")"
fi
