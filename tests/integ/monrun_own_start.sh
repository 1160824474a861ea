#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The runtime's own start in the program's thread is not the program's
# time: monrun's settings kept and removed from the environment
# (autostart.c mon_env_keep, scrub_preload), the watcher process
# (control.c watcher_start: clone(2) and wait4) and the control thread
# (started) come before the clocks (monitor.c arm_whole).  Sampled, they
# were about 0.1 ms a process, 2 samples a run of a 20 ms program at
# 20 kHz, under start_once -> mon_whole_start -> started -> syscall, and a
# cat in a pipeline had 1 of its 2 samples in mon_env_keep -> mon_alloc.
#   own_start_unsampled   ten runs at 20 kHz of a 20 ms program: no sample
#                         has one of those functions (or unsetenv) in its
#                         stack (each run with at least 100 samples, and
#                         libmon's symbols started and mon_env_keep there to
#                         name them; the others may be inlined)
# Their CPU is counted with FACTS' CPU before the start (mon_facts_armed),
# so that prof's coverage does not count it missing.
# Mutation: mon_whole_start arming the clocks before started (the code
# before): 43 samples in those functions over the ten runs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"

build_plain paths stacks_paths.c -O2 || { not_ok own_start_build; exit 0; }
LIB=$B/lib/libmon.so
for f in started mon_env_keep; do
	nm "$LIB" 2>/dev/null | grep -q " [tT] $f\$" || { not_ok own_start_unsampled "libmon.so has no symbol $f to name"; exit 0; }
done
own=0 few=
for i in 1 2 3 4 5 6 7 8 9 10; do
	"$MONRUN" -r 20000 -o "$T/r$i.out" "$T/paths" run 0.02 >/dev/null 2>&1
	"$PROF" --format=folded "$T/r$i.out" >"$T/r$i.folded" 2>/dev/null
	n=$(awk '{ s += $NF } END { print s + 0 }' "$T/r$i.folded")
	[ "$n" -ge 100 ] || few="$few run $i: $n samples;"
	k=$(awk '{ c = $NF; $NF = ""; n = split($0, f, ";")
		for (j = 1; j <= n; j++) { sub(/ +$/, "", f[j])
			if (f[j] == "started" || f[j] == "watcher_start" || f[j] == "mon_env_keep" ||
			    f[j] == "scrub_preload" || f[j] == "unsetenv") { s += c; break } } }
		END { print s + 0 }' "$T/r$i.folded")
	own=$((own + k))
done
if [ -z "$few" ] && [ "$own" -eq 0 ]; then
	ok own_start_unsampled
else
	not_ok own_start_unsampled "${few:-}$own samples in the runtime's own start ($(grep -h -e ';started' -e watcher_start -e mon_env_keep "$T"/r*.folded | head -2))"
fi
