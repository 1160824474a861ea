#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Call stacks in whole-process profiling (issue 14, the runtime's side):
# under monrun every sample has its stack in the STACKS record (the
# stacks' counts plus lost are exactly the samples the run counted);
# MONPROF_STACK_DEPTH=0 (monrun -d 0) writes no STACKS record and the flat
# histograms hold the same samples; the stacks of a program built -O2
# -fomit-frame-pointer reach main (at least 99 % of the samples) through a
# 40-deep recursion, qsort(3)'s comparator and easy()/hard() -> work();
# a fork child's file holds the child's stacks only, each image of an exec
# chain its own, and _exit and a fatal signal write them like the flat
# profile.  All bounds come from the numbers the run itself recorded.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"
. "$(dirname "$0")/mon_helpers.inc"

if build_plain paths stacks_paths.c -O2 -fomit-frame-pointer && build_dump &&
    build_plain thr monrun_threads.c -O2 -fomit-frame-pointer -lpthread; then
	ok stacks_build
else
	not_ok stacks_build
fi
MAIN=$(sym "$T/paths" main) START=$(sym "$T/paths" _start)

# stacks_of FILE: "HAVE ENTRIES SAMPLES LOST TRUNCATED DEPTH REACH MAXDEPTH THREADS TID0"
stacks_of() {
	# shellcheck disable=SC2086
	"$T/mon_dump" "$1" stacks $MAIN | awk '{ print $2, $4, $6, $8, $10, $12, $14, $16, $18, $20 }'
}

# whole NAME FILE [MINDEPTH]: FILE has a STACKS record whose samples plus
# lost are exactly the run's samples (also when written by _exit or a fatal
# signal with the clocks running: the profile ends where the write begins,
# mon_sampler_close), most of them (99 %) whole: reaching main, or the
# program's _start without main (its start-up before main, which a
# sanitizer's initialization and a loaded machine make longer: 7 of 593
# samples in one ASan run beside busy CPUs; a complete stack through main
# reaches _start too, so the larger count is the whole ones), or, as prof
# names it, the dynamic loader's entry _dl_start_user (the objects'
# constructors, which run before _start's code calls main: ASan's
# registration of globals, libmon's own start; 9 of 602 in a CI run),
# at least 90 % reaching main, and with MINDEPTH, a stack at least that
# deep (the recursion's 40 frames + main).
whole() {
	if [ ! -s "$2" ]; then
		not_ok "$1" "no profile $2"
		return
	fi
	# shellcheck disable=SC2086
	start=$("$T/mon_dump" "$2" stacks $START | awk '{ print $14 }')
	set -- "$1" "$2" "${3:-0}" $(stacks_of "$2")
	run=$(info "$2" samples)
	ldso=$("$PROF" --format=folded "$2" 2>/dev/null |
	    awk '/^_dl_start_user(;| )/ { n += $NF } END { print n + 0 }')
	why=$(awk -v have="$4" -v s="$6" -v lost="$7" -v reach="${10}" -v md="${11}" -v want="$3" \
	    -v run="$run" -v start="${start:-0}" -v ldso="$ldso" 'BEGIN {
		main = reach
		if (start > reach) reach = start
		reach += ldso
		if (have != 1) { print "no STACKS record"; exit }
		if (s + lost != run) { printf "stacks %d + lost %d != samples %d", s, lost, run; exit }
		if (s < 50) { printf "only %d samples in stacks", s; exit }
		if (reach < 0.99 * s) { printf "%d of %d samples reach main, _start or _dl_start_user (%.2f %%)", reach, s, 100 * reach / s; exit }
		if (main < 0.9 * s) { printf "only %d of %d samples reach main (%.2f %%)", main, s, 100 * main / s; exit }
		if (md < want) { printf "deepest stack %d frames, want >= %d", md, want; exit }
	}')
	if [ -z "$why" ]; then ok "$1"; else not_ok "$1" "$why ($(stacks_of "$2"))"; fi
}

# ---- 1. monrun: every sample's stack, reaching main ------------------------
"$MONRUN" -o "$T/run.out" "$T/paths" run 0.3 >"$T/run.txt" 2>"$T/run.err"
whole stacks_every_sample "$T/run.out" 42

# The flat histograms hold every counted sample, with stacks as without.
flat_ok() {
	ticks=$(info "$2" ticks) counted=$(info "$2" counted) sat=$(info "$2" saturated)
	if [ -n "$ticks" ] && [ "$ticks" -gt 0 ] && [ "$ticks" = "$counted" ]; then
		ok "$1"
	else
		not_ok "$1" "histogram ticks $ticks, counted $counted (saturated $sat)"
	fi
}
flat_ok stacks_flat_with "$T/run.out"

# ---- 2. depth 0: no STACKS record, the flat profile as before ---------------
"$MONRUN" -d 0 -o "$T/flat.out" "$T/paths" run 0.1 >/dev/null 2>&1
set -- $(stacks_of "$T/flat.out")
if [ "${1:-}" = 0 ] && [ "${2:-}" = 0 ]; then
	ok stacks_depth0_no_record
else
	not_ok stacks_depth0_no_record "stacks: $*"
fi
flat_ok stacks_depth0_flat "$T/flat.out"
MONPROF_STACK_DEPTH=0 "$MONRUN" -o "$T/flat2.out" "$T/paths" run 0.05 >/dev/null 2>&1
set -- $(stacks_of "$T/flat2.out")
if [ "${1:-}" = 0 ]; then ok stacks_depth0_env; else not_ok stacks_depth0_env "stacks: $*"; fi

# A depth asked is the depth kept: -d 8 cuts the recursion at 8 PCs.
"$MONRUN" -d 8 -o "$T/d8.out" "$T/paths" run 0.05 >/dev/null 2>&1
set -- $(stacks_of "$T/d8.out")
if [ "${6:-}" = 8 ] && [ "${8:-}" = 8 ] && [ "$((${3:-0} + ${4:-0}))" = "$(info "$T/d8.out" samples)" ]; then
	ok stacks_depth_cap
else
	not_ok stacks_depth_cap "stacks: $*"
fi

# Out of range: monrun refuses, runs nothing.
if "$MONRUN" -d 513 "$T/paths" run 0 >/dev/null 2>"$T/d.err"; then
	not_ok stacks_depth_refused "monrun -d 513 ran"
elif grep -q "the stack depth is 0 to 512" "$T/d.err"; then
	ok stacks_depth_refused
else
	not_ok stacks_depth_refused "$(cat "$T/d.err")"
fi

# ---- 3. a full table: lost counts the rest ------------------------------------
# 16 stacks cannot hold the run's distinct stacks (qsort's alone are more).
MONPROF_STACK_TABLE=16 "$MONRUN" -o "$T/small.out" "$T/paths" run 0.1 >/dev/null 2>&1
set -- $(stacks_of "$T/small.out")
run=$(info "$T/small.out" samples)
if [ "${1:-}" = 1 ] && [ "${2:-0}" -le 16 ] && [ "${4:-0}" -gt 0 ] && [ "$((${3:-0} + ${4:-0}))" = "$run" ]; then
	ok stacks_table_full_lost
else
	not_ok stacks_table_full_lost "stacks: $*, run samples $run"
fi

# ---- 3b. threads: each thread's stacks hold exactly its samples -----------
# Four threads at once (their handlers insert concurrently); the THREADS
# record counts each thread's samples on its own (runfacts.c): the stacks
# of that thread id must add up to the same number.
"$MONRUN" -o "$T/thr.out" "$T/thr" 0.8 >/dev/null 2>&1
"$T/mon_dump" "$T/thr.out" info | awk '$1 == "thread" && $9 > 0 { print $2, $9 }' | sort >"$T/thr.facts"
"$T/mon_dump" "$T/thr.out" stacktids | sort >"$T/thr.stacks"
set -- $(stacks_of "$T/thr.out")
if [ "$(wc -l <"$T/thr.facts")" -ge 4 ] && cmp -s "$T/thr.facts" "$T/thr.stacks" &&
    [ "${4:-1}" = 0 ] && [ "$((${3:-0}))" = "$(info "$T/thr.out" samples)" ]; then
	ok stacks_threads_own_samples
else
	not_ok stacks_threads_own_samples "THREADS: $(tr '\n' ' ' <"$T/thr.facts"); STACKS: $(tr '\n' ' ' <"$T/thr.stacks"); $*"
fi

# ---- 4. fork: the child's file has the child's stacks only --------------------
mkdir -p "$T/fork"
"$MONRUN" -f -o "$T/fork/f.out" "$T/paths" fork 0.2 >"$T/fork.txt" 2>&1
child=$(awk '$1 == "pid" { print $2 }' "$T/fork.txt" | tail -n 1)
whole stacks_fork_parent "$T/fork/f.out" 42
whole stacks_fork_child "$T/fork/f.out.$child" 42
set -- $(stacks_of "$T/fork/f.out.$child")
if [ "${9:-}" = 1 ] && [ "${10:-}" = "$child" ]; then
	ok stacks_fork_child_own_thread
else
	not_ok stacks_fork_child_own_thread "child $child: $*"
fi

# ---- 5. exec: each image of the chain has its own stacks ----------------------
"$MONRUN" -o "$T/ex.out" "$T/paths" exec 0.2 "$T/paths" run 0.2 >/dev/null 2>&1
whole stacks_exec_first_image "$T/ex.out.exec1" 42
whole stacks_exec_second_image "$T/ex.out" 42

# The depth asked goes with the exec: both images keep 8 PCs.
"$MONRUN" -d 8 -o "$T/ex8.out" "$T/paths" exec 0.05 "$T/paths" run 0.05 >/dev/null 2>&1
d1=$(stacks_of "$T/ex8.out.exec1" | cut -d' ' -f6) d2=$(stacks_of "$T/ex8.out" | cut -d' ' -f6)
if [ "$d1" = 8 ] && [ "$d2" = 8 ]; then
	ok stacks_exec_depth_follows
else
	not_ok stacks_exec_depth_follows "depths $d1 and $d2"
fi

# ---- 5b. the other whole-program modes: monstartup(), -finstrument-functions
# with -lmon; not monitor() (its histogram is the caller's) -----------------
if build_prog api stacks_paths.c -O2 -fomit-frame-pointer -DSTACKS_API &&
    build_prog inst stacks_paths.c -O2 -fomit-frame-pointer -finstrument-functions; then
	mkdir -p "$T/ms" "$T/mo" "$T/in"
	(cd "$T/ms" && "$T/api" monstartup 0.2 >/dev/null 2>&1)
	MAIN=$(sym "$T/api" main) START=$(sym "$T/api" _start)
	whole stacks_monstartup "$T/ms/mon.out" 42
	(cd "$T/mo" && "$T/api" monitor 0.05 >/dev/null 2>&1)
	set -- $(stacks_of "$T/mo/mon.out")
	if [ -s "$T/mo/mon.out" ] && [ "${1:-}" = 0 ]; then
		ok stacks_monitor_none
	else
		not_ok stacks_monitor_none "stacks: $*"
	fi
	(cd "$T/in" && "$T/inst" run 0.2 >/dev/null 2>&1)
	MAIN=$(sym "$T/inst" main) START=$(sym "$T/inst" _start)
	whole stacks_instrument_functions "$T/in/mon.out" 42
	MAIN=$(sym "$T/paths" main) START=$(sym "$T/paths" _start)
else
	not_ok stacks_api_build
fi

# ---- 6. _exit and a fatal signal: written like the flat profile -------------
"$MONRUN" -o "$T/qe.out" "$T/paths" _exit 0.2 >/dev/null 2>&1
whole stacks_exit_underscore "$T/qe.out" 42
"$MONRUN" -o "$T/ab.out" "$T/paths" abort 0.2 >/dev/null 2>&1
whole stacks_fatal_signal "$T/ab.out" 42
