#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The layers' include rule (docs/architecture.md): every quoted #include of
# a file in format/ names a header of include/ or format/; of a tool, one of
# include/, format/ or its own directory (never lib/); of lib/, one of
# include/, lib/, lib/arch/ARCH/ or format/ (never a tool's).  The Makefile gives each layer
# only those paths; this checks the sources, whatever the flags.
. "$(dirname "$0")/lib.sh"
cd "$ROOT" || exit 1
layer() {
	name=$1 dirs=$2; shift 2
	bad=
	for f in "$@"; do
		[ -f "$f" ] || continue
		own=$(dirname "$f")
		for h in $(sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f"); do
			found=
			for d in $dirs $own; do [ -f "$d/$h" ] && { found=$d; break; }; done
			[ -n "$found" ] || bad="$bad $f:$h"
		done
	done
	[ -z "$bad" ] && ok "layers: $name" || not_ok "layers: $name" "outside its layer:$bad"
}
layer "format/ includes only include/ and format/" "include format" format/*.c format/*.h
layer "tools include only include/, format/ and their own directory" "include format" \
	tools/*/*.c tools/*/*.h
# (and the resources the build embeds, $B/gen/: flame_js.h from flame.js)
layer "prof's renderers include only include/, format/, prof's directory and their own" \
	"include format tools/prof $B/gen" tools/prof/out/*.c tools/prof/out/*.h
layer "lib/ includes only include/, lib/, its machine's lib/arch/ARCH/ and format/" \
	"include lib lib/arch/$(uname -m) format" lib/*.c lib/*.h
# A machine's directory includes only include/, lib/, format/ and itself,
# never another machine's (musl's src/*/ARCH/ rule).
for a in lib/arch/*/; do
	a=${a%/}
	layer "$a includes only include/, lib/, format/ and its own directory" "include lib format" \
		"$a"/*.c "$a"/*.h
done

# Sources cite primary sources (manual pages, kernel documentation, the
# historic code by path), never the sections of a notes file outside the
# tree ("FACTS §2.2").
cites=$(grep -rln 'FACTS §\|FACTS\.md' include lib format tools tests fuzz docs scripts bench Makefile \
	README.md 2>/dev/null | grep -v '^tests/integ/layers\.sh$' | tr '\n' ' ')
[ -z "$cites" ] && ok "words: no citation of a file outside the tree" \
	|| not_ok "words: no citation of a file outside the tree" "in: $cites"
