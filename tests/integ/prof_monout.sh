#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# prof on mon.out files written by the format module's writer with known
# contents (tests/progs/prof_craft.c): System V's split of a straddling bin,
# PIE load bias, call counts, -m summing runs with different load addresses,
# a shared library's functions, unknown code as [object]+0xoffset, build ID
# checks, stripped programs, -C, sort orders and the other options.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
cd "$T" || exit 1

build_prog_static craft prof_craft.c -I"$ROOT/format" || { not_ok craft_build; exit 1; }
$CC -O1 -g -o pw "$ROOT/tests/progs/prof_work.c" || { not_ok build_pw; exit 1; }
$CC -O1 -g -shared -fPIC -o libprof_lib.so "$ROOT/tests/progs/prof_lib.c" || { not_ok build_lib; exit 1; }

PW=$T/pw
BIAS=$((0x555555554000))
ID=$(build_id pw)
aH=$(nm_addr pw heavy) sH=$(nm_size pw heavy) aL=$(nm_addr pw light) aS=$(nm_addr pw hidden)
aN=$(nm_addr pw never) aM=$(nm_addr pw main)
TLO=$((BIAS + 0x1000)) THI=$((BIAS + aM + 0x400))
hex() { printf '%#x' "$1"; }
OBJ="$PW:$(hex $BIAS):$(hex $TLO):$(hex $THI):1:$ID"

# --- the split of a straddling bin ------------------------------------------
# heavy is followed by light; a 16-byte bin (scale 0x2000) starting 4 bytes
# before light's first byte holds 1000 ticks: 4/16 to heavy, 12/16 to light.
pad=$((aL - aH - sH))
if [ "$pad" -ge 32 ] || [ "$aL" -le "$aH" ]; then
	not_ok split_layout "heavy+size to light gap $pad (test assumes padding < 32)"
else
	./craft a.mon -o "$OBJ" -h "$(hex $((BIAS + aL - 4))):$(hex $((BIAS + aL + 12))):0x2000:1" -b 0:1000
	"$PROF" -m a.mon --format=csv >a.csv 2>a.err
	h=$(csv_field a.csv heavy 8) l=$(csv_field a.csv light 8)
	if [ "$h" = 250.000 ] && [ "$l" = 750.000 ]; then ok split_bytes_proportional
	else not_ok split_bytes_proportional "heavy $h light $l: $(cat a.err)"; fi
	# scale 0x3000: bin 0 covers 2*ceil(65536/12288) = 12 bytes, here 6 + 6.
	./craft b.mon -o "$OBJ" -h "$(hex $((BIAS + aL - 6))):$(hex $((BIAS + aL + 64))):0x3000:3" \
		-b 0:1200 -b 1:10
	"$PROF" -m b.mon --format=csv >b.csv
	h=$(csv_field b.csv heavy 8) l=$(csv_field b.csv light 8)
	if [ "$h" = 600.000 ] && [ "$l" = 610.000 ]; then ok split_uneven_scale
	else not_ok split_uneven_scale "heavy $h light $l"; fi
fi

# --- PIE load bias, call counts (mcount-style and exact entry address) -------
./craft c.mon -o "$OBJ" -h "$(hex $((BIAS + aH))):$(hex $((BIAS + aH + 8))):0x8000:2" -b 0:30 -b 1:12 \
	-c "$(hex $((BIAS + aH + 9))):1234" -c "$(hex $((BIAS + aL))):7"
"$PROF" -m c.mon --format=csv >c.csv
if [ "$(csv_field c.csv heavy 8)" = 42.000 ] && [ "$(csv_field c.csv heavy 9)" = 1234 ] &&
   [ "$(csv_field c.csv light 9)" = 7 ]; then ok pie_bias_and_calls
else not_ok pie_bias_and_calls "$(cat c.csv)"; fi
# Text report: the golden line for heavy, from the file's numbers.
"$PROF" -m c.mon -h >c.txt
want=$(awk 'BEGIN { printf "%6.1f%8.2f%8.2f%8d%#11.3f%3s%s", 100, 0.042, 0.042, 1234, 1000*0.042/1234, "", "heavy" }')
if grep -qxF -- "$want" c.txt; then ok text_columns
else not_ok text_columns "want '$want' got '$(head -1 c.txt)'"; fi

# --- -m: two runs at different load addresses add up ------------------------
B2=$((0x7ffd12340000))
OBJ2="$PW:$(hex $B2):$(hex $((B2 + 0x1000))):$(hex $((B2 + aM + 0x400))):1:$ID"
./craft r1.mon -o "$OBJ" -h "$(hex $((BIAS + aH))):$(hex $((BIAS + aH + 4))):0x8000:1" -b 0:100 \
	-c "$(hex $((BIAS + aH + 9))):3"
./craft r2.mon -o "$OBJ2" -h "$(hex $((B2 + aH))):$(hex $((B2 + aH + 4))):0x8000:1" -b 0:50 \
	-c "$(hex $((B2 + aH + 9))):4"
"$PROF" -m r1.mon -m r2.mon --format=csv >r.csv
if [ "$(csv_field r.csv heavy 8)" = 150.000 ] && [ "$(csv_field r.csv heavy 9)" = 7 ] &&
   [ "$(csv_field r.csv heavy 6)" = 0.150000 ]; then ok m_sums_runs
else not_ok m_sums_runs "$(cat r.csv)"; fi

# --- a shared library's functions; -C ---------------------------------------
LB=$((0x7f1234500000))
aF=$(nm_addr libprof_lib.so prof_lib_func) aX=$(nm_addr libprof_lib.so _ZN2ns3fooEi)
LOBJ="$T/libprof_lib.so:$(hex $LB):$(hex $((LB + 0x1000))):$(hex $((LB + 0x2000))):0:$(build_id libprof_lib.so)"
./craft d.mon -o "$OBJ" -o "$LOBJ" \
	-h "$(hex $((LB + aF))):$(hex $((LB + aF + 4))):0x8000:1" -b 0:20 \
	-h "$(hex $((LB + aX))):$(hex $((LB + aX + 4))):0x8000:1" -b 0:5
"$PROF" -m d.mon --format=csv >d.csv
if [ "$(csv_field d.csv prof_lib_func 8)" = 20.000 ] &&
   [ "$(csv_field d.csv prof_lib_func 3)" = "$T/libprof_lib.so" ]; then ok shared_library_function
else not_ok shared_library_function "$(cat d.csv)"; fi
# C++ names are demangled by default (as gprof and perf do); -C is still
# accepted; --no-demangle gives the symbol table's spelling.
"$PROF" -m d.mon -h >d.txt
"$PROF" -C -m d.mon -h >dC.txt
"$PROF" --no-demangle -m d.mon -h >dR.txt
if grep -q ' ns::foo(int)$' d.txt && grep -q ' ns::foo(int)$' dC.txt &&
   grep -q ' _ZN2ns3fooEi$' dR.txt; then ok demangle_by_default
else not_ok demangle_by_default "$(cat d.txt dR.txt)"; fi

# --- unknown code: [object]+0xoffset, [object], [unknown]; %Time sums to 100 -
plt=$(readelf -SW pw | sed 's/^ *\[ *[0-9]*\]//' | awk '$1 == ".plt" { print $3; exit }')
plt=$((0x$plt))
./craft e.mon -o "$OBJ" \
	-h "$(hex $((BIAS + plt))):$(hex $((BIAS + plt + 4))):0x8000:1" -b 0:10 \
	-h "$(hex $((TLO - 0x100))):$(hex $((TLO - 0xfc))):0x8000:1" -b 0:20 \
	-h "$(hex $((0x1000))):$(hex $((0x1004))):0x8000:1" -b 0:30 \
	-h "$(hex $((BIAS + aH))):$(hex $((BIAS + aH + 4))):0x8000:1" -b 0:40 \
	-c "$(hex $((0x1001))):5"
"$PROF" -m e.mon --format=csv >e.csv
"$PROF" -m e.mon -h >e.txt
gap=$(printf '[pw]+%#x' "$plt")
sum=$(awk '{ s += $1 } END { printf "%.1f", s }' e.txt)
if [ "$(csv_field e.csv "$gap" 8)" = 10.000 ] && [ "$(csv_field e.csv '[unknown]' 8)" = 50.000 ] &&
   [ "$(csv_field e.csv '[unknown]' 9)" = 5 ] && [ "$sum" = 100.0 ]; then ok unknown_rows
else not_ok unknown_rows "sum $sum; $(cat e.csv)"; fi
# A PC inside the recorded text range but in no section of the file.
./craft e2.mon -o "$PW:$(hex $BIAS):$(hex $BIAS):$(hex $THI):1:$ID" \
	-h "$(hex $((BIAS + 0x10))):$(hex $((BIAS + 0x14))):0x8000:1" -b 0:3
"$PROF" -m e2.mon --format=csv >e2.csv
if [ "$(csv_field e2.csv '[pw]' 8)" = 3.000 ]; then ok object_row
else not_ok object_row "$(cat e2.csv)"; fi

# --- build IDs -----------------------------------------------------------------
./craft f.mon -o "$PW:$(hex $BIAS):$(hex $TLO):$(hex $THI):1:deadbeef00112233"
one_line_error wrong_build_id_recorded 1 "pw: build ID $ID differs from deadbeef00112233" \
	"$PROF" -m f.mon
$CC -O1 -g -DOTHER=1 -o pw2 "$ROOT/tests/progs/prof_work.c" -Wl,--build-id=sha1 -Wl,-z,norelro
one_line_error wrong_build_id_prog 1 "pw2: build ID .* differs from $ID" "$PROF" -m c.mon pw2
cp pw pwcopy
if "$PROF" -m c.mon pwcopy >/dev/null 2>&1; then ok prog_same_build_id; else not_ok prog_same_build_id; fi

# --- stripped programs ------------------------------------------------------------
$CC -O1 -g -rdynamic -o pwr "$ROOT/tests/progs/prof_work.c"
cp pwr pwr_s && strip pwr_s
rH=$(nm_addr pwr heavy) rS=$(nm_addr pwr hidden) rM=$(nm_addr pwr main)
ROBJ="$T/pwr_s:$(hex $BIAS):$(hex $TLO):$(hex $((BIAS + rM + 0x400))):1:$(build_id pwr_s)"
./craft g.mon -o "$ROBJ" \
	-h "$(hex $((BIAS + rH))):$(hex $((BIAS + rH + 4))):0x8000:1" -b 0:9 \
	-h "$(hex $((BIAS + rS))):$(hex $((BIAS + rS + 4))):0x8000:1" -b 0:11
"$PROF" -m g.mon --format=csv >g.csv
if [ "$(csv_field g.csv heavy 8)" = 9.000 ] &&
   csv_awk -F, -v a="$(printf '%#x' "$rS")" -v sz="$(nm_size pwr hidden)" \
	'$8 == "11.000" && $2 == "unwind" && $4 == a && $11 >= sz && $11 < sz + 32 { f = 1 }
	 END { exit !f }' g.csv; then
	ok stripped_dynsym_fallback
else not_ok stripped_dynsym_fallback "$(cat g.csv)"; fi
cp pw pw_s && strip pw_s
./craft g2.mon -o "$T/pw_s:$(hex $BIAS):$(hex $TLO):$(hex $THI):1:$ID" \
	-h "$(hex $((BIAS + aH))):$(hex $((BIAS + aH + 4))):0x8000:1" -b 0:9
"$PROF" -m g2.mon -h >g2.txt
if grep -Eq "^ *100\.0 .* \[pw_s\]\+0x[0-9a-f]+$" g2.txt; then ok stripped_object_offset
else not_ok stripped_object_offset "$(cat g2.txt)"; fi

# --- options ------------------------------------------------------------------------
./craft o.mon -o "$OBJ" \
	-h "$(hex $((BIAS + aH))):$(hex $((BIAS + aH + 4))):0x8000:1" -b 0:30 \
	-h "$(hex $((BIAS + aL))):$(hex $((BIAS + aL + 4))):0x8000:1" -b 0:20 \
	-h "$(hex $((BIAS + aS))):$(hex $((BIAS + aS + 4))):0x8000:1" -b 0:10 \
	-c "$(hex $((BIAS + aH + 9))):1" -c "$(hex $((BIAS + aL + 9))):100" -c "$(hex $((BIAS + aS + 9))):10"
names() { awk '{ print $NF }' | tr '\n' ' '; }
t=$("$PROF" -h -m o.mon | names)
[ "$t" = "heavy light hidden " ] && ok sort_time || not_ok sort_time "$t"
t=$("$PROF" -h -c -m o.mon | names)
[ "$t" = "light hidden heavy " ] && ok sort_calls || not_ok sort_calls "$t"
t=$("$PROF" -h -n -m o.mon | names)
[ "$t" = "heavy hidden light " ] && ok sort_name || not_ok sort_name "$t"
want=$(for s in heavy light hidden; do echo "$(nm_addr pw $s) $s"; done | sort -n | awk '{ printf "%s ", $2 }')
t=$("$PROF" -h -a -m o.mon | names)
[ "$t" = "$want" ] && ok sort_address || not_ok sort_address "$t / $want"
t=$("$PROF" -h -a -c -m o.mon 2>o.err | names)
if [ "$t" = "light hidden heavy " ] && grep -q -- '-c overrides previous -a' o.err; then ok sort_last_wins_warns
else not_ok sort_last_wins_warns "$t; $(cat o.err)"; fi
if "$PROF" -h -z -m o.mon | grep -q ' never$' && ! "$PROF" -h -m o.mon | grep -q ' never$'; then ok zero_rows
else not_ok zero_rows; fi
x=$("$PROF" -h -x -m o.mon | awk '$NF == "heavy" { print $1 }')
o=$("$PROF" -h -o -m o.mon | awk '$NF == "heavy" { print $1 }')
if [ "$x" = "$(printf %x "$aH")" ] && [ "$o" = "$(printf %o "$aH")" ]; then ok address_columns
else not_ok address_columns "x=$x o=$o"; fi
if "$PROF" -m o.mon | head -1 | grep -q '^ %Time Seconds Cumsecs  #Calls   msec/call  Name$' &&
   "$PROF" -x -m o.mon | head -1 | grep -q '^ Address  %Time' &&
   ! "$PROF" -h -m o.mon | grep -q '%Time'; then ok heading
else not_ok heading; fi
"$PROF" -s -m o.mon >/dev/null 2>s.err
if grep -q '3 call counts used' s.err && grep -q 'symbols qualified' s.err &&
   grep -q '0x8000 scale factor' s.err && grep -q 'rate 1000 Hz' s.err &&
   grep -q 'samples: 60 taken' s.err && grep -q 'CPU' s.err; then ok summary_s
else not_ok summary_s "$(cat s.err)"; fi
"$PROF" -m o.mon --format=json >o.json
if grep -q '^{"schema":"monprof-prof-flat","version":1,' o.json &&
   grep -q '{"name":"heavy","kind":"function","object":"'"$PW"'","address":'"$aH"',"size":[0-9]*,"symbol":"heavy","version":null,"percent":50,"seconds":0.03,.*"calls":1,' o.json &&
   [ "$(grep -c '^{"name"' o.json)" = 3 ]; then ok json_rows
else not_ok json_rows "$(cat o.json)"; fi
if "$PROF" -V 2>&1 | grep -q 'monprof'; then ok version_V; else not_ok version_V; fi
