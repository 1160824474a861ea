#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# monrun and fork(2).  Without -f only the parent is profiled: one file, in
# which the child's CPU (child_spin) has no sample.  With -f the child goes
# on profiling its own CPU and writes its own file — PID.progname beside
# mon.out, or FILE.PID with -o FILE — each file with its own function's time
# and not the other's.  A child that is not profiled returns from fork at
# once while other threads take ticks (fork_busy.c: 40 forks beside two
# spinning threads at 5 kHz, with and without --wall): its stop waited for
# the handlers in flight in the parent's other threads at the fork, which
# are not in the child, and took its whole timeout (5.9 to 6.2 s, in about
# one fork in ten).  The bound, 1 s, is that wait's least (100 yields, then
# 19 900 sleeps of 50 us), not a speed of this machine.  Mutation caught:
# inflight not zeroed in the child (sampler.c mon_sampler_reset): 5.9 s.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"

if build_plain fork monrun_fork.c; then ok monrun_fork_build; else not_ok monrun_fork_build; fi

# files DIR — the names in DIR, sorted, on one line
files() { (cd "$1" && ls -A | sort | tr '\n' ' '); }

# own_time NAME DATA SPIN OTHER OUT: in DATA, SPIN has most of the samples
# (it is what the process did) and OTHER none.
own_time() {
	if ! prof_csv "$2" "$T/f.csv" "$T/fork"; then
		not_ok "$1" "prof: $(cat "$T/f.csv.err")"
		return
	fi
	mine=$(ticks "$T/f.csv" "$3") other=$(ticks "$T/f.csv" "$4")
	total=$("$PROF" -m "$2" --format=json "$T/fork" 2>/dev/null | head -n 1 |
		sed -n 's/.*"total_ticks":\([0-9.]*\).*/\1/p')
	if awk -v m="$mine" -v o="$other" -v t="$total" \
	    'BEGIN { exit !(t > 0 && m >= 0.9 * t && o == 0) }'; then
		ok "$1"
	else
		not_ok "$1" "$3 $mine, $4 $other of ${total:-?} ticks"
	fi
}

# Without -f.
mkdir -p "$T/nof"
if (cd "$T/nof" && "$MONRUN" "$T/fork" 0.3 >"$T/nof.out"); then
	ok monrun_fork_nofollow_runs
else
	not_ok monrun_fork_nofollow_runs "exit $?"
fi
got=$(files "$T/nof")
if [ "$got" = "mon.out " ]; then
	ok monrun_fork_nofollow_one_file
else
	not_ok monrun_fork_nofollow_one_file "files: $got"
fi
own_time monrun_fork_nofollow_parent_time_only "$T/nof/mon.out" parent_spin child_spin

# With -f: mon.out and PID.fork.
mkdir -p "$T/f"
if (cd "$T/f" && "$MONRUN" -f "$T/fork" 0.3 >"$T/f.out"); then
	ok monrun_fork_follow_runs
else
	not_ok monrun_fork_follow_runs "exit $?"
fi
child=$(truth "$T/f.out" child)
got=$(files "$T/f")
if [ -n "$child" ] && [ "$got" = "$child.fork mon.out " ]; then
	ok monrun_fork_follow_two_files
else
	not_ok monrun_fork_follow_two_files "files: $got (child ${child:-?})"
fi
own_time monrun_fork_follow_parent_file "$T/f/mon.out" parent_spin child_spin
own_time monrun_fork_follow_child_file "$T/f/$child.fork" child_spin parent_spin

# With -f -o FILE: FILE and FILE.PID.
mkdir -p "$T/o" "$T/odir"
if (cd "$T/o" && "$MONRUN" -f -o "$T/odir/prof.data" "$T/fork" 0.3 >"$T/o.out"); then
	ok monrun_fork_follow_o_runs
else
	not_ok monrun_fork_follow_o_runs "exit $?"
fi
child=$(truth "$T/o.out" child)
got="$(files "$T/o")| $(files "$T/odir")"
if [ -n "$child" ] && [ "$got" = "| prof.data prof.data.$child " ]; then
	ok monrun_fork_follow_o_two_files
else
	not_ok monrun_fork_follow_o_two_files "files: $got (child ${child:-?})"
fi
own_time monrun_fork_follow_o_parent_file "$T/odir/prof.data" parent_spin child_spin
own_time monrun_fork_follow_o_child_file "$T/odir/prof.data.$child" child_spin parent_spin

# prof of one file of a followed run says the others are beside it (never
# silent: the parent's mon.out alone is a fraction of the run), by count and
# names, naming prof DIR; not a file older than the run; not prof DIR.
# Mutation: warn_profiles_beside not called: no warning, the first two fail.
beside() {	# NAME FILE WANT: prof FILE's warning has WANT
	"$PROF" "$2" "$T/fork" >/dev/null 2>"$T/beside.err"
	if grep -q "profile of process [0-9]* alone: $3" "$T/beside.err"; then
		ok "$1"
	else
		not_ok "$1" "wanted '$3': $(grep -i warning "$T/beside.err" | head -n 2)"
	fi
}
child=$(truth "$T/f.out" child)
cp "$T/f/$child.fork" "$T/f/99999999.fork" && touch -d '2000-01-01' "$T/f/99999999.fork"
beside prof_beside_follow "$T/f/mon.out" "1 more profile of fork written since it started is beside it ($child.fork: other processes' profiles of fork, such as its children's or siblings', or its intervals'), left out; read them all as one profile with prof $T/f (its directory)"
child=$(truth "$T/o.out" child)
beside prof_beside_follow_o "$T/odir/prof.data" "1 more profile of fork written since it started is beside it (prof.data.$child:"
"$PROF" "$T/f" "$T/fork" >/dev/null 2>"$T/beside.err"
if grep -q "alone:" "$T/beside.err"; then
	not_ok prof_beside_dir_silent "$(grep alone: "$T/beside.err")"
else
	ok prof_beside_dir_silent
fi

# Forks beside threads that take ticks, the child not profiled.
if build_plain fork_busy fork_busy.c -pthread; then
	for m in cpu wall; do
		w=
		[ $m = wall ] && w=--wall
		if (cd "$T" && timeout 120 "$MONRUN" $w -r 5000 -o "$T/busy.mon" "$T/fork_busy" 40 >"$T/busy.$m"); then
			worst=$(truth "$T/busy.$m" fork_max_s)
			if awk -v w="${worst:-9}" 'BEGIN { exit !(w < 1.0) }'; then
				ok monrun_fork_busy_child_prompt_$m
			else
				not_ok monrun_fork_busy_child_prompt_$m "the longest of 40 forks took ${worst:-?} s in the child"
			fi
		else
			not_ok monrun_fork_busy_child_prompt_$m "exit $?"
		fi
	done
else
	not_ok monrun_fork_busy_build
fi
