#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# CPU used while profiling is off is not CPU the profile missed (a new
# user's finding: after monrun --dormant, monctl on and off, prof said the
# samples covered 48 % and named threads "with CPU but few samples", while
# they matched the CPU of the time profiling was on).  The runtime counts
# the process CPU of each spell off (lib/runfacts.c mon_facts_profiling)
# with the CPU before the start (FACTS cpu_before_usec) and flags the file
# (MONOUT_FACT_PROFILING_OFF).  tests/progs/cpu_pause.c, linked with
# libmon, under monrun: 0.2 CPU-s on, 0.8 off (main and a thread that ends
# meanwhile), 0.2 on.  The user CPU while on is the process's user CPU less
# that of the spells off, each read from the kernel, whose split of CPU
# time into user and system time is an estimate (tick-sampled): the spins
# look at their thread's CPU clock (a system call) once a millisecond, not
# every 20 microseconds, whose system time, split by that estimate, put the
# share at 89-91 % on a loaded machine (98-103 % now).
#   coverage_pause_quiet  prof gives no coverage warning
#   coverage_pause_said   prof -s: "not sampled by design (start-up, rate
#                         check, profiling off)", that figure at least the
#                         CPU the program measured off less 10 %, and the
#                         share "of the ... CPU while profiling was on" at
#                         least 80 %
# Mutation: mon_facts_profiling doing nothing: "the samples cover 35 %",
# both checks fail (in each of the three runs).
. "$(dirname "$0")/lib.sh"

build_prog pause cpu_pause.c -pthread
mkdir -p "$T/run"
cd "$T/run" || exit 1
# One run: the checks' verdicts in quiet_ok and said_ok (0 passed), their
# figures in said_msg and rc.
pause_run() {
	timeout 60 "$B/bin/monrun" -o p.mon "$T/pause" >"$T/out" 2>"$T/err"
	rc=$?
	cat "$T/out" "$T/err"
	"$B/bin/prof" -m p.mon "$T/pause" >/dev/null 2>"$T/warn"
	"$B/bin/prof" -s -m p.mon "$T/pause" >"$T/s" 2>&1
	cat "$T/warn"
	grep '^CPU:' "$T/s"
	quiet_ok=1
	[ $rc -eq 0 ] && ! grep -q 'warning: the samples cover' "$T/warn" && quiet_ok=0
	off=$(awk '$1 == "off" { print $2 }' "$T/out")
	set -- $(sed -n 's/^CPU: .*, \([0-9.]*\) s of it not sampled by design (start-up, the profiler.s own work: rate check, loaded objects, profiling off); samples stand for [0-9.]* s = \([0-9]*\) % of the .* CPU while profiling was on$/\1 \2/p' "$T/s")
	said_ok=1
	[ -n "$off" ] && [ $# -eq 2 ] &&
		awk -v n="$1" -v o="$off" -v p="$2" 'BEGIN { exit !(n >= 0.9 * o && p >= 80) }' &&
		said_ok=0
	said_msg="$1 s not sampled by design, ${off:-?} s measured off; $2 %"
}
# Both figures rest on the kernel's user/system split of each spell's CPU,
# an estimate a loaded machine can push by a tenth (the helper's sweep of
# such bounds): up to two more runs when a check fails; the mutation below
# fails every run.
for try in 1 2 3; do
	pause_run
	[ $quiet_ok = 0 ] && [ $said_ok = 0 ] && break
	echo "# run $try: quiet $quiet_ok said $said_ok ($said_msg)"
done
if [ $quiet_ok = 0 ]; then
	ok "coverage_pause_quiet # run $try"
else
	not_ok coverage_pause_quiet "exit $rc: $(cat "$T/warn" | head -n 2)"
fi
if [ $said_ok = 0 ]; then
	ok "coverage_pause_said # $said_msg"
else
	not_ok coverage_pause_said "prof -s: $(grep '^CPU:' "$T/s")"
fi
