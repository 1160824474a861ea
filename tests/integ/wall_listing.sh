#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The wall sampler takes a thread for ended only when it has (issue 20):
# tests/progs/wall_listing.c starts 2000 long-lived threads among short
# ones (256 at a time, each 1 ms asleep), under PROFDIR=DIR monrun --interval=1 --wall=1000.  A listing of
# /proc/self/task (every 8th round) misses live threads when threads end
# while it reads: getdents64 resumes by position when the thread it stopped
# at is gone.  A thread so missed was ended, and listed again as a new
# thread: two rows, two starts, its samples split between them.
#   wall_listing_run      exit 0, 2000 long threads
#   wall_listing_once     over the files, each long thread has at most one
#                         start and one end (rows so flagged), no row after
#                         the file that ended it, and no file lists it twice
# Mutation: round_all ending a thread a listing missed without asking its
# CPU clock (as before): in 8 runs of 8, 1 to 4 long threads ended twice
# (listed again after a false end) or 41 to 52 started twice.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wall_lib.inc"

wall_run_series listing 2000 4 256 1000
if [ $rc -eq 0 ] && grep -qx 'long 2000' "$T/out" && [ "$nf" -ge 2 ]; then
	ok wall_listing_run
else
	not_ok wall_listing_run "exit $rc, $nf files, $(head -n 1 "$T/out")"
fi
: >"$T/all.txt"
for f in $(cat "$T/files"); do
	wall_dump "$D/$f" "$T/listing" | sed "s|^|$f |" >>"$T/all.txt"
done
# Per long thread (its tid: none ends before the last file): rows flagged
# started, rows flagged ended, rows in a file after the one that ended it,
# and a tid twice in one file.  A thread the sampler found at its first
# round has no start (it was there before sampling began).
awk '$2 == "thread" && $5 == "long" { t = $3; tids[t] = 1
		if (($1 " " t) in seen) twice++; seen[$1 " " t] = 1
		if (t in ended) after++
		if ($NF % 2 == 1) { st[t]++; if (st[t] == 2) restarted++ }
		if (int($NF / 2) % 2 == 1) { if (t in ended) reended++; ended[t] = 1 } }
	END { for (t in tids) n++; printf "%d %d %d %d %d\n", n, restarted, reended, after, twice }' \
	"$T/all.txt" >"$T/count"
read -r n restarted reended after twice <"$T/count"
# Threads the sampler's table had no room for (MAX_THREADS rows a file:
# 7468 of 8192 in one file of a run here with 512 short threads in flight)
# are counted in the header, not listed: a long thread among them has no
# row, and a full table cannot tell whether every long thread would have
# been listed.  That part is then said as a skip; the rest is checked.
unl=$(awk '$2 == "wall" { for (i = 2; i < NF; i++) if ($i == "unlisted") s += $(i + 1) }
	END { print s + 0 }' "$T/all.txt")
if [ "$nf" -lt 2 ] || [ "$restarted$reended$after$twice" != 0000 ]; then
	not_ok wall_listing_once "$n long threads listed (want 2000, $unl unlisted); $restarted started twice, $reended ended twice, $after rows after their end, $twice twice in a file (want 0 each)"
elif [ "$n" = 2000 ]; then
	ok wall_listing_once
elif [ "$unl" -gt 0 ] && [ "$n" -lt 2000 ]; then
	ok "wall_listing_once # skip $n of 2000 long threads listed: the sampler's table was full ($unl unlisted); no thread started or ended twice"
else
	# The rows by name (a long thread's row named otherwise is not counted).
	names=$(awk '$2 == "thread" { c[$5]++ } END { for (k in c) printf "%s %d, ", k, c[k] }' "$T/all.txt")
	not_ok wall_listing_once "$n long threads listed (want 2000, $unl unlisted); rows by name: $names"
fi
