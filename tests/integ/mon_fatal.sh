#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The profile is written on abort(), SIGTERM, SIGSEGV and on the snapshot
# signal; the exit status is what it would have been; a program's own
# handler is left alone.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mon_helpers.inc"
build_dump || { not_ok build_dump; exit 1; }
cd "$T" || exit 1
unset PROFDIR
build_prog prog mon_fatal.c -pg || not_ok build_pg
$CC -O1 -g -pg -o plain "$ROOT/tests/progs/mon_fatal.c" || not_ok build_plain

# Under make check-sanitize ASan's own SIGSEGV handler would make SIGSEGV
# one the program handles, which libmon leaves alone (fatal.c); these checks
# are about a program that does not handle it.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0"
# Exit statuses without libmon, for comparison (glibc's -pg does not touch them).
for m in abort term segv overflow overflow_thread; do
	rm -f mon.out gmon.out
	sh -c "./plain $m" 2>/dev/null; want=$?
	sh -c "./prog $m" 2>/dev/null; got=$?
	expect "$m: same exit status as without libmon ($want)" "$got" "$want"
	dump mon.out check >/dev/null && ok "$m: complete mon.out" || not_ok "$m: complete mon.out" "$(dump mon.out check)"
	expect "$m: leaf counted" "$(dump mon.out calls leaf prog)" 1234
	expect "$m: written from a signal" "$(info mon.out reason)" 4
done
expect "abort: signal recorded" "$(info mon.out signal)" 11
rm -f mon.out
sh -c "./prog abort" 2>/dev/null
expect "abort: SIGABRT recorded" "$(info mon.out signal)" 6

rm -f mon.out snap.out
MONPROF_SNAPSHOT=USR2 ./prog snapshot; rc=$?
expect "snapshot: program goes on to exit 7" "$rc" 7
expect "snapshot: file at the signal" "$(dump snap.out calls leaf prog)" 1234
expect "snapshot: flagged as a snapshot" "$(info snap.out reason)" 3
expect "snapshot: final file has the later calls" "$(dump mon.out calls leaf prog)" 1334
rm -f mon.out snap.out
sh -c "./prog snapshot" 2>/dev/null; rc=$?
expect "no MONPROF_SNAPSHOT: SIGUSR2 kills as before" "$rc" $((128 + 12))

rm -f mon.out
./prog handled; rc=$?
expect "program's own SIGTERM handler runs" "$rc" 9

# The alternate stack the fatal handlers run on (a stack overflow writes
# the profile, above) is not the program's to see: sigaltstack(2) answers
# as without libmon, in the main thread and in another.
./plain altstack >alt.want 2>&1
./prog altstack >alt.got 2>&1
expect "altstack: the program's view as without libmon" "$(cat alt.got)" "$(cat alt.want)"
