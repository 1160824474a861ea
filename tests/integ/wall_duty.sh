#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A thread that works and sleeps in turns shorter than the sampler's period
# (tests/progs/wall_duty.c: about 1 ms of CPU, about 1 ms of nanosleep, for
# 4 s, under monrun --wall=250), as a server's thread is: R at many rounds
# and blocked in between.  A thread seen R at two rounds in a row was taken
# as wanting a CPU all along, and its sleeps between them counted runnable
# (lib/wall.c split_running): redis under load showed 2.2 s runnable and
# 0.8 s less running than its CPU.  Now only a thread that stayed on its CPU
# meanwhile (schedstat's run count unchanged) is; the others are runnable
# for the run-queue wait schedstat counted.
#   wall_duty_runnable   the thread's runnable samples (of its samples) no
#                        more than its measured run-queue wait (schedstat,
#                        of its life) plus 3 standard deviations of the
#                        share for its samples and 1 pp
#   wall_duty_taken      its samples are those due (one a round)
#   wall_duty_taken_main the main thread's samples are exactly those due
#   (each at --wall=250 and, with the suffix _1000, at --wall=1000, where
#   a look of the sampler stands for 4 rounds)
#   wall_duty_split      its running and its blocked samples (of its
#                        samples) each within 2 pp and 3 standard
#                        deviations of its CPU time and of its time neither
#                        on a CPU nor waiting for one (of its life)
# A round looks at the thread at one moment, and that moment is not
# independent of what it does: the sampler, woken on the CPU the thread
# runs on, often runs only when the thread blocks.  Each round's sample is
# now split as the thread's time over the round was (its CPU clock and
# schedstat: wall.c's time_share), the read giving the stack.
# Mutations: the old rule (R at both ends: runnable for d - dc): 14.5, 4.0
# and 9.4 % runnable against waits of 6.3, 1.2 and 1.3 % (bounds 10.5, 3.7,
# 3.8), wall_duty_runnable fails 3 runs of 3; the sample as the read found
# it (time_pick returning -1): 15 to 20 % running against 46 to 48 %,
# wall_duty_split fails; a look counting one sample of a thread that ran
# (count_units with w = 1): wall_duty_taken_1000 fails; instant 0 counted
# at the first two looks (seen's lo 0 when was_ns is start_ns): 1001 of
# 1000 due, wall_duty_taken_main fails.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wall_lib.inc"

[ -r /proc/self/schedstat ] || { echo "SKIP no /proc/PID/schedstat (the kernel's CONFIG_SCHEDSTATS)"; exit 77; }
for hz in 250 1000; do
	sfx=; [ "$hz" = 250 ] || sfx=_$hz
	wall_run_omitfp duty "$hz" 120 4 1000 1000
	tid=$(awk '$1 == "duty" { print $2 }' "$T/duty.out")
	awk -v tid="$tid" 'FNR == NR { if ($1 == "duty") { life = $4; cpu = $6; wq = $8 }; next }
		$1 == "sample" && $4 == tid { n += $2; s[$6] += $2 }
		END {
			if (n < 100 || life <= 0) { printf "bad only %d samples\n", n; exit }
			p = s["runnable"] / n; t = wq / life
			b = t + 3 * sqrt((t > 0.01 ? t : 0.01) * (1 - t) / n) + 0.01
			printf "%s runnable %.1f %% of %d samples, run-queue wait %.1f %% of its life, bound %.1f %% (running %.1f, blocked %.1f %%)\n",
				p <= b ? "ok" : "bad", 100 * p, n, 100 * t, 100 * b, 100 * s["running"] / n, 100 * s["blocked"] / n
		}' "$T/duty.out" "$T/wall.txt" >"$T/verdict"
	sed "s/^/# /" "$T/verdict"
	read -r v why <"$T/verdict"
	if [ "$rc" -eq 0 ] && [ "$v" = ok ]; then ok wall_duty_runnable$sfx; else not_ok wall_duty_runnable$sfx "exit $rc: $why"; fi
	awk -v tid="$tid" 'FNR == NR { if ($1 == "duty") { life = $4; cpu = $6; wq = $8 }; next }
		$1 == "sample" && $4 == tid { n += $2; s[$6] += $2 }
		function far(got, want) { return got - want > 0.02 + 3 * sqrt(want * (1 - want) / n) ||
			want - got > 0.02 + 3 * sqrt(want * (1 - want) / n) }
		END {
			if (n < 100 || life <= 0) { printf "bad only %d samples\n", n; exit }
			r = s["running"] / n; b = (n - s["running"] - s["runnable"]) / n
			tr = cpu / life; tb = (life - cpu - wq) / life
			printf "%s running %.1f %% of %d samples against %.1f %% of its life on a CPU, blocked %.1f %% against %.1f %%\n",
				far(r, tr) || far(b, tb) ? "bad" : "ok", 100 * r, n, 100 * tr, 100 * b, 100 * tb
		}' "$T/duty.out" "$T/wall.txt" >"$T/verdict"
	sed "s/^/# /" "$T/verdict"
	read -r v why <"$T/verdict"
	if [ "$rc" -eq 0 ] && [ "$v" = ok ]; then ok wall_duty_split$sfx; else not_ok wall_duty_split$sfx "exit $rc: $why"; fi
	# Every round counted: at 1000 Hz the sampler looks 250 times a second,
	# each look standing for 4 rounds (wall.c's LOOK_HZ); the thread's
	# samples are those due (its expected count, less 1 for the rounding of
	# its ends), not one a look.
	set -- $(awk -v tid="$tid" '$1 == "thread" && $2 == tid { print $6, $8 }' "$T/wall.txt")
	if [ "$rc" -eq 0 ] && [ "${1:-0}" -gt 100 ] && [ "${2:-0}" -ge $((${1:-0} - 1)) ] &&
	    [ "${2:-0}" -le "${1:-0}" ]; then
		ok wall_duty_taken$sfx
	else
		not_ok wall_duty_taken$sfx "exit $rc: the thread took ${2:-?} samples of ${1:-?} due"
	fi
	# The main thread (the one not the sampler's nor the duty thread),
	# there at the sampler's first look (its instant 0):
	# exactly its due, each round once.  The look after the first counted
	# instant 0 again (was_ns == start_ns taken as "never seen"), one sample
	# over in every thread the first look saw: 5209 of 5208 due.
	set -- $(awk -v tid="$tid" '$1 == "thread" && $4 != "monprof-wall" && $2 != tid { e = $6; k = $8; u = $10; n++ }
		END { if (n == 1) print e, k + u }' "$T/wall.txt")
	if [ "$rc" -eq 0 ] && [ "${1:-0}" -gt 100 ] && [ "${2:-0}" -eq "${1:-0}" ]; then
		ok wall_duty_taken_main$sfx
	else
		not_ok wall_duty_taken_main$sfx "exit $rc: the main thread took ${2:-?} samples (and unreadable) of ${1:-?} due"
	fi
done
