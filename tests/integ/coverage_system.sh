#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# System time (issue 11 item 6; case kernel-time.c).  The CPU-time clocks
# (thread, itimer) count it and charge it to the code that made the system
# call, as profil(2) and ITIMER_PROF do: cov_kernel spends about half its
# CPU in read(2) of /dev/zero, and kernel_heavy's call tree (read, and the
# thread CPU clock it reads each time) must hold that half of the samples.  The perf clock counts user time only (counting kernel
# time, its signal would interrupt blocking calls: profil_transparent.sh):
# its profile records that system time was not sampled and prof says so by
# default, with how much.  Bounds come from the CPU the program measured
# and the samples it got.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"
. "$(dirname "$0")/mon_helpers.inc"

if build_plain kern cov_kernel.c && build_dump; then ok cov_system_build; else not_ok cov_system_build; fi

# system_share NAME CLOCK: the kernel side's share of the samples matches
# its share of the CPU.
system_share() {
	d="$T/$2.out"
	if ! MONPROF_CLOCK=$2 "$MONRUN" -o "$d" "$T/kern" >"$T/$2.txt"; then
		not_ok "$1" "run failed"
		return
	fi
	if ! prof_csv "$d" "$T/$2.csv" "$T/kern"; then
		not_ok "$1" "prof: $(cat "$T/$2.csv.err")"
		return
	fi
	k=$(truth "$T/$2.txt" kernel_side) u=$(truth "$T/$2.txt" user_side)
	# The kernel side: kernel_heavy's call tree (its inclusive time: the
	# read calls, and the clock_gettime of the thread's CPU clock it asks
	# each time, a system call too, 5-13 % of the samples here), or without
	# stacks the rows of kernel_heavy and read.  In seconds as the
	# profile gives them, then in samples (the rows' ticks per second).
	kt=$(csv_awk -F, 'NR > 1 && $6 > 0 && tps == 0 { tps = $8 / $6 }
		NR > 1 && ($1 == "kernel_heavy" || $1 == "read" || $1 ~ /^__read/ || $1 ~ /^__libc_read/) { s += $8 }
		NR > 1 && $1 == "kernel_heavy" && $14 != "" { incl = $14 }
		END { k = incl * tps; print (k > s ? k : s) + 0 }' "$T/$2.csv")
	ut=$(ticks "$T/$2.csv" user_heavy)
	n=$(awk -v a="$kt" -v b="$ut" 'BEGIN { printf "%d", a + b }')
	p=$(awk -v k="$k" -v u="$u" 'BEGIN { print k / (k + u) }')
	# Sampled, not lost: at least half of its CPU share and at most that
	# share plus 0.15.  Idle, both clocks give 0.46-0.50 of a truth of 0.50;
	# on a loaded machine under ASan they gave 0.35-0.36 (a CPU-time timer
	# fires at the kernel's tick, and a thread preempted in the system call
	# takes it later, in user code); the perf clock, which does not count
	# system time, gives 0.02-0.06.
	# A loaded machine is the run's own mark: kernel_heavy preempted
	# (involuntary switches) at least once for every 4 samples due on the
	# kernel side.  There the floor is a quarter of the CPU share: with
	# three busy loops on 2 cores, 96-118 preemptions for 235-250 samples
	# due, the thread clock gave 0.25-0.41; on a busy CI run once 0.18.
	# Still far above the 0.02-0.06 of a clock that leaves system time out.
	pre=$(truth "$T/$2.txt" kernel_preempted)
	why=$(awk -v k="$kt" -v n="$n" -v p="$p" -v pre="${pre:-0}" 'BEGIN {
		if (n <= 0) { print "no samples"; exit }
		s = k / n; lo = (4 * pre >= p * n) ? p / 4 : p / 2
		if (s < lo || s > p + 0.15)
			printf "share %.4f of %d samples, CPU share %.4f, %d preemptions in the kernel side: outside [%.4f, %.4f]", s, n, p, pre, lo, p + 0.15
	}')
	if [ -z "$why" ]; then ok "$1"; else not_ok "$1" "$why"; fi
	echo "# $1: $kt of $n samples on the kernel side, CPU share $p, ${pre:-0} preemptions there"
}
system_share cov_system_thread thread
system_share cov_system_itimer itimer

flags_of() { dump "$1" info | awk '$1 == "fact_flags" { print $2 }'; }
for c in thread itimer; do
	f=$(flags_of "$T/$c.out")
	if [ -n "$f" ] && [ $((f & 1)) -eq 1 ] && [ $((f & 2)) -eq 0 ] &&
	    "$PROF" -s -m "$T/$c.out" "$T/kern" >/dev/null 2>"$T/$c.err" &&
	    grep -q "^system time: sampled" "$T/$c.err" && ! grep -q "warning: system CPU time" "$T/$c.err"; then
		ok cov_system_${c}_recorded_sampled
	else
		not_ok cov_system_${c}_recorded_sampled "fact_flags ${f:-none}: $(cat "$T/$c.err" 2>/dev/null)"
	fi
done

# The perf clock: recorded as not sampled, and prof says so by default,
# with the system time the run measured.  0.6 s of system time for 0.1 s
# of user time: prof leaves out of the unsampled system time the CPU used
# before profiling started (ASan's start-up is mostly system time) and the
# ticks' own measured cost; with 0.2 s on a loaded ASan run, what was left
# fell under the warning's 25 % once.
if MONPROF_CLOCK=perf "$MONRUN" -o "$T/perf.out" "$T/kern" 0.6 0.1 >"$T/perf.txt" &&
    [ "$(dump "$T/perf.out" info | awk '$1 == "clock" { print $2 }')" = 1 ]; then
	f=$(flags_of "$T/perf.out")
	if [ -n "$f" ] && [ $((f & 2)) -eq 2 ] && [ $((f & 1)) -eq 0 ]; then
		ok cov_system_perf_recorded_unsampled
	else
		not_ok cov_system_perf_recorded_unsampled "fact_flags ${f:-none}"
	fi
	sys=$(dump "$T/perf.out" info | awk '$1 == "sys_usec" { printf "%.3f", $2 / 1e6 }')
	if "$PROF" -m "$T/perf.out" "$T/kern" >/dev/null 2>"$T/perf.err" &&
	    grep -q "warning: system CPU time ($sys s, [0-9]* % of the CPU) was not sampled" "$T/perf.err"; then
		ok cov_system_perf_unsampled_warns
	else
		not_ok cov_system_perf_unsampled_warns "system $sys s; stderr: $(cat "$T/perf.err")"
	fi
	# With --wall beside it, the warning says where the running time in
	# system calls lies in the wall-clock view (a new user's redis, 89 %
	# system CPU, showed 'running 2.74 s' and 0.13 s in write).  Mutation:
	# the clause off: cov_system_perf_wall_said fails.
	if MONPROF_CLOCK=perf "$MONRUN" --wall=100 -o "$T/pw.out" "$T/kern" 0.6 0.1 >/dev/null &&
	    "$PROF" -m "$T/pw.out" --sample=wall "$T/kern" >/dev/null 2>"$T/pw.err" &&
	    grep -q "warning: system CPU time .* was not sampled: .*, and the wall-clock view's running time, in system calls too, lies on the user code's stacks" "$T/pw.err"; then
		ok cov_system_perf_wall_said
	else
		not_ok cov_system_perf_wall_said "$(cat "$T/pw.err" 2>/dev/null)"
	fi
	# A program with little system time gets no such warning.  "Little" is
	# what the run recorded, not what the program asked for: on a loaded
	# VM the perf clock's run of this 0.5 s user loop was once charged
	# 0.14-0.24 s of system time (28-47 %), and prof was right to warn.  A
	# run recorded with under 10 % is judged; up to 3 runs are tried.
	quiet=""
	for try in 1 2 3; do
		MONPROF_CLOCK=perf "$MONRUN" -o "$T/u.out" "$T/kern" 0.002 0.5 >/dev/null || break
		share=$(dump "$T/u.out" info | awk '$1 == "user_usec" { u = $2 } $1 == "sys_usec" { s = $2 }
		    END { if (u + s > 0) printf "%d", 100 * s / (u + s) }')
		[ "${share:-100}" -lt 10 ] || continue
		if "$PROF" -m "$T/u.out" "$T/kern" >/dev/null 2>"$T/u.err" &&
		    ! grep -q "system CPU time" "$T/u.err"; then
			quiet=ok
		else
			quiet="recorded system share $share %; stderr: $(cat "$T/u.err")"
		fi
		break
	done
	case $quiet in
	ok) ok cov_system_perf_quiet_when_little ;;
	"") ok "cov_system_perf_quiet_when_little # skip 3 runs were recorded with ${share:-no} % system time (a loaded machine); the case needs one under 10 %" ;;
	*) not_ok cov_system_perf_quiet_when_little "$quiet" ;;
	esac
else
	ok "cov_system_perf_recorded_unsampled # skip the perf clock is not available here"
	ok "cov_system_perf_unsampled_warns # skip the perf clock is not available here"
	ok "cov_system_perf_wall_said # skip the perf clock is not available here"
	ok "cov_system_perf_quiet_when_little # skip the perf clock is not available here"
fi
