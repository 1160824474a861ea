#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# No /proc (minimal containers, jails; issue 21 item 9): a cc -pg program
# and monrun still profile, with the program's own rows (the program's path
# from AT_EXECFN, libmon.so found beside monrun from its argv[0]), and the
# runtime says in one line what is missing.  The program runs in a mount
# namespace with an empty tmpfs over /proc (unshare -m, as root); skipped
# with the reason where that is refused.  Time limit: timeout 60 each.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"
. "$(dirname "$0")/mon_helpers.inc"
build_dump || { not_ok build_dump; exit 1; }
cd "$T" || exit 1
unset PROFDIR MONPROF_OUT
cat >spin.c <<'PROG'
volatile unsigned long sink;
__attribute__((noinline)) void leaf(void) { sink++; }
__attribute__((noinline)) void burn(long n) { for (long i = 0; i < n; i++) sink += (unsigned long)i; }
int main(void)
{
	for (int i = 0; i < 1234; i++)
		leaf();
	burn(100000000);
	return 0;
}
PROG
build_prog pg "$T/spin.c" -pg || not_ok build_pg
build_plain plain "$T/spin.c" || not_ok build_plain
# noproc CMD...: CMD with an empty /proc.
noproc() {
	unshare -m sh -c 'mount -t tmpfs none /proc && exec "$@"' sh "$@"
}
if [ "$(id -u)" != 0 ] || ! noproc test ! -e /proc/self 2>/dev/null; then
	ok "no /proc # skip cannot hide /proc here (needs root and unshare -m)"
	exit 0
fi
# A program that cannot run without /proc at all (a sanitizer's runtime
# reads /proc/self/maps) is not ours to judge.
if ! noproc timeout 60 ./plain >/dev/null 2>&1; then
	ok "no /proc # skip the program does not run without /proc even unprofiled ($CC)"
	exit 0
fi
for p in pg monrun; do
	rm -f mon.out
	if [ $p = pg ]; then
		noproc timeout 60 ./pg 2>err.txt; rc=$?
	else
		noproc timeout 60 "$MONRUN" ./plain 2>err.txt; rc=$?
	fi
	expect "$p: exit status 0" "$rc" 0
	prog=$([ $p = pg ] && echo pg || echo plain)
	expect "$p: the program is the main object" \
	    "$(dump mon.out info | awk '$1 == "object" && $NF == 1 { print $2; exit }')" "$T/$prog"
	if "$PROF" "$prog" >flat.txt 2>flat.err && grep -q ' burn$' flat.txt &&
	    ! grep -q 'anonymous' flat.txt; then
		ok "$p: burn has its row"
	else
		not_ok "$p: burn has its row" "$(head -c 300 flat.txt flat.err)"
	fi
	if [ "$(grep -c '^monprof: /proc is not mounted: ' err.txt)" = 1 ]; then
		ok "$p: says what is missing, once"
	else
		not_ok "$p: says what is missing, once" "$(cat err.txt)"
	fi
done
