#!/bin/sh
# libmon's ABI surface: lib/libmon.map lists names (no patterns, each once),
# and libmon.so exports exactly those names, no more and no fewer.
. "$(dirname "$0")/lib.sh"
SO=$(ls "$B"/lib/libmon.so.*.*.* | head -n 1)

map_names >"$T/map"
bad=$(grep -v '^[A-Za-z_][A-Za-z0-9_]*$' "$T/map" | tr '\n' ' ')
[ -s "$T/map" ] && [ -z "$bad" ] && ok "exports: libmon.map lists plain names" \
	|| not_ok "exports: libmon.map lists plain names" "not a name: ${bad:-(empty list)}"
dup=$(uniq -d "$T/map" | tr '\n' ' ')
[ -z "$dup" ] && ok "exports: each name listed once" || not_ok "exports: each name listed once" "twice: $dup"

nm -D --defined-only "$SO" | awk '$2 ~ /^[A-Za-z]$/ && $2 != "U" { print $3 }' | sed 's/@.*//' |
	LC_ALL=C sort -u >"$T/so"
uniq "$T/map" >"$T/map1"
extra=$(LC_ALL=C comm -13 "$T/map1" "$T/so" | tr '\n' ' ')
missing=$(LC_ALL=C comm -23 "$T/map1" "$T/so" | tr '\n' ' ')
[ -s "$T/so" ] && [ -z "$extra" ] && ok "exports: libmon.so exports no name the map does not list" \
	|| not_ok "exports: libmon.so exports no name the map does not list" "extra: $extra"
[ -z "$missing" ] && ok "exports: libmon.so exports every name the map lists" \
	|| not_ok "exports: libmon.so exports every name the map lists" "missing: $missing"
