#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# prof --base=FILE: each function's change from the base profile to this
# one, in percentage points and seconds, as prof's own CSV of each profile
# gives them (this minus base), largest change in points first; a function
# with samples in one profile only is a row too (light below: called in the
# base, never in this run); JSON rows carry delta_percent and
# delta_seconds; the text heading says what is subtracted; profiles of
# different clocks are warned of; a profile of
# another program (another build ID) is refused with the reason, and so is
# a format that cannot show a diff.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
cd "$T" || exit 1
UNIT=2000000
build_prog mw prof_work.c -pg || { not_ok diff_build; exit 1; }
./mw 10 10 40 $UNIT >/dev/null && mv mon.out base.out
./mw 40 10 0 $UNIT >/dev/null
[ -s mon.out ] && [ -s base.out ] || { not_ok diff_mon_out "no mon.out written"; exit 1; }
"$PROF" --format=csv ./mw >this.csv 2>/dev/null
"$PROF" --format=csv -m base.out ./mw >base.csv 2>/dev/null
"$PROF" --format=csv --base=base.out ./mw >d.csv 2>d.err
rc=$?
# (commas inside quoted names made ';', for csv_awk -F, below: csv_plain)
for f in this.csv base.csv d.csv; do csv_plain "$f" >"$f.p" && mv "$f.p" "$f"; done

# Every function with samples in either CSV is a row; its numbers are the
# CSVs' (6 decimals each: within 2e-6), the rows in order of |points|.
bad=$(csv_awk -F, '
	FILENAME == "this.csv" && FNR > 1 { p[$1] = $5; s[$1] = $6; if ($8 + 0 > 0) want[$1] = 1; next }
	FILENAME == "base.csv" && FNR > 1 { bp[$1] = $5; bs[$1] = $6; if ($8 + 0 > 0) want[$1] = 1; next }
	FILENAME == "d.csv" && FNR == 1 { if ($0 != "name,kind,object,percent,base_percent,delta_percent,seconds,base_seconds,delta_seconds") print "header: " $0; next }
	FILENAME == "d.csv" {
		n = $1; got[n] = 1
		e1 = $4 - p[n]; e2 = $5 - bp[n]; e3 = $6 - (p[n] - bp[n]); e4 = $9 - (s[n] - bs[n])
		if (e1*e1 > 4e-12 || e2*e2 > 4e-12 || e3*e3 > 1e-11 || e4*e4 > 1e-11)
			printf "%s: %s %s %s %s vs %s %s %s; ", n, $4, $5, $6, $9, p[n], bp[n], s[n] - bs[n]
		a = $6 < 0 ? -$6 : $6
		if (FNR > 2 && a > last + 1e-9) printf "%s out of order (%s after %s); ", n, a, last
		last = a
	}
	END { for (n in want) if (!(n in got)) printf "%s missing; ", n }' this.csv base.csv d.csv)
first=$(sed -n 2p d.csv | cut -d, -f1)
light=$(csv_awk -F, '$1 == "light" { print $4 "," $6 }' d.csv)
if [ $rc -eq 0 ] && only_warnings d.err && [ -z "$bad" ] && [ "$first" = heavy ] &&
   [ "${light%%,*}" = "0.000000" ] && [ "${light#*,}" != "${light#*,-}" ]
then ok diff_csv_agrees
else agree_not_ok diff_csv_agrees "exit $rc; $bad; first $first; light $light; $(head -c 200 d.err)"; fi

# JSON: each row carries delta_percent and delta_seconds, equal to the CSV's.
"$PROF" --format=json --base=base.out ./mw >d.json 2>/dev/null
bad=$(csv_awk -F, 'NR == FNR { if (FNR > 1) { dp[$1] = $6; ds[$1] = $9 }; next }
	/^\{"name":/ { line = $0; n = line; sub(/^\{"name":"/, "", n); sub(/".*/, "", n)
		if (!match(line, /"delta_percent":[-0-9.e+]*/)) { printf "%s: no delta_percent; ", n; next }
		x = substr(line, RSTART + 16, RLENGTH - 16)
		if (!match(line, /"delta_seconds":[-0-9.e+]*/)) { printf "%s: no delta_seconds; ", n; next }
		y = substr(line, RSTART + 16, RLENGTH - 16); rows++
		if ((x - dp[n])^2 > 1e-11 || (y - ds[n])^2 > 1e-11) printf "%s: %s %s vs %s %s; ", n, x, y, dp[n], ds[n] }
	END { if (rows < 3) print "only " rows " rows" }' d.csv d.json)
grep -q '^{"schema":"monprof-prof-diff","version":1,"base":"base.out"' d.json && [ -z "$bad" ] &&
	ok diff_json_deltas || agree_not_ok diff_json_deltas "$bad"

# Text: the heading names the base, heavy's change is signed.
"$PROF" --base=base.out ./mw >d.txt 2>/dev/null
sed -n 1p d.txt | grep -q 'Change.*this profile minus base.out' &&
	awk '$NF == "heavy" && $3 ~ /^\+/ { f = 1 } $NF == "light" && $3 ~ /^-/ { g = 1 } END { exit !(f && g) }' d.txt &&
	ok diff_text || not_ok diff_text "$(head -n 3 d.txt | tr '\n' '|')"

# Profiles taken with different clocks (the itimer's base, the thread
# clock's run): prof warns, naming both clocks and the remedy; two runs of
# one clock (d.err, above) have no such warning.
MONPROF_CLOCK=itimer ./mw 10 10 40 $UNIT >/dev/null && mv mon.out it.out
MONPROF_CLOCK=thread ./mw 40 10 0 $UNIT >/dev/null
"$PROF" --base=it.out ./mw >c.txt 2>c.err
rc=$?
if [ $rc -eq 0 ] && [ -s c.txt ] && only_warnings c.err &&
   grep -q "^prof: warning: mon\.out was profiled with the clock thread-cputime, the base it\.out with the clock itimer-prof: .*(monrun -c thread for both, or MONPROF_CLOCK=thread)\$" c.err &&
   ! grep -q 'profiled with the clock' d.err
then ok diff_clocks_differ
else not_ok diff_clocks_differ "exit $rc; $(grep -i clock c.err d.err | head -c 400)"; fi

# Another program: refused, exit 1, one line giving both programs.
build_prog other prof_work.c -pg -O2 || { not_ok diff_other_build; exit 1; }
./other 1 1 1 1000 >/dev/null && mv mon.out other.out
./mw 40 10 0 $UNIT >/dev/null
ole_real_run=1	# real runs: prof may warn first
one_line_error diff_refuses_other_program 1 \
	"^prof: other\.out: a profile of .*/other \(build ID [0-9a-f]+\), not of .*/mw \(build ID [0-9a-f]+\) as mon\.out is; --base compares two profiles of one program$" \
	"$PROF" --base=other.out ./mw
one_line_error diff_refuses_format 2 "^prof: --base works with --format=text, json or csv, not flame$" \
	"$PROF" --format=flame --base=base.out ./mw
