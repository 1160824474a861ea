#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Samples taken inside the call counter of a cc -pg program are unwound
# through it into the counted function (a new user's finding: a qsort
# comparator's calls of mcount were charged to qsort's msort_with_tmp,
# its caller, never to the comparator: libmon's assembly entry points had
# no call-frame information, and the walk took the frame pointer, the
# comparator's, skipping it).  tests/progs/mcount_stacks.c under monrun,
# built -pg (mcount) and -pg -mfentry (__fentry__), x86-64:
#   stacks_mcount_parent_ENTRY   of the samples whose stack holds the entry
#                                point (mcount or __fentry__, and mon_count
#                                under it), at least 95 % have cmp_ints as
#                                the entry's caller, and there are at least
#                                20 of them
#   stacks_mcount_slow           mcount_stacks arcs (65 536 arcs: most
#                                calls take mcount's slow path, which saves
#                                more registers and calls mon_count): no
#                                stack names decoy(), the address every
#                                callee gets as its first argument and that
#                                nothing calls, and of the samples in
#                                mon_count under mcount (at least 20) 95 %
#                                have a callee above mcount
# Mutations: the .cfi_* lines out of lib/arch/x86_64/mcount.S: 0 % (the
# entry's caller is msort_with_tmp); the slow path's first push and last
# pop without theirs (a reviewer's find: the CFA 8 bytes low, the saved
# %rdi read as the return address): decoy in 573 samples' stacks.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"
cd "$T" || exit 1
case $(uname -m) in
x86_64) ;;
*) ok "stacks_mcount # skip x86-64 only (-mfentry)"; exit 0 ;;
esac
for v in mcount fentry; do
	flags=-pg
	[ $v = fentry ] && flags="-pg -mfentry"
	entry=mcount
	[ $v = fentry ] && entry=__fentry__
	# shellcheck disable=SC2086
	build_plain ms_$v mcount_stacks.c -O2 $flags || { not_ok stacks_mcount_build_$v; continue; }
	timeout 60 "$MONRUN" -o $v.mon "$T/ms_$v" >$v.out 2>$v.err || { not_ok stacks_mcount_run_$v "$(cat $v.err)"; continue; }
	"$PROF" -m $v.mon --format=folded "$T/ms_$v" >$v.fold 2>/dev/null
	# The frame above the entry point in each stack that holds it.
	set -- $(awk -v e="$entry" '{ n = $NF; k = split($1, f, ";")
		for (i = 2; i <= k; i++) if (f[i] == e || f[i] == "_" e) { all += n; if (f[i - 1] == "cmp_ints") good += n; break } }
		END { print all + 0, good + 0 }' $v.fold)
	all=$1 good=$2
	if [ "$all" -ge 20 ] && [ $((good * 100)) -ge $((all * 95)) ]; then
		ok "stacks_mcount_parent_$v # $good of $all samples in $entry under cmp_ints"
	else
		not_ok "stacks_mcount_parent_$v" "$good of $all samples in $entry under cmp_ints: $(sort -t' ' -k2 -n $v.fold | tail -n 3 | tr '\n' '|')"
	fi
done

# The slow path (mcount -> mon_count), its CFA through every push.
if build_plain ms_arcs mcount_stacks.c -O2 -pg &&
   timeout 60 "$MONRUN" -o arcs.mon "$T/ms_arcs" arcs 0.8 >arcs.out 2>arcs.err; then
	"$PROF" -m arcs.mon --format=folded "$T/ms_arcs" >arcs.fold 2>/dev/null
	set -- $(awk '{ n = $NF; k = split($1, f, ";"); for (i = 1; i <= k; i++) if (f[i] == "decoy") bad += n
		for (i = 2; i < k; i++) if ((f[i] == "mcount" || f[i] == "_mcount") && f[i + 1] == "mon_count") {
			all += n; if (f[i - 1] ~ /^callee/) good += n; break } }
		END { print all + 0, good + 0, bad + 0 }' arcs.fold)
	if [ "$3" -eq 0 ] && [ "$1" -ge 20 ] && [ $(($2 * 100)) -ge $(($1 * 95)) ]; then
		ok "stacks_mcount_slow # $2 of $1 samples in mon_count under a callee, decoy in none"
	else
		not_ok stacks_mcount_slow "$2 of $1 samples in mon_count under a callee, decoy in $3: $(grep decoy arcs.fold | head -n 2 | tr '\n' '|')"
	fi
else
	not_ok stacks_mcount_slow_run "$(cat arcs.err 2>/dev/null)"
fi
