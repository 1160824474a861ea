#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# profil(2) and threads, fork: one call covers every thread, concurrent
# increments are not lost, each thread's CPU is charged to its own PC (shares
# within 2 percentage points), fork keeps profiling on in both processes.
. "$(dirname "$0")/lib.sh"

build_prog threads profil_threads.c || not_ok profil_threads_build
build_prog fork profil_fork.c || not_ok profil_fork_build

for c in perf thread itimer; do
	try profil_threads_before_and_after_$c env MONPROF_CLOCK=$c "$T/threads" cover
	try profil_threads_no_lost_increment_$c env MONPROF_CLOCK=$c MONPROF_RATE=10000 \
	    "$T/threads" atomic
	try profil_fork_both_sides_$c env MONPROF_CLOCK=$c "$T/fork"
done
# The 2-point bound needs >= 15625 independent ticks (see profil_threads.c):
# the perf clock ticks at 10 kHz; the tick-driven clocks do not.
try profil_thread_cpu_shares_4_threads env MONPROF_CLOCK=perf MONPROF_RATE=10000 "$T/threads" shares
try profil_cpu_shares_2_functions env MONPROF_CLOCK=perf MONPROF_RATE=10000 "$T/threads" two
