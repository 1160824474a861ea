#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Function boundaries from every source an object has (issue 12): a
# stripped program's functions are told apart by its unwind table (each FDE
# range a row [object]+0xSTART with its size; no row spans two FDE ranges);
# a separate debug file by .gnu_debuglink, found by libdwfl's search, the
# one --lines uses (names and lines from the same file, issue 23);
# MiniDebugInfo (.gnu_debugdata);
# a debuginfod server on 127.0.0.1 (skipped with a message only when the
# debuginfod package is absent); the warning for an object shown by unwind
# ranges; and a real run of a stripped program.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
cd "$T" || exit 1
hex() { printf '%#x' "$1"; }

build_prog_static craft prof_craft.c -I"$ROOT/format" || { not_ok craft_build; exit 1; }
$CC -O2 -g -o pf "$ROOT/tests/progs/prof_funcs.c" || { not_ok build_pf; exit 1; }
cp pf pf_s && strip --strip-all pf_s
BIAS=$((0x555555554000))
ID=$(build_id pf)
# The FDE ranges of .text, from binutils: "start end" in hex.
tlo=$(readelf -SW pf | awk '$2 == ".text" { print "0x" $4 }')
tsz=$(readelf -SW pf | awk '$2 == ".text" { print "0x" $6 }')
thi=$((tlo + tsz))
readelf -wf pf | sed -n 's/.*FDE cie=.* pc=\([0-9a-f]*\)\.\.\([0-9a-f]*\).*/\1 \2/p' |
	while read -r s e; do
		[ $((0x$s)) -ge $((tlo)) ] && [ $((0x$s)) -lt $thi ] && echo "$((0x$s)) $((0x$e))"
	done | sort -n >fdes
nf=$(wc -l <fdes)
[ "$nf" -ge 10 ] || not_ok fde_list "only $nf FDE ranges in .text"

# One sample (bin of 2 bytes) at the first byte of every FDE range, and
# k + 1 at f_k's, through the stripped program.
args=
while read -r s e; do
	args="$args -h $(hex $((BIAS + s))):$(hex $((BIAS + s + 2))):0x10000:1 -b 0:1"
done <fdes
crafted() {	# OUT PATH BUILDID
	# shellcheck disable=SC2086
	./craft "$1" -o "$2:$(hex $BIAS):$(hex $((BIAS + tlo))):$(hex $((BIAS + thi))):1:$3" $args
}
crafted s.mon "$T/pf_s" "$ID" || { not_ok craft_s; exit 1; }
"$PROF" -m s.mon --format=csv >s.csv 2>s.err
# Every FDE range is a row of its own: kind unwind, at its start, of its
# size (plus alignment padding shorter than 32 bytes), one sample each.
bad=
while read -r s e; do
	row=$(csv_awk -F, -v a="$(hex "$s")" '$4 == a' s.csv)
	sz=$(echo "$row" | cut -d, -f11)
	kind=$(echo "$row" | cut -d, -f2)
	if [ "$kind" != unwind ] || [ "$(echo "$row" | cut -d, -f8)" != 1.000 ] ||
	   [ "${sz:-0}" -lt $((e - s)) ] || [ "${sz:-0}" -ge $((e - s + 32)) ]; then
		bad="$bad $(hex "$s")-$(hex "$e"):[$row]"
	fi
done <fdes
[ -z "$bad" ] && ok unwind_row_per_fde || not_ok unwind_row_per_fde "$bad"
# No row spans two FDE starts.
csv_awk -F, 'function hx(s,  v, i) { v = 0; s = tolower(substr(s, 3))
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	 NR == FNR { st[n++] = $1; next }
	 FNR > 1 && $4 != "" && $11 != "" {
		lo = hx($4); hi = lo + $11; c = 0
		for (i = 0; i < n; i++) if (st[i] >= lo && st[i] < hi) c++
		if (c > 1) { print $1 " holds " c " FDE starts"; bad = 1 }
	 } END { exit bad }' fdes s.csv >span.out 2>&1 &&
	ok no_row_spans_two_fdes || not_ok no_row_spans_two_fdes "$(cat span.out)"
grep -q "warning: $T/pf_s has no symbols (stripped): 100.0 % of the samples are shown as \[pf_s\]+0xSTART rows" s.err &&
	ok warns_unwind_only || not_ok warns_unwind_only "$(cat s.err)"
# One file by two names (/bin/sh and /usr/bin/sh where /bin links to
# /usr/bin: a fresh user saw both warned about as two stripped programs)
# is one object: one warning, its rows merged.  The same build ID, or with
# none recorded, the same device and inode.  Mutation: image_for matching
# by path alone: two warnings.
ln -sf pf_s pf_alias
for how in id inode; do
	# (without build IDs the two programs are two, unless merged)
	id=$ID merge=; [ $how = inode ] && id= merge=--merge
	crafted s2.mon "$T/pf_s" "$id" && crafted l2.mon "$T/pf_alias" "$id" || not_ok craft_two_names
	"$PROF" -m s2.mon l2.mon $merge --format=csv >two.csv 2>two.err
	w=$(grep -c "has no symbols (stripped)" two.err)
	r=$(csv_awk -F, -v a="$(hex "$(head -n 1 fdes | cut -d' ' -f1)")" '$4 == a { print $8 }' two.csv)
	if [ "$w" = 1 ] && grep -q "warning: $T/pf_s has no symbols" two.err && [ "$r" = 2.000 ]; then
		ok "one_object_two_names_$how"
	else
		not_ok "one_object_two_names_$how" "$w warnings, the first range's row $r samples (want 2.000): $(cat two.err)"
	fi
done
rm -f pf_alias
"$PROF" -m s.mon --format=json >s.json 2>/dev/null
grep -q '"warnings":\[{"code":"unwind-only","message":"'"$T"'/pf_s has no symbols' s.json &&
	grep -q '"kind":"unwind","object":"'"$T"'/pf_s","address":[0-9]*,"size":[0-9]*' s.json &&
	ok unwind_json || not_ok unwind_json "$(head -c 600 s.json)"

# Under a thousandth of the samples the warning is noise (a new user's
# stripped xz, whose work is in liblzma: "0.0 % of the samples are shown
# as [xz]+0xSTART rows"): with 10^6 samples elsewhere (in no object), none.
args0=$args
args="$args -P 0x9000:1000000"
crafted q.mon "$T/pf_s" "$ID" || not_ok craft_q
args=$args0
"$PROF" -m q.mon >/dev/null 2>q.err
! grep -q 'unwind table' q.err && ok unwind_only_quiet_below_a_thousandth ||
	not_ok unwind_only_quiet_below_a_thousandth "$(cat q.err)"

# A separate debug file by .gnu_debuglink, next to the object and in its
# .debug directory: the functions are named again, no warning.
objcopy --only-keep-debug pf pf.debug && cp pf_s pf_l && objcopy --add-gnu-debuglink=pf.debug pf_l
crafted l.mon "$T/pf_l" "$ID"
"$PROF" -m l.mon --format=csv >l.csv 2>l.err
f7=$(nm_addr pf f7)
[ "$(csv_field l.csv f7 4)" = "$(hex "$f7")" ] && [ "$(csv_field l.csv g_entry 2)" = function ] &&
	! grep -q unwind l.csv && [ ! -s l.err ] && ok debuglink_same_dir || not_ok debuglink_same_dir "$(cat l.err l.csv)"
# Names and lines from the one debug file libdwfl's search found (issue 23):
# the functions of prof_funcs.c are rows "prof_funcs.c:N name", f7's among
# them (crt1.o's _start has no DWARF and keeps its name).
"$PROF" -m l.mon --lines --format=csv >ll.csv 2>ll.err
csv_awk -F, 'NR > 1 && $1 ~ /^(f[0-7]|g_entry|main)$/ { bad = 1 }
	NR > 1 && $1 ~ /^prof_funcs\.c:[0-9]+ f7$/ { f7 = 1 } END { exit bad || !f7 }' ll.csv &&
	[ ! -s ll.err ] && ok debuglink_names_and_lines || not_ok debuglink_names_and_lines "$(cat ll.err ll.csv)"
mkdir -p .debug && mv pf.debug .debug/
"$PROF" -m l.mon --format=csv >l2.csv 2>/dev/null
[ "$(csv_field l2.csv f7 4)" = "$(hex "$f7")" ] && ok debuglink_dot_debug || not_ok debuglink_dot_debug "$(cat l2.csv)"
# A debug file whose CRC and build ID do not match is not used.
cp .debug/pf.debug pfx.debug && rm -rf .debug
$CC -O1 -g -o other "$ROOT/tests/progs/prof_funcs.c" && objcopy --only-keep-debug other pf.debug
"$PROF" -m l.mon --format=csv >l3.csv 2>/dev/null
[ -z "$(csv_field l3.csv f7 1)" ] && ok debuglink_mismatch_ignored || not_ok debuglink_mismatch_ignored "$(cat l3.csv)"
rm -f pf.debug

# MiniDebugInfo (GDB's manual, "MiniDebugInfo"): the function symbols
# .dynsym lacks, in an xz-compressed ELF in .gnu_debugdata.
if command -v xz >/dev/null; then
	nm -D pf --format=posix --defined-only | awk '{ print $1 }' | sort >dynsyms
	nm pf --format=posix --defined-only | awk '$2 ~ /^[Tt]$/ { print $1 }' | sort >funcsyms
	comm -13 dynsyms funcsyms >keep
	objcopy --only-keep-debug pf mini && objcopy -S --remove-section .gdb_index \
		--remove-section .comment --keep-symbols=keep mini && xz -f mini &&
		cp pf_s pf_m && objcopy --add-section .gnu_debugdata=mini.xz pf_m
	crafted m.mon "$T/pf_m" "$ID"
	"$PROF" -m m.mon --format=csv >m.csv 2>m.err
	[ "$(csv_field m.csv f7 4)" = "$(hex "$f7")" ] && [ "$(csv_field m.csv g_entry 2)" = function ] &&
		[ ! -s m.err ] && ok minidebuginfo || not_ok minidebuginfo "$(cat m.err m.csv)"
else
	not_ok minidebuginfo "xz missing (Debian package xz-utils)"
fi

# debuginfod: a server on 127.0.0.1 serving this directory's debug file.
if command -v debuginfod >/dev/null; then
	mkdir -p srv cache && objcopy --only-keep-debug pf srv/pf.debug
	port=$((20000 + $$ % 20000))
	debuginfod -F -d "$T/db.sqlite" -p "$port" -t 1 "$T/srv" >dbgd.log 2>&1 &
	dpid=$!
	export DEBUGINFOD_CACHE_PATH="$T/cache" DEBUGINFOD_TIMEOUT=10
	# Wait (bounded) until the server has indexed the file.  Each probe
	# with an empty cache of its own: the client caches a miss (a file in
	# its cache, believed for cache_miss_s, 600 s by default), so a probe
	# made before the server had indexed the file kept failing from its
	# cache and the loop always waited its whole 30 s.
	i=0
	while [ $i -lt 300 ]; do
		rm -rf "$T/probe"
		if DEBUGINFOD_CACHE_PATH="$T/probe" DEBUGINFOD_URLS="http://127.0.0.1:$port" \
			debuginfod-find debuginfo "$ID" >/dev/null 2>&1; then break; fi
		i=$((i + 1)); sleep 0.1
	done
	echo "# debuginfod served the file after $i probes"
	rm -rf cache && mkdir cache
	DEBUGINFOD_URLS="http://127.0.0.1:$port" "$PROF" -m s.mon --format=csv >d.csv 2>d.err
	kill "$dpid" 2>/dev/null; wait "$dpid" 2>/dev/null
	[ "$(csv_field d.csv f7 4)" = "$(hex "$f7")" ] && [ ! -s d.err ] && ok debuginfod ||
		not_ok debuginfod "$(cat d.err; tail -3 dbgd.log; head -3 d.csv)"
	# The server gone (and nothing cached): the warning says the servers
	# DEBUGINFOD_URLS names gave none, not "set DEBUGINFOD_URLS" (a new
	# user with an unreachable server set was told to set it).
	rm -rf cache && mkdir cache
	DEBUGINFOD_URLS="http://127.0.0.1:$port" "$PROF" -m s.mon --format=csv >d3.csv 2>d3.err
	if grep -q "install its debug symbols (DEBUGINFOD_URLS is set, and its servers gave none: they lack its build ID or were not reached) for names" d3.err &&
	    ! grep -q "or set DEBUGINFOD_URLS" d3.err; then
		ok debuginfod_none_said
	else
		not_ok debuginfod_none_said "$(cat d3.err)"
	fi
	# Without DEBUGINFOD_URLS nothing is asked.
	unset DEBUGINFOD_CACHE_PATH
	env -u DEBUGINFOD_URLS "$PROF" -m s.mon --format=csv >d2.csv 2>/dev/null
	[ -z "$(csv_field d2.csv f7 1)" ] && ok debuginfod_only_when_asked || not_ok debuginfod_only_when_asked
else
	echo "# skip debuginfod: the Debian package debuginfod is not installed"
	ok "debuginfod # skip debuginfod not installed"
	ok "debuginfod_none_said # skip debuginfod not installed"
fi

# A real run of the stripped program under monrun: its time is spread over
# the functions (f7 does the most work, 8/36), not one row for the text.
"$B/bin/monrun" -o r.mon ./pf_s 4000000 >/dev/null 2>r.run
"$PROF" -m r.mon --format=csv >r.csv 2>r.err
n=$(csv_awk -F, '$2 == "unwind" && $3 == "'"$T"'/pf_s" && $8 > 0' r.csv | wc -l)
top=$(csv_awk -F, '$3 == "'"$T"'/pf_s" { print $4 "," $2; exit }' r.csv)
tot=$(csv_awk -F, 'NR > 1 { t += $8 } END { printf "%d", t }' r.csv)
t7=$(csv_awk -F, -v a="$(hex "$f7")" '$4 == a { print $8 }' r.csv)
max=$(csv_awk -F, 'NR > 1 && $8 > m { m = $8 } END { print m + 0 }' r.csv)
if [ "$n" -ge 6 ] && [ "$top" = "$(hex "$f7"),unwind" ] || { [ "$n" -ge 6 ] &&
   binom_ok "${t7:-0}" "$tot" "$(awk 'BEGIN { print 8 / 36 }')" &&
   awk -v m="$max" -v t="$tot" 'BEGIN { exit !(m < 0.5 * t) }'; }; then
	ok stripped_run_split
else
	not_ok stripped_run_split "n=$n top=$top f7=$t7 of $tot; $(head -5 r.csv; cat r.run)"
fi
