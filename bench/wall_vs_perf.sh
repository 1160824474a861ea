#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/wall_vs_perf.sh [BUILD] — do monprof's wall-clock profile and perf,
# run as root, name the same blocking call sites (issue 20)?
# The workload is tests/progs/wall_truth.c (six threads: on the CPU, a mutex
# another holds, a long nanosleep, a pipe read, epoll_wait with 2 ms
# timeouts, a condition wait, then sleeps of their own), built -O2 -g, run
# twice (MS milliseconds a phase, default 1500):
#   perf   perf record -a -e sched:sched_switch --call-graph dwarf (filtered
#          to the program's switches): each time a
#          thread is switched out asleep (prev_state S or D) until it is
#          woken (sched:sched_wakeup; else switched in) is blocked time (the
#          wait for a CPU after the wake-up is not: monprof's runnable samples
#          are left out too), charged to the first frame of
#          the program in the switch-out's user stack (the blocking call
#          site); what offcputime-style tools (and perf sched timehist's wait
#          time) measure
#   monrun monrun --wall=250: prof --sample=offcpu --format=folded, the
#          runnable samples left out (blocked time only), each stack charged
#          to its deepest frame that is a function of the program
# Prints both tables of call sites by share of blocked time, side by side,
# and the largest difference in percentage points.  Needs root (perf's
# tracepoints) and perf (Debian's linux-perf: installed with apt-get when
# absent).  Not part of make check.
. "$(dirname "$0")/lib.sh"
MS=${MS:-1500}
[ "$(id -u)" = 0 ] || die "needs root (perf record of sched:sched_switch)"
command -v perf >/dev/null 2>&1 || need_tools linux-perf
# A name of its own: other programs called "truth" may run meanwhile (the
# tests), and perf's filter is by command name.
P=wallperf_truth
$CC -O2 -g -o "$W/$P" "$ROOT/tests/progs/wall_truth.c" -lpthread || die "build"
nm --defined-only "$W/$P" | awk '$2 ~ /^[tT]$/ { print $3 }' >"$W/funcs"

# System-wide (-a): a thread's switch-in is recorded in the context of the
# task it replaces, mostly not the program's; filtered to the program's
# switches (its threads all have its command name).
perf record -q -a -e sched:sched_switch \
	--filter "prev_comm == \"$P\" || next_comm == \"$P\"" \
	-e sched:sched_wakeup --filter "comm == \"$P\"" \
	--call-graph dwarf,16384 -o "$W/perf.data" -- "$W/$P" "$MS" >"$W/perf.out" 2>&1 ||
	die "perf record"
perf script -i "$W/perf.data" -F tid,time,event,trace,ip,sym,dso 2>/dev/null >"$W/perf.txt" ||
	die "perf script"
# tid time: sched:sched_switch: prev_comm=.. prev_pid=P .. prev_state=S ==> .. next_pid=N ..
# then the stack, leaf first: "ADDR SYM (DSO)"; a blank line ends an event.
awk -v prog="$W/$P" -v comm="$P" '
function flush() {
	if (ev == "") return
	if (out_comm == comm && out_state ~ /^[SD]/) { since[out_pid] = t; site[out_pid] = first == "" ? "[no_program_frame]" : first }
	if (in_pid in since) { blocked[site[in_pid]] += t - since[in_pid]; delete since[in_pid] }
	ev = ""
}
/sched:sched_wakeup:/ {
	flush()
	t = $2; sub(/:$/, "", t)
	for (i = 1; i <= NF; i++) if ($i ~ /^pid=/) w = substr($i, 5)
	if (w in since) { blocked[site[w]] += t - since[w]; delete since[w] }
	next
}
/sched:sched_switch:/ {
	flush(); ev = 1; first = ""; in_pid = -1
	t = $2; sub(/:$/, "", t)
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^prev_comm=/) { out_comm = substr($i, 11) }
		if ($i ~ /^prev_pid=/) { out_pid = substr($i, 10) }
		if ($i ~ /^prev_state=/) { out_state = substr($i, 12) }
		if ($i ~ /^next_pid=/) { in_pid = substr($i, 10) }
	}
	next
}
ev != "" && NF >= 3 && first == "" && $NF == "(" prog ")" { first = $2; sub(/\+0x.*/, "", first) }
END {
	flush()
	for (s in blocked) tot += blocked[s]
	for (s in blocked) printf "%s %.6f %.2f\n", s, blocked[s], 100 * blocked[s] / tot
}' "$W/perf.txt" | sort -k2,2nr >"$W/perf.sites"

"$MONRUN" --wall=250 -o "$W/w.mon" "$W/$P" "$MS" >"$W/w.out" 2>&1 || die "monrun"
"$PROF" --sample=offcpu --format=folded -m "$W/w.mon" "$W/$P" 2>/dev/null >"$W/folded" ||
	die "prof"
blocked_sites "$W/funcs" "$W/folded" 250 >"$W/mon.sites"

echo "# blocking call sites (first program frame of the blocked stack): share of blocked time"
echo "# site                perf-s   perf-%   monprof-s  monprof-%   difference-pp"
sites_side_by_side "$W/perf.sites" "$W/mon.sites" 20 0
awk '$1 == "[no_program_frame]" && $3 > 10 {
	printf "# perf: %.0f %% of the blocked time has no frame of the program (its DWARF unwinding of the copied user stacks stopped in the C library): run again\n", $3 }' "$W/perf.sites"
