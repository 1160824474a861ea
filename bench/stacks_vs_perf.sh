#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/stacks_vs_perf.sh — issue 14's goal on the SQLite driver: the
# inclusive shares of perf's top functions (perf record --call-graph dwarf,
# user samples) against monprof's, within 2.5 pp.  One execution is
# sampled by both at once:
#   perf record --all-user --call-graph dwarf -F RATE -e cpu-clock -- monrun -r RATE ./sqlite_driver ROWS
# perf's inclusive share of a function is its "Children" column (samples
# whose stack holds it, once each); monprof's is the same count over the
# stacks of `prof --format=folded`.  Functions are matched by name; perf's
# frames marked "(inlined)" (from the DWARF of the debug files it reads) are
# listed apart: prof's stacks name the symbol a PC is in (inline frames are
# --lines' business).
#   sh bench/stacks_vs_perf.sh [BUILD_DIR] [ROWS] [TOP] [RATE]
set -u
. "$(dirname "$0")/lib.sh"
ROWS=${2:-300000}
TOP=${3:-15}
RATE=${4:-1000}
need_tools linux-perf
build_sqlite "$W"
cd "$W" || exit 1
perf record -q --all-user --call-graph dwarf -F "$RATE" -e cpu-clock -o P -- \
	"$MONRUN" -r "$RATE" -o M ./sqlite_driver "$ROWS" >/dev/null 2>perf.err ||
	{ cat perf.err >&2; die "perf record failed"; }
perf report -i P --stdio --children --comm sqlite_driver --sort sym -g none --percent-limit 0 \
	2>/dev/null | awk '/^ *[0-9.]+% +[0-9.]+% / { c = $1; sub(/%/, "", c); n = $0
		sub(/^ *[0-9.]+% +[0-9.]+% +\[[^]]*\] +/, "", n); print c "\t" n }' >perf.txt
"$PROF" --format=folded -m M ./sqlite_driver >folded.txt 2>prof.err || { cat prof.err >&2; die "prof failed"; }
echo "== perf --call-graph dwarf vs monprof stacks, one run of sqlite_driver $ROWS at $RATE Hz"
echo "   (inclusive share of all samples, perf's top $TOP by inclusive share)"
awk -F'\t' -v top="$TOP" '
	FNR == NR { if (!($2 in perf)) { perf[$2] = $1; order[++n] = $2 } next }
	{
		line = $0; k = line; sub(/.* /, "", k); total += k
		sub(/ [0-9]+$/, "", line)
		m = split(line, f, ";")
		delete seen
		for (i = 1; i <= m; i++) {
			name = f[i]; sub(/@.*/, "", name)
			if (!(name in seen)) { seen[name] = 1; incl[name] += k }
		}
	}
	END {
		printf "%-34s %8s %8s %8s\n", "function", "perf %", "prof %", "diff pp"
		worst = 0; shown = 0
		for (j = 1; j <= n && shown < top; j++) {
			x = order[j]
			if (x ~ /^0x/ || x == "[unknown]") continue
			if (x ~ / \(inlined\)$/) { inl = inl " " x; continue }
			shown++
			p = total > 0 ? 100 * incl[x] / total : 0
			d = p - perf[x]; if (d < 0) d = -d; if (d > worst) worst = d
			printf "%-34s %8.2f %8.2f %8.2f\n", substr(x, 1, 34), perf[x], p, d
		}
		printf "largest difference %.2f pp over %d functions (goal <= 2.5): %s\n", worst, shown,
			(worst <= 2.5 ? "met" : "NOT met")
		if (inl != "") printf "left out (perf'"'"'s inline frames):%s\n", inl
	}' perf.txt folded.txt
"$PROF" -s -m M ./sqlite_driver 2>&1 >/dev/null | grep -E '^(samples|call stacks)' | sed 's/^/monprof: /'
