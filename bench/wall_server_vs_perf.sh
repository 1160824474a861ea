#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/wall_server_vs_perf.sh [BUILD] — on a real server under load, do
# monprof's wall-clock profile and perf, run as root, name the same blocking
# call sites (issue 20: "the top blocking call sites agree with perf's view
# of the same workload")?  One run seen by both at once:
#   - perf record -a of sched:sched_switch and sched:sched_wakeup, filtered to
#     the server's threads (by their names: redis-server, bio_*,
#     jemalloc_bg_thd, io_thd_*), --call-graph dwarf, from before the server
#     starts to after it ends;
#   - Debian's redis-server (127.0.0.1, a free port, no persistence) under
#     monrun --wall=250 (the CPU clock beside it), loaded for SECONDS
#     (default 10) by redis-benchmark (GET and SET, CLIENTS clients, default
#     4: a load that leaves the event loop waiting part of the time), then
#     shut down.
# Blocked time, as bench/wall_vs_perf.sh counts it: perf's from a thread's
# switch-out asleep (S or D) to its wake-up; monprof's its blocked wall
# samples (prof --sample=offcpu, the runnable ones left out) / 250 Hz.  Each
# charged to the deepest frame of the blocked stack that is a function of
# redis-server (its dynamic symbol table names 4000 functions: Debian
# builds it -rdynamic) — the blocking call site.  Prints both tables of
# sites side by side and the largest difference in percentage points.  Needs
# root and perf (linux-perf), redis-server and redis-tools (installed with
# apt-get when absent).  Not part of make check.
. "$(dirname "$0")/lib.sh"
SECONDS_LOAD=${SECONDS:-10}
CLIENTS=${CLIENTS:-4}
[ "$(id -u)" = 0 ] || die "needs root (perf record of sched:sched_switch)"
command -v perf >/dev/null 2>&1 || need_tools linux-perf
command -v redis-server >/dev/null 2>&1 && command -v redis-benchmark >/dev/null 2>&1 ||
	need_tools redis-server redis-tools
PORT=${PORT:-$((20000 + $$ % 10000))}
SERVER=$(readlink -f "$(command -v redis-server)")
nm -D --defined-only "$SERVER" | awk '$2 ~ /^[tT]$/ { print $3 }' >"$W/funcs"

F='prev_comm == "redis-server" || prev_comm ~ "bio_*" || prev_comm == "jemalloc_bg_thd" || prev_comm ~ "io_thd_*"'
F="$F"' || next_comm == "redis-server" || next_comm ~ "bio_*" || next_comm == "jemalloc_bg_thd" || next_comm ~ "io_thd_*"'
FW='comm == "redis-server" || comm ~ "bio_*" || comm == "jemalloc_bg_thd" || comm ~ "io_thd_*"'
perf record -q -a -e sched:sched_switch --filter "$F" -e sched:sched_wakeup --filter "$FW" \
	--call-graph dwarf,16384 -m 8192 -o "$W/perf.data" >"$W/perf.out" 2>&1 &
perf_pid=$!
sleep 2
cd "$W" || exit 1
timeout 300 "$MONRUN" --wall=250 -o "$W/redis.mon" redis-server --port "$PORT" --bind 127.0.0.1 \
	--save '' --appendonly no --protected-mode no >"$W/server.log" 2>&1 &
server=$!
for i in $(seq 100); do
	redis-cli -p "$PORT" ping >/dev/null 2>&1 && break
	sleep 0.1
done
end=$(($(date +%s) + SECONDS_LOAD))
reqs=0
while [ "$(date +%s)" -lt "$end" ]; do
	timeout 120 redis-benchmark -h 127.0.0.1 -p "$PORT" -n 20000 -c "$CLIENTS" -t get,set -q \
		>/dev/null 2>&1
	reqs=$((reqs + 40000))
done
redis-cli -p "$PORT" shutdown nosave >/dev/null 2>&1
wait "$server"
sleep 1
kill -INT "$perf_pid"
wait "$perf_pid"
echo "# redis-server under monrun --wall=250, $reqs requests from redis-benchmark -c $CLIENTS over $SECONDS_LOAD s; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
perf script -i "$W/perf.data" -F comm,tid,time,event,trace,ip,sym,dso 2>/dev/null >"$W/perf.txt" ||
	die "perf script"
# comm tid time: sched:sched_switch: prev_comm=.. prev_pid=P .. prev_state=S ==> .. next_pid=N ..
# then the stack, leaf first: "ADDR SYM (DSO)"; a blank line ends an event.
awk -v prog="$SERVER" 'FNR == NR { fn[$1] = 1; next }
function flush() {
	if (ev == "") return
	if (out_comm != "" && out_state ~ /^[SD]/) { since[out_pid] = t; site[out_pid] = first == "" ? "[no_program_frame]" : first }
	if (in_pid in since) { blocked[site[in_pid]] += t - since[in_pid]; delete since[in_pid] }
	ev = ""
}
/sched:sched_wakeup:/ {
	flush()
	for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i; sub(/:$/, "", t) }
	for (i = 1; i <= NF; i++) if ($i ~ /^pid=/) w = substr($i, 5)
	if (w in since) { blocked[site[w]] += t - since[w]; delete since[w] }
	next
}
/sched:sched_switch:/ {
	flush(); ev = 1; first = ""; in_pid = -1; out_comm = ""
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i; sub(/:$/, "", t) }
		if ($i ~ /^prev_comm=/) { c = substr($i, 11); if (c == "redis-server" || c ~ /^(bio_|io_thd_)/ || c == "jemalloc_bg_thd") out_comm = c }
		if ($i ~ /^prev_pid=/) { out_pid = substr($i, 10) }
		if ($i ~ /^prev_state=/) { out_state = substr($i, 12) }
		if ($i ~ /^next_pid=/) { in_pid = substr($i, 10) }
	}
	next
}
ev != "" && NF >= 3 && first == "" && $NF == "(" prog ")" { g = $2; sub(/\+0x.*/, "", g); if (g in fn) first = g }
END {
	flush()
	for (s in blocked) tot += blocked[s]
	for (s in blocked) printf "%s %.6f %.2f\n", s, blocked[s], 100 * blocked[s] / tot
}' "$W/funcs" "$W/perf.txt" | sort -k2,2nr >"$W/perf.sites"

"$PROF" --sample=offcpu --format=folded "$W/redis.mon" 2>"$W/prof.err" >"$W/folded" || die "prof: $(head -n 3 "$W/prof.err")"
blocked_sites "$W/funcs" "$W/folded" 250 >"$W/mon.sites"

echo "# blocking call sites (deepest redis-server frame of the blocked stack): share of blocked time"
echo "# site                         perf-s   perf-%   monprof-s  monprof-%   difference-pp"
sites_side_by_side "$W/perf.sites" "$W/mon.sites" 28 0.1
grep -i "warn\|missed\|lost" "$W/prof.err" | head -n 5
# perf's own losses: a busy machine (other processes switching) overflows
# its buffers, and a lost switch-out leaves a thread's blocked time out.
perf report -i "$W/perf.data" --stats 2>/dev/null | awk '/LOST/ { n += $3 }
	END { if (n) printf "# perf lost %d events or samples (perf report --stats): its side is incomplete; run again on a quieter machine\n", n }'
