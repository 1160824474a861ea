#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A program whose main thread ends with pthread_exit ends when its last
# thread does, also with the runtime's own threads alive (a reviewer's
# finding: under monrun --wall or --control it never ended, and SIGTERM
# did not stop it: the C library calls exit(0) when its count of threads,
# which the wall sampler and the control thread are in, reaches 0).  The
# runtime's threads notice that only they and the ended main thread are
# left (util.c mon_only_runtime_left) and call exit(0) as the C library
# would.  tests/progs/main_exits.c: main calls pthread_exit while a worker
# spins 300 ms; for monrun alone, --wall=100, --control, and both:
#   monrun_main_exits_MODE   exit 0 within the time limit (20 s), the
#                            output as unprofiled ("worker done", "atexit
#                            ran"), and a profile with samples in
#                            worker_spin
# The handler uses 1 MiB of stack: exit(0) called on the runtime's own
# thread (256 KiB) crashed it (a reviewer's finding); it is called on a new
# thread of the C library's default size, no signal blocked.
# Mutations: mon_exit_for_program calling exit(0) in the calling thread:
# segmentation fault (139) under --wall and --control; mon_only_runtime_left
# answering 0: every mode but plain is
# killed at the limit (SIGTERM does not end it: exit 137 from timeout -k).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"

mkdir -p "$T/run"
cd "$T/run" || exit 1
build_plain main_exits main_exits.c -pthread || { not_ok monrun_main_exits_build; exit 0; }
timeout -k 5 20 "$T/main_exits" >"$T/plain.out" 2>&1
prc=$?
for m in plain wall control both; do
	case $m in
	plain) opt= ;;
	wall) opt=--wall=100 ;;
	control) opt=--control ;;
	both) opt="--wall=100 --control" ;;
	esac
	rm -f mon.out
	timeout -k 5 20 "$MONRUN" $opt "$T/main_exits" >"$T/$m.out" 2>"$T/$m.err"
	rc=$?
	cat "$T/$m.err"
	n=$("$PROF" -m mon.out --format=csv "$T/main_exits" 2>/dev/null |
	    csv_awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "ticks") k = i; next }
		$1 == "worker_spin" { n += $k } END { print n + 0 }')
	if [ $rc = 0 ] && [ $prc = 0 ] && cmp -s "$T/plain.out" "$T/$m.out" && [ "$n" -gt 0 ]; then
		ok "monrun_main_exits_$m # $n samples in worker_spin"
	else
		not_ok "monrun_main_exits_$m" "exit $rc (unprofiled $prc), $n samples in worker_spin; output: $(tr '\n' ' ' <"$T/$m.out")"
	fi
done
