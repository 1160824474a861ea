#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# An interval file that cannot be written (issue 22): the running process's
# RLIMIT_FSIZE is set to 1 KiB under `monrun --interval=1` (prlimit(1)), so
# that every file fails (EFBIG) as on a full disk or a read-only PROFDIR,
# and then set back.  (Moving PROFDIR away fails nothing: the runtime
# holds the directory open.)
#   unwritable_said_once     the program's standard error says it once (the
#                            first failure's reason), then once that files
#                            are written again and how many intervals were
#                            lost: no second try at once (it failed the same
#                            way thousands of times a second: 6800 lines in
#                            3.5 s): at most one interval lost a second
#   unwritable_gap           the files after it skip the lost intervals'
#                            sequence numbers, as many as the line says, and
#                            the first of them begins no earlier than the
#                            last lost one's end (not at the last file's end:
#                            its samples were taken and lost with the file)
#   unwritable_prof_says     prof on the series names the missing intervals
#                            (warning intervals-missing) and the remedy
#   unwritable_status        monctl status counts them ("not written N")
# Mutations: no retry_mono (a second try at once): hundreds of "cannot
# write" lines, unwritable_said_once fails; the sequence number kept on a
# failure: no gap, unwritable_gap and unwritable_prof_says fail.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"
. "$(dirname "$0")/mon_helpers.inc"

if build_plain ispin interval_spin.c && build_dump; then
	ok unwritable_build
else
	not_ok unwritable_build
	exit 0
fi
nfiles() { ls "$1" 2>/dev/null | grep -cE '\.i[0-9]*\.[0-9]*T[0-9]*Z(\.exec[0-9]+)?$'; }
# wait_for WHAT CMD...: at most 60 s until CMD succeeds.
wait_for() {
	_w=$1
	shift
	for _i in $(seq 600); do
		"$@" && return 0
		sleep 0.1
	done
	echo "# timed out waiting for $_w"
	return 1
}

D=$T/d
mkdir -p "$D"
PROFDIR=$D "$MONRUN" --interval=1 --control "$T/ispin" forever "$T/ready" >/dev/null 2>"$T/err" &
job=$!
wait_for ready test -s "$T/ready"
PID=$(cat "$T/ready")
wait_for "2 files" sh -c "[ \$(ls '$D' | grep -c '\.i[0-9]') -ge 2 ]"
t_set=$(date +%s%N)
prlimit --pid "$PID" --fsize=1024:unlimited
wait_for "the failure's line" grep -q 'cannot write profile' "$T/err" &&
	sleep 2.5	# two interval ends more, at least, with no file written
"$B/bin/monctl" "$PID" status >"$T/status" 2>&1
prlimit --pid "$PID" --fsize=unlimited:unlimited
t_back=$(date +%s%N)
wait_for "the line that files are written again" grep -q 'written again' "$T/err" &&
	n0=$(nfiles "$D") &&
	wait_for "a file after that" sh -c "[ \$(ls '$D' | grep -c '\.i[0-9]') -gt $n0 ]"
kill -9 "$PID"
wait "$job" 2>/dev/null
cat "$T/err" | head -n 20
cat "$T/status"

cannot=$(grep -c 'cannot write profile' "$T/err")
again=$(grep -c 'written again' "$T/err")
lost=$(sed -n 's/.*written again; \([0-9]*\) interval.*/\1/p' "$T/err" | head -n 1)
# At most one interval lost a second the limit was in force, and one more
# (the interval in progress when it was set back).
most=$(( (t_back - t_set) / 1000000000 + 2 ))
if [ "$cannot" = 1 ] && [ "$again" = 1 ] && [ "${lost:-0}" -ge 2 ] && [ "${lost:-0}" -le $most ]; then
	ok unwritable_said_once
else
	not_ok unwritable_said_once "$cannot 'cannot write' lines, $again 'written again' ($lost lost), want 1, 1 and 2 to $most lost"
fi

# "seq start end" of each file, in order of seq.
for f in $(ls "$D" | grep '\.i[0-9]'); do
	dump "$D/$f" info | awk '$1 == "interval_seq" { s = $2 } $1 == "interval_start_ns" { a = $2 }
		$1 == "interval_end_ns" { e = $2 } END { print s, a, e }'
done | sort -n >"$T/rows"
cat "$T/rows"
why=$(awk -v lost="${lost:-0}" 'NR > 1 && $1 != prev + 1 { gaps++; g = $1 - prev - 1
		# each lost interval lasted at least its period: 1 s
		if ($2 - pe < g * 1e9 * 0.9) short = $2 - pe }
	{ prev = $1; pe = $3 }
	END { if (gaps != 1) printf "%d gaps in the sequence numbers, want 1", gaps
	      else if (g != lost) printf "%d numbers skipped, the line said %d lost", g, lost
	      else if (short != "") printf "the file after the gap begins %.2f s after the last one ended, less than the %d intervals lost", short / 1e9, g }' "$T/rows")
if [ -s "$T/rows" ] && [ -z "$why" ]; then ok unwritable_gap; else not_ok unwritable_gap "$why"; fi

"$B/bin/prof" "$D" >/dev/null 2>"$T/prof.err"
prc=$?
grep 'intervals\?-missing\|not among the files' "$T/prof.err" | head -n 3
if [ $prc -eq 0 ] && grep -q "process $PID: intervals\? [0-9].* not among the files read" "$T/prof.err" &&
	grep -q 'keep PROFDIR writable' "$T/prof.err"; then
	ok unwritable_prof_says
else
	not_ok unwritable_prof_says "prof exit $prc: $(head -n 3 "$T/prof.err")"
fi
if grep -q 'not written [1-9]' "$T/status"; then
	ok unwritable_status
else
	not_ok unwritable_status "$(grep interval "$T/status")"
fi
