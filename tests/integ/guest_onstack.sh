#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A program whose handlers all ask for its alternate signal stack
# (SA_ONSTACK, on every signal, the profiling clock's among them, as Go's
# runtime does) still gets no tick there: a program's alternate stack may
# be a few KiB, and a tick's frame and handler are more (4.4 KiB with
# AVX2: a reviewer's program with a 4 KiB one got SIGSEGV when the
# dispatcher followed the program's SA_ONSTACK).  Go's runtime alone gets
# its ticks on the alternate stack (monrun_go.sh).  tests/progs/guest_onstack.c
# fills its alternate stack with a pattern, raises a signal of its own
# (its handler uses the stack: not vacuous), fills it again and spins on a
# makecontext(3) stack: none of the alternate stack may be used meanwhile,
# and spin_small must hold most of the samples (the ticks came).
# Also: the stacks of a makecontext context end at its bottom frame,
# glibc's __start_context, whole (lib/unwind.c: a return address no call
# pushed; before, the frame pointer getcontext saved led the walk into
# the creator's stack: "main;__start_context;spin_small" with frame
# pointers, "[jit];[unknown];__start_context;..." and a warning of JIT
# code for 86 % of the samples without).
# The samples are summed with csv_awk (prof_lib.inc): a function name
# with a comma in it (ASan's runtime's C++ names) is a quoted field, and a
# plain split at every comma read 176 618 "samples" from other columns
# (proof E, ASan, thread clock).
# Mutations caught: the dispatcher always SA_ONSTACK (install_dispatch):
# 4 360 bytes of the alternate stack used during the spin; the walk not
# ended at the pushed return address: "main;__start_context;spin_small".
# With the per-thread clocks (perf where the kernel allows it, thread); the
# itimer clock's SIGPROF is left to the program, whose handler would take
# it.  Time limit: each run under timeout 120.
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
	own=$(truth "$T/out.$c" own_altstack_bytes) during=$(truth "$T/out.$c" spin_altstack_bytes)
	prof_csv mon.out "$T/csv.$c" "$T/onstack"
	k=$(ticks "$T/csv.$c" spin_small)
	all=$(csv_awk -F, 'NR > 1 { s += $8 } END { printf "%d", s }' "$T/csv.$c")
	echo "# $c: alternate stack used $own bytes by the program's own signal, $during during the spin; spin_small $k of $all samples"
	if ! awk -v k="$k" -v a="$all" 'BEGIN { exit !(k >= 20 && k >= a / 2) }'; then
		not_ok "guest_onstack_altstack_untouched_$c" "ticks did not reach spin_small ($k of $all samples)"
	elif [ "${own:-0}" -gt 0 ] && [ "$during" = 0 ]; then
		ok "guest_onstack_altstack_untouched_$c"
	else
		not_ok "guest_onstack_altstack_untouched_$c" "own signal used ${own:-?} bytes, the ticks ${during:-?}"
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
