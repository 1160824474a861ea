#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/wall_server.sh [BUILD] — a real server under load with wall-clock
# sampling (issue 20): redis-server (Debian's redis-server package) on a
# loopback port, loaded by redis-benchmark (GET and SET, 50 clients,
# REQUESTS requests each, default 200000), run plain and under
# monrun --wall (100 Hz, CPU clock beside it), in turns, ROUNDS rounds
# (default 3); the best throughput of each is kept (the round least
# disturbed by other processes).  Prints requests a second of each and the
# ratio, then the wall profile's top waits of the server's threads (the
# WALL record through tests/progs/wall_dump.c).  Not part of make check.
. "$(dirname "$0")/lib.sh"
command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null ||
	need_tools redis-server redis-tools
ROUNDS=${ROUNDS:-3}
REQUESTS=${REQUESTS:-200000}
PORT=${PORT:-$((20000 + $$ % 10000))}
$CC -O1 -g -I"$ROOT/format" -o "$W/wall_dump" "$ROOT/tests/progs/wall_dump.c" \
	"$ROOT"/format/monout_read.c "$ROOT"/format/crc32.c "$ROOT"/format/syscalls.c || die "build"

# serve MODE: start the server (plain or wall), load it, stop it; prints
# the GET and SET requests a second.
serve() {
	cd "$W" || exit 1
	if [ "$1" = wall ]; then
		timeout 300 "$MONRUN" --wall -o "$W/redis.mon" redis-server --port "$PORT" --bind 127.0.0.1 \
			--save '' --appendonly no --protected-mode no >"$W/server.log" 2>&1 &
	else
		timeout 300 redis-server --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no \
			--protected-mode no >"$W/server.log" 2>&1 &
	fi
	pid=$!
	for i in $(seq 100); do
		redis-cli -p "$PORT" ping >/dev/null 2>&1 && break
		sleep 0.1
	done
	timeout 300 redis-benchmark -h 127.0.0.1 -p "$PORT" -n "$REQUESTS" -c 50 -t get,set -q 2>/dev/null |
		tr '\r' '\n' | awk '/requests per second/ { sub(":", "", $1); printf "%s %s ", $1, $2 }'
	redis-cli -p "$PORT" shutdown nosave >/dev/null 2>&1
	wait "$pid"
	echo
}
: >"$W/runs"
for r in $(seq "$ROUNDS"); do
	echo "plain $(serve plain)" >>"$W/runs"
	echo "wall $(serve wall)" >>"$W/runs"
done
cat "$W/runs"
awk '{ for (i = 2; i < NF; i += 2) { if ($(i + 1) > best[$1, $i]) best[$1, $i] = $(i + 1); k[$i] = 1 } }
	END { for (t in k) printf "%s: plain %.0f, --wall %.0f requests/s: %.2f %% of plain\n", t,
		best["plain", t], best["wall", t], 100 * best["wall", t] / best["plain", t] }' "$W/runs"
echo "# the server's waits, wall samples by thread name, state, system call, wait (last round)"
"$W/wall_dump" "$W/redis.mon" | awk '$1 == "wall" { print "# " $0 }
	$1 == "thread" { name[$2] = $4 }
	$1 == "sample" { n[name[$4] " " $6 " " $8] += $2 }
	END { for (k in n) print n[k], k }' | sort -rn | head -n 12
