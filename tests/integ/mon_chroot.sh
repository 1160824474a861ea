#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A program that chroots itself still writes its profile where it was
# decided at start (issue 21 item 8): PROFDIR unset (mon.out in the
# working directory), PROFDIR=DIR, and monrun -o FILE.  The runtime holds
# the directory open from the start and writes relative to it (monfile.c).
# Run as root, or in a user namespace (unshare -r) where chroot is allowed;
# skipped with the reason where neither is.  Time limit: timeout 60 each.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mon_helpers.inc"
build_dump || { not_ok build_dump; exit 1; }
cd "$T" || exit 1
unset PROFDIR MONPROF_OUT
build_prog prog mon_chroot.c -pg || { not_ok build_pg; exit 1; }
$CC -O1 -g -o plain "$ROOT/tests/progs/mon_chroot.c" || { not_ok build_plain; exit 1; }
mkdir -p jail out
chmod 755 "$T" jail out
# as_root CMD...: CMD with the right to chroot (root, else a user namespace).
if [ "$(id -u)" = 0 ]; then
	as_root() { "$@"; }
elif unshare -r true 2>/dev/null; then
	as_root() { unshare -r "$@"; }
else
	ok "chroot # skip not root, and unshare -r refused"
	exit 0
fi
# LeakSanitizer reads /proc/PID/task at exit, which the jail lacks: in a
# sanitizer build (make check-sanitize) its leak check is off here, and
# the rest of the sanitizer's checks stay on.
case " ${CC:-} " in
*-fsanitize=*) ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0; export ASAN_OPTIONS ;;
esac
out=$(as_root timeout 60 ./plain "$T/jail"); rc=$?
if [ $rc = 77 ]; then
	ok "chroot # skip $(printf '%s\n' "$out" | sed -n 's/^SKIP //p')"
	exit 0
fi

rm -f mon.out
out=$(as_root timeout 60 ./prog "$T/jail" 2>&1); rc=$?
expect "PROFDIR unset: exit status 0" "$rc" 0
expect "PROFDIR unset: nothing printed" "$out" ""
expect "PROFDIR unset: mon.out where the program started" "$(dump mon.out calls leaf prog)" 1234
[ ! -e jail/mon.out ] && ok "PROFDIR unset: nothing in the new root" || not_ok "PROFDIR unset: nothing in the new root"

out=$(PROFDIR="$T/out" as_root timeout 60 ./prog "$T/jail" 2>&1); rc=$?
expect "PROFDIR=DIR: exit status 0" "$rc" 0
f=$(ls out | head -n 1)
case $f in
*.prog) expect "PROFDIR=DIR: PID.prog in DIR" "$(dump "out/$f" calls leaf prog)" 1234 ;;
*) not_ok "PROFDIR=DIR: PID.prog in DIR" "found '$f' ($out)" ;;
esac

rm -f o.out
out=$(as_root timeout 60 "$B/bin/monrun" -o "$T/o.out" ./plain "$T/jail" 2>&1); rc=$?
expect "monrun -o: exit status 0" "$rc" 0
if [ -f o.out ] && dump o.out check >/dev/null; then
	ok "monrun -o: the named file written"
else
	not_ok "monrun -o: the named file written" "$out"
fi

# Run by a link's relative name, it is named by that link, as it was run,
# though it left the directory (and the root) before its profile was
# written: the name is found when profiling starts and kept (objects.c).
# Mutation: the name found again at each walk (objects.c's kept name
# off): the file names /linkprog, a path in the jail, and prof finds none.
ln -s prog linkprog
rm -f mon.out
out=$(as_root timeout 60 ./linkprog "$T/jail" 2>&1); rc=$?
"$B/bin/prof" --format=flame -m mon.out >link.svg 2>link.err
if [ "$rc" = 0 ] && grep -q "graph of $T/linkprog" link.svg; then
	ok "run by a link: named by it after chroot"
else
	not_ok "run by a link: named by it after chroot" "exit $rc; title: $(grep -o 'graph of [^<"]*' link.svg | head -n 1); $(head -c 300 link.err)"
fi
