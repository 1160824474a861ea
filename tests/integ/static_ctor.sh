#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Profiling that starts before libmon's constructors (lib/init.c): cc -pg's
# start runs from the first _init, and a static link runs the program's own
# constructors before libmon.a's.  tests/progs/static_ctor.c, whose
# constructor works and then exits, aborts or forks, built -pg -static,
# -finstrument-functions -static and -pg (libmon.so):
#   ctor_exit_KIND    exit(0) in the constructor: a mon.out that reads, with
#                     samples (static: "corrupted header: checksum
#                     mismatch", the checksum table not yet made)
#   ctor_abort_KIND   abort(): killed by SIGABRT, and a mon.out that reads
#   ctor_fork_KIND    fork in the constructor (PROFDIR): one file of each
#                     process, each with samples, and no "ended without
#                     writing its profile" from the watcher (static: the
#                     child wrote none, its fork handlers not yet registered)
#   ctor_stack_table_pg  MONPROF_CONTROL=1: the first call-stack table holds
#                     16384 stacks, as monrun(1) -d says for a run with a
#                     control thread (was 262144, the size without one: its
#                     settings read after the table was made; 16384 now
#                     either way)
# Mutation caught: monitor.c's starts without mon_runtime_init, control.o
# still linked (every static check red: a bad checksum, the fork child's
# file missing and the watcher saying it was killed; the stack table for
# every kind, 262144, before plain monrun's first table was 16384 too).  Each run has a time limit (timeout 60; the stack
# table's spins a few seconds, killed once read).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mon_helpers.inc"
build_dump || { not_ok build_dump; exit 1; }
cd "$T" || exit 1
unset PROFDIR MONPROF_CONTROL MONPROF_INTERVAL MONPROF_DORMANT
MONCTL=$B/bin/monctl

kinds=
build_prog pg static_ctor.c -pg && kinds=pg || not_ok ctor_build "-pg"
case " $CC " in
*-fsanitize=*) echo "# static kinds left out: sanitizer runtimes cannot be linked statically" ;;
*)	if [ ! -f "$($CC -print-file-name=libc.a)" ]; then
		echo "# static kinds left out: no static C library (libc6-dev's libc.a)"
	else
		build_prog_static pg_static static_ctor.c -pg -static && kinds="$kinds pg_static" ||
			not_ok ctor_build "-pg -static"
		build_prog_static fi_static static_ctor.c -finstrument-functions -static &&
			kinds="$kinds fi_static" || not_ok ctor_build "-finstrument-functions -static"
	fi ;;
esac

# readable FILE: mon_dump's check passes and it holds samples.
readable() {
	"$T/mon_dump" "$1" check >/dev/null 2>&1 && [ "$(info "$1" samples)" -gt 0 ]
}
# ends KIND HOW STATUS: the constructor ends the process by HOW (exit,
# abort) with exit status STATUS, and its mon.out reads, with samples.
ends() {
	rm -f mon.out
	STATIC_CTOR=$2 timeout 60 "$T/$1" 2>"$T/$1.$2.err"
	rc=$?
	if [ $rc -eq "$3" ] && readable mon.out; then
		ok "ctor_$2_$1 ($(info mon.out samples) samples)"
	else
		not_ok "ctor_$2_$1" "exit $rc: $("$T/mon_dump" mon.out check 2>&1 | head -n 1) $(head -c 200 "$T/$1.$2.err")"
	fi
}
for k in $kinds; do
	mkdir -p "$T/run_$k" && cd "$T/run_$k" || exit 1
	ends "$k" exit 0
	ends "$k" abort 134
	# Standard error through a pipe read to its end: the watcher holds it
	# until it has said what it had to say (or nothing) and exited.
	mkdir -p "$T/$k.d"
	STATIC_CTOR=fork PROFDIR="$T/$k.d" timeout 60 "$T/$k" 2>&1 >/dev/null | cat >"$T/$k.fork.err"
	n=0 good=0
	for f in "$T/$k.d"/*; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		readable "$f" && good=$((good + 1))
	done
	if [ $n -eq 2 ] && [ $good -eq 2 ] && ! grep -q "ended without writing" "$T/$k.fork.err"; then
		ok "ctor_fork_$k"
	else
		not_ok "ctor_fork_$k" "$n files, $good readable with samples: $(ls "$T/$k.d" | tr '\n' ' ') $(head -c 300 "$T/$k.fork.err")"
	fi
	cd "$T" || exit 1
done

# The first call-stack table's size with a control thread.
for k in $kinds; do
	# (its own pid for monctl: no timeout(1) in between; a few seconds
	# of spinning, killed once read)
	MONPROF_CONTROL=1 "$T/$k" 2000000000 >/dev/null 2>&1 &
	j=$!
	s=
	for _i in $(seq 100); do
		s=$("$MONCTL" "$j" status 2>/dev/null | awk '$1 == "stacks" { print $4 }')
		[ -n "$s" ] && break
		sleep 0.1
	done
	kill "$j" 2>/dev/null
	wait "$j" 2>/dev/null
	if [ "$s" = 16384 ]; then
		ok "ctor_stack_table_$k"
	else
		not_ok "ctor_stack_table_$k" "the first table holds '$s' stacks (16384 wanted)"
	fi
done
