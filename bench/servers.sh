#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/servers.sh [BUILD] — what profiling costs real servers (issue 25,
# items 2 and 4; issue 20's "throughput within 3 %"): redis, PostgreSQL and
# nginx from Debian, each loaded by its usual benchmark, unprofiled and
# under each profiler, in turns; CPU per request from the kernel's
# accounting of the server's whole process tree (bench/treecpu.c: the
# server is its child and its tree's user+system CPU is read with
# getrusage(RUSAGE_CHILDREN) once every process of it has exited), and the
# throughput the load generator saw.  The load generators run outside the
# measured tree.  Not part of make check.
#
# Environment:
#   ROUNDS   rounds (default 5); each round runs every mode once, in order
#   SECONDS  seconds of load per run (default 10; redis: requests sized to
#            about that at 80000 a second)
#   SERVERS  loads, default "redis pg nginx_k nginx pg_C":
#            redis    redis-benchmark -c 50 -t get,set (redis-server, foreground)
#            pg       pgbench -c 4 -j 2 -T SECONDS (postgres started directly)
#            pg_C     the same with -C: a new connection, so a new backend
#                     process, per transaction
#            nginx_k  ab -k -c 8 -t SECONDS, a 612-byte static file (master
#                     and 2 workers, daemon off)
#            nginx    the same without -k: a TCP connection per request
#   MODES    default "plain mon flat thread wall perfg perf":
#            plain    unprofiled
#            mon      monrun -r 1000 (the default clock, perf: each thread's
#                     user CPU; call stacks, on by default)
#            flat     monrun -r 1000 -d 0 (no stacks)
#            thread   monrun -r 1000 -c thread (the unprivileged clock, user
#                     and system CPU; stacks)
#            wall     monrun --wall (100 Hz wall-clock sampler; the CPU clock
#                     beside it at its default 1000 Hz, stacks)
#            perfg    perf record -F 1000 -e cpu-clock -g (frame-pointer stacks)
#            perf     perf record -F 1000 -e cpu-clock (flat)
#            mon_r1, thread_r1 (not in the default set): monrun -r 1 and
#                     monrun -r 1 -c thread, 1 tick a CPU-second: what the
#                     clock costs apart from its ticks; wall_thread:
#                     monrun --wall -c thread; mon_alt: as mon, with the monrun
#                     MONRUN_ALT names (another build, for a before/after)
#            monrun gets -f for nginx and postgres (they fork).  perf record
#            is the server's parent, so its own CPU is in the tree's.
#   PORT     base port (default 20000 + pid % 10000)
# Prints each run as it ends, then per load and mode: the median CPU per
# request (µs), the median of the ratios to plain within a round and their
# range (min-max), the same for throughput, the profile bytes written and
# the tree's context switches per request (getrusage's nvcsw + nivcsw).
. "$(dirname "$0")/lib.sh"
ROUNDS=${ROUNDS:-5}
SECS=${SECONDS_PER_RUN:-${SECONDS:-10}}
SERVERS=${SERVERS:-redis pg nginx_k nginx pg_C}
MODES=${MODES:-plain mon flat thread wall perfg perf}
PORT=${PORT:-$((20000 + $$ % 10000))}
PGBIN=/usr/lib/postgresql/15/bin

command -v perf >/dev/null || need_tools linux-perf
for s in $SERVERS; do
	case $s in
	redis) command -v redis-benchmark >/dev/null || need_tools redis-server redis-tools ;;
	pg*) [ -x $PGBIN/postgres ] && command -v pgbench >/dev/null || need_tools postgresql-15 postgresql-contrib ;;
	nginx*) command -v nginx >/dev/null && command -v ab >/dev/null || need_tools nginx apache2-utils ;;
	*) die "unknown server $s" ;;
	esac
done
# On the way out, a server still running (a load that failed) is stopped
# through treecpu, which passes SIGTERM on, before the work directory goes.
SRV_PID=
cleanup() {
	if [ -n "$SRV_PID" ] && kill -0 "$SRV_PID" 2>/dev/null; then
		kill "$SRV_PID"
		wait "$SRV_PID"
	fi
	[ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$W"
}
trap cleanup EXIT
$CC -O2 -o "$W/treecpu" "$BENCH/treecpu.c" || die "build treecpu"
chmod 755 "$W"
OUTD=$W/prof
mkdir -p -m 1777 "$OUTD"

# As root, postgres runs as the postgres user (initdb and postgres refuse root).
if [ "$(id -u)" = 0 ]; then
	PGUSER_RUN="setpriv --reuid=postgres --regid=postgres --clear-groups --"
else
	PGUSER_RUN=
fi

# prefix MODE SERVER: the command words put before the server's.
prefix() {
	f=
	case $2 in nginx* | pg*) f=-f ;; esac
	case $1 in
	plain) echo ;;
	mon) echo "$MONRUN $f -r 1000 -o $OUTD/mon.out" ;;
	flat) echo "$MONRUN $f -r 1000 -d 0 -o $OUTD/mon.out" ;;
	mon_r1) echo "$MONRUN $f -r 1 -o $OUTD/mon.out" ;;
	thread_r1) echo "$MONRUN $f -r 1 -c thread -o $OUTD/mon.out" ;;
	wall_thread) echo "$MONRUN $f --wall -c thread -o $OUTD/mon.out" ;;
	mon_alt) echo "${MONRUN_ALT:?set MONRUN_ALT} $f -r 1000 -o $OUTD/mon.out" ;;
	thread) echo "$MONRUN $f -r 1000 -c thread -o $OUTD/mon.out" ;;
	wall) echo "$MONRUN $f --wall -o $OUTD/mon.out" ;;
	perfg) echo "perf record -q -F 1000 -e cpu-clock -g -o $OUTD/perf.data --" ;;
	perf) echo "perf record -q -F 1000 -e cpu-clock -o $OUTD/perf.data --" ;;
	*) die "unknown mode $1" ;;
	esac
}

for m in $MODES; do prefix "$m" redis >/dev/null; done	# an unknown mode stops here

# Setup, once per server kind.
setup_pg() {
	[ -f "$W/pgdata/PG_VERSION" ] && return 0
	mkdir -p -m 1777 "$W/pgsock"
	mkdir -m 700 "$W/pgdata"
	[ -n "$PGUSER_RUN" ] && chown postgres:postgres "$W/pgdata"
	$PGUSER_RUN $PGBIN/initdb -D "$W/pgdata" -A trust -U postgres >"$W/initdb.log" 2>&1 ||
		{ cat "$W/initdb.log" >&2; die "initdb"; }
	start pg plain
	$PGBIN/pgbench -h "$W/pgsock" -p "$PORT" -U postgres -i -s 1 postgres >"$W/pgbench-i.log" 2>&1 ||
		{ cat "$W/pgbench-i.log" >&2; die "pgbench -i"; }
	stop pg
}
setup_nginx() {
	[ -f "$W/nginx.conf" ] && return 0
	mkdir -p "$W/www" "$W/nginx-tmp"
	# nginx's default page, 612 bytes, as a small static file.
	awk 'BEGIN { for (i = 0; i < 611; i++) printf "%c", 97 + i % 26; printf "\n" }' >"$W/www/small.html"
	chmod -R a+rX "$W/www"
	cat >"$W/nginx.conf" <<EOF
worker_processes 2;
pid $W/nginx.pid;
error_log $W/nginx-error.log;
events { worker_connections 1024; }
http {
	access_log off;
	client_body_temp_path $W/nginx-tmp;
	proxy_temp_path $W/nginx-tmp;
	fastcgi_temp_path $W/nginx-tmp;
	uwsgi_temp_path $W/nginx-tmp;
	scgi_temp_path $W/nginx-tmp;
	server {
		listen 127.0.0.1:$PORT;
		root $W/www;
	}
}
EOF
}

# start KIND MODE: start the server under treecpu, in the background
# (SRV_PID is treecpu's), and wait until it answers.
start() {
	rm -f "$W/cpu"
	p=$(prefix "$2" "$1")
	cd "$OUTD" || exit 1
	case $1 in
	redis)
		# shellcheck disable=SC2086
		timeout 600 "$W/treecpu" "$W/cpu" $p redis-server --port "$PORT" --bind 127.0.0.1 \
			--save '' --appendonly no --protected-mode no --daemonize no >"$W/server.log" 2>&1 &
		SRV_PID=$!
		ready() { redis-cli -p "$PORT" ping >/dev/null 2>&1; } ;;
	pg*)
		# shellcheck disable=SC2086
		timeout 600 "$W/treecpu" "$W/cpu" $PGUSER_RUN $p $PGBIN/postgres -D "$W/pgdata" \
			-k "$W/pgsock" -p "$PORT" -c listen_addresses= -c fsync=off \
			-c synchronous_commit=off -c max_connections=50 >"$W/server.log" 2>&1 &
		SRV_PID=$!
		ready() { $PGBIN/pg_isready -q -h "$W/pgsock" -p "$PORT" -U postgres; } ;;
	nginx*)
		# shellcheck disable=SC2086
		timeout 600 "$W/treecpu" "$W/cpu" $p nginx -p "$W" -c "$W/nginx.conf" -g 'daemon off;' \
			>"$W/server.log" 2>&1 &
		SRV_PID=$!
		ready() { curl -sf -o /dev/null "http://127.0.0.1:$PORT/small.html"; } ;;
	esac
	i=0
	until ready; do
		i=$((i + 1))
		[ $i -lt 300 ] || { cat "$W/server.log" >&2; die "$1 ($2) did not start"; }
		kill -0 "$SRV_PID" 2>/dev/null || { cat "$W/server.log" >&2; die "$1 ($2) exited"; }
		sleep 0.1
	done
	cd "$W" || exit 1
}

# stop KIND: the server's own graceful stop, then wait for its whole tree.
stop() {
	case $1 in
	redis) redis-cli -p "$PORT" shutdown nosave >/dev/null 2>&1 ;;
	pg*) kill -INT "$(head -n 1 "$W/pgdata/postmaster.pid")" ;;	# fast shutdown
	nginx*) kill -QUIT "$(cat "$W/nginx.pid")" ;;	# graceful shutdown
	esac
	wait "$SRV_PID" || echo "bench: $1: the server's tree ended with status $?" >&2
	SRV_PID=
	[ -s "$W/cpu" ] || die "$1: no CPU figure"
}

# load KIND: run the load; prints "requests throughput" (per second).
load() {
	case $1 in
	redis)
		n=$((SECS * 40000))
		timeout 600 redis-benchmark -h 127.0.0.1 -p "$PORT" -n "$n" -c 50 -t get,set -q 2>/dev/null |
			tr '\r' '\n' | awk -v n="$n" '/requests per second/ { t += n / $2; k++ }
				END { if (k == 2) printf "%d %.1f\n", 2 * n, 2 * n / t; else print "0 0" }' ;;
	pg | pg_C)
		c=
		[ "$1" = pg_C ] && c=-C
		# shellcheck disable=SC2086
		timeout 600 $PGBIN/pgbench -h "$W/pgsock" -p "$PORT" -U postgres -n -c 4 -j 2 $c -T "$SECS" postgres \
			2>/dev/null | awk '/number of transactions actually processed/ { split($6, a, "/"); n = a[1] }
				/^tps = / { t = $3 } END { printf "%d %s\n", n, t }' ;;
	nginx | nginx_k)
		k=
		[ "$1" = nginx_k ] && k=-k
		# shellcheck disable=SC2086
		timeout 600 ab -q $k -c 8 -t "$SECS" -n 100000000 "http://127.0.0.1:$PORT/small.html" 2>/dev/null |
			awk '/^Complete requests:/ { n = $3 } /^Failed requests:/ { f = $3 }
				/^Requests per second:/ { t = $4 } END { printf "%d %s %d\n", n - f, t, f }' ;;
	esac
}

# run KIND MODE ROUND: one run; appends "KIND MODE ROUND cpu_s requests
# throughput profile_bytes profile_files context_switches" to $W/runs.
run() {
	rm -rf "${OUTD:?}"/*
	start "$1" "$2"
	set -- "$1" "$2" "$3" $(load "$1")
	stop "$1"
	bytes=$(find "$OUTD" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
	files=$(find "$OUTD" -type f | wc -l)
	cpu=$(awk '{ print $1 + $2 }' "$W/cpu")
	csw=$(awk '{ print $4 + $5 }' "$W/cpu")
	echo "$1 $2 $3 $cpu $4 $5 $bytes $files $csw" | tee -a "$W/runs"
	[ "${4:-0}" -gt 0 ] || die "$1 ($2): no requests completed"
}

: >"$W/runs"
echo "# kind mode round tree_cpu_s requests per_s profile_bytes profile_files context_switches"
for s in $SERVERS; do
	case $s in pg*) setup_pg ;; nginx*) setup_nginx ;; esac
	for r in $(seq "$ROUNDS"); do
		echo "# $s round $r: $(uptime | sed 's/.*load/load/')"
		for m in $MODES; do
			run "$s" "$m" "$r"
		done
	done
done
[ -n "${RUNS_COPY:-}" ] && cp "$W/runs" "$RUNS_COPY"

# The table: per kind and mode, CPU per request and the ratios to the
# plain run of the same round.
echo "# kind mode cpu_us_per_req(median) cpu_ratio(median min-max) tput_ratio(median min-max) profile_MB(median) csw_per_req(median)"
awk '
	function med(s,   n, a, i, j, t) {
		n = split(s, a, " ")
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		lo = a[1]; hi = a[n]
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{ k = $1; m = $2; r = $3; cpr = 1e6 * $4 / $5
	  c[k, m, r] = cpr; t[k, m, r] = $6; b[k, m] = b[k, m] " " $7 / 1e6
	  u[k, m] = u[k, m] " " cpr; if (NF >= 9) w[k, m] = w[k, m] " " $9 / $5
	  if (!((k, m) in seen)) { seen[k, m] = 1; order[++no] = k SUBSEP m }
	  rounds[k, r] = 1 }
	END {
		for (i = 1; i <= no; i++) {
			split(order[i], km, SUBSEP); k = km[1]; m = km[2]
			cr = ""; tr = ""
			for (x in rounds) { split(x, kr, SUBSEP); if (kr[1] != k) continue; r = kr[2]
				if (((k, m, r) in c) && ((k, "plain", r) in c)) {
					cr = cr " " c[k, m, r] / c[k, "plain", r]
					tr = tr " " t[k, m, r] / t[k, "plain", r] } }
			mc = med(cr); clo = lo; chi = hi
			mt = med(tr); tlo = lo; thi = hi
			printf "%-8s %-7s %8.2f   %.3f (%.3f-%.3f)   %.3f (%.3f-%.3f)   %.1f   %s\n", k, m, med(u[k, m]),
				mc, clo, chi, mt, tlo, thi, med(b[k, m]), (k, m) in w ? sprintf("%.2f", med(w[k, m])) : "-"
		}
	}' "$W/runs"
