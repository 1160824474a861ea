#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# prof's wall-clock and off-CPU views of a real run: a program that waits
# in known ways (tests/progs/prof_wall_truth.c: a mutex another thread
# holds, a pipe read, a sleep) run under monrun --wall.  Each check says
# the mutation of prof that turns it red.
#   wall_reasons     --sample=wall's flat view names the waits as leaf
#                    frames: the futex by its data symbol and its holder's
#                    tid (as the program printed it), the pipe, the sleep's
#                    system call (data symbols not read, owner or syscall
#                    names left out: red)
#   wall_cpu_clean   the default (CPU) view of the same file has none of
#                    them (wall values counted as CPU: red)
#   wall_threads     --threads --sample=wall splits every thread's time by
#                    state, and the waiter's blocked time by reason
#                    (prof_thread_states not called: red)
#   wall_accounting  JSON's wall total_ticks is the samples -s says were
#                    taken plus those whose state was not read; -s gives
#                    the sampler's own CPU (unreadable rounds dropped,
#                    wall_summary not called: red)
#   wall_flame       the flame graph's legend has the off-CPU family and
#                    the pipe wait's frame is drawn (flame reading CPU: red)
#   wall_pprof       go tool pprof -sample_index=wall and =off-cpu read the
#                    profile, Type: wall by default (only CPU's sample types
#                    written, or default_sample_type fixed at cpu: red), and
#                    the lock's frame keeps its holder's name (a system_name
#                    equal to the name: pprof's demangling cut "(holder)")
#   wall_callgrind   callgrind_annotate reads one event per sample type,
#                    the asked ones first (events line fixed: red)
#   wall_missing     --sample=wall of a run without wall sampling is an
#                    error naming monrun --wall and MONPROF_WALL (the check
#                    in main.c removed: red)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
MONRUN=$B/bin/monrun
cd "$T" || exit 1
$CC -O1 -g -o truth "$ROOT/tests/progs/prof_wall_truth.c" -lpthread ||
	{ not_ok wall_build; exit 1; }
holder=$(timeout 60 "$MONRUN" --wall=200 ./truth) || { not_ok wall_run "exit $?"; exit 1; }
[ -s mon.out ] || { not_ok wall_run "no mon.out"; exit 1; }
cp mon.out wall.mon

timeout 60 "$PROF" --sample=wall ./truth >wall.txt 2>wall.err
missing=
for f in "[futex queue_lock, held by tid $holder (holder)]" "[read pipe]" "[clock_nanosleep]"; do
	grep -qF "$f" wall.txt || missing="$missing '$f'"
done
if [ -z "$missing" ] && grep -q '^ %Time Wallsecs' wall.txt; then ok wall_reasons
else not_ok wall_reasons "missing:$missing; $(head -n 3 wall.txt | tr '\n' '|')"; fi

timeout 60 "$PROF" ./truth >cpu.txt 2>/dev/null
if grep -q '^ %Time Seconds' cpu.txt && ! grep -qF '[read pipe]' cpu.txt &&
   ! grep -qF '[futex' cpu.txt; then ok wall_cpu_clean
else not_ok wall_cpu_clean "$(grep -F '[' cpu.txt | head -n 3 | tr '\n' '|')"; fi

timeout 60 "$PROF" --threads --sample=wall ./truth >threads.txt 2>/dev/null
nthr=$(grep -c '^Thread ' threads.txt)
nsplit=$(grep -c '^  wall-clock [0-9.]* s: ' threads.txt)
if [ "$nthr" -ge 3 ] && [ "$nsplit" = "$nthr" ] &&
   grep -q '^ *[0-9.]* s  *[0-9.]* %  \[read pipe\]$' threads.txt; then ok wall_threads
else not_ok wall_threads "$nthr threads, $nsplit splits"; fi

timeout 60 "$PROF" -s --format=json --sample=wall ./truth >wall.json 2>sum.err
ticks=$(sed -n 's/.*"total_ticks":\([0-9.e+]*\).*/\1/p' wall.json | head -n 1)
taken=$(sed -n 's/^wall-clock samples: \([0-9]*\) taken of [0-9]* due over the threads.* \([0-9]*\) whose state.*/\1 \2/p' sum.err)
if [ -n "$taken" ] && [ -n "$ticks" ] &&
   awk -v t="$ticks" -v s="$taken" 'BEGIN { split(s, a, " "); exit !(t == a[1] + a[2]) }' &&
   grep -q '^wall-clock sampler: .*its own thread used [0-9.]* s user + [0-9.]* s system CPU' sum.err
then ok wall_accounting
else not_ok wall_accounting "json $ticks, -s '$taken'; $(grep wall sum.err | tr '\n' '|')"; fi

timeout 60 "$PROF" --format=flame --sample=wall ./truth >wall.svg 2>/dev/null
if grep -q 'off-CPU: what a thread waited for' wall.svg && grep -qF '<title>[read pipe] (' wall.svg &&
   grep -q 'samples ([0-9.]* s of wall-clock at 200 Hz' wall.svg; then ok wall_flame
else not_ok wall_flame "$(grep -o 'samples ([^;]*' wall.svg | head -n 1)"; fi

timeout 60 "$PROF" --format=pprof --sample=wall ./truth >wall.pb.gz 2>/dev/null
if command -v go >/dev/null; then
	timeout 120 go tool pprof -top wall.pb.gz >top.txt 2>&1
	timeout 120 go tool pprof -sample_index=off-cpu -top wall.pb.gz >off.txt 2>&1
	if grep -q '^Type: wall$' top.txt && grep -qF '[read pipe]' top.txt &&
	   grep -q '^Type: off-cpu$' off.txt && grep -qF "[futex queue_lock, held by tid $holder (holder)]" off.txt; then
		ok wall_pprof
	else not_ok wall_pprof "$(grep -m1 Type top.txt) $(grep -m1 Type off.txt)"; fi
else ok "wall_pprof # skip no go (golang-go)"; fi

timeout 60 "$PROF" --format=callgrind --sample=offcpu ./truth >cg.out 2>/dev/null
if command -v callgrind_annotate >/dev/null; then
	timeout 120 callgrind_annotate cg.out >cga.txt 2>&1
	if grep -q '^Events recorded: *OffCPU_samples OffCPU_ns Samples CPU_ns Wall_samples Wall_ns$' cga.txt &&
	   grep -qF '[read pipe]' cga.txt; then ok wall_callgrind
	else not_ok wall_callgrind "$(grep -m1 Events cga.txt)"; fi
else ok "wall_callgrind # skip no callgrind_annotate (valgrind)"; fi

rm -f mon.out
timeout 60 "$MONRUN" ./truth >/dev/null || { not_ok wall_missing "run: exit $?"; exit 1; }
timeout 60 "$PROF" --sample=wall ./truth >miss.txt 2>miss.err
rc=$?
if [ "$rc" = 1 ] && [ ! -s miss.txt ] && grep -q 'no wall-clock samples' miss.err &&
   grep -q "monrun --wall" miss.err && grep -q MONPROF_WALL miss.err; then ok wall_missing
else not_ok wall_missing "exit $rc: $(cat miss.err)"; fi
