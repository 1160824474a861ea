#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Writes, on standard output, a C header that holds the bytes of FILE as
#   static const char NAME[] = { 0x.., ..., 0x00 };
# (FILE's bytes exactly, then a NUL: a C string when FILE has none), so a
# resource keeps its own file and language in the tree (a JavaScript
# file, a style sheet) and is built into the program (the Makefile makes
# $(B)/gen/NAME.h from it).  With FORBIDDEN, a FILE holding that string is
# refused (exit 1, naming the line): e.g. "]]>", which would end the CDATA
# section an inline script is written into.
#   scripts/embed.sh FILE NAME [FORBIDDEN]
set -eu
[ $# -ge 2 ] || { echo "usage: embed.sh FILE NAME [FORBIDDEN]" >&2; exit 2; }
file=$1 name=$2
[ -r "$file" ] || { echo "embed.sh: cannot read $file" >&2; exit 1; }
if [ $# -ge 3 ] && grep -n -F -e "$3" "$file" >&2; then
	echo "embed.sh: $file holds '$3' (above), which must not appear in the document it is embedded in" >&2
	exit 1
fi
echo "/* Generated from $file by scripts/embed.sh: edit that file, not this one. */"
echo "static const char $name[] = {"
od -An -v -tx1 "$file" | awk '{ s = "\t"; for (i = 1; i <= NF; i++) s = s "0x" $i ","; print s }'
echo "	0x00"
echo "};"
