#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/stacks_accuracy.sh — issue 14's goals for call stacks on a program
# whose phases time themselves (bench/stacks_truth.c, built -O2
# -fomit-frame-pointer): each phase's inclusive share against its measured
# share of main's CPU (goal: within 1.5 pp), and the share of samples whose
# stack reaches main (goal: at least 99 %).  Inclusive shares are computed
# from `prof --format=folded` (a function counts once per stack, as prof's
# inclusive column counts it) and printed beside prof's own JSON column.
#   sh bench/stacks_accuracy.sh [BUILD_DIR] [SECONDS] [RATE]
set -u
. "$(dirname "$0")/lib.sh"
SECS=${2:-4}
RATE=${3:-1000}
$CC -O2 -fomit-frame-pointer -o "$W/stacks_truth" "$BENCH/stacks_truth.c" || die "build failed"
cd "$W" || exit 1
"$MONRUN" -r "$RATE" -o M ./stacks_truth "$SECS" truth.txt || die "run failed"
"$PROF" --format=folded -m M ./stacks_truth >folded.txt 2>prof.err || { cat prof.err >&2; die "prof failed"; }
echo "== stacks_truth $SECS s at $RATE Hz: inclusive share of main, truth vs monprof (folded)"
awk -v names="hard easy sorter recurse work compare_keys" '
	FNR == NR { truth[$1] = $2; next }
	{
		n = $NF; total += n
		stack = $0; sub(/ [0-9]+$/, "", stack)
		k = split(stack, f, ";")
		delete seen
		for (i = 1; i <= k; i++) if (!(f[i] in seen)) { seen[f[i]] = 1; incl[f[i]] += n }
	}
	END {
		printf "%-12s %9s %9s %8s\n", "function", "truth %", "prof %", "diff pp"
		worst = 0
		m = split(names, v, " ")
		for (j = 1; j <= m; j++) {
			x = v[j]
			if (!(x in truth)) continue
			t = 100 * truth[x] / truth["main"]
			p = ("main" in incl && incl["main"] > 0) ? 100 * incl[x] / incl["main"] : 0
			d = p - t; if (d < 0) d = -d; if (d > worst) worst = d
			printf "%-12s %9.2f %9.2f %8.2f\n", x, t, p, d
		}
		printf "largest difference %.2f pp (goal <= 1.5): %s\n", worst, (worst <= 1.5 ? "met" : "NOT met")
		r = total > 0 ? 100 * incl["main"] / total : 0
		printf "samples whose stack reaches main: %d of %d = %.2f %% (goal >= 99): %s\n",
			incl["main"], total, r, (r >= 99 ? "met" : "NOT met")
	}' truth.txt folded.txt
"$PROF" -s -m M ./stacks_truth 2>&1 >/dev/null | grep -iE 'stack|truncat|^samples' | sed 's/^/prof: /'
