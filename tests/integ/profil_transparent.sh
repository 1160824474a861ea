#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The program cannot tell profiling is there: blocking calls do not fail
# with EINTR under a 10 kHz clock, and a program's own SIGPROF/ITIMER_PROF
# keep working (itimer clock: libmon has them while on, documented).
. "$(dirname "$0")/lib.sh"

build_prog eintr profil_eintr.c || not_ok profil_eintr_build
build_prog sigprof profil_sigprof.c || not_ok profil_sigprof_build

for c in perf thread itimer; do
	try profil_no_eintr_$c env MONPROF_CLOCK=$c MONPROF_RATE=10000 "$T/eintr"
	try profil_program_sigprof_$c env MONPROF_CLOCK=$c "$T/sigprof"
done

# No signal can be queued (RLIMIT_SIGPENDING 0, as when other processes of
# the user hold them all): the perf clock's F_SETSIG tick then arrives as
# SIGIO, whose default action would kill the program; the program must run
# to its end, profiled.  The itimer clock's SIGPROF needs no queue.
build_prog basic profil_basic.c || not_ok profil_basic_build
if command -v prlimit >/dev/null 2>&1; then
	for c in perf itimer; do
		try profil_sigpending_exhausted_$c env MONPROF_CLOCK=$c prlimit --sigpending=0 "$T/basic"
	done
else
	ok "profil_sigpending_exhausted # skip no prlimit"
fi
