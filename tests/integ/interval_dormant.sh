#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A dormant start with intervals writes nothing until it is switched on
# (monrun(1): "A process that is never switched on writes no file"; a new
# user found `monrun --dormant --interval=2 sleep 7` leaving an empty
# first interval's file, and a directory's summed report then said "clock
# none" and listed every thread twice).
#   interval_dormant_no_file   monrun --dormant --interval=1 of a program
#                              that lives 3.5 s (three intervals due while
#                              dormant): no file in PROFDIR, exit 0
#   interval_dormant_on_files  the same switched on by monctl after 1.5 s:
#                              interval files from then, each with samples
#                              (the last, the tail up to the exit, may be
#                              milliseconds long: it may have none)
# Mutation: mon_interval_idle() not idle before the first cut for a
# dormant start (as before): interval_dormant_no_file red (the first
# interval's file is written).
. "$(dirname "$0")/lib.sh"
MONRUN=$B/bin/monrun
MONCTL=$B/bin/monctl
cd "$T" || exit 1

mkdir d1
PROFDIR=$T/d1 timeout 60 "$MONRUN" --dormant --interval=1 sleep 3.5 >out1 2>err1
rc=$?
cat err1
if [ $rc -eq 0 ] && [ -z "$(ls d1)" ]; then ok interval_dormant_no_file
else not_ok interval_dormant_no_file "exit $rc, files: $(ls d1 | tr '\n' ' ')"; fi

# Switched on: files from then on.  A shell that spins, as the CPU to
# sample, until the test has said "on", then 2 s more.
mkdir d2
PROFDIR=$T/d2 timeout 60 "$MONRUN" --dormant --interval=1 sh -c \
	'echo $$ >pid; while [ ! -e go ]; do :; done; end=$(($(date +%s) + 3)); while [ $(date +%s) -lt $end ]; do :; done' \
	>out2 2>err2 &
job=$!
for _i in $(seq 300); do [ -s pid ] && break; sleep 0.1; done
sleep 1.5
early=$(ls d2 | wc -l)
timeout 30 "$MONCTL" "$(cat pid)" on >on.out 2>&1
: >go
wait $job
rc=$?
# Each file has samples, but the last may not: it is the tail from the
# last cut to the exit, which may be milliseconds (seen empty in a loaded
# make check: i000003 of 3).
n=0 empty=
last=$(ls d2 | sort | tail -n 1)
for f in d2/*; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	s=$(timeout 60 "$B/bin/prof" -s -m "$f" 2>&1 | sed -n 's/^samples: \([0-9]*\) taken.*/\1/p')
	if [ "${s:-0}" -eq 0 ] && { [ "${f##*/}" != "$last" ] || [ $n -eq 1 ]; }; then
		empty="$empty $f (${s:-no} samples)"
	fi
done
if [ $rc -eq 0 ] && [ "$early" = 0 ] && [ $n -ge 1 ] && [ -z "$empty" ]; then ok interval_dormant_on_files
else not_ok interval_dormant_on_files "exit $rc, $early files before on, $n after; empty:$empty; $(cat on.out err2 | tr '\n' ' ')"; fi
