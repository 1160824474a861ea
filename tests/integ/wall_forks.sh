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
