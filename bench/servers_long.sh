#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/servers_long.sh [BUILD] [SECONDS] [SERVER...] — real servers under
# monrun -f --interval=10 for SECONDS each (default 600), at a light load,
# checked for correctness (issue 22, item 8).  Not part of make check.
#
# SERVER is one of nginx, pgC, pg8, redis (default: all four, one after
# the other):
#   nginx  Debian's nginx, foreground (daemon off), 2 worker processes, its
#          own prefix and configuration in a temporary directory, a loopback
#          port; ab -c 2 -n 300 then 1 s of sleep, in a loop; nginx -s reload
#          at a third of the run, kill -9 of one worker at half, nginx -s quit
#          at the end;
#   pgC    PostgreSQL 15 (initdb as nobody, postgres -D -k SOCKDIR -p PORT in
#          the foreground), pgbench -i, then pgbench -C -c 2 -R 10 (a new
#          connection, hence a new backend, per transaction); SIGHUP (reload)
#          at a third; SIGTERM (smart shutdown) at the end;
#   pg8    the same with pgbench -c 8 -j 2 -R 50;
#   redis  redis-server --save '' --appendonly no, redis-benchmark -c 2
#          -n 2000 then 1 s of sleep, in a loop; SIGTERM at the end.
# Each is run three more times: once without the profiler for PLAIN_SECS
# (default 60) with the same steps, and twice (profiled, then not) for
# KILL_SECS (default 45) ending with kill -9 of every process of the server
# at once.  Checks, one PASS/FAIL line each, with the numbers:
#   files   every interval file reads (tests/progs/mon_dump.c, exit 0) and
#           prof reads each alone (exit 0; at most PROF_MAX files, default
#           100, spread evenly, when there are more: a PostgreSQL file takes
#           prof most of a second);
#   merge   prof --merge --output of all the files: its samples and
#           histogram ticks equal the sums of the files';
#   stop    the graceful stop's exit status equals the unprofiled one's;
#   reload  (nginx) the old workers exit and new ones start, as unprofiled;
#           each old worker's last interval is written (flag LAST), each new
#           worker has files;
#   worker  (nginx) the master restarts a worker killed with -9, as
#           unprofiled; the killed worker's last file ends at most
#           INTERVAL + 2 s before the kill;
#   kill9   the server killed with -9: exit status as unprofiled; its files
#           read; each process that lived 15 s before the kill has a last
#           file ending at most INTERVAL + 2 s before it;
#   log     the server's log has no error or warning line (numbers masked)
#           that the unprofiled run's has not; no line of the profiler's in
#           the run stopped gracefully, and in the kill run exactly one: the
#           notice that the killed process ended without writing its last
#           interval (its watcher's, lib/control.c).
. "$(dirname "$0")/lib.sh"
SECS=${2:-600}
[ $# -ge 2 ] && shift 2 || shift $#
SERVERS=${*:-nginx pgC pg8 redis}
PLAIN_SECS=${PLAIN_SECS:-60}
KILL_SECS=${KILL_SECS:-45}
PROF_MAX=${PROF_MAX:-100}
IV=10
PORT=${PORT:-$((20000 + $$ % 20000))}
PGBIN=/usr/lib/postgresql/15/bin
chmod 755 "$W"
$CC -O1 -g -I"$ROOT/format" -o "$W/mon_dump" "$ROOT/tests/progs/mon_dump.c" \
	"$ROOT"/format/*.c || die "build mon_dump"
: >"$W/pids"

cleanup() {
	for p in $(cat "$W/pids" 2>/dev/null); do kill -9 -- "-$p" 2>/dev/null; done
	for f in "$W"/load.*.pid; do [ -e "$f" ] && kill "$(cat "$f")" 2>/dev/null; done
	[ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$W"
}
trap cleanup EXIT

say() { echo "$*"; }
check() { # check NAME COND-STATUS TEXT
	if [ "$2" = 0 ]; then say "PASS $1: $3"; else say "FAIL $1: $3"; fi
}
now_ns() { date +%s%N; }
kids() { ps -o pid= --ppid "$1" 2>/dev/null | tr -d ' ' | sort -n; }
# run in the background until the file $W/stop.$1 exists; the loop's pid
# in $W/load.$1.pid
loop_bg() {
	tag=$1; shift
	rm -f "$W/stop.$tag"
	(while [ ! -e "$W/stop.$tag" ]; do "$@"; done) >>"$W/load.$tag.out" 2>&1 &
	echo $! >"$W/load.$tag.pid"
}
loop_stop() {
	touch "$W/stop.$1"
	wait "$(cat "$W/load.$1.pid")" 2>/dev/null
	rm -f "$W/load.$1.pid"
}

# --- the servers: start (foreground, in a session of its own: PGID = pid),
# wait ready, load, steps, graceful stop ---
# start MODE DIR CMD...: MODE prof runs CMD under monrun -f --interval
# (after $PRE, a command that execs its arguments, if set); sets SPID
start() {
	mode=$1 dir=$2; shift 2
	mkdir -p "$dir/p" && chmod 1777 "$dir/p"
	if [ "$mode" = prof ]; then
		# shellcheck disable=SC2086
		PROFDIR=$dir/p setsid $PRE "$MONRUN" -f --interval=$IV "$@" >>"$dir/server.log" 2>&1 &
	else
		# shellcheck disable=SC2086
		setsid $PRE "$@" >>"$dir/server.log" 2>&1 &
	fi
	SPID=$!
	echo "$SPID" >>"$W/pids"
}

nginx_conf() { # nginx_conf DIR
	mkdir -p "$1/conf" "$1/logs" "$1/html" "$1/tmp"
	head -c 4096 /dev/zero | tr '\0' x >"$1/html/index.html"
	cat >"$1/conf/nginx.conf" <<EOF
worker_processes 2;
error_log $1/logs/error.log notice;
pid $1/logs/nginx.pid;
events { worker_connections 64; }
http {
	access_log off;
	client_body_temp_path $1/tmp/body;
	proxy_temp_path $1/tmp/proxy;
	fastcgi_temp_path $1/tmp/fastcgi;
	uwsgi_temp_path $1/tmp/uwsgi;
	scgi_temp_path $1/tmp/scgi;
	server { listen 127.0.0.1:$PORT; root $1/html; }
}
EOF
}
nginx_up() {
	for _i in $(seq 100); do
		curl -sf -o /dev/null "http://127.0.0.1:$PORT/index.html" && return 0
		sleep 0.2
	done
	return 1
}
pg_up() {
	for _i in $(seq 150); do
		"$PGBIN/pg_isready" -q -h "$1/sock" -p "$PORT" -U pg -d postgres && return 0
		sleep 0.2
	done
	return 1
}
redis_up() {
	for _i in $(seq 100); do
		redis-cli -p "$PORT" ping >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

PGTEMPLATE= PRE=
pg_template() {
	[ -n "$PGTEMPLATE" ] && return 0
	PGTEMPLATE=$W/pgtemplate
	mkdir -p "$PGTEMPLATE" && chown nobody "$PGTEMPLATE"
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$PGBIN/initdb" -D "$PGTEMPLATE" \
		-U pg --auth=trust >"$W/initdb.log" 2>&1 || die "initdb: $(tail -3 "$W/initdb.log")"
	printf "listen_addresses = ''\nfsync = off\nshared_buffers = 32MB\nmax_connections = 20\n" \
		>>"$PGTEMPLATE/postgresql.conf"
}

# serve KIND MODE DIR DUR END: one run of server KIND; END is stop
# (graceful) or kill (kill -9 of every process at DUR).  Writes facts to
# DIR/facts as "key value" lines.
serve() {
	kind=$1 mode=$2 dir=$3 dur=$4 end=$5
	rm -rf "$dir"; mkdir -p "$dir" && chmod 755 "$dir"
	F=$dir/facts; : >"$F"
	case $kind in
	nginx)
		nginx_conf "$dir"
		start "$mode" "$dir" nginx -p "$dir" -c "$dir/conf/nginx.conf" -g 'daemon off;'
		nginx_up || { echo "ready no" >>"$F"; }
		loop_bg "$kind$mode" sh -c "ab -q -c 2 -n 300 http://127.0.0.1:$PORT/index.html | grep -E '^(Complete|Failed) requests'; sleep 1"
		;;
	pgC | pg8)
		pg_template
		cp -a "$PGTEMPLATE" "$dir/data" && mkdir -p "$dir/sock" && chown nobody "$dir/sock"
		PRE="setpriv --reuid=nobody --regid=nogroup --clear-groups"
		start "$mode" "$dir" "$PGBIN/postgres" -D "$dir/data" -k "$dir/sock" -p "$PORT"
		PRE=
		pg_up "$dir" || { echo "ready no" >>"$F"; }
		"$PGBIN/createdb" -h "$dir/sock" -p "$PORT" -U pg bench >>"$dir/client.log" 2>&1
		pgbench -i -s 1 -h "$dir/sock" -p "$PORT" -U pg bench >>"$dir/client.log" 2>&1
		if [ "$kind" = pgC ]; then
			set -- -C -c 2 -j 1 -R 10
		else
			set -- -c 8 -j 2 -R 50
		fi
		T=$((dur - 2)); [ "$end" = kill ] && T=$((dur + 30))
		(pgbench "$@" -T "$T" -h "$dir/sock" -p "$PORT" -U pg bench >>"$dir/client.log" 2>&1) &
		echo $! >"$W/load.$kind$mode.pid"
		;;
	redis)
		start "$mode" "$dir" redis-server --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no \
			--protected-mode no --daemonize no
		redis_up || { echo "ready no" >>"$F"; }
		loop_bg "$kind$mode" sh -c "redis-benchmark -p $PORT -c 2 -n 2000 -t get,set,lpush,lpop -q | tr '\r' '\n' | grep -c 'requests per second'; sleep 1"
		;;
	esac
	t0=$(date +%s)
	echo "pid $SPID" >>"$F"
	until_t() { while [ $(($(date +%s) - t0)) -lt "$1" ]; do sleep 1; done; }
	if [ "$end" = kill ]; then
		until_t $((dur - 15))
		echo "early $SPID $(kids "$SPID" | tr '\n' ' ')" >>"$F"
		until_t "$dur"
		pids="$SPID $(kids "$SPID" | tr '\n' ' ')"
		echo "killed $pids" >>"$F"
		echo "kill_ns $(now_ns)" >>"$F"
		# shellcheck disable=SC2086
		kill -9 $pids
		wait "$SPID"
		echo "status $?" >>"$F"
		[ -e "$W/load.$kind$mode.pid" ] && { touch "$W/stop.$kind$mode"; kill "$(cat "$W/load.$kind$mode.pid")" 2>/dev/null
			wait "$(cat "$W/load.$kind$mode.pid")" 2>/dev/null; rm -f "$W/load.$kind$mode.pid"; }
		return 0
	fi
	until_t $((dur / 3))
	case $kind in
	nginx)
		old=$(kids "$SPID" | tr '\n' ' ')
		nginx -p "$dir" -c "$dir/conf/nginx.conf" -g 'daemon off;' -s reload 2>>"$dir/client.log"
		sleep 5
		new=$(kids "$SPID" | tr '\n' ' ')
		echo "reload_old $old" >>"$F"
		echo "reload_new $new" >>"$F"
		;;
	pgC | pg8) kill -HUP "$SPID" ;;
	esac
	until_t $((dur / 2))
	if [ "$kind" = nginx ]; then
		victim=$(kids "$SPID" | head -n 1)
		echo "worker_kill_ns $(now_ns)" >>"$F"
		echo "worker_victim $victim" >>"$F"
		kill -9 "$victim"
		sleep 3
		echo "worker_after $(kids "$SPID" | tr '\n' ' ')" >>"$F"
	fi
	until_t "$dur"
	case $kind in
	nginx | redis) loop_stop "$kind$mode" ;;
	*) wait "$(cat "$W/load.$kind$mode.pid")"; rm -f "$W/load.$kind$mode.pid" ;;
	esac
	echo "stop_ns $(now_ns)" >>"$F"
	case $kind in
	nginx) nginx -p "$dir" -c "$dir/conf/nginx.conf" -g 'daemon off;' -s quit 2>>"$dir/client.log" ;;
	*) kill -TERM "$SPID" ;;
	esac
	wait "$SPID"
	echo "status $?" >>"$F"
	echo "stop_s $((($(now_ns) - $(awk '$1 == "stop_ns" { print $2 }' "$F")) / 1000000))" >>"$F"
}

fact() { awk -v k="$2" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$1/facts"; }

# table DIR: one line per interval file: name pid readable samples ticks
# seq end_ns flags, in DIR/files
table() {
	: >"$1/files"
	for f in $(ls "$1/p" | grep -v '\.tmp' | sort); do
		pid=${f%%.*}
		if "$W/mon_dump" "$1/p/$f" info >"$W/info" 2>"$W/info.err"; then
			awk -v f="$f" -v pid="$pid" '{ v[$1] = $2 } END { print f, pid, 1, v["samples"], v["ticks"],
				v["interval_seq"], v["interval_end_ns"], v["interval_flags"] }' "$W/info"
		else
			echo "$f $pid 0 0 0 0 0 0"
		fi
	done >"$1/files"
}

# errlines DIR: the log's error and warning lines, numbers masked, unique
errlines() {
	cat "$1/server.log" "$1"/logs/error.log 2>/dev/null | grep -iE 'error|fatal|panic|emerg|alert|crit|warn' |
		sed -E "s#$W/[^/]*/#DIR/#g" | sed -E 's/[0-9a-fx]*[0-9][0-9a-fx]*/N/g; s/^N+[^a-zA-Z]*//' | sort -u
}

# last_end DIR PID: the end (ns) of PID's last file, or 0
last_end() { awk -v p="$2" '$2 == p && $7 > m { m = $7 } END { printf "%.0f\n", m }' "$1/files"; }

analyze() {
	kind=$1 P=$W/$kind.prof Q=$W/$kind.plain K=$W/$kind.kprof L=$W/$kind.kplain
	for d in "$P" "$K"; do table "$d"; done
	# files
	n=$(wc -l <"$P/files") bad=$(awk '$3 != 1' "$P/files" | wc -l)
	nk=$(wc -l <"$K/files") badk=$(awk '$3 != 1' "$K/files" | wc -l)
	tmp=$(ls "$P/p" "$K/p" | grep -c '\.tmp')
	cat "$P/files" "$K/files" | awk -v m="$PROF_MAX" -v n="$((n + nk))" 'n <= m || NR % int((n + m - 1) / m) == 0 { print $1 }' \
		>"$W/profsel"
	pn=0 pbad=0 pt0=$(date +%s%N)
	for f in $(cat "$W/profsel"); do
		d=$P; [ -e "$d/p/$f" ] || d=$K
		pn=$((pn + 1))
		nice "$PROF" "$d/p/$f" >/dev/null 2>"$W/prof.err" || { pbad=$((pbad + 1)); echo "  prof $f: $(head -c 200 "$W/prof.err")"; }
	done
	pms=$((($(date +%s%N) - pt0) / 1000000 / (pn > 0 ? pn : 1)))
	check "$kind files" "$((bad + badk + pbad))" "$n files ($(cut -d' ' -f2 "$P/files" | sort -u | wc -l) processes) in the ${SECS}-s run and $nk in the kill run; unreadable $((bad + badk)); prof alone on $pn of them: $pbad failed ($pms ms each); $tmp temporary files left"
	# merge
	s=$(awk '$3 == 1 { s += $4 } END { print s + 0 }' "$P/files")
	t=$(awk '$3 == 1 { s += $5 } END { print s + 0 }' "$P/files")
	mt0=$(date +%s%N)
	nice "$PROF" --merge --output="$W/$kind.merged" "$P/p" 2>"$W/merge.err"; mrc=$?
	mms=$((($(date +%s%N) - mt0) / 1000000))
	"$W/mon_dump" "$W/$kind.merged" info >"$W/minfo" 2>&1
	ms=$(awk '$1 == "samples" { print $2 }' "$W/minfo") mtk=$(awk '$1 == "ticks" { print $2 }' "$W/minfo")
	[ "$mrc" = 0 ] && [ "$ms" = "$s" ] && [ "$mtk" = "$t" ]; check "$kind merge" $? \
		"prof --merge --output of $n files: exit $mrc, $mms ms; samples ${ms:-none} merged vs $s summed; ticks ${mtk:-none} vs $t; prof said: $(tr '\n' ' ' <"$W/merge.err" | head -c 400)"
	if [ "$mrc" != 0 ]; then
		# the whole refused: each process's files merged alone (at most
		# PROF_MAX processes, the ones with the most files)
		np=0 nbad=0 txt=
		for p in $(awk '{ print $2 }' "$P/files" | sort | uniq -c | sort -rn | head -n "$PROF_MAX" | awk '{ print $2 }'); do
			np=$((np + 1))
			# shellcheck disable=SC2046
			nice "$PROF" --merge --output="$W/one.merged" $(awk -v p="$p" '$2 == p { print d "/" $1 }' d="$P/p" "$P/files") \
				2>"$W/merge1.err" || { nbad=$((nbad + 1)); txt="$txt $p: $(head -c 100 "$W/merge1.err");"; continue; }
			ps1=$(awk -v p="$p" '$2 == p && $3 == 1 { s += $4 } END { print s + 0 }' "$P/files")
			ms1=$("$W/mon_dump" "$W/one.merged" info | awk '$1 == "samples" { print $2 }')
			[ "$ps1" = "$ms1" ] || { nbad=$((nbad + 1)); txt="$txt $p: $ms1 merged vs $ps1;"; }
		done
		check "$kind merge-per-process" "$nbad" "each process's files merged alone: $np processes, $nbad differ or refused;$txt"
	fi
	# graceful stop
	a=$(fact "$P" status) b=$(fact "$Q" status)
	[ "$a" = "$b" ]; check "$kind stop" $? "exit status $a profiled, $b unprofiled; stop took $(fact "$P" stop_s) ms profiled, $(fact "$Q" stop_s) ms unprofiled"
	if [ "$kind" = nginx ]; then
		r=0 txt=
		for d in "$P" "$Q"; do
			o=$(fact "$d" reload_old) nw=$(fact "$d" reload_new)
			for p in $o; do echo " $nw " | grep -q " $p " && r=1; done
			[ "$(echo $nw | wc -w)" = 2 ] || r=1
			txt="$txt ${d##*.}: workers [$o] -> [$nw];"
		done
		for p in $(fact "$P" reload_old); do
			awk -v p="$p" '$2 == p && $3 == 1 && $8 % 2 == 1 { f = 1 } END { exit !f }' "$P/files" || { r=1; txt="$txt old worker $p has no LAST file;"; }
		done
		for p in $(fact "$P" reload_new); do
			c=$(awk -v p="$p" '$2 == p' "$P/files" | wc -l)
			txt="$txt new $p: $c files;"
			[ "$c" -gt 0 ] || r=1
		done
		check "nginx reload" "$r" "$txt"
		r=0 txt=
		for d in "$P" "$Q"; do
			v=$(fact "$d" worker_victim) af=$(fact "$d" worker_after)
			echo " $af " | grep -q " $v " && r=1
			[ "$(echo $af | wc -w)" = 2 ] || r=1
			txt="$txt ${d##*.}: killed $v, workers then [$af];"
		done
		v=$(fact "$P" worker_victim) kn=$(fact "$P" worker_kill_ns) le=$(last_end "$P" "$v")
		if [ "$le" = 0 ]; then
			r=1 txt="$txt the killed worker has no file"
		else
			gap=$(((kn - le) / 1000000))
			[ "$gap" -le $(((IV + 2) * 1000)) ] || r=1
			txt="$txt the killed worker's last file ends $gap ms before the kill"
		fi
		check "nginx worker" "$r" "$txt"
	fi
	# kill -9 of the whole server
	a=$(fact "$K" status) b=$(fact "$L" status) r=0 txt=
	[ "$a" = "$b" ] || r=1
	kn=$(fact "$K" kill_ns) worst=0 nlive=0
	for p in $(fact "$K" early); do
		echo " $(fact "$K" killed) " | grep -q " $p " || continue
		nlive=$((nlive + 1))
		le=$(last_end "$K" "$p")
		[ "$le" = 0 ] && { r=1; txt="$txt pid $p has no file;"; continue; }
		gap=$(((kn - le) / 1000000))
		[ "$gap" -gt "$worst" ] && worst=$gap
		[ "$gap" -le $(((IV + 2) * 1000)) ] || { r=1; txt="$txt pid $p's last file ends $gap ms before;"; }
	done
	[ "$badk" = 0 ] || r=1
	check "$kind kill9" "$r" "status $a profiled, $b unprofiled; $nk files, $badk unreadable; $nlive processes alive 15 s before the kill: last file at most $worst ms before the kill (bound $(((IV + 2) * 1000)) ms);$txt"
	# logs
	errlines "$Q" >"$W/e.plain"; errlines "$L" >>"$W/e.plain"; sort -u -o "$W/e.plain" "$W/e.plain"
	errlines "$P" >"$W/e.prof"; errlines "$K" >>"$W/e.prof"; sort -u -o "$W/e.prof" "$W/e.prof"
	new=$(comm -13 "$W/e.plain" "$W/e.prof")
	# the profiler's own lines: none in the runs that end gracefully; in the
	# kill run, the one line of the top process's watcher (lib/control.c)
	# saying it was killed before writing its last interval
	cat "$P/server.log" "$P"/logs/error.log 2>/dev/null | grep -iE 'monprof|monrun|libmon' >"$W/ours"
	cat "$K/server.log" "$K"/logs/error.log 2>/dev/null | grep -iE 'monprof|monrun|libmon' >"$W/oursk"
	ours=$(wc -l <"$W/ours") oursk=$(wc -l <"$W/oursk")
	kp=$(fact "$K" pid)
	watched=$(grep -c "^monprof: process $kp (.*) ended without writing its profile" "$W/oursk")
	[ -z "$new" ] && [ "$ours" = 0 ] && [ "$oursk" = 1 ] && [ "$watched" = 1 ]; check "$kind log" $? "$(wc -l <"$W/e.prof") distinct error/warning lines profiled, $(wc -l <"$W/e.plain") unprofiled, $(printf '%s' "$new" | grep -c .) new${new:+: $(echo "$new" | head -n 5 | tr '\n' '|')}; the profiler's lines: $ours in the graceful run$([ "$ours" = 0 ] || echo ": $(head -n 3 "$W/ours" | tr '\n' '|')"), $oursk in the kill run ($watched the notice for the killed pid $kp)$([ "$oursk" = 0 ] || echo ": $(head -n 2 "$W/oursk" | cut -c1-140 | tr '\n' '|')")"
	case $kind in
	nginx) say "  load: ab $(awk '$1 == "Complete" { c += $3 } $1 == "Failed" { f += $3 } END { print c + 0 " requests, " f + 0 " failed" }' "$W/load.nginxprof.out") profiled" ;;
	redis) say "  load: $(awk '{ s += $1 } END { print s + 0 }' "$W/load.redisprof.out") redis-benchmark tests completed profiled" ;;
	*) say "  load: $(grep -E 'number of transactions actually processed|number of failed' "$P/client.log" | tr '\n' ' ')" ;;
	esac
	du -sh "$P/p" | awk '{ print "  disk: " $1 " of interval files in the run" }'
}

for kind in $SERVERS; do
	case $kind in nginx | pgC | pg8 | redis) ;; *) die "unknown server $kind" ;; esac
	say "== $kind: $SECS s profiled, $PLAIN_SECS s unprofiled, kill runs of $KILL_SECS s; port $PORT; $(uptime)"
	serve "$kind" prof "$W/$kind.prof" "$SECS" stop
	serve "$kind" plain "$W/$kind.plain" "$PLAIN_SECS" stop
	serve "$kind" prof "$W/$kind.kprof" "$KILL_SECS" kill
	serve "$kind" plain "$W/$kind.kplain" "$KILL_SECS" kill
	say "   runs done; $(uptime)"
	analyze "$kind"
done
