#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Programs monrun and libmon must serve, or refuse in their own words
# (issue 21 items 10, 11, 12):
# - a program started through glibc's dynamic loader
#   ("monrun /lib64/ld-linux-x86-64.so.2 ./prog", and a -pg program run that
#   way): profiled, the program (not the loader) recorded, so a bare
#   `prof` finds it and its build ID matches;
# - an AddressSanitizer program: runs under monrun (ASan's link-order check
#   turned off, appended to the user's ASAN_OPTIONS, an explicit
#   verify_asan_link_order of the user's kept);
# - a musl program: refused with monrun's own message, exit 126, nothing run
#   (skipped without musl-gcc: Debian's musl-tools).
# Time limit: every run under timeout 60.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"
. "$(dirname "$0")/mon_helpers.inc"
build_dump || { not_ok build_dump; exit 1; }
cd "$T" || exit 1
unset PROFDIR MONPROF_OUT

cat >spin.c <<'PROG'
#include <stdio.h>
#include <stdlib.h>
volatile unsigned long sink;
__attribute__((noinline)) void leaf(void) { sink++; }
__attribute__((noinline)) void burn(long n) { for (long i = 0; i < n; i++) sink += (unsigned long)i; }
int main(void)
{
	const char *ao = getenv("ASAN_OPTIONS");
	printf("asan_options %s\n", ao ? ao : "-");
	for (int i = 0; i < 1234; i++)
		leaf();
	burn(100000000);
	return 0;
}
PROG

# The loader: glibc's, as the program names it (PT_INTERP).
build_plain plain "$T/spin.c" || not_ok build_plain
loader=$(readelf -lW plain | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
if [ -z "$loader" ] || [ ! -x "$loader" ]; then
	ok "loader # skip no program interpreter to run ($loader)"
else
	rm -f mon.out
	out=$(timeout 60 "$MONRUN" "$loader" ./plain 2>&1); rc=$?
	expect "monrun LOADER prog: exit status 0" "$rc" 0
	[ -f mon.out ] && ok "monrun LOADER prog: profile written" ||
	    not_ok "monrun LOADER prog: profile written" "$out"
	expect "monrun LOADER prog: the program is the main object" \
	    "$(dump mon.out info | awk '$1 == "object" && $NF == 1 { print $2; exit }')" "$T/plain"
	if "$PROF" >flat.txt 2>flat.err && grep -q ' burn$' flat.txt; then
		ok "monrun LOADER prog: bare prof reads it"
	else
		not_ok "monrun LOADER prog: bare prof reads it" "$(head -c 300 flat.err)"
	fi
	one_line_error "monrun LOADER alone: refused" 2 'dynamic loader, with no program to run' \
	    "$MONRUN" "$loader"

	build_prog pg "$T/spin.c" -pg || not_ok build_pg
	rm -f mon.out
	timeout 60 "$loader" ./pg >/dev/null 2>&1; rc=$?
	expect "LOADER -pg prog: exit status 0" "$rc" 0
	expect "LOADER -pg prog: leaf counted" "$(dump mon.out calls leaf pg)" 1234
	expect "LOADER -pg prog: the program is the main object" \
	    "$(dump mon.out info | awk '$1 == "object" && $NF == 1 { print $2; exit }')" "$T/pg"
	if "$PROF" >flat.txt 2>flat.err && grep -q ' burn$' flat.txt; then
		ok "LOADER -pg prog: bare prof reads it (build IDs match)"
	else
		not_ok "LOADER -pg prog: bare prof reads it (build IDs match)" "$(head -c 300 flat.err)"
	fi
fi

# AddressSanitizer.  Where $CC already builds with it (make check-sanitize)
# the program is built as is.
if $CC -O1 -g -fsanitize=address -o asan spin.c 2>/dev/null && ./asan >/dev/null 2>&1; then
	rm -f mon.out
	out=$(ASAN_OPTIONS=detect_leaks=0 timeout 60 "$MONRUN" ./asan 2>&1); rc=$?
	expect "ASan program: exit status 0" "$rc" 0
	case $out in
	*"asan_options detect_leaks=0:verify_asan_link_order=0"*) ok "ASan program: the user's ASAN_OPTIONS kept, the check appended" ;;
	*) not_ok "ASan program: the user's ASAN_OPTIONS kept, the check appended" "$out" ;;
	esac
	[ -f mon.out ] && ok "ASan program: profile written" || not_ok "ASan program: profile written" "$out"
	out=$(ASAN_OPTIONS=verify_asan_link_order=1 timeout 60 "$MONRUN" ./asan 2>&1)
	# The user asked for the check: ASan makes it (and stops the program).
	case $out in
	*"does not come first in initial library list"*) ok "ASan program: an explicit verify_asan_link_order left" ;;
	*) not_ok "ASan program: an explicit verify_asan_link_order left" "$out" ;;
	esac
else
	ok "ASan program # skip $CC cannot build and run -fsanitize=address here"
fi

# musl.
if command -v musl-gcc >/dev/null 2>&1 && musl-gcc -O1 -o musl spin.c 2>/dev/null; then
	one_line_error "musl program: refused by monrun" 126 \
	    '^monrun: ./musl: built for the musl C library \(loader .*ld-musl.*\): libmon.so is built for glibc' \
	    "$MONRUN" ./musl
else
	ok "musl program # skip no musl-gcc (Debian: musl-tools)"
fi
