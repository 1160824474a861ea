#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# libmon's ABI surface: lib/libmon.map lists names (no patterns, each once),
# and libmon.so exports exactly those names, no more and no fewer.  libmon
# links the mon.out writer but no reader code, and the writer (which runs in
# signal handlers) calls only async-signal-safe functions (signal-safety(7)).
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

# No reader in libmon: none of the reader's global functions (as its object
# defines them) is in libmon.so (its local symbols included) or libmon.a.
RD=$B/tool/format/monout_read.o
nm --defined-only -g "$RD" | awk '$2 ~ /^[A-Z]$/ { print $3 }' | LC_ALL=C sort -u >"$T/reader"
nm "$SO" 2>/dev/null | awk '{ print $NF }' | LC_ALL=C sort -u >"$T/so_all"
nm --defined-only "$B/lib/libmon.a" 2>/dev/null | awk 'NF == 3 { print $3 }' | LC_ALL=C sort -u >"$T/a_all"
in_so=$(LC_ALL=C comm -12 "$T/reader" "$T/so_all" | tr '\n' ' ')
in_a=$(LC_ALL=C comm -12 "$T/reader" "$T/a_all" | tr '\n' ' ')
[ -s "$T/reader" ] && [ -s "$T/so_all" ] && [ -z "$in_so" ] && ok "format: libmon.so links no reader code" \
	|| not_ok "format: libmon.so links no reader code" "reader symbols: ${in_so:-(no symbols read)}"
[ -s "$T/a_all" ] && [ -z "$in_a" ] && ! ar t "$B/lib/libmon.a" | grep -q '^monout_read' \
	&& ok "format: libmon.a holds no reader code" \
	|| not_ok "format: libmon.a holds no reader code" "reader symbols: $in_a"

# The writer's and the checksum's outside calls are all async-signal-safe
# (or the compiler's and sanitizers' own helpers): POSIX's list in
# signal-safety(7), and two system calls' wrappers that keep no state of
# the C library's (sendfile, syscall: monout_copy_into).
safe=" write pwrite pwrite64 ftruncate ftruncate64 lseek lseek64 memcpy memset memmove strlen
 __errno_location monout_crc32 __stack_chk_fail __memcpy_chk __memset_chk __memmove_chk
 fcntl fcntl64 fstat fstat64 fstatat fstatat64 openat openat64 renameat unlinkat poll pread pread64
 sendfile sendfile64 syscall "
safe=$(echo "$safe" | tr '\n' ' ')
bad=
for o in "$B/obj/format/monout_write.o" "$B/obj/format/crc32.o"; do
	for s in $(nm -u "$o" | awk '{ print $2 }'); do
		case $s in __asan_*|__ubsan_*|__tsan_*|__sanitizer_*|__msan_*) continue ;; esac
		case "$safe" in *" $s "*) ;; *) bad="$bad $(basename "$o"):$s" ;; esac
	done
done
[ -z "$bad" ] && ok "format: the writer calls only async-signal-safe functions" \
	|| not_ok "format: the writer calls only async-signal-safe functions" "calls$bad"
