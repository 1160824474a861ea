#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Names people search for (issues 12, 23): a synonym chosen by prof's rule
# (global before weak before local, then imported by the program, then the
# shortest), Rust (v0, legacy) and C++ names demangled, versioned names printed plain with the version in JSON, PLT stubs
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
aT=$(nm_addr libalias.so tc_free)
# shellcheck disable=SC2046
./craft n.mon -o "$MAIN" -o "$LIB" $(at $LB "$aC" 11) $(at $LB "$aS" 12) $(at $LB "$a1" 13) \
	$(at $LB "$a2" 14) $(at $BIAS "$((aP))" 15) $(at $BIAS "$aK" 16) $(at $LB "$aT" 17) ||
	{ not_ok craft_n; exit 1; }
"$PROF" -m n.mon --format=csv >n.csv 2>n.err

# Aliases (issue 23): global before weak before local, then a name the
# program imports, then the shortest.
[ "$(csv_field n.csv __memcpy_like 8)" = 11.000 ] && [ -z "$(csv_field n.csv __memmove_like 1)" ] &&
	[ -z "$(csv_field n.csv core_impl 1)" ] && ok alias_shortest_global_name ||
	not_ok alias_shortest_global_name "$(cat n.csv)"
[ "$(csv_field n.csv ___strong_fn 8)" = 12.000 ] && [ -z "$(csv_field n.csv weak_fn 1)" ] &&
	ok alias_global_before_weak || not_ok alias_global_before_weak "$(cat n.csv)"

# tcmalloc's free: the program pf imports none of tc_free,
# tc_deletearray_like, free_like: the shortest; the program am calls
# tc_deletearray_like: that name in its profile.
[ "$(csv_field n.csv tc_free 8)" = 17.000 ] && ok alias_shortest_not_imported ||
	not_ok alias_shortest_not_imported "$(cat n.csv)"
if $CC -O1 -o am "$ROOT/tests/progs/prof_alias_main.c" -L. -lalias -Wl,-rpath,"$T"; then
	AM="$T/am:$(hex $BIAS):$(hex $((BIAS + 0x1000))):$(hex $((BIAS + 0x3000))):1:$(build_id am)"
	# shellcheck disable=SC2046
	./craft am.mon -o "$AM" -o "$LIB" $(at $LB "$aT" 17) $(at $LB "$aC" 11) || not_ok craft_am
	"$PROF" -m am.mon --format=csv am >am.csv 2>am.err
	[ "$(csv_field am.csv tc_deletearray_like 8)" = 17.000 ] && [ -z "$(csv_field am.csv tc_free 1)" ] &&
		[ "$(csv_field am.csv __memcpy_like 8)" = 11.000 ] && ok alias_imported_name ||
		not_ok alias_imported_name "$(cat am.csv am.err)"
else
	not_ok alias_imported_name "build failed"
fi

# Rust and C++ names (issue 23): real v0 and legacy Rust symbols (from
# rustc's output) demangled as rustfilt does, hash and disambiguators
# dropped; --no-demangle keeps the symbol table's spelling, hash included.
if $CC -O1 -o rn "$ROOT/tests/progs/prof_rust_names.c"; then
	RN="$T/rn:$(hex $BIAS):$(hex $((BIAS + 0x1000))):$(hex $((BIAS + 0x3000))):1:$(build_id rn)"
	rs() { nm_addr rn "$1"; }
	# shellcheck disable=SC2046
	./craft rn.mon -o "$RN" $(at $BIAS "$(rs _RNvNtCs7fattgR6AAa_3hot3hot4spin)" 21) \
		$(at $BIAS "$(rs _RINvNtCs6IL9ONYDOZW_4core3ptr13drop_in_placeNtNtCsdyIG5SqMl5y_3std3env4ArgsECs7fattgR6AAa_3hot)" 22) \
		$(at $BIAS "$(rs _ZN3hot3hot4spin17ha77d574d84053b9fE)" 23) \
		$(at $BIAS "$(rs '_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17he283e3dede2f7e7dE')" 24) \
		$(at $BIAS "$(rs _ZN2ns2fnEi)" 25) || not_ok craft_rn
	"$PROF" -m rn.mon --format=csv rn >rn.csv 2>rn.err
	csv_awk -F, '$1 == "hot::hot::spin" { s += $8 } $1 ~ /^_[RZ]/ { bad = 1 }
		END { exit !(s == 44 && !bad) }' rn.csv && ok rust_names_demangled ||
		not_ok rust_names_demangled "$(cat rn.csv rn.err)"
	[ "$(csv_field rn.csv 'core::ptr::drop_in_place::<std::env::Args>' 8)" = 22.000 ] &&
		ok rust_v0_generic_demangled || not_ok rust_v0_generic_demangled "$(cat rn.csv)"
	[ "$(csv_field rn.csv 'std::rt::lang_start::{{closure}}' 8)" = 24.000 ] &&
		ok rust_legacy_escapes_decoded || not_ok rust_legacy_escapes_decoded "$(cat rn.csv)"
	[ "$(csv_field rn.csv 'ns::fn(int)' 8)" = 25.000 ] && ok cxx_name_demangled ||
		not_ok cxx_name_demangled "$(cat rn.csv)"
	"$PROF" -m rn.mon --format=csv --no-demangle rn >rnr.csv 2>/dev/null
	[ "$(csv_field rnr.csv _ZN3hot3hot4spin17ha77d574d84053b9fE 8)" = 23.000 ] &&
		[ "$(csv_field rnr.csv _RNvNtCs7fattgR6AAa_3hot3hot4spin 8)" = 21.000 ] &&
		ok rust_no_demangle_keeps_hash || not_ok rust_no_demangle_keeps_hash "$(cat rnr.csv)"
else
	not_ok rust_names_demangled "build failed"
fi

# A real Rust program, both manglings, where rustc is installed (Debian:
# rustc): no row and no frame keeps a mangled name or a ::h<hash>.
case " ${CC:-} " in *-fsanitize=*) san=1 ;; *) san= ;; esac
if [ -n "$san" ]; then
	# monrun would preload the sanitizer build's libmon into rustc's
	# program, which has no sanitizer runtime first (ASan stops it).
	ok "rust_real # skip under sanitizers: the Rust program has no sanitizer runtime"
elif command -v rustc >/dev/null 2>&1; then
	cat >hot.rs <<'RS'
mod hot {
    #[inline(never)]
    pub fn spin(n: u64) -> u64 {
        let mut x = 0u64;
        for i in 0..n { x = x.wrapping_mul(6364136223846793005).wrapping_add(i); }
        x
    }
}
fn main() {
    let n: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let f = || hot::spin(n);
    println!("{}", f());
}
RS
	for m in v0 legacy; do
		if rustc -O -g -C symbol-mangling-version=$m -o hot_$m hot.rs 2>rs_$m.err ||
		   { [ $m = legacy ] && rustc -O -g -o hot_$m hot.rs 2>rs_$m.err; }; then
			"$B/bin/monrun" -o hot_$m.mon ./hot_$m 200000000 >/dev/null 2>&1
			"$PROF" -m hot_$m.mon --format=folded hot_$m >hot_$m.txt 2>/dev/null
			"$PROF" -m hot_$m.mon --format=csv hot_$m >hot_$m.csv 2>/dev/null
			if grep -q 'hot::hot::spin' hot_$m.txt && ! grep -Eq '(^|;)_[RZ][A-Za-z0-9_]|::h[0-9a-f]{16}' hot_$m.txt &&
			   [ "$(sed -n 2p hot_$m.csv | cut -d, -f1)" = hot::hot::spin ]; then
				ok rust_real_$m
			else
				not_ok rust_real_$m "$(head -c 600 hot_$m.txt; head -3 hot_$m.csv)"
			fi
		else
			ok "rust_real_$m # skip rustc cannot build it: $(head -c 200 rs_$m.err)"
		fi
	done
else
	ok "rust_real # skip no rustc (Debian: rustc)"
fi

# Versioned names: "vfun", twice, the versions in the version column / JSON.
if csv_awk -F, '$1 == "vfun" && $8 == "13.000" && $12 == "V_1" { a = 1 }
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
