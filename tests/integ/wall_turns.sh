#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Sixteen threads on the CPU all along (tests/progs/wall_turns.c: turns of
# about 100 ms of CPU, sleeps of about 1 us, for 3 s, under monrun
# --wall=250), on a machine of fewer CPUs: each thread is on a CPU for a
# share of its life and waits in a run queue for the rest; a round finds
# most of them waiting, not run since the last (charged runnable again).
#   wall_turns_running   the threads' running samples (of their samples)
#                        within 2 pp and 3 standard deviations of their CPU
#                        time (of their lives); the runnable samples of
#                        their run-queue wait the same
# A round that finds a thread run since the last took the run-queue wait
# of the whole time since its last full read (the rounds it had not run,
# each charged runnable already, and this one) for this round's split
# (lib/wall.c split_running): its wait was counted twice, and 16 threads
# on 2 CPUs were 6.6 % running against 12.8 % of their lives on a CPU.
# The round's split is now its own (time_share: the wait less the rounds
# charged runnable, and less the wait woken_wait moved out of blocked
# rounds).
#   wall_turns_short     400 threads of 40 ms each (4 at a time, working
#                        about 0.3 ms and sleeping about 3 ms in turns):
#                        their running and blocked samples each within 2 pp
#                        and 3 standard deviations of their CPU time and of
#                        their time neither on a CPU nor waiting for one
#                        (their lives and CPU with their CPU outside the
#                        loop: share() below)
#   wall_turns_places    8 threads working about 2 ms and sleeping about
#                        1 ms at turn_sleep_a, working again and sleeping
#                        about 6 ms at turn_sleep_b: turn_sleep_a's share of
#                        their blocked samples at either place within 2 pp
#                        and 3 standard deviations of its share of their
#                        blocked time (the program's nanosleep calls, less
#                        the run-queue wait over them)
# A thread's life is what turns measures, from its first line to its last;
# a blocked sample whose stack is not in turns is outside it and left out:
# under ASan a new thread's runtime start (AsanThread::Init's calloc)
# waits on the sanitizer allocator's lock, which 16 threads on 2 CPUs hold
# for a time slice (206 samples of 16 threads, 5 % blocked against 0 % in
# a CI run of 2026-12-03).
# Each round's sample of a thread that ran is on a CPU or blocked as its
# time over the round was, by error diffusion (time_pick); a diffusion
# that counts on at the first share above 0 gives each thread one sample
# on a CPU more than its due, half a sample too many on average, and a
# thread of ten samples shows that: 15.3 % running against 9.7 %.
# Mutations: split_running's ratio for every R read (the code before):
# 6.6 % running against 12.8 %, wall_turns_running fails; time_pick on at
# a credit above 0 (as before): 15.3 and 15.7 % running against 9.7 and
# 10.3 % (14.5 % against 10.0 % with the CPU outside the loop counted),
# wall_turns_short fails; a thread found R and counted blocked
# charged to its last blocked sample found (as before): turn_sleep_a 8.2
# % against 15.3 %, wall_turns_places fails.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wall_lib.inc"
. "$(dirname "$0")/mon_helpers.inc"

[ -r /proc/self/schedstat ] || { echo "SKIP no /proc/PID/schedstat (the kernel's CONFIG_SCHEDSTATS)"; exit 77; }
ncpu=$(getconf _NPROCESSORS_ONLN)
[ "$ncpu" -le 8 ] || { echo "SKIP $ncpu CPUs: 16 threads do not wait for one"; exit 77; }
build_dump || { not_ok wall_turns_build_dump; exit 0; }
share() { # CHECK: the verdict of $T/turns.out against $T/wall.txt
# Each thread's CPU outside turns' loop (its start, and its end after the
# loop: THREADS' CPU less the loop's, about 0.4 ms a thread under ASan
# against 4 ms in the loop) is on a CPU too, and its running samples count
# it: so its CPU and its life take it in (a lower bound of the time it
# spans; 40 ms threads under ASan beside busy CPUs were +1.2 to +3.5 pp
# running against their loops' CPU, one run past the bound).
"$T/mon_dump" "$T/turns.mon" info | awk '$1 == "thread" { print "cpu", $2, $(NF - 6) + $(NF - 4) }' >"$T/threads.cpu"
[ -s "$T/threads.cpu" ] || { not_ok "wall_turns_$1" "no THREADS record read from $T/turns.mon"; return; }
awk 'FNR == NR { all[$2] = $3 * 1000; next }
	$1 == "turns" { out = ($2 in all) && all[$2] > $6 ? all[$2] - $6 : 0; $4 += out; $6 += out } { print }' \
	"$T/threads.cpu" "$T/turns.out" >"$T/turns.all"
awk 'FNR == NR { if ($1 == "turns") { tl[$2] = 1; life += $4; cpu += $6; wq += $8 }; next }
	$1 == "sample" && ($4 in tl) && ($6 == "running" || $6 == "runnable" || $NF ~ /(^|;)turns(;|$)/) { n += $2; s[$6] += $2 }
	$1 == "sample" && ($4 in tl) && !($6 == "running" || $6 == "runnable" || $NF ~ /(^|;)turns(;|$)/) { out += $2 }
	function far(got, want) { return got - want > 0.02 + 3 * sqrt(want * (1 - want) / n) ||
		want - got > 0.02 + 3 * sqrt(want * (1 - want) / n) }
	END {
		if (n < 1000 || life <= 0) { printf "bad only %d samples\n", n; exit }
		r = s["running"] / n; q = s["runnable"] / n; b = 1 - r - q
		tr = cpu / life; tq = wq / life; tb = 1 - tr - tq
		printf "%s running %.1f %% of %d samples against %.1f %% of their lives on a CPU, runnable %.1f %% against %.1f %% waiting for one, blocked %.1f %% against %.1f %% (%d blocked outside turns left out)\n",
			far(r, tr) || far(check == "short" ? b : q, check == "short" ? tb : tq) ? "bad" : "ok",
			100 * r, n, 100 * tr, 100 * q, 100 * tq, 100 * b, 100 * tb, out
	}' check="$1" "$T/turns.all" "$T/wall.txt" >"$T/verdict"
sed "s/^/# /" "$T/verdict"
read -r v why <"$T/verdict"
if [ "$rc" -eq 0 ] && [ "$v" = ok ]; then ok "wall_turns_$1"; else not_ok "wall_turns_$1" "exit $rc: $why"; fi
}

wall_run_omitfp turns 250 120 3 16 100000 1 1 >/dev/null
share running
wall_run_omitfp turns 250 120 0.04 4 300 3000 3000 100 >/dev/null
share short
wall_run_omitfp turns 250 120 6 8 2000 1000 6000 >/dev/null
awk 'FNR == NR { if ($1 == "turns") { tl[$2] = 1; a += $10; b += $12 }; next }
	$1 == "sample" && ($4 in tl) && $6 != "running" && $6 != "runnable" {
		if (index($NF, "turn_sleep_a")) sa += $2; else if (index($NF, "turn_sleep_b")) sb += $2 }
	END {
		n = sa + sb
		if (n < 500 || a + b <= 0) { printf "bad only %d blocked samples\n", n; exit }
		p = sa / n; t = a / (a + b); d = p > t ? p - t : t - p
		printf "%s turn_sleep_a %.1f %% of %d blocked samples at either place against %.1f %% of the time blocked there, bound %.1f pp\n",
			(d > 0.02 + 3 * sqrt(t * (1 - t) / n) ? "bad" : "ok"), 100 * p, n, 100 * t, 100 * (0.02 + 3 * sqrt(t * (1 - t) / n))
	}' "$T/turns.out" "$T/wall.txt" >"$T/verdict"
sed "s/^/# /" "$T/verdict"
read -r v why <"$T/verdict"
if [ "$rc" -eq 0 ] && [ "$v" = ok ]; then ok wall_turns_places; else not_ok wall_turns_places "exit $rc: $why"; fi
