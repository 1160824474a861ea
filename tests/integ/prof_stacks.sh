#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# prof on call stacks (mon.out STACKS records), on a crafted profile whose
# every number is known (prof_lib.inc's stacks_inputs): inclusive time,
# counted once per sample under recursion; the call graph charging work()
# to the caller that made it work (stacks), with the exact call counts of
# the arcs beside; the focus on callers and callees; folded stacks, exact;
# the split by thread; the warnings about lost, truncated, depth-limited and
# JIT stacks; and a profile without stacks left as it was.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
cd "$T" || exit 1
command -v as >/dev/null && command -v ld >/dev/null || { echo "SKIP no as/ld"; exit 77; }
build_prog_static craft prof_craft.c -I"$ROOT/format" || { not_ok craft_build; exit 1; }
stacks_inputs || { not_ok stacks_inputs; exit 1; }

# check NAME CONDITION-CMD... : ok when the command succeeds.
check() {
	name=$1; shift
	if "$@"; then ok "$name"; else not_ok "$name" "$(head -c 600 "$T/why" 2>/dev/null)"; fi
}

"$PROF" -m s.mon --format=csv >flat.csv 2>flat.err || not_ok csv_run "exit $?"
# Inclusive time: the last two columns; rec recursed 3 deep in 40 samples:
# 40 samples, not 120; main holds everything under it once.
incl() { csv_awk -F, -v n="$1" '$1 == n { print $14; exit }' flat.csv; }
selfs() { csv_awk -F, -v n="$1" '$1 == n { print $6; exit }' flat.csv; }
head -1 flat.csv | grep -q ',inclusive_percent,inclusive_seconds$' >why 2>&1
check csv_inclusive_columns test $? -eq 0
echo "rec $(incl rec) main $(incl main) hard $(incl hard) _start $(incl _start)" >why
# rec: 40 samples at 1000 Hz; main: 900+100+20+10+5+40+4 = 1079; hard: 900+10+8+4 = 922;
# _start: everything of thread 100 that reached it (1075) and worker's 30.
check inclusive_recursion_once test "$(incl rec)" = 0.040000
check inclusive_main test "$(incl main)" = 1.079000
check inclusive_hard test "$(incl hard)" = 0.922000
check inclusive_start_listed test "$(incl _start)" = 1.105000
echo "work self $(selfs work)" >why
check self_is_flat_profile test "$(selfs work)" = 1.062000
"$PROF" -m s.mon --format=json >flat.json 2>/dev/null
grep -q '"name":"rec".*"inclusive_ticks":40,' flat.json >why 2>&1
check json_inclusive test $? -eq 0

# The call graph: work's entry.  The stacks charge hard with 0.91 s of
# work's time (900 + 8 + 4 samples) and easy with 0.10; the arcs say that
# easy made 1000 of the 1001 calls, hard 1.
"$PROF" -m s.mon --graph >graph.txt 2>/dev/null || not_ok graph_run "exit $?"
work_entry() { awk '/^---/ { if (hit) exit; blk = ""; next } { blk = blk $0 "\n" }
	/^\[[0-9]+\] .* work \[[0-9]+\]$/ { hit = 1 } END { printf "%s", blk }' graph.txt; }
work_entry >why
work_entry | grep -Eq '^ +0\.91 +0\.00 +1/1001 +hard \[[0-9]+\]$'
check graph_hard_charged_by_stacks test $? -eq 0
work_entry | grep -Eq '^ +0\.10 +0\.00 +1000/1001 +easy \[[0-9]+\]$'
check graph_easy_calls_from_arcs test $? -eq 0
work_entry | grep -Eq '^\[[0-9]+\] +90\.8 +1\.06 +0\.00 +1001 +work \[[0-9]+\]$'
check graph_work_line test $? -eq 0
# hard's callers line comes first: more time, though fewer calls.
test "$(work_entry | grep -E 'hard|easy' | head -1 | awk '{ print $4 }')" = hard
check graph_callers_by_time test $? -eq 0
grep -Eq '^\[[0-9]+\] +3\.4 +0\.04 +0\.00 +1\+2 +rec \[[0-9]+\]$' graph.txt >why 2>&1
check graph_recursion test $? -eq 0

# Focus.  --callers=work: work and what reaches it, nothing else.
"$PROF" -m s.mon --callers=work >callers.txt 2>/dev/null
names() { grep -E '^\[[0-9]+\]' "$1" | awk '{ print $(NF-1) }' | sort | tr '\n' ' '; }
names callers.txt >why
check focus_callers test "$(names callers.txt)" = "[truncated] _start easy hard main work "
"$PROF" -m s.mon --callees=main >callees.txt 2>/dev/null
names callees.txt >why
check focus_callees test "$(names callees.txt)" = "easy hard main rec work "
grep -q 'worker\|_start' callees.txt
check focus_callees_no_callers test $? -ne 0
# The focus follows the stacks, not the edges: with worker also calling
# hard (7 samples of hard's own under worker), worker calls a caller of
# work but never reaches work, so it is not among work's callers; it is
# among hard's.  Each caller's time is what it spent reaching work: main
# 1.00 s (hard's 0.90, easy's 0.10), not its 1.08 s in all.
stacks_inputs s2.mon -k 7:101:0:$_H,0x401160,$_S || not_ok stacks_inputs_s2
"$PROF" -m s2.mon --callers=work >callers2.txt 2>/dev/null
names callers2.txt >why
check focus_callers_by_stacks test "$(names callers2.txt)" = "[truncated] _start easy hard main work "
"$PROF" -m s2.mon --callers=hard >callers3.txt 2>/dev/null
names callers3.txt >why
check focus_callers_hard test "$(names callers3.txt)" = "[truncated] _start hard main worker "
cat callers2.txt >why
grep -Eq '^\[[0-9]+\] +85\.[0-9] +0\.00 +1\.00 +main \[[0-9]+\]$' callers2.txt
check focus_callers_time_reaching test $? -eq 0
"$PROF" -m s2.mon --callees=worker >callees2.txt 2>/dev/null
names callees2.txt >why
check focus_callees_by_stacks test "$(names callees2.txt)" = "hard worker "
# Without any stack the counted calls alone say who reaches work: main
# through hard and easy (arcs only, from sc.mon's call counts).
./craft arcs.mon -o "stacks:0:0x401000:0x401190:1:$SID" -h 0x401000:0x401190:0x8000:100 \
	-b 56:100 -A 0x401065:0x4010d5:1 -A 0x4010a5:0x4010d5:1000 -A 0x401025:0x401055:1 \
	-A 0x401030:0x401095:1 -A 0x401045:0x401115:1 || not_ok arcs_craft
"$PROF" -m arcs.mon --callers=work >callers4.txt 2>/dev/null
names callers4.txt >why
check focus_callers_arcs_only test "$(names callers4.txt)" = "easy hard main work "
# ... each with its whole time (not only what a stack through NAME holds:
# none here): work's 100 samples, all the profile's.
"$PROF" -m arcs.mon --callees=main >callees4.txt 2>/dev/null
cat callees4.txt >why
grep -Eq '^\[[0-9]+\] +100\.0 +0\.10 +0\.00 +1001 +work \[[0-9]+\]$' callees4.txt
check focus_arcs_only_whole_time test $? -eq 0
# Counted calls go on through functions no stack holds (too quick to be
# sampled, or tail-called): main calls hard, which calls rec, neither ever
# sampled; the stacks hold only _start > main > easy > work.  rec is among
# main's callees; and a function no stack holds (rec) gets the call
# graph's focus: hard, main and main's callers.
./craft q.mon -o "stacks:0:0x401000:0x401190:1:$SID" -h 0x401000:0x401190:0x8000:100 \
	-b 56:100 -A 0x4010a5:0x4010d5:1000 -A 0x401025:0x401055:1 -A 0x401030:0x401095:1 \
	-A 0x401065:0x401115:1 -T 100:main -k 100:100:0:$_W,$_E,$_M,$_S || not_ok q_craft
"$PROF" -m q.mon --callees=main >callees5.txt 2>/dev/null
names callees5.txt >why
check focus_callees_unsampled test "$(names callees5.txt)" = "easy hard main rec work "
"$PROF" -m q.mon --callers=rec >callers5.txt 2>/dev/null
names callers5.txt >why
check focus_callers_of_unsampled test "$(names callers5.txt)" = "_start hard main rec "
# (the warnings about the stacks come first: checked below)
"$PROF" -m s.mon --callers=nosuch >nosuch.out 2>nosuch.err
echo "exit $? $(tail -1 nosuch.err)" >why
check focus_unknown_name test "$(cat why)" = \
	"exit 1 prof: --callers=nosuch: no function of that name in the profile"
check focus_unknown_name_no_output test ! -s nosuch.out
"$PROF" -m s.mon --callers=work --format=json >nojson.out 2>nojson.err
echo "exit $? $(head -1 nojson.err)" >why
check focus_not_json test "$(cat why)" = \
	"exit 2 prof: --callers and --callees focus the call graph: not with --format=json"

"$PROF" -m s.mon --callers=work --threads >nothr.out 2>nothr.err
echo "exit $? $(head -1 nothr.err)" >why
check focus_not_threads test "$(cat why)" = \
	"exit 2 prof: --threads splits the flat profile, the folded stacks and the flame graph by thread: not with --graph, --callers or --callees"

# Folded stacks, exact (flamegraph.pl's input).
"$PROF" -m s.mon --format=folded >folded.txt 2>/dev/null
cat >want.txt <<'EOF'
[jit];[unknown] 2
[truncated];hard;work 8
[truncated];main;hard;work 4
_start;main 5
_start;main;easy 20
_start;main;easy;work 100
_start;main;hard 10
_start;main;hard;work 900
_start;main;rec;rec;rec 40
_start;worker 30
EOF
diff want.txt folded.txt >why 2>&1
check folded_exact test $? -eq 0

# By thread: flat tables under "Thread NAME-TID", and the thread as the
# folded root frame.
"$PROF" -m s.mon --threads >threads.txt 2>/dev/null
grep '^Thread' threads.txt >why
check threads_headings test "$(grep '^Thread' threads.txt | tr '\n' '|')" = \
	"Thread main-100: 1087 samples|Thread worker-101: 32 samples|"
awk '/^Thread worker/ { w = 1 } w && $NF == "work" { bad = 1 } END { exit bad }' threads.txt
check threads_worker_has_no_work test $? -eq 0
"$PROF" -m s.mon --format=folded --threads >tfolded.txt 2>/dev/null
grep -c '' tfolded.txt >why
check threads_folded_root test "$(grep -c '^worker-101;' tfolded.txt) $(grep -c '^main-100;' tfolded.txt)" = "2 8"
"$PROF" -m s.mon --format=csv --threads >tflat.csv 2>/dev/null
# (thread is the 15th column: 12, then the 2 inclusive ones)
tcol() { csv_awk -F, -v t="$2" -v n="$1" '$1 == n && $15 == t { print $6 }' tflat.csv; }
echo "work in main-100: $(tcol work main-100); worker in worker-101: $(tcol worker worker-101)" >why
check threads_csv test "$(tcol work main-100) $(tcol worker worker-101) $(tcol work worker-101)" = \
	"1.012000 0.030000 "

# Warnings, by default, in plain words, with their shares.
cat flat.err >why
grep -q '50 samples (4.3 % of 1169) have no call stack' flat.err
check warn_stacks_lost test $? -eq 0
grep -q '8 samples (0.7 % of the 1119 with a stack) have a call stack that ends early' flat.err
check warn_stacks_truncated test $? -eq 0
grep -q '4 samples (0.4 % of the 1119 with a stack) have a call stack deeper' flat.err
check warn_stacks_depth test $? -eq 0
grep -q '2 samples (0.2 % of the 1119 with a stack) reached code in no loaded object' flat.err
check warn_stacks_jit test $? -eq 0
for code in stacks-lost stacks-truncated stacks-depth stacks-jit; do
	grep -q "\"code\":\"$code\"" flat.json
	check "json_warning_$code" test $? -eq 0
done

# -s: the stacks' counts in one line.
"$PROF" -m s.mon -s >/dev/null 2>sum.err
grep 'call stacks' sum.err >why
check summary_stacks test "$(grep '^call stacks' sum.err)" = \
	"call stacks: 1119 samples with a stack, 50 without (the runtime's table was full), 8 ended early, 4 cut at the depth limit, 2 stopped at JIT code"

# A profile without stacks: no inclusive columns, no stack warnings.
./craft plain.mon -o "stacks:0:0x401000:0x401190:1:$SID" -h 0x401000:0x401190:0x8000:100 -b 56:7 ||
	not_ok craft_plain
"$PROF" -m plain.mon >plain.txt 2>plain.err
head -1 plain.txt >why
check no_stacks_no_inclusive test "$(head -1 plain.txt)" = \
	" %Time Seconds Cumsecs  #Calls   msec/call  Name"
check no_stacks_no_warning test ! -s plain.err

# A bin that straddles two functions is split by bytes (System V), but the
# stacks' leaf PCs say where each sample was.  64-byte bins (scale 0x800):
# bin 2 [0x401080, 0x4010c0) holds 4 ticks, split hard 1 / easy 3, with no
# stacks (lost); bin 3 [0x4010c0, 0x401100) holds 8, split easy 2 / work 6,
# and all 8 stacks have their leaf in work.  So work has its 8, the 2 the
# split gave easy are not easy's too (easy keeps bin 2's 3), hard keeps 1:
# the flat profile adds up to the histogram's 12 ticks, not 14.
./craft split.mon -o "stacks:0:0x401000:0x401190:1:$SID" -h 0x401000:0x401190:0x800:7 \
	-b 2:4 -b 3:8 -T 100:main -K 64:4:0 -k 8:100:0:0x4010d4,0x401020,0x401008 || not_ok craft_split
"$PROF" -m split.mon --format=csv ./stacks >split.csv 2>/dev/null
"$PROF" -m split.mon --format=json ./stacks >split.json 2>/dev/null
got=$(csv_awk -F, '$1 == "work" || $1 == "easy" || $1 == "hard" { printf "%s %s ", $1, $8 } NR > 1 { s += $8 }
	END { printf "sum %.3f", s }' split.csv)
echo "$got; json $(grep -o '"total_ticks":[0-9.]*' split.json)" >why
check split_bin_counted_once test "$got" = "work 8.000 easy 3.000 hard 1.000 sum 12.000"
check split_bin_total_agrees grep -q '"total_ticks":12,' split.json

# One live thread in two THREADS entries (the runtime's writer listed it from
# /proc while its first tick claimed an entry of its own: runfacts.c claims by
# an atomic add, not by tid) is one thread in prof -s: its samples added, its
# later CPU; an ended thread whose tid a new one took stays two.  Mutation:
# no merge in input.c: "thread 100 worker" listed twice (40 and 60 samples).
./craft dupthreads.mon -o "/bin/true:0:0x401000:0x401190:1:" -h 0x401000:0x401190:0x8000:100 -b 56:100 \
	-E 1000000:1700000000:100 -U 100:40:400000:0:2:worker -U 100:60:450000:0:2:worker \
	-U 101:0:300000:0:2:idle -U 102:5:50000:0:3:old -U 102:7:70000:0:2:new || not_ok craft_dupthreads
"$PROF" -m dupthreads.mon -s >/dev/null 2>dup.err
grep '^thread ' dup.err >dup.threads
cp dup.threads why
check threads_one_entry_each test "$(tr '\n' '|' <dup.threads)" = \
	"thread 100 worker: 0.450 s user + 0.000 s system, 100 samples = 0.100 s (22 %)|thread 101 idle: 0.300 s user + 0.000 s system, 0 samples = 0.000 s (0 %)|thread 102 old: 0.050 s user + 0.000 s system, 5 samples = 0.005 s (10 %)|thread 102 new: 0.070 s user + 0.000 s system, 7 samples = 0.007 s (10 %)|"
# The process's first thread ran the start-up, whose CPU its share leaves
# out: the line says what the share is of (a fresh user's finding: "1
# sample = 0.001 s (8 %)" for a thread of 0.020 s).  Mutation: the plain
# "(P %)" there.
./craft before.mon -o "/bin/true:0:0x401000:0x401190:1:" -h 0x401000:0x401190:0x8000:100 -b 56:100 \
	-E 1000000:1700000000:100:250000 -U 100:100:450000:0:2:main || not_ok craft_before
"$PROF" -m before.mon -s >/dev/null 2>before.err
grep '^thread ' before.err >why
check threads_share_of_what grep -qx "thread 100 main: 0.450 s user + 0.000 s system, 100 samples = 0.100 s (50 % of the 0.200 s it used since profiling started)" before.err
# A thread of less than two sample periods of CPU since profiling started
# has no share (a fresh user's nginx master: "2 samples = 0.002 s (1058 %
# of its user time as the kernel estimates it ...)" of 0.003 s user, most
# of it before profiling started; the perf clock, user time only).  Mutation: the rule removed (a share
# of 0.0002 s: 1000 %).
./craft tiny.mon -o "/bin/true:0:0x401000:0x401190:1:" -h 0x401000:0x401190:0x8000:100 -b 56:2 \
	-E 1000000:1700000000:100:2800:0:2 -U 100:2:3000:17000:2:main || not_ok craft_tiny
"$PROF" -m tiny.mon -s >/dev/null 2>tiny.err
grep '^thread ' tiny.err >why
check threads_tiny_no_share grep -qx "thread 100 main: 0.003 s user + 0.017 s system, 2 samples = 0.002 s (less than two sample periods of user CPU since profiling started: no share)" tiny.err
