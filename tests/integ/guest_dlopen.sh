#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# libmon's dlopen (lib/objhist.c) adds no system call to a dlopen that loads
# nothing: the object already open (the loader only raises its count),
# RTLD_NOLOAD, dlopen(NULL).  Before, each such call refreshed the
# histograms, the unwind tables and the file's object list, reading
# /proc/self/maps four times (14 system calls; two threads opening one
# library in turns made 16 thousand calls in 3 s instead of 10 million).
# tests/progs/dlopen_reopen.c does N rounds of the three, then closes the
# plug-in, loads it anew and spins in it.  Counts, never times: strace -f -c
# of the whole monrun run with N = 100 and N = 2100, at 10 Hz (few ticks,
# whose sigreturns are left out):
#   guest_dlopen_reopen_no_calls  the calls added per round, (calls at 2100 -
#                                 calls at 100) / 2000, within 0.05 of the
#                                 unprofiled program's (0: the loader makes
#                                 none); 42 (14 a dlopen) with every dlopen
#                                 refreshed (mutation)
#   guest_dlopen_load_after       a library loaded after the rounds is seen:
#                                 plugin_spin named, with half the samples or
#                                 more (at 1 kHz, 0.3 s); built -nostartfiles,
#                                 without crti's _init, so that only the
#                                 refresh after dlopen can see it (a dlopen
#                                 that never refreshed after its first: 0 %,
#                                 the samples [anon])
# Skipped without strace and under sanitizers (their interceptors make
# calls of their own).  Time limit: 60 s for each run.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"

build_so libmonrun_plugin.so monrun_plugin.c || not_ok guest_dlopen_build_plugin
build_so libmonrun_late.so monrun_plugin.c -nostartfiles || not_ok guest_dlopen_build_late
build_plain reopen dlopen_reopen.c -ldl || not_ok guest_dlopen_build
cd "$T" || exit 1

# The plug-in loaded anew after the rounds: its own samples.
timeout 60 "$MONRUN" ./reopen ./libmonrun_plugin.so 100 0.3 ./libmonrun_late.so >run.txt 2>run.err ||
	not_ok guest_dlopen_load_after_run "exit $?: $(tail -n 2 run.err)"
"$PROF" --format=csv -m mon.out ./reopen >flat.csv 2>flat.err
# (csv_awk: under ASan libasan's names hold commas.)
share=$(csv_awk -F, '$2 == "function" { t += $8; if ($1 == "plugin_spin") v += $8 }
	END { printf "%.0f\n", (t > 0 ? 100 * v / t : 0) }' flat.csv)
if [ "$share" -ge 50 ]; then
	ok "guest_dlopen_load_after (plugin_spin $share % of the samples)"
else
	not_ok guest_dlopen_load_after "plugin_spin $share % of the samples: $(grep -c . flat.csv) rows, the first: $(sed -n 2,6p flat.csv | cut -d, -f1-3,8 | tr '\n' ' '); run: $(tr '\n' ' ' <run.txt); $(head -c 300 flat.err)"
fi

case $CC in
*-fsanitize=*)
	ok "guest_dlopen_reopen_no_calls # skip under a sanitizer ($CC): its interceptors make calls of their own"
	exit 0 ;;
esac
if ! command -v strace >/dev/null 2>&1 || ! strace -f -qq -o /dev/null true 2>/dev/null; then
	ok "guest_dlopen_reopen_no_calls # skip strace is not installed or cannot trace here"
	exit 0
fi
# calls OUT N [monrun...]: the system calls of the run but sigreturns;
# a run that fails or does not do its N rounds is said in strace.err.
: >strace.err
calls() {
	o=$1 n=$2; shift 2
	timeout 60 strace -f -c -o "$o" "$@" ./reopen ./libmonrun_plugin.so "$n" 0 >"$o.out" 2>>strace.err ||
		echo "exit $? (N $n $*)" >>strace.err
	grep -qx "reopened $n" "$o.out" || echo "no 'reopened $n' (N $n $*)" >>strace.err
	# (strace -c's rows: % time, seconds, usecs/call, calls, [errors,] name)
	awk '$NF == "total" { t = $4 } $NF == "rt_sigreturn" { s = $4 } END { print t - s }' "$o"
}
p1=$(calls plain1.txt 100) p2=$(calls plain2.txt 2100)
m1=$(calls mon1.txt 100 "$MONRUN" -r 10) m2=$(calls mon2.txt 2100 "$MONRUN" -r 10)
v=$(awk -v p1="$p1" -v p2="$p2" -v m1="$m1" -v m2="$m2" 'BEGIN {
	p = (p2 - p1) / 2000; m = (m2 - m1) / 2000
	printf "%s %.3f %.3f", (p1 > 0 && m1 > 0 && p2 >= p1 && m2 >= m1 && m - p <= 0.05) ? "ok" : "bad", m, p }')
set -- $v
what="$2 calls a round under monrun, $3 unprofiled (totals $m1, $m2 against $p1, $p2)"
if [ "$1" = ok ] && [ ! -s strace.err ]; then
	ok "guest_dlopen_reopen_no_calls ($what)"
else
	not_ok guest_dlopen_reopen_no_calls "$what; $(head -c 300 strace.err)"
fi
