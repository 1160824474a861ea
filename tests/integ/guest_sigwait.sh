#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A program that blocks every signal and takes them all synchronously
# (signalfd, sigwaitinfo, sigtimedwait, sigwait) never reads a tick of
# ours, nor sees one in sigpending (lib/sigguard.c; issue 21, item 5): it
# reads exactly the 30 real-time signals and the end marker it sent
# itself, and its main thread, which spins with everything blocked, is
# sampled (main_spin's share of the samples matches its share of the CPU:
# 5 sigma binomial bound and 10 points with the perf clock; with the thread
# and itimer clocks, on the number of independent samples the program's
# per-thread probes measured (probe_thread_*, cputimer_probe.h: each thread
# reads its own probe's signals), which each thread spins until it has
# half of NEFF, 80, at most 6 CPU-s more; at least as many as put a share
# of 0 outside the bound around the measured truth: samples_to_tell and
# clock_share_ok, monrun_lib.inc).  With every clock the kernel
# allows; the itimer clock's SIGPROF is the case that failed ("foreign
# signal 27": blocked for real, it stayed pending for the program).
# Mutations caught: SIGPROF's blocking left real (mon_sig_own's
# `if (sig != SIGPROF)` back): the itimer cases read SIGPROF, main_spin
# unsampled.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"

mkdir -p "$T/run"
cd "$T/run" || exit 1
unset PROFDIR
build_plain sigwait guest_sigwait.c -pthread || not_ok guest_sigwait_build

NEFF=80

for c in perf thread itimer; do
	rm -f mon.out
	timeout 60 "$MONRUN" -c $c "$T/sigwait" sigwaitinfo >/dev/null 2>&1
	got=$("$PROF" -m mon.out --format=json "$T/sigwait" 2>/dev/null | head -n 1 |
	      sed -n 's/.*"clock":"\([^"-]*\).*/\1/p')
	if [ "$got" != "$c" ]; then
		ok "guest_sigwait_$c # skip clock $c unavailable here (got '$got')"
		continue
	fi
	m=$NEFF; [ $c = perf ] && m=0
	for how in signalfd sigwaitinfo sigtimedwait sigwait; do
		rm -f mon.out
		timeout 120 "$MONRUN" -c $c "$T/sigwait" $how $m >"$T/$how.$c" 2>&1
		rc=$?
		[ $rc -eq 0 ] && ok "guest_sigwait_${how}_no_tick_read_$c" ||
			not_ok "guest_sigwait_${how}_no_tick_read_$c" "exit $rc: $(grep -v _spin "$T/$how.$c" | sort | uniq -c | head -n 3 | tr '\n' '|')"
		prof_csv mon.out "$T/$how.$c.csv" "$T/sigwait"
		k1=$(ticks "$T/$how.$c.csv" main_spin) k2=$(ticks "$T/$how.$c.csv" worker_spin)
		c1=$(truth "$T/$how.$c" main_spin) c2=$(truth "$T/$how.$c" worker_spin)
		n=$(awk -v a="$k1" -v b="$k2" 'BEGIN { printf "%d", a + b + 0.5 }')
		p=$(awk -v a="$c1" -v b="$c2" 'BEGIN { print (a + b > 0) ? a / (a + b) : 0 }')
		echo "# $how $c: main_spin $k1 of $n periods; CPU $c1 of $c1 + $c2 s; $(grep probe_ "$T/$how.$c" | tr '\n' ' ')"
		clock_share_ok "guest_sigwait_${how}_main_sampled_$c" $c "$k1" "$n" "$p" "$T/$how.$c" \
		    "$(samples_to_tell "$p" "$p")" 0.10
	done
done
