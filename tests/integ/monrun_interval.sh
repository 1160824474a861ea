#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Interval profiles (issue 22, items 2 and 4): monrun --interval=1 on a
# program that spins until it is killed with SIGKILL mid-run.
#  - each interval is a file of its own, named PID.PROGRAM.iSEQ.TIME, with
#    sequence numbers 1, 2, 3... and an INTERVAL record saying the same;
#  - each file holds only its interval: its histograms' ticks are its RUN's
#    counted samples and its stacks' samples (plus lost) its samples, but
#    for the one tick a cut may catch in flight (counted in one file, binned
#    or stacked in the next; never more than one over the files so far), and the
#    INTERVAL record's running total is the sum of the files so far
#    (mutations: fill() not taking the bins, the base not advancing, the
#    stack table not cut — each makes a later file hold the earlier ones');
#  - kill -9 loses at most the interval in progress: the last file ends no
#    longer before the kill than the longest interval the run measured took
#    (mutation: no cut by the control thread — nothing is written at all);
#  - a normal exit writes the last interval (flag LAST) and no mon.out;
#  - --keep=2 leaves the newest two files (mutation: rotate() a no-op),
#    --max-bytes keeps the files within the bytes;
#  - a program that writes its process title over argv[0] (as nginx,
#    postgres, sshd do) keeps its own name in the file names and in
#    monctl's status (mutation: the name read from the live
#    program_invocation_short_name, which points into the title: "t/t/..."
#    has slashes, and no file can be written);
#  - interval_prof_no_mon_out: prof with no file named, in a directory of
#    interval files and no mon.out (--interval without PROFDIR), says
#    what is there and 'prof .' (mutation: the default mon.out's bare
#    "No such file or directory"); in a directory of none, as before;
#  - interval_named_series_read: prof -m NAME and prof PROGRAM NAME, where
#    NAME is the -o file whose interval series lies beside it, read the
#    series as its directory reads;
#  - (--interval with --wall: tests/integ/wall_interval.sh.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"
. "$(dirname "$0")/mon_helpers.inc"

if build_plain ispin interval_spin.c && build_dump; then
	ok interval_build
else
	not_ok interval_build
	exit 0
fi

# wait_files DIR N: wait (at most 60 s) until DIR has N interval files.
wait_files() {
	for _i in $(seq 600); do
		[ "$(ls "$1" | grep -cE '\.i[0-9]*\.[0-9]*T[0-9]*Z(\.exec[0-9]+)?$')" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# run_killed DIR N [monrun options]: run ispin forever under monrun with
# PROFDIR=DIR, kill -9 it once N interval files exist; sets PID, KILL_NS.
run_killed() {
	_d=$1 _n=$2
	shift 2
	mkdir -p "$_d"
	rm -f "$T/ready"
	PROFDIR=$_d "$MONRUN" "$@" "$T/ispin" forever "$T/ready" >/dev/null 2>"$_d.err" &
	_job=$!
	for _i in $(seq 300); do [ -s "$T/ready" ] && break; sleep 0.1; done
	PID=$(cat "$T/ready" 2>/dev/null)
	wait_files "$_d" "$_n"
	KILL_NS=$(date +%s%N)
	kill -9 "$PID" 2>/dev/null
	wait "$_job" 2>/dev/null
}

D=$T/killed
run_killed "$D" 4 --interval=1
ls "$D" | grep -v '\.tmp\.' | sort >"$T/names"
n=$(wc -l <"$T/names")
if [ "$n" -ge 4 ] && grep -q "^$PID\.ispin\.i000001\.[0-9]\{8\}T[0-9]\{6\}Z$" "$T/names"; then
	ok interval_files_named
else
	not_ok interval_files_named "$(tr '\n' ' ' <"$T/names")"
fi

# Per file: seq, samples, counted, ticks, stacks' samples + lost, running total.
: >"$T/rows"
for f in $(cat "$T/names"); do
	"$T/mon_dump" "$D/$f" info >"$T/i" 2>&1 || { echo "unreadable $f" >>"$T/rows"; continue; }
	st=$("$T/mon_dump" "$D/$f" stacks 0 0 | awk '{ print $6 + $8 }')
	awk -v f="$f" -v st="$st" '{ v[$1] = $2 } END {
		print f, v["interval_seq"], v["samples"], v["counted"], v["ticks"], st,
		    v["interval_samples_total"], v["interval_start_ns"], v["interval_end_ns"],
		    v["interval_flags"], v["interval_cut_ticks"] + 0 }' "$T/i" >>"$T/rows"
done
if grep -q unreadable "$T/rows"; then
	not_ok interval_files_read "$(grep unreadable "$T/rows")"
else
	ok interval_files_read
fi
why=$(awk '{
	k++
	n = $1; sub(/^.*\.i0*/, "", n); sub(/\..*/, "", n)
	if ($2 != k || n != k) { printf "file %s has seq %s, want %d; ", $1, $2, k; next }
	sum += $3
	# A tick counted after a cut read the counters but binned before it
	# took its bin is counted in the next file and binned in this one: the
	# runtime records how many the take let in (cut ticks, $11), plus one
	# in flight (the program has one thread).  So a file may be off by its
	# own and its predecessor'"'"'s, the files so far by the last cut'"'"'s.  Never
	# a bound from the machine'"'"'s speed: the take can be preempted.  (When
	# the bins were taken while the file was written, after its objects,
	# a run at load 6 had 6 ticks in that window, unrecorded: red.  That
	# is not forced here: with two busy loops the old code still gave 0.)
	cs += $4; ts += $5
	d = $4 - $5; if (d < 0) d = -d
	e = cs - ts; if (e < 0) e = -e
	if (d > 1 + $11 + pc || e > 1 + $11) printf "seq %d: counted %s but ticks %s (so far %d and %d; cut ticks %d, before %d); ", k, $4, $5, cs, ts, $11, pc
	pc = $11
	# The cut moves the stacks to a fresh table, then reads the counters:
	# a tick between the two has its stack in the next file and its count
	# in this one (a preempted cut: 4 of 1003 once, made up by the next
	# file).  So the stacks so far never run ahead of the samples so far
	# (one in flight aside), and what they lag by at a cut the next file
	# makes up: at the last file they agree.  Not a bound from the
	# speed of the machine.
	ss += $6; sa += $3
	if (ss - sa > 1) printf "seq %d: stacks hold %s samples of %s, the files so far %d of %d: more stacks than samples; ", k, $6, $3, ss, sa
	last_ss = ss; last_sa = sa
	if ($7 != sum) printf "seq %d: running total %s, files add to %d; ", k, $7, sum
	if ($3 <= 0 && k > 1) printf "seq %d: no samples; ", k
} END { if (k < 4) printf "only %d files", k
	e = last_ss - last_sa; if (e < 0) e = -e
	if (e > 1) printf "all files: stacks hold %d samples of %d; ", last_ss, last_sa }' "$T/rows")
echo "# seq:counted/binned/cut ticks: $(awk '{ printf "%s:%s/%s/%s ", $2, $4, $5, $11 }' "$T/rows")"
if [ -z "$why" ]; then ok interval_each_its_own; else not_ok interval_each_its_own "$why"; fi

# kill -9 loses at most the interval in progress: the last file ended
# within the longest interval the run took (end - start) of the kill.
why=$(awk -v kill="$KILL_NS" '{ len = $9 - $8; if (len > max) max = len; last = $9 }
	END { gap = kill - last
	      if (gap > max + 1e9) printf "the last file ended %.2f s before the kill, the longest interval %.2f s", gap / 1e9, max / 1e9 }' "$T/rows")
if [ -z "$why" ]; then ok interval_kill_loses_one; else not_ok interval_kill_loses_one "$why"; fi

# The program's own view: no descriptor of ours among its numbers, and the
# control thread is not listed as one of its threads (threads record).
if "$T/mon_dump" "$D/$(tail -n 1 "$T/names")" info | grep '^thread ' | grep -q monprof; then
	not_ok interval_threads_program_only "$("$T/mon_dump" "$D/$(tail -n 1 "$T/names")" info | grep '^thread ')"
else
	ok interval_threads_program_only
fi

# A normal exit: the last interval, flagged, and no mon.out.
E=$T/exit
mkdir -p "$E"
(cd "$E" && "$MONRUN" --interval=1 "$T/ispin" exit "$T/ready" 0.3 >/dev/null 2>"$T/exit.err")
last=$(ls "$E" | grep '\.i[0-9]' | sort | tail -n 1)
fl=$([ -n "$last" ] && "$T/mon_dump" "$E/$last" info | awk '$1 == "interval_flags" { print $2 }')
# Flag 1 (last) and 4 (the calls of the interval: interval_calls.sh).
if [ -n "$last" ] && [ "${fl:-0}" = 5 ] && [ ! -e "$E/mon.out" ]; then
	ok interval_exit_last
else
	not_ok interval_exit_last "files: $(ls "$E" | tr '\n' ' ') flags ${fl:-none} $(cat "$T/exit.err")"
fi

# A -o name whose files are an interval series beside it (monrun -o NAME
# --interval; monrun gives a Go program --interval=1 by itself): prof -m
# NAME and prof PROGRAM NAME read the series, said in one line, as the
# directory reads (before: "No such file or directory", and "more than one
# program given" for the second).  Mutation: series_beside finding none.
O=$T/named
mkdir -p "$O"
(cd "$O" && "$MONRUN" --interval=1 -o "$O/g.mon" "$T/ispin" exit "$T/ready" 0.3 >/dev/null 2>"$T/named.err")
n=$(ls "$O" | grep -c '^g\.mon\.[0-9]*\.ispin\.i[0-9]')
"$PROF" -m "$O/g.mon" --format=csv "$T/ispin" >"$T/named1.csv" 2>"$T/named1.err"; r1=$?
"$PROF" --format=csv "$T/ispin" "$O/g.mon" >"$T/named2.csv" 2>"$T/named2.err"; r2=$?
"$PROF" --format=csv "$T/ispin" "$O" >"$T/named3.csv" 2>/dev/null
if [ "$n" -ge 1 ] && [ ! -e "$O/g.mon" ] && [ $r1 -eq 0 ] && [ $r2 -eq 0 ] &&
    grep -q "^prof: $O/g.mon does not exist: reading the $n files\{0,1\} written in its place beside it" "$T/named1.err" &&
    [ -s "$T/named3.csv" ] && cmp -s "$T/named1.csv" "$T/named3.csv" && cmp -s "$T/named2.csv" "$T/named3.csv"; then
	ok interval_named_series_read
else
	not_ok interval_named_series_read "$n files: $(ls "$O" | tr '\n' ' '); exit $r1, $r2: $(head -c 400 "$T/named1.err") | $(head -c 300 "$T/named2.err")"
fi

# Rotation by count.
R=$T/keep
# Long enough for five intervals, then count.
mkdir -p "$R"
rm -f "$T/ready"
PROFDIR=$R "$MONRUN" --interval=1 --keep=2 "$T/ispin" forever "$T/ready" >/dev/null 2>&1 &
job=$!
for _i in $(seq 300); do [ -s "$T/ready" ] && break; sleep 0.1; done
PID=$(cat "$T/ready")
for _i in $(seq 600); do
	s=$(ls "$R" | grep '\.i[0-9]' | sed 's/.*\.i0*\([0-9]*\)\..*/\1/' | sort -n | tail -n 1)
	[ "${s:-0}" -ge 5 ] && break
	sleep 0.1
done
kill -9 "$PID"
wait "$job" 2>/dev/null
seqs=$(ls "$R" | grep '\.i[0-9]' | grep -v '\.tmp\.' | sed 's/.*\.i0*\([0-9]*\)\..*/\1/' | sort -n | tr '\n' ' ')
kept=$(echo $seqs | wc -w)
newest=$(echo $seqs | awk '{ print $NF }')
oldest=$(echo $seqs | awk '{ print $1 }')
# Killed between a rename and the removal after it: one more, at most.
if [ "$kept" -ge 2 ] && [ "$kept" -le 3 ] && [ "$newest" -ge 5 ] &&
   [ "$oldest" -ge $((newest - kept + 1)) ]; then
	ok interval_keep_newest
else
	not_ok interval_keep_newest "sequence numbers left: $seqs"
fi

# Rotation by bytes: files of about 2 KB, --max-bytes=6K.
M=$T/bytes
run_killed "$M" 5 --interval=1 --max-bytes=6K
total=$(ls "$M" | grep '\.i[0-9]' | grep -v '\.tmp\.' | while read -r f; do wc -c <"$M/$f"; done |
	awk '{ s += $1; if ($1 > big) big = $1 } END { print s + 0, big + 0 }')
if awk -v t="$total" 'BEGIN { split(t, v, " "); exit !(v[1] <= 6144 + v[2] && v[1] > 0) }'; then
	ok interval_max_bytes
else
	not_ok interval_max_bytes "files hold $total (bytes, largest) for 6144: $(ls "$M" | tr '\n' ' ')"
fi

# A process title over argv[0]: the files keep the program's name.
N=$T/title
mkdir -p "$N"
rm -f "$T/ready"
PROFDIR=$N "$MONRUN" --interval=1 "$T/ispin" title "$T/ready" 2.5 >/dev/null 2>"$N.err" &
job=$!
for _i in $(seq 300); do [ -s "$T/ready" ] && break; sleep 0.1; done
PID=$(cat "$T/ready" 2>/dev/null)
wait_files "$N" 1
"$B/bin/monctl" "$PID" status >"$N.status" 2>&1
wait "$job"
rc=$?
files=$(ls "$N" | grep -v '\.tmp\.' | tr '\n' ' ')
named=$(ls "$N" | grep -c "^$PID\.ispin\.i[0-9]*\.[0-9]*T[0-9]*Z\$")
if [ $rc -eq 0 ] && [ "$named" -ge 2 ] && [ "$named" -eq "$(ls "$N" | grep -vc '\.tmp\.')" ] &&
    ! grep -q "cannot write" "$N.err"; then
	ok "interval_title_keeps_name ($named files)"
else
	not_ok interval_title_keeps_name "exit $rc; files: $files; stderr: $(cat "$N.err")"
fi
if grep -qx "program ispin" "$N.status"; then
	ok interval_title_status_name
else
	not_ok interval_title_status_name "$(cat "$N.status")"
fi

# prof with no file named where monrun --interval wrote files and no mon.out.
mkdir -p "$T/nodef" "$T/empty"
cp "$N/$(ls "$N" | grep -v '\.tmp\.' | head -n 1)" "$T/nodef/"
(cd "$T/nodef" && "$PROF" >/dev/null 2>"$T/nodef.err"); rc1=$?
(cd "$T/empty" && "$PROF" >/dev/null 2>"$T/empty.err"); rc2=$?
if [ $rc1 -eq 1 ] && grep -q "^prof: mon.out: no such file; this directory holds 1 profile named for its process .*'prof \.' reads them$" "$T/nodef.err" &&
	[ $rc2 -ne 0 ] && grep -q "^prof: mon.out: No such file or directory$" "$T/empty.err"; then
	ok interval_prof_no_mon_out
else
	not_ok interval_prof_no_mon_out "exit $rc1, $rc2: $(cat "$T/nodef.err" "$T/empty.err")"
fi
