#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A fork child's wall sampler starts after the child's control thread
# (issue 20, found by a new user on nginx's workers under monrun -f --wall
# --control): started before it, the sampler's first listing of
# /proc/self/task found the control thread before it had said its tid and
# sampled it as the program's ("Thread monprof-ctl-N: [poll socket unix
# @monprof.N]", the largest off-CPU row), and sampled the child's thread
# waiting for that tid ("[futex mon_control_tid]").
#   wall_forks_run        tests/progs/wall_forks.c, 120 children under
#                         monrun -f --wall=1000 --control: exit 0, 121 files
#   wall_forks_no_ctl     no wall sample of any file is a monprof-ctl
#                         thread's, none waits on mon_control_tid, and at
#                         least half the children's threads have their
#                         child_sleep samples (a child's sampler starts
#                         once its control thread runs, which a loaded
#                         machine may delay past a 30 ms sleep)
# Mutation: mon_wall_fork_go called before the control thread starts (the
# old order): monprof-ctl threads or [futex mon_control_tid] in the
# children's samples (4 runs of 5 with 120 children of 10 ms; each child
# is a chance for the race, so the children are many).
. "$(dirname "$0")/lib.sh"
# Under AddressSanitizer (GCC 12's) a fork child of a process whose wall
# sampler runs hangs in 3-4 runs of 8 here, with this tree and fe4b20d's
# alike: the child's threads and LeakSanitizer's exit check wait on an
# allocator lock of ASan's that the child inherited held (gdb: every
# thread in SizeClassAllocator64 Mutex::Lock; --control alone: 0 of 6,
# --wall: 3 of 6; the plain build: 0 of 8).  Which call of the parent's
# sampler takes that lock is not found yet (the closing note of
# 2026-12-05); the check holds in the plain run of make check.
case " ${CC:-} " in
*-fsanitize=address*)
	ok "wall_forks_run # skip under ASan: its allocator's lock, inherited held by a fork child of a process whose wall sampler runs, hangs the child"
	ok "wall_forks_no_ctl # skip under ASan (above)"
	exit 0 ;;
esac

$CC -O2 -g -o "$T/forks" "$ROOT/tests/progs/wall_forks.c" || { not_ok wall_forks_build; exit 0; }
D=$T/d
mkdir -p "$D"
PROFDIR=$D timeout 120 "$B/bin/monrun" -f --wall=1000 --control "$T/forks" 120 30 >"$T/out" 2>"$T/err"
rc=$?
n=$(ls "$D" | wc -l)
if [ $rc -eq 0 ] && [ "$n" -eq 121 ] && grep -q '^children 120$' "$T/out"; then
	ok wall_forks_run
else
	not_ok wall_forks_run "exit $rc, $n files: $(head -c 300 "$T/err")"
fi
timeout 120 "$B/bin/prof" --threads=all --sample=wall "$D" >"$T/wall.txt" 2>"$T/prof.err"
prc=$?
ctl=$(grep -c 'monprof-ctl' "$T/wall.txt")
waits=$(grep -c 'mon_control_tid' "$T/wall.txt")
sleeps=$(grep -c 'child_sleep' "$T/wall.txt")
echo "# monprof-ctl lines $ctl, mon_control_tid lines $waits, child_sleep lines $sleeps"
if [ $prc -eq 0 ] && [ "$ctl" -eq 0 ] && [ "$waits" -eq 0 ] && [ "$sleeps" -ge 60 ]; then
	ok wall_forks_no_ctl
else
	not_ok wall_forks_no_ctl "prof exit $prc; $(grep -m 3 'monprof-ctl\|mon_control_tid' "$T/wall.txt")"
fi
