#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# prof on the gmon.out of the C library's own profiler (gcc -pg, no libmon):
# the same flat profile as GNU gprof -p; exact call counts; time shares of
# the three workers within binomial bounds; a static function keeps its own
# time, and -l (globals only) never gives it to the global below it, which
# does not cover it: it is a row of its own, hidden's unwind (FDE) range.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
command -v gprof >/dev/null || { echo "gprof missing"; exit 77; }

H=37 S=23 L=41 UNIT=5000000
cd "$T" || exit 1
if ! $CC -O1 -g -pg -o gw "$ROOT/tests/progs/prof_work.c" || ! ./gw $H $S $L $UNIT >/dev/null ||
   [ ! -s gmon.out ]; then
	not_ok gmon_build_and_run "no gmon.out"
	exit 1
fi

"$PROF" -h gw >prof.txt 2>prof.err; rc=$?
check gmon_exit_0 [ "$rc" -eq 0 ]
gprof -p -b gw gmon.out >gprof.txt 2>/dev/null

# gprof's rows: "%time cum self [calls self/call total/call] name".
awk 'NF == 7 && $1 ~ /^[0-9.]+$/ { print $7, $3, $4 }
     NF == 4 && $1 ~ /^[0-9.]+$/ { print $4, $3, 0 }' gprof.txt | sort >gprof.rows
# prof's rows: "%Time Seconds Cumsecs [#Calls msec/call] Name".
awk 'NF == 6 { print $6, $2, $4 } NF == 4 { print $4, $2, 0 }' prof.txt | sort >prof.rows
if [ ! -s gprof.rows ]; then
	not_ok gmon_matches_gprof "gprof printed no rows"
else
	missing= differ=
	while read -r name sec calls; do
		line=$(awk -v n="$name" '$1 == n' prof.rows)
		if [ -z "$line" ]; then missing="$missing $name"; continue; fi
		set -- $line
		awk -v a="$sec" -v b="$2" 'BEGIN { d = a - b; exit !(d < 0.0101 && d > -0.0101) }' ||
			differ="$differ $name:seconds($sec/$2)"
		[ "$calls" = "$3" ] || differ="$differ $name:calls($calls/$3)"
	done <gprof.rows
	extra=$(awk '$1 !~ /^\[/ { print $1 }' prof.rows | while read -r n; do
		grep -q "^$n " gprof.rows || echo "$n"; done)
	if [ -n "$missing$differ$extra" ]; then
		not_ok gmon_matches_gprof "missing:$missing differ:$differ extra: $extra"
	else
		ok gmon_matches_gprof
	fi
fi

"$PROF" --format=csv gw >prof.csv
for f in heavy:$H hidden:$S light:$L; do
	n=${f%%:*} want=${f#*:}
	got=$(csv_field prof.csv "$n" 9)
	if [ "$got" = "$want" ]; then ok "gmon_calls_$n"; else not_ok "gmon_calls_$n" "$got != $want"; fi
done

# Shares: work units 3H : 2S : L.
th=$(csv_field prof.csv heavy 8) ts=$(csv_field prof.csv hidden 8) tl=$(csv_field prof.csv light 8)
n=$(awk -v a="$th" -v b="$ts" -v c="$tl" 'BEGIN { printf "%d", a + b + c + 0.5 }')
w=$((3 * H + 2 * S + L))
if [ "$n" -lt 50 ]; then
	not_ok gmon_shares "only $n samples"
else
	bad=
	binom_ok "$th" "$n" "$(awk -v x=$((3 * H)) -v w=$w 'BEGIN{print x/w}')" || bad="$bad heavy=$th"
	binom_ok "$ts" "$n" "$(awk -v x=$((2 * S)) -v w=$w 'BEGIN{print x/w}')" || bad="$bad hidden=$ts"
	binom_ok "$tl" "$n" "$(awk -v x=$L -v w=$w 'BEGIN{print x/w}')" || bad="$bad light=$tl"
	if [ -z "$bad" ]; then ok gmon_shares_static_keeps_its_time
	else not_ok gmon_shares_static_keeps_its_time "n=$n:$bad"; fi
fi

# -l: globals only.  hidden's time stays on a row at hidden's address (of
# kind "unwind": its FDE range), and the global just below it keeps only its
# own time: a symbol's st_size bounds it.
below=$(nm -n gw | awk -v a="$(nm gw | awk '$3 == "hidden" { print $1 }')" \
	'$1 < a && ($2 == "T" || $2 == "W") { s = $3 } $1 == a { print s; exit }')
"$PROF" -l --format=csv gw >profl.csv
tb=$(csv_field prof.csv "$below" 8) tbl=$(csv_field profl.csv "$below" 8)
hx=$(printf '%#x' "$(nm_addr gw hidden)")
th_l=$(csv_awk -F, -v a="$hx" '$4 == a && $2 == "unwind" { print $8 }' profl.csv)
if [ -n "$(csv_field profl.csv hidden 1)" ]; then
	not_ok gmon_l_drops_locals "hidden still listed with -l"
elif [ "${tb:-0}" != "${tbl:-0}" ] && [ "${tb:-0.000}" != "${tbl:-0.000}" ]; then
	not_ok gmon_l_drops_locals "below=$below: $tb without -l, $tbl with -l"
elif ! awk -v a="${th_l:-x}" -v b="$ts" 'BEGIN { d = a - b; exit !(a != "x" && d < 0.01 && d > -0.01) }'; then
	not_ok gmon_l_drops_locals "hidden's range at $hx has ${th_l:-no row}, hidden had $ts"
else
	ok gmon_l_drops_locals
fi
