#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A process tree is one profile (issue 22), and its files are ready for the
# fleet tools:
#  - tree_*: a server forking a process per request (prof_tree) under
#    monrun -f with PROFDIR writes a file per process; `prof DIR`, `prof -m F
#    F F...` (data files as positional arguments) and `prof -m F ...` each
#    read them all as one profile, the sum of the files;
#  - programs_*: files of two programs are shown by program (text, each
#    heading before the program's summary in one stream), chosen
#    with --program=NAME (and only the chosen files' warnings given),
#    summed with --merge; a format of one report (JSON) and --output
#    refuse, naming each program's --program=NAME and --merge; the stack
#    formats (folded, flame, pprof) make one profile with each program the
#    root frame of its stacks (programs_*_roots, programs_pprof_labels),
#    and refuse files without call stacks (programs_no_stacks_*);
#  - tree_unfollowed_said: without -f, prof says how many forks went
#    unprofiled and names -f (the FORKS record);
#  - dir_unreadable: a damaged file of a directory is left out with a
#    warning naming it, the others read;
#  - base_dir: --base takes a directory (its files summed);
#  - sum_clock_*: a sum's clock and rate are those of a file whose clock
#    ran, not of a file read first whose clock never did;
#  - span_*: elapsed time (-s) and pprof's duration_nanos are the run's
#    wall-clock span, earliest start to latest end (crafted files: 10 s
#    each, written at 1000, 1001 and 1002 s: 12 s, not 30), time_nanos its
#    start;
#  - output_*: --output sums the files into one mon.out that reads as they
#    do (objects at other addresses moved to the first file's); read again
#    beside the files it holds, prof says they count twice;
#  - window_*, timeline_view: --from/--to choose the files of a window of
#    time, --timeline shows each file's samples in time order;
#  - pprof_tags: every stack sample carries thread_id, thread_name and pid
#    labels (go tool pprof -tags, -tagfocus), where Go is installed;
#  - flame_threads: --threads puts each thread on the flame graph's root.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"
cd "$T" || exit 1

# --- a process tree -------------------------------------------------------------------
if build_plain tree prof_tree.c && build_plain other monrun_fork.c; then
	ok tree_build
else
	not_ok tree_build; exit 1
fi
mkdir -p run
if PROFDIR=$T/run timeout 120 "$MONRUN" -f ./tree 5 0.05 >tree.out; then
	ok tree_runs
else
	not_ok tree_runs "exit $?"
fi
n=$(ls run | wc -l)
[ "$n" -eq 6 ] && ok tree_six_files || not_ok tree_six_files "$(ls run | tr '\n' ' ')"
set -- run/*
"$PROF" --format=csv run >dir.csv 2>dir.err; rc_dir=$?
"$PROF" --format=csv -m "$@" >pos.csv 2>pos.err; rc_pos=$?
ms=""
for f in "$@"; do ms="$ms -m $f"; done
# shellcheck disable=SC2086
"$PROF" --format=csv $ms >m.csv 2>m.err; rc_m=$?
# The sum of the files, file by file.
sum=0
for f in "$@"; do
	"$PROF" --format=csv -m "$f" >one.csv 2>/dev/null
	sum=$(awk -v s="$sum" -v t="$(ticks one.csv child_spin)" 'BEGIN { print s + t }')
done
got=$(ticks dir.csv child_spin)
# Mutation caught: a directory read as a file ("not a profile"), data files
# after -m taken for programs ("more than one program given").
if [ $rc_dir -eq 0 ] && [ $rc_pos -eq 0 ] && [ $rc_m -eq 0 ] && cmp -s dir.csv m.csv &&
   cmp -s pos.csv m.csv && [ "$(awk -v a="$got" -v b="$sum" 'BEGIN { print (a == b && a > 0) }')" = 1 ]; then
	ok tree_dir_is_sum
else
	not_ok tree_dir_is_sum "exit $rc_dir/$rc_pos/$rc_m, child_spin $got of $sum; $(head -c 300 dir.err pos.err)"
fi
# -s: the elapsed time is a span over 6 processes, never their sum.
"$PROF" -s run >/dev/null 2>s.err
# (the parent's: its children start after it and end before it; SPAN
# places each file to the nanosecond, so no caveat of whole seconds)
grep -Eq '^elapsed: [0-9.]+ s \(wall clock, the longest process.s; 6 processes, ' s.err &&
	ok tree_elapsed_span || not_ok tree_elapsed_span "$(grep elapsed s.err)"

# Without -f: prof says how many children were not profiled, and names -f.
# Mutation caught: fork calls not counted (no FORKS record), or not said.
mkdir -p nof
(cd nof && timeout 120 "$MONRUN" ../tree 3 0.02 >/dev/null)
"$PROF" nof/mon.out >/dev/null 2>nof.err
if grep -q '^prof: warning: nof/mon.out: the process forked 3 times without following its children (monrun without -f): their time is not in this profile; monrun -f profiles each child in a file of its own$' nof.err &&
   ! grep -q 'without following' dir.err; then
	ok tree_unfollowed_said
else
	not_ok tree_unfollowed_said "$(head -c 300 nof.err)"
fi

# --- several programs -----------------------------------------------------------------
PROFDIR=$T/run timeout 120 "$MONRUN" -f ./other 0.05 >other.out || not_ok programs_other_runs
"$PROF" run >progs.txt 2>progs.err; rc=$?
# Mutation caught: refusing the second program (the old "give --merge").
if [ $rc -eq 0 ] && [ "$(grep -c '^program .*: [0-9]* files\? (--program=NAME shows one)$' progs.txt)" -eq 2 ] &&
   grep -q "^program $T/tree: 6 files" progs.txt && grep -q "^program $T/other: 2 files " progs.txt &&
   grep -q ' child_spin$' progs.txt && grep -q ' parent_spin$' progs.txt; then
	ok programs_shown_by_program
else
	not_ok programs_shown_by_program "exit $rc: $(head -c 300 progs.txt) $(head -c 200 progs.err)"
fi
# Both streams into one file (prof -s DIR 2>&1 | less): each program's
# heading comes before its summary (stderr).  Mutation caught: stdout not
# flushed (every heading after the summaries, at the end).
"$PROF" -s run >pboth.txt 2>&1
order=$(grep -E '^(program |summary \()' pboth.txt | cut -c1-7 | tr '\n' ' ')
if [ "$order" = "program summary program summary " ]; then
	ok programs_heading_before_summary
else
	not_ok programs_heading_before_summary "order: $order"
fi
"$PROF" --format=csv --program=tree run >pt.csv 2>pt.err; rc=$?
# Mutation caught: --program not filtering (the other's file summed in).
if [ $rc -eq 0 ] && cmp -s pt.csv dir.csv &&
   grep -q '^prof: 2 of the 8 profiles read are of other programs than tree (--program): left out$' pt.err; then
	ok programs_chosen
else
	not_ok programs_chosen "exit $rc: $(head -c 300 pt.err)"
fi
# The programs in the order of their files' names, which begin with the
# pid: the other program's may come first when the pids wrapped round.
# Mutation caught: the refusal naming no program's option (the old
# "choose one with --program=NAME").
one_line_error programs_one_report 1 \
	"^prof: the files are profiles of 2 programs \\(($T/tree: 6 files, $T/other: 2 files|$T/other: 2 files, $T/tree: 6 files)\\), and --format=json makes one program's profile \\(the text report shows each apart\\): choose one with (--program=tree or --program=other|--program=other or --program=tree), or give --merge to sum them$" \
	"$PROF" --format=json run
# The stack formats show several programs as one profile, each program the
# root frame of its stacks: folded's lines under "tree;" are exactly
# --program=tree's, those under "other;" --program=other's, and no line has
# another root.  Mutations caught: the old refusal; the root frame left out
# (no "tree;" lines); every file given the first program's root (other's
# lines under "tree;").
"$PROF" --format=folded run >both.folded 2>both.err; rc=$?
"$PROF" --format=folded --program=tree run >tree.folded 2>/dev/null
"$PROF" --format=folded --program=other run >other.folded 2>/dev/null
sed -n 's/^tree;//p' both.folded >both_tree.folded
sed -n 's/^other;//p' both.folded >both_other.folded
if [ $rc -eq 0 ] && [ -s tree.folded ] && [ -s other.folded ] &&
   cmp -s both_tree.folded tree.folded && cmp -s both_other.folded other.folded &&
   [ "$(grep -cv '^\(tree\|other\);' both.folded)" -eq 0 ] &&
   grep -q "^prof: the files are profiles of 2 programs, shown as one profile with each program the root frame of its stacks (\(tree: 6 files, other: 2 files\|other: 2 files, tree: 6 files\)); --program=NAME shows one$" both.err; then
	ok programs_folded_roots
else
	not_ok programs_folded_roots "exit $rc: $(head -c 300 both.err) $(diff both_tree.folded tree.folded | head -c 300)"
fi
"$PROF" --format=flame run >both.svg 2>/dev/null; rc=$?
if [ $rc -eq 0 ] && grep -q '>Flame graph of 2 programs: \(tree, other\|other, tree\)<' both.svg &&
   grep -q '<title>tree (' both.svg && grep -q '<title>other (' both.svg; then
	ok programs_flame_roots
else
	not_ok programs_flame_roots "exit $rc: $(grep -o 'Flame graph[^<]*' both.svg)"
fi
# (other's files first: the first file read is not the most sampled program's)
"$PROF" --format=pprof -m run/*.other run/*.tree >both.pb.gz 2>/dev/null && [ -s both.pb.gz ] &&
	ok programs_pprof_written || not_ok programs_pprof_written
# Files without call stacks cannot put each program's samples under its
# own root: the stack formats refuse them as the other formats do, and
# --merge sums them, saying so.  Mutation caught: the programs' flat rows
# summed with no word (folded exit 0, "[sort]+0x..." lines from every
# program).
mkdir -p flat
PROFDIR=$T/flat timeout 120 "$MONRUN" -d 0 ./tree 2 0.02 >/dev/null &&
	PROFDIR=$T/flat timeout 120 "$MONRUN" -d 0 ./other 0.02 >/dev/null || not_ok programs_flat_runs
ole_real_run=1 one_line_error programs_no_stacks_refused 1 \
	"^prof: the files are profiles of 2 programs \\(.*\\), which hold no call stacks, and --format=folded makes one program's profile \\(the text report shows each apart\\): choose one with (--program=tree or --program=other|--program=other or --program=tree), or give --merge to sum them$" \
	"$PROF" --format=folded flat
"$PROF" --merge --format=folded flat >flat.folded 2>flat.err; rc=$?
if [ $rc -eq 0 ] && [ -s flat.folded ] && ! grep -q '^\(tree\|other\);' flat.folded &&
   grep -q '^prof: warning: the files are profiles of 2 programs and hold no call stacks to show each program.s apart: summed as asked (--merge)$' flat.err; then
	ok programs_no_stacks_merged
else
	not_ok programs_no_stacks_merged "exit $rc: $(head -c 300 flat.err)"
fi
# The option it names chooses: pprof of tree's files alone.
"$PROF" --format=pprof --program=tree run >pt.pb.gz 2>/dev/null && [ -s pt.pb.gz ] &&
	ok programs_option_named_works || not_ok programs_option_named_works
ole_real_run=1 one_line_error programs_none_matches 1 \
	"^prof: --program=nosuch: none of the 8 profiles read is of that program$" \
	"$PROF" --program=nosuch run
# --program: the warnings of the chosen program's files only.  Both run
# without -f, so each file warns of its unprofiled children.  Mutation
# caught: the warnings given as each file is read, before --program left
# it out (the other's warning shown).
mkdir -p twop
PROFDIR=$T/twop timeout 120 "$MONRUN" ./tree 3 0.02 >/dev/null &&
	PROFDIR=$T/twop timeout 120 "$MONRUN" ./other 0.02 >/dev/null || not_ok programs_warnings_run
"$PROF" --program=tree twop >/dev/null 2>wt.err; rc_t=$?
"$PROF" --program=other twop >/dev/null 2>wo.err; rc_o=$?
"$PROF" twop >/dev/null 2>wb.err
unf() { grep -c "^prof: warning: twop/[0-9]*\.$1: the process forked [0-9]* times\? without following" "$2"; }
echo "# unfollowed-forks warnings: --program=tree: tree $(unf tree wt.err), other $(unf other wt.err); --program=other: $(unf tree wo.err), $(unf other wo.err); both: $(unf tree wb.err), $(unf other wb.err)"
if [ $rc_t -eq 0 ] && [ $rc_o -eq 0 ] && [ "$(unf tree wt.err)" -eq 1 ] && [ "$(unf other wt.err)" -eq 0 ] &&
   [ "$(unf tree wo.err)" -eq 0 ] && [ "$(unf other wo.err)" -eq 1 ] &&
   [ "$(unf tree wb.err)" -eq 1 ] && [ "$(unf other wb.err)" -eq 1 ]; then
	ok programs_warnings_chosen
else
	not_ok programs_warnings_chosen "exit $rc_t/$rc_o: $(head -c 400 wt.err)"
fi
"$PROF" --merge --format=csv run >mg.csv 2>mg.err; rc=$?
t_parent=$(ticks mg.csv parent_spin) t_child=$(ticks mg.csv child_spin)
[ $rc -eq 0 ] && [ "$t_child" = "$got" ] && [ "$(ticks dir.csv parent_spin)" != "$t_parent" ] &&
	grep -q 'summed as asked (--merge)' mg.err && ! grep -q ',program,' mg.csv &&
	ok programs_merged || not_ok programs_merged "exit $rc, child $t_child of $got, parent $t_parent"
# --output: the tree's files summed into one mon.out that reads as they do.
# Mutation caught: histograms not added up (only the first file's), the
# elapsed time of one file.
"$PROF" --output=tree.mon --program=tree run >out.txt 2>out.err; rc=$?
"$PROF" --format=csv -m tree.mon >one.csv 2>/dev/null
"$PROF" -s -m tree.mon >/dev/null 2>s1.err
if [ $rc -eq 0 ] && [ ! -s out.txt ] && grep -q '^prof: tree.mon: 6 profiles summed$' out.err &&
   cmp -s one.csv dir.csv &&
   [ "$(grep ' samples in the histograms = ' s1.err)" = "$(grep ' samples in the histograms = ' s.err)" ] &&
   grep -q '^[1-9][0-9]* samples in the histograms = ' s1.err &&
   [ "$(sed -n 's/^elapsed: \([0-9.]*\) s.*/\1/p' s1.err)" = "$(sed -n 's/^elapsed: \([0-9.]*\) s.*/\1/p' s.err)" ]; then
	ok output_one_file
else
	not_ok output_one_file "exit $rc: $(head -c 300 out.err) $(grep elapsed s1.err s.err)"
fi
# The sum read again beside the files it holds (a new user's `prof DIR`
# after `prof --output=DIR/all.mon DIR`: every count twice, unsaid): prof
# says so, naming the sum; the sum alone reads without that warning.
# Mutation caught: MONOUT_F_SUMMED not written by --output: no warning.
cp tree.mon run/all.mon
"$PROF" -s --program=tree run >/dev/null 2>again.err
"$PROF" -s -m tree.mon >/dev/null 2>alone.err
rm -f run/all.mon
if grep -q 'all.mon is a sum of profiles (written by prof --output), read here with 6 other files' again.err &&
   ! grep -q 'sum of profiles' alone.err; then
	ok output_sum_read_again_said
else
	not_ok output_sum_read_again_said "$(grep -i sum again.err | head -c 300) / $(grep -i sum alone.err | head -c 200)"
fi
one_line_error output_one_program 1 "^prof: the files are profiles of 2 programs .*, and --output writes one program's profile .*: choose one with --program=.* or --program=.*, or give --merge to sum them$" \
	"$PROF" --output=both.mon run
rm -f run/*.other

# --- a damaged file in a directory ----------------------------------------------------
mkdir -p dmg
cp run/* dmg/
head -c 100 "$1" >dmg/99999.tree
"$PROF" --format=csv dmg >dmg.csv 2>dmg.err; rc=$?
# Mutation caught: the first unreadable file ending the run.
if [ $rc -eq 0 ] && cmp -s dmg.csv dir.csv &&
   grep -q "^prof: warning: dmg/99999.tree: .*; left out, the directory's other profiles are read$" dmg.err; then
	ok dir_unreadable
else
	not_ok dir_unreadable "exit $rc: $(head -c 300 dmg.err)"
fi
mkdir -p empty
one_line_error dir_empty 1 "^prof: empty: no profile in this directory" "$PROF" empty

# --- crafted files: spans, bases, labels ----------------------------------------------
command -v as >/dev/null && command -v ld >/dev/null || { echo "SKIP no as/ld"; exit 77; }
build_prog_static craft prof_craft.c -I"$ROOT/format" || { not_ok craft_build; exit 1; }
SID=737461636b732d676f6c64656e2d31
as --64 -o stacks.o "$ROOT/tests/golden/stacks.s" &&
	ld -static -nostdlib --build-id=0x$SID -Ttext=0x401000 -o stacks stacks.o ||
	{ not_ok stacks_build; exit 1; }
_S=0x401008 _M=0x401020 _H=0x401060 _W=0x4010e0 _K=0x401160
OBJ="$T/stacks:0:0x401000:0x401190:1:$SID"
HI=0x401000:0x401190:0x8000:100
mkdir -p c1 c2
# pid 500: main 70 samples in work, worker 30 in worker; pids 600 and 700:
# main 50 and 10 in work.  Each 10 s long, written at 1000, 1001, 1002 s.
./craft c1/p1.mon -o "$OBJ" -h $HI -b 56:70 -b 88:30 -T 500:main -T 501:worker \
	-k 70:500:0:$_W,$_H,$_M,$_S -k 30:501:0:$_K,$_S -E 10000000:1000:500 &&
./craft c2/p2.mon -o "$OBJ" -h $HI -b 56:50 -T 600:main -k 50:600:0:$_W,$_H,$_M,$_S \
	-E 10000000:1001:600 &&
./craft c2/p3.mon -o "$OBJ" -h $HI -b 56:10 -T 700:main -k 10:700:0:$_W,$_H,$_M,$_S \
	-E 10000000:1002:700 || { not_ok craft_files; exit 1; }
"$PROF" -s c1 c2 >/dev/null 2>sp.err
# Mutation caught: elapsed summed over files (30.000 s).
grep -q '^elapsed: 12.000 s (wall clock, from the first process.s start to the last one.s end, within a second: the files. write times are whole seconds; 3 processes, 30.000 s summed, the longest 10.000 s)' sp.err &&
	ok span_summary || not_ok span_summary "$(grep elapsed sp.err)"
# A file whose clock never ran (clock "none", rate 0: a dormant process
# never switched on) says nothing of a sum's clock and rate, read first or
# last.  Mutation caught: the first file's ("clock none, rate 0 Hz ... (files
# differ ...)", "rate: asked 0 Hz").
mkdir -p cn
./craft cn/p0.mon -C 0 -r 0 -o "$OBJ" -h $HI -E 10000000:1000:800 &&
./craft cn/p1.mon -C 2 -r 1000 -o "$OBJ" -h $HI -b 56:70 -E 10000000:1000:801 ||
	{ not_ok craft_files_clock; exit 1; }
for order in "cn/p0.mon cn/p1.mon" "cn/p1.mon cn/p0.mon"; do
	# shellcheck disable=SC2086
	"$PROF" -s stacks $order >/dev/null 2>cn.err
	if grep -q '^clock thread-cputime, rate 1000 Hz (samples per CPU-second)$' cn.err &&
	   grep -q '^rate: asked 1000 Hz, set 1000 Hz' cn.err; then
		ok "sum_clock_of_clocked_file ($order)"
	else
		not_ok "sum_clock_of_clocked_file ($order)" "$(grep -E '^(clock|rate)' cn.err | tr '\n' ' ')"
	fi
done
"$PROF" --format=csv --base=c2 c1 >bd.csv 2>bd.err; rc=$?
# Mutation caught: --base reading its argument as one file.
[ $rc -eq 0 ] && [ "$(csv_awk -F, '$1 == "work" { print $7 "," $8 }' bd.csv)" = "0.070000,0.060000" ] &&
	ok base_dir || not_ok base_dir "exit $rc: $(grep '^work,' bd.csv) $(head -c 200 bd.err)"
"$PROF" --format=csv --base=c2/p2.mon --base=c2/p3.mon c1 >bf.csv 2>/dev/null
cmp -s bf.csv bd.csv && ok base_files || not_ok base_files "$(grep '^work,' bf.csv)"

# A series read over time: --from/--to keep the files whose run overlaps
# the window (p1 ran 990..1000, p2 991..1001, p3 992..1002), and the sum of
# all equals the sum of its parts.  Mutation caught: no window (130
# samples in work), a window on the write time alone (--to=990.5 keeps none).
# --from=...T00:16:40Z (1000 s) begins where p1 ends: p2 and p3 (60).
"$PROF" --format=csv --from=1000.5 c1 c2 >w1.csv 2>w1.err
"$PROF" --format=csv --to=990.5 c1 c2 >w2.csv 2>w2.err
"$PROF" --format=csv --from=1970-01-01T00:16:40Z c1 c2 >w3.csv 2>/dev/null
if [ "$(csv_field w1.csv work 8)" = 60.000 ] &&
   grep -q '^prof: 1 of the 3 profiles read lies outside --from/--to (or says no time): left out$' w1.err &&
   [ "$(csv_field w2.csv work 8)" = 70.000 ] && [ "$(csv_field w2.csv worker 8)" = 30.000 ] &&
   [ "$(csv_field w3.csv work 8)" = 60.000 ]; then
	ok window_from_to
else
	not_ok window_from_to "$(grep '^work,' w1.csv w2.csv w3.csv | tr '\n' ' ') $(cat w1.err)"
fi
# Two windows of one series compared: --base-from/--base-to choose the
# base's files (p1 alone: work 0.07 s), --from/--to this side's (p2, p3:
# 0.06 s).  Mutation caught: the base's window ignored (base 0.13 s).
# A file that overlaps the window by no more than 1 % of its run is out
# (an interval cut milliseconds after the second a window begins on, read on
# both sides of a new user's --base comparison): p1 (990..1000) is out of
# --from=999.95 (0.5 %), in --from=999.8 (2 %).  Mutation caught: the bare
# overlap (p1 in both: 130 samples).
"$PROF" --format=csv --from=999.95 c1 c2 >we1.csv 2>/dev/null
"$PROF" --format=csv --from=999.8 c1 c2 >we2.csv 2>/dev/null
if [ "$(csv_field we1.csv work 8)" = 60.000 ] && [ "$(csv_field we2.csv work 8)" = 130.000 ]; then
	ok window_edge
else
	not_ok window_edge "$(grep '^work,' we1.csv we2.csv | tr '\n' ' ')"
fi
"$PROF" --format=csv --base=c1 --base=c2 --base-to=990.5 --from=1000.5 c1 c2 >bw.csv 2>bw.err
[ "$(csv_awk -F, '$1 == "work" { print $7 "," $8 }' bw.csv)" = "0.060000,0.070000" ] &&
	ok window_base || not_ok window_base "$(grep '^work,' bw.csv) $(head -c 200 bw.err)"
one_line_error window_empty 1 "^prof: no profile read lies in the window of --from/--to \(3 files\)$" \
	"$PROF" --from=5000 c1 c2
# --timeline: the files in time order, each with its samples.
"$PROF" --timeline c2 c1 >tl.txt 2>tl.err
if [ "$(awk 'NR > 1 { printf "%s %s %s %s;", $1, $2, $3, $4 }' tl.txt)" = \
     "1970-01-01T00:16:30.000 10.000 500 100;1970-01-01T00:16:31.000 10.000 600 50;1970-01-01T00:16:32.000 10.000 700 10;" ]; then
	ok timeline_view
else
	not_ok timeline_view "$(cat tl.txt tl.err)"
fi

# --output takes files of another address layout: other.mon's object at
# another bias is moved to c1's (prof_save_layouts.sh: every record, and
# what is still refused).  Mutation caught: the old refusal.
./craft other.mon -o "$T/stacks:0x1000:0x402000:0x402190:1:$SID" -h 0x402000:0x402190:0x8000:100 -b 56:5 \
	-E 1000000:1000:800 || not_ok craft_other
"$PROF" --output=l.mon c1 other.mon >/dev/null 2>l.err; rc=$?
"$PROF" --format=csv c1 other.mon >l2.csv 2>/dev/null
"$PROF" --format=csv -m l.mon >l1.csv 2>/dev/null
if [ $rc -eq 0 ] && [ -s l1.csv ] && cmp -s l1.csv l2.csv && [ "$(csv_field l1.csv work 8)" = 75.000 ]; then
	ok output_layout
else
	not_ok output_layout "exit $rc: $(head -c 300 l.err) $(diff l1.csv l2.csv | head -4 | tr '\n' ' ')"
fi
"$PROF" --output=c.mon c1 c2 2>/dev/null && "$PROF" -s -m c.mon >/dev/null 2>c.err
grep -q '^elapsed: 12.000 s (wall clock)' c.err && ok output_span || not_ok output_span "$(grep elapsed c.err)"

"$PROF" --threads --format=flame c1 c2 >f.svg 2>/dev/null
# Mutation caught: --threads ignored by the flame graph.
grep -q '<title>worker-501 (30 samples, 18.75%)</title>' f.svg &&
	grep -q '<title>main-600 (50 samples, 31.25%)</title>' f.svg &&
	ok flame_threads || not_ok flame_threads "$(grep -o '<title>[^<]*</title>' f.svg | head -4 | tr '\n' ' ')"

if command -v go >/dev/null 2>&1; then
	"$PROF" --format=pprof c1 c2 >p.pb.gz 2>/dev/null
	gp() { HOME=$T GOCACHE=$T/gocache GOFLAGS=-mod=mod timeout 120 go tool pprof "$@" 2>>gp.err; }
	gp -raw p.pb.gz >raw.txt
	# Mutations caught: duration_nanos the sum (30s), no time_nanos.
	grep -q '^Duration: 12s$' raw.txt && grep -q '^Time: 1970-01-01 00:16:30 +0000 UTC$' raw.txt &&
		ok span_pprof || not_ok span_pprof "$(grep -E '^(Time|Duration)' raw.txt) $(head -c 200 gp.err)"
	gp -tags -sample_index=samples p.pb.gz >tags.txt
	gp -top -sample_index=samples -tagfocus=thread_name=worker p.pb.gz >tw.txt
	gp -top -sample_index=samples -tagfocus=pid=600 p.pb.gz >t600.txt
	# Mutation caught: samples without labels (-tags empty, -tagfocus
	# keeps nothing).
	if grep -q ' 130.0 (81.25%): main$' tags.txt && grep -q ' 30.0 (18.75%): worker$' tags.txt &&
	   grep -q ' 100.0 (62.50%): 500$' tags.txt && grep -q ' 50.0 (31.25%): 600$' tags.txt &&
	   grep -q ' 30.0 (18.75%): 501$' tags.txt &&
	   awk '$NF == "worker" && $1 == 30 { f = 1 } $NF == "work" { w = 1 } END { exit !(f && !w) }' tw.txt &&
	   awk '$NF == "work" && $1 == 50 { f = 1 } END { exit !f }' t600.txt; then
		ok pprof_tags
	else
		not_ok pprof_tags "$(tr '\n' '|' <tags.txt | head -c 400) $(head -c 200 gp.err)"
	fi
	# Several programs: each stack sample's program as a label, its
	# samples those of its root frame in folded.  Mutation caught: no
	# program label (-tags shows none).
	gp -tags -sample_index=samples both.pb.gz >ptags.txt
	want_tree=$(awk '/^tree;/ { n += $NF } END { print n + 0 }' both.folded)
	want_other=$(awk '/^other;/ { n += $NF } END { print n + 0 }' both.folded)
	got_tree=$(awk '$1 == "program:" { p = 1; next } p && $NF == "tree" { sub(/\.0$/, "", $1); print $1; exit }' ptags.txt)
	got_other=$(awk '$1 == "program:" { p = 1; next } p && $NF == "other" { sub(/\.0$/, "", $1); print $1; exit }' ptags.txt)
	echo "# program labels: tree $got_tree of $want_tree, other $got_other of $want_other"
	# ... and the profile's file is the program whose own code has the
	# most samples (tree's spin), not the first file's.
	gp -top both.pb.gz >ptop.txt
	if [ "$want_tree" -gt 0 ] && [ "$want_other" -gt 0 ] &&
	   [ "$got_tree" = "$want_tree" ] && [ "$got_other" = "$want_other" ] &&
	   grep -q '^File: tree$' ptop.txt; then
		ok programs_pprof_labels
	else
		not_ok programs_pprof_labels "$(tr '\n' '|' <ptags.txt | head -c 400) $(head -c 200 gp.err)"
	fi
else
	ok "span_pprof # skip go absent (Debian: golang-go)"
	ok "pprof_tags # skip go absent (Debian: golang-go)"
	ok "programs_pprof_labels # skip go absent (Debian: golang-go)"
fi
