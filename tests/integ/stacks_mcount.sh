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
# Mutation: the .cfi_* lines out of lib/arch/x86_64/mcount.S: 0 % (the
# entry's caller is msort_with_tmp).
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
