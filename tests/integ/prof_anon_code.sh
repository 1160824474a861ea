#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Samples in code of no object when they were taken (mon.out(5) PCS, and
# stack frames flagged JIT) at addresses where the file lists an object
# loaded later: the first instructions of a library's _init, sampled while
# dlopen loads it and before the runtime knows it (a proof run's file had
# one).  prof reads them as that object's code, by address, once, in the
# flat profile and in the stacks alike, and prof --output keeps them so.
# Crafted files (tests/progs/prof_craft.c) over tests/progs/monrun_ctor.c
# and its library:
#   anon_counted_once   100 PCS ticks in ctor_spin (the library listed
#                       there) with 100 stacks of that PC flagged JIT, and
#                       100 of main_spin's: 200 ticks in all, ctor_spin's
#                       100, no [anon] row, the stacks "[jit];ctor_spin"
#                       (before: ctor_spin 100 by address and [anon] 100
#                       through the stacks, which resolved the frame by
#                       object set to prof's [anon] object: 300 ticks)
#   anon_saved_as_read  two files, the library at two load biases, the
#                       second with 30 such ticks: prof --output sums them
#                       (moving the PCS entries with their object) and the
#                       sum reads as the two files (CSV, folded), 150 ticks
#                       (before: 180, [anon] 30 and ctor_spin 30; and one
#                       file alone was refused: "samples ... lie where
#                       anon.mon has libmonrun_ctor.so")
# Mutations: objects_shared counting prof's [anon] objects (attribute.c)
# fails anon_counted_once; the PCS entries left unmoved (save.c) fails
# anon_saved_as_read.  Time limit: 60 s.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"
cd "$T" || exit 1

if ! build_so libmonrun_ctor.so monrun_ctor_lib.c ||
   ! build_plain ctor monrun_ctor.c -L"$T" -Wl,-rpath,"$T" -lmonrun_ctor -ldl ||
   ! build_prog_static craft prof_craft.c -I"$ROOT/format"; then
	not_ok anon_build
	exit 0
fi
text() { readelf -SW "$1" | awk '$2 == ".text" { print "0x" $4, "0x" $6 }'; }
set -- $(text "$T/ctor") $(text "$T/libmonrun_ctor.so")
mlo=$(($1)) mhi=$(($1 + $2)) llo=$(($3)) lhi=$(($3 + $4))
ms=$(nm "$T/ctor" | awk '$3 == "main_spin" { print "0x" $1 }')
cs=$(nm "$T/libmonrun_ctor.so" | awk '$3 == "ctor_spin" { print "0x" $1 }')
main_o="$T/ctor:0:$mlo:$mhi:1"
hist="$mlo:$mhi:0x8000:$(((mhi - mlo) / 4 + 1))"
bin=$(((ms - mlo) / 4 + 2))
total() { awk -F, 'NR > 1 { t += $8 } END { print t + 0 }' "$1"; }

lb=$((0x7f0000000000)) pc=$((0x7f0000000000 + cs + 8))
"$T/craft" anon.mon -o "$main_o" -o "$T/libmonrun_ctor.so:$lb:$((lb + llo)):$((lb + lhi)):0" -O 1 \
	-h "$hist" -b "$bin:100" -P "$pc:100" -k "100:100:2:$pc" -E 1000000:1700000000:100 ||
	not_ok anon_craft
"$PROF" -m anon.mon --format=csv "$T/ctor" >one.csv 2>one.err
"$PROF" -m anon.mon --format=folded "$T/ctor" >one.folded 2>>one.err
if [ "$(total one.csv)" = 200 ] && [ "$(ticks one.csv ctor_spin)" = 100.000 ] &&
   [ "$(ticks one.csv main_spin)" = 100.000 ] && ! grep -q '^\[anon\],' one.csv &&
   grep -qx '\[jit\];ctor_spin 100' one.folded; then
	ok anon_counted_once
else
	not_ok anon_counted_once "$(total one.csv) ticks for 200 samples: $(tr '\n' ' ' <one.csv | head -c 300); folded: $(tr '\n' ' ' <one.folded)"
fi

mkdir -p dd
lb1=$((0x7f0000000000)) lb2=$((0x7f1000000000))
"$T/craft" dd/a.mon -o "$main_o" -o "$T/libmonrun_ctor.so:$lb1:$((lb1 + llo)):$((lb1 + lhi)):0" -O 1 \
	-h "$hist" -b "$bin:50" -E 1000000:1700000000:100 || not_ok anon_craft_a
pc=$((lb2 + cs + 8))
"$T/craft" dd/b.mon -o "$main_o" -o "$T/libmonrun_ctor.so:$lb2:$((lb2 + llo)):$((lb2 + lhi)):0" -O 1 \
	-h "$hist" -b "$bin:70" -P "$pc:30" -k "30:100:2:$pc" -E 1000000:1700000000:100 ||
	not_ok anon_craft_b
"$PROF" --output=m.mon dd >save.out 2>save.err; rc=$?
same=1
for o in --format=csv --format=folded; do
	"$PROF" "$o" "$T/ctor" dd/a.mon dd/b.mon >a.txt 2>/dev/null
	"$PROF" "$o" -m m.mon "$T/ctor" >b.txt 2>/dev/null
	cmp -s a.txt b.txt || same=0
	[ "$o" = --format=csv ] && cp b.txt m.csv
done
if [ $rc = 0 ] && [ $same = 1 ] && [ "$(total m.csv)" = 150 ] && [ "$(ticks m.csv ctor_spin)" = 30.000 ]; then
	ok anon_saved_as_read
else
	not_ok anon_saved_as_read "exit $rc: $(head -c 200 save.err); same $same; merged: $(tr '\n' ' ' <m.csv | head -c 300)"
fi
