#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The call-stack table grows instead of losing stacks (issue 22, item 6).
# tests/progs/stacks_many.c makes a new stack at nearly every sample.  With
# MONPROF_STACK_TABLE=2048 and monrun --control the first table holds 512
# stacks; the control
# thread grows it (1024, then the rest of the 2048) as it fills, so of about
# 1000 samples (1 CPU-second at 1000 Hz) at most a quarter lose their stack
# and more than 512 entries are kept (mutation: mon_stacks_grow returning 0
# at once — about half the samples are lost and 512 entries kept).  With
# no control thread (plain monrun) the one table is all (MONPROF_STACK_TABLE
# stacks, here 256), and the lost samples are counted, not hidden.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"
. "$(dirname "$0")/mon_helpers.inc"

if build_plain many stacks_many.c -fno-omit-frame-pointer && build_dump; then
	ok stacks_growth_build
else
	not_ok stacks_growth_build
	exit 0
fi
MONPROF_STACK_TABLE=2048 "$MONRUN" --control -o "$T/g.out" "$T/many" 1 >/dev/null 2>"$T/g.err"
set -- $("$T/mon_dump" "$T/g.out" stacks 0 0 | awk '{ print $4, $6, $8 }')
entries=${1:-0} samples=${2:-0} lost=${3:-0}
if [ "$entries" -gt 512 ] && [ $((lost * 4)) -le $((samples + lost)) ] && [ "$samples" -gt 0 ]; then
	ok stacks_growth_keeps
else
	not_ok stacks_growth_keeps "$entries entries, $samples samples with a stack, $lost lost"
fi
MONPROF_STACK_TABLE=256 "$MONRUN" -o "$T/n.out" "$T/many" 1 >/dev/null 2>&1
set -- $("$T/mon_dump" "$T/n.out" stacks 0 0 | awk '{ print $4, $6, $8 }')
if [ "${1:-0}" -le 256 ] && [ "${3:-0}" -gt 0 ]; then
	ok stacks_growth_none_without_thread
else
	not_ok stacks_growth_none_without_thread "${1:-?} entries, ${3:-?} lost"
fi
