#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# make check's dependency step (scripts/deps.sh) asks pkg-config before
# dpkg: on a system without dpkg whose pkg-config knows every library (and
# whose compiler finds libiberty's header, which has no module), it
# passes; where a library is missing it names it and fails, without dpkg.
# The system without dpkg is this one with every command but dpkg's and
# apt's on PATH (the real pkg-config answering about the real libraries).
. "$(dirname "$0")/lib.sh"
command -v pkg-config >/dev/null 2>&1 || { echo "SKIP no pkg-config"; exit 77; }
pkg-config --exists libelf libdw liblzma libdebuginfod cmocka 2>/dev/null ||
	{ echo "SKIP the check's libraries are not all known to pkg-config here"; exit 77; }
mkdir -p "$T/bin"
IFS=:
for d in $PATH; do
	[ -d "$d" ] || continue
	for c in "$d"/*; do
		n=${c##*/}
		case $n in dpkg*|apt*|aptitude) continue ;; esac
		[ -x "$c" ] && [ ! -e "$T/bin/$n" ] && ln -s "$c" "$T/bin/$n"
	done
done
unset IFS
SH=$(command -v sh)

out=$(PATH="$T/bin" "$SH" "$ROOT/scripts/deps.sh" check 2>&1); rc=$?
[ $rc -eq 0 ] && [ -z "$out" ] && ok "deps: pkg-config alone satisfies make check" \
	|| not_ok "deps: pkg-config alone satisfies make check" "exit $rc: $out"

# A library pkg-config does not know: named, and a failure (no dpkg asked).
# (The link goes first: writing through it would change the real one.)
real=$(command -v pkg-config)
rm -f "$T/bin/pkg-config"
cat >"$T/bin/pkg-config" <<EOS
#!$SH
for a; do [ "\$a" = cmocka ] && exit 1; done
exec "$real" "\$@"
EOS
chmod +x "$T/bin/pkg-config"
out=$(PATH="$T/bin" "$SH" "$ROOT/scripts/deps.sh" check 2>&1); rc=$?
case $rc:$out in
1:*cmocka*) ok "deps: a missing library is named" ;;
*) not_ok "deps: a missing library is named" "exit $rc: $out" ;;
esac

# A library without a pkg-config module (libiberty: its header, found by
# the compiler) missing: named by its header, and a failure.
cat >"$T/cc-noiberty" <<EOS
#!$SH
in=\$(cat)
case \$in in *libiberty*) exit 1 ;; esac
printf '%s\n' "\$in" | exec "$(command -v "${CC%% *}")" "\$@"
EOS
chmod +x "$T/cc-noiberty"
out=$(PATH="$T/bin" CC="$T/cc-noiberty" "$SH" "$ROOT/scripts/deps.sh" check 2>&1); rc=$?
case $rc:$out in
1:*libiberty/demangle.h*) ok "deps: a missing header is named" ;;
*) not_ok "deps: a missing header is named" "exit $rc: $out" ;;
esac
