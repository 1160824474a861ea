#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Call counting: cc -pg and cc -finstrument-functions drive libmon (shared and
# static), counts are exact also under 8 threads, arcs are recorded, the
# C library's gmon.out never appears, floating-point arguments survive mcount.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mon_helpers.inc"
build_dump || { not_ok build_dump; exit 1; }
cd "$T" || exit 1
unset PROFDIR

build_prog pg mon_calls.c -pg || not_ok build_pg
build_prog fi mon_calls.c -finstrument-functions || not_ok build_fi
build_prog_static pgs mon_calls.c -pg || not_ok build_pg_static
build_prog_static fis mon_calls.c -finstrument-functions || not_ok build_fi_static
build_prog fen mon_calls.c -pg -mfentry || not_ok build_fentry

for p in pg fi pgs fis fen; do
	rm -f mon.out gmon.out
	./$p 1234 0 0; rc=$?
	expect "$p: exit status 0" "$rc" 0
	[ -f mon.out ] && ok "$p: mon.out written at exit" || not_ok "$p: mon.out written at exit"
	[ ! -e gmon.out ] && ok "$p: no gmon.out" || not_ok "$p: no gmon.out"
	expect "$p: leaf called 1234 times" "$(dump mon.out calls leaf $p)" 1234
	expect "$p: leaf2 called 1234 times" "$(dump mon.out calls leaf2 $p)" 1234
	# leaf2 has two call sites (odd and even i): two arcs, 1234 calls in all.
	expect "$p: arcs into leaf2" "$(dump mon.out arcs leaf2 $p)" "1234 2"
	expect "$p: spin called once" "$(dump mon.out calls spin $p)" 1
	# Whole-process histograms: one for every loaded object with code (the
	# program, libmon, libc, the loader, the vDSO), the program's among them.
	expect "$p: a histogram per loaded object" "$(info mon.out hists)" "$(info mon.out objects)"
	expect "$p: the program has a histogram" \
	    "$("$T/mon_dump" mon.out info | grep -c '^hist .* object 0$')" 1
done

# 8 threads: exactly 8N calls (the C library's mcount loses concurrent ones).
for p in pg fi; do
	rm -f mon.out
	./$p 200000 8 0; rc=$?
	expect "$p 8 threads: exit 0" "$rc" 0
	expect "$p 8 threads: leaf exactly 8N" "$(dump mon.out calls leaf $p)" 1600000
	expect "$p 8 threads: leaf2 exactly 8N" "$(dump mon.out calls leaf2 $p)" 1600000
	expect "$p 8 threads: arcs into leaf2" "$(dump mon.out arcs leaf2 $p)" "1600000 2"
done

# Samples: spin() burns about a second of CPU; nearly all ticks land in it.
rm -f mon.out
./pg 10 0 200000000
set -- $(dump mon.out ticks spin pg)
in=${1:-0} all=${2:-0} samples=$(info mon.out samples)
if [ "$all" -ge 100 ] && [ $((in * 10)) -ge $((all * 8)) ]; then
	ok "pg: ticks in spin ($in of $all)"
else
	not_ok "pg: ticks in spin" "$in of $all"
fi
[ "$all" -le "$samples" ] && ok "pg: ticks <= samples" || not_ok "pg: ticks <= samples" "$all > $samples"
