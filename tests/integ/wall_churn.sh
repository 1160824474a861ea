#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The wall sampler's tables over a long interval run (issues 20 and 22):
# tests/progs/wall_churn.c starts 12 000 threads, 64 at a time, each asleep
# 20 ms, under PROFDIR=DIR monrun --interval=1 --wall=1000: more threads
# than the sampler's table holds (MAX_THREADS, 8192, in lib/wall.c), as a
# server that starts a thread per connection has over hours.  A cut that
# finds a table over half full has the sampler copy into a fresh one only
# what the files to come still need (wall.c's compact()).
#   wall_churn_run        exit 0, 12 000 threads started, two or more files
#   wall_churn_readable   every file reads (the format's reader checks that
#                         each sample's wait and thread are in its record)
#   wall_churn_room       every file: no thread without room (unlisted 0) and
#                         no sample lost, though more than 8192 threads were
#                         listed over the files (each counted once: in the
#                         file of the interval it started in)
#   wall_churn_counts     each thread's samples over the files it is in
#                         are its taken counts there, within 2: a copy that
#                         lost an entry's cut base would give a later file
#                         its earlier samples again
#   wall_churn_ends       each thread's start and end are each in exactly one
#                         file
#   wall_churn_due        each thread's samples over the files are those due
#                         (its expected counts) within 1
#   wall_churn_prof       prof reads the series: churn_wait has the blocked
#                         samples the files hold
# Mutations: compact() never asked (the cut's request removed): threads
# beyond 8192 unlisted in the later files, wall_churn_room fails; the copy
# without its cut base (n->sample_cut[k] = 0): wall_churn_counts fails;
# put() loading the waits' count before the samples' (as before): a file a
# round raced names a wait it does not have, wall_churn_readable fails in
# some runs (2 of 3 here); put() loading the samples' count before the
# rows (as before): a thread that started and ended in one interval had its
# taken in that file and most of its samples, in entries made during the
# write, in the next, which had no row for it ("759#1: 2 samples, taken
# 34"), wall_churn_counts fails under ASan with both cores busy (2 runs of
# 6; none of 6 after); thread_out dropping an ended thread once its
# last sight is before the interval (as before), or clearing the started
# flag of a thread no file listed yet: wall_churn_ends fails.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wall_lib.inc"

wall_run_series churn
if [ $rc -eq 0 ] && grep -qx 'started 12000' "$T/out" && [ "$nf" -ge 2 ]; then
	ok wall_churn_run
else
	not_ok wall_churn_run "exit $rc, $nf files, $(head -n 1 "$T/out")"
fi

bad=
: >"$T/all.txt"
for f in $(cat "$T/files"); do
	if wall_dump "$D/$f" "$T/churn" >"$T/one.txt" 2>&1; then
		sed "s|^|$f |" "$T/one.txt" >>"$T/all.txt"
	else
		bad="$bad $f: $(tail -n 1 "$T/one.txt")"
	fi
done
if [ -z "$bad" ]; then ok wall_churn_readable; else not_ok wall_churn_readable "$bad"; fi

# Per file: lost, unlisted; threads that started in it.
awk '$2 == "wall" { lost += $17; unl += $19; files++ }
	$2 == "thread" && $NF % 2 == 1 { started++ }
	END { printf "files %d lost %d unlisted %d started %d\n", files, lost, unl, started }' \
	"$T/all.txt" >"$T/room"
cat "$T/room"
read -r _ files _ lost _ unl _ started <"$T/room"
if [ "$files" -ge 2 ] && [ "$lost" = 0 ] && [ "$unl" = 0 ] && [ "$started" -gt 8192 ]; then
	ok wall_churn_room
else
	not_ok wall_churn_room "$(cat "$T/room"): wanted no loss and more than 8192 threads started"
fi

# Each thread's samples over the files it is in against its taken counts
# there (a thread is keyed by its tid and how many times a thread of that tid
# started: tids are reused over 12 000 threads): a round may fall between a
# cut's load of a thread's taken count and of its samples' counts, so a file
# may hold a round's samples and the next its taken, but over the files the
# two agree within 2.
# Two threads of one tid in one file (the first ended, a new one took its
# tid: the machine's other processes wrap the pids fast) have samples that
# cannot be told apart (a sample names a tid): they are one group, over
# all files.  A file never holds samples of a tid it has no row for
# ("unlisted"): it did when a new thread that took a dead thread's tid
# counted into that thread's sample entries after the cut had loaded the
# rows (seen under ASan with both cores busy); entries are now a thread's,
# by its serial (lib/wall.c's sample_count).
awk '$2 == "thread" { tid = $3; if ($NF % 2 == 1 || !(tid in gen)) gen[tid]++
		k = tid "#" gen[tid]; g = k in grp ? grp[k] : k
		if (($1 " " tid) in key) g = key[$1 " " tid]
		grp[k] = g; key[$1 " " tid] = g; taken[g] += $9; all[g] = 1 }
	$2 == "sample" { k = key[$1 " " $5]; if (k == "") k = "unlisted " $5; got[k] += $3; all[k] = 1 }
	END { for (k in all) { d = got[k] - taken[k]
			if (d > 2 || d < -2) { n++; if (n <= 3) w = w (n > 1 ? "; " : "") k ": " got[k] " samples, taken " taken[k] } }
		printf "%d %s\n", n, w }' "$T/all.txt" >"$T/over"
if read -r n w <"$T/over" && [ "$n" = 0 ]; then
	ok wall_churn_counts
else
	not_ok wall_churn_counts "$n threads whose samples over the files are not their taken counts, e.g. $w"
	# What each file has of those tids: its rows and its samples.
	for tid in $(printf '%s\n' "$w" | tr ';' '\n' | sed -n 's/^ *\(unlisted \)*\([0-9]*\).*/\2/p' | sort -u); do
		awk -v t="$tid" '$2 == "thread" && $3 == t { print "# " $0 }
			$2 == "sample" && $5 == t { n[$1] += $3 }
			END { for (f in n) print "# " f " samples of " t ": " n[f] }' "$T/all.txt"
	done
fi

# Each thread's start and end in exactly one file (a thread keyed as above;
# the main thread aside): one row flagged started, unless it was there at
# the sampler's first round (its first row in the first file, from 0), and
# one flagged ended, unless its last row is in the last file (alive at the
# last write).  The sampler finds an end a round after it last saw the
# thread: a cut between them once left the end out of every file (3 to 5
# threads of 12 000 a run), and a thread first listed a round after a cut
# lost its start (50 to 70 a run).
first=$(head -n 1 "$T/files") last=$(tail -n 1 "$T/files")
awk -v first="$first" -v last="$last" '$2 == "thread" && $3 != substr($1, 1, index($1, ".") - 1) {
		tid = $3; if ($NF % 2 == 1 || !(tid in gen)) gen[tid]++
		k = tid "#" gen[tid]; if (!(k in rows)) from[k] = $1 " " $13
		rows[k]++; to[k] = $1; st[k] += $NF % 2; en[k] += int($NF / 2) % 2 }
	END { for (k in rows) {
			s = st[k] + (from[k] == first " 0"); e = en[k] + (to[k] == last && en[k] == 0)
			if (s != 1 || e != 1) { n++; if (n == 1) w = k ": " st[k] " started and " en[k] " ended rows in " rows[k] " files" } }
		printf "%d %s\n", n, w }' "$T/all.txt" >"$T/ends"
if read -r n w <"$T/ends" && [ "$n" = 0 ]; then
	ok wall_churn_ends
else
	not_ok wall_churn_ends "$n threads whose start or end is not in exactly one file, e.g. $w"
fi

# Each thread's samples over the files against those due (its expected
# counts: the round instants of its life), within 1 a thread: at 1000 Hz a
# look of the sampler stands for 4 rounds, and a thread is charged the
# instants since those counted for it, not the look's 4 (a thread started
# just after a look's last instant was charged 1 too many, its last look
# before it ended 4 too few: 15 to 170 threads a run off by 2 to 4).
awk '$2 == "thread" { tid = $3; if ($NF % 2 == 1 || !(tid in gen)) gen[tid]++
		k = tid "#" gen[tid]; g = k in grp ? grp[k] : k
		if (($1 " " tid) in key) g = key[$1 " " tid]
		if (!(k in grp)) members[g]++
		grp[k] = g; key[$1 " " tid] = g; taken[g] += $9; due[g] += $7 }
	END { for (g in due) { d = taken[g] - due[g]
			if (d > members[g] || d < -members[g]) { n++; if (n == 1) w = g ": " taken[g] " samples, " due[g] " due" } }
		printf "%d %s\n", n, w }' "$T/all.txt" >"$T/due"
if read -r n w <"$T/due" && [ "$n" = 0 ]; then
	ok wall_churn_due
else
	not_ok wall_churn_due "$n threads whose samples are not those due within 1, e.g. $w"
fi

want=$(awk '$2 == "sample" && $0 ~ /churn_wait/ && $7 != "running" && $7 != "runnable" { n += $3 } END { print n + 0 }' "$T/all.txt")
"$B/bin/prof" "$D" --sample=wall --format=folded >"$T/folded" 2>"$T/prof.err"
prc=$?
# (a blocked sample's leaf is its wait, in brackets; a running sample is
# spread over the thread's CPU stacks, one of which may end in churn_wait:
# 216 543 against 216 542 once, under ASan)
got=$(awk '/churn_wait/ && !/\[running\]|\[runnable\]/ { k = split($1, f, ";"); if (f[k] ~ /^\[/) n += $NF }
	END { print n + 0 }' "$T/folded")
if [ $prc -eq 0 ] && [ "$want" -gt 0 ] && [ "$got" = "$want" ]; then
	ok wall_churn_prof
else
	not_ok wall_churn_prof "prof exit $prc, churn_wait blocked $got, the files $want; $(head -n 2 "$T/prof.err")"
fi
