#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The watcher (lib/control.c: a process of libmon's own that says so when
# the program ends without writing its profile) has the program's command
# line copied by its clone: `pgrep -f "redis-server --port 6392"` found two
# processes and `monctl $(pgrep -f ...) status` failed with a usage error (a
# new user's report).  Its argument area is written over with its name.
#   watcher_title_pgrep   pgrep -f of the program's command line finds the
#                         program alone
#   watcher_title_named   a monprof-watch process's command line is
#                         "monprof-watch" (ps -o args)
# Mutation: retitle() not called: pgrep finds 2 processes,
# watcher_title_pgrep fails.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/monrun_lib.inc"

build_plain ispin interval_spin.c || { not_ok watcher_title_build; exit 0; }
cd "$T" || exit 1
"$MONRUN" -o "$T/mon.out" "$T/ispin" forever "$T/ready" >/dev/null 2>&1 &
job=$!
for _i in $(seq 300); do [ -s "$T/ready" ] && break; sleep 0.1; done
PID=$(cat "$T/ready")
sleep 0.3
found=$(pgrep -f "$T/ispin forever $T/ready" | tr '\n' ' ')
# The watcher: a process named monprof-watch whose environment is ours
# (its own is the program's copy): this run's scratch directory in it.
w=
for p in $(pgrep -x monprof-watch); do
	{ tr "\0" "\n" <"/proc/$p/environ"; } 2>/dev/null | grep -q "$T" && w=$p
done
args=$([ -n "$w" ] && ps -o args= -p "$w")
kill "$PID"
wait "$job" 2>/dev/null
if [ "$found" = "$PID " ]; then ok watcher_title_pgrep; else not_ok watcher_title_pgrep "pgrep -f found '$found', the program is $PID"; fi
if [ -n "$w" ] && [ "$(echo $args)" = monprof-watch ]; then
	ok watcher_title_named
else
	not_ok watcher_title_named "watcher '${w:-none}': '$args'"
fi
