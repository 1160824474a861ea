#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Every export's wall-clock and off-CPU totals are prof's own (JSON's
# total_ticks, the text report's) for the same --sample: the folded lines'
# sum (with and without --threads), the flame graph's header count,
# callgrind's totals line, and pprof's wall-samples and off-cpu-samples
# (go tool pprof -raw), whose nanoseconds are those samples at the wall
# rate; no pprof row has wall time and no wall sample.
#   A running or runnable thread's samples (no stack) are placed on its CPU
# stacks in proportion to their samples; as shares of a sample, rounded row
# by row, they did not add up (a monrun --wall profile: pprof 39764
# wall-samples for prof's 40062, folded 29322 for the flame graph's 29377).
# Twice: on a crafted file (10 running and 5 runnable samples over three
# CPU stacks of one sample each: thirds of a sample) and on a real
# monrun --wall run of threads that work and sleep in turns
# (tests/progs/wall_turns.c).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
MONRUN=$B/bin/monrun
cd "$T" || exit 1
command -v as >/dev/null && command -v ld >/dev/null || { echo "SKIP no as/ld"; exit 77; }
build_prog_static craft prof_craft.c -I"$ROOT/format" || { not_ok exports_craft_build; exit 1; }
stacks_inputs || { not_ok exports_craft_stacks; exit 1; }
_S=0x401008 _M=0x401020 _H=0x401060 _E=0x4010a0 _W=0x4010e0
./craft t.mon -o "stacks:0:0x401000:0x401190:1:$SID" \
	-h 0x401000:0x401190:0x8000:100 -b 56:1 -b 40:1 -b 24:1 -T 100:main \
	-k 1:100:0:$_W,$_H,$_M,$_S -k 1:100:0:$_E,$_M,$_S -k 1:100:0:$_H,$_M,$_S \
	-W 100:200000:20:0:30000:0:0 -X 100:20:20:0:main \
	-w 10:100:1:0xffffffff:0xffffffff:0 -w 5:100:2:0xffffffff:0xffffffff:0 \
	-w 5:100:3:230:0xffffffff:0:$_W,$_H,$_M,$_S || { not_ok exports_craft_wall; exit 1; }
$CC -O1 -g -o turns "$ROOT/tests/progs/wall_turns.c" -lpthread || { not_ok exports_build; exit 1; }
# 4 threads, 3 sets of them, 1 s each: busy 2 ms, asleep 3 ms and 1 ms.
timeout 120 "$MONRUN" --wall=1000 -o r.mon ./turns 1 4 2000 3000 1000 3 >/dev/null ||
	{ not_ok exports_run "exit $?"; exit 1; }

# pprof's -raw sample lines: "V1 V2 ...: LOCATIONS", the values in the
# order of the "samples/count cpu/nanoseconds ..." line above them.
raw_sums() {	# FILE: "wall-samples wall-ns off-cpu-samples off-cpu-ns zero-rows"
	HOME=$T GOCACHE=$T/gocache GOFLAGS=-mod=mod timeout 120 go tool pprof -raw "$1" 2>/dev/null |
	awk '/^Samples:/ { getline; for (i = 1; i <= NF; i++) { t = $i; sub(/\[dflt\]/, "", t); col[t] = i }; f = 1; next }
		/^Locations/ { f = 0 }
		f && /: / { sub(/:.*/, ""); ws += $col["wall-samples/count"]; wn += $col["wall/nanoseconds"]
			os += $col["off-cpu-samples/count"]; on += $col["off-cpu/nanoseconds"]
			if ($col["wall-samples/count"] == 0 && $col["wall/nanoseconds"] > 0) z++ }
		END { printf "%d %.0f %d %.0f %d\n", ws, wn, os, on, z }'
}

for f in t r; do
	bad=
	wt= ot=
	for s in wall offcpu; do
		"$PROF" -m $f.mon --sample=$s --format=json >$f.$s.json 2>/dev/null
		tot=$(sed -n 's/.*"total_ticks":\([0-9.e+]*\).*/\1/p' $f.$s.json | head -n 1)
		rate=$(sed -n 's/.*"rate_hz":\([0-9.e+]*\).*/\1/p' $f.$s.json | head -n 1)
		[ -n "$tot" ] || { bad="$bad $s: no total_ticks;"; continue; }
		# a whole number of samples (its placements are whole samples)
		awk -v t="$tot" 'BEGIN { exit !(t > 0 && t == int(t)) }' || bad="$bad $s total $tot;"
		[ $s = wall ] && wt=$tot rt=$rate || ot=$tot
		"$PROF" -m $f.mon --sample=$s --format=text 2>/dev/null | head -n 3 >$f.$s.txt
		for th in "" --threads; do
			"$PROF" -m $f.mon --sample=$s --format=folded $th >$f.$s.folded 2>/dev/null
			got=$(awk '{ n += $NF } END { print n + 0 }' $f.$s.folded)
			[ "$got" = "$tot" ] || bad="$bad $s folded$th $got;"
		done
		"$PROF" -m $f.mon --sample=$s --format=flame >$f.$s.svg 2>/dev/null
		got=$(sed -n 's/.*<text class="s"[^>]*>\([0-9,.]*\) samples (.*/\1/p' $f.$s.svg | tr -d , | head -n 1)
		[ "$got" = "$tot" ] || bad="$bad $s flame '$got';"
	done
	# callgrind: totals of Wall_samples and OffCPU_samples (--sample=wall
	# puts wall first: its events line names the order).
	"$PROF" -m $f.mon --sample=wall --format=callgrind >$f.cg 2>/dev/null
	got=$(awk '/^events:/ { for (i = 2; i <= NF; i++) c[$i] = i }
		/^totals:/ { print $c["Wall_samples"], $c["OffCPU_samples"] }' $f.cg)
	[ "$got" = "$wt $ot" ] || bad="$bad callgrind '$got';"
	# the crafted file: 20 wall samples, 10 of them off-CPU (runnable, asleep)
	[ $f = r ] || [ "$wt $ot" = "20 10" ] || bad="$bad crafted totals $wt $ot, not 20 10;"
	if [ -z "$bad" ]; then ok exports_totals_$f
	else agree_not_ok exports_totals_$f "prof: wall $wt offcpu $ot;$bad"; fi

	if command -v go >/dev/null; then
		"$PROF" -m $f.mon --sample=wall --format=pprof >$f.pb.gz 2>/dev/null
		got=$(raw_sums $f.pb.gz)
		# nanoseconds: the samples at the wall rate (1e9 / rate each)
		want=$(awk -v w="$wt" -v o="$ot" -v r="$rt" 'BEGIN { printf "%d %.0f %d %.0f 0\n", w, w * 1e9 / r, o, o * 1e9 / r }')
		if [ "$got" = "$want" ]; then ok exports_pprof_$f
		else agree_not_ok exports_pprof_$f "pprof -raw (wall-samples wall-ns off-samples off-ns rows-without-samples) '$got', prof '$want'"; fi
	else
		ok "exports_pprof_$f # skip no go (golang-go)"
	fi
done

# A program that waited all along (a shell waiting for its child): no CPU
# sample, its time in 20 blocked wall-clock samples.  prof's warning says
# that no CPU sample was taken and where its time is, not that the report
# has no time (a new user's dash: "no samples" beside 9 s of wall samples).
# Mutation: the wall samples not counted in the warning (attribute.c):
# exports_no_cpu_said fails.
./craft nc.mon -o "stacks:0:0x401000:0x401190:1:$SID" \
	-h 0x401000:0x401190:0x8000:100 -T 100:main \
	-W 100:200000:20:0:30000:0:0 -X 100:20:20:0:main \
	-w 20:100:3:230:0xffffffff:0:$_W,$_H,$_M,$_S || not_ok exports_no_cpu_craft
"$PROF" -m nc.mon --sample=wall >nc.txt 2>nc.err
if grep -q "warning: no CPU samples: .* its 20 wall-clock samples are shown with --sample=wall" nc.err &&
    ! grep -q "report has no time" nc.err; then
	ok exports_no_cpu_said
else
	not_ok exports_no_cpu_said "$(cat nc.err)"
fi
