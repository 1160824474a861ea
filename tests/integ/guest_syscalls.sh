#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# What a fork child that is not followed (monrun without -f: it samples
# nothing) and a new thread pay in system calls for libmon (issue 25: a
# fork-per-connection server pays it in every child).  Counts, never
# times: bench/syscall_count.sh traces bench/fork_exit.c (children that
# _exit(0) at once) and bench/thread_exit.c (threads that return at once)
# with strace -f, unprofiled and under monrun with each clock the kernel
# allows, and gives the calls added per child and per thread, by name.
# Each total must stay within its bound (the counts of docs/performance.md,
# "System calls per fork child and per thread", plus half a call for a
# tick that lands in a thread all the same), and some names must be absent:
#   - a fork child arms no clock (no perf_event_open, timer_create,
#     setitimer): caught with after_fork_child arming whatever
#     fork_unsampled says (perf_event_open, timer_create, setitimer
#     counted; before issue 25 the child paid perf 68, thread 52, itimer 51);
#   - it gives its signals back without SIG_IGN first: caught with
#     mon_sig_disown ignoring whatever mon_sig_none_pending says
#     (rt_sigaction 24 > 22 perf, 22 > 21 thread, itimer);
#   - the perf clock gives SIGIO and its tick signal back under one lock
#     of sigguard's: caught with mon_clock_uninstall disowning them one
#     at a time (rt_sigprocmask 4 > 2, perf 31 > 29);
#   - libmon's own fatal handlers block every signal, so the tick signal
#     is never added to their masks and none is written at the stop:
#     caught with their mask the tick signals only (lib/fatal.c's
#     our_action; rt_sigaction 22 > 2 perf, 21 > 1 thread, itimer; before
#     that, patch_all asking the kernel for each gave 42 and 41);
#   - a thread asks its tid once: caught with thread_exit asking again
#     instead of own_tid (gettid 2 > 1; perf 27 > 26, thread 17 > 16,
#     itimer 13 > 12, before a thread's end read its CPU clock: one call
#     more a thread since, lib/runfacts.c own_cpu_usec, the bounds 27, 17,
#     13).
# Skipped without strace (scripts/deps.sh check installs it) and under
# sanitizers, whose interceptors make system calls of their own.
. "$(dirname "$0")/lib.sh"

case $CC in
*-fsanitize=*)
	ok "guest_syscalls # skip under a sanitizer ($CC): its interceptors make calls of their own"
	exit 0 ;;
esac
if ! command -v strace >/dev/null 2>&1; then
	ok "guest_syscalls # skip strace is not installed"
	exit 0
fi
if ! strace -f -qq -o /dev/null true 2>/dev/null; then
	ok "guest_syscalls # skip strace cannot trace here (ptrace refused)"
	exit 0
fi

N=20
out=$T/counts
# At 10 Hz no tick (whose handling makes calls of its own) lands in
# the runs' few milliseconds of CPU.
if ! CC=cc sh "$ROOT/bench/syscall_count.sh" "$B" "$N" 10 >"$out" 2>"$T/err"; then
	not_ok guest_syscalls_bench "$(tail -n 3 "$T/err")"
	exit 0
fi
sed 's/^/# /' "$out"

# bound CLOCK WHERE MAX [NAME<=COUNT ...]: the added total within MAX + 0.5,
# each NAME within its COUNT (absent: 0).
bound() {
	clock=$1 where=$2 max=$3; shift 3
	line=$(awk -v c="$clock" -v w="$where" '$1 == c && $2 == w' "$out")
	name=guest_syscalls_${clock}_$(echo "$where" | tr - _)
	if [ -z "$line" ]; then
		ok "$name # skip the $clock clock is refused here"
		return
	fi
	why=$(echo "$line" | awk -v max="$max" -v limits="$*" '
		{
			if ($3 > max + 0.5) printf "%s added calls > %s; ", $3, max
			for (i = 4; i <= NF; i++) { split($i, kv, "="); got[kv[1]] = kv[2] }
			n = split(limits, l, " ")
			for (j = 1; j <= n; j++) {
				split(l[j], kv, "<=")
				if (got[kv[1]] + 0 > kv[2] + 0.5)
					printf "%s %s > %s; ", kv[1], got[kv[1]], kv[2]
			}
		}')
	if [ -z "$why" ]; then ok "$name"; else not_ok "$name" "$why"; fi
}

unarmed="perf_event_open<=0 timer_create<=0 timer_settime<=0 setitimer<=0 gettid<=0"
bound perf fork-child 9 "$unarmed" "rt_sigaction<=2" "rt_sigprocmask<=2"
bound thread fork-child 6 "$unarmed" "rt_sigaction<=1"
bound itimer fork-child 6 "$unarmed" "rt_sigaction<=1"
bound perf thread 27 "gettid<=1"
bound thread thread 17 "gettid<=1"
bound itimer thread 13 "gettid<=1"
