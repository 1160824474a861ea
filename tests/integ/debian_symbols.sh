#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# debian/ agrees with the tree it packages:
#  - debian/libmon0.symbols lists exactly the symbols lib/libmon.map
#    exports, each under its version node (NAME@Base for the anonymous
#    node libmon.map uses today, NAME@NODE and the node NODE@NODE itself
#    for a named one, as dpkg-gensymbols(1) writes them), both ways: a
#    symbol added to the map and not to the symbols file, or left in the
#    symbols file after leaving the map, is named;
#  - the symbols file's library is the soname (libmon.so.$(SOVERSION)) and
#    its package libmon$(SOVERSION), which debian/control declares;
#  - debian/changelog's version is the Makefile's VERSION.
# (The package build checks the built library against the symbols file,
# DPKG_GENSYMBOLS_CHECK_LEVEL=4 in debian/rules; this test needs no build.
# The aarch64 stage checks the arm64 library's exports against the file's
# arm64 symbols: scripts/ci-aarch64.sh.)
. "$(dirname "$0")/lib.sh"
D=$ROOT/debian
for f in libmon0.symbols control changelog rules copyright; do
	[ -f "$D/$f" ] || { not_ok "debian_$f" "debian/$f missing"; exit 1; }
done

# NAME@NODE per global symbol of the version script, sorted: comments
# dropped, "NODE {" opens a node ("{" alone: the anonymous one, Base),
# "global:"/"local:" switch sections, "} [PARENT];" closes it.
map_symbols() {
	awk '{ s = s $0 "\n" }
	END {
		gsub(/\/\*([^*]|\*+[^*\/])*\*+\//, " ", s)
		gsub(/#[^\n]*/, " ", s)
		gsub(/[{}:;]/, " & ", s)
		n = split(s, w, /[ \t\n]+/)
		node = ""; depth = 0; sect = "global"; prev = ""
		for (i = 1; i <= n; i++) {
			t = w[i]
			if (t == "") continue
			if (t == "{") {
				node = (prev != "" && prev != ";" && prev != "}") ? prev : "Base"
				if (node != "Base") print node "@" node
				depth = 1; sect = "global"
			} else if (t == "}") {
				depth = 0
			} else if (depth && t == ":" ) {
				sect = prev
			} else if (depth && t != ";" && w[i + 1] != ":" && sect == "global") {
				print t "@" node
			}
			prev = t
		}
	}' "$ROOT/lib/libmon.map" | LC_ALL=C sort
}
# (A tag such as "(arch=amd64)" before a name limits it to those
# architectures, dpkg-gensymbols(1): mcount and __fentry__ are x86-64's
# only; scripts/ci-aarch64.sh checks the arm64 library against the rest.)
sym_symbols() {
	awk '/^ [^ ]/ { sub(/^\([^)]*\)/, "", $1); print $1 }' "$D/libmon0.symbols" | LC_ALL=C sort
}
# Names dpkg-gensymbols leaves out of every symbols file (its internal
# symbols, Dpkg/Shlibs/SymbolFile.pm: "__gmon_start__ => 1, # hppa" among
# them): listed, a build at any later version fails with "#MISSING:
# __gmon_start__@Base" (a reviewer's finding; the libmon.map exports it,
# as every program's _init calls it).
DPKG_INTERNAL='__gmon_start__ _init _fini _edata _end __bss_start _DYNAMIC _GLOBAL_OFFSET_TABLE_'
map_symbols >"$T/map.all"
awk -v skip="$DPKG_INTERNAL" 'BEGIN { n = split(skip, a, " "); for (i = 1; i <= n; i++) s[a[i] "@Base"] = 1 }
	!($0 in s)' "$T/map.all" >"$T/map"
sym_symbols >"$T/sym"
[ -s "$T/map" ] || { not_ok debian_symbols_map "no symbol read from lib/libmon.map"; exit 1; }
# The parser agrees with lib.sh's reading of the same map (names only).
grep -v '^\(.*\)@\1$' "$T/map.all" | sed 's/@.*//' | LC_ALL=C sort >"$T/mapnames"
map_names >"$T/libnames"
cmp -s "$T/mapnames" "$T/libnames" && ok debian_symbols_map_read ||
    not_ok debian_symbols_map_read "$(diff "$T/libnames" "$T/mapnames" | tr '\n' ' ')"
missing=$(LC_ALL=C comm -23 "$T/map" "$T/sym" | tr '\n' ' ')
extra=$(LC_ALL=C comm -13 "$T/map" "$T/sym" | tr '\n' ' ')
[ -z "$missing" ] && ok debian_symbols_has_every_map_symbol ||
    not_ok debian_symbols_has_every_map_symbol "in lib/libmon.map, not in debian/libmon0.symbols: $missing"
[ -z "$extra" ] && ok debian_symbols_has_no_other ||
    not_ok debian_symbols_has_no_other "in debian/libmon0.symbols, not in lib/libmon.map: $extra"
inner=$(for n in $DPKG_INTERNAL; do grep -qx "$n@.*" "$T/sym" && printf '%s ' "$n"; done)
[ -z "$inner" ] && ok debian_symbols_no_dpkg_internal ||
    not_ok debian_symbols_no_dpkg_internal "dpkg-gensymbols' own internal symbols listed: $inner"
dups=$(uniq -d "$T/sym" | tr '\n' ' ')
[ -z "$dups" ] && ok debian_symbols_once || not_ok debian_symbols_once "listed twice: $dups"

version=$(sed -n 's/^VERSION *:= *//p' "$ROOT/Makefile")
sover=$(sed -n 's/^SOVERSION *:= *//p' "$ROOT/Makefile")
head=$(head -n 1 "$D/libmon0.symbols")
[ "$head" = "libmon.so.$sover libmon$sover #MINVER#" ] && ok debian_symbols_soname ||
    not_ok debian_symbols_soname "first line '$head', soname libmon.so.$sover"
grep -qx "Package: libmon$sover" "$D/control" && ok debian_control_runtime_package ||
    not_ok debian_control_runtime_package "no 'Package: libmon$sover' in debian/control"
# Each symbol's minimal version is a released one: not past VERSION.
late=
command -v dpkg >/dev/null 2>&1 &&
late=$(awk -v v="$version" '/^ [^ ]/ { if ($2 != v && system("dpkg --compare-versions " $2 " gt " v) == 0) print $1 }' \
    "$D/libmon0.symbols" | tr '\n' ' ')
[ -z "$late" ] && ok debian_symbols_versions || not_ok debian_symbols_versions "after $version: $late"
cl=$(sed -n '1s/^monprof (\([^)]*\)).*/\1/p' "$D/changelog")
[ "${cl%-*}" = "$version" ] && ok debian_changelog_version ||
    not_ok debian_changelog_version "debian/changelog has '$cl', the Makefile VERSION $version"

# dpkg-gensymbols itself, at check level 4 as debian/rules sets it, on the
# library built here: at this version and at a later one (where a symbol
# listed but left out by dpkg, as __gmon_start__ was, fails the build).
lib=$(ls "$B/lib/libmon.so.$sover".* 2>/dev/null | head -n 1)
if ! command -v dpkg-gensymbols >/dev/null 2>&1; then
	ok "debian_symbols_gensymbols # skip no dpkg-gensymbols (Debian: dpkg-dev)"
elif [ -z "$lib" ]; then
	ok "debian_symbols_gensymbols # skip no $B/lib/libmon.so.$sover.* built"
else
	out=
	for v in "$version" 99.0.0; do
		(cd "$ROOT" && dpkg-gensymbols -v"$v" -plibmon"$sover" -e"$lib" -c4 \
		    -I"$D/libmon0.symbols" -O"$T/gs.$v") >"$T/gs.$v.log" 2>&1 ||
			out="$out$v: $(grep -E '^[-+] |error' "$T/gs.$v.log" | head -n 4 | tr '\n' ' '); "
	done
	[ -z "$out" ] && ok debian_symbols_gensymbols || not_ok debian_symbols_gensymbols "$out"
fi
