#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Wall samples name the object mapped when they were taken: two plug-ins
# loaded in turn at one address (tests/progs/wall_plugins.c), each blocked
# in a nanosleep of its own function and then on a mutex in its own data
# (held by a thread of its own), both unloaded before the write, under
# monrun --wall=250 (the WALL SAMPLE's object set, mon.out(5)).
#   wall_plugins_sets     the blocked samples in the two plug-ins were taken
#                         in two object sets (the record says which)
#   wall_plugins_stacks   prof --sample=wall --format=folded gives each
#                         plug-in's function its own samples, in the ratio
#                         of the times the program measured (within 0.1)
#   wall_plugins_locks    each plug-in's mutex wait is named by its own lock's
#                         symbol ([futex plugA_lock, ...] under plugA_wait,
#                         plugB_lock under plugB_wait)
# Mutations: the object set left 0 in wall.c's samples fails
# wall_plugins_sets and wall_plugins_stacks (every stack then names the
# plug-in loaded last there); prof resolving wall PCs without the set
# (row_at in add_wall) fails wall_plugins_stacks; a wait's object found by
# its load bias alone (object_index) fails wall_plugins_locks (plugB's 150
# samples named plugA_lock); the unloaded objects not passed to
# mon_wall_put (as before) fails it too (both waits by address only).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wall_lib.inc"

build_wall_dump
$CC -O1 -g -I"$ROOT/tests/progs" -o "$T/plugins" "$ROOT/tests/progs/wall_plugins.c" -ldl
for p in A B; do
	$CC -O1 -g -shared -fPIC -DPLUG=plug${p}_wait -DLOCK=plug${p}_lock -o "$T/plug$p.so" \
	    "$ROOT/tests/progs/wall_plugin.c" -lpthread
done
(cd "$T" && timeout 60 "$B/bin/monrun" --wall=250 -o "$T/p.mon" ./plugins 300 >"$T/out" 2>"$T/err")
rc=$?
cat "$T/out" "$T/err"
[ $rc -eq 0 ] || not_ok wall_plugins_run "exit $rc"
if [ "$(awk '$1 == "same_address" { print $2 }' "$T/out")" != 1 ]; then
	ok "wall_plugins_sets # skip the dynamic linker did not reuse the address"
	ok "wall_plugins_stacks # skip the dynamic linker did not reuse the address"
	ok "wall_plugins_locks # skip the dynamic linker did not reuse the address"
	exit 0
fi
"$T/wall_dump" "$T/p.mon" >"$T/wall.txt" 2>&1
# The main thread's blocked samples in clock_nanosleep: how many object sets.
sets=$(awk '$1 == "sample" && $8 == "clock_nanosleep" { print $(NF - 2) }' "$T/wall.txt" | sort -u | wc -l)
grep '^sample' "$T/wall.txt" | head -n 8
if [ "$sets" -ge 2 ]; then ok wall_plugins_sets
else not_ok wall_plugins_sets "blocked samples in $sets object set(s)"; fi
"$B/bin/prof" --sample=wall --format=folded -m "$T/p.mon" "$T/plugins" >"$T/folded" 2>"$T/folded.err"
cat "$T/folded.err"
grep plug "$T/folded" | head -n 4
sa=$(awk '{ if (index($1, "plugA_wait")) s += $NF } END { print s + 0 }' "$T/folded")
sb=$(awk '{ if (index($1, "plugB_wait")) s += $NF } END { print s + 0 }' "$T/folded")
ta=$(awk '$1 == "plugA_wait" { print $2 }' "$T/out")
tb=$(awk '$1 == "plugB_wait" { print $2 }' "$T/out")
if awk -v a="$sa" -v b="$sb" -v ta="$ta" -v tb="$tb" 'BEGIN {
	if (a + b < 100) exit 1
	d = a / (a + b) - ta / (ta + tb); exit !(d < 0.1 && d > -0.1) }'; then
	ok wall_plugins_stacks
else
	wall_san_not_ok wall_plugins_stacks "plugA_wait $sa, plugB_wait $sb samples; measured $ta and $tb us" \
	    "the sanitizer's interceptors (nanosleep, read) are built with frame pointers, and a blocked thread's walk starts from the SP and PC /proc gives, without its frame pointer, so it ends in them"
fi
la=$(awk 'index($0, "plugA_wait;") && index($0, "[futex plugA_lock") { s += $NF } END { print s + 0 }' "$T/folded")
lb=$(awk 'index($0, "plugB_wait;") && index($0, "[futex plugB_lock") { s += $NF } END { print s + 0 }' "$T/folded")
lx=$(awk '(index($0, "plugB_wait;") && index($0, "[futex plugA_lock")) ||
	(index($0, "plugA_wait;") && index($0, "[futex plugB_lock")) { s += $NF } END { print s + 0 }' "$T/folded")
if [ "$la" -ge 30 ] && [ "$lb" -ge 60 ] && [ "$lx" = 0 ]; then ok wall_plugins_locks
else wall_san_not_ok wall_plugins_locks "plugA_lock under plugA_wait $la, plugB_lock under plugB_wait $lb, crossed $lx: $(grep -F '[futex' "$T/folded" | head -n 3)" \
    "the sanitizer's interceptors (nanosleep, read) are built with frame pointers, and a blocked thread's walk starts from the SP and PC /proc gives, without its frame pointer, so it ends in them"; fi
