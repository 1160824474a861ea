#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A thread that works and sleeps in turns shorter than the sampler's period
# (tests/progs/wall_duty.c: about 1 ms of CPU, about 1 ms of nanosleep, for
# 2 s, under monrun --wall=250), as a server's thread is: R at many rounds
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
# Mutation: the old rule (R at both ends: runnable for d - dc): 14.5, 4.0
# and 9.4 % runnable against waits of 6.3, 1.2 and 1.3 % (bounds 10.5, 3.7,
# 3.8), wall_duty_runnable fails 3 runs of 3.
# Known and not checked here: such a thread's blocked samples are too many
# (70 to 79 % of them against 52 % of its time asleep): the sampler, on a
# busy CPU, tends to run when the thread blocks.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wall_lib.inc"

[ -r /proc/self/schedstat ] || { echo "SKIP no /proc/PID/schedstat (the kernel's CONFIG_SCHEDSTATS)"; exit 77; }
wall_run_omitfp duty 250 120 2 1000 1000
tid=$(awk '$1 == "duty" { print $2 }' "$T/duty.out")
awk -v tid="$tid" 'FNR == NR { if ($1 == "duty") { life = $4; wq = $8 }; next }
	$1 == "sample" && $4 == tid { n += $2; s[$6] += $2 }
	END {
		if (n < 100 || life <= 0) { printf "bad only %d samples\n", n; exit }
		p = s["runnable"] / n; t = wq / life
		b = t + 3 * sqrt((t > 0.01 ? t : 0.01) * (1 - t) / n) + 0.01
		printf "%s runnable %.1f %% of %d samples, run-queue wait %.1f %% of its life, bound %.1f %% (running %.1f, blocked %.1f %%)\n",
			p <= b ? "ok" : "bad", 100 * p, n, 100 * t, 100 * b, 100 * s["running"] / n, 100 * s["blocked"] / n
	}' "$T/duty.out" "$T/wall.txt" >"$T/verdict"
cat "$T/verdict"
read -r v why <"$T/verdict"
if [ "$rc" -eq 0 ] && [ "$v" = ok ]; then ok wall_duty_runnable; else not_ok wall_duty_runnable "exit $rc: $why"; fi
