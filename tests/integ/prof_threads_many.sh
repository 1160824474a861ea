#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# prof --threads on a program of many threads (issue 22: a server's 2700
# threads printed about 10 000 lines, in thread-id order).  The text
# shows the threads with samples of the sample type, the most first: 32
# by default, N with --threads=N, every one with --threads=all, then one
# line with how many more and their share.  tests/progs/itimer_sleepers.c:
# 64 threads and main sleeping 1 s under monrun --wall=200.
#   threads_many_default   --threads --sample=wall: 32 headings, then "33 more
#                          threads with S samples (P %) not shown" naming
#                          --threads=all
#   threads_many_order     their sample counts never rise down the list
#   threads_many_n         --threads=5: 5 headings, "60 more threads"
#   threads_many_all       --threads=all: 65 headings, no "more" line
#   threads_many_bad       --threads=0 and --threads=x: exit 2, a message
# Mutation: the old renderer (every thread, in thread order): 65 headings
# by default, threads_many_default fails.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"

cd "$T" || exit 1
build_plain sleepers itimer_sleepers.c -pthread || { not_ok threads_many_build; exit 0; }
timeout 60 "$MONRUN" --wall=200 -o "$T/s.mon" "$T/sleepers" 64 1 >"$T/s.out" 2>"$T/s.err"
rc=$?
cat "$T/s.err"
[ $rc = 0 ] || { not_ok threads_many_run "exit $rc"; exit 0; }
"$PROF" -m "$T/s.mon" --threads --sample=wall "$T/sleepers" >"$T/d.txt" 2>/dev/null
h=$(grep -c '^Thread ' "$T/d.txt")
if [ "$h" = 32 ] && grep -q '^33 more threads with [0-9]* samples ([0-9.]* %) not shown: prof --threads=all' "$T/d.txt"; then
	ok threads_many_default
else
	not_ok threads_many_default "$h headings; $(grep 'more thread' "$T/d.txt")"
fi
if awk '/^Thread / { n = $3 + 0; if (seen && n > last) bad = 1; last = n; seen = 1 } END { exit bad }' "$T/d.txt"; then
	ok threads_many_order
else
	not_ok threads_many_order "$(grep '^Thread ' "$T/d.txt" | head -n 5 | tr '\n' ';')"
fi
"$PROF" -m "$T/s.mon" --threads=5 --sample=wall "$T/sleepers" >"$T/n.txt" 2>/dev/null
h=$(grep -c '^Thread ' "$T/n.txt")
if [ "$h" = 5 ] && grep -q '^60 more threads with' "$T/n.txt"; then
	ok threads_many_n
else
	not_ok threads_many_n "$h headings; $(grep 'more thread' "$T/n.txt")"
fi
"$PROF" -m "$T/s.mon" --threads=all --sample=wall "$T/sleepers" >"$T/a.txt" 2>/dev/null
h=$(grep -c '^Thread ' "$T/a.txt")
if [ "$h" = 65 ] && ! grep -q 'more thread' "$T/a.txt"; then
	ok threads_many_all
else
	not_ok threads_many_all "$h headings"
fi
"$PROF" -m "$T/s.mon" --threads=0 "$T/sleepers" >/dev/null 2>"$T/z.err"
z=$?
"$PROF" -m "$T/s.mon" --threads=x "$T/sleepers" >/dev/null 2>"$T/x.err"
x=$?
if [ $z = 2 ] && [ $x = 2 ] && grep -q 'not a number of threads' "$T/z.err" "$T/x.err"; then
	ok threads_many_bad
else
	not_ok threads_many_bad "exit $z and $x"
fi
