#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# prof --format=callgrind: callgrind's format, read by Valgrind's
# callgrind_annotate without a complaint; its totals and each function's
# self cost (samples, CPU ns, share) agree with prof's CSV; the arcs are its
# calls (caller > callee, with the counts), across objects (name
# compression of ob/fn ids resolved).  Twice (export_modes): on a real
# profile with the runtime's call stacks, where the header says inclusive
# costs come from the stacks, each calls= line carries the callee's
# inclusive cost through that call, and callgrind_annotate --inclusive=yes
# gives each function prof's inclusive seconds; and on a flat-only one
# (MONPROF_STACK_DEPTH=0), where the header says inclusive costs are not
# known and each calls= line's inclusive cost is 0.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
export_modes
cd "$T" || exit 1
H=37 S=23 L=41 UNIT=2000000
build_prog mw prof_work.c -pg || { not_ok callgrind_build; exit 1; }
mode_run ./mw $H $S $L $UNIT >/dev/null
[ -s mon.out ] || { not_ok callgrind_mon_out "no mon.out written"; exit 1; }
"$PROF" --format=csv ./mw >p.csv 2>/dev/null
stacks_said p.csv || { not_ok callgrind_stacks_mode "$EXPORT_MODE: $(head -n 1 p.csv)"; exit 1; }
"$PROF" --format=callgrind ./mw >cg.out 2>cg.err
rc=$?

# The file itself: the format's first line, the header's words on
# inclusive costs, and calls= lines each followed by a cost line: the
# position alone (inclusive 0) without stacks; with stacks, main's calls
# into heavy, hidden and light carry at least one sample each (the
# workers' time is all under main), none more than the whole run.
if [ "$EXPORT_MODE" = stacks ]; then
	hdr='inclusive cost of each call is from the call stacks'
	calls_ok='/^calls=/ { c++; getline; if (NF != 3 || $2 < 0 || $2 > tot) bad++; else if ($2 >= 1) pos++ }
		END { exit !(c >= 3 && !bad && pos >= 3) }'
else
	hdr='inclusive cost.*NOT KNOWN'
	calls_ok='/^calls=/ { c++; getline; if (NF != 1) bad++ } END { exit !(c >= 3 && !bad) }'
fi
tot=$(csv_awk -F, 'NR > 1 { s += $8 } END { printf "%.0f", s }' p.csv)
if [ $rc -eq 0 ] && only_warnings cg.err && [ "$(head -n 1 cg.out)" = "# callgrind format" ] &&
   grep -q '^events: Samples CPU_ns$' cg.out && grep -q "$hdr" cg.out &&
   awk -v tot="$tot" "$calls_ok" cg.out
then ok callgrind_file
else not_ok callgrind_file "exit $rc; $(grep -c '^calls=' cg.out) calls; $(grep -A1 '^calls=' cg.out | tr '\n' ' ' | head -c 300) $(head -c 200 cg.err)"; fi

if ! command -v callgrind_annotate >/dev/null 2>&1; then
	for t in clean totals self calls source_files; do
		ok "callgrind_annotate_$t # skip callgrind_annotate absent (Debian: valgrind)"
	done
	exit 0
fi

callgrind_annotate --auto=no --threshold=100 cg.out >a.out 2>a.err
rc=$?
[ $rc -eq 0 ] && [ ! -s a.err ] && ok callgrind_annotate_clean ||
	not_ok callgrind_annotate_clean "exit $rc: $(head -c 300 a.err)"

# PROGRAM TOTALS: the samples of all rows (CSV ticks, rounded per row) and
# their CPU (CSV seconds, 6 decimals: within 1 us a row).
tot=$(sed -n 's/^\([0-9,]*\) ([0-9.]*%) \([0-9,]*\) ([0-9.]*%) *PROGRAM TOTALS$/\1 \2/p' a.out | tr -d ,)
want=$(csv_awk -F, 'NR > 1 { s += int($8 + 0.5); ns += $6 * 1e9; n++ } END { printf "%d %.0f %d", s, ns, n }' p.csv)
if awk -v g="$tot" -v w="$want" 'BEGIN { split(g, a); split(w, b); d = a[2] - b[2]; if (d < 0) d = -d
   exit !(g != "" && a[1] == b[1] && d <= 1000 * b[3]) }'
then ok callgrind_annotate_totals
else agree_not_ok callgrind_annotate_totals "annotate '$tot', prof '$want'"; fi

# Per function: self samples and CPU ns as prof's CSV has them, and the
# share exactly as callgrind_annotate computes it from the file's whole
# samples: 100 x samples / total samples, printed "%5.2f" (between -9.995
# and 99.995, else "%5.1f"; callgrind_annotate's print_CC).  The share is
# not compared with the CSV's: that one is of prof's fractional ticks
# (299.75 after System V's bin splitting), the file's of whole samples
# (300), and both are right in their own units.
# Rows: "S (P%) NS (P%)  FILE:NAME [OBJECT]" (callgrind_annotate adds up
# functions of one name in two objects, and so does this).
bad=$(csv_awk -v tot="${tot% *}" '
	NR == FNR { if (FNR > 1) { s[$1] += int($8 + 0.5); ns[$1] += $6 * 1e9 }; next }
	/^ *[0-9][0-9,]* \(/ && /:[^ ]+ \[/ { line = $0; gsub(/,/, "", line); gsub(/\( +/, "(", line); split(line, f, " ")
		name = f[5]; sub(/^.*:/, "", name); seen[name] = 1
		p = f[2]; gsub(/[(%)]/, "", p)
		q = tot > 0 ? s[name] * 100 / tot : 0
		want = (-9.995 < q && q < 99.995) ? sprintf("%.2f", q) : sprintf("%.1f", q)
		d = f[3] - ns[name]; if (d < 0) d = -d
		if (f[1] != s[name] || d > 1000 || p != want)
			printf "%s: %s %s %s%% vs %s %s %s%%; ", name, f[1], f[3], p, s[name], ns[name], want }
	END { for (n in s) if (s[n] > 0 && !(n in seen)) printf "%s missing; ", n }' \
	FS=, p.csv FS=' ' a.out)
[ -z "$bad" ] && grep -q ':heavy ' a.out && ok callgrind_annotate_self ||
	agree_not_ok callgrind_annotate_self "$bad"

# Calls: main calls each worker as often as the arcs say, and the C
# library's __libc_start_call_main calls main once (another object).
callgrind_annotate --auto=no --tree=calling --threshold=100 cg.out >t.out 2>/dev/null
if awk -v h=$H -v s=$S -v l=$L '
	/\* +[^ ]*:main / { inmain = 1; next } /\*/ { inmain = 0 }
	/^$/ { inmain = 0 }
	inmain && /> +[^ ]*:heavy \(/ { ok += index($0, "(" h "x)") > 0 }
	inmain && /> +[^ ]*:hidden \(/ { ok += index($0, "(" s "x)") > 0 }
	inmain && /> +[^ ]*:light \(/ { ok += index($0, "(" l "x)") > 0 }
	/\* +[^ ]*:__libc_start_call_main \[.*libc/ { inlibc = 1; next }
	inlibc && /> +[^ ]*:main \(1x\) \[.*mw\]/ { ok++; inlibc = 0 }
	END { exit !(ok == 4) }' t.out
then ok callgrind_annotate_calls
else not_ok callgrind_annotate_calls "$(grep -E '[<>*] ' t.out | head -n 12 | tr '\n' ';')"; fi

# Source files, as valgrind's own files have them: heavy's fl= is the
# absolute path of prof_work.c (DWARF's, lines.c PROF_LINES_OUTER, without
# --lines), and callgrind_annotate's auto-annotation shows that file with
# heavy's samples on its line "sink += chain(3 * unit);" (chain's code,
# inlined, is heavy's at the call's line).  Before, every fl= was "???"
# and callgrind_annotate found no source to annotate.
callgrind_annotate --threshold=100 cg.out >src.out 2>/dev/null
hs=$(awk '/Auto-annotated source: .*prof_work\.c/ { in_ = 1; next } /Auto-annotated source:/ { in_ = 0 }
	in_ && index($0, "sink += chain(3 * unit);") { v = $1; gsub(/,/, "", v); print v + 0; exit }' src.out)
if grep -q '^fl=([0-9]*) /.*/prof_work\.c$' cg.out && [ "${hs:-0}" -ge 1 ]; then
	echo "# heavy's line: $hs samples"
	ok callgrind_source_files
else
	not_ok callgrind_source_files "fl= lines: $(grep '^fl=([0-9]*) ' cg.out | head -n 4 | tr '\n' ' '); heavy's line: '${hs:-}'"
fi

# With stacks: --inclusive=yes gives each function prof's inclusive
# samples and CPU (CSV inclusive_seconds, 6 decimals, within 1 us a row of
# the same name); main's inclusive time holds heavy's, hidden's and
# light's own (main calls them all) but the part no stack explains.
if [ "$EXPORT_MODE" = stacks ]; then
	callgrind_annotate --auto=no --inclusive=yes --threshold=100 cg.out >i.out 2>i.err
	bad=$(csv_awk '
		NR == FNR { if (FNR > 1) { ns[$1] += $14 * 1e9; k[$1]++ }; next }
		/^ *[0-9][0-9,]* \(/ && /:[^ ]+ \[/ { line = $0; gsub(/,/, "", line); gsub(/\( +/, "(", line); split(line, f, " ")
			name = f[5]; sub(/^.*:/, "", name); if (!(name in ns)) next; seen[name] = 1
			d = f[3] - ns[name]; if (d < 0) d = -d
			if (d > 1000 * k[name]) printf "%s: %s vs %s; ", name, f[3], ns[name] }
		END { for (n in ns) if (ns[n] > 0 && !(n in seen)) printf "%s missing; ", n }' \
		FS=, p.csv FS=' ' i.out)
	m=$(csv_field p.csv main 14)
	# The workers' own time that no stack explains (samples whose stack
	# was lost or cut, common on a loaded machine) is called from "[no
	# call stack]", not from main: main holds the rest.  Its CPU ns are the
	# file's (its inclusive line), 0 when every sample had its stack.
	nostack=$(awk '/[^ ]*:\[no call stack\]/ { line = $0; gsub(/,/, "", line)
		gsub(/\( +/, "(", line); split(line, f, " "); print f[3]; exit }' i.out)
	echo "# main inclusive $m s; CPU without a call stack ${nostack:-0} ns"
	[ -s i.out ] && [ ! -s i.err ] && [ -z "$bad" ] && grep -q ':main ' i.out &&
		awk -v m="$m" -v n="${nostack:-0}" -F, '$1 ~ /^(heavy|hidden|light)$/ { s += $6 }
			END { exit !(s > 0 && m >= s - n / 1e9 - 1e-6) }' p.csv &&
		ok callgrind_annotate_inclusive ||
		agree_not_ok callgrind_annotate_inclusive "$bad main $m $(head -c 200 i.err)"
fi
