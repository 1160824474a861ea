#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Every sample has a row, in the object mapped at the time (issue 12 items
# 2 and 4, runtime side): code in anonymous executable memory (a JIT) has
# its own rows, named from /tmp/perf-PID.map when the program wrote one,
# else [anon] (case jit-code.c); vDSO functions are named from the symbols
# the runtime copied (case vdso-time.c); two plug-ins loaded in turn at one
# address each get their own samples, and a plug-in dlopen'ed by a relative
# name is found when prof runs from another directory (case
# plugins-same-address.c); with both plug-ins unloaded before the write and
# call stacks on, each stack names the plug-in that was mapped when it was
# sampled (issue 21 item 14).  Shares are checked against the CPU the programs
# measured, within bounds from the number of samples.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"
. "$(dirname "$0")/mon_helpers.inc"

if build_plain jit cov_jit.c && build_plain vdso monrun_vdso.c && build_plain plugins cov_plugins.c -ldl &&
    build_so plugA.so cov_plugin.c -DPLUG=plugA_hot && build_so plugB.so cov_plugin.c -DPLUG=plugB_hot &&
    build_dump; then
	ok cov_objects_build
else
	not_ok cov_objects_build
fi

# jit_share NAME MODE ROW: ROW holds the generated code's share; nothing lost.
jit_share() {
	"$MONRUN" -o "$T/$2.out" "$T/jit" "$2" >"$T/$2.txt"; rc=$?
	map=$(truth "$T/$2.txt" map)
	[ "$map" != - ] && rm -f "$map"
	if [ $rc = 77 ]; then
		ok "$1 # skip $(cat "$T/$2.txt")"
		return
	fi
	if ! prof_csv "$T/$2.out" "$T/$2.csv" "$T/jit"; then
		not_ok "$1" "prof: $(cat "$T/$2.csv.err")"
		return
	fi
	j=$(truth "$T/$2.txt" jit_loop) c=$(truth "$T/$2.txt" c_part)
	jt=$(ticks "$T/$2.csv" "$3") ct=$(ticks "$T/$2.csv" c_part)
	lost=$(dump "$T/$2.out" info | awk '$1 == "lost" || $1 == "dropped" { s += $2 } END { print s + 0 }')
	if [ "$lost" != 0 ]; then
		not_ok "$1" "$lost samples lost or dropped"
		return
	fi
	n=$(awk -v a="$jt" -v b="$ct" 'BEGIN { printf "%d", a + b }')
	share_ok "$1" "$jt" "$n" "$(awk -v j="$j" -v c="$c" 'BEGIN { print j / (j + c) }')" 0.15
}
jit_share cov_objects_jit_anon nomap '[anon]'
jit_share cov_objects_jit_perfmap map jit_loop

# vDSO: no bare [vdso] row; its time on named functions or on the stretches
# its unwind table separates ([vdso]+0xSTART); one row is named after a
# vDSO function.
"$MONRUN" -o "$T/v.out" "$T/vdso" >"$T/v.txt"
if prof_csv "$T/v.out" "$T/v.csv" "$T/vdso"; then
	bare=$(ticks "$T/v.csv" '[vdso]')
	named=$(csv_awk -F, '$3 == "[vdso]" && $2 == "function" && $8 > 0 { n++ } END { print n + 0 }' "$T/v.csv")
	vt=$(csv_awk -F, '$3 == "[vdso]" { s += $8 } END { print s + 0 }' "$T/v.csv")
	if [ "$bare" = 0 ] && [ "$named" -ge 1 ] && awk -v v="$vt" 'BEGIN { exit !(v > 0) }'; then
		ok cov_objects_vdso_named
	else
		not_ok cov_objects_vdso_named "bare [vdso] $bare ticks, $named named rows, $vt vDSO ticks"
	fi
else
	not_ok cov_objects_vdso_named "prof: $(cat "$T/v.csv.err")"
fi

# Plug-ins in turn at one address, loaded by relative names; prof run from
# another directory.
(cd "$T" && "$MONRUN" -o "$T/p.out" ./plugins >"$T/p.txt")
if [ "$(truth "$T/p.txt" same_address)" != 1 ]; then
	ok "cov_objects_plugins # skip the dynamic linker did not reuse the address"
	ok "cov_objects_plugins_absolute # skip the dynamic linker did not reuse the address"
else
	if (cd / && "$PROF" -m "$T/p.out" --format=csv "$T/plugins" >"$T/p.csv" 2>"$T/p.err"); then
		a=$(ticks "$T/p.csv" plugA_hot) b=$(ticks "$T/p.csv" plugB_hot)
		n=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%d", a + b }')
		pa=$(truth "$T/p.txt" plugA_hot) pb=$(truth "$T/p.txt" plugB_hot)
		share_ok cov_objects_plugins "$a" "$n" "$(awk -v a="$pa" -v b="$pb" 'BEGIN { print a / (a + b) }')" 0.1
	else
		not_ok cov_objects_plugins "prof: $(cat "$T/p.err")"
	fi
	paths=$(dump "$T/p.out" info | awk '$1 == "object" && $2 ~ /plug[AB]\.so$/ { print $2 }' | sort | tr '\n' ' ')
	if [ "$paths" = "$T/plugA.so $T/plugB.so " ]; then
		ok cov_objects_plugins_absolute
	else
		not_ok cov_objects_plugins_absolute "recorded: $paths"
	fi
fi

# Both plug-ins unloaded before the write, call stacks on (the default):
# the flat rows and the folded stacks both give each plug-in its own
# samples (before, every stack named plugA_hot: 52.8 % / 47.2 % for a 1:8
# split).
(cd "$T" && "$MONRUN" -o "$T/pc.out" ./plugins 0.1 close >"$T/pc.txt")
if [ "$(truth "$T/pc.txt" same_address)" != 1 ]; then
	ok "cov_objects_plugins_closed # skip the dynamic linker did not reuse the address"
	ok "cov_objects_plugins_stacks # skip the dynamic linker did not reuse the address"
elif "$PROF" -m "$T/pc.out" --format=csv "$T/plugins" >"$T/pc.csv" 2>"$T/pc.err" &&
    "$PROF" -m "$T/pc.out" --format=folded "$T/plugins" >"$T/pc.folded" 2>>"$T/pc.err"; then
	pa=$(truth "$T/pc.txt" plugA_hot) pb=$(truth "$T/pc.txt" plugB_hot)
	p=$(awk -v a="$pa" -v b="$pb" 'BEGIN { print a / (a + b) }')
	a=$(ticks "$T/pc.csv" plugA_hot) b=$(ticks "$T/pc.csv" plugB_hot)
	share_ok cov_objects_plugins_closed "$a" "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%d", a + b }')" "$p" 0.1
	# Folded lines: "frame;frame;...;leaf COUNT".
	sa=$(awk '{ n = split($1, f, ";") } f[n] == "plugA_hot" { s += $2 } END { print s + 0 }' "$T/pc.folded")
	sb=$(awk '{ n = split($1, f, ";") } f[n] == "plugB_hot" { s += $2 } END { print s + 0 }' "$T/pc.folded")
	share_ok cov_objects_plugins_stacks "$sa" "$((sa + sb))" "$p" 0.1
else
	not_ok cov_objects_plugins_closed "prof: $(cat "$T/pc.err")"
	not_ok cov_objects_plugins_stacks "prof: $(cat "$T/pc.err")"
fi
