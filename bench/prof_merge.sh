#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# prof's time to read a process tree as one profile, against the number of
# files (issue 22: 5000 files in 2 s or less).  A forking program
# (bench/fork_tree.c, linked against libcrypto and libstdc++ so that every
# profile names large symbol tables, as a server's do) runs under monrun -f
# with PROFDIR set and writes one profile per process; prof then reads the
# first N of them as a directory (prof DIR), for the text report and for
# pprof, best of 3 wall times, and the CPU time of the text report (user +
# system, GNU time: what the machine's load does not change).  Not part of
# make check.
# Usage: sh bench/prof_merge.sh [BUILD_DIR] ["N N ..."]   (default 100 1000 5000)
# Prints one line per N: "files N: text S s wall, C s CPU (MS ms a file),
# pprof S s wall".
. "$(dirname "$0")/lib.sh"
NS=${2:-100 1000 5000}
max=0
for n in $NS; do [ "$n" -gt "$max" ] && max=$n; done
libs="-Wl,--no-as-needed -lcrypto -lstdc++"
$CC -O1 -o "$W/fork_tree" "$BENCH/fork_tree.c" $libs 2>/dev/null ||
	$CC -O1 -o "$W/fork_tree" "$BENCH/fork_tree.c" || die "cannot build fork_tree"
mkdir -p "$W/all"
s=$(date +%s.%N)
PROFDIR=$W/all "$MONRUN" -f "$W/fork_tree" "$((max - 1))" || die "fork_tree failed"
e=$(date +%s.%N)
have=$(ls "$W/all" | wc -l)
echo "fork_tree: $have profiles written in $(echo "$s $e" | awk '{ printf "%.1f", $2 - $1 }') s"
[ "$have" -ge "$max" ] || die "only $have profiles for $max"
best() {	# best of 3 wall-clock runs, seconds
	for i in 1 2 3; do
		s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
		echo "$s $e" | awk '{ print $2 - $1 }'
	done | sort -n | head -1
}
cpu() {	# best of 3 runs' user + system CPU seconds (GNU time), "?" without it
	[ -x /usr/bin/time ] || { echo "?"; return; }
	for i in 1 2 3; do
		/usr/bin/time -f "%U %S" -o "$W/time" "$@" >/dev/null 2>&1
		awk '{ print $1 + $2 }' "$W/time"
	done | sort -n | head -1
}
for n in $NS; do
	rm -rf "$W/n$n" && mkdir "$W/n$n"
	ls "$W/all" | sort -n | head -n "$n" | while read -r f; do
		ln -s "$W/all/$f" "$W/n$n/$f"
	done
	"$PROF" "$W/n$n" >/dev/null 2>"$W/err" || die "prof failed: $(cat "$W/err")"
	t=$(best "$PROF" "$W/n$n")
	c=$(cpu "$PROF" "$W/n$n")
	p=$(best "$PROF" --format=pprof "$W/n$n")
	echo "files $n: text $t s wall, $c s CPU ($(awk -v t="$t" -v n="$n" 'BEGIN { printf "%.2f", 1000 * t / n }') ms a file), pprof $p s wall"
done
