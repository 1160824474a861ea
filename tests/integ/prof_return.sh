#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Return addresses (issue 23): a caller frame's PC is its return address,
# read at address - 1, so that a call at a function's last instruction (a
# noreturn call, the next function starting right after it) keeps its own
# function in stacks, in --lines, in the call graph's arcs (cc -pg: mcount's
# frompc) and in the exports; and the bottom frame of a makecontext(3)
# stack (glibc's __start_context, a return address no call pushed) is named
# for itself and ends the stack normally (not "ends early").  Real runs
# under monrun; x86-64 (the noreturn fixture is assembly).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
cd "$T" || exit 1
case $(uname -m) in
x86_64) ;;
*) ok "prof_return # skip x86-64 only (the fixture is x86-64 assembly)"; exit 0 ;;
esac

# ---- a noreturn call at a function's end --------------------------------
$CC -O1 -g -o nr "$ROOT/tests/progs/prof_noreturn.c" || { not_ok build_noreturn; exit 1; }
end=$(($(nm_addr nr ends_in_call) + $(nm_size nr ends_in_call)))
[ "$end" = "$(nm_addr nr next_fn)" ] && ok noreturn_fixture_adjacent ||
	not_ok noreturn_fixture_adjacent "ends_in_call ends at $end, next_fn at $(nm_addr nr next_fn)"
"$B/bin/monrun" -o nr.mon ./nr 200 >/dev/null 2>nr.run || not_ok noreturn_run "$(cat nr.run)"
"$PROF" -m nr.mon --format=folded nr >nr.fold 2>nr.err
# Every stack through spin_exit has ends_in_call for its caller; none names next_fn.
if grep -q 'spin_exit' nr.fold && ! grep -q next_fn nr.fold &&
   ! grep 'spin_exit' nr.fold | grep -vq ';ends_in_call;spin_exit'; then
	ok noreturn_caller_in_stacks
else
	not_ok noreturn_caller_in_stacks "$(cat nr.fold nr.err)"
fi
"$PROF" -m nr.mon --format=folded --lines nr >nrl.fold 2>/dev/null
grep -q 'ends_in_call;' nrl.fold && ! grep -q next_fn nrl.fold && ok noreturn_caller_lines ||
	not_ok noreturn_caller_lines "$(cat nrl.fold)"
"$PROF" -m nr.mon --format=callgrind nr >nr.cg 2>/dev/null
grep -q '^fn=.*ends_in_call' nr.cg && ! grep -q 'next_fn' nr.cg && ok noreturn_caller_callgrind ||
	not_ok noreturn_caller_callgrind "$(grep -n 'fn=' nr.cg | head -20)"

# The arc mcount records (cc -pg) has frompc = the return address = next_fn.
build_prog nrpg prof_noreturn.c -pg || not_ok build_noreturn_pg
rm -f mon.out
./nrpg 50 >/dev/null 2>nrpg.run && [ -f mon.out ] || not_ok noreturn_pg_run "$(cat nrpg.run)"
"$PROF" -m mon.out --callers=spin_exit nrpg >nrpg.txt 2>nrpg.err
if awk '/^\[[0-9]+\]/ { exit } / 1\/1 +ends_in_call/ { a = 1 } /next_fn/ { b = 1 }
	END { exit !(a && !b) }' nrpg.txt; then ok noreturn_caller_arc
else not_ok noreturn_caller_arc "$(cat nrpg.txt nrpg.err)"; fi

# ---- makecontext's bottom frame -------------------------------------------
$CC -O1 -g -o ctx "$ROOT/tests/progs/prof_context.c" || { not_ok build_context; exit 1; }
"$B/bin/monrun" -o ctx.mon ./ctx 300 >/dev/null 2>ctx.run || not_ok context_run "$(cat ctx.run)"
"$PROF" -m ctx.mon --format=folded ctx >ctx.fold 2>ctx.err
# The frame below co_entry: __start_context (named from libc's symbols, or
# the unwind range it starts, [libc.so.6]+0x...), never the function before.
bottom=$(grep ';co_entry;co_work' ctx.fold | sed 's/;co_entry;co_work.*//; s/.*;//' | sort -u)
case $bottom in
__start_context | "[libc.so.6]+0x"*) ok context_bottom_named ;;
*) not_ok context_bottom_named "frame below co_entry: '$bottom'; $(head -c 600 ctx.fold)" ;;
esac
# A sample taken while __start_context switches back (in setcontext) may
# end early for real: the warning counts those ("1 sample" or "N samples")
# and no sample of co_work.
ntr=$(awk '/\[truncated\]/ { n += $NF } END { print n + 0 }' ctx.fold)
wtr=$(sed -n 's/^prof: warning: \([0-9]*\) samples\{0,1\} .*ends early.*/\1/p' ctx.err)
if grep -q ';co_entry;co_work' ctx.fold && ! grep 'co_work' ctx.fold | grep -q '\[truncated\]' &&
   [ "${wtr:-0}" = "$ntr" ]; then
	ok context_stack_complete
else
	agree_not_ok context_stack_complete "$(cat ctx.err; head -c 600 ctx.fold)"
fi
# The same in the exports: pprof and callgrind name no function before it.
"$PROF" -m ctx.mon --format=callgrind ctx >ctx.cg 2>/dev/null
b1=$(grep ';co_entry;co_work' ctx.fold | head -1 | sed 's/;co_entry;co_work.*//; s/.*;//')
grep -qF "fn=" ctx.cg && grep -F "$b1" ctx.cg >/dev/null && ok context_bottom_callgrind ||
	not_ok context_bottom_callgrind "no '$b1' in $(grep -c . ctx.cg) lines"
