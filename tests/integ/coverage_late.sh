#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Late ticks of the thread clock (THREADS' late count, prof's late-ticks
# warning).  The thread clock's CPU-time timer is looked at only at the
# kernel's tick, on the thread then running, and its signal waits while
# the thread blocks it; the tick that finally arrives stands for every
# period since (its overrun is weight) and charges them all to one place.
# Measured on 2 CPUs with two busy loops beside a thread reading /dev/zero
# for 0.25 s of CPU, then spinning as long: 8-51 ticks a phase, most
# standing for more than 20 ms, and 108-354 samples a phase for 250 each.
# Nothing here depends on the machine's load: tests/progs/late_ticks.c
# blocks every signal by the raw rt_sigprocmask call for half its CPU
# (held_spin), so that the timer's signal waits for the unblock.
#   late_counted       under monrun -c thread, the file's late count (mon_dump
#                      "thread_late TID N") is at least half of held_spin's periods
#                      (its CPU x the rate) and at most the thread's samples
#   late_said          prof warns "P % of the samples (L of S) came in late
#                      ticks", L the file's count, and names the thread
#   late_json          the warning's code in --format=json: "late-ticks"
#   late_quiet_under   a crafted profile of the thread clock with 20 late of
#                      500 samples (4 %): no such warning; 300 of 500: the
#                      warning, with "60 %" and the thread named
# (Which ticks are late, at any rate: tests/unit/test_sampler.c late_rule.)
# Mutations: the sampler never counting a tick late (lib/sampler.c):
# late_counted and late_said fail; the threshold share at 1.0: late_said
# and late_quiet_under fail.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"
. "$(dirname "$0")/mon_helpers.inc"

cd "$T" || exit 1
build_plain late late_ticks.c && build_dump || { not_ok late_build; exit 0; }
timeout 60 "$MONRUN" -c thread -r 1000 -o l.mon "$T/late" >l.out 2>l.err
rc=$?
cat l.out l.err
[ $rc = 0 ] || { not_ok late_run "exit $rc"; exit 0; }
held=$(awk '$1 == "held_spin" { print $2 }' l.out)
set -- $("$T/mon_dump" l.mon info | awk '$1 == "rate" { r = $2 } $1 == "thread" { s += $9 } $1 == "thread_late" { l += $3 }
	END { print r + 0, s + 0, l + 0 }')
rate=${1:-0} samples=${2:-0} late=${3:-0}
want=$(awk -v h="$held" -v r="$rate" 'BEGIN { printf "%d", h * r / 2 }')
if [ "$late" -ge "$want" ] && [ "$late" -le "$samples" ] && [ "$want" -gt 0 ]; then
	ok "late_counted # $late late of $samples samples, held_spin $held s at $rate Hz"
else
	not_ok late_counted "late $late, samples $samples, want >= $want (held_spin $held s at $rate Hz)"
fi
"$PROF" -m l.mon "$T/late" >/dev/null 2>l.warn
cat l.warn
if grep -q "^prof: warning: [0-9]* % of the samples ($late of $samples) came in late ticks, each standing for more than 20 ms of a thread's CPU; most in late (tid [0-9]*, $late of $samples): .*monrun -c perf" l.warn; then
	ok late_said
else
	not_ok late_said "$(grep 'late' l.warn | head -c 300)"
fi
"$PROF" -m l.mon --format=json "$T/late" >l.json 2>/dev/null
grep -q '"code":"late-ticks"' l.json
if [ $? -eq 0 ]; then ok late_json; else not_ok late_json; fi

# Crafted: the thread clock (-C 2), 500 samples, 20 or 300 of them late.
build_prog_static craft prof_craft.c -I"$ROOT/format" || { not_ok late_craft_build; exit 0; }
as --64 -o golden.o "$ROOT/tests/golden/golden.s" 2>/dev/null &&
	ld -static -nostdlib -Ttext=0x401000 -o golden golden.o 2>/dev/null || { not_ok late_golden_build; exit 0; }
for n in 20 300; do
	./craft c$n.mon -C 2 -o "golden:0:0x401000:0x401140:1" -h 0x401000:0x401140:0x8000:80 -b 4:500 \
		-E 1000000:1700000000:100 -U 100:500:500000:0:2:worker:$n || not_ok late_craft_$n
	"$PROF" -m c$n.mon ./golden >/dev/null 2>c$n.err
done
cat c20.err c300.err
if ! grep -q 'late ticks' c20.err &&
   grep -q "^prof: warning: 60 % of the samples (300 of 500) came in late ticks, .*; most in worker (tid 100, 300 of 500): " c300.err; then
	ok late_quiet_under
else
	not_ok late_quiet_under "$(cat c20.err c300.err | head -c 400)"
fi
