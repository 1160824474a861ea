#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# prof --format=flame: one self-contained SVG (well-formed XML as xmllint
# reads it; no outside script, style or link); each frame's <title> reads
# "NAME (N samples, P%)" with N and P as prof's CSV has them and its width
# in proportion to N; a flat-only file (no stacks) is one level of frames
# over the root, and the picture says so.  In a real browser (headless
# Chromium, where installed): the picture renders (a screenshot shows each
# frame in its colour where the SVG puts it), a click on a frame zooms (the
# frame fills the width, the others hide: seen in the DOM after the click
# and in a screenshot), and a search reports the share of the samples it
# matched.
# Twice (export_modes): on a real profile with the runtime's call stacks
# (frames stand on their callers: heavy, hidden and light on main; each
# function's frames add up to its own and its inclusive samples in the
# CSV; the callers' view is there) and on a flat-only one
# (MONPROF_STACK_DEPTH=0).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"
export_modes
cd "$T" || exit 1
H=37 S=23 L=41 UNIT=2000000
build_prog mw prof_work.c -pg || { not_ok flame_build; exit 1; }
mode_run ./mw $H $S $L $UNIT >/dev/null
[ -s mon.out ] || { not_ok flame_mon_out "no mon.out written"; exit 1; }
"$PROF" --format=csv ./mw >p.csv 2>/dev/null
stacks_said p.csv || { not_ok flame_stacks_mode "$EXPORT_MODE: $(head -n 1 p.csv)"; exit 1; }
"$PROF" --format=flame ./mw >f.svg 2>f.err
rc=$?

if [ $rc -eq 0 ] && only_warnings f.err && [ "$(head -c 5 f.svg)" = "<?xml" ] &&
   grep -q '^</svg>$' f.svg
then ok flame_file
else not_ok flame_file "exit $rc; $(head -c 200 f.err)"; fi

if command -v xmllint >/dev/null 2>&1; then
	xmllint --noout f.svg 2>x.err && [ ! -s x.err ] && ok flame_xmllint ||
		not_ok flame_xmllint "$(head -c 300 x.err)"
else
	ok "flame_xmllint # skip xmllint absent (Debian: libxml2-utils)"
fi

# The warning line fits the page (it ran past 1200 px, cut off at both
# ends): a stripped copy of the program warns; the line's text (its tooltip
# left aside) is at most (1200 - 2 x 10) / 7.08 = 166 characters, and the
# tooltip holds the whole first warning as prof printed it.  Mutation: the
# old line (150 characters of the warning, no tooltip; with the "(and N
# more ...)" of a second warning, 199 characters): flame_warning_fits fails.
cp mw mws && strip mws
"$PROF" --format=flame ./mws >fw.svg 2>fw.err
w=$(sed -n 's/^prof: warning: //p' fw.err | head -n 1)
line=$(grep 'fill="#a00"' fw.svg | head -n 1)
shown=$(printf '%s\n' "$line" | sed 's/<title>.*<\/title>//; s/<[^>]*>//g; s/&amp;/\&/g; s/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&apos;/'"'"'/g')
tip=$(printf '%s\n' "$line" | sed -n 's/.*<title>\(.*\)<\/title>.*/\1/p' | sed 's/&amp;/\&/g; s/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&apos;/'"'"'/g')
n=$(printf '%s' "$shown" | wc -m)
if [ -n "$w" ] && [ "$n" -le 166 ] && [ "$tip" = "$w" ]; then
	ok flame_warning_fits
else
	not_ok flame_warning_fits "${n} characters shown: '$shown'; tooltip whole: $([ "$tip" = "$w" ] && echo yes || echo no)"
fi

# Self-contained: no reference to anything outside the file (the only URIs
# are the SVG namespace's, which names and fetches nothing).
if ! grep -Eq 'href|src=|url\(|@import' f.svg &&
   [ "$(grep -Eo '[a-z]+://[^"'\'' ]*' f.svg | sort -u)" = "http://www.w3.org/2000/svg" ]
then ok flame_self_contained
else not_ok flame_self_contained "$(grep -Eo '(href|src=|url\(|@import|[a-z]+://)[^ ]{0,40}' f.svg | head -n 3)"; fi

# Titles and widths against the CSV, in the callees' view (the callers'
# view, with stacks, is after <g id="callers">): the root is "all" with
# every sample (the CSV's ticks added up); each frame is titled "NAME
# (N samples, PCT%)" (flamegraph.pl's words: thousands separated by
# commas, two decimals of percent, N over the root's samples) and is
# N / all * 1180 pixels wide (to the file's 2 decimals).  Each row with
# samples: its frames' own samples (a frame's less the frames standing
# on it) add up to its CSV ticks.  A flat file: every function frame on
# one level, just above the root, its percent the CSV's, and the subtitle
# says there are no stacks.  With stacks: a function's frames add up to its inclusive
# samples (CSV inclusive_seconds times the rate; no recursion here),
# heavy, hidden and light stand on main, the subtitle does not say flat
# and the callers' view is there.
sed '/<g id="callers"/,$d' f.svg |
	grep -o '<title>[^<]*</title><rect x="[0-9.]*" y="[0-9]*" width="[0-9.]*"' |
	sed 's/<title>\(.*\) (\([0-9,.]*\) samples, \([0-9.]*\)%)<\/title><rect x="\([0-9.]*\)" y="\([0-9]*\)" width="\([0-9.]*\)"/\1|\2|\3|\4|\5|\6/' |
	tr -d , >frames.txt
bad=$(csv_awk -F'|' -v mode="$EXPORT_MODE" '
	NR == FNR { split(csv_awk_plain($0), c, ","); if (FNR > 1 && c[6] > 0 && !r) r = c[8] / c[6]
		if (FNR > 1 && c[8] + 0 > 0) { t[c[1]] += c[8]; p[c[1]] = c[5]; tot += c[8] }
		if (FNR > 1 && c[14] != "") inc[c[1]] += c[14]
		next }
	{ k++; N[k] = $1; S[k] = $2; P[k] = $3; X[k] = $4; Y[k] = $5; W[k] = $6; if ($1 == "all") root = k }
	END {
		if (!root || S[root] + 0 != tot || P[root] != "100.00") printf "all: %s vs %s; ", S[root], tot
		for (i = 1; i <= k; i++) {
			own = S[i]
			for (j = 1; j <= k; j++)
				if (Y[j] == Y[i] - 16 && X[j] >= X[i] - 0.01 && X[j] + W[j] <= X[i] + W[i] + 0.01) own -= S[j]
			self[N[i]] += own; all[N[i]] += S[i]; nfr[N[i]]++; yy[N[i]] = Y[i]
			ww = S[i] / tot * 1180; d = W[i] - ww; if (d < 0) d = -d
			want = sprintf("%.2f", 100 * S[i] / tot)
			if (P[i] != want || d > 0.006)
				printf "%s: %s samples %s%% %s px vs %s%% %.3f px; ", N[i], S[i], P[i], W[i], want, ww
		}
		for (f in t) {
			d = self[f] - t[f]; if (d < 0) d = -d
			if (!(f in nfr) || d > 0.01 * nfr[f]) printf "%s: own %s vs %s; ", f, self[f], t[f]
			if (mode == "flat" && nfr[f] == 1 && sprintf("%.2f", p[f]) != sprintf("%.2f", 100 * self[f] / tot))
				printf "%s: %.2f%% in the CSV; ", f, p[f]
			if (mode == "flat" && yy[f] != Y[root] - 16) printf "%s: y %s, not one level above the root; ", f, yy[f]
		}
		if (mode == "stacks") for (f in inc) if (inc[f] > 0) {
			d = all[f] - inc[f] * r; if (d < 0) d = -d
			if (d > 0.01 * (nfr[f] + 1)) printf "%s: frames %s vs inclusive %s; ", f, all[f], inc[f] * r
		}
	}' p.csv frames.txt || echo "awk failed")
on_main() {	# a frame of $1 standing on a frame of main
	awk -F'|' -v f="$1" '$1 == "main" { k++; x[k] = $4; y[k] = $5; w[k] = $6; next }
	$1 == f { a[++n] = $4 " " $5 " " $6 }
	END { for (i = 1; i <= n; i++) { split(a[i], b, " ")
		for (j = 1; j <= k; j++) if (b[2] == y[j] - 16 && b[1] >= x[j] - 0.01 && b[1] + b[3] <= x[j] + w[j] + 0.01) exit 0 }
		exit 1 }' frames.txt
}
nf=$(wc -l <frames.txt)
nrows=$(csv_awk -F, 'NR > 1 && $8 + 0 > 0' p.csv | wc -l)
if [ "$EXPORT_MODE" = flat ]; then
	[ "$nf" -eq $((nrows + 1)) ] || bad="$bad $nf frames for $nrows rows;"
else
	for f in heavy hidden light; do on_main $f || bad="$bad $f not on main;"; done
fi
[ -z "$bad" ] && [ "$nrows" -ge 3 ] && ok flame_titles_widths ||
	agree_not_ok flame_titles_widths "$bad; $nf frames, $nrows rows"
if [ "$EXPORT_MODE" = flat ]; then
	grep -q 'flat profile: the data hold no call stacks' f.svg && ! grep -q 'id="callers"' f.svg
else
	! grep -q 'flat profile' f.svg && grep -q 'id="callers"' f.svg
fi && ok flame_flat_said || not_ok flame_flat_said "$EXPORT_MODE"

# ---- the strip of samples over time ------------------------------------------
# Once (the strip does not depend on call stacks): strip_phases under
# monrun --interval=1 --wall sleeps in interval 1, spins in interval 2 and
# ends early in interval 3, watching PROFDIR for the interval files so that
# its phases follow the intervals on any machine.  The page's strip
# (<g id="strip">) has one bar per file, in time order, each with its
# interval's number and samples (data-seq, data-samples, and in its title
# "#N ... C NOUN samples"), which must be what prof --timeline prints for
# the same files, of CPU samples and with --sample=wall of wall-clock ones
# (mutations caught: a bar left out — strip_bars_timeline; the files'
# samples counted as CPU ones whatever --sample says, in the strip and in
# --timeline alike, or the title's noun fixed as CPU —
# strip_bars_timeline_wall, whose interval #1, asleep, has wall-clock
# samples and next to no CPU ones); its heights are in proportion to the
# counts, the most 44 px, so ordered as they are, the spinning interval's
# tallest, and the bars follow each other along the time axis without
# overlap (mutations caught: heights not scaled by the most — e.g. all
# equal, or by the file's place — and x not from the file's start:
# strip_heights_ordered).  A single file, timed (the run above) or not (the
# C library's gmon.out), and two untimed files, give no strip (mutations
# caught: a strip of one file — the test nspans >= 1; untimed files
# counted as slots — strip_none_single).
if [ "$EXPORT_MODE" = stacks ]; then
	build_plain sp strip_phases.c || not_ok strip_build
	mkdir -p iv
	PROFDIR=$T/iv timeout 60 "$MONRUN" --interval=1 --wall ./sp "$T/iv" >/dev/null 2>iv.err
	nfiles=$(ls iv | grep -vc '\.tmp\.')
	# bars: seq samples height x width title, in the page's order
	strip_bars() {
		sed -n '/^<g id="strip"/,/^<\/g>$/p' "$1" |
			sed -n 's/.*<title>\([^<]*\)<\/title>.*<rect class="slot" x="\([0-9.]*\)" y="[0-9.]*" width="\([0-9.]*\)" height="\([0-9.]*\)" data-seq="\([0-9]*\)" data-samples="\([0-9]*\)".*/\5 \6 \4 \2 \3 \1/p'
	}
	# timeline: seq samples, in time order (seq from the file's name)
	timeline_rows() {
		awk 'NR > 1 && NF >= 5 { s = $5; sub(/^.*\.i0*/, "", s); sub(/\..*$/, "", s); print s, $4 }' "$1"
	}
	for ev in cpu wall; do
		"$PROF" --timeline --sample=$ev ./sp iv >tl.$ev 2>tl.$ev.err
		"$PROF" --format=flame --sample=$ev ./sp iv >iv.$ev.svg 2>iv.$ev.err
		strip_bars iv.$ev.svg >bars.$ev
		timeline_rows tl.$ev >rows.$ev
		noun=$([ $ev = cpu ] && echo CPU || echo wall-clock)
		# Every bar's title: "#SEQ pid ...: ... C NOUN samples (FILE)".
		bad=$(awk -v noun="$noun" '{ t = $0; for (i = 0; i < 5; i++) sub(/^[^ ]+ /, "", t); c = t; gsub(/,/, "", c)
			if (index(t, "#" $1 " pid ") != 1 || index(c, " " $2 " " noun " samples (") == 0)
				printf "title %s for #%s, %s samples; ", t, $1, $2 }' bars.$ev)
		name=strip_bars_timeline
		if [ $ev = wall ]; then
			name=strip_bars_timeline_wall
			# The sleeping interval #1 has wall-clock samples, next to
			# no CPU ones: the counts are not the CPU bars'.
			[ "$(cut -d' ' -f2 bars.wall)" != "$(cut -d' ' -f2 bars.cpu)" ] ||
				bad="$bad the wall-clock bars count what the CPU bars do;"
		fi
		if [ "$nfiles" -ge 3 ] && [ "$(wc -l <bars.$ev)" -eq "$nfiles" ] &&
		   [ "$(cut -d' ' -f1,2 bars.$ev)" = "$(cat rows.$ev)" ] && [ -z "$bad" ] &&
		   only_warnings iv.$ev.err; then
			ok "$name ($nfiles files: $(cut -d' ' -f2 bars.$ev | tr '\n' ' '))"
		else
			not_ok $name "$nfiles files; bars (seq samples): $(cut -d' ' -f1,2 bars.$ev | tr '\n' ';') timeline: $(tr '\n' ';' <rows.$ev) $bad $(head -c 200 iv.$ev.err)"
		fi
	done
	# Heights in proportion to the counts (44 px the most), so ordered as
	# they are; the spinning interval (#2) the tallest, above #1 and #3;
	# the bars in time order, side by side without overlap.
	bad=$(awk '{ k++; s[k] = $1; c[k] = $2; h[k] = $3; x[k] = $4; w[k] = $5; if ($2 > m) m = $2 }
		END {
			if (k < 3) printf "%d bars; ", k
			for (i = 1; i <= k; i++) {
				d = h[i] - 44 * c[i] / m; if (d < 0) d = -d
				if (d > 0.006) printf "#%s: %s px for %s of %s; ", s[i], h[i], c[i], m
				for (j = 1; j <= k; j++)
					if ((c[i] > c[j]) != (h[i] > h[j]) || (c[i] == c[j]) != (h[i] == h[j]))
						printf "#%s (%s, %s px) against #%s (%s, %s px); ", s[i], c[i], h[i], s[j], c[j], h[j]
				if (i > 1 && x[i] < x[i - 1] + w[i - 1] - 0.01) printf "#%s at x %s overlaps #%s; ", s[i], x[i], s[i - 1]
			}
			if (!(c[2] > c[1] && c[2] > c[3] && h[2] == 44)) printf "the spinning interval #2 is not the tallest: %s %s %s; ", c[1], c[2], c[3]
		}' bars.cpu)
	if [ -z "$bad" ]; then ok strip_heights_ordered; else not_ok strip_heights_ordered "$bad"; fi
	# One file: no strip, timed or not; two untimed files: none either.
	mkdir -p gm
	if (cd gm && $CC -O1 -g -pg -o gw "$ROOT/tests/progs/prof_work.c" && ./gw 1 1 1 100000 >/dev/null) &&
	   [ -s gm/gmon.out ]; then
		cp gm/gmon.out gm/g2.out
		"$PROF" --format=flame gm/gw gm/gmon.out >g1.svg 2>g1.err; r1=$?
		"$PROF" --format=flame gm/gw gm/gmon.out gm/g2.out >g2.svg 2>g2.err; r2=$?
		if [ $r1 -eq 0 ] && [ $r2 -eq 0 ] && grep -q '^</svg>$' g1.svg && grep -q '^</svg>$' g2.svg &&
		   ! grep -q 'id="strip"' f.svg && ! grep -q 'id="strip"' g1.svg && ! grep -q 'id="strip"' g2.svg
		then ok strip_none_single
		else not_ok strip_none_single "exit $r1 $r2; strips in: $(grep -l 'id="strip"' f.svg g1.svg g2.svg | tr '\n' ' ') $(head -c 200 g2.err)"; fi
	else
		not_ok strip_none_single "no gmon.out from cc -pg"
	fi
fi

# ---- in a browser ----------------------------------------------------------
CHROME=
for c in chromium chromium-browser google-chrome; do
	command -v $c >/dev/null 2>&1 && { CHROME=$c; break; }
done
if [ -z "$CHROME" ] || ! command -v python3 >/dev/null 2>&1; then
	for t in flame_chromium_render flame_chromium_click_dom flame_chromium_click_picture \
		 flame_chromium_search strip_chromium_dom strip_chromium_picture; do
		case $t in strip_*) [ "$EXPORT_MODE" = stacks ] || continue ;; esac
		ok "$t # skip chromium or python3 absent (Debian: chromium, python3)"
	done
	exit 0
fi
# A private profile directory (runs in parallel do not share one); as root
# Chromium needs --no-sandbox.
chrome() {
	timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$T/chrome" --force-device-scale-factor=1 --hide-scrollbars "$@" \
		2>>chrome.err
}
height=$(sed -n 's/.*<svg [^>]* height="\([0-9]*\)".*/\1/p' f.svg)

# The pixel at (x, y) of a PNG Chromium wrote: 8-bit RGB or RGBA, not
# interlaced; decoded with zlib and the five filters (PNG spec, 9.2).
cat >px.py <<'EOF'
import sys, zlib, struct
def load(path):
    d = open(path, 'rb').read()
    assert d[:8] == b'\x89PNG\r\n\x1a\n'
    i, idat = 8, b''
    while i < len(d):
        n, t = struct.unpack('>I4s', d[i:i + 8]); body = d[i + 8:i + 8 + n]; i += 12 + n
        if t == b'IHDR': w, h, depth, ctype, _, _, lace = struct.unpack('>IIBBBBB', body)
        elif t == b'IDAT': idat += body
    assert depth == 8 and ctype in (2, 6) and lace == 0
    bpp = 3 if ctype == 2 else 4
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0; b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line); prev = line
    return w, h, bpp, rows
w, h, bpp, rows = load(sys.argv[1])
for xy in sys.argv[2:]:
    x, y = map(int, xy.split(','))
    print('%d,%d,%d' % tuple(rows[y][x * bpp:x * bpp + 3]))
EOF
# mid NAME: a pixel of the frame (its middle, 2 rows below its top edge: no
# label there), from frames.txt; fill NAME: its colour in the SVG
# (the widest frame of NAME, where it has several)
mid() { awk -F'|' -v f="$1" '$1 == f && $6 > w { w = $6; m = sprintf("%d,%d", $4 + $6 / 2, $5 + 2) }
	END { printf "%s", m }' frames.txt; }
fill() {	# the fill, #rrggbb in the SVG, as r,g,b
	h=$(sed -n "s/.*<title>$1 ([^<]*<\/title><rect [^>]*fill=\"#\([0-9a-f]*\)\".*/\1/p" f.svg | head -n 1)
	[ -n "$h" ] && printf '%d,%d,%d' "0x$(echo $h | cut -c1-2)" "0x$(echo $h | cut -c3-4)" "0x$(echo $h | cut -c5-6)"
}
near() {	# two r,g,b within 3 per channel (the renderer's rounding)
	awk -v a="$1" -v b="$2" 'BEGIN { split(a, p, ","); split(b, q, ","); if (a == "" || b == "") exit 1
		for (i = 1; i <= 3; i++) { d = p[i] - q[i]; if (d < -3 || d > 3) exit 1 } }'
}

chrome --screenshot="$T/shot.png" --window-size=1200,"$height" "file://$T/f.svg" >/dev/null
got=$(python3 px.py shot.png "$(mid heavy)" "$(mid hidden)" "$(mid light)" 2>&1 | tr '\n' ' ')
want="$(fill heavy) $(fill hidden) $(fill light) "
set -- $got
if [ -s shot.png ] && near "$1" "$(fill heavy)" && near "$2" "$(fill hidden)" && near "$3" "$(fill light)"
then ok flame_chromium_render
else not_ok flame_chromium_render "pixels '$got', fills '$want'; $(tail -c 200 chrome.err)"; fi

# A click on hidden (dispatched as a mouse event by the page's own
# #click= handler): hidden fills the width, heavy and light hide, the
# root spans the width faded, Reset Zoom shows.
chrome --dump-dom "file://$T/f.svg#click=hidden" >dom.txt
if grep -q '<g><title>hidden ([^<]*</title><rect x="10.00" y="[0-9]*" width="1180.00"' dom.txt &&
   grep -q '<g display="none"><title>heavy (' dom.txt &&
   grep -q '<g display="none"><title>light (' dom.txt &&
   grep -q '<g opacity="0.6"><title>all (' dom.txt &&
   grep -q '<text id="unzoom" class="b" x="10" y="24">Reset Zoom' dom.txt
then ok flame_chromium_click_dom
else not_ok flame_chromium_click_dom "$(grep -o '<g[^>]*><title>[^<]*</title><rect [^>]*>' dom.txt | head -n 4 | tr '\n' ' ')"; fi

# The same click in a picture: hidden's colour now at the left edge and the
# middle of its row, where heavy was.
chrome --screenshot="$T/zoom.png" --window-size=1200,"$height" "file://$T/f.svg#click=hidden" >/dev/null
y=$(awk -F'|' '$1 == "hidden" && $6 > w { w = $6; y = $5 + 2 } END { print y }' frames.txt)
got=$(python3 px.py zoom.png "20,$y" "600,$y" "1180,$y" 2>&1 | tr '\n' ' ')
set -- $got
if near "$1" "$(fill hidden)" && near "$2" "$(fill hidden)" && near "$3" "$(fill hidden)" &&
   ! near "$1" "$(fill heavy)"
then ok flame_chromium_click_picture
else not_ok flame_chromium_click_picture "pixels '$got', hidden '$(fill hidden)'"; fi

# Search ^h: heavy and hidden (nothing else begins with h), their share
# of the samples as the CSV adds them up (their ticks over all the rows'
# ticks: with stacks, a leaf's samples are all under it), every frame of
# theirs in the callees' view painted.
chrome --dump-dom "file://$T/f.svg#search=%5Eh" >search.txt
m=$(sed -n 's/.*<text id="matched"[^>]*>Matched: \([0-9.]*\)%<.*/\1/p' search.txt)
want=$(csv_awk -F, 'NR > 1 { t += $8 } $1 == "heavy" || $1 == "hidden" { s += $8 } END { printf "%.2f", 100 * s / t }' p.csv)
n=$(grep -c 'fill="rgb(230,0,230)"' search.txt)
nh=$(grep -c '^h' frames.txt)
# One sample either way: the histograms and the stacks start and stop
# recording one after the other, so a tick at either end may be in one
# and not the other (two proof runs: 78.16 against 77.96 % of ~500).
tot=$(csv_awk -F, 'NR > 1 { t += $8 } END { printf "%d", t }' p.csv)
awk -v m="$m" -v w="$want" -v t="$tot" 'BEGIN { d = m - w; if (d < 0) d = -d
	exit !(m != "" && t > 0 && d <= 100 / t + 0.011) }' &&
	[ "$nh" -ge 2 ] && [ "$n" -eq "$nh" ] && ok flame_chromium_search ||
	agree_not_ok flame_chromium_search "matched '$m'%, CSV $want%, $n frames painted of $nh"

# The strip in a browser (once, as above): the rendered page's DOM holds
# one bar per file, and #slot=K (the page's script dispatching a mouseover
# on the Kth bar it found in the DOM, K the tallest) puts that bar's title
# in the details line (mutations caught: the script not finding the
# strip's bars, a bar left out — strip_chromium_dom); in a picture the
# tallest bar is drawn just above the axis in its colour (#5a7fa8 at 0.85
# over the page's #f6f6f0), and above the shortest bar, where it is under
# 28 px, is the page (strip_chromium_picture).
if [ "$EXPORT_MODE" = stacks ]; then
	k=$(awk '$3 == 44 { print NR; exit }' bars.cpu)
	title=$(sed -n "${k:-1}p" bars.cpu | cut -d' ' -f6-)
	chrome --dump-dom "file://$T/iv.cpu.svg#slot=$k" >strip_dom.txt
	nb=$(grep -o '<rect class="slot"' strip_dom.txt | wc -l)
	got=$(sed -n 's/.*<text id="details"[^>]*>\([^<]*\)<.*/\1/p' strip_dom.txt)
	if [ -n "$k" ] && [ "$nb" -eq "$(wc -l <bars.cpu)" ] && [ "$got" = "$title" ]; then
		ok strip_chromium_dom
	else
		not_ok strip_chromium_dom "$nb bars in the DOM of $(wc -l <bars.cpu); details '$got', bar $k's title '$title'"
	fi
	sh_=$(sed -n 's/.*<svg [^>]* height="\([0-9]*\)".*/\1/p' iv.cpu.svg)
	base=$(sed -n 's/^<line x1="10" y1="\([0-9]*\)" x2="1190".*/\1/p' iv.cpu.svg | head -n 1)
	chrome --screenshot="$T/strip.png" --window-size=1200,"$sh_" "file://$T/iv.cpu.svg" >/dev/null
	tall=$(sed -n "${k:-1}p" bars.cpu | awk -v b="$base" '{ printf "%d,%d", $4 + $5 / 2, b - 3 }')
	low=$(sort -k2,2n bars.cpu | head -n 1 | awk -v b="$base" '$3 < 28 { printf "%d,%d", $4 + $5 / 2, b - 30 }')
	got=$(python3 px.py strip.png "$tall" ${low:+"$low"} 2>&1 | tr '\n' ' ')
	want=$(awk 'BEGIN { printf "%d,%d,%d", 0.85 * 90 + 0.15 * 246 + 0.5, 0.85 * 127 + 0.15 * 246 + 0.5, 0.85 * 168 + 0.15 * 240 + 0.5 }')
	set -- $got
	if [ -s strip.png ] && near "$1" "$want" && { [ -z "$low" ] || near "${2:-}" 246,246,240; }
	then ok strip_chromium_picture
	else not_ok strip_chromium_picture "pixels '$got' at $tall $low, bar $want; $(tail -c 200 chrome.err)"; fi
fi

# The title names the program's file tidily: run as ./sub/../mw, the
# runtime records /T/sub/../mw (the name it was run by, made absolute);
# the title says /T/mw.  Mutation: the recorded name as it is.
mkdir -p sub tidy
PROFDIR=$T/tidy timeout 60 "$MONRUN" ./sub/../mw 3 2 1 20000 >/dev/null 2>&1
"$PROF" --format=flame tidy >tidy.svg 2>/dev/null
title=$(sed -n 's/.*>\(Flame graph of [^<]*\)<.*/\1/p' tidy.svg | head -n 1)
[ "$title" = "Flame graph of $(pwd -P)/mw" ] && ok flame_title_tidy ||
	not_ok flame_title_tidy "'$title'"
