#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A program rebuilt between the run and the report (issue 23): without a
# build ID (-Wl,--build-id=none) the runtime records the file's size, its
# modification time and the CRC of the code that ran (mon.out(5), FILES);
# prof then refuses a rebuilt program as it refuses a build-ID mismatch (the
# same exit status, one line naming both sizes and times), warns about a
# rebuilt shared object and shows its samples as [object]+offset, and reads
# a file whose code did not change (touched, copied) as before.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
cd "$T" || exit 1
SRC=$ROOT/tests/progs/prof_rebuilt.c

# The exit status of a build-ID mismatch, for comparison.
$CC -O1 -o bid "$SRC" -Wl,--build-id || { not_ok build_bid; exit 1; }
"$B/bin/monrun" -o bid.mon ./bid >/dev/null 2>&1
$CC -O1 -DFRONT -o bid "$SRC" -Wl,--build-id || not_ok rebuild_bid
"$PROF" -m bid.mon bid >/dev/null 2>bid.err
want=$?
[ "$want" -ne 0 ] && grep -q 'build ID' bid.err && ok build_id_mismatch_refused ||
	not_ok build_id_mismatch_refused "exit $want: $(cat bid.err)"

$CC -O1 -o prog "$SRC" -Wl,--build-id=none || { not_ok build_none; exit 1; }
[ -z "$(build_id prog)" ] || not_ok no_build_id "prog has one: $(build_id prog)"
"$B/bin/monrun" -o p.mon ./prog >/dev/null 2>p.run || not_ok run_none "$(cat p.run)"
"$PROF" -m p.mon --format=csv prog >p.csv 2>p.err
[ "$(sed -n 2p p.csv | cut -d, -f1)" = work ] && only_warnings p.err && ok unchanged_read ||
	not_ok unchanged_read "$(head -3 p.csv; cat p.err)"
# Touched and copied elsewhere: a new time, the same code: read as before.
sleep 1; touch prog; mkdir -p elsewhere && cp prog elsewhere/prog
"$PROF" -m p.mon --format=csv elsewhere/prog >t.csv 2>t.err
[ "$(sed -n 2p t.csv | cut -d, -f1)" = work ] && only_warnings t.err && ok same_code_read ||
	not_ok same_code_read "$(head -3 t.csv; cat t.err)"
# Rebuilt with new_front at the front: refused, as for a build-ID mismatch.
$CC -O1 -DFRONT -o prog "$SRC" -Wl,--build-id=none || not_ok rebuild_none
ole_real_run=1 one_line_error rebuilt_refused "$want" \
	'prof: .*prog: its code differs from the code that ran, recorded in p\.mon .*then: [0-9]+ bytes, modified .*; now: [0-9]+ bytes, modified .*not the program that was profiled' \
	"$PROF" -m p.mon prog

# A shared object without a build ID, rebuilt: warned about, its samples
# shown as [libw.so]+offset, the program's own rows kept.
$CC -O1 -DLIB -shared -fPIC -o libw.so "$SRC" -Wl,--build-id=none || { not_ok build_lib; exit 1; }
$CC -O1 -DUSE_LIB -o pl "$SRC" -L. -lw -Wl,-rpath,"$T" || { not_ok build_pl; exit 1; }
"$B/bin/monrun" -o l.mon ./pl >/dev/null 2>l.run || not_ok run_lib "$(cat l.run)"
"$PROF" -m l.mon --format=csv pl >l1.csv 2>/dev/null
[ -n "$(csv_field l1.csv lib_work 8)" ] && ok lib_named_before || not_ok lib_named_before "$(head -5 l1.csv)"
$CC -O1 -DLIB -DFRONT -shared -fPIC -o libw.so "$SRC" -Wl,--build-id=none || not_ok rebuild_lib
"$PROF" -m l.mon --format=csv pl >l2.csv 2>l2.err
rc=$?
if [ "$rc" -eq 0 ] && grep -q 'libw.so: its code differs from the code that ran' l2.err &&
   [ -z "$(csv_field l2.csv lib_work 1)" ] && [ -z "$(csv_field l2.csv new_front 1)" ] &&
   grep -q '^\[libw.so\]' l2.csv && [ -n "$(csv_field l2.csv work 8)" ]; then
	ok rebuilt_lib_warned
else
	not_ok rebuilt_lib_warned "exit $rc: $(cat l2.err; head -5 l2.csv)"
fi
