#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/clang_hour.sh [BUILD] [SECONDS] — the call stacks a long compile by
# clang++ keeps (issue 22, item 6: "an hour of a large C++ program keeps
# >= 99 % of its stacks").  Not part of make check.
#
# bench/clang_big.py N writes a C++17 file of N namespaces, each a distinct
# set of template instantiations.  The script times `clang++ -O2 -c` of two
# small N (the per-namespace CPU and memory from their difference), picks
# N so that the compile takes SECONDS of CPU (default 3600), capped so its
# estimated peak memory stays under half of MemAvailable, and runs the
# compile job itself (clang -cc1, which Debian's clang++ starts as a child;
# its command line from `clang++ -###`) under monrun with its defaults
# at RATE samples a CPU-second (default 1000; where memory caps the
# compile below SECONDS, a higher RATE draws the samples of a longer run
# from the same compile) (MONRUN_OPTS adds options, e.g. --control).  Prints the CPU, the samples,
# the unique stacks kept and the samples whose stack was lost, prof -s's
# warnings, and PASS when >= 99 % of the samples kept their stack.
# N=namespaces skips the calibration.
. "$(dirname "$0")/lib.sh"
SECS=${2:-3600}
RATE=${RATE:-1000}
command -v clang++ >/dev/null || need_tools clang
$CC -O1 -g -I"$ROOT/format" -o "$W/mon_dump" "$ROOT/tests/progs/mon_dump.c" \
	"$ROOT"/format/*.c || die "build mon_dump"
cd "$W" || exit 1

# cpu_rss N: "CPU-seconds maxrss-KiB" of one unprofiled compile of N namespaces
cpu_rss() {
	python3 "$BENCH/clang_big.py" "$1" >"c$1.cpp" || die "generate $1"
	/usr/bin/time -f "%U %S %M" -o "t$1" clang++ -std=c++17 -O2 -c "c$1.cpp" -o "c$1.o" ||
		die "compile of $1 namespaces failed"
	awk '{ printf "%.2f %d\n", $1 + $2, $3 }' "t$1"
}
if [ -z "${N:-}" ]; then
	N1=${N1:-10}
	N2=${N2:-40}
	set -- $(cpu_rss "$N1") $(cpu_rss "$N2")
	C1=$1 M1=$2 C2=$3 M2=$4
	AVAIL=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
	N=$(awk -v s="$SECS" -v n1="$N1" -v n2="$N2" -v c1="$C1" -v c2="$C2" -v m1="$M1" -v m2="$M2" \
		-v avail="$AVAIL" 'BEGIN {
		dc = (c2 - c1) / (n2 - n1); dm = (m2 - m1) / (n2 - n1); if (dm < 1) dm = 1
		n = int(n2 + (s - c2) / dc); cap = int(n2 + (avail / 2 - m2) / dm)
		if (n > cap) n = cap; if (n < n2) n = n2; print n }')
	echo "calibration: $N1 namespaces $C1 CPU-s $M1 KiB; $N2 namespaces $C2 CPU-s $M2 KiB; MemAvailable $AVAIL KiB"
fi
echo "compiling $N namespaces (asked: $SECS CPU-s) at $RATE Hz"
python3 "$BENCH/clang_big.py" "$N" >big.cpp || die "generate $N"
CC1=$(clang++ -### -std=c++17 -O2 -c big.cpp -o big.o 2>&1 | grep -- '"-cc1"' | tail -1)
[ -n "$CC1" ] || die "no cc1 line in clang++ -###"
START=$(date +%s)
eval "/usr/bin/time -f '%U %S %M %e' -o time.txt \"$MONRUN\" -r $RATE ${MONRUN_OPTS:-} -o clang.out $CC1" ||
	die "the profiled compile failed"
END=$(date +%s)
read -r U S RSS E <time.txt
echo "profiled compile: $U s user + $S s system, $E s elapsed, max RSS $RSS KiB ($START-$END)"
"$W/mon_dump" clang.out stacks 0 0 | awk '{
	kept = $6 + $8 > 0 ? 100 * $6 / ($6 + $8) : 0
	printf "unique stacks %s, samples with a stack %s, samples whose stack was lost %s: %.3f %% kept\n", $4, $6, $8, kept
	exit !(kept >= 99) }'
OK=$?
"$PROF" -s -m clang.out "$(command -v clang++ | xargs readlink -f)" 2>&1 >/dev/null |
	grep -i -E "^samples|call stacks|lost|table" | sed 's/^\(prof: \)*/prof: /'
[ "$OK" = 0 ] && echo "PASS stacks: >= 99 % of the samples kept their stack" ||
	echo "FAIL stacks: under 99 % of the samples kept their stack"
exit "$OK"
