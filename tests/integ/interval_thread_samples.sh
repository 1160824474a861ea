#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# An interval file's threads (THREADS: each thread's samples in the
# interval) against its RUN record's samples: the two are read together at
# the cut (runfacts.c mon_facts_cut_samples, with monitor.c's counters),
# not the threads' later in the write, when ticks taken meanwhile made a
# thread's samples exceed the file's (a new user: 802 against 799).
#   interval_thread_samples_run   tests/progs/monrun_threads.c (four
#                                 threads spinning) under -r 10000
#                                 --interval=1: exit 0, two files or more
#   interval_thread_samples_sum   in every file the threads' samples add up
#                                 to RUN's within 1 (a tick between the two
#                                 reads, microseconds apart)
#   interval_thread_lines_merged  prof -s of the series: one line a thread
#                                 (5: main and four), the samples its files
#                                 hold summed
# Mutation: the threads' samples read at the write (as before): files off
# by 5, 2 and 18 in three runs, interval_thread_samples_sum fails.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/monrun_lib.inc"
. "$(dirname "$0")/mon_helpers.inc"

if build_plain mthr monrun_threads.c -lpthread && build_dump; then
	ok interval_thread_samples_build
else
	not_ok interval_thread_samples_build
	exit 0
fi
D=$T/d
mkdir -p "$D"
PROFDIR=$D timeout 120 "$MONRUN" -r 10000 --interval=1 "$T/mthr" 4 >"$T/out" 2>"$T/err"
rc=$?
for f in $(ls "$D" | grep '\.i[0-9]' | sort); do
	dump "$D/$f" info | awk -v f="$f" '$1 == "samples" { s = $2 } $1 == "thread" { t += $9 }
		END { print f, s, t + 0 }'
done >"$T/rows"
cat "$T/rows"
n=$(wc -l <"$T/rows")
if [ $rc -eq 0 ] && [ "$n" -ge 2 ]; then
	ok interval_thread_samples_run
else
	not_ok interval_thread_samples_run "exit $rc, $n files: $(head -n 2 "$T/err")"
fi
bad=$(awk '{ d = $3 - $2; if (d > 1 || d < -1) printf "%s: threads %d, RUN %d; ", $1, $3, $2 }' "$T/rows")
if [ "$n" -ge 2 ] && [ -z "$bad" ]; then
	ok interval_thread_samples_sum
else
	not_ok interval_thread_samples_sum "$bad"
fi
# prof -s over the series: one line a thread, its files' samples summed
# (the threads' samples of every file), not one line a thread a file (a
# new user: "thread 9879 nginx" eight times, mostly "0 samples").
# Mutation caught: coverage_threads_merge a no-op (a line per file).
"$B/bin/prof" -s "$D" >/dev/null 2>"$T/s.err"
prc=$?
lines=$(grep -c '^thread ' "$T/s.err")
tids=$(grep '^thread ' "$T/s.err" | awk '{ print $2 }' | sort -u | wc -l)
want=$(awk '{ t += $3 } END { print t + 0 }' "$T/rows")
got=$(sed -n 's/^thread [0-9]* [^:]*: .* \([0-9][0-9]*\) samples\? = .*/\1/p' "$T/s.err" | awk '{ t += $1 } END { print t + 0 }')
echo "# prof -s: $lines thread lines, $tids threads, samples $got of the files' $want"
if [ $prc -eq 0 ] && [ "$lines" -eq "$tids" ] && [ "$tids" -ge 5 ] && [ "$got" -eq "$want" ]; then
	ok interval_thread_lines_merged
else
	not_ok interval_thread_lines_merged "$(grep '^thread ' "$T/s.err" | head -n 8 | tr '\n' '|')"
fi
