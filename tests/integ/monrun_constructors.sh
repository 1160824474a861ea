#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# CPU spent before main, under monrun:
#   - a library's constructor (tests/progs/monrun_ctor_lib.c: what a C++
#     library's static initializers do) runs before a preloaded libmon's
#     constructors (ld.so initializes a preloaded library after every library
#     the program needs); libmon starts at the first library's _init
#     instead (__gmon_start__, lib/autostart.c).  ctor_spin holds its share
#     of the samples (perf clock: 5-sigma binomial bound on the CPU the
#     program measured; thread and itimer clocks, whose ticks a loaded
#     machine makes few and heavy: at least one sample, where before it had
#     none), and its stacks are whole: they end at ld.so's _dl_start_user,
#     which has no CFI and whose frame pointer is 0 (lib/unwind.c: the
#     psABI's outermost frame), and pass through crti.o's _init (no CFI
#     either: mon_arch_nocfi_cfa_off) when a sample falls in libmon's start;
#   - a plugin's constructor, run by dlopen before it returns: the plugin
#     is given its histogram and unwind tables from its _init
#     (__gmon_start__ again: mon_objhist_loading), so plugin_spin is named
#     in the plugin with its share of the samples, and its stacks reach
#     _start through dlopen (they were "[jit]" code in no object);
#   - a constructor that calls exit: the profile is readable (written
#     before ld.so runs libmon's own constructors: start_once runs them,
#     the format's CRC tables too);
#   - an image exec'd after the first used CPU: no "start-up" warning
#     (the CPU before the exec is the first image's, in its own file);
#   - the program's own .preinit_array runs before any library is
#     initialized: its CPU is in no sample, and prof says so by default
#     ("start-up"), with the seconds (user time only under the perf clock,
#     which counts user time only: the FACTS record's cpu_before_usec), and
#     the user CPU since profiling started, the share's denominator, is
#     within a quarter of what main_spin measured (with the system time of
#     .preinit_array counted as user time before profiling, the share was
#     over 200 %).
# Mutations caught: monout_crc32_init not in start_once: "checksum
# mismatch"; the CPU at exec not passed on: the warning after exec;
# no __gmon_start__: ctor_spin 0 samples; no
# mon_objhist_loading: plugin_spin 0 samples, its time in no object; the fp == 0
# rule gone: every ctor_spin stack "[truncated]"; the user/system split of
# the CPU before gone: the perf run's share 205 %, 0.29 s since the start
# for main_spin's 0.60; startup_warn gone: no
# warning.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"

mkdir -p "$T/run"
cd "$T/run" || exit 1
unset PROFDIR
if build_so libmonrun_ctor.so monrun_ctor_lib.c &&
   build_so libmonrun_plugin.so monrun_ctor_lib.c -DCTOR_ENV='"PLUGIN_SECONDS"' \
	-Dctor_spin=plugin_spin -Dctor_used=plugin_used &&
   build_plain ctor monrun_ctor.c -L"$T" -Wl,-rpath,"$T" -lmonrun_ctor -ldl; then
	ok monrun_ctor_build
else
	not_ok monrun_ctor_build
	exit 0
fi

for c in perf thread itimer; do
	rm -f mon.out
	if ! CTOR_SECONDS=0.4 "$MONRUN" -c $c -r 1000 "$T/ctor" 0.4 >"$T/$c.out" 2>"$T/$c.err"; then
		not_ok monrun_ctor_runs_$c "exit $?: $(head -c 300 "$T/$c.err")"
		continue
	fi
	got=$(clock_in mon.out "$T/ctor")
	if [ "$got" != "$c" ]; then
		ok "monrun_ctor_share_$c # skip the $c clock is not available here (ran: ${got:-none})"
		continue
	fi
	prof_csv mon.out "$T/$c.csv" "$T/ctor" || { not_ok monrun_ctor_prof_$c "$(cat "$T/$c.csv.err")"; continue; }
	k_ctor=$(ticks "$T/$c.csv" ctor_spin)
	k_main=$(ticks "$T/$c.csv" main_spin)
	t_ctor=$(truth "$T/$c.out" ctor_spin)
	t_main=$(truth "$T/$c.out" main_spin)
	if [ $c = perf ]; then
		n=$(awk -v a="$k_ctor" -v b="$k_main" 'BEGIN { printf "%d", a + b + 0.5 }')
		p=$(awk -v a="$t_ctor" -v b="$t_main" 'BEGIN { print (a + b > 0) ? a / (a + b) : 0 }')
		share_ok monrun_ctor_share_$c "$k_ctor" "$n" "$p"
	elif awk -v k="${k_ctor:-0}" 'BEGIN { exit !(k >= 1) }'; then
		ok monrun_ctor_share_$c
	else
		not_ok monrun_ctor_share_$c "ctor_spin: 0 samples for ${t_ctor} s of CPU (main_spin ${k_main} for ${t_main} s)"
	fi
	"$PROF" -m mon.out --format=folded "$T/ctor" >"$T/$c.folded" 2>/dev/null
	cut=$(awk '/ctor_spin/ && /^\[truncated\]/ { n += $NF } END { print n + 0 }' "$T/$c.folded")
	all=$(awk '/ctor_spin/ { n += $NF } END { print n + 0 }' "$T/$c.folded")
	if [ "$all" -ge 1 ] && [ "$cut" -eq 0 ]; then
		ok monrun_ctor_stacks_whole_$c
	else
		not_ok monrun_ctor_stacks_whole_$c "$cut of $all ctor_spin samples' stacks end early: $(grep ctor_spin "$T/$c.folded" | head -n 2)"
	fi
	# libmon's own start, through crti's _init (none if no sample fell
	# there: test_unwind_regs code_without_cfi checks the rule itself).
	# Not every stack of the run: one in ld.so's lazy binding
	# (_dl_runtime_resolve_xsavec, whose CFA is in %rbx) ends early.
	cut=$(awk '/__gmon_start__/ && /^\[truncated\]/ { n += $NF } END { print n + 0 }' "$T/$c.folded")
	if [ "$cut" -eq 0 ]; then
		ok monrun_ctor_start_stacks_whole_$c
	else
		not_ok monrun_ctor_start_stacks_whole_$c "$(grep '^\[truncated\].*__gmon_start__' "$T/$c.folded" | head -n 3)"
	fi
done

# A plugin's constructor, run inside dlopen.
rm -f mon.out
if PLUGIN_SECONDS=0.4 "$MONRUN" -r 1000 "$T/ctor" 0.4 "$T/libmonrun_plugin.so" >"$T/plug.out" 2>"$T/plug.err"; then
	ok monrun_plugin_runs
else
	not_ok monrun_plugin_runs "exit $?: $(head -c 300 "$T/plug.err")"
fi
c=$(clock_in mon.out "$T/ctor")
prof_csv mon.out "$T/plug.csv" "$T/ctor" || not_ok monrun_plugin_prof "$(cat "$T/plug.csv.err")"
k_plug=$(ticks "$T/plug.csv" plugin_spin)
k_main=$(ticks "$T/plug.csv" main_spin)
t_plug=$(truth "$T/plug.out" plugin_spin)
t_main=$(truth "$T/plug.out" main_spin)
case $(object_of "$T/plug.csv" plugin_spin) in
*/libmonrun_plugin.so) ok monrun_plugin_object_named ;;
*) not_ok monrun_plugin_object_named "plugin_spin: '$(object_of "$T/plug.csv" plugin_spin)' ($k_plug samples); $(grep -i 'jit\|anon' "$T/plug.csv" | head -n 2)" ;;
esac
if [ "$c" = perf ]; then
	n=$(awk -v a="$k_plug" -v b="$k_main" 'BEGIN { printf "%d", a + b + 0.5 }')
	p=$(awk -v a="$t_plug" -v b="$t_main" 'BEGIN { print (a + b > 0) ? a / (a + b) : 0 }')
	share_ok monrun_plugin_share "$k_plug" "$n" "$p"
elif awk -v k="${k_plug:-0}" 'BEGIN { exit !(k >= 1) }'; then
	ok monrun_plugin_share
else
	not_ok monrun_plugin_share "plugin_spin: 0 samples for $t_plug s of CPU ($c clock)"
fi
"$PROF" -m mon.out --format=folded "$T/ctor" >"$T/plug.folded" 2>/dev/null
all=$(awk '/plugin_spin/ { n += $NF } END { print n + 0 }' "$T/plug.folded")
whole=$(awk '/plugin_spin/ && /^_start;.*;main;.*dlopen/ { n += $NF } END { print n + 0 }' "$T/plug.folded")
if [ "$all" -ge 1 ] && [ "$whole" -eq "$all" ]; then
	ok monrun_plugin_stacks_reach_main
else
	not_ok monrun_plugin_stacks_reach_main "$whole of $all plugin_spin stacks go from _start through main and dlopen: $(grep plugin_spin "$T/plug.folded" | grep -v '^_start' | head -n 2)"
fi

# A library constructor that exits: the profile is written before ld.so
# ran libmon's own constructors (the format's CRC tables among them:
# without them every checksum was wrong and prof refused the file).
rm -f mon.out
CTOR_SECONDS=0.2 CTOR_EXIT=3 "$MONRUN" -r 1000 "$T/ctor" >/dev/null 2>"$T/exit.err"
rc=$?
if [ $rc = 3 ]; then
	ok monrun_ctor_exit_status
else
	not_ok monrun_ctor_exit_status "exit $rc, wanted 3: $(head -c 300 "$T/exit.err")"
fi
if "$PROF" -m mon.out --format=csv "$T/ctor" >exit.csv 2>exit.err &&
   awk -v k="$(ticks exit.csv ctor_spin)" 'BEGIN { exit !(k >= 1) }'; then
	ok monrun_ctor_exit_profile_read
else
	not_ok monrun_ctor_exit_profile_read "$(head -c 300 exit.err) ctor_spin $(ticks exit.csv ctor_spin)"
fi

# An image exec'd after the first used CPU: the kernel's count goes on
# across exec, but what came before is the first image's (its own file,
# mon.out.exec1), not this one's start-up: no "start-up" warning (with
# it counted, 0.3 s of 0.5 s, "60 %").
rm -f mon.out mon.out.exec1
if EXEC_AGAIN=0.2 "$MONRUN" -r 1000 "$T/ctor" 0.3 >"$T/again.out" 2>"$T/again.err" &&
   [ -f mon.out.exec1 ]; then
	ok monrun_exec_again_runs
else
	not_ok monrun_exec_again_runs "$(head -c 300 "$T/again.err"); $(ls)"
fi
"$PROF" -s -m mon.out "$T/ctor" >/dev/null 2>"$T/again.s"
if grep -q 'ran before profiling started' "$T/again.s"; then
	not_ok monrun_exec_no_startup_warning "$(grep 'ran before profiling' "$T/again.s" | head -c 300)"
else
	ok monrun_exec_no_startup_warning
fi

# The program's .preinit_array: before any library's _init, so unprofiled.
rm -f mon.out
if PREINIT_SECONDS=0.3 "$MONRUN" -c perf -r 1000 "$T/ctor" 0.6 >"$T/pre.out" 2>"$T/pre.err"; then
	ok monrun_preinit_runs
else
	not_ok monrun_preinit_runs "exit $?: $(head -c 300 "$T/pre.err")"
fi
"$PROF" -s -m mon.out "$T/ctor" >/dev/null 2>"$T/pre.s"
# The warning's seconds (user CPU under the perf clock) against the user
# CPU the kernel gave the process at the end of the .preinit_array function
# (preinit_ru_user): its split of the phase's 0.6 s into user and system
# time is an estimate, which gave 0.21 s of user time for preinit_spin's
# 0.30 s on a loaded machine.
t_pre=$(truth "$T/pre.out" preinit_spin)
ru_pre=$(truth "$T/pre.out" preinit_ru_user)
secs=$(sed -n 's/^prof: warning: \([0-9.]*\) s of [a-z +]* CPU (\([0-9]*\) % of the program.s) ran before profiling started.*/\1/p' "$T/pre.s")
if [ -n "$secs" ] && awk -v s="$secs" -v t="$ru_pre" 'BEGIN { exit !(t > 0.05 && s >= 0.9 * t) }'; then
	ok "monrun_preinit_warned ($secs s said; the kernel gave $ru_pre s of user CPU at the end of the .preinit_array, preinit_spin measured $t_pre s)"
else
	not_ok monrun_preinit_warned "the kernel gave ${ru_pre:-?} s of user CPU at the end of the .preinit_array (preinit_spin measured $t_pre s); prof said: $(grep -i 'before profiling' "$T/pre.s" | head -c 400)"
fi
# The share's denominator, the user CPU since profiling started as prof
# judges it (the samples' seconds over the share), against main_spin, the
# user code that ran after the start as its thread's CPU clock measured it:
# within a quarter.  Not the share itself against fixed bounds: the
# kernel's split of CPU into user and system is an estimate (its timer tick
# charged whole to the mode it interrupted), and a quiet ASan run of CI's
# gave 0.844 s user + 0.392 s system where others give 0.92 + 0.32: a
# share of 113 %, the denominator 0.529 s for main_spin's 0.600.  The
# mutation above (the .preinit_array's system time counted as user time
# before) leaves 0.29 s, and the .preinit_array not left out 0.83 s.
# The kernel's split can also go wrong by more than a quarter (proof C,
# ASan: 0.691 s user + 0.562 s system, a denominator of 0.362 s; the same
# tree 0.592-0.603 s in three runs after): up to two more runs, the first
# within the bounds counts; the mutations above are out of them every time.
share_ok() {
	t_main=$(truth "$T/pre.out" main_spin)
	since=$(sed -n 's/.*samples stand for \([0-9.]*\) s = \([0-9]*\) % of the user CPU since profiling started.*/\1 \2/p' "$T/pre.s")
	[ -n "$since" ] && [ -n "$t_main" ] &&
	   echo "$since" | awk -v m="$t_main" '{ exit !($2 > 0 && m > 0.3 && $1 * 100 / $2 >= 0.75 * m && $1 * 100 / $2 <= 1.25 * m) }'
}
if [ "$(clock_in mon.out "$T/ctor")" = perf ]; then
	tries=1
	while ! share_ok && [ $tries -lt 3 ]; do
		tries=$((tries + 1))
		rm -f mon.out
		PREINIT_SECONDS=0.3 "$MONRUN" -c perf -r 1000 "$T/ctor" 0.6 >"$T/pre.out" 2>"$T/pre.err"
		"$PROF" -s -m mon.out "$T/ctor" >/dev/null 2>"$T/pre.s"
	done
	if share_ok; then
		ok "monrun_preinit_user_share # $(echo "$since" | awk '{ printf "%.3f", $1 * 100 / $2 }') s of user CPU since the start for main_spin's $t_main s (run $tries)"
	else
		not_ok monrun_preinit_user_share "the user CPU since the start, as prof judges it ($since: seconds, %), not within a quarter of main_spin's ${t_main:-?} s: $(grep '^CPU' "$T/pre.s")"
	fi
else
	ok "monrun_preinit_user_share # skip the perf clock is not available here"
fi

