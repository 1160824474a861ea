#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The program's signals stay its own while it is profiled (lib/sigguard.c):
#   - a worker thread that blocks every signal (a thread pool's) is sampled
#     like any other: its share of the samples matches its share of the CPU
#     (5 sigma binomial bound and 10 points; with the thread clock, on the
#     number of samples the two threads' own probes measured, which each
#     thread spins until it has its part of NEFF, and at least as many as
#     put a share of 0 outside the bound: samples_to_tell), no tick pends
#     in it, and it still sees the mask it asked for;
#   - a program with a handler on every real-time signal, SIGRTMAX-6 (the
#     clock's default) included, gets exactly the 100 signals it sent
#     itself, none of the clock's, and sigaction/sigprocmask report what it
#     set (a blocked one stays pending until it unblocks it);
#   - fork children that reset every signal to SIG_DFL and close every
#     descriptor, then use CPU before exec, all exit 0 (monrun -f and a -pg
#     program), and the parent, which resets every signal itself, goes on
#     being profiled: after_reset's share matches its CPU (with the thread
#     and itimer clocks, the bound's number of samples is the one the
#     program's probe measured, and the rounds go on until it is NEFF, 80,
#     at most 40; at least NEFF_MIN, 30, where a share of 0 is 0.2 outside
#     the bound: clock_share_ok, monrun_lib.inc);
#   - a SIGSEGV handler on a 16 KiB alternate stack using 12 KiB of it
#     survives 3000 faults (a tick never lands on that stack);
#   - a program that blocks every signal and execs passes exactly that mask
#     to the new image (the clock's signal included), as unprofiled.
# Each with the per-thread clocks (perf where the kernel allows it, thread)
# and, where the clock can serve, the itimer clock.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"
NEFF=80 NEFF_MIN=30

mkdir -p "$T/run"
cd "$T/run" || exit 1
unset PROFDIR
for p in blocked:guest_blocked.c rtsig:guest_rtsig.c reset:guest_reset.c altstack:guest_altstack.c \
    maskexec:guest_maskexec.c; do
	build_plain "${p%%:*}" "${p#*:}" -pthread || not_ok "guest_build_${p%%:*}"
done
build_prog reset_pg guest_reset.c -pg || not_ok guest_build_reset_pg

# share NAME CLOCK OUT CSV FN OTHER: FN's share of FN+OTHER samples
# against its share of their CPU, as the program measured it; with the
# thread and itimer clocks, worth the probe_neff samples OUT gives.
share() {
	k1=$(ticks "$4" "$5") k2=$(ticks "$4" "$6")
	c1=$(truth "$3" "$5") c2=$(truth "$3" "$6")
	n=$(awk -v a="$k1" -v b="$k2" 'BEGIN { printf "%d", a + b + 0.5 }')
	p=$(awk -v a="$c1" -v b="$c2" 'BEGIN { print (a + b > 0) ? a / (a + b) : 0 }')
	echo "# $1: $5 $k1 of $n periods; CPU $c1 of $c1 + $c2 s; $(grep probe_ "$3" | tr '\n' ' ')"
	clock_share_ok "$1" "$2" "$k1" "$n" "$p" "$3" $NEFF_MIN 0.10
}

# thread_share NAME OUT CSV FN OTHER: as share, for FN run by a thread of
# its own and OTHER by the main thread.  A per-thread clock's samples in a
# thread are that thread's CPU times the rate the kernel achieved for it,
# which the run measured (prof -s: "thread TID ...: N samples = S s (P %)")
# and which differs between threads on a loaded machine (the kernel's
# thread CPU timers alone delivered 148 of 200 and 252 of 600 expirations,
# overruns counted, with two busy loops beside them): the expected share is
# the CPU share weighted by each thread's achieved rate.  FN's thread must
# be sampled at all: at least a tenth of the main thread's rate.  For the
# thread clock only: it samples user + system time, which the kernel
# counts exactly per thread; the perf clock's user time alone is the
# kernel's tick-sampled split of it (too coarse to weigh a share with, and
# the perf clock's samples are exact).
thread_share() {
	k1=$(ticks "$3" "$4") k2=$(ticks "$3" "$5")
	c1=$(truth "$2" "$4") c2=$(truth "$2" "$5")
	"$PROF" -s -m mon.out "$T/blocked" 2>&1 >/dev/null |
		sed -n 's/^thread \([0-9]*\) .*(\([0-9.]*\) %[^()]*)$/\1 \2/p' >"$T/rates"
	pid=$(awk '$1 == "pid" { print $2 }' "$2")
	rm_=$(awk -v p="$pid" '$1 == p { print $2 / 100; exit }' "$T/rates")
	rw=$(awk -v p="$pid" '$1 != p { print $2 / 100; exit }' "$T/rates")
	n=$(awk -v a="$k1" -v b="$k2" 'BEGIN { printf "%d", a + b + 0.5 }')
	p=$(awk -v a="$c1" -v b="$c2" -v ra="${rw:-0}" -v rb="${rm_:-0}" \
	    'BEGIN { print (a * ra + b * rb > 0) ? a * ra / (a * ra + b * rb) : 0 }')
	echo "# $1: $4 $k1 of $n samples; CPU $c1 (thread rate $rw) of $c1 + $c2 s (main thread rate $rm_)"
	if ! awk -v a="${rw:-0}" -v b="${rm_:-0}" 'BEGIN { exit !(b > 0 && a >= b / 10) }'; then
		not_ok "$1" "worker thread sampled at $rw of its CPU, main thread at $rm_"
		return
	fi
	# The periods are worth the independent samples the threads' own
	# probes measured (guest_blocked.c); at least as many as put a share
	# of 0 outside the bound around P.
	echo "# $1: $(grep probe_ "$2" | tr '\n' ' ')"
	clock_share_ok "$1" thread "$k1" "$n" "$p" "$2" "$(samples_to_tell "$p" "$p")"
}

for c in perf thread itimer; do
	# Is this clock allowed here?  (A short run tells which one ran.)
	rm -f mon.out
	"$MONRUN" -c $c "$T/altstack" 1 >/dev/null 2>&1
	got=$("$PROF" -m mon.out --format=json "$T/altstack" 2>/dev/null | head -n 1 |
	      sed -n 's/.*"clock":"\([^"-]*\).*/\1/p')
	if [ "$got" != "$c" ]; then
		ok "guest_signals_$c # skip clock $c unavailable here (got '$got')"
		continue
	fi

	if [ $c != itimer ]; then
		# ITIMER_PROF's SIGPROF is process-wide: a thread that blocks it
		# cannot be sampled by it (profil.3 says so).
		rm -f mon.out
		m=$NEFF; [ $c = perf ] && m=0
		timeout 120 "$MONRUN" -c $c "$T/blocked" 0.8 $m >"$T/blocked.$c" 2>&1
		expect_rc=$?
		[ $expect_rc -eq 0 ] && ok "guest_blocked_runs_$c" || not_ok "guest_blocked_runs_$c" "exit $expect_rc"
		prof_csv mon.out "$T/blocked.$c.csv" "$T/blocked"
		if [ $c = thread ]; then
			thread_share "guest_blocked_worker_sampled_$c" "$T/blocked.$c" "$T/blocked.$c.csv" \
			    worker_spin main_spin
		else
			share "guest_blocked_worker_sampled_$c" $c "$T/blocked.$c" "$T/blocked.$c.csv" worker_spin main_spin
		fi
		[ "$(truth "$T/blocked.$c" worker_pending)" = 0 ] && ok "guest_blocked_nothing_pending_$c" ||
			not_ok "guest_blocked_nothing_pending_$c" "$(truth "$T/blocked.$c" worker_pending) pending"
		[ "$(truth "$T/blocked.$c" worker_view_blocked)" = 1 ] && ok "guest_blocked_view_kept_$c" ||
			not_ok "guest_blocked_view_kept_$c"
	fi

	rm -f mon.out
	try "guest_rtsig_own_signals_only_$c" "$MONRUN" -c $c "$T/rtsig"
	prof_csv mon.out "$T/rtsig.$c.csv" "$T/rtsig"
	k=$(ticks "$T/rtsig.$c.csv" rt_spin)
	[ "${k%.*}" -gt 0 ] 2>/dev/null && ok "guest_rtsig_sampled_$c" || not_ok "guest_rtsig_sampled_$c" "$k ticks"

	rm -f mon.out mon.out.*
	m=$NEFF; [ $c = perf ] && m=0
	timeout 120 "$MONRUN" -f -c $c "$T/reset" 0.4 $m >"$T/reset.$c" 2>&1
	rc=$?
	[ $rc -eq 0 ] && ok "guest_reset_children_live_$c" || not_ok "guest_reset_children_live_$c" "exit $rc: $(grep child "$T/reset.$c" | head -n 1)"
	prof_csv mon.out "$T/reset.$c.csv" "$T/reset"
	share "guest_reset_parent_profiled_after_reset_$c" $c "$T/reset.$c" "$T/reset.$c.csv" after_reset before_reset

	rm -f mon.out
	try "guest_altstack_3000_faults_$c" "$MONRUN" -c $c "$T/altstack" 3000

	want=$("$T/maskexec" 2>&1) got=$("$MONRUN" -c $c "$T/maskexec" 2>&1)
	[ -n "$want" ] && [ "$want" = "$got" ] && ok "guest_mask_kept_over_exec_$c" ||
		not_ok "guest_mask_kept_over_exec_$c" "'$got', unprofiled '$want'"
done

# The same children in a cc -pg program (whole-process mode, libmon linked).
rm -f mon.out
try guest_reset_children_live_pg "$T/reset_pg"
