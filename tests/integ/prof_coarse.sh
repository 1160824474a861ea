#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Coarse bins (issue 12; the case coarse-bins.c): monitor() over the whole
# text with 64 bins, so a bin spans kilobytes and the last one reaches past
# etext.  Its samples are shared only over the sampled addresses: no row
# outside [lowpc, etext), and no [object] or [unknown] row of 1 % or more
# (it had 43 %; bytes of the code segment between its sections, alignment
# before etext, are in the range and may take a sliver of a bin).  With 4 bins the
# buffer is too small to cover the range, and the samples that fell past
# it are reported (a "dropped" warning whose count is the file's).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
cd "$T" || exit 1
build_prog coarse prof_coarse.c || { not_ok build_coarse; exit 1; }
etext=$(nm_addr coarse etext)

./coarse 64 50000000 >/dev/null && "$PROF" -x --format=csv coarse >c.csv 2>c.err
bad=$(csv_awk -F, -v e="$etext" 'function hx(s,  v, i) { v = 0; s = tolower(substr(s, 3))
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	NR > 1 && ((($2 == "object" || $2 == "unknown") && $5 >= 1) || ($4 != "" && hx($4) >= e)) { print }' c.csv)
rows=$(awk 'END { print NR - 1 }' c.csv)
if [ "$rows" -ge 1 ] && [ -z "$bad" ]; then ok coarse_last_bin_stays_in_range
else not_ok coarse_last_bin_stays_in_range "rows outside: $bad; $(cat c.err)"; fi

./coarse 4 50000000 >/dev/null && "$PROF" --format=json coarse >d.json 2>d.err
dropped=$(sed -n 's/.*"dropped":\([0-9]*\),.*/\1/p' d.json | head -1)
if [ "${dropped:-0}" -gt 0 ] &&
   grep -Eq "^prof: warning: $dropped samples? \(.* of [0-9]*\) (was|were) dropped: (its|their) PC fell outside every histogram" d.err &&
   grep -q '"code":"dropped"' d.json; then
	ok coarse_dropped_reported
else not_ok coarse_dropped_reported "dropped=$dropped $(cat d.err)"; fi
