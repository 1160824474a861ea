#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A thread's CPU clock that does not move while it runs: the scheduler's
# task clock leaves out the time a hypervisor stole (CONFIG_PARAVIRT_TIME_
# ACCOUNTING), so on a busy host a thread found running can run on to a
# blocking call with nothing added to it.  tests/progs/wall_clock_stall.c,
# preloaded before libmon.so, makes every other thread's CPU clock stand
# still for the wall sampler; tests/progs/wall_stalled.c's worker spins, then
# blocks in read(2) of a pipe, and measures its time there.  Under monrun
# --wall=250:
#   wall_stalled_run      exit 0, the worker's line and samples of it
#   wall_stalled_blocked  the worker, found running first, has samples in
#                         read at least 80 % of its time there (its own
#                         measure) x the rate, less 2 rounds and less the
#                         rounds the sampler missed of it: a thread last
#                         found R whose clock
#                         stood still is looked at again once its stat no
#                         longer says R (wall.c's left_r)
# Mutation: left_r returning 0 (the CI of e4e77c5 on a busy host: a thread
# blocked 1 s in read had 251 of 251 samples runnable): 0 samples in read.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wall_lib.inc"

build_wall_dump
# Not instrumented under a sanitizer: its syscall(2) reads six argument
# words whatever the caller passed (the C library's is assembly).
cc -O2 -g -shared -fPIC -o "$T/stall.so" "$ROOT/tests/progs/wall_clock_stall.c" -ldl
$CC -O2 -g -o "$T/stalled" "$ROOT/tests/progs/wall_stalled.c" -lpthread
# Preloaded as monrun does it (MONPROF_AUTO naming the process), with the
# shim first: libmon exports syscall(2) too (lib/clone.c).
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 MONPROF_WALL=250 \
MONPROF_OUT="$T/s.mon" timeout 60 sh -c 'exec env MONPROF_AUTO=$$ LD_PRELOAD="$0" "$@"' \
    "$T/stall.so:$B/lib/libmon.so" "$T/stalled" 1200 >"$T/out" 2>"$T/err"
rc=$?
cat "$T/out" "$T/err"
wall_dump "$T/s.mon" "$T/stalled" >"$T/wall.txt" 2>&1
tid=$(awk '$1 == "worker" { print $3 }' "$T/out")
us=$(awk '$1 == "worker" { print $5 }' "$T/out")
grep -v '^sample' "$T/wall.txt" | head -n 8
awk -v tid="$tid" '$1 == "sample" && $4 == tid { print $6, $8, $2 }' "$T/wall.txt" |
	awk '{ n[$1 " " $2] += $3 } END { for (k in n) print "# " k ": " n[k] }'
inread=$(awk -v tid="$tid" '$1 == "sample" && $4 == tid && $6 != "running" && $6 != "runnable" &&
	$8 == "read" { n += $2 } END { print n + 0 }' "$T/wall.txt")
all=$(awk -v tid="$tid" '$1 == "sample" && $4 == tid { n += $2 } END { print n + 0 }' "$T/wall.txt")
if [ $rc -eq 0 ] && [ -n "$tid" ] && [ -n "$us" ] && [ "$all" -gt 0 ]; then
	ok wall_stalled_run
else
	not_ok wall_stalled_run "exit $rc, worker tid '$tid', blocked_us '$us', samples '$all': $(head -n 2 "$T/err")"
	exit 0
fi
# The rounds the sampler was late for are the worker's missed ones
# (expected less taken): any of them may have been in the read.
missed=$(awk -v tid="$tid" '$1 == "thread" && $2 == tid { print $6 - $8 }' "$T/wall.txt")
r=$(awk -v tid="$tid" '$1 == "sample" && $4 == tid && ($6 == "running" || $6 == "runnable") { n += $2 } END { print n + 0 }' "$T/wall.txt")
want=$(awk -v us="$us" -v m="${missed:-0}" 'BEGIN { w = int(0.8 * us * 250 / 1e6) - 2 - m; print (w > 0 ? w : 1) }')
if [ "$r" -eq 0 ]; then
	# Never found running: the case is not made (the first look came
	# after the spin, which takes a quarter of the run).
	not_ok wall_stalled_blocked "the worker was never found running or runnable ($all samples): nothing tested"
elif [ "$inread" -ge "$want" ]; then
	ok "wall_stalled_blocked # $inread samples in read of $all ($r running or runnable, ${missed:-0} missed), $want wanted ($us us blocked)"
else
	not_ok wall_stalled_blocked "$inread samples in read of $all ($r running or runnable, ${missed:-0} missed), want at least $want ($us us blocked at 250 Hz)"
fi
