#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/wall_pg_stacks.sh [BASE_BUILD] — how many of PostgreSQL's off-CPU
# call stacks end early ([truncated]) under monrun -f --wall, for this
# tree's build (./build) and, given one, another build (BASE_BUILD: the
# build before a change to the blocked-thread walk, lib/wall.c and
# lib/unwind.c), under the same load.  A blocked thread's walk starts from
# the SP and PC of /proc/self/task/TID/syscall (proc(5)), without the frame
# pointer: a frame whose CFA needs RBP ends it unless its frame record is
# found (lib/unwind.c fp_search).
#
# Debian's PostgreSQL 15 (installed with need_tools when missing), as the
# postgres user (runuser; it refuses root): one initdb'd cluster in the
# work directory, copied afresh for each run; the server listens on a unix
# socket there only.  Each run starts `postgres` under `monrun -f --wall`
# (100 Hz; PROFDIR a directory, so every backend writes its own file),
# runs `pgbench -i -s 1`, then the load, and stops it with pg_ctl stop -m
# fast.  LOADS (default "c8 C8"), a run of each per build:
#   c8   pgbench -n -c 8 -j 2 -T SECS (default 15)
#   C8   pgbench -n -C -c 8 -j 2 -t CONN_TX (default 25): a new connection,
#        so a new backend process, per transaction
# Then, per run: prof --sample=offcpu --format=folded --program=postgres
# over the run's files (that build's prof): off-CPU samples, those whose
# stack has the frame [truncated], their share, and the most frequent
# truncated stacks; tests/progs/wall_dump.c over the same files: the
# samples of blocked threads (state blocked, disk, stopped or other) with a
# stack, and those flagged truncated (the count prof's wall-truncated
# warning gives), with the deepest frame each truncated walk reached
# (OBJECT+0xOFFSET, ELF address); and the share of off-CPU samples whose
# stack reaches _start (a walk that went astray seldom ends there).  Prints a side-by-side table and this
# build's wall-truncated warning.  Not part of make check; as root.
#
# Environment: LOADS, SECS, CONN_TX, TOP (stacks shown, default 3), PORT.
BASE_ARG=${1:-}
set -- build
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || die "run as root (the server runs as the postgres user through runuser)"
PGBIN=/usr/lib/postgresql/15/bin
[ -x $PGBIN/postgres ] && [ -x $PGBIN/pgbench ] || need_tools postgresql-15 postgresql-contrib
id postgres >/dev/null 2>&1 || die "no postgres user (the postgresql-15 package makes it)"
LOADS=${LOADS:-c8 C8}
SECS=${SECS:-15}
CONN_TX=${CONN_TX:-25}
TOP=${TOP:-3}
PORT=${PORT:-$((20000 + $$ % 10000))}
BUILDS="new:$B"
if [ -n "$BASE_ARG" ]; then
	case $BASE_ARG in /*) ;; *) BASE_ARG=$(pwd)/$BASE_ARG ;; esac
	BASE=$(cd "$BASE_ARG" && pwd) || die "no build directory $BASE_ARG"
	BUILDS="base:$BASE $BUILDS"
fi
AS_PG="runuser -u postgres --"
for b in $BUILDS; do
	d=${b#*:}
	[ -x "$d/bin/monrun" ] && [ -x "$d/bin/prof" ] && [ -r "$d/lib/libmon.so" ] ||
		die "$d: no bin/monrun, bin/prof or lib/libmon.so (make all)"
	$AS_PG test -x "$d/bin/monrun" && $AS_PG test -r "$d/lib/libmon.so" ||
		die "the postgres user cannot run $d/bin/monrun or read $d/lib/libmon.so (chmod a+rX the path)"
done

# On the way out, a server still running (a load that failed) is stopped.
PGDATA=
cleanup() {
	if [ -n "$PGDATA" ] && [ -f "$PGDATA/postmaster.pid" ]; then
		$AS_PG $PGBIN/pg_ctl stop -D "$PGDATA" -m immediate -w >/dev/null 2>&1
	fi
	[ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$W"
}
trap cleanup EXIT
chmod 755 "$W"
$CC -O1 -g -I"$ROOT/format" -o "$W/wall_dump" "$ROOT/tests/progs/wall_dump.c" \
	"$ROOT"/format/monout_read.c "$ROOT"/format/crc32.c "$ROOT"/format/syscalls.c ||
	die "build wall_dump"
SOCK=$W/sock
mkdir -m 755 "$SOCK" "$W/template"
chown postgres:postgres "$SOCK" "$W/template"
chmod 700 "$W/template"
$AS_PG $PGBIN/initdb -D "$W/template" -A trust -U postgres >"$W/initdb.log" 2>&1 ||
	{ cat "$W/initdb.log" >&2; die "initdb"; }
PGB="$PGBIN/pgbench -h $SOCK -p $PORT -U postgres"

# run BUILD_NAME BUILD_DIR LOAD: a fresh copy of the cluster, the server
# under that build's monrun -f --wall, pgbench -i and LOAD, a clean stop;
# the profiles go to $W/prof.BUILD_NAME.LOAD.
run() {
	out=$W/prof.$1.$3
	PGDATA=$W/data.$1.$3
	mkdir -m 1777 "$out"
	cp -a "$W/template" "$PGDATA"
	cd "$W" || exit 1
	$AS_PG env PROFDIR="$out" "$2/bin/monrun" -f --wall $PGBIN/postgres -D "$PGDATA" -k "$SOCK" \
		-p "$PORT" -c listen_addresses= >"$W/server.$1.$3.log" 2>&1 &
	spid=$!
	i=0
	until $PGBIN/pg_isready -q -h "$SOCK" -p "$PORT"; do
		i=$((i + 1))
		[ $i -lt 300 ] && kill -0 $spid 2>/dev/null ||
			{ cat "$W/server.$1.$3.log" >&2; die "$1 $3: the server did not start"; }
		sleep 0.1
	done
	$PGB -i -s 1 postgres >"$W/pgbench-i.$1.$3.log" 2>&1 ||
		{ cat "$W/pgbench-i.$1.$3.log" >&2; die "$1 $3: pgbench -i"; }
	case $3 in
	c8) set -- "$@" -n -c 8 -j 2 -T "$SECS" ;;
	C8) set -- "$@" -n -C -c 8 -j 2 -t "$CONN_TX" ;;
	*) die "unknown load $3" ;;
	esac
	name=$1 load=$3
	shift 3
	# shellcheck disable=SC2086
	timeout 600 $PGB "$@" postgres >"$W/pgbench.$name.$load.log" 2>&1 ||
		{ cat "$W/pgbench.$name.$load.log" >&2; die "$name $load: pgbench"; }
	$AS_PG $PGBIN/pg_ctl stop -D "$PGDATA" -m fast -w >/dev/null 2>&1 || die "$name $load: pg_ctl stop"
	wait $spid || die "$name $load: monrun postgres exited $?"
	PGDATA=
	tps=$(awk '/^tps/ { print $3; exit }' "$W/pgbench.$name.$load.log")
	echo "# $name $load: pgbench ${tps:-?} tps, $(ls "$out" | wc -l) profile files" >&2
}

# measure BUILD_NAME BUILD_DIR LOAD: prof and wall_dump over the run's
# files; writes $W/res.NAME.LOAD (key value lines), the folded stacks and
# prof's warnings.
measure() {
	out=$W/prof.$1.$3
	f=$W/folded.$1.$3
	"$2/bin/prof" --sample=offcpu --format=folded --program=postgres "$out" >"$f" \
		2>"$W/prof-err.$1.$3" || { cat "$W/prof-err.$1.$3" >&2; die "$1 $3: prof"; }
	for m in "$out"/*; do "$W/wall_dump" "$m"; done >"$W/dump.$1.$3" ||
		die "$1 $3: wall_dump"
	{
		awk '{ n += $NF; if (index($0, "[truncated]")) t += $NF; if (/^_start;/) w += $NF }
			END { printf "offcpu %d\ntrunc %d\nwhole %d\n", n, t, w }' "$f"
		awk '$1 == "sample" && $6 ~ /^(blocked|disk|stopped|other)$/ && $14 > 0 {
				b += $2; if ($12 % 2) t += $2 }
			END { printf "blocked %d\nblocked_trunc %d\n", b, t }' "$W/dump.$1.$3"
	} >"$W/res.$1.$3"
	# The most frequent truncated stacks (folded, root first).
	awk '{ c = $NF; s = $0; sub(/ [0-9]+$/, "", s); print c "\t" s }' "$f" |
		sort -t"$(printf '\t')" -k1,1nr >"$W/bycount.$1.$3"
	grep -F '[truncated]' "$W/bycount.$1.$3" | head -n "$TOP" >"$W/top.$1.$3"
	head -n "$TOP" "$W/bycount.$1.$3" >"$W/topall.$1.$3"
	# The deepest frame each truncated walk reached (its last PC, leaf first).
	awk '$1 == "sample" && $6 ~ /^(blocked|disk|stopped|other)$/ && $14 > 0 && $12 % 2 {
			n = split($18, fr, ";"); last[fr[n] " (depth " n ")"] += $2 }
		END { for (k in last) print last[k] "\t" k }' "$W/dump.$1.$3" |
		sort -t"$(printf '\t')" -k1,1nr | head -n "$TOP" >"$W/ends.$1.$3"
}

for load in $LOADS; do
	for b in $BUILDS; do
		run "${b%%:*}" "${b#*:}" "$load"
		measure "${b%%:*}" "${b#*:}" "$load"
	done
done

val() { awk -v k="$2" '$1 == k { print $2 }' "$W/res.$1"; }
pc() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", 100 * a / b; else print "nan" }'; }
echo "# PostgreSQL 15 under monrun -f --wall; off-CPU samples (prof --sample=offcpu" \
	"--format=folded) and those with a [truncated] frame; blocked: wall_dump's samples of" \
	"blocked threads with a stack, and those flagged truncated (prof's wall-truncated count);" \
	"_start%: the off-CPU samples whose stack reaches _start (root frame), of all"
printf '%-6s %-5s %9s %9s %7s %9s %9s %7s %7s\n' load build offcpu trunc '%' blocked b_trunc '%' '_start%'
for load in $LOADS; do
	for b in $BUILDS; do
		n=${b%%:*}
		o=$(val "$n.$load" offcpu) t=$(val "$n.$load" trunc)
		bl=$(val "$n.$load" blocked) bt=$(val "$n.$load" blocked_trunc)
		wh=$(val "$n.$load" whole)
		printf '%-6s %-5s %9d %9d %7s %9d %9d %7s %7s\n' "$load" "$n" "$o" "$t" "$(pc "$t" "$o")" \
			"$bl" "$bt" "$(pc "$bt" "$bl")" "$(pc "$wh" "$o")"
	done
done
for load in $LOADS; do
	for b in $BUILDS; do
		n=${b%%:*}
		echo "# $load $n: top $TOP off-CPU stacks (samples, root first)"
		sed 's/^/  /' "$W/topall.$n.$load"
		echo "# $load $n: top $TOP [truncated] stacks"
		sed 's/^/  /' "$W/top.$n.$load"
		echo "# $load $n: where the truncated walks ended (samples, deepest PC reached)"
		sed 's/^/  /' "$W/ends.$n.$load"
	done
done
for load in $LOADS; do
	echo "# $load new: prof's warnings (wall-truncated and others)"
	sed 's/^/  /' "$W/prof-err.new.$load"
done
