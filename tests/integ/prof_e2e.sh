#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# End to end: cc -pg prog.c -lmon writes ./mon.out; prof reads it against the
# (position-independent) program: exact call counts, time shares within
# binomial bounds, -z, and -m summing two real runs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
cd "$T" || exit 1
H=37 S=23 L=41 UNIT=2000000
build_prog mw prof_work.c -pg || { not_ok e2e_build; exit 1; }
./mw $H $S $L $UNIT >/dev/null
if [ ! -s mon.out ]; then not_ok e2e_mon_out "no mon.out written"; exit 1; fi
[ -e gmon.out ] && not_ok e2e_no_gmon_out || ok e2e_no_gmon_out
mv mon.out run1.mon
"$PROF" -m run1.mon --format=csv >p.csv 2>p.err || not_ok e2e_prof "$(cat p.err)"
for f in heavy:$H hidden:$S light:$L; do
	n=${f%%:*} want=${f#*:}
	got=$(csv_field p.csv "$n" 9)
	[ "$got" = "$want" ] && ok "e2e_calls_$n" || not_ok "e2e_calls_$n" "$got != $want"
done
th=$(csv_field p.csv heavy 8) ts=$(csv_field p.csv hidden 8) tl=$(csv_field p.csv light 8)
n=$(awk -v a="$th" -v b="$ts" -v c="$tl" 'BEGIN { printf "%d", a + b + c + 0.5 }')
w=$((3 * H + 2 * S + L))
bad=
binom_ok "$th" "$n" "$(awk -v x=$((3 * H)) -v w=$w 'BEGIN{print x/w}')" || bad="$bad heavy=$th"
binom_ok "$ts" "$n" "$(awk -v x=$((2 * S)) -v w=$w 'BEGIN{print x/w}')" || bad="$bad hidden=$ts"
binom_ok "$tl" "$n" "$(awk -v x=$L -v w=$w 'BEGIN{print x/w}')" || bad="$bad light=$tl"
if [ "$n" -ge 100 ] && [ -z "$bad" ]; then ok e2e_shares
else not_ok e2e_shares "n=$n$bad"; fi
if [ -z "$(csv_field p.csv never 1)" ] && "$PROF" -z -h -m run1.mon | grep -q ' never$'; then
	ok e2e_zero_rows
else not_ok e2e_zero_rows; fi
./mw 2 3 4 1000 >/dev/null && mv mon.out run2.mon
"$PROF" -m run1.mon -m run2.mon --format=csv >s.csv
[ "$(csv_field s.csv heavy 9)" = $((H + 2)) ] && [ "$(csv_field s.csv light 9)" = $((L + 4)) ] &&
	ok e2e_m_sums || not_ok e2e_m_sums "$(cat s.csv)"

# A call count of 8 digits or more keeps its own column: fib(36) built -O2
# makes F(37) = 24157817 calls of fib (gcc turns one of the two recursive
# calls into a loop), and every text row still has six fields.
$CC -O2 -pg -o fib "$ROOT/bench/fib.c" -L"$B/lib" -Wl,-rpath,"$B/lib" -lmon 2>/dev/null ||
	not_ok e2e_fib_build
# (MONPROF_STACK_DEPTH=0: the flat profile's six columns; with call stacks
# prof adds the inclusive ones.)
rm -f mon.out && MONPROF_STACK_DEPTH=0 ./fib 36 >/dev/null
line=$("$PROF" ./fib 2>/dev/null | awk '$NF == "fib"')
calls=$(printf '%s\n' "$line" | awk '{ print $4 }')
# (Without that loop, as under make check-sanitize's ASan, 2 F(37) - 1 =
# 48315633: still 8 digits.)
if [ "$(printf '%s\n' "$line" | awk '{ print NF }')" = 6 ] &&
   { [ "$calls" = 24157817 ] || [ "$calls" = 48315633 ]; }; then
	ok e2e_wide_call_count_column
else
	not_ok e2e_wide_call_count_column "row: $line"
fi
