#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/textsize.sh — issue 6 item 4: how monprof's cost and prof's report
# time grow with the text size of the profiled program.  For each size it
# generates a program (bench/bigtext.c + generated assembly: 1000 leaf
# functions, each a countdown loop padded with int3 bytes to SIZE/1000
# bytes), so the text grows while the number of symbols and the work
# (WORK million loop iterations, about 2 CPU-s) stay the same; the hits
# are spread over all 1000 functions.  For each size:
#   mon.out   size of the file monrun -r 1000 writes (one 32-bit bin per 4
#             bytes of every executable segment: the program's text plus the
#             C library's, ld.so's and libmon's, about 1.6 MB)
#   CPU ratio profiled / unprofiled CPU (user + system, from wait4), median
#             of RUNS alternating rounds
#   exit CPU, exit wall  what the process spent after main returned (bigtext
#             stamps its CPU clock and the monotonic clock at the end of main;
#             bench/rusage.c reads the totals at exit): writing mon.out.
#             Median over the rounds, the unprofiled run's median taken off.
#   cost      monprof's share of the CPU as perf sees it (bench/cost.sh's
#             method): perf at 10 kHz on the unprofiled and the profiled run,
#             the share in libmon plus the rise of the kernel's share.
#   prof      wall time of `prof -m mon.out PROG` (flat report), best of 3,
#             and its peak resident memory
#   sh bench/textsize.sh [BUILD_DIR] [RUNS] [SIZES] [WORK]
# SIZES in bytes, default "100000 1000000 10000000 100000000".
# Output lines (also to fd 3 when it is open):
#   textsize TEXT_BYTES MONOUT_BYTES CPU_RATIO EXIT_CPU_S EXIT_WALL_S COST_PCT PROF_S PROF_KB
set -u
. "$(dirname "$0")/lib.sh"
RUNS=${2:-3}
SIZES=${3:-100000 1000000 10000000 100000000}
WORK=${4:-4000}
NFUNC=1000
need_tools linux-perf
cd "$W" || exit 1
$CC -O2 -o rusage "$BENCH/rusage.c" || die "cannot build rusage.c"

# gen SIZE: assembly for NFUNC leaf functions of SIZE / NFUNC bytes each
gen() {
	awk -v n="$NFUNC" -v size="$1" 'BEGIN {
	pad = int(size / n) - 16; if (pad < 0) pad = 0
	print "\t.text"
	for (i = 0; i < n; i++) {
		printf "\t.p2align 4\n\t.globl f%d\n\t.type f%d, @function\nf%d:\n", i, i, i
		printf "\tmov %%rdi, %%rax\n1:\tsub $1, %%rax\n\tjnz 1b\n\tret\n"
		if (pad) printf "\t.skip %d, 0xcc\n", pad
		printf "\t.size f%d, .-f%d\n", i, i
	}
	print "\t.section .data.rel.ro,\"aw\"\n\t.p2align 3\n\t.globl bigtext_funcs\nbigtext_funcs:"
	for (i = 0; i < n; i++) printf "\t.quad f%d\n", i
	printf "\t.section .rodata\n\t.p2align 3\n\t.globl bigtext_nfunc\nbigtext_nfunc:\n\t.quad %d\n", n
	print "\t.section .note.GNU-stack,\"\",@progbits"
	}'
}

# one TOOL: run the program once, unprofiled (none) or under monrun;
# appends "cpu_total exit_cpu exit_wall" to TOOL.t
one() {
	rm -f stamp M
	if [ "$1" = none ]; then
		./rusage ./big "$WORK" stamp 2>ru >/dev/null || die "big failed"
	else
		./rusage "$MONRUN" -r 1000 -o "$W/M" ./big "$WORK" stamp 2>ru >/dev/null || die "big failed under monrun"
	fi
	paste -d' ' ru stamp | awk '{ c = $1 + $2; printf "%.6f %.6f %.6f\n", c, c - $4, $3 - $5 }' >>"$1.t"
}

share() {	# share FILE: "kernel% libmon%" of the program's samples
	perf report -i "$1" --stdio --sort comm,dso 2>/dev/null |
		awk '/^ *[0-9.]+%/ && $2 == "big" { v = $1 + 0; s += v
			if ($3 ~ /^libmon/) m += v; if ($3 ~ /kernel/) k += v }
			END { if (s == 0) s = 1; printf "%.3f %.3f\n", 100 * k / s, 100 * m / s }'
}

best3() {	# best of 3 wall-clock runs of the command, seconds
	for i in 1 2 3; do
		s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
		echo "$s $e" | awk '{ print $2 - $1 }'
	done | sort -g | head -1
}

echo "== growth with text size: $NFUNC functions, $WORK M iterations, monrun -r 1000; median of $RUNS rounds"
printf '%10s %10s %8s %9s %9s %7s %8s %9s\n' text mon.out "CPU rat." "exit CPU" "exit wall" "cost %" "prof s" "prof MB"
for size in $SIZES; do
	gen "$size" >big.s && $CC -O2 -o big "$BENCH/bigtext.c" big.s || die "cannot build the $size-byte program"
	text=$(size -A big | awk '$1 == ".text" { print $2 }')
	rm -f none.t mon.t
	one none	# warm the caches
	rm -f none.t
	r=1
	while [ "$r" -le "$RUNS" ]; do
		one none
		one mon
		r=$((r + 1))
	done
	mon=$(stat -c %s M)
	cratio=$(paste -d' ' none.t mon.t | awk '{ print $4 / $1 }' | median)
	ecpu=$(awk -v b="$(awk '{ print $2 }' none.t | median)" '{ print $2 - b }' mon.t | median)
	ewall=$(awk -v b="$(awk '{ print $3 }' none.t | median)" '{ print $3 - b }' mon.t | median)
	perf record -q -F 10000 -e cpu-clock -o P0 -- ./big "$WORK" >/dev/null 2>&1 || die "perf record failed"
	perf record -q -F 10000 -e cpu-clock -o P1 -- "$MONRUN" -r 1000 -o "$W/M" ./big "$WORK" >/dev/null 2>&1 ||
		die "perf record of monrun failed"
	cost=$(echo "$(share P0) $(share P1)" | awk '{ printf "%.2f", ($3 - $1) + $4 }')
	p=$(best3 "$PROF" -m M ./big)
	kb=$(/usr/bin/time -f %M "$PROF" -m M ./big 2>&1 >/dev/null | tail -n 1)
	printf '%10s %10s %8.3f %8.3fs %8.3fs %7s %7.3fs %9.0f\n' "$text" "$mon" "$cratio" "$ecpu" "$ewall" "$cost" "$p" "$((kb / 1024))"
	echo "textsize $text $mon $cratio $ecpu $ewall $cost $p $kb" >>"$W/result"
done
{ cat "$W/result" >&3; } 2>/dev/null || true
