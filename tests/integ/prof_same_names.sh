#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Two functions of one name in two objects (the vDSO's clock_gettime and the
# C library's, which calls it) were two rows of the flat profile with
# nothing to tell them apart (a new user's report).  Each is followed by its
# object's label.
#   same_names_run       tests/progs/wall_duty.c (it calls clock_gettime
#                        in a loop) under monrun: exit 0
#   same_names_labelled  prof's flat profile: every clock_gettime row ends
#                        in "(LABEL)", two rows or more, each its own label;
#                        a name only one
#                        object has (duty_busy) stays bare
# Mutation: same_names() returning NULL: two bare rows, same_names_labelled
# fails.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/monrun_lib.inc"

build_plain duty wall_duty.c -O1 -lpthread || { not_ok same_names_build; exit 0; }
timeout 60 "$MONRUN" -o "$T/m.out" "$T/duty" 0.5 >/dev/null 2>"$T/err"
rc=$?
if [ $rc -eq 0 ]; then ok same_names_run; else not_ok same_names_run "exit $rc: $(head -n 2 "$T/err")"; fi
"$B/bin/prof" -m "$T/m.out" "$T/duty" >"$T/flat" 2>/dev/null
cat "$T/flat" | head -n 12
rows=$(awk '$NF ~ /^\(/ && $(NF - 1) == "clock_gettime" { n++ } END { print n + 0 }' "$T/flat")
bare=$(awk '$NF == "clock_gettime" { n++ } END { print n + 0 }' "$T/flat")
labels=$(awk '$(NF - 1) == "clock_gettime" { print $NF }' "$T/flat" | sort -u | wc -l)
# (Two objects, or three: a sanitizer's runtime intercepts clock_gettime.)
if [ "$rows" -ge 2 ] && [ "$bare" = 0 ] && [ "$labels" = "$rows" ] && grep -q ' duty_busy$' "$T/flat"; then
	ok same_names_labelled
else
	not_ok same_names_labelled "$rows labelled clock_gettime rows ($labels labels), $bare bare"
fi
