#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# prof on interval files written before each held its own interval's calls
# (INTERVAL without flag 4: CALLS and ARCS are the process's calls so far;
# mon.out.5, tools/prof/intervals.c).  Crafted series (tests/progs/
# prof_craft.c) of one process, pid 4242, of interval_calls built without
# PIE: image A, intervals 1-4 holding 100, 250, 600, 1000 calls of counted
# (from caller) so far, then an image it exec'd (same pid, a series of its
# own from 1): 7, 20.  So the run made 1000 + 20 calls:
#  - prof's report over the directory counts 1020 (mutation: no
#    differences, 1977), --from #2 --to #3 counts 150 + 350 + 13 = 513, and
#    --merge --output writes 1020 in CALLS and in ARCS;
#  - interval 3 without interval 2 beside it (removed by --keep): its calls
#    are left out with the warning interval-calls, interval 4 counts 400;
#  - a series with flag 4 is summed as it is: 100 + 150 = 250.
# (The runtime's own files: interval_calls.sh.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"
. "$(dirname "$0")/mon_helpers.inc"
PROF=$B/bin/prof
cd "$T" || exit 1

if build_plain icnp interval_calls.c -no-pie && build_prog_static craft prof_craft.c -I"$ROOT/format" &&
    build_dump; then
	ok interval_old_build
else
	not_ok interval_old_build
	exit 0
fi
counted=$(nm icnp | awk '$3 == "counted" { print "0x" $1 }')
caller=$(nm icnp | awk '$3 == "caller" { print "0x" $1 }')
lo=$(readelf -lW icnp | awk '$1 == "LOAD" && $8 == "E" { print $3; exit }')
sz=$(readelf -lW icnp | awk '$1 == "LOAD" && $8 == "E" { print $6; exit }')
text=$lo:$(printf '0x%x' $((lo + sz)))
SELF=$((counted + 4)) FROM=$((caller + 8))
T0=1764590000

old_series() {
	one "$1" 4242.icnp.i000001.20251201T120000Z 1 0 1 0 100 &&
	one "$1" 4242.icnp.i000002.20251201T120001Z 2 1 2 0 250 &&
	one "$1" 4242.icnp.i000003.20251201T120002Z 3 2 3 0 600 &&
	one "$1" 4242.icnp.i000004.20251201T120003Z 4 3 4 1 1000 &&
	one "$1" 4242.icnp.i000001.20251201T120005Z 1 5 6 0 7 &&
	one "$1" 4242.icnp.i000002.20251201T120006Z 2 6 7 1 20
}
# one DIR NAME SEQ START END FLAGS COUNT: a crafted interval file of
# pid 4242, from T0 + START to T0 + END seconds, COUNT calls caller ->
# counted.
one() {
	mkdir -p "$1" && ./craft "$1/$2" -o "$T/icnp:0:$text:1" -E 1000000:$((T0 + $5)):4242 \
	    -I "$3":$(((T0 + $4) * 1000000000)):$(((T0 + $5) * 1000000000)):"$6" \
	    -c $SELF:"$7" -A $FROM:$SELF:"$7" 2>>craft.err
}
if old_series old; then ok interval_old_craft; else not_ok interval_old_craft "$(cat craft.err)"; exit 0; fi

calls_of() { awk '$NF == "counted" { print $4; exit }' "$1"; }

"$PROF" ./icnp old >r.txt 2>r.err
expect interval_old_series "$(calls_of r.txt)" 1020
"$PROF" --from='#2' --to='#3' ./icnp old >w.txt 2>w.err
expect interval_old_window "$(calls_of w.txt)" 513
"$PROF" --output=m.mon old 2>m.err
expect interval_old_output "$(dump m.mon calls counted icnp) $(dump m.mon arcs counted icnp)" "1020 1020 1"
if grep -q interval-calls r.err w.err m.err || grep -q "left out" r.err m.err; then
	not_ok interval_old_no_warning "$(cat r.err w.err m.err)"
else
	ok interval_old_no_warning
fi

# Rotated: interval 2 of image A is gone.
mkdir -p rot && cp old/*.i000003.* old/*.i000004.* rot/
"$PROF" ./icnp rot >rot.txt 2>rot.err
if [ "$(calls_of rot.txt)" = 400 ] && grep -q "warning: rot/4242.icnp.i000003.*interval 2 of process 4242 is not beside it" rot.err &&
    [ "$(grep -c 'interval 2 of process' rot.err)" = 1 ]; then
	ok interval_old_missing_left_out
else
	not_ok interval_old_missing_left_out "calls $(calls_of rot.txt), want 400: $(cat rot.err)"
fi

# A series of today's files (flag 4): each file its own calls already.
one new 4242.icnp.i000001.20251201T120000Z 1 0 1 4 100 &&
one new 4242.icnp.i000002.20251201T120001Z 2 1 2 5 150
"$PROF" ./icnp new >n.txt 2>n.err
expect interval_own_calls_summed "$(calls_of n.txt)" 250
