#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/syscall_count.sh — the system calls the runtime adds to a fork
# child that is not followed (monrun without -f: it samples nothing) and to
# a thread (issue 25: a fork-per-connection server pays them in every
# child).  bench/fork_exit.c forks children that _exit(0) at once,
# bench/thread_exit.c starts threads that return at once; each runs with
# 1 and with N+1 of them, unprofiled and under monrun with each clock
# (perf, thread, itimer), traced by strace -f.  The difference between
# N+1 and 1 is N children's or threads' calls in the steady state
# (monrun's start, the profile's write and a first fork's one-time work
# cancel out); added = profiled - unprofiled, per child or thread, by
# name.  Counts, not times: the same on a loaded machine.
#   sh bench/syscall_count.sh [BUILD_DIR] [N] [RATE]
# RATE: monrun -r (default monrun's own, 1000 Hz); a low one (the test's
# 10) keeps ticks, whose handling makes calls too, out of the counts.
# Prints one line per clock and side:
#   CLOCK WHERE ADDED NAME=COUNT ...
# WHERE: fork-child (the child's own calls), fork-parent (what the forking
# process pays per fork), thread (the new thread's own calls),
# thread-parent (what the creating thread pays per thread).  The counts
# are the same however many children: a fraction means a call that is
# not made every time.
set -u
. "$(dirname "$0")/lib.sh"
N=${2:-50}
RATE=${3:-}
command -v strace >/dev/null 2>&1 || need_tools strace
$CC -O1 -o "$W/fork_exit" "$BENCH/fork_exit.c" || die "cannot build fork_exit"
$CC -O1 -o "$W/thread_exit" "$BENCH/thread_exit.c" -lpthread || die "cannot build thread_exit"
cd "$W" || exit 1

# trace OUT CLOCK PROG COUNT: "SIDE NAME CALLS" lines into OUT, SIDE main
# for the first process (monrun, then the program it execs) and other for
# every other process and thread.  CLOCK none: unprofiled.
trace() {
	if [ "$2" = none ]; then
		strace -f -qq -o "$1.strace" "./$3" "$4" || die "$3 $4 failed"
	else
		strace -f -qq -o "$1.strace" "$MONRUN" ${RATE:+-r "$RATE"} -c "$2" -o "$1.mon" "./$3" "$4" ||
			die "monrun -c $2 $3 $4 failed"
	fi
	awk 'NR == 1 { main = $1 }
	     $2 ~ /^[a-z_0-9]+\(/ {
		name = $2; sub(/\(.*/, "", name)
		c[($1 == main ? "main" : "other") " " name]++
	     }
	     END { for (k in c) print k, c[k] }' "$1.strace" >"$1"
}

# added CLOCK WHERE PROG SIDE: one output line from the four traces of PROG.
added() {
	awk -v n="$N" -v clock="$1" -v where="$2" -v side="$4" '
		FNR == 1 { f++ }
		$1 == side { v[f, $2] = $3; names[$2] = 1 }
		END {
			total = 0; out = ""
			for (k in names) {
				d = ((v[1, k] - v[2, k]) - (v[3, k] - v[4, k])) / n
				if (d != 0) { a[k] = d; total += d }
			}
			# by name, the most first
			while (1) {
				best = ""
				for (k in a) if (best == "" || a[k] > a[best] ||
				    (a[k] == a[best] && k < best)) best = k
				if (best == "") break
				out = out sprintf(" %s=%g", best, a[best]); delete a[best]
			}
			printf "%-7s %-14s %g%s\n", clock, where, total, out
		}' "$1.$3.big" "$1.$3.one" "none.$3.big" "none.$3.one"
}

# The clocks this kernel allows (perf_event_paranoid, seccomp): monrun
# -c CLOCK refuses the others.
clocks=
for clock in perf thread itimer; do
	if "$MONRUN" -c "$clock" -o probe.mon ./fork_exit 0 >/dev/null 2>&1; then
		clocks="$clocks $clock"
	else
		echo "# $clock: refused here" >&2
	fi
done
for prog in fork_exit thread_exit; do
	for clock in none $clocks; do
		trace "$clock.$prog.one" "$clock" "$prog" 1
		trace "$clock.$prog.big" "$clock" "$prog" $((N + 1))
	done
done
echo "# system calls libmon adds (monrun - unprofiled) per fork child / thread, N=$N"
echo "# CLOCK  WHERE          ADDED NAME=COUNT ..."
for clock in $clocks; do
	added "$clock" fork-child fork_exit other
	added "$clock" fork-parent fork_exit main
	added "$clock" thread thread_exit other
	added "$clock" thread-parent thread_exit main
done
