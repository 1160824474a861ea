#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# monrun on programs whose time is in shared objects: a library of the test's
# own that the program is linked against, and a plugin it dlopen()s after it
# has started (kept loaded, or dlclose()d before exit).  prof must name the
# objects' functions and give them their share of the samples, within five
# standard deviations of the CPU time the program measured itself.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"

RATE=5000
mkdir -p "$T/run"

# 1. A program linked against a shared library of its own.
if build_so libmonrun_lib.so monrun_lib.c &&
   build_plain shlib monrun_shlib.c -L"$T" -Wl,-rpath,"$T" -lmonrun_lib; then
	ok monrun_shlib_build
else
	not_ok monrun_shlib_build
fi
if (cd "$T/run" && "$MONRUN" -r $RATE "$T/shlib" 0.5 1.0 >"$T/shlib.out"); then
	ok monrun_shlib_runs
else
	not_ok monrun_shlib_runs "exit $?"
fi
if prof_csv "$T/run/mon.out" "$T/shlib.csv" "$T/shlib"; then
	ok monrun_shlib_prof_reads
else
	not_ok monrun_shlib_prof_reads "$(cat "$T/shlib.csv.err")"
fi
lib_obj=$(object_of "$T/shlib.csv" lib_spin)
case $lib_obj in
*/libmonrun_lib.so) ok monrun_shlib_function_in_library_named ;;
*) not_ok monrun_shlib_function_in_library_named "lib_spin's object '$lib_obj'" ;;
esac
main_obj=$(object_of "$T/shlib.csv" main_spin)
case $main_obj in
*/shlib) ok monrun_shlib_function_in_program_named ;;
*) not_ok monrun_shlib_function_in_program_named "main_spin's object '$main_obj'" ;;
esac
"$PROF" -m "$T/run/mon.out" --format=json "$T/shlib" >"$T/shlib.json" 2>/dev/null
k_lib=$(ticks "$T/shlib.csv" lib_spin)
k_main=$(ticks "$T/shlib.csv" main_spin)
c_lib=$(truth "$T/shlib.out" lib_spin)
c_main=$(truth "$T/shlib.out" main_spin)
n=$(awk -v a="$k_lib" -v b="$k_main" 'BEGIN { printf "%d", a + b + 0.5 }')
p=$(awk -v a="$c_lib" -v b="$c_main" 'BEGIN { print (a + b > 0) ? a / (a + b) : 0 }')
share_ok monrun_shlib_library_share "$k_lib" "$n" "$p"
# The two functions are nearly all the process did: their ticks are nearly
# all the samples (loader, start-up and exit take a few).
total=$(json_num "$T/shlib.json" total_ticks)
if awk -v n="$n" -v t="$total" 'BEGIN { exit !(t > 0 && n >= 0.95 * t) }'; then
	ok monrun_shlib_samples_accounted
else
	not_ok monrun_shlib_samples_accounted "main_spin+lib_spin $n of $total ticks"
fi
# The samples are the CPU time at the rate set (perf clock: one sample per
# 1/rate s of CPU; the tick-driven clocks lump them, same total).  The rate
# set is the asked one, or lower where a tick is too dear (coverage_rate.sh);
# then the ticks' own cost, partly unseen by the clock, may take up to a
# quarter of the samples.
set=$(json_num "$T/shlib.json" rate_hz)
lo=0.8
[ "${set:-0}" -lt $RATE ] 2>/dev/null && lo=0.75
if awk -v n="$n" -v r="${set:-0}" -v a="$c_lib" -v b="$c_main" -v lo=$lo -v asked=$RATE \
    'BEGIN { want = r * (a + b); exit !(r <= asked && n >= lo * want && n <= 1.2 * want) }'; then
	ok monrun_shlib_samples_at_rate
else
	not_ok monrun_shlib_samples_at_rate "$n ticks for $c_main + $c_lib CPU s at ${set:-?} Hz set (asked $RATE)"
fi

# 2. A plugin loaded with dlopen() after start, where most of the time goes.
if build_so libmonrun_plugin.so monrun_plugin.c && build_plain dlopen monrun_dlopen.c -ldl; then
	ok monrun_dlopen_build
else
	not_ok monrun_dlopen_build
fi
for mode in keep close; do
	rm -f "$T/run/mon.out"
	if (cd "$T/run" && "$MONRUN" -r $RATE "$T/dlopen" "$T/libmonrun_plugin.so" $mode 0.2 0.8 \
	    >"$T/dl.out"); then
		ok monrun_dlopen_${mode}_runs
	else
		not_ok monrun_dlopen_${mode}_runs "exit $?"
	fi
	prof_csv "$T/run/mon.out" "$T/dl.csv" "$T/dlopen" ||
		not_ok monrun_dlopen_${mode}_prof_reads "$(cat "$T/dl.csv.err")"
	obj=$(object_of "$T/dl.csv" plugin_spin)
	case $obj in
	*/libmonrun_plugin.so) ok monrun_dlopen_${mode}_plugin_function_named ;;
	*) not_ok monrun_dlopen_${mode}_plugin_function_named "plugin_spin's object '$obj'; report:
$(head -n 5 "$T/dl.csv")" ;;
	esac
	top=$(sed -n 2p "$T/dl.csv" | cut -d, -f1)
	if [ "$top" = plugin_spin ]; then
		ok monrun_dlopen_${mode}_plugin_on_top
	else
		not_ok monrun_dlopen_${mode}_plugin_on_top "first row '$top'"
	fi
	k_pl=$(ticks "$T/dl.csv" plugin_spin)
	k_main=$(ticks "$T/dl.csv" main_spin)
	c_pl=$(truth "$T/dl.out" plugin_spin)
	c_main=$(truth "$T/dl.out" main_spin)
	n=$(awk -v a="$k_pl" -v b="$k_main" 'BEGIN { printf "%d", a + b + 0.5 }')
	p=$(awk -v a="$c_pl" -v b="$c_main" 'BEGIN { print (a + b > 0) ? a / (a + b) : 0 }')
	share_ok monrun_dlopen_${mode}_plugin_share "$k_pl" "$n" "$p"
done
