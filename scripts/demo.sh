#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# make demo: the main job.  Profile real software nobody here wrote — SQLite,
# through demo/sqlite_driver.c linked against the distribution's libsqlite3.a —
# with monrun (no recompiling, no -lmon), then print prof's report, the
# call-graph entry of its busiest function, and write its flame graph.
#   scripts/demo.sh BUILD_DIR [ROWS]
set -e
B=${1:-build}
ROWS=${2:-200000}
D=$B/demo
mkdir -p "$D"
CC=${CC:-cc}
SQLITE_CFLAGS=$(pkg-config --cflags sqlite3)
LIBDIR=$(pkg-config --variable=libdir sqlite3)
echo "== building demo/sqlite_driver.c against $LIBDIR/libsqlite3.a"
$CC -O2 -g $SQLITE_CFLAGS -o "$D/sqlite_driver" demo/sqlite_driver.c "$LIBDIR/libsqlite3.a" -lm -lpthread -ldl
cd "$D"
rm -f mon.out
echo "== monrun ./sqlite_driver $ROWS"
../bin/monrun ./sqlite_driver "$ROWS"
echo "== prof -s ./sqlite_driver   (the 25 busiest functions, then -s's summary)"
../bin/prof -s ./sqlite_driver >report.txt 2>summary.txt
head -n 26 report.txt
echo "== summary (prof -s, on standard error; the whole report is in $D/report.txt)"
cat summary.txt
top=$(awk 'NR == 2 { print $NF }' report.txt)
echo "== prof --graph ./sqlite_driver: the busiest function's entry (the call graph of the sampled stacks, in gprof's layout: callers above, callees below)"
../bin/prof --graph ./sqlite_driver 2>/dev/null >graph.txt
# The header and the busiest function's entry: its callers above it, its
# callees below (the whole graph is in graph.txt).
awk -v f="$top" 'NR == 1 { print; next } /^-+$/ { if (keep) printf "%s", b; b = ""; keep = 0; next }
	{ b = b $0 "\n"; if ($0 ~ /^\[[0-9]+\]/ && index($0, " " f " [")) keep = 1 }' graph.txt
echo "== prof --format=flame ./sqlite_driver   (an SVG flame graph: open it in a browser)"
../bin/prof --format=flame ./sqlite_driver >flame.svg 2>/dev/null
echo "flame graph: $(pwd)/flame.svg ($(wc -c <flame.svg) bytes)"
