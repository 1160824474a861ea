#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# prof's errors: a missing, empty, truncated or foreign data file, a missing
# executable, an unreadable ELF, a gmon.out without its program, usage
# errors.  Each is one line on stderr naming the file and the fault, nothing
# on stdout, exit 1 (data) or 2 (usage), never a crash.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
cd "$T" || exit 1

build_prog_static craft prof_craft.c -I"$ROOT/format" || { not_ok craft_build; exit 1; }
$CC -O1 -g -o pw "$ROOT/tests/progs/prof_work.c" || { not_ok build_pw; exit 1; }
hex() { printf '%#x' "$1"; }
aH=$(nm_addr pw heavy)
./craft good.mon -o "$T/pw:0:0x1000:0x2000:1:$(build_id pw)" \
	-h "$(hex "$aH"):$(hex $((aH + 64))):0x8000:16" -b 0:5 -c "$(hex $((aH + 9))):2"
"$PROF" -m good.mon >/dev/null 2>&1 && ok good_file_reads || not_ok good_file_reads

one_line_error missing_file 1 "^prof: nothere\.mon: No such file or directory$" "$PROF" -m nothere.mon
mkdir empty && (cd empty && one_line_error missing_default 1 "^prof: mon\.out: No such file" "$PROF")
: >empty.mon
one_line_error empty_file 1 "^prof: empty\.mon: empty file$" "$PROF" -m empty.mon
size=$(wc -c <good.mon)
for cut in 5 40 100 $((size - 1)); do
	head -c "$cut" good.mon >cut.mon
	one_line_error "truncated_$cut" 1 "^prof: cut\.mon: .*(truncated|short|bytes)" "$PROF" -m cut.mon
done
printf 'hello, this is not a profile\n' >foreign.mon
one_line_error foreign_file 1 "^prof: foreign\.mon: not a profile" "$PROF" -m foreign.mon
# A corrupted byte in the middle: the format module's checksum says so.  The
# byte is complemented, so it always changes (writing 0xff left it as it
# was, about once in 256 runs, when it fell in the build ID, which varies
# with the scratch directory recorded in pw's debug info).
cp good.mon bad.mon
byte=$(od -An -tu1 -j $((size / 2)) -N1 good.mon | tr -d ' ')
printf "\\$(printf '%03o' $((255 - byte)))" | dd of=bad.mon bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
cmp -s good.mon bad.mon && not_ok corrupted_file_differs "byte $((size / 2)) unchanged"
one_line_error corrupted_file 1 "^prof: bad\.mon: " "$PROF" -m bad.mon

./craft gone.mon -o "$T/vanished:0:0x1000:0x2000:1"
one_line_error missing_executable 1 "^prof: $T/vanished: No such file or directory$" "$PROF" -m gone.mon
printf 'not elf at all\n' >notelf
one_line_error unreadable_elf 1 "^prof: notelf: not an ELF file$" "$PROF" -m good.mon notelf
one_line_error missing_prog_arg 1 "^prof: nosuchprog: no such file in the current directory or in PATH$" \
	"$PROF" -m good.mon nosuchprog

# gmon.out: needs the program (default a.out), and a sane record stream.
printf 'gmon\001\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\007' >bad.gmon
one_line_error gmon_needs_prog 1 "^prof: bad\.gmon: gmon\.out needs its program: a\.out: No such file" \
	"$PROF" -m bad.gmon
one_line_error gmon_bad_tag 1 "^prof: bad\.gmon: bad record tag 7 at offset 20$" "$PROF" -m bad.gmon pw
printf 'gmon\001\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\020\020' >short.gmon
one_line_error gmon_truncated 1 "^prof: short\.gmon: truncated" "$PROF" -m short.gmon pw
printf 'gmo' >tiny.gmon
one_line_error gmon_tiny 1 "^prof: tiny\.gmon: not a profile" "$PROF" -m tiny.gmon pw

# Usage errors: the fault, then the usage line; exit 2.
usage_error() {
	name=$1 pat=$2; shift 2
	"$@" >/dev/null 2>"$T/u.err"
	rc=$?
	if [ $rc -eq 2 ] && head -1 "$T/u.err" | grep -Eq -- "$pat" &&
	   sed -n 2p "$T/u.err" | grep -q '^usage: prof ' && [ "$(wc -l <"$T/u.err")" -eq 2 ]; then
		ok "$name"
	else
		not_ok "$name" "exit $rc: $(cat "$T/u.err")"
	fi
}
usage_error usage_bad_option "^prof: unknown option -Q$" "$PROF" -Q
usage_error usage_two_progs "^prof: more than one program" "$PROF" a b
usage_error usage_bad_format "^prof: unknown format 'xml'" "$PROF" --format=xml
"$PROF" -Q 2>&1 | grep -q '^usage: prof \[-ChsVz\] \[-a|c|n|t\] \[-o|x\] \[-g|l\] \[-m mdata\]' &&
	ok usage_line || not_ok usage_line
