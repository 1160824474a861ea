#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Split DWARF (issue 23): prof --lines on a program built with
# -g -gsplit-dwarf reads the DIE tree from the .dwo file (through libdw), so
# the inlined function keeps its name: the same rows, names and samples as
# the plain -g build, one sample on every 2 bytes of outer (which inlines
# inner_mix).  Without the .dwo the split build has no inline information
# (which shows the .dwo is what was read).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
cd "$T" || exit 1
hex() { printf '%#x' "$1"; }
build_prog_static craft prof_craft.c -I"$ROOT/format" || { not_ok craft_build; exit 1; }
cp "$ROOT/tests/progs/prof_inline.c" . || exit 1
$CC -O2 -g -o plain prof_inline.c || { not_ok build_plain; exit 1; }
$CC -O2 -g -gsplit-dwarf -o split prof_inline.c || { not_ok build_split; exit 1; }
ls ./*.dwo >/dev/null 2>&1 || { not_ok split_dwo_written "no .dwo beside split"; exit 1; }
if readelf -S split | grep -q '\.debug_info' && ! readelf -wN -wi split | grep -q DW_TAG_inlined_subroutine; then
	ok split_skeleton_only
else
	not_ok split_skeleton_only "split's own .debug_info is not a skeleton"
fi
BIAS=$((0x555555554000))
lines_of() {	# PROG OUT: --lines CSV of one sample every 2 bytes of outer, "name ticks" sorted
	lo=$(nm_addr "$1" outer) sz=$(nm_size "$1" outer)
	./craft "$1.mon" -o "$T/$1:$(hex $BIAS):$(hex $((BIAS + lo))):$(hex $((BIAS + lo + sz))):1:$(build_id "$1")" \
		-h "$(hex $((BIAS + lo))):$(hex $((BIAS + lo + sz))):0x10000:100" \
		$(i=0; while [ $i -lt $((sz / 2)) ]; do echo "-b $i:1"; i=$((i + 1)); done) || return 1
	"$PROF" -m "$1.mon" --lines --format=csv "$1" 2>"$1.err" |
		csv_awk -F, 'NR > 1 && $8 > 0 { print $1, $8 }' | sort >"$2"
}
lines_of plain plain.txt || not_ok craft_plain
lines_of split split.txt || not_ok craft_split
if grep -q '^prof_inline\.c:[0-9]* inner_mix ' plain.txt && cmp -s plain.txt split.txt; then
	ok split_dwarf_inline_names
else
	not_ok split_dwarf_inline_names "plain: $(tr '\n' ';' <plain.txt) split: $(tr '\n' ';' <split.txt) $(cat split.err)"
fi
mkdir -p away && mv ./*.dwo away/
lines_of split nodwo.txt
grep -q inner_mix nodwo.txt && not_ok split_dwarf_needs_dwo "inner_mix without the .dwo" ||
	ok split_dwarf_needs_dwo
