#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Interval files carry the wall-clock samples of their interval (issue 22):
# tests/progs/wall_interval.c under PROFDIR=DIR monrun --interval=1
# --wall=200 for four intervals (three cut by the control thread, the last
# half a second long, written at exit): a steady thread blocked in read(2)
# in steady_wait all along, a phase thread waiting in wait_alpha in odd
# files and in wait_beta in even ones (main switches it when it sees a new
# file).
#   wall_interval_run     exit 0, four interval files, each with a WALL record
#   wall_interval_phase   in each file the phase thread's blocked samples are
#                         in its interval's function: at least 20 and twice the
#                         other's (the other's: the moment main takes to see
#                         a new file); the steady thread's in steady_wait
#   wall_interval_rate    in each file the steady thread (blocked, never
#                         running: every round counts it, late rounds
#                         included) has its due rounds in that interval,
#                         the interval's length x 200 Hz as the sampler
#                         measured it (its expected count: the round
#                         instants in its span, clipped to the interval), its
#                         samples within 2 % + 2 of them and its taken count
#                         within 2 of its samples (a round may race a cut
#                         between counting a sample and the thread's taken),
#                         and no more than the file's rounds + missed rounds
#                         (+ 2, + the last file's missed: a late round's
#                         weight may follow its missed rounds over a cut)
#   wall_interval_sum     over the four files, the steady thread's samples are
#                         its life (as the thread measured it) x 200 Hz: no
#                         less than 0.9 x and no more than 1.02 x + 5 (a
#                         sampler held back at the very end by a loaded
#                         machine loses the rounds after its last)
#   wall_interval_prof    prof reads them: prof DIR --sample=wall (folded) has
#                         exactly the four files' steady_wait samples, prof -m
#                         of files 2 and 3 exactly theirs, and --timeline
#                         --sample=wall each file's wall samples
#   wall_interval_*_abort, wall_interval_*_exec   run, phase, rate and sum again
#                         when the program ends by abort(3) (the last file
#                         written from the signal's handler, the sampler
#                         running) and by an exec of /bin/true (the sampler
#                         stopped before the last file)
# Mutations: mon_wall_put not moving the base at a cut (advance 0 for
# MON_WALL_CUT: each file holds the run so far) fails wall_interval_phase
# and _sum; only the samples' base not moved (sample_cut) fails _phase,
# _rate and _sum; the last interval's file written without its WALL record
# (monitor.c's fill skipping mon_wall_put for MONOUT_INTERVAL_LAST) fails
# _run, _phase, _rate and _sum.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wall_lib.inc"

build_wall_dump
$CC -O1 -g -o "$T/wi" "$ROOT/tests/progs/wall_interval.c" -lpthread
nm -n --defined-only "$T/wi" >"$T/wi.nm"
# Checks that name functions in blocked threads' stacks (as wall_pause.sh's).
SAN_WHY="the sanitizer's interceptors (read, pthread_cond_wait) are built with frame pointers, and a blocked thread's walk starts from the SP and PC /proc gives, without its frame pointer, so it ends in them"
# run_case END SUFFIX RC: the run ending by END (exit, abort, exec: the
# program's third argument) into $T/dSUFFIX, expected exit status RC; the
# checks named with SUFFIX; $D, $T/files, $T/all.txt for the prof checks.
run_case() {
	end=$1 sfx=$2 want_rc=$3
	D=$T/d$sfx
	mkdir -p "$D"
	PROFDIR=$D timeout 120 "$B/bin/monrun" --interval=1 --wall=200 "$T/wi" "$D" 4 "$end" \
		>"$T/out" 2>"$T/err"
	rc=$?
	cat "$T/out" "$T/err"
	ls "$D" | grep -E '\.wi\.i[0-9]*\.[0-9]*T[0-9]*Z(\.exec[0-9]+)?$' | sort >"$T/files"
	n=0
	: >"$T/all.txt"
	for f in $(cat "$T/files"); do
		n=$((n + 1))
		"$T/wall_dump" "$D/$f" "$T/wi.nm" >"$T/f$n.txt" 2>&1
		sed "s/^/$n /" "$T/f$n.txt" >>"$T/all.txt"
	done
	grep -v ' sample \| wait ' "$T/all.txt"
	nwall=$(grep -c '^[0-9]* wall 1 ' "$T/all.txt")
	if [ $rc -eq "$want_rc" ] && [ "$n" -eq 4 ] && [ "$nwall" -eq 4 ]; then ok wall_interval_run$sfx
	else not_ok wall_interval_run$sfx "exit $rc, $n interval files, $nwall with a WALL record"; fi

	st=$(awk '$1 == "steady" && $2 == "tid" { print $3 }' "$T/out")
	ph=$(awk '$1 == "phase" && $2 == "tid" { print $3 }' "$T/out")
	life=$(awk '$1 == "steady_us" { print $2 }' "$T/out")
	r=$(awk -v st="$st" -v ph="$ph" -v life="${life:-0}" -v nf="$n" '
	$2 == "wall" && $3 == 1 { rate = $5; rm[$1] = $7 + $9; miss[$1] = $9 }
	$2 == "thread" && $3 == st { due[$1] = $7; taken[$1] = $9 }
	$2 == "sample" && $5 == st { s[$1] += $3; if (index($NF, "steady_wait")) sw[$1] += $3 }
	$2 == "sample" && $5 == ph && $7 == "blocked" {
		if (index($NF, "wait_alpha")) al[$1] += $3
		if (index($NF, "wait_beta")) be[$1] += $3
	}
	END {
		okp = oks = nf == 4; okr = nf == 4
		for (k = 1; k <= nf; k++) {
			right = k % 2 ? al[k] : be[k]; wrong = k % 2 ? be[k] : al[k]
			printf "# file %d: phase %s %d, other %d; steady %d (in steady_wait %d), taken %d, due %d; rounds + missed %d\n", k,
				k % 2 ? "wait_alpha" : "wait_beta", right, wrong, s[k], sw[k], taken[k], due[k], rm[k]
			if (right < 20 || right < 2 * wrong || sw[k] < 0.95 * s[k])
				okp = 0
			d = s[k] - due[k]; if (d < 0) d = -d
			t = s[k] - taken[k]; if (t < 0) t = -t
			if (due[k] < 50 || d > 0.02 * due[k] + 2 || t > 2 || s[k] > rm[k] + miss[k - 1] + 2)
				okr = 0
			tot += s[k]
		}
		want = life * rate / 1e6
		printf "# steady: %d samples over the files, life %.3f s x %d Hz = %.0f\n", tot, life / 1e6, rate, want
		oks = nf == 4 && want > 0 && tot >= 0.9 * want && tot <= 1.02 * want + 5
		print (okp ? "ok" : "bad") " " (okr ? "ok" : "bad") " " (oks ? "ok" : "bad")
	}' "$T/all.txt")
	echo "$r" | grep '^#'
	set -- $(echo "$r" | grep -v '^#')
	if [ "${1:-}" = ok ]; then ok wall_interval_phase$sfx
	else wall_san_not_ok wall_interval_phase$sfx "$(echo "$r" | grep '^# file' | tr '\n' ' ')" "$SAN_WHY"; fi
	if [ "${2:-}" = ok ]; then ok wall_interval_rate$sfx
	else not_ok wall_interval_rate$sfx "$(echo "$r" | grep '^# file' | tr '\n' ' ')"; fi
	if [ "${3:-}" = ok ]; then ok wall_interval_sum$sfx
	else not_ok wall_interval_sum$sfx "$(echo "$r" | grep '^# steady')"; fi
}
run_case exit '' 0

# prof: the folded wall view's steady_wait samples, merged and for two files.
folded_steady() {
	"$B/bin/prof" --sample=wall --format=folded "$@" 2>/dev/null |
		awk 'index($0, "steady_wait") { n += $NF } END { print n + 0 }'
}
dump_steady() {
	awk -v lo="$1" -v hi="$2" '$1 >= lo && $1 <= hi && $2 == "sample" && index($NF, "steady_wait") { n += $3 }
		END { print n + 0 }' "$T/all.txt"
}
f2=$(sed -n 2p "$T/files") f3=$(sed -n 3p "$T/files")
all_p=$(folded_steady "$T/wi" "$D") all_d=$(dump_steady 1 4)
mid_p=$(folded_steady -m "$D/$f2" -m "$D/$f3" "$T/wi") mid_d=$(dump_steady 2 3)
"$B/bin/prof" --timeline --sample=wall "$T/wi" "$D" >"$T/timeline" 2>&1
cat "$T/timeline"
tl=$(awk 'NR == FNR { if ($2 == "sample") w[$1] += $3; next }
	FNR > 1 { k++; if ($4 != w[k]) bad++ } END { print k == 4 && !bad ? "ok" : "bad" }' \
	"$T/all.txt" "$T/timeline")
echo "# prof steady_wait: all files $all_p (dumps $all_d), files 2-3 $mid_p (dumps $mid_d); timeline $tl"
if [ "$all_d" -gt 0 ] && [ "$all_p" = "$all_d" ] && [ "$mid_d" -gt 0 ] && [ "$mid_p" = "$mid_d" ] &&
   [ "$tl" = ok ]; then
	ok wall_interval_prof
else
	wall_san_not_ok wall_interval_prof "steady_wait: prof $all_p of $all_d, files 2-3 $mid_p of $mid_d; timeline $tl" "$SAN_WHY"
fi

# The last interval from a fatal signal's handler (abort: the sampler still
# runs) and before an exec (the sampler stopped first): the same checks.
run_case abort _abort 134
run_case exec _exec 0
