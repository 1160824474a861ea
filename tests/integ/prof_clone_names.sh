#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A function named without the suffix of the copy the compiler made of it:
# gcc -O2 compiles tests/progs/clone_names.c's heavy as heavy.constprop.0,
# and a new user's `prof --annotate=heavy` and `--callers=heavy` failed
# with "no function of that name".  prof takes the one copy of that name
# and says which it took; a name no function has is an error that lists
# the names that hold it.
#   names_callers_clone    --callers=heavy: exit 0, "the function is
#                          heavy.constprop.0", its entry in the call graph
#   names_annotate_clone   --annotate=heavy: exit 0, heavy.constprop.0's
#                          code annotated
#   names_unknown_hint     --callers=heav: exit 1, the error names
#                          heavy.constprop.0
# Mutation: prof_function_like finding nothing fails the first two.
# Time limit: 60 s.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"

skip_all() {
	for n in names_callers_clone names_annotate_clone names_unknown_hint; do
		ok "$n # skip $1"
	done
	exit 0
}
build_plain cn clone_names.c -O2 || { not_ok names_build; exit 1; }
nm "$T/cn" 2>/dev/null | grep -q ' heavy\.constprop\.[0-9]*$' ||
	skip_all "this compiler made no heavy.constprop copy ($(nm "$T/cn" | grep heavy | tr '\n' ' '))"
cd "$T" || exit 1
"$MONRUN" ./cn 0.4 >/dev/null || { not_ok names_run "monrun ./cn failed"; exit 1; }

"$PROF" --callers=heavy ./cn >callers.out 2>callers.err
rc=$?
if [ $rc -eq 0 ] && grep -qx 'prof: --callers=heavy: the function is heavy\.constprop\.[0-9]*' callers.err &&
    grep -Eq '^\[[0-9]+\] .* heavy\.constprop\.[0-9]+ \[[0-9]+\]' callers.out; then
	ok names_callers_clone
else
	not_ok names_callers_clone "exit $rc: $(head -c 300 callers.err) | $(head -n 4 callers.out | tr '\n' ' ')"
fi
"$PROF" --annotate=heavy ./cn >ann.out 2>ann.err
rc=$?
if [ $rc -eq 0 ] && grep -q 'heavy\.constprop' ann.out; then
	ok names_annotate_clone
else
	not_ok names_annotate_clone "exit $rc: $(head -c 300 ann.err) | $(head -n 3 ann.out | tr '\n' ' ')"
fi
"$PROF" --callers=heav ./cn >unk.out 2>unk.err
rc=$?
if [ $rc -eq 1 ] && [ ! -s unk.out ] &&
    grep -q '^prof: --callers=heav: no function of that name in the profile; names that hold it: .*heavy\.constprop' unk.err; then
	ok names_unknown_hint
else
	not_ok names_unknown_hint "exit $rc: $(head -c 300 unk.err)"
fi
