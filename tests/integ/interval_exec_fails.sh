#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# An exec that fails under `monrun --interval` (issue 22): the exec hook
# writes the image's last interval, the exec fails (ENOENT), the series
# goes on in the same image.  The last file's counts must have been taken,
# or the next file holds them again.
#   interval_exec_fails_run     tests/progs/monrun_execs.c fail 0.6 under
#                               --interval=5: exit 0, two files (the one
#                               written at the exec, then the one at exit)
#   interval_exec_fails_sum     the files' samples (RUN) add up to the
#                               process's samples so far (the last file's
#                               INTERVAL samples total): no sample in two
#                               files
# Mutation: the exec's cut without take (as before): 1798 samples over the
# files against 1198 taken, interval_exec_fails_sum fails (and prof showed
# before_exec_work at 1.20 s for 0.6 s burnt).
#   interval_exec_fails_said    the file written at the exec keeps its IMAGES
#                               record naming the image the exec would have
#                               run; prof, finding the next interval of the
#                               same program beside it, says the exec failed
#                               (not that the process ran 2 programs)
#   interval_exec_ok_said       an exec that succeeded, whose new image's own
#                               series reaches interval 2 (--interval=1):
#                               the file written at the exec says the next
#                               program is profiled in a file of its own
#   interval_exec_retry_said    a shell's exec that tries each PATH directory
#                               (two fail, the third runs): each failed
#                               try's file says it failed, the last one's
#                               that the next program has a file of its own
#   interval_exec_both_kept     that exec's cut and the new image's first
#                               interval, begun in the same second, are two
#                               files, and the IMAGES entries name the
#                               exec's cut's file as it is (.execN)
# Mutation: prof_exec_failed answering 0 (as before): _said fails; answering
# 1 whenever the next interval of the pid is there: _ok_said fails; the next
# file required to have one image fewer (a try after a failed try has as
# many): _retry_said fails.  An
# exec's cut named as any interval (as before): the new image's first file
# took its name (the exec's cut lost), _both_kept fails.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"
. "$(dirname "$0")/mon_helpers.inc"

if build_plain ex monrun_execs.c && build_dump; then
	ok interval_exec_fails_build
else
	not_ok interval_exec_fails_build
	exit 0
fi
D=$T/d
mkdir -p "$D"
PROFDIR=$D timeout 120 "$MONRUN" --interval=5 "$T/ex" fail 0.6 >"$T/out" 2>"$T/err"
rc=$?
cat "$T/out" "$T/err"
for f in $(ls "$D" | grep '\.i[0-9]'); do
	dump "$D/$f" info | awk '$1 == "samples" { s = $2 } $1 == "interval_seq" { q = $2 }
		$1 == "interval_samples_total" { t = $2 } END { print q, s, t }'
done | sort -n >"$T/rows"
cat "$T/rows"
n=$(wc -l <"$T/rows")
if [ $rc -eq 0 ] && [ "$n" = 2 ]; then
	ok interval_exec_fails_run
else
	not_ok interval_exec_fails_run "exit $rc, $n files, want 0 and 2"
fi
set -- $(awk '{ sum += $2; total = $3 } END { print sum + 0, total + 0 }' "$T/rows")
if [ "$n" = 2 ] && [ "$2" -gt 0 ] && [ "$1" = "$2" ]; then
	ok interval_exec_fails_sum
else
	not_ok interval_exec_fails_sum "the files hold $1 samples, the process took $2"
fi

first=$(ls "$D" | grep '\.i000001\.' | head -n 1)
"$PROF" -s "$D/$first" >/dev/null 2>"$T/said.err"
if grep -q "this interval ended at an exec of .*, which failed: the process went on in the same program" "$T/said.err" &&
	! grep -q "ran 2 programs" "$T/said.err"; then
	ok interval_exec_fails_said
else
	not_ok interval_exec_fails_said "$(grep -i exec "$T/said.err")"
fi

# An exec that works: the new image's own series (interval 1, 2, ...),
# begun in the second the exec's cut began (the run starts in the first
# 400 ms of a second, the exec 0.2 s later), so that its first file's name
# would be the exec's cut's but for the .execN that one has.
i=0
while :; do
	ns=$(date +%N)
	[ "${ns%????????}" -lt 4 ] && break
	i=$((i + 1))
	[ $i -lt 3000 ] || break
done
D2=$T/d2
mkdir -p "$D2"
PROFDIR=$D2 timeout 120 "$MONRUN" --interval=1 "$T/ex" then 0.2 "$T/ex" work 2.2 >"$T/out2" 2>&1
: >"$T/said2.err"
for f in $(ls "$D2"); do
	"$PROF" -s "$D2/$f" >/dev/null 2>>"$T/said2.err"
done
# Each profile an IMAGES entry names is there.
missing=0
for f in $(sed -n 's/.*(profile \([^)]*\)).*/\1/p' "$T/said2.err" | sort -u); do
	[ -f "$f" ] || missing=$((missing + 1))
done
# (On a loaded machine the exec may come after the first interval: its
# cut is then interval 2, named so.)
if [ "$(ls "$D2" | grep -c '\.exec1$')" -eq 1 ] && [ "$missing" -eq 0 ] &&
	[ "$(ls "$D2" | grep -c '\.i000001\.[0-9TZ]*$')" -eq 1 ] &&
	grep -q "(profile $D2/[0-9]*\.ex\.i[0-9]*\.[0-9TZ]*\.exec1)" "$T/said2.err"; then
	ok interval_exec_both_kept
else
	not_ok interval_exec_both_kept "files: $(ls "$D2" | tr '\n' ' '); $missing named profiles missing: $(grep -o '(profile [^)]*)' "$T/said2.err" | sort -u | tr '\n' ' ')"
fi
if grep -q "ran 2 programs, one exec'ing the next: [^ ]*/ex (shown here), then [^ ]*/ex (profiled in a file of its own)" "$T/said2.err" &&
	[ "$(ls "$D2" | grep -c '\.i000002\.')" -ge 1 ] && ! grep -q "which failed" "$T/said2.err"; then
	ok interval_exec_ok_said
else
	not_ok interval_exec_ok_said "$(ls "$D2" | tr '\n' ' '): $(grep -i exec "$T/said2.err")"
fi

# A shell's exec that searches PATH: one exec a directory, each a cut.
D3=$T/d3
mkdir -p "$D3"
PROFDIR=$D3 timeout 120 "$MONRUN" --interval=5 /bin/sh -c \
	'i=0; while [ $i -lt 100000 ]; do i=$((i + 1)); done; PATH=/nonexistent1:/nonexistent2:/usr/bin:/bin exec true' \
	>"$T/out3" 2>&1
: >"$T/said3.err"
for f in $(ls "$D3" | grep '^[0-9]*\.sh\.' | sort); do
	"$PROF" -s "$D3/$f" >/dev/null 2>>"$T/said3.err"
done
if [ "$(grep -c 'this interval ended at an exec of /nonexistent[12]/true, which failed' "$T/said3.err")" -eq 2 ] &&
	grep -q "ran 2 programs, one exec'ing the next: [^ ]*sh (shown here), then [^ ]*/true (profiled in a file of its own)" "$T/said3.err"; then
	ok interval_exec_retry_said
else
	not_ok interval_exec_retry_said "$(ls "$D3" | tr '\n' ' '): $(grep -i exec "$T/said3.err")"
fi
