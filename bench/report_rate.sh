#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/report_rate.sh — issue 6 item 4: prof's report time against the
# sampling rate.  The SQLite driver (ROWS rows, default 100000, about 2
# CPU-s) is profiled by monrun at each rate; prof's flat report of each
# mon.out is timed (wall, best of 5).  The histograms have the same size
# whatever the rate (one bin per 4 bytes of text), so only the number of
# non-zero bins can change prof's work.
#   sh bench/report_rate.sh [BUILD_DIR] [RATES] [ROWS]
# Output lines (also to fd 3 when it is open):
#   reportrate RATE SAMPLES MONOUT_BYTES PROF_S
set -u
. "$(dirname "$0")/lib.sh"
RATES=${2:-1000 4000 10000}
ROWS=${3:-100000}
build_sqlite "$W"
cd "$W" || exit 1
best5() {
	for i in 1 2 3 4 5; do
		s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
		echo "$s $e" | awk '{ print $2 - $1 }'
	done | sort -g | head -1
}
echo "== report time against the rate: sqlite_driver $ROWS, prof -m mon.out (best of 5, wall)"
printf '%7s %8s %10s %8s\n' rate samples mon.out prof
for rate in $RATES; do
	rm -f M
	"$MONRUN" -r "$rate" -o "$W/M" ./sqlite_driver "$ROWS" >/dev/null 2>&1 || die "monrun failed at $rate Hz"
	n=$("$PROF" -s -m M ./sqlite_driver 2>&1 >/dev/null | awk '/^samples/ { print $2; exit }')
	p=$(best5 "$PROF" -m M ./sqlite_driver)
	printf '%5s Hz %8s %10s %7.3fs\n' "$rate" "${n:-?}" "$(stat -c %s M)" "$p"
	echo "reportrate $rate ${n:-0} $(stat -c %s M) $p" >>"$W/result"
done
{ cat "$W/result" >&3; } 2>/dev/null || true
