#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The runtime's own work after a dlopen, in the program's thread, is not
# the program's time (issue 20's guest rules): the new objects' histograms,
# unwind tables and file list (lib/objhist.c dlopen and
# mon_objhist_loading, monitor.c after_dlopen) run with that thread's ticks
# left out (clock.c mon_clock_own_begin), and their CPU is counted in FACTS
# as not sampled by design, as the rate check's is.  Sampled, they were
# 7.6 % of nginx's profile (NSS's module, loaded by initgroups) and 36 of
# 380 samples here.
#   own_dlopen_unsampled  a host that loads and unloads libdw (or liblzma,
#                         zlib) for 1 s of CPU at 1 kHz: at least 50 loads
#                         and 100 samples, none with the runtime's dlopen
#                         work in its stack (the functions that work
#                         calls: a tick may still land in the few
#                         instructions around the window; libmon's symbols
#                         mon_objhist_refresh and mon_cfi_compile_by_table
#                         there to name it)
#   own_dlopen_counted    FACTS counts that work's CPU (mon_dump's
#                         check_usec: at 1 kHz there is no rate check) above
#                         0 and below the thread's CPU
# Mutations: without mon_clock_own_begin in dlopen and mon_objhist_loading,
# 36 samples in that work (unsampled fails); without its count in
# runfacts.c, check_usec 0 (counted fails).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"
. "$(dirname "$0")/mon_helpers.inc"

build_plain cycle dlopen_cycle.c -ldl && build_dump || { not_ok own_dlopen_build; exit 0; }
for f in mon_objhist_refresh mon_cfi_compile_by_table; do
	nm "$B/lib/libmon.so" 2>/dev/null | grep -q " [tT] $f\$" ||
		{ not_ok own_dlopen_unsampled "libmon.so has no symbol $f to name"; exit 0; }
done
lib=
for l in libdw.so.1 liblzma.so.5 libz.so.1; do
	"$T/cycle" "$l" 0.01 >/dev/null 2>&1 && { lib=$l; break; }
done
[ -n "$lib" ] || { not_ok own_dlopen_unsampled "none of libdw, liblzma, zlib can be loaded"; exit 0; }

"$MONRUN" -r 1000 -o "$T/d.out" "$T/cycle" "$lib" 1.0 >"$T/d.txt" 2>"$T/d.err" ||
	{ not_ok own_dlopen_unsampled "run failed: $(head -c 300 "$T/d.err")"; exit 0; }
"$PROF" --format=folded "$T/d.out" >"$T/d.folded" 2>/dev/null
cycles=$(truth "$T/d.txt" cycles)
n=$(awk '{ s += $NF } END { print s + 0 }' "$T/d.folded")
own=$(awk '{ c = $NF; $NF = ""; k = split($0, f, ";")
	for (j = 1; j <= k; j++) { sub(/ +$/, "", f[j])
		if (f[j] ~ /^(refresh|refresh_and|mon_objhist_refresh|each_object|each_one|mon_cfi_compile|mon_cfi_compile_by_table|after_dlopen|mon_stacks_loaded|refresh_objects)$/) { s += c; break } } }
	END { print s + 0 }' "$T/d.folded")
if [ "${cycles:-0}" -ge 50 ] && [ "$n" -ge 100 ] && [ "$own" -eq 0 ]; then
	ok own_dlopen_unsampled
else
	not_ok own_dlopen_unsampled "$cycles loads of $lib, $n samples, $own in the runtime's dlopen work ($(grep -E 'mon_objhist_refresh|each_object|mon_cfi_compile' "$T/d.folded" | head -1 | cut -c1-200))"
fi

check=$(info "$T/d.out" check_usec)
cpu=$("$T/mon_dump" "$T/d.out" info | awk '$1 == "thread" { print $5 + $7; exit }')
if [ "${check:-0}" -gt 0 ] && [ "${check:-0}" -lt "${cpu:-0}" ]; then
	ok own_dlopen_counted
else
	not_ok own_dlopen_counted "FACTS check_usec ${check:-none}, the thread's CPU ${cpu:-unknown} us"
fi
