#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# prof's --lines, --annotate, --callers/--callees and --base views with
# wall-clock and off-CPU samples (issue 20: every view takes --sample),
# on tests/progs/prof_wall_truth.c run twice under monrun --wall=200: its
# waiter thread blocks on a mutex in waiter_lock, in read(2) in
# waiter_read, in nanosleep(2) in waiter_sleep.
#   wall_view_lines      --sample=wall --lines: the line of each waiting
#                        call holds the wall time of its function (its
#                        inclusive seconds, >= 0.1 s); the CPU view has
#                        none there
#   wall_view_annotate   --sample=wall --annotate=waiter_read: every sample
#                        in or below it at the line of the read call, as
#                        many as the function has; --sample=offcpu
#                        --annotate=waiter: the three calls' lines; and the
#                        disassembly (source gone): the call instruction
#                        (counted at the leaf's own code only, as for CPU:
#                        0 samples, red)
#   wall_view_callers    --callees=waiter names the three waits' functions
#                        with their time, --callers=waiter_read names waiter
#   wall_view_base       --base with two runs: the queue_lock wait and main's
#                        two joins each one row, matched with the other
#                        run's though the thread ids differ ("held by tid N
#                        (holder)"), a share > 5 % in both (names compared
#                        with the ids: each a row of one run, red)
# Under sanitizers, whose interceptors of read and nanosleep end a blocked
# thread's walk (wall_lib.inc wall_san_not_ok), the checks that need the
# waiter's functions in its stacks are skips with that reason.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/wall_lib.inc"
SAN_WHY="the sanitizer's interceptors of read and nanosleep are built with frame pointers, and a blocked thread's walk starts from the SP and PC /proc gives, without its frame pointer, so it ends in them"
MONRUN=$B/bin/monrun
cd "$T" || exit 1
cp "$ROOT/tests/progs/prof_wall_truth.c" truth.c
$CC -O1 -g -o truth truth.c -lpthread || { not_ok wall_view_build; exit 1; }
timeout 60 "$MONRUN" --wall=200 -o a.mon ./truth >/dev/null &&
    timeout 60 "$MONRUN" --wall=200 -o b.mon ./truth >/dev/null ||
    { not_ok wall_view_run "exit $?"; exit 1; }
line_of() { grep -n "$1" truth.c | head -n 1 | cut -d: -f1; }
L_lock=$(line_of 'pthread_mutex_lock(&queue_lock);')
L_read=$(line_of 'if (read(fds\[0\]')
L_sleep=$(line_of 'nanosleep(&t, NULL)')

# --lines: inclusive seconds of truth.c:LINE rows against the functions'.
timeout 60 "$PROF" --sample=wall --format=csv -m b.mon ./truth >fn.csv 2>/dev/null
timeout 60 "$PROF" --sample=wall --lines --format=csv -m b.mon ./truth >ln.csv 2>/dev/null
timeout 60 "$PROF" --lines --format=csv -m b.mon ./truth >lncpu.csv 2>/dev/null
bad=
for pair in "waiter_lock $L_lock" "waiter_read $L_read" "waiter_sleep $L_sleep"; do
	set -- $pair
	f=$(awk -F, -v n="$1" '$1 == n { print $NF }' fn.csv)
	l=$(awk -F, -v n="truth.c:$2 $1" '$1 == n { print $NF }' ln.csv)
	c=$(awk -F, -v n="truth.c:$2 $1" '$1 == n { print $NF }' lncpu.csv)
	echo "# $1: function ${f:-none} s, line $2 ${l:-none} s, CPU view ${c:-none}"
	awk -v f="${f:-0}" -v l="${l:--1}" -v c="${c:-0}" 'BEGIN { exit !(f >= 0.1 && l == f && c < 0.02) }' ||
	    bad="$bad $1:$2 (function ${f:-none}, line ${l:-none}, CPU ${c:-none})"
done
[ -z "$bad" ] && ok wall_view_lines || wall_san_not_ok wall_view_lines "$bad" "$SAN_WHY"

# --annotate
timeout 60 "$PROF" --sample=wall --annotate=waiter_read -m b.mon ./truth >ann.txt 2>/dev/null
n=$(sed -n 's/^waiter_read: \([0-9]*\) samples in or below it,.*/\1/p' ann.txt)
at=$(awk -v L="$L_read" '$3 == L { print $1 }' ann.txt)
timeout 60 "$PROF" --sample=offcpu --annotate=waiter -m b.mon ./truth >ann2.txt 2>/dev/null
calls=$(awk -v a="$(line_of 'waiter_lock();')" -v b="$(line_of 'waiter_read();')" -v c="$(line_of 'waiter_sleep();')" \
	'($3 == a || $3 == b || $3 == c) && $1 > 0 { n++ } END { print n + 0 }' ann2.txt)
mv truth.c gone.c
timeout 60 "$PROF" --sample=wall --annotate=waiter_read -m b.mon ./truth >dis.txt 2>/dev/null
mv gone.c truth.c
dcall=$(awk '/call / && $1 ~ /^[0-9]/ { print $1; exit }' dis.txt)
cat ann.txt | sed 's/^/# /'
if [ "${n:-0}" -ge 10 ] && [ "$at" = "$n" ] && [ "$calls" = 3 ] && [ "$dcall" = "$n" ]; then ok wall_view_annotate
else wall_san_not_ok wall_view_annotate "waiter_read ${n:-none} samples, ${at:-none} at line $L_read; waiter: $calls of 3 call lines; disassembly's call ${dcall:-none}" "$SAN_WHY"; fi

# --callers / --callees
timeout 60 "$PROF" --sample=wall --callees=waiter -m b.mon ./truth >callees.txt 2>/dev/null
timeout 60 "$PROF" --sample=wall --callers=waiter_read -m b.mon ./truth >callers.txt 2>/dev/null
miss=
for f in waiter_lock waiter_read waiter_sleep; do
	awk -v f="$f" '$NF ~ /^\[[0-9]+\]$/ && $(NF-1) == f && NF == 4 && $2 >= 0.1 { found = 1 } END { exit !found }' callees.txt ||
	    miss="$miss $f"
done
grep -q '^\[[0-9]*\] .* waiter_read \[' callers.txt && grep -q ' waiter \[' callers.txt || miss="$miss callers"
[ -z "$miss" ] && ok wall_view_callers ||
    wall_san_not_ok wall_view_callers "missing:$miss; $(head -n 5 callees.txt | tr '\n' '|')" "$SAN_WHY"

# --base across two runs
timeout 60 "$PROF" --sample=wall --base=a.mon --format=csv -m b.mon ./truth >base.csv 2>/dev/null
# (a name with a comma is quoted: name, then the fields after it)
r=$(awk 'NR > 1 {
		if (substr($0, 1, 1) == "\"") { i = index(substr($0, 2), "\""); nm = substr($0, 2, i - 1); rest = substr($0, i + 3) }
		else { i = index($0, ","); nm = substr($0, 1, i - 1); rest = substr($0, i + 1) }
		split(rest, f, ",")
		if (f[1] != "wait") next
		k = nm ~ /^\[futex queue_lock, held by tid [0-9]+ \(holder\)\]$/ ? "lock" : \
		    nm ~ /^\[join tid [0-9]+ \(holder\)\]$/ ? "join holder" : \
		    nm ~ /^\[join tid [0-9]+ \(truth\)\]$/ ? "join waiter" : ""
		if (k == "") next
		rows[k]++
		if (f[3] + 0 > 5 && f[4] + 0 > 5) m[k]++; else bad = bad " " nm " " f[3] "/" f[4]
	}
	END {
		split("lock|join holder|join waiter", K, "|")
		for (i = 1; i <= 3; i++) if (rows[K[i]] != 1 || m[K[i]] != 1) bad = bad " " K[i] ": " rows[K[i]] + 0 " rows, " m[K[i]] + 0 " matched"
		print (bad == "" ? "ok" : "bad") bad
	}' base.csv)
echo "# base: $r"
case $r in ok*) ok wall_view_base ;; *) not_ok wall_view_base "$r" ;; esac
