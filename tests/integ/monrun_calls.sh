#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# monrun on a program built with -pg or -finstrument-functions but NOT
# linked with libmon: the preloaded libmon takes the instrumentation over
# (mcount, __monstartup, __cyg_profile_func_enter), so the report has the
# exact call counts too, and the C library's profiler writes no gmon.out.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"
cd "$T" || exit 1
H=37 S=23 L=41 UNIT=200000
for mode in pg fi; do
	case $mode in
	pg) build_plain w_$mode prof_work.c -pg ;;
	fi) build_plain w_$mode prof_work.c -finstrument-functions ;;
	esac || { not_ok "monrun_calls_${mode}_build"; continue; }
	if readelf -d "$T/w_$mode" | grep -q 'NEEDED.*libmon'; then
		not_ok "monrun_calls_${mode}_not_linked_with_libmon"
	fi
	mkdir "$mode" && cd "$mode" || exit 1
	"$MONRUN" "../w_$mode" $H $S $L $UNIT >/dev/null 2>err; rc=$?
	[ $rc -eq 0 ] && ok "monrun_calls_${mode}_exit_0" || not_ok "monrun_calls_${mode}_exit_0" "$rc: $(cat err)"
	[ -e gmon.out ] && not_ok "monrun_calls_${mode}_no_gmon_out" || ok "monrun_calls_${mode}_no_gmon_out"
	"$PROF" -m mon.out --format=csv "../w_$mode" >p.csv 2>p.err || not_ok "monrun_calls_${mode}_prof" "$(cat p.err)"
	for f in heavy:$H hidden:$S light:$L; do
		n=${f%%:*} want=${f#*:}
		got=$(csv_field p.csv "$n" 9)
		[ "$got" = "$want" ] && ok "monrun_calls_${mode}_$n" || not_ok "monrun_calls_${mode}_$n" "$got != $want"
	done
	cd "$T" || exit 1
done
