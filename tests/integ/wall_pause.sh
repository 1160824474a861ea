#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# moncontrol(0) pauses the wall sampler as it pauses the CPU clocks
# (monitor(3)): tests/progs/wall_pause.c, linked with libmon, pauses for
# 2 * 300 ms between 300 ms before and 300 ms after, while a reader thread
# blocks in read(2) throughout, under monrun --wall=250.
#   wall_pause_none      no wall sample in during_pause (main sleeps there while
#                        paused); main's samples in before_pause and after_pause
#                        are there
#   wall_pause_expected  the reader's expected count leaves the pause out: within
#                        5 % + 5 rounds of (its life - the pause) * 250
#   wall_pause_flag      the WALL record is flagged paused (8)
# Mutation: mon_wall_pause a no-op (monitor.c's moncontrol not pausing the
# sampler) fails all three; the pauses left out of expected (mon_wall_put)
# fails wall_pause_expected.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wall_lib.inc"

build_wall_dump
build_prog pause wall_pause.c
timeout 60 "$B/bin/monrun" --wall=250 -o "$T/p.mon" "$T/pause" 300 >"$T/out" 2>"$T/err"
rc=$?
cat "$T/out" "$T/err"
[ $rc -eq 0 ] || not_ok wall_pause_run "exit $rc"
wall_dump "$T/p.mon" "$T/pause" >"$T/wall.txt" 2>&1
grep -v '^sample' "$T/wall.txt" | head -n 8
r=$(awk 'FNR == NR { v[$1] = $2; if ($1 == "reader") rt = $3; next }
$1 == "wall" { flags = $NF }
$1 == "thread" && $2 == rt { expct = $6 }
$1 == "sample" { if (index($NF, "during_pause")) d += $2; if (index($NF, "before_pause")) b += $2; if (index($NF, "after_pause")) a += $2 }
END {
	want = (v["reader_us"] - v["paused_us"]) * 250 / 1e6
	printf "# before %d during %d after %d; reader expected %d, want %.0f; flags %d\n", b, d, a, expct, want, flags
	ok1 = d == 0 && b >= 30 && a >= 30
	ok2 = expct - want <= 0.05 * want + 5 && want - expct <= 0.05 * want + 5
	ok3 = int(flags / 8) % 2 == 1
	print (ok1 ? "ok" : "bad") " " (ok2 ? "ok" : "bad") " " (ok3 ? "ok" : "bad")
}' "$T/out" "$T/wall.txt")
echo "$r" | grep '^#'
set -- $(echo "$r" | grep -v '^#')
if [ "${1:-}" = ok ]; then ok wall_pause_none
else wall_san_not_ok wall_pause_none "$(echo "$r" | grep '^#')" "the sanitizer's interceptors (nanosleep, read) are built with frame pointers, and a blocked thread's walk starts from the SP and PC /proc gives, without its frame pointer, so it ends in them"; fi
if [ "${2:-}" = ok ]; then ok wall_pause_expected; else not_ok wall_pause_expected "$(echo "$r" | grep '^#')"; fi
if [ "${3:-}" = ok ]; then ok wall_pause_flag; else not_ok wall_pause_flag "$(echo "$r" | grep '^#')"; fi
