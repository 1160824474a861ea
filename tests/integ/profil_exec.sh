#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# profil(2) and exec (the shared case exec-after-profiling.c): the new
# program runs to its end, prints child-finished and exits 0 (no profiling
# signal or timer outlives the exec); a failed exec leaves profiling on.
. "$(dirname "$0")/lib.sh"

# exec_ok NAME CMD...: CMD must print child-finished and exit 0.
exec_ok() {
	name=$1; shift
	out=$("$@" 2>&1); rc=$?
	printf '%s\n' "$out"
	if [ $rc -eq 77 ]; then
		ok "$name # skip $(printf '%s\n' "$out" | sed -n 's/^SKIP //p' | head -n 1)"
	elif [ $rc -ne 0 ]; then
		not_ok "$name" "exit status $rc$([ $rc -gt 128 ] && echo " (signal $((rc - 128)))")"
	elif ! printf '%s\n' "$out" | grep -qx child-finished; then
		not_ok "$name" "no child-finished"
	else
		ok "$name"
	fi
}

build_prog exec profil_exec.c || not_ok profil_exec_build

for f in execl execlp execle execv execvp execvpe execve fexecve system; do
	exec_ok profil_exec_${f} "$T/exec" $f
done
for c in perf thread itimer; do
	for f in execl execvp execve; do
		exec_ok profil_exec_${f}_$c env MONPROF_CLOCK=$c "$T/exec" $f
	done
	out=$(MONPROF_CLOCK=$c "$T/exec" fail 2>&1); rc=$?
	printf '%s\n' "$out"
	case $rc in
	0) ok profil_exec_failed_keeps_profiling_$c ;;
	77) ok "profil_exec_failed_keeps_profiling_$c # skip clock refused" ;;
	*) not_ok profil_exec_failed_keeps_profiling_$c "exit $rc" ;;
	esac
done

# The case itself, built with -pg: needs libmon's mcount (the monitor layer);
# with the C library's the shell is killed by SIGPROF.
if nm -D "$B/lib/libmon.so" 2>/dev/null | grep -qE ' T (mcount|_mcount)$'; then
	if build_prog exec_pg profil_exec.c -DUSE_PG -pg; then
		# (in $T: the monitor layer writes mon.out before the exec)
		exec_ok profil_exec_after_pg_profiling sh -c 'cd "$1" && exec ./exec_pg execl' sh "$T"
	else
		not_ok profil_exec_after_pg_profiling "build failed"
	fi
else
	ok "profil_exec_after_pg_profiling # skip libmon has no mcount yet"
fi
