#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The default stack limit (MONPROF_STACK_DEPTH unset, 256) keeps the stacks
# of a deep program whole: 150 calls under main (stacks_deep.c), what a
# deep interpreter's C stack holds (issue 23, item 6; the cost of 64, 128
# and 256 is measured by bench/stacks_depth.sh, docs/performance.md).  The
# STACKS record names the limit; with -d 64 the same run is cut and prof
# says so (the check can fail).  Mutation caught: MON_STACK_DEPTH_DEFAULT
# back to 64, or 128 (lib/stacks.h): the record says so and prof warns.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mon_helpers.inc"
. "$(dirname "$0")/monrun_lib.inc"
PROF=$B/bin/prof
build_dump || { not_ok build_dump; exit 1; }
cd "$T" || exit 1
unset MONPROF_STACK_DEPTH
build_plain deep stacks_deep.c || { not_ok build_deep; exit 1; }
"$MONRUN" -o "$T/d.out" ./deep 150 100000000 || not_ok deep_run "exit $?"
set -- $("$T/mon_dump" "$T/d.out" stacks 0 0)
# "stacks 1 entries E samples S lost L truncated T depth D reach R maxdepth M ..."
expect "default limit recorded" "${12}" 256
[ "${6:-0}" -gt 0 ] && ok "deep: samples with stacks" || not_ok "deep: samples with stacks" "$*"
[ "${16:-0}" -ge 150 ] && ok "deep: a stack of 150 calls and more, whole" ||
	not_ok "deep: stack whole" "maxdepth ${16:-}"
"$PROF" -m "$T/d.out" ./deep >/dev/null 2>"$T/p.err"
if grep -q "deeper than the runtime kept" "$T/p.err"; then
	not_ok "deep: no stack cut at the default limit" "$(cat "$T/p.err")"
else
	ok "deep: no stack cut at the default limit"
fi
"$MONRUN" -d 64 -o "$T/c.out" ./deep 150 100000000 || not_ok cut_run "exit $?"
set -- $("$T/mon_dump" "$T/c.out" stacks 0 0)
expect "-d 64 recorded" "${12}" 64
"$PROF" -m "$T/c.out" ./deep >/dev/null 2>"$T/c.err"
grep -q "deeper than the runtime kept (MONPROF_STACK_DEPTH)" "$T/c.err" &&
	ok "-d 64: cut, and prof says so" || not_ok "-d 64: cut" "$(cat "$T/c.err")"
