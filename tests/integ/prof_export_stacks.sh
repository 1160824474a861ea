#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The exports on call stacks (prof_lib.inc's crafted stacks profile: every
# number known; recursion rec;rec;rec, stacks that end early, JIT code,
# and 50 samples whose stacks were lost):
#  - callgrind: callgrind_annotate --inclusive=yes gives each function the
#    inclusive time of prof's CSV (inclusive_seconds), recursion counted
#    once; time no stack explains is called from "[no call stack]";
#  - pprof: go tool pprof -top -cum gives each function prof's inclusive
#    samples (where Go is installed);
#  - flame: the frames on the root are the folded stacks' first frames with
#    their samples (and "[no call stack]" with the rest), the picture is as
#    deep as the deepest stack, and the callers' view is there.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
cd "$T" || exit 1
command -v as >/dev/null && command -v ld >/dev/null || { echo "SKIP no as/ld"; exit 77; }
build_prog_static craft prof_craft.c -I"$ROOT/format" || { not_ok craft_build; exit 1; }
stacks_inputs || { not_ok stacks_inputs; exit 1; }
"$PROF" -m s.mon --format=csv >flat.csv 2>/dev/null
"$PROF" -m s.mon --format=folded >folded.txt 2>/dev/null
# name -> inclusive samples (inclusive seconds times the rate, from a row's
# ticks over its seconds), for every row.
csv_awk -F, 'NR > 1 && $6 > 0 && !r { r = $8 / $6 } NR > 1 { n[$1] = $14 } END { for (k in n) printf "%s %.3f\n", k, n[k] * r }' \
	flat.csv >incl.txt
[ "$(wc -l <incl.txt)" -ge 7 ] || { not_ok export_stacks_csv "$(cat flat.csv)"; exit 1; }

if command -v callgrind_annotate >/dev/null 2>&1; then
	"$PROF" -m s.mon --format=callgrind >cg.out 2>/dev/null
	callgrind_annotate --inclusive=yes --threshold=100 cg.out >a.txt 2>a.err
	bad=$(awk 'NR == FNR { want[$1] = $2; next }
		/\?\?\?:/ && !/PROGRAM TOTALS/ { line = $0; gsub(/,/, "", line); gsub(/\( +/, "(", line); split(line, f, " ")
			name = line; sub(/.*\?\?\?:/, "", name); sub(/ \[[^]]*\]$/, "", name); got[name] = f[1] }
		END { for (k in want) { d = got[k] - want[k]; if (!(k in got) || d * d > 0.25) printf "%s: %s vs %s; ", k, got[k], want[k] }
			if (got["[no call stack]"] != 50) printf "[no call stack]: %s; ", got["[no call stack]"] }' incl.txt a.txt)
	[ -z "$bad" ] && [ ! -s a.err ] && grep -q 'inclusive cost of each call is from the call stacks' cg.out &&
		ok callgrind_inclusive_agrees || not_ok callgrind_inclusive_agrees "$bad $(head -c 200 a.err)"
else
	ok "callgrind_inclusive_agrees # skip callgrind_annotate absent (Debian: valgrind)"
fi

if command -v go >/dev/null 2>&1; then
	"$PROF" -m s.mon --format=pprof >p.pb.gz 2>/dev/null
	HOME=$T GOCACHE=$T/gocache GOFLAGS=-mod=mod go tool pprof -top -cum -nodefraction=0 \
		-sample_index=samples p.pb.gz >top.txt 2>top.err
	bad=$(awk 'NR == FNR { want[$1] = $2; next }
		$1 ~ /^[0-9.]+$/ && NF == 6 { got[$6] = $4 }
		END { for (k in want) { d = got[k] - want[k]; if (!(k in got) || d * d > 0.25) printf "%s: %s vs %s; ", k, got[k], want[k] } }' \
		incl.txt top.txt)
	[ -z "$bad" ] && ok pprof_cum_agrees || not_ok pprof_cum_agrees "$bad $(head -c 200 top.err)"
else
	ok "pprof_cum_agrees # skip go absent (Debian: golang-go)"
fi

"$PROF" -m s.mon --format=flame >f.svg 2>/dev/null
root=$(sed -n 's/.*<title>all ([^<]*<\/title><rect x="[0-9.]*" y="\([0-9]*\)".*/\1/p' f.svg | head -n 1)
sed -n '/<g id="callers"/q; p' f.svg | grep -o '<title>[^<]*</title><rect x="[0-9.]*" y="[0-9]*"' |
	sed 's/<title>\(.*\) (\([0-9,.]*\) samples, [0-9.]*%)<\/title><rect x="[0-9.]*" y="\([0-9]*\)"/\1|\2|\3/' |
	tr -d , >frames.txt
bad=$(awk -F'|' -v y1=$((root - 16)) '
	NR == FNR { split($0, w, " "); split(w[1], fr, ";"); want[fr[1]] += w[2]; tot += w[2]; next }
	$3 == y1 { got[$1] += $2; lvl += $2 }
	END { for (k in want) if (got[k] + 0 != want[k]) printf "%s: %s vs %s; ", k, got[k], want[k]
		if (got["[no call stack]"] + 0 != 50) printf "[no call stack]: %s; ", got["[no call stack]"]
		if (lvl != tot + 50) printf "level 1 holds %s of %s; ", lvl, tot + 50 }' FS=' ' folded.txt FS='|' frames.txt)
deep=$(awk -F';' '{ n = split($0, a, ";"); if (n > m) m = n } END { print m }' folded.txt)
top=$(awk -F'|' 'NR == 1 || $3 < m { m = $3 } END { print m }' frames.txt)
[ -z "$bad" ] && [ "$top" -eq $((root - 16 * deep)) ] && grep -q '<g id="callers" display="none">' f.svg &&
	ok flame_stacks_agree || not_ok flame_stacks_agree "$bad; top $top root $root deep $deep"

# Size: 10 000 distinct stacks 12 deep (10 files of 1 000, summed), most
# under a tenth of a pixel: the file keeps at most 16 000 frames (about
# 2 MB), says how narrow the frames it left out were (and that the callers'
# view is left out when it does not fit), and is
# still well-formed; pprof, callgrind and flame all write it.
ms=
for k in 0 1 2 3 4 5 6 7 8 9; do
	args=$(awk -v seed=$k 'BEGIN { srand(seed + 1); split("401008 401020 401060 4010a0 4010e0 401120 401130", f, " ")
		for (i = 0; i < 1000; i++) { s = "0x" f[1 + int(rand() * 7)]
			for (d = 1; d < 12; d++) s = s ",0x" f[1 + int(rand() * 7)]
			printf " -k %d:100:0:%s", 1 + int(rand() * 5), s } }')
	./craft big$k.mon -o "stacks:0:0x401000:0x401190:1:$SID" -h 0x401000:0x401190:0x8000:100 \
		-b 56:3000 -T 100:main $args || { not_ok flame_size_bounded "craft big$k.mon"; exit 1; }
	ms="$ms -m big$k.mon"
done
n=$("$PROF" $ms --format=folded 2>/dev/null | wc -l)
"$PROF" $ms --format=flame >big.svg 2>/dev/null
rc=$?
frames=$(grep -c '^<g><title>' big.svg)
size=$(wc -c <big.svg)
wf=ok
command -v xmllint >/dev/null 2>&1 && { xmllint --noout big.svg 2>/dev/null || wf=bad; }
[ $rc -eq 0 ] && [ "$n" -ge 9900 ] && [ "$frames" -le 16000 ] && [ "$frames" -ge 1000 ] &&
	[ "$size" -le 2097152 ] && [ $wf = ok ] &&
	grep -q 'frames under [0-9.]* px left out' big.svg &&
	{ grep -q "no callers' view" big.svg || grep -q '<g id="callers"' big.svg; } &&
	ok flame_size_bounded || not_ok flame_size_bounded "$n stacks: exit $rc, $frames frames, $size bytes, xml $wf"
