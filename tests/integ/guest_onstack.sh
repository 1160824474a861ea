#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A program whose handlers all ask for the alternate signal stack
# (SA_ONSTACK) gets the profiling clock's ticks there too, never on the
# stack its code runs on (lib/sigguard.c, wants_onstack): Go's runtime is
# built so (its goroutine stacks start at 2 KiB, with no guard, and every
# handler it installs is SA_ONSTACK; before, a cgo program with three
# goroutines crashed under monrun 4 runs in 4: the tick's signal frame,
# 4.6 KiB with AVX-512, overwrote the next goroutine's stack).
# tests/progs/guest_onstack.c spins on a small makecontext(3) stack once
# with every signal blocked, then with the ticks let in, and says how deep
# each run went: a tick delivered there leaves at least the kernel's
# signal frame (hundreds of bytes with the smallest FPU state, more with
# AVX or SVE), so the second run must go no deeper than the first and 256
# bytes.  Not vacuous: spin_small holds most of the samples, so ticks came
# while it ran.  Also: the stacks of a makecontext context end at its
# bottom frame, glibc's __start_context, whole (lib/unwind.c: a return
# address no call pushed; before, the frame pointer getcontext saved led
# the walk into the creator's stack: "[jit];[unknown];__start_context;...",
# and a warning of JIT code for 86 % of the samples).
# Mutations caught: SA_ONSTACK not set for the dispatcher (install_dispatch):
# ticked_bytes 4696 against 1640 here; the walk not ended at the pushed
# return address: the stacks start "[jit];[unknown]".
# With the per-thread clocks (perf where the kernel allows it, thread); the
# itimer clock's SIGPROF is left to the program, whose handler would take
# it (tests of its own elsewhere).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"

mkdir -p "$T/run"
cd "$T/run" || exit 1
unset PROFDIR
# With frame pointers: the one getcontext saves is a real frame of the
# creator's, which a walk past the context's bottom would follow.
build_plain onstack guest_onstack.c -fno-omit-frame-pointer || not_ok guest_onstack_build

for c in perf thread; do
	rm -f mon.out
	timeout 120 "$MONRUN" -c $c "$T/onstack" 0.3 >"$T/out.$c" 2>"$T/err.$c"
	rc=$?
	got=$("$PROF" -m mon.out --format=json "$T/onstack" 2>/dev/null | head -n 1 |
	      sed -n 's/.*"clock":"\([^"-]*\).*/\1/p')
	if [ $rc -eq 0 ] && [ "$got" != "$c" ]; then
		ok "guest_onstack_$c # skip clock $c unavailable here (got '$got')"
		continue
	fi
	[ $rc -eq 0 ] && ok "guest_onstack_runs_$c" ||
		not_ok "guest_onstack_runs_$c" "exit $rc: $(head -c 400 "$T/err.$c")"
	spin=$(truth "$T/out.$c" spin_bytes) ticked=$(truth "$T/out.$c" ticked_bytes)
	prof_csv mon.out "$T/csv.$c" "$T/onstack"
	k=$(ticks "$T/csv.$c" spin_small)
	all=$(awk -F, 'NR > 1 { s += $8 } END { printf "%d", s }' "$T/csv.$c")
	echo "# $c: small stack used $spin bytes blocked, $ticked with ticks; spin_small $k of $all samples"
	if ! awk -v k="$k" -v a="$all" 'BEGIN { exit !(k >= 20 && k >= a / 2) }'; then
		not_ok "guest_onstack_small_stack_untouched_$c" "ticks did not reach spin_small ($k of $all samples)"
	elif [ -n "$spin" ] && [ -n "$ticked" ] && [ "$ticked" -le $((spin + 256)) ]; then
		ok "guest_onstack_small_stack_untouched_$c"
	else
		not_ok "guest_onstack_small_stack_untouched_$c" "the ticks went $((ticked - spin)) bytes deeper than the spin alone"
	fi
	"$PROF" -m mon.out --format=folded "$T/onstack" >"$T/fold.$c" 2>"$T/warn.$c"
	if grep -q '^__start_context;spin_small' "$T/fold.$c" &&
	    ! grep 'spin_small' "$T/fold.$c" | grep -qv '^__start_context;' &&
	    ! grep -q 'ends early\|JIT' "$T/warn.$c"; then
		ok "guest_onstack_context_stacks_whole_$c"
	else
		not_ok "guest_onstack_context_stacks_whole_$c" "$(grep spin_small "$T/fold.$c" | sort -t' ' -k2 -n | tail -n 3 | tr '\n' '|') $(head -c 300 "$T/warn.$c")"
	fi
done
