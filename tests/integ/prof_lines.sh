#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# prof --lines and --annotate, from the program's DWARF (libdw):
#  - rows are source lines, "file.c:123 function"; a sample in inlined code
#    names the inlined function and its line (prof_work.c's chain() is
#    always_inline: its loop line holds nearly all samples, under chain's
#    name, not under heavy/hidden/light), and the samples add up to the
#    flat profile's;
#  - every format: the flame graph's frames are lines too, the inlined
#    chain one level above the line of heavy that called it;
#  - --annotate=heavy: heavy's source (found through DWARF's compilation
#    directory: the program is built from a relative path in the scratch
#    directory), its samples at the line of the call to chain, adding up to
#    heavy's row of the flat profile, percents adding up to 100; whole
#    counts without decimals ("259 samples ... of all 460", not "259.00",
#    a new user's finding);
#  - the source gone: the disassembly (Capstone), the same samples over
#    heavy's instructions;
#  - a function the profile does not have: exit 1, one line.
# Twice (export_modes): on a real profile with the runtime's call stacks
# (a sample's leaf is its exact PC, so chain's loop splits between the
# loop's two lines, the body and the for's increment and test, as the
# instructions do) and on a flat-only one (MONPROF_STACK_DEPTH=0: the
# histogram's bins).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
export_modes
cd "$T" || exit 1
cp "$ROOT/tests/progs/prof_work.c" . || exit 1
build_prog mw ./prof_work.c -pg || { not_ok lines_build; exit 1; }
mode_run ./mw 37 23 41 2000000 >/dev/null
[ -s mon.out ] || { not_ok lines_mon_out "no mon.out written"; exit 1; }
loop=$(grep -n '6364136223846793005UL' prof_work.c | cut -d: -f1)
for=$(grep -n 'for (unsigned long i = 0; i < n; i++)' prof_work.c | cut -d: -f1)
call=$(grep -n 'sink += chain(3 \* unit);' prof_work.c | cut -d: -f1)
"$PROF" --format=csv ./mw >flat.csv 2>/dev/null
stacks_said flat.csv || { not_ok lines_stacks_mode "$EXPORT_MODE: $(head -n 1 flat.csv)"; exit 1; }
"$PROF" --lines --format=csv ./mw >lines.csv 2>l.err
rc=$?

# Rows of the program: all "prof_work.c:N name" where they have samples or
# calls (a row of inclusive time only, such as _start of crt1.o, which has
# no DWARF, keeps its symbol's name); chain's loop lines (the for and its
# body) hold at least 90 % of heavy + hidden + light, no line of those
# three more than 10 %; totals agree.
bad=$(csv_awk -F, -v loop="$loop" -v fl="$for" '
	FILENAME == "flat.csv" { if (FNR > 1) { tf += $8; if ($1 ~ /^(heavy|hidden|light)$/) w += $8 }; next }
	FNR > 1 { tl += $8
		if ($3 == "./mw" && ($8 > 0 || $9 > 0) && $1 !~ /^prof_work\.c:[0-9]+ [A-Za-z_]+$/) printf "row %s; ", $1
		if ($1 == "prof_work.c:" loop " chain" || $1 == "prof_work.c:" fl " chain") c += $8
		if ($1 ~ /^prof_work\.c:[0-9]+ (heavy|hidden|light)$/ && $8 > 0.1 * w) printf "%s has %s; ", $1, $8 }
	END { if (c < 0.9 * w) printf "chain at %s and %s: %s of %s; ", fl, loop, c, w
		d = tl - tf; if (d < 0) d = -d; if (d > 0.01) printf "totals %s vs %s; ", tl, tf }' flat.csv lines.csv || echo "awk failed")
[ $rc -eq 0 ] && only_warnings l.err && [ -z "$bad" ] && ok lines_rows_inlined ||
	agree_not_ok lines_rows_inlined "exit $rc; $bad $(head -c 200 l.err)"

# The flame graph of the same: the frames "prof_work.c:FOR chain" and
# "prof_work.c:LOOP chain" on "prof_work.c:CALL heavy" stand 16 pixels
# above it, inside its x range, together within 10 % of its width.  "Inside"
# within what the SVG's two decimals round away: 0.005 for each number
# printed (a frame's x plus width against heavy's: up to 0.02, and the sum
# of two doubles; 520.58 + 156.58 against 10.00 + 667.15 failed at 0.01).
"$PROF" --lines --format=flame ./mw >f.svg 2>/dev/null
frame() { sed -n "s/.*<title>prof_work\.c:$1 ([^<]*<\/title><rect x=\"\([0-9.]*\)\" y=\"\([0-9]*\)\" width=\"\([0-9.]*\)\".*/\1 \2 \3/p" f.svg; }
h=$(frame "$call heavy" | head -n 1)
c=$( (frame "$for chain"; frame "$loop chain") | tr '\n' ' ')
awk -v h="$h" -v c="$c" 'BEGIN { split(h, a, " "); n = split(c, b, " ")
	for (i = 1; i + 2 <= n; i += 3)
		if (b[i + 1] == a[2] - 16 && b[i] >= a[1] - 0.015 && b[i] + b[i + 2] <= a[1] + a[3] + 0.025) w += b[i + 2]
	exit !(h != "" && w > 0 && (a[3] - w) / a[3] < 0.1) }' &&
	ok lines_flame || not_ok lines_flame "heavy '$h', chain '$c'"

# --annotate=heavy with the source.
"$PROF" --annotate=heavy ./mw >a.txt 2>a.err
rc=$?
want=$(csv_field flat.csv heavy 8)
if [ $rc -eq 0 ] && only_warnings a.err &&
   head -n 1 a.txt | grep -q "^heavy: [0-9.]* samples, [0-9.]*% of all [0-9.]*, .*; source $T/prof_work.c$" &&
   ! grep -q '^heavy: [0-9]*\.00 samples\|of all [0-9]*\.00,\|^ *[0-9][0-9]*\.00 ' a.txt &&
   awk -v want="$want" -v call="$call" 'NR == 1 { n = $2 + 0 } NR > 2 && $1 != "." { s += $1; p += $2 + 0; if ($3 == call) at = $1 }
	END { d = n - want; e = s - want; f = p - 100
		exit !(d * d < 1e-4 && e * e < 1e-4 && f * f < 0.01 && at >= 0.9 * want) }' a.txt &&
   grep -q "^ *[0-9.]* *[0-9.]*% *$call  	sink += chain(3 \* unit);$" a.txt
then ok annotate_source
else not_ok annotate_source "exit $rc; heavy $want; $(head -n 12 a.txt | tr '\n' '|')"; fi

# Without the source: the disassembly, the same samples over instructions.
mv prof_work.c prof_work.c.gone
"$PROF" --annotate=heavy ./mw >d.txt 2>d.err
rc=$?
if [ $rc -eq 0 ] && head -n 1 d.txt | grep -q '(not found)$' &&
   sed -n 2p d.txt | grep -q 'disassembly: no source' &&
   grep -Eq '^ +\. +\. +[0-9a-f]+:  (push|endbr64|mov|sub) ' d.txt &&
   awk -v want="$want" 'NR > 2 && $1 != "." { s += $1; n++ } END { e = s - want; exit !(n >= 1 && e * e < 1e-4) }' d.txt
then ok annotate_disassembly
else not_ok annotate_disassembly "exit $rc; $(head -n 6 d.txt | tr '\n' '|') $(head -c 200 d.err)"; fi
mv prof_work.c.gone prof_work.c

# The exports name the source file DWARF gives: callgrind's fl= lines (and
# callgrind_annotate's file:function), pprof's Function.filename (go tool
# pprof -list says where the routine is; rows are "prof_work.c:30 heavy").
"$PROF" --lines --format=callgrind ./mw >cg.out 2>/dev/null
if grep -Eq "^fl=\([0-9]+\) $T/prof_work\.c$" cg.out &&
   { ! command -v callgrind_annotate >/dev/null 2>&1 ||
     callgrind_annotate cg.out 2>/dev/null | grep -q "$T/prof_work\.c:prof_work\.c:[0-9]* chain"; }
then ok lines_callgrind_files
else not_ok lines_callgrind_files "$(grep -E '^(fl|fi|fe)=' cg.out | head -n 5 | tr '\n' ' ')"; fi
if command -v go >/dev/null 2>&1; then
	"$PROF" --lines --format=pprof ./mw >l.pb.gz 2>/dev/null
	HOME=$T GOCACHE=$T/gocache go tool pprof -list ' heavy$' l.pb.gz >gl.txt 2>/dev/null
	grep -q "ROUTINE .* heavy in $T/prof_work\.c$" gl.txt && ok lines_pprof_files ||
		not_ok lines_pprof_files "$(head -n 3 gl.txt | tr '\n' ' ')"
else
	ok "lines_pprof_files # skip go absent (Debian: golang-go)"
fi

ole_real_run=1
one_line_error annotate_unknown 1 "^prof: --annotate=nosuch: no function of that name in the profile$" \
	"$PROF" --annotate=nosuch ./mw
