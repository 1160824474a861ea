#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/stacks_depth.sh — what a deeper stack limit costs (issue 23, item 6:
# python3 stacks cut at the default depth), side by side in one run, for
# MONPROF_STACK_DEPTH (monrun -d) 64, 128 and 256 against the flat profile
# (-d 0) and no profiler:
#   python3   Debian's /usr/bin/python3 running bench/stacks_deep.py
#             (recursions through map, sorted's key and __call__: about 5
#             C frames of the interpreter per Python level, 0 .. LEVELS-1
#             levels) under monrun -r RATE: the least CPU (user + system of
#             every process, wait4's, bench/rusage.c) and the largest peak RSS of RUNS
#             interleaved runs per depth, its samples, and the share of the
#             samples whose stack was cut at the limit (prof's warning);
#             per sample: (CPU - flat's CPU) / samples, the stacks' own cost
#             fixed costs included; memory: (peak RSS - flat's) and the
#             table's mapping (16384 stacks: 32768 slots of 40 bytes and a
#             pool of 16384 x depth PCs of 8 bytes, backed only where
#             stacks are stored);
#   walk      bench/stacks_walk.c at the bottom of a 300-deep recursion
#             and of a 40-deep one (CFI only, -fomit-frame-pointer): one
#             walk and one count in the table, in the thread's own CPU
#             time, keeping at most depth PCs — the sink's work per sample,
#             without the kernel's.
# Not part of make check.
#   sh bench/stacks_depth.sh [BUILD_DIR] [RUNS] [ROUNDS] [LEVELS] [RATE]
set -u
. "$(dirname "$0")/lib.sh"
RUNS=${2:-5}
ROUNDS=${3:-200000}
LEVELS=${4:-30}
RATE=${5:-1000}
DEPTHS="64 128 256"
PY=/usr/bin/python3
[ -x "$PY" ] || die "no $PY"
[ -x /usr/bin/time ] || need_tools time
$CC -O2 -fomit-frame-pointer -I"$ROOT/include" -I"$ROOT/lib" -I"$ROOT/format" -o "$W/stacks_walk" \
	"$BENCH/stacks_walk.c" "$B/lib/libmon.a" -ldl -lpthread -lrt || die "build stacks_walk"
$CC -O1 -I"$ROOT/format" -o "$W/mon_dump" "$ROOT/tests/progs/mon_dump.c" "$ROOT"/format/*.c ||
	die "build mon_dump"
$CC -O2 -o "$W/rusage" "$BENCH/rusage.c" || die "build rusage"
cp "$BENCH/stacks_deep.py" "$W/deep.py"
cd "$W" || exit 1

# run TAG CMD...: CPU seconds (bench/rusage.c: microseconds) and peak RSS
# (KiB, /usr/bin/time: the largest of the processes waited for) of CMD,
# appended to TAG's lists.
run() {
	tag=$1; shift
	/usr/bin/time -f "%M" -o "$W/t" "$W/rusage" "$@" >/dev/null 2>"$W/ru" ||
		{ cat "$W/ru" >&2; exit 1; }
	tail -n 1 "$W/ru" | awk '{ printf "%.4f\n", $1 + $2 }' >>"$W/$tag.cpu"
	tail -n 1 "$W/t" >>"$W/$tag.rss"
}
least() { sort -n "$1" | head -n 1; }
most() { sort -n "$1" | tail -n 1; }
sumf() { awk '{ s += $1 } END { print s + 0 }' "$1"; }

echo "== stack depth limits: python3 $(basename "$(readlink -f "$PY")") stacks_deep.py $ROUNDS rounds," \
	"0..$((LEVELS - 1)) levels, $RATE Hz, $RUNS interleaved runs"
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
# The deepest stack of the workload, kept whole at the largest limit.
"$MONRUN" -r "$RATE" -d 512 -o "$W/deep.out" "$PY" deep.py "$ROUNDS" "$LEVELS" >/dev/null ||
	die "monrun -d 512"
echo "deepest stack of the workload: $("$W/mon_dump" "$W/deep.out" stacks 0 0 | sed 's/.* maxdepth \([0-9]*\).*/\1/') PCs"
for i in $(seq "$RUNS"); do
	run plain "$PY" deep.py "$ROUNDS" "$LEVELS"
	for d in 0 $DEPTHS; do
		run "d$d" "$MONRUN" -r "$RATE" -d "$d" -o "$W/m$d.out" "$PY" deep.py "$ROUNDS" "$LEVELS"
		"$W/mon_dump" "$W/m$d.out" info | awk '$1 == "samples" { print $2 }' >>"$W/d$d.n"
		[ "$d" = 0 ] && continue
		"$PROF" -m "$W/m$d.out" "$PY" 2>&1 >/dev/null |
			sed -n 's/.*: \([0-9]*\) samples ([0-9.]* % of the \([0-9]*\) with a stack) have a call stack deeper.*/\1 \2/p' \
			>"$W/cut"
		set -- $(cat "$W/cut") 0 0
		echo "$1" >>"$W/d$d.cut"
		[ "$2" = 0 ] && set -- "$1" "$(tail -n 1 "$W/d$d.n")"
		echo "$2" >>"$W/d$d.with"
	done
done
flat=$(least "$W/d0.cpu") flatrss=$(most "$W/d0.rss")
printf '%-8s %8s %9s %8s %12s %14s %12s %14s\n' depth "CPU s" "peak RSS" samples "cut at limit" \
	"us/sample+flat" "RSS-flat KiB" "table mapped"
printf '%-8s %8s %7s K %8s %12s %14s %12s %14s\n' none "$(least "$W/plain.cpu")" \
	"$(most "$W/plain.rss")" - - - - -
printf '%-8s %8s %7s K %8s %12s %14s %12s %14s\n' "0 (flat)" "$flat" "$flatrss" \
	"$(sumf "$W/d0.n")" - - - -
for d in $DEPTHS; do
	n=$(sumf "$W/d$d.n") cut=$(sumf "$W/d$d.cut") with=$(sumf "$W/d$d.with")
	cpu=$(least "$W/d$d.cpu") rss=$(most "$W/d$d.rss")
	per=$(awk -v c="$cpu" -v f="$flat" -v n="$n" -v r="$RUNS" \
		'BEGIN { printf "%.1f", (n > 0 ? (c - f) / (n / r) * 1e6 : 0) }')
	pct=$(awk -v c="$cut" -v w="$with" 'BEGIN { printf "%.2f %%", (w > 0 ? 100 * c / w : 0) }')
	mib=$(awk -v d="$d" 'BEGIN { printf "%.2f MiB", (32768 * 40 + 16384 * d * 8) / 1048576 }')
	printf '%-8s %8s %7s K %8s %12s %14s %12s %14s\n' "$d" "$cpu" "$rss" "$n" "$pct" "$per" \
		"$((rss - flatrss))" "$mib"
done
echo "(samples, cut: all $RUNS runs together; CPU: the least run; RSS: the largest)"

echo "== the sink's work per sample (bench/stacks_walk.c, thread CPU): a stack deeper than every"
echo "   limit (300 calls under main), and one shallower than all (40 calls)"
for f in 300 40; do
	for d in $DEPTHS; do
		printf '%3s calls, depth %-4s ' "$f" "$d"
		"$W/stacks_walk" "$f" 100000 "$d" | tr '\n' ';' | sed 's/;$//; s/;/; /g'
		echo
	done
done
