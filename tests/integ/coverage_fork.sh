#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Fork children's files agree with their histograms (issue 12 item 8): in
# every file of monrun -f, the samples the RUN record says were counted are
# exactly the samples the histograms (and PCS) hold.  A child zeroes its
# copies of the parent's counters and histograms before its clock runs.
# Also (loop below) with _exit at 4000 Hz, and the CPU "not sampled by
# design" of a child's file is its own.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"
. "$(dirname "$0")/mon_helpers.inc"

if build_plain forks cov_forks.c && build_dump; then ok cov_fork_build; else not_ok cov_fork_build; fi
# way RATE: 12 children leaving by exit(3) (the clock is stopped before the
# write) or _exit(2) (written while the clock still runs: the profile ends
# where the write begins).  In every file: counted = the samples the
# histograms hold = the samples of its threads; in a child's file, CPU
# "not sampled by design" (start-up before profiling, the rate check) is
# the child's own: 0 before profiling, and no rate check inherited from
# the parent.
for way in exit:1000 _exit:4000; do
	how=${way%%:*} r=${way#*:}
	rm -rf "$T/d"
	mkdir -p "$T/d"
	(cd "$T/d" && "$MONRUN" -f -r "$r" "$T/forks" 12 0.03 "$how")
	bad="" nfiles=0
	for f in "$T"/d/*; do
		nfiles=$((nfiles + 1))
		dump "$f" info >"$T/info" || { bad="$bad $(basename "$f"):unreadable"; continue; }
		c=$(awk '$1 == "counted" { print $2 }' "$T/info")
		k=$(awk '$1 == "ticks" { print $2 }' "$T/info")
		t=$(awk '$1 == "thread" { n += $9 } END { print n + 0 }' "$T/info")
		[ "$c" = "$k" ] && [ "$t" = "$k" ] || bad="$bad $(basename "$f"):counted=$c,held=$k,threads=$t"
		case $f in
		*.forks)	# a child's (the parent's is mon.out)
			u=$(awk '$1 == "cpu_before_usec" || $1 == "check_usec" { n += $2 } END { print n + 0 }' \
			    "$T/info")
			[ "$u" = 0 ] || bad="$bad $(basename "$f"):not_sampled_by_design=${u}us"
			;;
		esac
	done
	if [ "$nfiles" = 13 ] && [ -z "$bad" ]; then
		ok "cov_fork_counted_matches_$how"
	else
		not_ok "cov_fork_counted_matches_$how" "$nfiles files;$bad"
	fi
done
