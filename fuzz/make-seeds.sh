#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# make-seeds.sh OUT [B] — build the seed corpora of the fuzz harnesses from
# real files: the profiles and programs the test suite's own programs make.
#   OUT/monout/  mon.out files: cc -pg, -finstrument-functions, monitor(),
#                a threaded profil() program, monrun on a shared library,
#                monrun --wall on threads that wait (a WALL record)
#   OUT/gmon/    the C library's gmon.out (gcc -pg without libmon), with the
#                harness's leading byte (1: 64-bit little-endian)
#   OUT/symtab/  ELF objects: a program, stripped, -pg, PIE and not, a
#                relocatable object, a shared object
# B is the build directory holding libmon and the tools (default build).
# Nothing is committed: the seeds are remade from the sources each time.
set -eu
OUT=$1
B=${2:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "$B" && pwd)
CC=${SEED_CC:-gcc}
mkdir -p "$OUT/monout" "$OUT/gmon" "$OUT/symtab"
OUT=$(cd "$OUT" && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/monprof-seeds.XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM
cd "$W"
unset PROFDIR MONPROF_OUT
P="$ROOT/tests/progs"
# Real profiles are megabytes (a histogram of the C library); trim keeps
# their structure in a few kilobytes.
$CC -O1 -I"$ROOT/format" -o trim "$ROOT/fuzz/trim.c" "$ROOT"/format/*.c
keep() { ./trim "$1" "$OUT/monout/$2" && cp "$1" "$W/full-$2"; }
LIBMON="-I$ROOT/include -L$B/lib -Wl,-rpath,$B/lib -lmon -lpthread -lm"

# A small program with a known call graph (prof's own test program).
$CC -O1 -g -pg -o pg "$P/prof_work.c" $LIBMON
./pg 3 2 1 20000 >/dev/null && keep mon.out pg.mon && rm -f mon.out
$CC -O1 -g -finstrument-functions -o fi "$P/prof_work.c" $LIBMON
./fi 2 2 2 20000 >/dev/null && keep mon.out fi.mon && rm -f mon.out
# monitor() with a buffer of the program's own, and profil() in threads.
$CC -O1 -g -I"$P" -o seed "$P/mon_seed.c" $LIBMON
./seed >/dev/null 2>&1 || true
for f in mon.out *.mon.out; do [ -f "$f" ] && keep "$f" "seed-$f"; done
rm -f mon.out ./*.mon.out
# The whole process under monrun: several objects, 32-bit bins.
$CC -O1 -g -o plain "$P/prof_work.c"
"$B/bin/monrun" -o "$W/whole.mon" ./plain 1 1 1 20000 >/dev/null 2>&1 &&
	keep whole.mon whole.mon
# Wall-clock samples (WALL, minor 5): threads blocked on a mutex, a pipe,
# epoll, a condition variable, a sleep, and one on the CPU.
$CC -O2 -g -o truth "$P/wall_truth.c" -lpthread
"$B/bin/monrun" --wall=200 -o "$W/wall.mon" ./truth 150 >/dev/null 2>&1 &&
	keep wall.mon wall.mon
# Hand-made files: big-endian, 4-byte addresses, every record type.
if [ -f "$P/prof_craft.c" ]; then
	$CC -O1 -g -I"$ROOT/include" -I"$ROOT/format" -o craft "$P/prof_craft.c" "$B/lib/libmon.a" \
		-ldl -lpthread -lrt -lm 2>/dev/null &&
	./craft "$OUT/monout/craft.mon" -o "/bin/true:0:0x1000:0x2000:1" \
		-h "0x1000:0x1040:0x8000:16" -b 0:5 -c "0x1009:2" 2>/dev/null || true
	# Call stacks (STACKS, minor 4) and the threads that name them.
	./craft "$OUT/monout/stacks.mon" -o "/bin/true:0:0x1000:0x2000:1" \
		-h "0x1000:0x1040:0x8000:16" -b 0:5 -T 7:main -T 8:worker -K 16:2:1 \
		-k 3:7:0:0x1004,0x1020,0x1030 -k 1:8:1:0x1008 -k 1:7:2:0x9000,0x1030 \
		2>/dev/null || true
fi

# gmon.out from the C library's profiler.
$CC -O1 -g -pg -o gp "$P/prof_work.c"
./gp 2 1 1 20000 >/dev/null
{ printf '\001'; cat gmon.out; } >"$OUT/gmon/glibc64le.gmon"
{ printf '\000'; cat gmon.out; } >"$OUT/gmon/glibc-as32le.gmon"
{ printf '\003'; cat gmon.out; } >"$OUT/gmon/glibc-as64be.gmon"

# ELF objects, kept small.
$CC -O1 -o "$OUT/symtab/prog" "$P/prof_work.c"
$CC -O1 -no-pie -o "$OUT/symtab/prog-nopie" "$P/prof_work.c"
cp "$OUT/symtab/prog" "$OUT/symtab/prog-stripped" && strip "$OUT/symtab/prog-stripped"
$CC -O1 -c -o "$OUT/symtab/prog.o" "$P/prof_work.c"
printf 'int f(int x){return x+1;}\nstatic int g(int x){return x*2;}\nint h(int x){return g(x);}\n' >so.c
$CC -O1 -shared -fPIC -o "$OUT/symtab/lib.so" so.c
cp "$OUT/symtab/lib.so" "$OUT/symtab/lib-stripped.so" && strip "$OUT/symtab/lib-stripped.so"

# .eh_frame sections (fuzz_cfi: a leading byte 0, the whole 32-bit text range).
mkdir -p "$OUT/cfi"
for o in "$OUT/symtab/prog" "$OUT/symtab/lib.so" "$B/lib/libmon.so"; do
	objcopy -O binary --only-section=.eh_frame "$o" ehf 2>/dev/null &&
		{ printf '\000'; cat ehf; } >"$OUT/cfi/$(basename "$o").ehf"
done
