#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# An exec that fails under `monrun --interval` (issue 22): the exec hook
# writes the image's last interval, the exec fails (ENOENT), the series
# goes on in the same image.  The last file's counts must have been taken,
# or the next file holds them again.
#   interval_exec_fails_run     tests/progs/monrun_execs.c fail 0.6 under
#                               --interval=5: exit 0, two files (the one
#                               written at the exec, then the one at exit)
#   interval_exec_fails_sum     the files' samples (RUN) add up to the
#                               process's samples so far (the last file's
#                               INTERVAL samples total): no sample in two
#                               files
# Mutation: the exec's cut without take (as before): 1798 samples over the
# files against 1198 taken, interval_exec_fails_sum fails (and prof showed
# before_exec_work at 1.20 s for 0.6 s burnt).  Left: the file written at
# the exec keeps its IMAGES record naming the image the exec would have
# run, so prof says the process ran it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"
. "$(dirname "$0")/mon_helpers.inc"

if build_plain ex monrun_execs.c && build_dump; then
	ok interval_exec_fails_build
else
	not_ok interval_exec_fails_build
	exit 0
fi
D=$T/d
mkdir -p "$D"
PROFDIR=$D timeout 120 "$MONRUN" --interval=5 "$T/ex" fail 0.6 >"$T/out" 2>"$T/err"
rc=$?
cat "$T/out" "$T/err"
for f in $(ls "$D" | grep '\.i[0-9]'); do
	dump "$D/$f" info | awk '$1 == "samples" { s = $2 } $1 == "interval_seq" { q = $2 }
		$1 == "interval_samples_total" { t = $2 } END { print q, s, t }'
done | sort -n >"$T/rows"
cat "$T/rows"
n=$(wc -l <"$T/rows")
if [ $rc -eq 0 ] && [ "$n" = 2 ]; then
	ok interval_exec_fails_run
else
	not_ok interval_exec_fails_run "exit $rc, $n files, want 0 and 2"
fi
set -- $(awk '{ sum += $2; total = $3 } END { print sum + 0, total + 0 }' "$T/rows")
if [ "$n" = 2 ] && [ "$2" -gt 0 ] && [ "$1" = "$2" ]; then
	ok interval_exec_fails_sum
else
	not_ok interval_exec_fails_sum "the files hold $1 samples, the process took $2"
fi
