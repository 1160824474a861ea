#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The profiling clock never takes the pending-signal quota the program
# needs (RLIMIT_SIGPENDING, ulimit -i; lib/threads.c; issue 21, item 4):
# with a quota of 8, a program with 4 threads that makes 4 timers of its
# own makes all 4, as unprofiled, under the thread clock (its timers take
# at most a quarter of the quota: past that the runtime samples with the
# itimer clock, says so on stderr and in the profile, and prof warns) and
# under the default clock; its main thread is sampled after the switch.
# Run in a user namespace of its own (unshare -U), so that the quota
# counts only this test's processes, not the user's others (other tests,
# other sessions); skipped where user namespaces or prlimit are missing.
# Mutation caught: no budget (timer_budget() UINT_MAX) → the program's 4th
# timer_create fails (EAGAIN), no warning.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"

mkdir -p "$T/run"
cd "$T/run" || exit 1
unset PROFDIR
build_plain sigq guest_sigq.c -pthread || not_ok guest_sigq_build

# in_quota CMD...: CMD in a user namespace of its own with RLIMIT_SIGPENDING 8.
in_quota() { timeout 120 unshare -U -r prlimit --sigpending=8 "$@"; }

if ! command -v prlimit >/dev/null 2>&1 || ! in_quota "$T/sigq" 4 4 >"$T/plain" 2>&1; then
	ok "guest_sigq # skip no user namespace or prlimit here, or 4 timers fail unprofiled: $(head -n 2 "$T/plain" 2>/dev/null | tr '\n' ' ')"
	exit 0
fi
for c in thread default; do
	opt=; [ $c = default ] || opt="-c $c"
	rm -f mon.out
	in_quota "$MONRUN" $opt "$T/sigq" 4 4 >"$T/out.$c" 2>"$T/err.$c"
	rc=$?
	[ $rc -eq 0 ] && ok "guest_sigq_program_timers_made_$c" ||
		not_ok "guest_sigq_program_timers_made_$c" "exit $rc: $(grep timer_create "$T/err.$c" | head -n 1)"
	prof_csv mon.out "$T/$c.csv" "$T/sigq"
	k=$(ticks "$T/$c.csv" main_spin)
	[ "${k%.*}" -gt 0 ] 2>/dev/null && ok "guest_sigq_sampled_$c" || not_ok "guest_sigq_sampled_$c" "main_spin $k samples"
	clock=$("$PROF" -m mon.out --format=json "$T/sigq" 2>/dev/null | head -n 1 |
		sed -n 's/.*"clock":"\([^"-]*\).*/\1/p')
	echo "# $c: clock $clock"
	if [ "$clock" = itimer ]; then
		# Switched: said by the runtime and by prof.
		grep -q 'pending-signal quota' "$T/err.$c" && ok "guest_sigq_runtime_says_$c" ||
			not_ok "guest_sigq_runtime_says_$c" "stderr: $(head -c 300 "$T/err.$c")"
		"$PROF" -m mon.out "$T/sigq" 2>&1 >/dev/null | grep -q "pending-signal quota" &&
			ok "guest_sigq_prof_warns_$c" || not_ok "guest_sigq_prof_warns_$c"
	elif [ $c = thread ]; then
		not_ok "guest_sigq_switched_$c" "clock $clock: 5 timers of a quota of 8 kept"
	fi
done
