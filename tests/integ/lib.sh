# SPDX-License-Identifier: BSD-2-Clause
# Sourced by the integration scripts in tests/integ/.
# Provides:
#   $B        the build directory (absolute), $ROOT the source tree
#   $T        a fresh scratch directory, removed at exit
#   build_prog NAME SRC [CFLAGS...]   compile tests/progs/SRC (or a path)
#             against libmon.so from $B into $T/NAME (rpath set)
#   build_prog_static NAME SRC [CFLAGS...]   same, linked with libmon.a
#   ok NAME / not_ok NAME [WHY]       report one check
#   check NAME CMD...                 run CMD; ok if it exits 0
#   try NAME CMD...                   run a test program: exit 0 ok, 77 ok with
#                                     "# skip" and its "SKIP why" line, else not ok
#   map_names                         the names lib/libmon.map exports, one a
#                                     line, sorted (duplicates kept)
# Each script prints one "ok NAME" or "not ok NAME" line per check; the
# runner counts them.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$(cd "$ROOT/${B:-build}" && pwd)
CC=${CC:-cc}
T=$(mktemp -d "${TMPDIR:-/tmp}/monprof-test.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
export LD_LIBRARY_PATH="$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# No debuginfod server unless a test names one (Debian's profile.d sets
# DEBUGINFOD_URLS for login shells; prof's warnings name it when set).
unset DEBUGINFOD_URLS

_src() { case $1 in /*|./*) echo "$1" ;; *) echo "$ROOT/tests/progs/$1" ;; esac; }

build_prog() {
	name=$1 src=$(_src "$2"); shift 2
	$CC -O1 -g -I"$ROOT/include" -I"$ROOT/tests/progs" "$@" -o "$T/$name" "$src" \
	    -L"$B/lib" -Wl,-rpath,"$B/lib" -lmon -lpthread -lm
}

build_prog_static() {
	name=$1 src=$(_src "$2"); shift 2
	$CC -O1 -g -I"$ROOT/include" -I"$ROOT/tests/progs" "$@" -o "$T/$name" "$src" \
	    "$B/lib/libmon.a" -ldl -lpthread -lrt -lm
}

# share_libmon: for programs run as another user (nobody).  The build tree
# may sit in a directory they cannot enter (a private temporary clone), so
# copy libmon.so* into $T/lib, open $T to everyone, and set SHARED_RPATH:
# link such programs with it before the build tree's rpath.
share_libmon() {
	mkdir -p "$T/lib" && cp -P "$B"/lib/libmon.so* "$T/lib/" &&
	    chmod 755 "$T" "$T/lib" && chmod 644 "$T/lib/libmon.so.$(cd "$B/lib" && ls libmon.so.*.*.* | sed 's/libmon.so.//' | head -n 1)"
	SHARED_RPATH="-Wl,-rpath,$T/lib"
}

ok() { echo "ok $1"; }
not_ok() { echo "not ok $1${2:+ — $2}"; }
check() {
	name=$1; shift
	if "$@"; then ok "$name"; else not_ok "$name" "exit $?"; fi
}
try() {
	name=$1; shift
	out=$("$@" 2>&1); rc=$?
	printf '%s\n' "$out"
	case $rc in
	0) ok "$name" ;;
	77) ok "$name # skip $(printf '%s\n' "$out" | sed -n 's/^SKIP //p' | head -n 1)" ;;
	*) not_ok "$name" "exit $rc" ;;
	esac
}

# The global names of lib/libmon.map: comments dropped, the words between
# "global:" and "local:", one a line, sorted, duplicates kept.
map_names() {
	awk '{ s = s $0 " " }
	END {
		gsub(/\/\*([^*]|\*+[^*\/])*\*+\//, " ", s)
		sub(/.*global:/, "", s); sub(/local:.*/, "", s); gsub(/[;{}]/, " ", s)
		n = split(s, w, /[ \t]+/)
		for (i = 1; i <= n; i++) if (w[i] != "") print w[i]
	}' "$ROOT/lib/libmon.map" | LC_ALL=C sort
}
