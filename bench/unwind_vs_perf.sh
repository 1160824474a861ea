#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/unwind_vs_perf.sh — issue 12: prof's rows for a stripped object
# (functions told apart by its unwind table, [obj]+0xSTART) beside perf's
# on the same execution: `perf record -e cpu-clock` runs monrun, which
# runs the command, so both profilers sample the same run.  perf names a
# stripped object's code by single addresses ([.] 0x...); they are summed
# into prof's rows by address range ([addr, addr + size) of prof's CSV),
# perf's named rows are matched by name.  Prints, for the TOP rows of
# prof's report in OBJECT: prof %, perf %, and the difference (pp), both
# shares of all the process's user-space samples (perf's kernel samples
# are left out).  Not part of make check.
# Usage: sh bench/unwind_vs_perf.sh BUILD_DIR OBJECT_BASENAME TOP CMD [ARGS...]
#   e.g. sh bench/unwind_vs_perf.sh build gzip 12 gzip -9 -c /tmp/f
#        sh bench/unwind_vs_perf.sh build liblzma.so.5.4.1 12 xz -9 -c /tmp/f
B=$1 OBJ=$2 TOP=$3; shift 3
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "$ROOT/$B" && pwd)
T=$(mktemp -d) && trap 'rm -rf "$T"' EXIT
perf record -q -e cpu-clock -F 1000 -o "$T/p.data" -- "$B/bin/monrun" -r 1000 -o "$T/m.mon" "$@" \
	>/dev/null 2>"$T/run.err" || { cat "$T/run.err"; exit 1; }
comm=$(basename "$1")
"$B/bin/prof" -m "$T/m.mon" --format=csv >"$T/prof.csv" 2>"$T/prof.err"
# perf: "percent dso symbol", user space only, as shares of user samples.
perf report -i "$T/p.data" --comm "$comm" --sort dso,sym -F overhead,dso,sym --stdio 2>/dev/null |
	awk '/^#/ || NF < 3 { next } $3 != "[k]" { sub("%", "", $1); print $1 "," $2 "," $4 }' >"$T/perf.rows"
awk -F, -v obj="$OBJ" -v top="$TOP" '
	function hx(s,  v, i) { v = 0; s = tolower(s); sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	FILENAME ~ /perf.rows$/ { ptot += $1; pr[++np] = $0; next }
	FNR == 1 { next }
	{ n = split($3, parts, "/"); o = parts[n] }
	o == obj && nrow < top { nrow++; name[nrow] = $1; lo[nrow] = hx($4); hi[nrow] = hx($4) + $11
		pct[nrow] = $5 }
	END {
		for (k = 1; k <= np; k++) {
			split(pr[k], f, ",")
			if (f[2] != obj && index(f[2], obj ".") != 1) continue
			for (r = 1; r <= nrow; r++) {
				if (f[3] ~ /^0x/ ? (hx(f[3]) >= lo[r] && hx(f[3]) < hi[r]) : f[3] == name[r]) {
					perf[r] += f[1]; break
				}
			}
		}
		printf "%-36s %8s %8s %7s\n", "row (" obj ")", "prof %", "perf %", "diff pp"
		for (r = 1; r <= nrow; r++)
			printf "%-36s %8.2f %8.2f %+7.2f\n", name[r], pct[r], perf[r] * 100 / ptot,
				pct[r] - perf[r] * 100 / ptot
	}' "$T/perf.rows" "$T/prof.csv"
grep -h warning "$T/prof.err" | head -3
