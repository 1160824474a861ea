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
# no control thread (plain monrun) the handler that finds its table full
# makes the next one and moves the ticks to it (lib/stacks.c advance):
# with MONPROF_STACK_TABLE=256, tables of 64, 128 and 64 stacks, every one
# used whole (more than 192 entries, at most 256), and the samples past
# them counted as lost, not hidden (mutation: advance returning its table
# unchanged: 64 entries).  Before, plain monrun
# had one table of 262144 stacks, which five or six minutes of a compile by
# clang++ fill (bench/clang_hour.sh).
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
if [ "${1:-0}" -gt 192 ] && [ "${1:-0}" -le 256 ] && [ "${3:-0}" -gt 0 ]; then
	ok "stacks_growth_without_thread # ${1} entries, ${3} samples lost"
else
	not_ok stacks_growth_without_thread "${1:-?} entries (193 to 256 wanted), ${3:-?} lost"
fi

# The tables are made as they are needed, not reserved at the start: the
# address space a profiled shell has with call stacks on, less what the
# same shell has with them off (MONPROF_STACK_DEPTH=0; a sanitizer's own
# reservations, terabytes under ASan, are in both), is under 256 MiB
# (about 35 MiB here: the first table and the walks' buffers; the one table
# of 262144 stacks plain monrun had before: 532 MiB more; the whole chain
# mapped at the start, as a first version of this change did: 2 GiB more,
# which a program's own RLIMIT_AS, RLIMIT_DATA or a strict overcommit
# would have paid for).
vmsize() {
	timeout 60 env "$@" "$MONRUN" -o "$T/as.out" sh -c 'grep VmSize /proc/$$/status' 2>&1 |
		awk '$1 == "VmSize:" { print $2 }'
}
vm=$(vmsize MONPROF_STACK_DEPTH=256)
vm0=$(vmsize MONPROF_STACK_DEPTH=0)
if [ -n "$vm" ] && [ -n "$vm0" ] && [ $((vm - vm0)) -lt 262144 ]; then
	ok "stacks_growth_start_small # VmSize $vm kB with stacks, $vm0 kB without"
else
	not_ok stacks_growth_start_small "VmSize '${vm:-none}' kB with stacks, '${vm0:-none}' kB without (less than 262144 kB more wanted)"
fi

# A fork child of such a run keeps the table the parent was adding to,
# emptied, frees the others and grows again up to the setting
# (lib/stacks.c mon_stacks_reset): the parent's and the child's files each
# hold more than 192 of the 256, the child's of the child alone (mutation:
# the parent's retired tables kept in the child: its file holds the
# parent's stacks).
(cd "$T" && MONPROF_STACK_TABLE=256 timeout 60 "$MONRUN" -f -o "$T/f.out" "$T/many" 1 12 fork) >"$T/f.txt" 2>&1
child=$(awk '$1 == "child" { print $2 }' "$T/f.txt")
p=$("$T/mon_dump" "$T/f.out" stacks 0 0 | awk '{ print $4 }')
c=$([ -n "$child" ] && "$T/mon_dump" "$T/f.out.$child" stacks 0 0 | awk '{ print $4 }')
# (the threads the child's stacks name: the child alone)
ctids=$([ -n "$child" ] && "$T/mon_dump" "$T/f.out.$child" stacktids | awk '{ print $1 }' | sort -u | tr '\n' ' ')
if [ "${p:-0}" -gt 192 ] && [ "${p:-0}" -le 256 ] && [ "${c:-0}" -gt 192 ] && [ "${c:-0}" -le 256 ] &&
    [ "$ctids" = "$child " ]; then
	ok "stacks_growth_fork_child # parent $p entries, child $c"
else
	not_ok stacks_growth_fork_child "parent ${p:-?} entries, child ${c:-?} (193 to 256 each wanted), the child's stacks of threads '$ctids' ($child wanted): $(cat "$T/f.txt")"
fi
