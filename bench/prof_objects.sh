#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/prof_objects.sh — issue 12: prof's report time and memory on large
# stripped objects, FDE splitting included, and its memory on a histogram
# of a very large text (not part of make check).
#  1. For each object (default: python3.11, libpython3.11, gzip, liblzma),
#     a mon.out naming it as loaded, with a whole-process histogram over
#     its whole text (4 bytes a bin, sparse) holding 1000 non-zero bins
#     spread evenly; prof reads its symbols and unwind table and prints
#     the report.  CPU (user + system) and wall time, best of 5, peak RSS,
#     and the number of rows (kind unwind / function) with time.
#  2. A sparse histogram of 25 million bins (100 MB of text at 4 bytes a
#     bin) with 1000 non-zero bins: prof's peak RSS (it used to widen
#     every bin to 8 bytes: 200 MB).
# Usage: sh bench/prof_objects.sh [BUILD_DIR] [OBJECT...]
# Output lines "objects PATH TEXT_BYTES FDES CPU_S WALL_S RSS_KB ROWS" and
# "bigtext BINS RSS_KB CPU_S" also go to fd 3 when it is open.
B=${1:-build}; [ $# -gt 0 ] && shift
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "$ROOT/$B" && pwd)
T=$(mktemp -d) && trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
L=/usr/lib/x86_64-linux-gnu
OBJS=${*:-/usr/bin/python3.11 $L/libpython3.11.so.1.0 /usr/bin/gzip $L/liblzma.so.5}
${CC:-cc} -O1 -I"$ROOT/format" -o craft "$ROOT/tests/progs/prof_craft.c" "$B/lib/libmon.a" \
	-ldl -lpthread -lrt || exit 1
printf 'int main(void) { return 0; }\n' >m.c && ${CC:-cc} -o m m.c || exit 1
MB=$((0x555555554000))
MAIN="$T/m:$(printf '%#x' $MB):$(printf '%#x' $((MB + 0x1000))):$(printf '%#x' $((MB + 0x2000))):1"
best() {	# "CPU WALL RSS" of the best of 5 runs (by CPU)
	for i in 1 2 3 4 5; do
		/usr/bin/time -f '%U %S %e %M' "$@" 2>&1 >/dev/null | tail -1 |
			awk '{ printf "%.3f %.3f %d\n", $1 + $2, $3, $4 }'
	done | sort -n | head -1
}
for o in $OBJS; do
	[ -r "$o" ] || { echo "skip $o: not installed"; continue; }
	id=$(readelf -n "$o" | awk '/Build ID:/ { print $3; exit }')
	lo=$(readelf -SW "$o" | awk '$2 == ".text" { print "0x" $4 }')
	sz=$(readelf -SW "$o" | awk '$2 == ".text" { print "0x" $6 }')
	typ=$(readelf -h "$o" | awk '/Type:/ { print $2 }')
	bias=0; [ "$typ" = DYN ] && bias=$((0x7f0000000000))
	nb=$((sz / 4))
	args=
	i=0
	while [ $i -lt 1000 ]; do args="$args -b $((i * (nb / 1000))):$((i % 7 + 1))"; i=$((i + 1)); done
	# shellcheck disable=SC2086
	./craft o.mon -S -o "$MAIN" -o "$o:$(printf '%#x' $bias):$(printf '%#x' $((bias + lo))):$(printf '%#x' $((bias + lo + sz))):0:$id" \
		-h "$(printf '%#x' $((bias + lo))):$(printf '%#x' $((bias + lo + nb * 4))):0x8000:$nb" $args || exit 1
	fdes=$(readelf -wf "$o" 2>/dev/null | grep -c ' FDE ')
	r=$(best "$B/bin/prof" -m o.mon)
	rows=$("$B/bin/prof" -m o.mon --format=csv 2>/dev/null |
		awk -F, 'NR > 1 { n[$2]++ } END { printf "%d unwind, %d function, %d gap", n["unwind"], n["function"], n["gap"] }')
	echo "$o: text $((sz)) bytes, $fdes FDEs: prof CPU $(echo "$r" | cut -d' ' -f1) s, wall $(echo "$r" | cut -d' ' -f2) s, RSS $(echo "$r" | cut -d' ' -f3) KB; rows with time: $rows"
	{ echo "objects $o $((sz)) $fdes $r $rows" >&3; } 2>/dev/null || true
done
# 100 MB of text, 4 bytes a bin, 1000 bins hit.
nb=25000000 lo=$((0x7f1000000000))
args=
i=0
while [ $i -lt 1000 ]; do args="$args -b $((i * (nb / 1000))):3"; i=$((i + 1)); done
# shellcheck disable=SC2086
./craft big.mon -S -o "$MAIN" -h "$(printf '%#x' $lo):$(printf '%#x' $((lo + nb * 4))):0x8000:$nb" $args || exit 1
r=$(best "$B/bin/prof" -m big.mon)
echo "sparse histogram of $nb bins (100 MB of text), 1000 non-zero, file $(wc -c <big.mon) bytes: prof CPU $(echo "$r" | cut -d' ' -f1) s, RSS $(echo "$r" | cut -d' ' -f3) KB"
{ echo "bigtext $nb $(echo "$r" | cut -d' ' -f3) $(echo "$r" | cut -d' ' -f1)" >&3; } 2>/dev/null || true
