#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Threads made by C11's thrd_create(3) are sampled (a new user's finding:
# glibc makes them with its internal pthread_create, which libmon's
# pthread_create never sees, so their clocks were never armed and their
# CPU was missing from the profile).  tests/progs/c11_threads.c: two C11
# threads spin 0.2 CPU-s each in c11_spin (one returns 42, one ends with
# thrd_exit(7)) while main only joins them.  For the default clock and
# -c thread:
#   monrun_c11_same_CLOCK     output and exit status as unprofiled
#                             (the results 42 and 7 come back through
#                             thrd_join)
#   monrun_c11_sampled_CLOCK  at least 20 samples, and at least half of
#                             them in c11_spin (its threads are the only
#                             ones using CPU; the thread clock charges the
#                             system time of its clock_gettime calls to the
#                             C library: 87 % in c11_spin on a busy machine)
#   monrun_sigev_said         tests/progs/sigev_thread.c: a SIGEV_THREAD
#                             timer's callback (a thread glibc starts
#                             itself, every signal blocked) spins 0.3 CPU-s;
#                             no clock can sample it, and prof says so: the
#                             no-samples warning gives the CPU the program
#                             used (not "less CPU than one clock tick"; if
#                             main took a tick, the coverage warning a share
#                             under 10 %), the
#                             coverage warning says such a thread blocks
#                             every signal and names monrun --wall
# Mutations: libmon without thrd_create (libmon.map) leaves the threads
# unarmed: 0 samples, both sampled checks fail; the old wording fails
# monrun_sigev_said.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"

mkdir -p "$T/run"
cd "$T/run" || exit 1
build_plain c11 c11_threads.c || { not_ok monrun_c11_build; exit 0; }
timeout 60 "$T/c11" >"$T/plain.out" 2>&1
prc=$?
for c in default thread; do
	opt=
	[ $c = thread ] && opt="-c thread"
	rm -f mon.out
	timeout 60 "$MONRUN" $opt "$T/c11" >"$T/$c.out" 2>"$T/$c.err"
	rc=$?
	cat "$T/$c.err"
	if [ $rc = $prc ] && [ $rc = 0 ] && grep -qx 'results 42 7' "$T/$c.out"; then
		ok "monrun_c11_same_$c"
	else
		not_ok "monrun_c11_same_$c" "exit $rc (unprofiled $prc): $(head -n 1 "$T/$c.out")"
	fi
	"$PROF" -m mon.out --format=csv "$T/c11" >"$T/$c.csv" 2>"$T/$c.prof.err"
	# name,kind,...,ticks in the 8th field (prof's CSV header names them)
	set -- $(csv_awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "ticks") k = i; next }
		{ n += $k; if ($1 == "c11_spin") s += $k }
		END { printf "%d %d\n", n, s }' "$T/$c.csv")
	if [ "$1" -ge 20 ] && [ $(($2 * 2)) -ge "$1" ]; then
		ok "monrun_c11_sampled_$c # $2 of $1 samples in c11_spin"
	else
		not_ok "monrun_c11_sampled_$c" "$2 of $1 samples in c11_spin ($(cat "$T/$c.out" | tr '\n' ' '))"
		head -n 3 "$T/$c.prof.err"
	fi
done

build_plain sigev sigev_thread.c || { not_ok monrun_sigev_build; exit 0; }
rm -f mon.out
timeout 60 "$MONRUN" "$T/sigev" >"$T/sigev.out" 2>&1
rc=$?
"$PROF" -m mon.out "$T/sigev" >/dev/null 2>"$T/sigev.err"
cat "$T/sigev.err"
# Under ASan main's start (registering globals) may take a tick: then the
# coverage warning's share stands for the no-samples one.
if [ $rc = 0 ] && { grep -q 'no samples:.*the program used [0-9.]* s of user CPU, but not in a thread a clock sampled' "$T/sigev.err" ||
    grep -q 'the samples cover [0-9] % of the \(user \)\?CPU the program used' "$T/sigev.err"; } &&
    grep -q 'ended unseen (a thread the C library starts itself.*blocks every signal.*monrun --wall' "$T/sigev.err"; then
	ok monrun_sigev_said
else
	not_ok monrun_sigev_said "exit $rc: $(head -c 400 "$T/sigev.err")"
fi
