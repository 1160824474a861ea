#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A process tree's files on one time axis (issue 22): each file's SPAN
# record says when its profile began and ended to the nanosecond, where
# RUN's time is whole seconds.  The run, `monrun -f sh -c '/bin/true;
# sleep 0.5; :'`, starts in the second half of a second so that it crosses a
# second boundary: true's file is written in one second, sh's and sleep's
# in the next.
#   tree_times_run       exit 0, three files (sh, true, sleep)
#   tree_times_order     --timeline lists sh, then true, then sleep (the
#                        order they started in), each starting within sh's
#                        span
#   tree_times_merged    prof -s --merge: the tree's elapsed time is sh's
#                        (its children start after it and end before it),
#                        within 1 ms
#   tree_times_pprof     go tool pprof: the profile's Duration is the same
# Mutation: prof placing files by RUN's time (no SPAN): true listed first,
# the tree 1.0 s long for sh's 0.53 s (each check fails).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"
cd "$T" || exit 1

# Wait (at most about a second) for the second's 550th to 850th ms.
i=0
while :; do
	ns=$(date +%N)
	ds=${ns%???????}
	[ "$ds" -ge 55 ] && [ "$ds" -lt 85 ] && break
	i=$((i + 1))
	[ $i -lt 3000 ] || break
done
mkdir run
PROFDIR=$T/run timeout 60 "$MONRUN" -f sh -c '/bin/true; sleep 0.5; :'
rc=$?
sh_f=$(ls run/*.sh 2>/dev/null) true_f=$(ls run/*.true 2>/dev/null) sleep_f=$(ls run/*.sleep 2>/dev/null)
if [ $rc -eq 0 ] && [ -n "$sh_f" ] && [ -n "$true_f" ] && [ -n "$sleep_f" ] && [ "$(ls run | wc -l)" -eq 3 ]; then
	ok tree_times_run
else
	not_ok tree_times_run "exit $rc, files: $(ls run | tr '\n' ' ')"
	exit 0
fi
sh_el=$("$PROF" -s "$sh_f" 2>&1 | sed -n 's/^elapsed: \([0-9.]*\) s.*/\1/p')

# --timeline: start (UTC, ms), seconds, pid, samples, file.
"$PROF" --timeline run >tl.txt 2>tl.err
order=$(awk 'NR > 1 { n = split($5, p, "."); printf "%s ", p[n] }' tl.txt)
# Each start as seconds within the day, against sh's start and end.
awk -v el="$sh_el" 'NR > 1 { split($1, a, "T"); split(a[2], h, ":")
		s = h[1] * 3600 + h[2] * 60 + h[3]; n = split($5, p, ".")
		if (p[n] == "sh") { s0 = s } else start[p[n]] = s }
	END { bad = 0; for (k in start) if (start[k] < s0 || start[k] > s0 + el + 0.001) bad++
		print bad + 0 }' tl.txt >tl.bad
if [ "$order" = "sh true sleep " ] && [ "$(cat tl.bad)" = 0 ] && [ -n "$sh_el" ]; then
	ok tree_times_order
else
	not_ok tree_times_order "order '$order', $(cat tl.bad) starts outside sh's $sh_el s: $(cat tl.txt tl.err)"
fi

m_el=$("$PROF" -s --merge run 2>&1 | sed -n 's/^elapsed: \([0-9.]*\) s.*/\1/p')
if [ -n "$m_el" ] && [ -n "$sh_el" ] &&
	awk -v a="$m_el" -v b="$sh_el" 'BEGIN { exit !(a <= b + 0.001 && a >= b - 0.001) }'; then
	ok tree_times_merged
else
	not_ok tree_times_merged "the tree's elapsed $m_el s, sh's $sh_el s"
fi

if command -v go >/dev/null 2>&1; then
	"$PROF" --format=pprof run >p.pb.gz 2>/dev/null
	HOME=$T GOCACHE=$T/gocache timeout 120 go tool pprof -top p.pb.gz >top.txt 2>gp.err
	# "Duration: 525.60ms, Total samples = ..." (or "1.00s")
	d=$(sed -n 's/^Duration: \([0-9.]*m*s\),.*/\1/p' top.txt)
	# In seconds, and the half of its last printed digit: pprof prints
	# 2 decimals ("1.31s" for sh's 1.306 s: 5 ms either way).
	set -- $(echo "$d" | awk '{ u = /ms$/ ? 1000 : 1; sub(/m*s$/, ""); f = index($0, ".") ? length($0) - index($0, ".") : 0
		printf "%.9f %.9f\n", $0 / u, 0.5 * 10 ^ -f / u }')
	ds=${1:-} half=${2:-0}
	if [ -n "$d" ] && [ -n "$ds" ] && [ -n "$sh_el" ] && awk -v a="$ds" -v b="$sh_el" -v h="$half" 'BEGIN { exit !(a <= b + h + 0.0015 && a >= b - h - 0.0015) }'; then
		ok tree_times_pprof
	else
		not_ok tree_times_pprof "Duration '$d' ($ds s), sh's $sh_el s $(head -c 200 gp.err)"
	fi
else
	ok "tree_times_pprof # skip go absent (Debian: golang-go)"
fi
