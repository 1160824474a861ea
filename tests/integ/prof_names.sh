#!/bin/sh
# Names people search for (issue 12): a synonym chosen by perf's rule
# (global before weak before local, fewer leading underscores, the longer
# name), versioned names printed plain with the version in JSON, PLT stubs
# as name@plt, compiler clones keeping their suffix, and the case
# versioned-names.c run for real.  Also: prof NAME finds the program in PATH.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
cd "$T" || exit 1
hex() { printf '%#x' "$1"; }

build_prog_static craft prof_craft.c -I"$ROOT/format" || { not_ok craft_build; exit 1; }
$CC -O2 -g -o pf "$ROOT/tests/progs/prof_funcs.c" || { not_ok build_pf; exit 1; }
$CC -O1 -g -shared -fPIC -Wl,--version-script="$ROOT/tests/progs/prof_alias.map" \
	-o libalias.so "$ROOT/tests/progs/prof_alias.c" || { not_ok build_alias; exit 1; }

BIAS=$((0x555555554000)) LB=$((0x7f1234500000))
MAIN="$T/pf:$(hex $BIAS):$(hex $((BIAS + 0x1000))):$(hex $((BIAS + 0x3000))):1:$(build_id pf)"
LIB="$T/libalias.so:$(hex $LB):$(hex $((LB + 0x1000))):$(hex $((LB + 0x2000))):0:$(build_id libalias.so)"
# One sample of each count at the first bytes of a function: -h/-b pairs.
at() { echo "-h $(hex $(($1 + $2))):$(hex $(($1 + $2 + 2))):0x10000:1 -b 0:$3"; }
aC=$(nm_addr libalias.so __memmove_like) aS=$(nm_addr libalias.so ___strong_fn)
a1=$(nm_addr libalias.so vfun@V_1) a2=$(nm_addr libalias.so vfun@@V_2)
aP=$(objdump -d -j .plt -j .plt.sec pf | awk '/<puts@plt>:/ { print "0x" $1; exit }')
aK=$(nm_addr pf g_entry.cold)
# shellcheck disable=SC2046
./craft n.mon -o "$MAIN" -o "$LIB" $(at $LB "$aC" 11) $(at $LB "$aS" 12) $(at $LB "$a1" 13) \
	$(at $LB "$a2" 14) $(at $BIAS "$((aP))" 15) $(at $BIAS "$aK" 16) ||
	{ not_ok craft_n; exit 1; }
"$PROF" -m n.mon --format=csv >n.csv 2>n.err

# Aliases: perf's rule, global before weak before local, then fewer leading
# underscores, then the longer name (glibc: __memmove_avx_unaligned_erms
# rather than __memcpy_avx_unaligned_erms).
[ "$(csv_field n.csv __memmove_like 8)" = 11.000 ] && [ -z "$(csv_field n.csv __memcpy_like 1)" ] &&
	[ -z "$(csv_field n.csv core_impl 1)" ] && ok alias_longer_global_name ||
	not_ok alias_longer_global_name "$(cat n.csv)"
[ "$(csv_field n.csv ___strong_fn 8)" = 12.000 ] && [ -z "$(csv_field n.csv weak_fn 1)" ] &&
	ok alias_global_before_weak || not_ok alias_global_before_weak "$(cat n.csv)"

# Versioned names: "vfun", twice, the versions in the version column / JSON.
if awk -F, '$1 == "vfun" && $8 == "13.000" && $12 == "V_1" { a = 1 }
	    $1 == "vfun" && $8 == "14.000" && $12 == "V_2" { b = 1 }
	    $1 ~ /@/ && $1 !~ /@plt$/ { bad = 1 }
	    END { exit !(a && b && !bad) }' n.csv; then ok versioned_names_plain
else not_ok versioned_names_plain "$(cat n.csv)"; fi
"$PROF" -m n.mon --format=json >n.json 2>/dev/null
grep -q '"name":"vfun","kind":"function",.*"symbol":"vfun","version":"V_2"' n.json &&
	ok versioned_names_json || not_ok versioned_names_json "$(grep vfun n.json)"

# PLT stubs: callee@plt.
[ "$(csv_field n.csv puts@plt 8)" = 15.000 ] && [ "$(csv_field n.csv puts@plt 4)" = "$(hex "$aP")" ] &&
	ok plt_stub_named || not_ok plt_stub_named "puts@plt at $aP: $(cat n.csv)"

# Clones keep the compiler's suffix: their own row, not the parent's.
[ "$(csv_field n.csv g_entry.cold 8)" = 16.000 ] && [ -z "$(csv_field n.csv g_entry 1)" ] &&
	ok clone_labelled || not_ok clone_labelled "$(cat n.csv)"

# The case versioned-names.c, run under monrun: every C library row plain
# (with the C library's debug symbols its .symtab says realpath@@GLIBC_2.3).
if $CC -O1 -g -o vn "$ROOT/tests/progs/prof_versioned.c"; then
	"$B/bin/monrun" -o vn.mon ./vn >/dev/null 2>vn.run
	"$PROF" -m vn.mon --format=csv >vn.csv 2>vn.err
	if [ -s vn.csv ] && ! cut -d, -f1 vn.csv | grep '@' | grep -qv '@plt$'; then
		ok versioned_names_case
	else
		not_ok versioned_names_case "$(cat vn.run vn.err; cut -d, -f1 vn.csv | grep @)"
	fi
else
	not_ok versioned_names_case "build failed"
fi

# prof NAME: a bare name not in the current directory is looked for in PATH
# (as monrun and execvp do); the profile's program is then that file.
mkdir -p bin && cp pf bin/pfpath && rm -f pfpath
./craft p.mon -o "$T/bin/pfpath:$(hex $BIAS):$(hex $((BIAS + 0x1000))):$(hex $((BIAS + 0x3000))):1:$(build_id pf)" \
	$(at $BIAS "$aK" 5) || not_ok craft_p
if PATH="$T/bin:$PATH" "$PROF" -m p.mon --format=csv pfpath >p.csv 2>p.err &&
   [ "$(csv_field p.csv g_entry.cold 8)" = 5.000 ]; then ok prog_found_in_path
else not_ok prog_found_in_path "$(cat p.err)"; fi
