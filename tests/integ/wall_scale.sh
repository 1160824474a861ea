#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# 1000 threads at 100 Hz under ulimit -n 1024: tests/progs/wall_scale.c
# keeps 700 descriptors of its own open and starts 1000 threads (half in
# nanosleep, half in a condition wait, 1.5 s each), each timing its life.
#   wall_scale_run        the program ran as without profiling: 700 descriptors,
#                         1000 threads, exit 0, nothing from monprof on stderr
#   wall_scale_complete   the WALL record lists all 1000, no thread left out,
#                         no sample lost, no state unreadable
#   wall_scale_rate       each thread's samples / its measured life >= 0.95 x 100 Hz
#                         x the share of rounds the sampler took (rounds / (rounds +
#                         missed), from the record: 1 unless the machine held it back)
# Mutation: new threads found only by listing /proc/self/task every 8th
# round (no announcement from pthread_create, announce left out) fails
# wall_scale_rate; descriptors kept for every thread without a budget
# (fds_budget unlimited) fails wall_scale_run.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wall_lib.inc"

build_wall_dump
$CC -O2 -g -o "$T/scale" "$ROOT/tests/progs/wall_scale.c" -lpthread
(ulimit -n 1024 && exec timeout 120 "$B/bin/monrun" --wall -o "$T/scale.mon" "$T/scale") \
	>"$T/out" 2>"$T/err"
rc=$?
tail -n 2 "$T/out"
cat "$T/err"
wall_dump "$T/scale.mon" "$T/scale" >"$T/wall.txt" 2>&1
head -n 1 "$T/wall.txt"
if [ $rc -eq 0 ] && grep -qx 'fds 700' "$T/out" && grep -qx 'started 1000' "$T/out" && ! [ -s "$T/err" ]; then
	ok wall_scale_run
else
	not_ok wall_scale_run "exit $rc, $(grep -E '^(fds|started)' "$T/out" | tr '\n' ' ')$(head -n 2 "$T/err")"
fi
# A thread's rate counts against the rounds the sampler took, not against
# the rounds due: on a loaded machine the sampler itself runs late (the
# record counts those rounds as missed, and prof reports them), and what
# is checked is that no thread was left out of a round that ran.  The rate
# of rounds taken, rounds / (rounds + missed), comes from the run itself.
awk 'NR == FNR { if ($1 == "thread") life[$2] = $4; next }
	$1 == "wall" { lost = $16; unl = $18; on = $6 / ($6 + $8) }
	$1 == "thread" && ($2 in life) { n++; if ($10 > 0) unr++
		r = $8 / (life[$2] / 1e6); if (min == "" || r < min) { min = r; who = $2 } }
	END { printf "listed %d lost %s unlisted %s unreadable %d min %.2f tid %s on %.4f\n", n, lost, unl, unr, min, who, on }' \
	"$T/out" "$T/wall.txt" >"$T/sum"
cat "$T/sum"
read -r _ listed _ lost _ unl _ unr _ min _ who _ on <"$T/sum"
if [ "$listed" = 1000 ] && [ "$lost" = 0 ] && [ "$unl" = 0 ] && [ "$unr" = 0 ]; then ok wall_scale_complete
else not_ok wall_scale_complete "$(cat "$T/sum")"; fi
if awk -v m="$min" -v on="$on" 'BEGIN { exit !(m >= 95 * on) }'; then ok wall_scale_rate
else wall_san_not_ok wall_scale_rate "thread $who: $min samples a second, below 0.95 x 100 Hz x $on (the share of rounds the sampler took)" \
	"the sampler's own code runs instrumented, several times slower, beside 1000 instrumented threads"; fi
