#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# monitor(3) as the System V page uses it, on a PIE: the seed's whole-program
# idiom, the caller's buffer (header and cells), errors, moncontrol, repeated
# monitor() calls, more functions than cells.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mon_helpers.inc"
build_dump || { not_ok build_dump; exit 1; }
cd "$T" || exit 1
unset PROFDIR

# The seed's source compiles with the default gcc (warnings allowed: it
# declares "extern etext;").
build_prog seed mon_seed.c 2>/dev/null && ok "seed idiom compiles" || not_ok "seed idiom compiles"
build_prog seedpg mon_seed.c -pg 2>/dev/null || not_ok "build seed -pg"
file -L seed 2>/dev/null | grep -q 'pie executable' && ok "seed is a PIE" || not_ok "seed is a PIE"

rm -f mon.out
out=$(./seed seed)
echo "$out" | grep -qx lpc-ok && ok "seed: lowpc 2 became the text start" || not_ok "seed: lowpc" "$out"
[ -f mon.out ] && ok "seed: monitor(0) wrote mon.out" || not_ok "seed: monitor(0) wrote mon.out"
lo=$(dump mon.out info | awk '$1 == "hist" { print $2 }')
text=$(dump mon.out info | awk '$1 == "object" && $NF == 1 { print $2 }')
[ -n "$lo" ] && [ "$lo" != 2 ] && ok "seed: histogram starts at $lo" || not_ok "seed: histogram low" "$lo"
set -- $(dump mon.out ticks spin seed)
in=${1:-0} all=${2:-0}
if [ "$all" -ge 100 ] && [ $((in * 10)) -ge $((all * 8)) ]; then
	ok "seed: ticks in spin ($in of $all)"
else
	not_ok "seed: ticks in spin" "$in of $all"
fi

rm -f mon.out
out=$(./seedpg seed)
expect "seed -pg: leaf's cell in the caller's buffer" "$(echo "$out" | grep '^cell')" "cell 1234"
expect "seed -pg: leaf in the file" "$(dump mon.out calls leaf seedpg)" 1234

rm -f mon.out
expect "buffer too small: ENOSPC" "$(./seed small)" ENOSPC
[ ! -e mon.out ] && ok "buffer too small: no file" || not_ok "buffer too small: no file"
expect "lowpc >= highpc: EINVAL" "$(./seed inverted)" EINVAL
[ ! -e mon.out ] && ok "lowpc >= highpc: no file" || not_ok "lowpc >= highpc: no file"

rm -f mon.out
./seedpg pause >/dev/null
expect "moncontrol(0): paused calls not counted" "$(dump mon.out calls leaf seedpg)" 234
set -- $(dump mon.out ticks spin_paused seedpg)
paused=${1:-x}
set -- $(dump mon.out ticks spin seedpg)
if [ "$paused" = 0 ] && [ "${1:-0}" -ge 50 ]; then
	ok "moncontrol(0): no ticks while paused, ticks after resuming ($1)"
else
	not_ok "moncontrol: ticks" "paused=$paused resumed=${1:-}"
fi

rm -f mon.out
out=$(./seedpg again)
expect "monitor twice: counts go on" "$(dump mon.out calls leaf seedpg)" 1234
expect "monitor twice: first buffer's cell" "$(echo "$out" | grep '^cell')" "cell 1234"
set -- $(dump mon.out ticks spin seedpg)
[ "${1:-0}" -ge 50 ] && ok "monitor twice: new histogram samples" || not_ok "monitor twice: ticks" "$*"

rm -f mon.out
./seedpg nocells >/dev/null
expect "more functions than cells: still counted" "$(dump mon.out calls leaf seedpg)" 1234
expect "more functions than cells: spin counted" "$(dump mon.out calls spin seedpg)" 1

# A new run after monitor(0) starts from zero (monitor.3): the second file
# holds the second run's calls and samples only; a second monstartup while
# profiling is refused with EBUSY and the first run goes on.
for m in restart remonitor; do
	rm -f mon.out first.out
	out=$(timeout 60 ./seedpg $m); rc=$?
	expect "$m: exit 0" "$rc" 0
	expect "$m: first run's file" "$(dump first.out calls leaf seedpg)" 1000
	expect "$m: the new run's calls alone" "$(dump mon.out calls leaf seedpg)" 234
	set -- $(dump mon.out ticks spin_paused seedpg)
	expect "$m: no sample of the first run in the new file" "${1:-x}" 0
	set -- $(dump mon.out ticks spin seedpg)
	[ "${1:-0}" -ge 50 ] && ok "$m: the new run's samples ($1)" || not_ok "$m: the new run's samples" "$*"
done
expect "remonitor: the new buffer's cell" "$(echo "$out" | grep '^cell')" "cell 234"
rm -f mon.out
out=$(timeout 60 ./seedpg busy); rc=$?
expect "busy: second monstartup refused" "$out" "second -1 EBUSY"
expect "busy: the first run goes on" "$(dump mon.out calls leaf seedpg)" 1234
