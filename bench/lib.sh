# SPDX-License-Identifier: BSD-2-Clause
# bench/lib.sh — shared by the bench scripts (sourced, not run).
# Sets ROOT (the source tree), B (the build directory, absolute), W (a work
# directory, removed on exit unless BENCH_KEEP=1), CC; provides builders for
# the workloads and small statistics helpers.  Nothing here runs in make check.
#   . "$(dirname "$0")/lib.sh" BUILD_DIR

ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-build}
case $B in /*) ;; *) B=$ROOT/$B ;; esac
B=$(cd "$B" && pwd) || exit 1
CC=${CC:-cc}
BENCH=$ROOT/bench
W=$(mktemp -d "${TMPDIR:-/tmp}/monbench.XXXXXX") || exit 1
if [ "${BENCH_KEEP:-0}" = 1 ]; then
	echo "work files kept in $W" >&2
else
	trap 'rm -rf "$W"' EXIT
fi
trap 'exit 130' INT TERM
MONRUN=$B/bin/monrun
PROF=$B/bin/prof
export MONPROF_BIN=$B/bin

die() { echo "bench: $*" >&2; exit 1; }

# need_tools PACKAGE...: install Debian packages that are not yet installed.
need_tools() {
	missing=
	for p in "$@"; do
		dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	echo "bench: installing$missing" >&2
	# shellcheck disable=SC2086
	apt-get install -y $missing >/dev/null 2>&1 ||
		{ apt-get update >/dev/null 2>&1 && apt-get install -y $missing >/dev/null 2>&1; } ||
		die "cannot install$missing"
}

# build_sqlite DIR: the main job's SQLite driver (as scripts/demo.sh builds it).
build_sqlite() {
	[ -x "$1/sqlite_driver" ] && return 0
	$CC -O2 -g $(pkg-config --cflags sqlite3) -o "$1/sqlite_driver" "$ROOT/demo/sqlite_driver.c" \
		"$(pkg-config --variable=libdir sqlite3)/libsqlite3.a" -lm -lpthread -ldl ||
		die "cannot build the SQLite driver"
}

# build_sqlite_pg DIR: the driver with its own code built -pg (SQLite itself,
# from the distribution's libsqlite3.a, has no call counting: only the C
# library's histogram covers it), for the gprof column.
build_sqlite_pg() {
	[ -x "$1/sqlite_driver-pg" ] && return 0
	$CC -O2 -g -pg $(pkg-config --cflags sqlite3) -o "$1/sqlite_driver-pg" "$ROOT/demo/sqlite_driver.c" \
		"$(pkg-config --variable=libdir sqlite3)/libsqlite3.a" -lm -lpthread -ldl ||
		die "cannot build the SQLite driver with -pg"
}

# build_truth DIR: the truth workloads (bench/truth.c), plain and -pg.
build_truth() {
	[ -x "$1/truth" ] && return 0
	$CC -O2 -g -fno-omit-frame-pointer -o "$1/truth" "$BENCH/truth.c" -lpthread -lm ||
		die "cannot build truth.c"
	$CC -O2 -g -pg -o "$1/truth-pg" "$BENCH/truth.c" -lpthread -lm ||
		die "cannot build truth.c with -pg"
}

# cpu_wall CMD...: run CMD, print "user+sys wall" seconds (output discarded).
cpu_wall() {
	/usr/bin/time -f '%U %S %e' -o "$W/.time" "$@" >/dev/null 2>&1
	awk '{ printf "%.3f %.3f\n", $1 + $2, $3 }' "$W/.time"
}

# median: the median of the numbers on standard input, one a line.
median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan";
		else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# ratio A B [FORMAT]
ratio() { awk -v a="$1" -v b="$2" -v f="${3:-%.3f}" 'BEGIN { if (b > 0) printf f "\n", a / b; else print "nan" }'; }

LIBPROFILER=/usr/lib/x86_64-linux-gnu/libprofiler.so.0

# under TOOL RATE OUT PROG ARG...: run PROG ARG... profiled by TOOL at RATE
# samples per CPU-second, the profile going to OUT (absolute path).  TOOL is
#   none        not profiled
#   monprof     monrun -r RATE -o OUT (libmon preloaded, the default clock)
#   perf        perf record -F RATE -e cpu-clock -o OUT
#   gperftools  LD_PRELOAD=libprofiler.so CPUPROFILE=OUT CPUPROFILE_FREQUENCY=RATE
#   gprof       PROG-pg (built with cc -pg), the C library's profiler; its rate
#               is fixed by the C library (the kernel's USER_HZ, 100 Hz)
# Standard output and error of the program are discarded.
under() {
	_tool=$1 _rate=$2 _out=$3
	shift 3
	case $_tool in
	none) "$@" ;;
	monprof) "$MONRUN" -r "$_rate" -o "$_out" "$@" ;;
	perf) perf record -q -F "$_rate" -e cpu-clock -o "$_out" -- "$@" ;;
	gperftools) env LD_PRELOAD="$LIBPROFILER" CPUPROFILE="$_out" CPUPROFILE_FREQUENCY="$_rate" "$@" ;;
	gprof)
		_p=$1
		shift
		mkdir -p "$W/gprof.d" && (cd "$W/gprof.d" && rm -f gmon.out && "$_p-pg" "$@" &&
			mv gmon.out "$_out") ;;
	*) die "unknown tool $_tool" ;;
	esac >/dev/null 2>&1
}

# timed TOOL RATE OUT PROG ARG...: under(), printing "cpu wall" seconds of
# the whole command (the profiler's own process included, as a user pays it):
# CPU from the children's times before and after, wall from the clock.
children_cpu() {	# (times must run in this shell, not in a $(...) subshell)
	awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); s += a[1] * 60 + a[2] } print s }' "$W/.times"
}
timed() {
	times >"$W/.times"
	_c0=$(children_cpu) _w0=$(date +%s.%N)
	under "$@" || return 1
	_w1=$(date +%s.%N)
	times >"$W/.times"
	_c1=$(children_cpu)
	awk -v c0="$_c0" -v c1="$_c1" -v w0="$_w0" -v w1="$_w1" 'BEGIN { printf "%.3f %.3f\n", c1 - c0, w1 - w0 }'
}

# workload NAME: set PROG and ARGS (and TRUTH, the truth file, or "") for
#   truth1    one thread, three functions 60/30/10 %, TRUTH_SECS CPU-s (default 3)
#   truth4    four threads 40/30/20/10 % on two cores, TRUTH_SECS CPU-s
#   threadsN  N threads of equal work (the thread-growth table)
#   sqlite    the SQLite driver, SQLITE_ROWS rows (default 200000, ~4 CPU-s)
workload() {
	TRUTH=
	case $1 in
	truth1) build_truth "$W"; PROG=$W/truth TRUTH=$W/truth.txt
		ARGS="1 ${TRUTH_SECS:-3} $TRUTH" ;;
	truth4) build_truth "$W"; PROG=$W/truth TRUTH=$W/truth.txt
		ARGS="4 ${TRUTH_SECS:-3} $TRUTH" ;;
	threads*) build_truth "$W"; PROG=$W/truth TRUTH=$W/truth.txt
		ARGS="${1#threads} ${TRUTH_SECS:-3} $TRUTH" ;;
	sqlite) build_sqlite "$W"; build_sqlite_pg "$W"; PROG=$W/sqlite_driver
		ARGS=${SQLITE_ROWS:-200000} ;;
	*) die "unknown workload $1" ;;
	esac
}

# blocked_sites FUNCS FOLDED HZ: prof --sample=offcpu --format=folded's
# stacks (FOLDED), the runnable ones left out, each charged to its deepest
# frame that is one of FUNCS's function names (a file, one a line; GCC's
# .constprop/.isra/.part/.cold clones taken as their function), else to
# [no_program_frame]: "SITE SECONDS PERCENT" lines, most first (HZ: the
# wall rate, samples a second).  bench/wall_vs_perf.sh, wall_server_vs_perf.sh.
blocked_sites() {
	awk -v hz="$3" 'FNR == NR { fn[$1] = 1; next }
	{
		c = $NF; l = $0; sub(/ [0-9.]+$/, "", l)
		n = split(l, f, ";")
		if (f[n] == "[runnable]") next
		s = "[no_program_frame]"
		for (i = n; i >= 1; i--) { g = f[i]; sub(/\.(constprop|isra|part|cold)\..*$/, "", g); if (g in fn) { s = g; break } }
		w[s] += c
	}
	END {
		for (s in w) tot += w[s]
		for (s in w) printf "%s %.6f %.2f\n", s, w[s] / hz, 100 * w[s] / tot
	}' "$1" "$2" | sort -k2,2nr
}

# sites_side_by_side PERF MON WIDTH MINPCT: two blocked_sites tables (perf's
# first) side by side, a site per line (those at MINPCT % or more on either
# side; names padded to WIDTH), then the largest difference in points.
sites_side_by_side() {
	awk -v wd="$3" -v minp="$4" 'FNR == NR { ps[$1] = $2; pp[$1] = $3; order[++n] = $1; next }
	{ ms[$1] = $2; mp[$1] = $3; if (!($1 in pp)) order[++n] = $1 }
	END {
		worst = 0
		for (i = 1; i <= n; i++) {
			s = order[i]; d = mp[s] - pp[s]; if (d < 0) d = -d; if (d > worst) worst = d
			if (pp[s] >= minp || mp[s] >= minp)
				printf "%-*s %8.3f %8.2f %10.3f %10.2f %10.2f\n", wd, s, ps[s], pp[s], ms[s], mp[s], d
		}
		printf "# largest difference: %.2f pp\n", worst
	}' "$1" "$2"
}
