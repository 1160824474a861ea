#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The runtime's own start in the program's thread is not the program's
# time: monrun's settings kept and removed from the environment
# (autostart.c mon_env_keep, scrub_preload) and the watcher process
# (control.c starting -> watcher_start: clone(2) and wait4) come before
# the clocks (monitor.c arm_whole).  Sampled, they were about 0.1 ms a
# process, 2 samples a run of a 20 ms program at 20 kHz, under start_once
# -> mon_whole_start -> started -> syscall, and a cat in a pipeline had 1
# of its 2 samples in mon_env_keep -> mon_alloc.  (The control thread,
# only with intervals or monctl, starts after the clocks: below.)
#   own_start_unsampled   ten runs at 20 kHz of a 20 ms program: no sample
#                         has one of those functions (or unsetenv) in its
#                         stack (each run with at least 100 samples, and
#                         libmon's symbols starting and mon_env_keep there
#                         to name them; the others may be inlined)
# Their CPU is counted with FACTS' CPU before the start (mon_facts_armed),
# so that prof's coverage does not count it missing.
# Mutations: mon_whole_start arming the clocks before the watcher (the code
# before): 28, 43 and 50 samples in those functions over the ten runs; the
# control thread started before the clocks (as in a29f0fc): the
# own_start_failed tests below fail.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"

build_plain paths stacks_paths.c -O2 || { not_ok own_start_build; exit 0; }
LIB=$B/lib/libmon.so
for f in starting mon_env_keep; do
	nm "$LIB" 2>/dev/null | grep -q " [tT] $f\$" || { not_ok own_start_unsampled "libmon.so has no symbol $f to name"; exit 0; }
done
own=0 few=
for i in 1 2 3 4 5 6 7 8 9 10; do
	"$MONRUN" -r 20000 -o "$T/r$i.out" "$T/paths" run 0.02 >/dev/null 2>&1
	"$PROF" --format=folded "$T/r$i.out" >"$T/r$i.folded" 2>/dev/null
	n=$(awk '{ s += $NF } END { print s + 0 }' "$T/r$i.folded")
	[ "$n" -ge 100 ] || few="$few run $i: $n samples;"
	k=$(awk '{ c = $NF; $NF = ""; n = split($0, f, ";")
		for (j = 1; j <= n; j++) { sub(/ +$/, "", f[j])
			if (f[j] == "starting" || f[j] == "watcher_start" || f[j] == "mon_env_keep" ||
			    f[j] == "scrub_preload" || f[j] == "unsetenv") { s += c; break } } }
		END { print s + 0 }' "$T/r$i.folded")
	own=$((own + k))
done
if [ -z "$few" ] && [ "$own" -eq 0 ]; then
	ok own_start_unsampled
else
	not_ok own_start_unsampled "${few:-}$own samples in the runtime's own start ($(grep -h -e ';starting' -e watcher_start -e mon_env_keep "$T"/r*.folded | head -2))"
fi

# ---- a start whose clocks are all refused leaves nothing running --------
# The clocks start first, with the program's thread's ticks left out until
# the watcher has started (clock.c mon_clock_own_work); the control thread
# only once they run: with every clock refused (a seccomp filter,
# robust_deny.c, x86-64 only) and --interval=1 --control, the program is
# said not profiled, has no monprof-ctl thread (it had one, which spun at
# 100 % CPU from the first interval's end, and monctl snapshot wrote a
# file: a reviewer's finding) and no monprof-watch process (another
# reviewer's: one stayed for the program's life), monctl cannot reach it,
# and no file is written.
#   own_start_failed_said      stderr: not profiling this program
#   own_start_failed_no_thread no monprof-ctl thread, monctl refused
#   own_start_failed_no_watcher no monprof-watch process of this run
#   own_start_failed_no_file   no profile, no interval file, after monctl
#                              snapshot too
if [ "$(uname -m)" != x86_64 ]; then
	ok "own_start_failed # skip robust_deny.c's seccomp filter is for x86-64"
elif $CC -O1 -o "$T/deny" "$ROOT/tests/progs/robust_deny.c" && build_plain ispin interval_spin.c; then
	mkdir -p "$T/nf"
	timeout 120 "$T/deny" perf,timer,itimer "$MONRUN" --interval=1 --control -o "$T/nf/f.out" \
	    "$T/ispin" exit "$T/ready" 1.5 >/dev/null 2>"$T/nf.err" &
	job=$!
	for _i in $(seq 300); do [ -s "$T/ready" ] && break; sleep 0.1; done
	PID=$(cat "$T/ready" 2>/dev/null)
	sleep 1.2
	names=$(cat /proc/"$PID"/task/*/comm 2>/dev/null | tr '\n' ' ')
	# A watcher of this run: its environment (the program's copy) names
	# this run's scratch directory (as in watcher_title.sh).
	w=
	for p in $(pgrep -x monprof-watch); do
		{ tr "\0" "\n" <"/proc/$p/environ"; } 2>/dev/null | grep -q "$T" && w="$w $p"
	done
	"$MONCTL" "$PID" status >"$T/nf.ctl" 2>&1
	ctl=$?
	"$MONCTL" "$PID" snapshot >>"$T/nf.ctl" 2>&1
	wait "$job"
	drc=$?
	if [ "$drc" -eq 125 ]; then
		ok "own_start_failed # skip robust_deny could not install its seccomp filter"
		exit 0
	fi
	if grep -q '^monprof: not profiling this program: no profiling clock' "$T/nf.err"; then
		ok own_start_failed_said
	else
		not_ok own_start_failed_said "$(head -2 "$T/nf.err")"
	fi
	case "$names" in
	*monprof-ctl*) not_ok own_start_failed_no_thread "threads: $names" ;;
	*ispin*) if [ "$ctl" -ne 0 ]; then ok own_start_failed_no_thread; else
			not_ok own_start_failed_no_thread "monctl status: $(head -3 "$T/nf.ctl")"; fi ;;
	*) not_ok own_start_failed_no_thread "the program's threads not seen: '$names'" ;;
	esac
	if [ -z "$w" ]; then ok own_start_failed_no_watcher; else
		not_ok own_start_failed_no_watcher "monprof-watch process(es)$w"; fi
	if [ -z "$(ls "$T/nf")" ]; then ok own_start_failed_no_file; else
		not_ok own_start_failed_no_file "$(ls "$T/nf" | head -3)"; fi
else
	not_ok own_start_failed_build
fi
