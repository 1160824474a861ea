#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# What a fork child costs before its own code runs (issue 25: pgbench -C,
# a backend process per connection): libmon's fork handlers reset its
# tables by dropping their pages (mon_zero_pages: madvise MADV_DONTNEED),
# not by writing them, and skip the call-count tables of a program that
# never claimed a cell (no -pg), so a child takes a few dozen page faults
# more than unprofiled, not hundreds.  tests/progs/fork_faults.c prints the
# median minor faults of 20 children's thread at their first instruction,
# and what starting one thread adds in this build (measured unprofiled),
# which the handlers may do twice (control thread, wall sampler): under
# ASan a start faults some 50 pages in the starting thread.
#   fork_faults_plain          unprofiled: the C library's own
#   fork_faults_CASE           under monrun -f (default clock, -c thread,
#                              --wall, --interval=5, -d 0): at most 100
#                              faults more than unprofiled (400 KiB of
#                              pages) and two thread starts
# Mutations: the facts' adopt and base tables memset (as before):
# interval 205 against 15 unprofiled (default 79); the arc tables read
# though no cell was claimed: 238; the wall tables' slots memset: wall 209;
# the old code (all of them): 319 more than unprofiled.
. "$(dirname "$0")/lib.sh"

$CC -O2 -o "$T/ff" "$ROOT/tests/progs/fork_faults.c" || { not_ok fork_faults_build; exit 0; }
line=$("$T/ff")
plain=$(echo "$line" | sed -n 's/^faults \([0-9]*\) thread [0-9]*$/\1/p')
tstart=$(echo "$line" | sed -n 's/^faults [0-9]* thread \([0-9]*\)$/\1/p')
if [ -n "$plain" ] && [ -n "$tstart" ]; then
	ok fork_faults_plain
	echo "# unprofiled: $plain faults a child, $tstart a thread's start"
else
	not_ok fork_faults_plain "no count"
	exit 0
fi
mkdir -p "$T/d"
for c in default:- thread:-cthread wall:--wall interval:--interval=5 flat:-d0; do
	name=${c%%:*} opt=${c#*:}
	case "$name: ${CC:-} " in
	wall:*-fsanitize=address*)
		# (a fork child of a process whose wall sampler runs hangs under
		# ASan: wall_forks.sh)
		ok "fork_faults_wall # skip under ASan: a fork child under --wall can hang on ASan's allocator lock (wall_forks.sh)"
		continue ;;
	esac
	case $opt in
	-) set -- ;;
	-cthread) set -- -c thread ;;
	-d0) set -- -d 0 ;;
	*) set -- "$opt" ;;
	esac
	got=$(PROFDIR=$T/d timeout 120 "$B/bin/monrun" -f "$@" "$T/ff" 2>"$T/err" |
		sed -n 's/^faults \([0-9]*\) thread [0-9]*$/\1/p')
	rm -f "$T"/d/*
	echo "# $name: ${got:-none} faults a child"
	if [ -n "$got" ] && [ "$got" -le $((plain + 100 + 2 * tstart)) ]; then
		ok "fork_faults_$name"
	else
		not_ok "fork_faults_$name" "${got:-no count} faults against $plain unprofiled (+ 100 + 2 x $tstart): $(head -c 200 "$T/err")"
	fi
done
