#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# SIG_DFL on a signal whose default ends the process, set while a clock
# runs and while it is stopped (moncontrol(0) and (1) in between), is what
# the program sees and what the kernel does, as unprofiled
# (tests/progs/guest_fatalmask.c; libmon's fatal handler stands in for
# that SIG_DFL, lib/fatal.c, and the tick signals are added to the masks of
# handlers on the alternate stack while a clock runs, lib/sigguard.c):
#   - view: sigaction(sig, NULL, &old) at each step reports the handler,
#     flags and sa_mask the program set (SIGKILL and SIGSTOP left out of a
#     full mask, as the kernel does; the clock's signal kept in it; the
#     flags whole, SA_RESTORER that the C library adds on x86-64 included:
#     it was missing after a SIG_DFL libmon stands in for, sa_flags 0
#     against 0x4000000; mutation, fatal.c not keeping the C library's
#     flags: view_* and all_lines_* fail);
#   - handlers: its SIGSEGV (SA_ONSTACK) and SIGBUS handlers, installed over
#     SIG_DFL while the clock ran, run after it stopped with the mask the
#     kernel gives unprofiled, no tick signal in it;
#   - exit: SIGTERM (SIG_DFL) and SIGWINCH (a handler) pending together and
#     unblocked: the process ends by SIGTERM and the SIGWINCH handler never
#     runs, as unprofiled (before: it ran on top of the fatal handler, with
#     the stopped clock's signal still blocked);
#   - the same lines, all of them, and the same exit status.
# With each clock the kernel allows (perf, thread, itimer).  Nothing here
# depends on timing: the clock state is moncontrol's, the order of
# delivery the kernel's rule.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"

mkdir -p "$T/run"
cd "$T/run" || exit 1
unset PROFDIR
build_plain fatalmask guest_fatalmask.c -ldl || not_ok guest_fatalmask_build

timeout 30 "$T/fatalmask" >"$T/plain" 2>&1
want_rc=$?
[ $want_rc -eq 143 ] && ok guest_fatalmask_unprofiled_sigterm ||
	not_ok guest_fatalmask_unprofiled_sigterm "exit $want_rc"

# same NAME PATTERN FILE: the lines matching PATTERN as unprofiled.
same() {
	grep "$2" "$T/plain" >"$T/want.sel"
	grep "$2" "$3" >"$T/got.sel"
	if [ -s "$T/want.sel" ] && cmp -s "$T/want.sel" "$T/got.sel"; then
		ok "$1"
	else
		not_ok "$1" "$(diff "$T/want.sel" "$T/got.sel" | grep '^[<>]' | tr '\n' '|')"
	fi
}

for c in perf thread itimer; do
	rm -f mon.out
	timeout 30 "$MONRUN" -c $c "$T/fatalmask" >"$T/$c" 2>&1
	rc=$?
	got=$("$PROF" -m mon.out --format=json "$T/fatalmask" 2>/dev/null | head -n 1 |
	      sed -n 's/.*"clock":"\([^"-]*\).*/\1/p')
	if [ "$got" != "$c" ]; then
		ok "guest_fatalmask_$c # skip clock $c unavailable here (got '$got')"
		continue
	fi
	same "guest_fatalmask_view_$c" '^view ' "$T/$c"
	same "guest_fatalmask_handlers_$c" '^handler \(segv\|bus\) ' "$T/$c"
	if grep -q '^handler winch' "$T/$c"; then
		not_ok "guest_fatalmask_no_handler_after_fatal_$c" "$(grep '^handler winch' "$T/$c")"
	else
		ok "guest_fatalmask_no_handler_after_fatal_$c"
	fi
	same "guest_fatalmask_all_lines_$c" '' "$T/$c"
	[ $rc -eq $want_rc ] && ok "guest_fatalmask_exit_$c" ||
		not_ok "guest_fatalmask_exit_$c" "exit $rc, unprofiled $want_rc"
done

# The snapshot signal (MONPROF_SNAPSHOT=USR1): libmon's handler for it
# stands in for SIG_DFL and the program goes on.  Its views as unprofiled
# (the clock started after a SIG_DFL whose mask holds its signal: that
# signal still reported); a handler of the program's that runs on top of
# the snapshot handler after the clock stopped has no tick signal blocked
# (what it runs with is printed first as "expect ...": the two signals).
timeout 30 "$T/fatalmask" snap >"$T/snap.plain" 2>&1 ||
	not_ok guest_fatalmask_snap_unprofiled "exit $?"
for c in perf thread itimer; do
	rm -f mon.out
	MONPROF_SNAPSHOT=USR1 timeout 30 "$MONRUN" -c $c "$T/fatalmask" snap pair >"$T/snap.$c" 2>&1
	rc=$?
	got=$("$PROF" -m mon.out --format=json "$T/fatalmask" 2>/dev/null | head -n 1 |
	      sed -n 's/.*"clock":"\([^"-]*\).*/\1/p')
	if [ "$got" != "$c" ]; then
		ok "guest_fatalmask_snap_$c # skip clock $c unavailable here (got '$got')"
		continue
	fi
	[ $rc -eq 0 ] && ok "guest_fatalmask_snap_runs_$c" || not_ok "guest_fatalmask_snap_runs_$c" "exit $rc"
	grep '^view ' "$T/snap.plain" >"$T/want.sel"
	grep '^view ' "$T/snap.$c" >"$T/got.sel"
	if [ -s "$T/want.sel" ] && cmp -s "$T/want.sel" "$T/got.sel"; then
		ok "guest_fatalmask_snap_view_$c"
	else
		not_ok "guest_fatalmask_snap_view_$c" "$(diff "$T/want.sel" "$T/got.sel" | grep '^[<>]' | tr '\n' '|')"
	fi
	want=$(sed -n 's/^expect winch blocked //p' "$T/snap.$c")
	got=$(sed -n 's/^handler winch 28 blocked //p' "$T/snap.$c")
	[ -n "$want" ] && [ "$want" = "$got" ] && ok "guest_fatalmask_snap_handler_mask_$c" ||
		not_ok "guest_fatalmask_snap_handler_mask_$c" "blocked '$got', want '$want'"
done
