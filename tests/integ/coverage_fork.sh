#!/bin/sh
# Fork children's files agree with their histograms (issue 12 item 8): in
# every file of monrun -f, the samples the RUN record says were counted are
# exactly the samples the histograms (and PCS) hold.  A child zeroes its
# copies of the parent's counters and histograms before its clock runs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"
. "$(dirname "$0")/mon_helpers.inc"

if build_plain forks cov_forks.c && build_dump; then ok cov_fork_build; else not_ok cov_fork_build; fi
mkdir -p "$T/d"
(cd "$T/d" && "$MONRUN" -f "$T/forks" 12 0.03)
bad="" nfiles=0
for f in "$T"/d/*; do
	nfiles=$((nfiles + 1))
	dump "$f" info >"$T/info" || { bad="$bad $(basename "$f"):unreadable"; continue; }
	c=$(awk '$1 == "counted" { print $2 }' "$T/info")
	k=$(awk '$1 == "ticks" { print $2 }' "$T/info")
	[ "$c" = "$k" ] || bad="$bad $(basename "$f"):counted=$c,held=$k"
done
if [ "$nfiles" = 13 ] && [ -z "$bad" ]; then
	ok cov_fork_counted_matches
else
	not_ok cov_fork_counted_matches "$nfiles files;$bad"
fi
