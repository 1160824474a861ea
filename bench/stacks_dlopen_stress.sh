#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/stacks_dlopen_stress.sh — issue 14's stress goal: SECONDS (default
# 600) of sampling at 10 kHz with call stacks while one thread loads and
# unloads a shared object in a loop and another hammers malloc
# (bench/dlopen_loop.c).  Passes when the program ends on its own (no
# deadlock: a timeout of SECONDS + 120 s), exits 0 (no crash), and the
# profile reads with its stacks.
#   sh bench/stacks_dlopen_stress.sh [BUILD_DIR] [SECONDS] [RATE]
set -u
. "$(dirname "$0")/lib.sh"
SECS=${2:-600}
RATE=${3:-10000}
$CC -O2 -fomit-frame-pointer -pthread -o "$W/dlopen_loop" "$BENCH/dlopen_loop.c" -ldl &&
	$CC -O2 -fPIC -shared -o "$W/plugin.so" "$ROOT/tests/progs/unwind_plugin.c" || die "build failed"
cd "$W" || exit 1
t0=$(date +%s)
timeout -s KILL $((SECS + 120)) "$MONRUN" -r "$RATE" -o M ./dlopen_loop "$W/plugin.so" "$SECS"
rc=$?
t1=$(date +%s)
echo "exit status $rc after $((t1 - t0)) s (137: killed by the timeout: a deadlock)"
"$PROF" -s -m M ./dlopen_loop 2>&1 >/dev/null | grep -E '^(samples|call stacks|rate|clock)' | sed 's/^/prof: /'
n=$("$PROF" --format=folded -m M ./dlopen_loop 2>/dev/null | awk '{ s += $NF } END { print s + 0 }')
echo "samples in stacks: $n"
[ "$rc" = 0 ] && [ "$n" -gt 0 ] && echo "stress: met" || echo "stress: NOT met"
