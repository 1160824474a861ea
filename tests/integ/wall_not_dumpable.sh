#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Wall-clock sampling of a process that is not dumpable (a new user's
# finding: a server started as root that changes user, or one that calls
# prctl(PR_SET_DUMPABLE, 0), got 100 % "[state not read]" and a warning
# with no cause).  Its /proc/PID files are root's; "syscall" is readable by
# its owner only, "stat" by all.  tests/progs/wall_dropuid.c changes to
# nobody (as root; else clears the flag), then a thread sleeps 1 s.
#   wall_dumpable_state  both threads (main, which changed user before the
#                        sampler's first look, and the sleeper started
#                        after) have their samples, blocked ones ([blocked]:
#                        no system call known) at least 80 % of those due,
#                        and no state went unread (prof -s: "0 whose state
#                        could not be read")
#   wall_dumpable_said   prof's wall-not-dumpable warning gives the cause and
#                        names prctl(PR_SET_DUMPABLE, 1)
#   wall_dumpable_per_interval  (below) the flag per interval's file
# Mutation: full_read without state_only_read (lib/wall.c): every sample of
# the thread "[state not read]", both fail.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"

build_plain dropuid wall_dropuid.c -pthread || { not_ok wall_dumpable_build; exit 0; }
# LeakSanitizer stops the world with ptrace from a task of its own, which a
# process that is not dumpable refuses (exit 1 at the end of a sanitized
# build's run).
case "$CC" in
*-fsanitize=*) ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0; export ASAN_OPTIONS ;;
esac
# The process may be nobody when it writes its file.
mkdir -p "$T/nd"
chmod 755 "$T"
chmod 1777 "$T/nd"
timeout 60 "$MONRUN" --wall=100 -o "$T/nd/d.mon" "$T/dropuid" >"$T/d.out" 2>"$T/d.err"
rc=$?
cat "$T/d.out" "$T/d.err"
if [ $rc != 0 ] || ! grep -qx 'dumpable 0' "$T/d.out" || [ ! -s "$T/nd/d.mon" ]; then
	not_ok wall_dumpable_run "exit $rc, $(cat "$T/d.out")"
	exit 0
fi
"$PROF" -m "$T/nd/d.mon" -s --sample=wall "$T/dropuid" >"$T/s.txt" 2>&1
"$PROF" -m "$T/nd/d.mon" --threads=all --sample=wall "$T/dropuid" >"$T/t.txt" 2>"$T/t.err"
# Each thread's heading ("Thread dropuid-TID: N samples of D due") and
# blocked time ("blocked S s (P %)"): both main (joining) and the sleeper
# are blocked nearly all their time; the worst of them is judged.
set -- $(awk '/^Thread / { t = $2; due[t] = $6; n++ } /blocked [0-9.]* s/ { for (i = 1; i <= NF; i++) if ($i == "blocked") b[t] = $(i + 1) }
	END { w = 2; for (t in due) { r = due[t] > 0 ? b[t] * 100 / due[t] : 0; if (r < w) { w = r; wd = due[t]; wb = b[t] } }
		printf "%d %s %s %s\n", n, wb + 0, wd + 0, w }' "$T/t.txt")
nt=${1:-0} blocked=${2:-0} due=${3:-0} ratio=${4:-0}
if grep -q ', 0 whose state could not be read' "$T/s.txt" && [ "$nt" -ge 2 ] &&
    grep -q '\[blocked\]' "$T/t.txt" && awk -v r="$ratio" 'BEGIN { exit !(r >= 0.8) }'; then
	ok "wall_dumpable_state # $nt threads, the least blocked: $blocked s of $due samples due at 100 Hz"
else
	not_ok wall_dumpable_state "$nt threads, the least blocked $blocked s of $due due; $(grep 'could not be read' "$T/s.txt")"
	head -n 20 "$T/t.txt"
fi
if grep -q 'the process was not dumpable.*prctl(PR_SET_DUMPABLE, 1)' "$T/t.err"; then
	ok wall_dumpable_said
else
	not_ok wall_dumpable_said "$(head -n 3 "$T/t.err")"
fi

# Per interval: the flag says what each interval's own reads met.  The
# program makes itself dumpable again after the first sleeper (about 1 s)
# and a second sleeper sleeps 2.5 s, under --interval=1: the first file
# says "not dumpable", the last (wholly after the restore) does not; its
# sleeper's samples are read whole (its system call known: nanosleep).
#   wall_dumpable_per_interval  before, every file of the series said it
#                               (wall.c's flag was set for the process's
#                               life)
mkdir -p "$T/iv"
chmod 1777 "$T/iv"
timeout 60 "$MONRUN" --wall=100 --interval=1 -o "$T/iv/d.mon" "$T/dropuid" 2.5 >"$T/iv.out" 2>"$T/iv.err"
rc=$?
first=$(ls "$T/iv" | LC_ALL=C sort | head -n 1)
last=$(ls "$T/iv" | LC_ALL=C sort | tail -n 1)
said() { "$PROF" -m "$T/iv/$1" --sample=wall "$T/dropuid" 2>&1 >/dev/null | grep -c 'the process was not dumpable'; }
if [ $rc = 0 ] && grep -qx 'dumpable 1' "$T/iv.out" && [ -n "$first" ] && [ "$first" != "$last" ]; then
	f=$(said "$first") l=$(said "$last")
	"$PROF" -m "$T/iv/$last" --sample=wall "$T/dropuid" >"$T/iv.txt" 2>/dev/null
	if [ "$f" -ge 1 ] && [ "$l" = 0 ] && grep -q 'nanosleep' "$T/iv.txt"; then
		ok "wall_dumpable_per_interval # $(ls "$T/iv" | wc -l) files; the first says it, the last not"
	else
		not_ok wall_dumpable_per_interval "first file said it $f times, the last $l; last: $(head -n 5 "$T/iv.txt" | tr '\n' ' ')"
	fi
else
	not_ok wall_dumpable_per_interval "exit $rc, $(tr '\n' ' ' <"$T/iv.out"); files: $(ls "$T/iv" | tr '\n' ' ')"
fi
