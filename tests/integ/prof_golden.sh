#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Whole-output goldens: prof's text, JSON and CSV reports, and what it says
# on standard error, compared byte for byte with tests/golden/ (one check per
# case of tests/golden/cases; a failure shows the diff).
#
# The inputs are deterministic, so every byte of the output is:
#   - the program, tests/golden/golden.s, is assembled and linked by as(1)
#     and ld(1) alone at a fixed address with a fixed build ID (no compiler,
#     no C library: its functions' addresses and sizes do not depend on the
#     machine's toolchain version);
#   - the mon.out files are written by the format module's writer
#     (tests/progs/prof_craft.c), the gmon.out by tests/progs/gmon_craft.c,
#     from the numbers below;
#   - objects are recorded by relative path, and prof runs in the directory
#     that holds them, so no temporary path is printed.
# GOLDEN_UPDATE=1 rewrites the golden files from this run instead (for a
# change of output that is meant: review the diff before committing it).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
G=$ROOT/tests/golden
cd "$T" || exit 1
command -v as >/dev/null && command -v ld >/dev/null || { echo "SKIP no as/ld"; exit 77; }

ID=676f6c64656e2d6d6f6e70726f662d31	# "golden-monprof-1"
if ! as --64 -o golden.o "$G/golden.s" ||
   ! ld -static -nostdlib --build-id=0x$ID -Ttext=0x401000 -o golden golden.o; then
	not_ok golden_build "as/ld failed"; exit 1
fi
build_prog_static craft prof_craft.c -I"$ROOT/format" || { not_ok craft_build; exit 1; }
$CC -O1 -g -o gcraft "$ROOT/tests/progs/gmon_craft.c" || { not_ok gmon_craft_build; exit 1; }
# s.mon and ./stacks: a profile with call stacks (prof_lib.inc).
stacks_inputs || { not_ok craft_stacks; exit 1; }
# sc.mon: s.mon with call counts (as -pg records them, mid-function: work
# 1001 calls, easy and hard 1, rec 3), for System V's five columns in their
# places with the inclusive ones after msec/call.
stacks_inputs sc.mon -c 0x4010e5:1001 -c 0x4010a5:1 -c 0x401065:1 -c 0x401125:3 ||
	{ not_ok craft_stacks_calls; exit 1; }
# bg.mon: s.mon with 65 M more calls from easy into work, wider than the
# graph's "called" column (65456508/65456509): the columns stay apart.
stacks_inputs bg.mon -A 0x4010a5:0x4010d5:65455508 || { not_ok craft_stacks_wide; exit 1; }
# w.mon: the same program with wall-clock samples (prof_lib.inc).
wall_inputs || { not_ok craft_wall; exit 1; }
# wt.mon: w.mon whose runtime's tables were full: 3 threads not wall-clock
# sampled and 40 wall samples not recorded (WALL), 5 threads not listed
# (FACTS): each warning names its remedy.
wall_inputs wt.mon 100:2000000:200:3:4000:6000:0:3:40 -E 2000000:1700000000:42:0:5 ||
	{ not_ok craft_wall_tables; exit 1; }
# The wall-clock sampler's cost (wall-cost): 0.2 s of its own CPU in 2 s is
# said, with the remedy; 0.6 ms in 2 ms (a wrapper that exec'd at once: a
# fresh user's "31 % of one CPU (0.000 s in 0.00 s)") is not.  Mutation
# caught: no floor on the sampler's CPU (wcs.mon warned).
wall_inputs wc.mon 100:2000000:200:3:150000:50000:0 &&
	wall_inputs wcs.mon 100:2000:200:3:400:200:0 || { not_ok craft_wall_cost; exit 1; }
"$PROF" -m wc.mon >/dev/null 2>wc.err
"$PROF" -m wcs.mon >/dev/null 2>wcs.err
if grep -q "warning: the wall-clock sampler's own thread used 10 % of one CPU (0.200 s in 2.00 s; .*lower the rate (monrun --wall=HZ, MONPROF_WALL=HZ)" wc.err &&
   ! grep -q "sampler's own thread used" wcs.err; then
	ok wall_cost_said
else
	not_ok wall_cost_said "$(grep -h "own thread used" wc.err wcs.err | cut -c1-200 | tr '\n' '|')"
fi

# a.mon: the program (text 0x401000..0x401140) and a library whose file is
# gone; one histogram over the program whose 8-byte bins (scale 0x4000)
# start 4 bytes into _start, so that bins straddle functions and are split
# (System V's rule); one over the library; one over no object.  Call counts
# into alpha (mid-function, as mcount records), beta (its entry), golden::
# work (a count wider than the #Calls column) and no function, and the arcs
# behind them (kept in prof's model; no renderer prints them yet, so the
# reports must not change with them).  The RUN record's counters give the
# dropped/saturated/lost warnings.
OBJ=golden:0:0x401000:0x401140:1:$ID
LIB=/nonexistent/libgone.so:0x7f0000000000:0x7f0000001000:0x7f0000003000:0
./craft a.mon -s 2300:5:3:2 -o "$OBJ" -o "$LIB" \
	-h 0x401004:0x401144:0x4000:40 -b 1:400 -b 2:300 -b 9:150 -b 10:90 -b 15:60 \
	   -b 20:45 -b 24:30 -b 28:250 -b 30:125 -b 39:7 \
	-h 0x7f0000001000:0x7f0000001100:0x8000:64 -b 5:35 \
	-h 0x10000:0x10100:0x8000:64 -b 0:12 \
	-c 0x401019:1234 -c 0x401050:7 -c 0x4010e5:12345678 -c 0x401200:3 \
	-A 0x401005:0x401019:1234 -A 0x401020:0x401050:4 -A 0x401060:0x401050:3 \
	-A 0x401015:0x4010e5:12345678 -A 0x401125:0x401200:3 ||
	{ not_ok craft_a; exit 1; }
# b.mon: a second run at another rate (summed with -m: "rates differ").
./craft b.mon -r 500 -o "$OBJ" -h 0x401000:0x401140:0x8000:80 -b 5:20 -b 21:8 -b 72:3 \
	-c 0x401015:66 -S || { not_ok craft_b; exit 1; }
# bi.mon: b.mon's histogram taken with the itimer clock (a.mon's is the perf
# clock), 1 sample of 40 dropped: prof --base=bi.mon warns that the clocks
# differ, and each file's warnings name their file.
./craft bi.mon -r 500 -C 3 -s 40:1:0:0 -o "$OBJ" -h 0x401000:0x401140:0x8000:80 -b 5:20 \
	-b 21:8 -b 72:3 -S || { not_ok craft_bi; exit 1; }
# one.mon: counts of one (one sample in the histograms, one each saturated,
# dropped and lost, a thread of one sample): singular words.
./craft one.mon -s 4:1:1:1 -o "$OBJ" -h 0x401000:0x401140:0x8000:80 -b 5:1 \
	-U 100:1:1000:0:0:main -E 5000:1700000000:42 || { not_ok craft_one; exit 1; }
# e1.mon, e2.mon: two processes' files, written at whole seconds (RUN's
# time) 10 and 12 after 1700000000 after 1.25 s and 1.2 s: -s's span of
# both is to the second (3 s); i1.mon, i2.mon: two intervals of one process
# whose bounds (INTERVAL, nanoseconds) give 2.250 s.
H1="-h 0x401000:0x401140:0x8000:80 -b 5:20"
./craft e1.mon -o "$OBJ" $H1 -E 1250000:1700000010:11 &&
./craft e2.mon -o "$OBJ" $H1 -E 1200000:1700000012:12 &&
./craft i1.mon -o "$OBJ" $H1 -E 1000000:1700000001:13 \
	-I 1:1700000000000000000:1700000001000000000:0 &&
./craft i2.mon -o "$OBJ" $H1 -E 1250000:1700000002:13 \
	-I 2:1700000001000000000:1700000002250000000:0 || { not_ok craft_elapsed; exit 1; }
# g.gmon: glibc's profiler's file for the same program: 4-byte bins (gprof's
# uniform rule), arcs whose counts add up per callee.
./gcraft g.gmon -r 100 -h 0x401000:0x401140:80 -b 4:50 -b 5:25 -b 20:12 -b 33:9 -b 60:4 \
	-a 0x401020:0x401050:9 -a 0x4010f0:0x401050:5 -a 0x401000:0x4010e0:1 ||
	{ not_ok craft_gmon; exit 1; }

grep -v '^#' "$G/cases" | while IFS='|' read -r name args; do
	[ -n "$name" ] || continue
	# shellcheck disable=SC2086 # args are words
	"$PROF" $args >"$name" 2>"$name.err"
	echo "exit $?" >>"$name.err"
	if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
		cp "$name" "$name.err" "$G/" && ok "golden_$name # updated"
		continue
	fi
	bad=
	for f in "$name" "$name.err"; do
		if [ ! -f "$G/$f" ]; then
			bad="$bad $f(no golden file)"
		elif ! cmp -s "$G/$f" "$f"; then
			bad="$bad $f"
			echo "--- diff tests/golden/$f (want) against prof's output (got):"
			diff -u "$G/$f" "$f" | head -n 60
		fi
	done
	if [ -z "$bad" ]; then ok "golden_$name"; else not_ok "golden_$name" "differs:$bad"; fi
done
