#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A thread's name in the wall record is the name it took, also for a thread
# that never blocks (issue 20: a running thread's name was read once, at
# its first sight, before a worker names itself).  tests/progs/wall_renamed.c
# under monrun --wall=100: a thread spins 300 ms, names itself
# ("late_name") with pthread_setname_np and spins 1.5 s more.
#   wall_names_running   its row in the record is named "late_name", with
#                        all its expected samples (≥ 120), ≥ 90 % running
#                        or runnable
# (prof names a thread by the CPU clock's facts where it has them, so its
# views showed the name taken already; the record's name is what it has for
# a thread without CPU samples.)
# Mutation: the name read only when none is known (as before): the row is
# named after the program (renamed).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wall_lib.inc"

wall_run renamed 100 60
tid=$(awk '$1 == "renamed" { print $2 }' "$T/renamed.out")
set -- $(awk -v u="$tid" '$1 == "thread" && $2 == u { nm = $4; e = $6 }
	$1 == "sample" && $4 == u { n += $2; if ($6 == "running" || $6 == "runnable") r += $2 }
	END { print (nm == "" ? "-" : nm), e + 0, n + 0, r + 0 }' "$T/wall.txt")
if [ $rc -eq 0 ] && [ -n "$tid" ] && [ "$1" = late_name ] && [ "$2" -ge 120 ] && [ "$3" = "$2" ] &&
    [ $(($4 * 10)) -ge $(($3 * 9)) ]; then
	ok wall_names_running
else
	not_ok wall_names_running "exit $rc, thread '$tid': named '$1', expected $2, samples $3, running or runnable $4"
fi
