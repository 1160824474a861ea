#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Wall-clock sampling without monrun (issue 20: MONPROF_WALL works for
# -pg and -finstrument-functions programs and monstartup()):
# tests/progs/wall_linked.c, whose napper thread sleeps 0.5 s in nap()
# while main spins in spin(), run with MONPROF_WALL=200 and no monrun.
#   wall_linked_KIND        the mon.out has a WALL record at 200 Hz; >= 90 %
#                           of the napper's blocked samples (>= 10) are in
#                           clock_nanosleep and >= 90 % reach nap (its stack walked
#                           from what /proc gives); main's are on a CPU
#                           (running or runnable: such a sample has no
#                           stack, prof shares it over the CPU stacks); and
#                           the CPU profile beside it has its ticks in spin
#     KIND: pg (-pg, libmon.so), pg_static (-pg -static, libmon.a),
#     instrument (-finstrument-functions), explicit (monstartup() called
#     by a program linked with -lmon)
#   wall_linked_prof        prof --sample=wall of the -pg run: the napper's
#                           time under nap, ending in its system call
#   wall_linked_off         MONPROF_WALL=0, and MONPROF_WALL unset: no WALL
#                           record, the CPU profile as before
# Mutation: wall_on() not called at the automatic start (monitor.c
# mon_auto_start) fails wall_linked_pg, _pg_static and _instrument; not
# called by monstartup() fails wall_linked_explicit.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wall_lib.inc"
build_wall_dump || { not_ok wall_linked_build; exit 1; }
cd "$T" || exit 1
unset PROFDIR MONPROF_WALL

# KIND: the run's file, its record as text, the checks.
linked_run() {
	k=$1 bin=$2 arg=$3 want=$4
	rm -f mon.out
	if [ "$want" = off ]; then
		timeout 60 env MONPROF_WALL=0 "./$bin" "$arg" >"$k.out" 2>"$k.err"
	elif [ "$want" = unset ]; then
		timeout 60 "./$bin" "$arg" >"$k.out" 2>"$k.err"
	else
		timeout 60 env MONPROF_WALL=200 "./$bin" "$arg" >"$k.out" 2>"$k.err"
	fi
	rc=$?
	cat "$k.err"
	[ -f mon.out ] && mv mon.out "$k.mon"
	wall_dump "$k.mon" "$bin" >"$k.wall" 2>&1
}
# The verdict of KIND's record: "ok ..." or what is wrong.
linked_verdict() {
	napper=$(awk '$1 == "napper" { print $2 }' "$1.out")
	awk -v napper="${napper:-none}" '
	$1 == "wall" { have = $2; rate = $4 }
	$1 == "sample" {
		if ($4 == napper && $6 != "running" && $6 != "runnable") {
			blocked += $2
			if ($8 == "clock_nanosleep" || $8 == "nanosleep") insleep += $2
			if ($NF ~ /(^|;)nap(;|$)/) reach += $2
		}
		if ($4 != napper && ($6 == "running" || $6 == "runnable")) spin += $2
	}
	END {
		bad = ""
		if (have != 1 || rate != 200) bad = " no WALL record at 200 Hz"
		if (blocked < 10) bad = bad " napper " napper ": " blocked + 0 " blocked samples"
		else {
			if (insleep < 0.9 * blocked) bad = bad sprintf(" %d of %d blocked samples in nanosleep", insleep, blocked)
			if (reach < 0.9 * blocked) bad = bad sprintf(" %d of %d reach nap", reach, blocked)
		}
		if (spin < 10) bad = bad " main: " spin + 0 " samples on a CPU"
		print bad == "" ? sprintf("ok napper %d blocked, %d reach nap; main %d on a CPU", blocked, reach, spin) : bad
	}' "$1.wall"
}
cpu_in_spin() {	# KIND BIN: "TICKS_IN_SPIN TICKS" of the CPU profile
	timeout 60 "$B/bin/prof" -m "$1.mon" --format=folded "$2" 2>/dev/null |
	    awk '{ n = $NF; all += n; if (index($0, "spin")) in_s += n } END { print in_s + 0, all + 0 }'
}

build_prog pg wall_linked.c -pg || not_ok wall_linked_build "-pg"
build_prog instrument wall_linked.c -finstrument-functions || not_ok wall_linked_build "-finstrument-functions"
build_prog explicit wall_linked.c -DEXPLICIT || not_ok wall_linked_build "monstartup"
kinds="pg instrument explicit"
case " $CC $* " in
*-fsanitize=*) echo "# pg_static left out: sanitizer runtimes cannot be linked statically" ;;
*)	if [ -f "$($CC -print-file-name=libc.a)" ] && build_prog_static pg_static wall_linked.c -pg -static; then
		kinds="$kinds pg_static"
	else
		echo "# pg_static left out: no static C library (libc6-dev's libc.a)"
	fi ;;
esac
for k in $kinds; do
	arg=auto
	[ $k = explicit ] && arg=explicit
	linked_run $k $k $arg on
	v=$(linked_verdict $k)
	set -- $(cpu_in_spin $k $k)
	echo "# $k: $v; CPU ticks in spin ${1:-0} of ${2:-0}"
	if [ $rc -ne 0 ]; then not_ok "wall_linked_$k" "exit $rc"
	elif [ "${v%% *}" != ok ]; then not_ok "wall_linked_$k" "$v"
	elif [ "${2:-0}" -lt 10 ] || [ $((${1:-0} * 10)) -lt $((${2:-0} * 8)) ]; then
		not_ok "wall_linked_$k" "CPU ticks in spin ${1:-0} of ${2:-0}"
	else ok "wall_linked_$k"; fi
done

# prof's wall view of the -pg run: the napper's samples under nap, in its call.
timeout 60 "$B/bin/prof" --sample=wall --format=folded -m pg.mon pg >pg.folded 2>pg.ferr
n=$(awk 'index($0, ";nap;") && (index($0, "[clock_nanosleep]") || index($0, "[nanosleep]")) { n += $NF }
	END { print n + 0 }' pg.folded)
if [ "$n" -ge 10 ]; then ok wall_linked_prof
else not_ok wall_linked_prof "$n samples under nap in nanosleep: $(grep nap pg.folded | head -n 3)"; fi

# Off: MONPROF_WALL=0, and unset.
bad=
for w in off unset; do
	linked_run pg_$w pg auto $w
	set -- $(cpu_in_spin pg_$w pg)
	if [ $rc -ne 0 ] || [ ! -f pg_$w.mon ]; then bad="$bad $w: exit $rc, file $(ls pg_$w.mon 2>&1)"
	elif ! grep -q '^wall 0 ' pg_$w.wall; then bad="$bad $w: a WALL record, or none read ($(head -n 1 pg_$w.wall))"
	elif [ "${2:-0}" -lt 10 ]; then bad="$bad $w: ${2:-0} CPU ticks"; fi
done
[ -z "$bad" ] && ok wall_linked_off || not_ok wall_linked_off "$bad"
