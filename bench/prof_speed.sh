#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# prof's speed against GNU gprof on the same input (not part of make check).
#  1. a generated -pg program with N functions (default 20000, libpython3.11's
#     size; several sizes may be given, "2000 20000", for the growth table):
#     its gmon.out read by `prof` and by `gprof -p -b`, best of 5 wall times;
#  2. if libpython3.11 is installed: a mon.out naming it as a loaded object,
#     so prof reads its ~20 000 symbols (.symtab or .dynsym + debug file).
# Usage: sh bench/prof_speed.sh [BUILD_DIR] [N...]
# Output lines "report N SYMBOLS PROF_S GPROF_S" also go to fd 3 when open.
B=${1:-build} NS=${2:-20000}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "$ROOT/$B" && pwd)
T=$(mktemp -d) && trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
best() {	# best of 5 wall-clock runs, seconds
	for i in 1 2 3 4 5; do
		s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
		echo "$s $e" | awk '{ print $2 - $1 }'
	done | sort -n | head -1
}
for N in $NS; do
awk -v n="$N" 'BEGIN {
	print "volatile unsigned long sink;"
	for (i = 0; i < n; i++)
		printf "__attribute__((noinline)) void f%d(void) { for (int k = 0; k < %d; k++) sink += k; }\n", i, 200 + (i % 7) * 50
	print "int main(void) { for (int r = 0; r < 40; r++) {"
	for (i = 0; i < n; i++) printf "f%d();\n", i
	print "} return 0; }"
}' >big.c
${CC:-cc} -O1 -pg -o big big.c || exit 1
rm -f gmon.out
./big
syms=$(nm big | grep -c ' [Tt] ')
p=$(best "$B/bin/prof" -m gmon.out big)
g=$(best gprof -p -b big gmon.out)
echo "gmon.out of $N functions ($syms text symbols): prof ${p}s, gprof -p ${g}s, ratio $(awk -v a="$p" -v b="$g" 'BEGIN { printf "%.2f", a / b }')"
{ echo "report $N $syms $p $g" >&3; } 2>/dev/null || true
done
LP=/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0
if [ -r "$LP" ] && [ -x "$B/bin/prof" ]; then
	${CC:-cc} -O1 -I"$ROOT/format" -o craft "$ROOT/tests/progs/prof_craft.c" "$B/lib/libmon.a" \
		-ldl -lpthread -lrt || exit 1
	id=$(readelf -n "$LP" | awk '/Build ID:/ { print $3; exit }')
	bias=0x7f0000000000
	./craft py.mon -o "$T/big:0:0x1000:0x2000:1" -o "$LP:$bias:0x7f0000000000:0x7f0000400000:0:$id" \
		-h 0x7f0000100000:0x7f0000300000:0x8000:524288 -b 1000:5 -b 200000:7
	echo "symbols in libpython3.11: $(nm -D --defined-only "$LP" | wc -l) dynamic"
	p=$(best "$B/bin/prof" -m py.mon)
	echo "mon.out with libpython3.11 loaded: prof ${p}s"
fi
