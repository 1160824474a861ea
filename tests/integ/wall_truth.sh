#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Wall-clock sampling against the truth: tests/progs/wall_truth.c's six
# threads (on the CPU, a mutex another thread holds, one long nanosleep, a
# blocking pipe read, epoll_wait with 2 ms timeouts, a condition variable;
# then each sleeps for a time of its own, outside its phase) time their phases with CLOCK_MONOTONIC and their CPU with the thread CPU
# clock, built -O2 -fomit-frame-pointer, run under monrun --wall=250.
#   wall_truth_record      the profile has a WALL record at 250 Hz, every worker in it
#   wall_truth_share       each phase's share of the workers' wall time within
#                          2 pp of its measured share (each thread's samples
#                          weighed up to its expected count: rounds the sampler
#                          was late for are the record's, not the program's)
#   wall_truth_offcpu      each phase's share of the off-CPU time (every state
#                          but running) within 2 pp of its measured share
#                          (phase time minus its CPU time)
#   wall_truth_stacks      >= 95 % of each blocked thread's wall samples reach
#                          its start function
#   wall_truth_reasons     the mutex wait names queue_lock (a symbol of the
#                          program's data) and the thread holding it; the
#                          pipe read a pipe, epoll_wait an epoll descriptor,
#                          the sleep clock_nanosleep, the condition wait a
#                          futex in ready_cond
#   wall_truth_condvar     the condition wait's futex is flagged a pthread_cond_t
#                          (WAIT flag 4), no other thread's wait is
#   wall_truth_join        main's waits in pthread_join are flagged join (WAIT flag
#                          8) with a worker's tid as owner; no worker's samples
#                          are in a wait so flagged (a wait no sample names
#                          is no thread's: one found blocked at a short join
#                          and counted on a CPU, time_pick, has none)
#   wall_truth_prof        prof --sample=wall --format=folded (profsample's views) shows
#                          the mutex thread's samples under start_mutex ending in
#                          [futex queue_lock, held by tid HOLDER (NAME)]
#   wall_truth_prof_reasons  ... the condition thread's under start_cond ending in
#                          [futex condvar ready_cond], main's in [join tid WORKER]
#   wall_truth_cpu         the CPU profile of the same run keeps its accuracy:
#                          each phase's share of the CPU samples in the phases
#                          (prof's folded stacks) within 1.5 pp of its share of
#                          the CPU the threads used in them (their CPU clocks;
#                          a waiting phase's, mostly system time, which the
#                          perf clock does not sample, from none of it to all)
# Mutations: the R split taken as always running (split_running) fails
# wall_truth_offcpu; mon_unwind replaced by the PC alone fails
# wall_truth_stacks; no owner read (describe_futex) fails wall_truth_reasons;
# is_condvar always 0 fails wall_truth_condvar and wall_truth_prof_reasons,
# always 1 fails wall_truth_condvar (the mutex, the barrier); is_join
# always 0 fails wall_truth_join and wall_truth_prof_reasons; wall samples
# counted as CPU ones fails wall_truth_cpu.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wall_lib.inc"

wall_run_omitfp truth 250 120 1200
cat "$T/wall.txt"

# One awk over the program's truth and the record; prints "check NAME ok|why".
awk '
FNR == NR {
	if ($1 == "thread") { name[$4] = $2; life[$4] = $6; ph[$4] = $8; pcpu[$4] = $10; n++ }
	if ($1 == "holder") holder = $2
	next
}
$1 == "wall" { have = $2; rate = $4 }
$1 == "thread" { expct[$2] = $6; taken[$2] = $8 }
$1 == "wait" { wkind[$2] = $4; fdk[$2] = $8; wsym[$2] = $12; wowner[$2] = $16; wflags[$2] = $18; wtext[$2] = $NF }
$1 == "sample" {
	tid = $4
	if (!(tid in name)) { if ($10 >= 0) joins[$10] += $2; next }
	c = $2; st = $6; sc = $8; w = $10; fr = $NF
	all[tid] += c
	inph = st == "running" || st == "runnable" || index(fr, "phase_" name[tid])
	if (inph) phase[tid] += c
	if (inph && st != "running") off[tid] += c
	if (st != "running" && st != "runnable") {
		blocked[tid] += c
		if (index(fr, "start_" name[tid])) reach[tid] += c
		sys[tid, sc] += c
		if (w >= 0) waits[tid, w] += c
	}
}
function abs(x) { return x < 0 ? -x : x }
END {
	bad = ""
	if (have != 1 || rate != 250) bad = "no WALL record at 250 Hz"
	for (t in name) if (!(t in all)) bad = bad " no samples of " name[t]
	print "check wall_truth_record " (bad == "" ? "ok" : bad)
	# wall shares, each thread weighed to its expected count
	tl = 0; tw = 0; to = 0; tot = 0
	for (t in name) {
		k = taken[t] > 0 ? expct[t] / taken[t] : 0
		W[t] = phase[t] * k; O[t] = off[t] * k
		tw += all[t] * k; to += O[t]; tl += life[t]; tot += ph[t] - pcpu[t]
	}
	bad = ""; bado = ""
	for (t in name) {
		m = tw ? 100 * W[t] / tw : 0; want = 100 * ph[t] / tl
		printf "# %-6s wall %.2f %% (truth %.2f %%)", name[t], m, want
		if (abs(m - want) > 2) bad = bad sprintf(" %s %.2f vs %.2f", name[t], m, want)
		m = to ? 100 * O[t] / to : 0; want = tot ? 100 * (ph[t] - pcpu[t]) / tot : 0
		printf "  off-CPU %.2f %% (truth %.2f %%)\n", m, want
		if (abs(m - want) > 2) bado = bado sprintf(" %s %.2f vs %.2f", name[t], m, want)
	}
	print "check wall_truth_share " (bad == "" ? "ok" : bad)
	print "check wall_truth_offcpu " (bado == "" ? "ok" : bado)
	bad = ""
	for (t in name) {
		if (name[t] == "cpu") continue
		f = blocked[t] ? reach[t] / blocked[t] : 0
		printf "# %-6s %d of %d blocked samples reach start_%s\n", name[t], reach[t], blocked[t], name[t]
		if (f < 0.95) bad = bad sprintf(" %s %.3f", name[t], f)
	}
	print "check wall_truth_stacks " (bad == "" ? "ok" : bad)
	bad = ""
	for (t in name) {
		nm = name[t]; best = -1; bc = 0
		for (k in waits) { split(k, p, SUBSEP); if (p[1] == t && waits[k] > bc) { bc = waits[k]; best = p[2] } }
		if (nm == "mutex" && !(best >= 0 && wsym[best] == "queue_lock" && wowner[best] == holder))
			bad = bad " mutex: lock " (best >= 0 ? wsym[best] " owner " wowner[best] : "none") " (holder " holder ")"
		if (nm == "pipe" && !(best >= 0 && fdk[best] == 2 && sys[t, "read"] > 0))
			bad = bad " pipe: no read of a pipe"
		if (nm == "epoll" && !(best >= 0 && fdk[best] == 6 && sys[t, "epoll_wait"] > 0))
			bad = bad " epoll: no epoll_wait on an epoll descriptor"
		if (nm == "cond" && !(best >= 0 && wkind[best] == 2 && wsym[best] == "ready_cond"))
			bad = bad " cond: no futex in ready_cond"
		if (nm == "mutex" && best >= 0 && int(wflags[best] / 4) % 2)
			bad = bad " mutex: its lock taken for a condition variable"
		if (nm == "sleep" && !(sys[t, "clock_nanosleep"] + sys[t, "nanosleep"] > 0.95 * blocked[t]))
			bad = bad " sleep: not in nanosleep"
	}
	print "check wall_truth_reasons " (bad == "" ? "ok" : bad)
	# the condition wait flagged as one (a pthread_cond_t by its layout), nothing else
	bad = ""
	for (t in name) {
		nm = name[t]
		for (k in waits) {
			split(k, p, SUBSEP)
			if (p[1] != t) continue
			cv = int(wflags[p[2]] / 4) % 2
			if (nm == "cond" && wsym[p[2]] == "ready_cond" && !cv) bad = bad " ready_cond not flagged"
			if (nm != "cond" && cv) bad = bad " " nm ": wait " p[2] " flagged a condition variable"
		}
	}
	print "check wall_truth_condvar " (bad == "" ? "ok" : bad)
	# main joins the workers: waits flagged join (8) whose owner is a worker
	bad = ""; nj = 0
	for (w in joins) {
		if (int(wflags[w] / 8) % 2 == 0) continue
		nj += joins[w]
		if (!(wowner[w] in name)) bad = bad " join of tid " wowner[w] ", not a worker"
	}
	# a worker with samples in a wait flagged join (a wait no sample names is
	# none of its: a thread found blocked there, counted on a CPU by time_pick)
	for (k in waits) {
		split(k, p, SUBSEP)
		if (int(wflags[p[2]] / 8) % 2) bad = bad " join wait " p[2] " of worker " name[p[1]]
	}
	if (nj == 0) bad = bad " no join samples in main"
	print "check wall_truth_join " (bad == "" ? "ok" : bad)
}' "$T/truth.out" "$T/wall.txt" >"$T/checks"
cat "$T/checks" | grep '^#'
if [ $rc -ne 0 ]; then
	not_ok wall_truth_run "exit $rc"
else
	ok wall_truth_run
fi
for c in wall_truth_record wall_truth_share wall_truth_offcpu wall_truth_stacks wall_truth_reasons \
    wall_truth_condvar wall_truth_join; do
	r=$(awk -v c="$c" '$1 == "check" && $2 == c { $1 = $2 = ""; sub(/^  /, ""); print }' "$T/checks")
	if [ "$r" = ok ]; then ok "$c"
	else
		case $c in
		wall_truth_share | wall_truth_offcpu | wall_truth_stacks)
			wall_san_not_ok "$c" "${r:-not checked}" "the sanitizer's interceptors of read and nanosleep are built with frame pointers, and a blocked thread's walk starts from the SP and PC /proc gives, without its frame pointer, so it ends in them" ;;
		*) not_ok "$c" "${r:-not checked}" ;;
		esac
	fi
done
holder=$(awk '$1 == "holder" { print $2 }' "$T/truth.out")
"$B/bin/prof" --sample=wall --format=folded -m "$T/truth.mon" "$T/truth" >"$T/folded" 2>"$T/folded.err"
n=$(awk -v h="[futex queue_lock, held by tid $holder" \
	'index($0, "start_mutex;") && (index($0, h "]") || index($0, h " (")) { n += $NF } END { print n + 0 }' "$T/folded")
if [ "$n" -ge 250 ]; then ok wall_truth_prof
else not_ok wall_truth_prof "$n samples of start_mutex on queue_lock held by $holder: $(grep start_mutex "$T/folded" | head -n 2)"; fi
# The condition wait and the joins as their own reasons in prof's stacks.
cv=$(awk 'index($0, "start_cond;") && index($0, "[futex condvar ready_cond]") { n += $NF } END { print n + 0 }' "$T/folded")
jn=$(awk 'FNR == NR { if ($1 == "thread") w["[join tid " $4 "]"] = 1; next }
	{ l = $0; sub(/ [0-9.]+$/, "", l); n = split(l, f, ";"); sub(/ \([^)]*\)\]$/, "]", f[n])
	  if (index(l, ";main;") && (f[n] in w)) s += $NF }
	END { print s + 0 }' "$T/truth.out" "$T/folded")
if [ "$cv" -ge 250 ] && [ "$jn" -ge 50 ]; then ok wall_truth_prof_reasons
else wall_san_not_ok wall_truth_prof_reasons "$cv samples of start_cond in [futex condvar ready_cond], $jn of main in [join tid WORKER]: $(grep -E 'start_cond|join' "$T/folded" | head -n 3)" \
    "the sanitizer's interceptors (nanosleep, read) are built with frame pointers, and a blocked thread's walk starts from the SP and PC /proc gives, without its frame pointer, so it ends in them"; fi
# The CPU profile of the same run: each phase's share of the CPU samples in
# the phases against its share of the CPU the threads used in them (their
# CPU clocks).  The perf clock samples user time only (FACTS flag 2,
# docs/reliability.md section 6), and the waiting phases' CPU is mostly
# system time: a waiting phase's truth is anywhere from none of its CPU to
# all of it, phase_cpu's (user time) from its share of all the phases' CPU
# to all of it.  Bound: 1.5 pp, and two samples' worth of the run's own
# count.
"$B/bin/prof" --format=folded -m "$T/truth.mon" "$T/truth" >"$T/cpu.folded" 2>"$T/cpu.err"
r=$(awk 'FNR == NR { if ($1 == "thread") { cpu["phase_" $2] = $10; all += $10 }; next }
	{
		n = $NF; l = $0; sub(/ [0-9.]+$/, "", l); k = split(l, f, ";")
		# the innermost phase frame, without the suffix of a copy (phase_cpu.constprop.0)
		for (i = k; i >= 1; i--) { g = f[i]; sub(/\..*/, "", g); if (g in cpu) { got[g] += n; tot += n; break } }
	}
	END {
		if (tot == 0 || all == 0) { print "no CPU samples in the phases (" tot ") or no CPU in them (" all " us)"; exit }
		slack = 1.5 + 200 / tot; c = cpu["phase_cpu"]
		bad = ""; s = ""
		for (p in cpu) {
			m = 100 * got[p] / tot
			if (p == "phase_cpu") { lo = 100 * c / all; hi = 100 }
			else { lo = 0; hi = 100 * cpu[p] / (c + cpu[p]) }
			s = s sprintf(" %s %.2f (%.2f..%.2f)", p, m, lo, hi)
			if (m < lo - slack || m > hi + slack) bad = bad sprintf(" %s %.2f not in %.2f..%.2f", p, m, lo, hi)
		}
		printf "%s %d CPU samples in the phases, %d us of CPU, bound %.2f pp:%s\n", bad == "" ? "ok" : "off" bad " --", tot, all, slack, s
	}' "$T/truth.out" "$T/cpu.folded")
echo "# $r"
case $r in
ok*) ok wall_truth_cpu ;;
*) not_ok wall_truth_cpu "$r" ;;
esac
