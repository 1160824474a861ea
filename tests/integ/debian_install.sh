#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The Debian packages as a user gets them: DEBS=DIR names the directory of
# libmon0_*.deb, libmon-dev_*.deb and monprof_*.deb (scripts/ci-package.sh
# builds them there and runs this script; without DEBS, in `make check`, it
# reports a skip).  Installs them on this machine with dpkg -i (root only;
# they are removed again at the end unless they were installed before),
# checks which package holds what, and runs the README's examples with the
# installed commands only: PATH is /usr/bin:/bin (and sbin for dpkg), no LD_LIBRARY_PATH,
# nothing of the build tree.  Last, with libmon-dev removed, monrun still
# finds the runtime (libmon.so.0 of libmon0 alone).
# Does not source lib.sh: that puts the build tree's libmon.so first on the
# loader's path, and here the installed copy must be the one found.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
fails=0
ok() { echo "ok $1"; }
not_ok() { echo "not ok $1${2:+ — $2}"; fails=$((fails + 1)); }
if [ -z "${DEBS:-}" ]; then
	echo "SKIP DEBS unset: scripts/ci-package.sh builds the packages and runs this test"
	exit 77
fi
if [ "$(id -u)" != 0 ]; then
	echo "SKIP dpkg -i needs root"
	exit 77
fi
DEBS=$(cd "$DEBS" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/monprof-deb.XXXXXX")
chmod 755 "$T"
pkgs="libmon0 libmon-dev monprof"
before=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' && before="$before $p"
done
cleanup() {
	[ -z "$before" ] && dpkg -r $pkgs >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
unset LD_LIBRARY_PATH LD_PRELOAD PKG_CONFIG_PATH MONPROF_RATE MONPROF_CLOCK MONPROF_STACK_DEPTH PROFDIR
export PATH=/usr/bin:/bin:/usr/sbin:/sbin LC_ALL=C
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
L=/usr/lib/$ma

# 1. dpkg -i: the three packages install beside what Debian already has
#    (manpages-dev's profil.3 among them).
if dpkg -i "$DEBS"/libmon0_*.deb "$DEBS"/libmon-dev_*.deb "$DEBS"/monprof_*.deb >"$T/dpkg.log" 2>&1
then ok "deb: dpkg -i libmon0 libmon-dev monprof"
else not_ok "deb: dpkg -i libmon0 libmon-dev monprof" "$(tail -n 3 "$T/dpkg.log")"; exit 1; fi

# 2. Which package holds what.
holds() {	# PACKAGE PATH...: each PATH is PACKAGE's
	p=$1; shift
	for f in "$@"; do
		dpkg -L "$p" | grep -qx "$f" && [ -e "$f" ] && ok "deb: $p holds $f" ||
		    not_ok "deb: $p holds $f"
	done
}
holds libmon0 "$L/libmon.so.0"
holds libmon-dev /usr/include/mon.h "$L/libmon.a" "$L/libmon.so" "$L/pkgconfig/mon.pc" \
    /usr/share/man/man3/profil.3mon.gz /usr/share/man/man3/monitor.3mon.gz
holds monprof /usr/bin/prof /usr/bin/monrun /usr/share/man/man1/prof.1.gz \
    /usr/share/man/man1/monrun.1.gz /usr/share/man/man5/mon.out.5.gz
# Every command and manual page of the tree is in a package.
for m in "$ROOT"/docs/*.[1-9]; do
	s=${m##*.} n=$(basename "$m"); [ "$s" = 3 ] && n=${n}mon
	[ -e "/usr/share/man/man$s/$n.gz" ] && ok "deb: manual page $n" || not_ok "deb: manual page $n"
done
for t in "$ROOT"/tools/*/; do
	n=$(basename "$t")
	ls "$t"*.c >/dev/null 2>&1 || continue
	dpkg -S "/usr/bin/$n" 2>/dev/null | grep -q '^monprof:' && ok "deb: monprof holds /usr/bin/$n" ||
	    not_ok "deb: monprof holds /usr/bin/$n"
done
# libmon0 holds the library and its documentation, nothing else.
extra=$(dpkg -L libmon0 | grep -v -e "^$L/libmon\.so\.0" -e '^/usr/share/doc' -e "^/\.$" \
    -e '^/usr$' -e '^/usr/lib$' -e "^$L$" -e '^/usr/share$' | tr '\n' ' ')
[ -z "$extra" ] && ok "deb: libmon0 holds only the runtime" || not_ok "deb: libmon0 holds only the runtime" "$extra"
if command -v man >/dev/null 2>&1; then
	[ "$(man -w 3mon profil 2>/dev/null)" = /usr/share/man/man3/profil.3mon.gz ] &&
	    ok "deb: man 3mon profil" || not_ok "deb: man 3mon profil" "$(man -w 3mon profil 2>&1)"
fi
# The pages' references to the package's own section-3 pages say 3mon
# (debian/rules): "SEE ALSO profil(3)" opened the C library's page.
refs=$(for f in $(dpkg -L monprof libmon-dev | grep '^/usr/share/man/.*\.gz$'); do zcat "$f"; done)
old3=$(printf '%s\n' "$refs" | grep -cE '(profil|monitor|sprofil)(\\f[PR])? ?\(3\)')
new3=$(printf '%s\n' "$refs" | grep -cE '(profil|monitor) ?\(3mon\)')
[ "$old3" = 0 ] && [ "$new3" -ge 4 ] && ok "deb: references to section 3mon" ||
    not_ok "deb: references to section 3mon" "$old3 lines still say (3), $new3 say (3mon)"

# 3. The README's examples, in the order it gives them.
cd "$T" || exit 1
cp "$ROOT/tests/progs/prof_work.c" prog.c
runs() {	# NAME CMD...: CMD exits 0, output in NAME.out and NAME.err
	n=$1; shift
	"$@" >"$n.out" 2>"$n.err"; rc=$?
	[ $rc = 0 ] && return 0
	echo "# $n: exit $rc — $(head -c 300 "$n.err")"; return 1
}
has() { grep -q -- "$2" "$1.out"; }	# NAME REGEX: NAME's output matches
try() {	# NAME WHAT CMD...: ok when CMD succeeds and its output has WHAT
	n=$1 what=$2; shift 2
	runs "$n" "$@" && has "$n" "$what" && ok "readme: $n" ||
	    not_ok "readme: $n" "$* printed no '$what': $(head -c 200 "$n.out")"
}
try cc_pg . sh -c 'cc -O1 -g -pg prog.c -lmon -o prog && readelf -d prog && echo built'
grep -q "libmon.so.0" cc_pg.out && ok "readme: cc -pg prog.c -lmon links libmon.so.0" ||
    not_ok "readme: cc -pg prog.c -lmon links libmon.so.0"
try run '^[0-9]' ./prog 3 2 1 3000000
[ -s mon.out ] && ok "readme: ./prog writes ./mon.out" || not_ok "readme: ./prog writes ./mon.out"
try prof ' heavy$' prof prog
# -pg counts the calls: heavy's row has #Calls 3.
awk '$NF == "heavy" { for (i = 1; i < NF; i++) if ($i == "3") f = 1 } END { exit !f }' prof.out &&
    ok "readme: prof prog counts heavy's 3 calls" ||
    not_ok "readme: prof prog counts heavy's 3 calls" "$(grep heavy prof.out)"
mkdir pd
try profdir '^[0-9]' env PROFDIR=pd ./prog 1 1 1 1000000
f=$(ls pd | head -n 1)
case $f in [0-9]*.prog) ok "readme: PROFDIR=dir writes dir/PID.prog" ;;
*) not_ok "readme: PROFDIR=dir writes dir/PID.prog" "pd holds '$f'" ;; esac
try prof_m ' heavy$' prof -m "pd/$f" prog
runs prof_s prof -s prog && grep -q . prof_s.err && has prof_s heavy &&
    ok "readme: prof -s prog (summary on stderr)" || not_ok "readme: prof -s prog (summary on stderr)"
try graph 'heavy' prof --graph prog
try callers 'heavy' prof --callers=heavy prog
try callees 'main' prof --callees=main prog
try threads 'heavy' prof --threads prog
try folded 'main;.*heavy [0-9]' prof --format=folded prog
try flame '</svg>' prof --format=flame prog
runs pprof prof --format=pprof prog && [ "$(od -An -tx1 -N2 pprof.out | tr -d ' ')" = 1f8b ] &&
    ok "readme: pprof (gzip)" || not_ok "readme: pprof (gzip)"
try callgrind 'fn=.*heavy' prof --format=callgrind prog
try lines 'prog\.c:[0-9]' prof --lines prog
try annotate 'chain\|sink' prof --annotate=heavy prog
cp mon.out old.mon.out
try run2 '^[0-9]' ./prog 1 2 3 3000000
try base 'heavy' prof --base=old.mon.out prog

# monrun on an unmodified program and on python3; --wall.
try cc_plain . sh -c 'cc -O1 -g prog.c -o plain && echo built'
rm -f mon.out
try monrun '^[0-9]' monrun ./plain 3 2 1 3000000
try monrun_prof ' heavy$' prof plain
if [ -x /usr/bin/python3 ]; then
	cat >x.py <<'EOF'
import os
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
if os.fork() == 0:
    fib(23)
    os._exit(0)
os.wait()
print(sum(fib(i) for i in range(22)))
EOF
	rm -f mon.out ./[0-9]*.python3
	try monrun_python '^[0-9]' monrun -r 4000 -f /usr/bin/python3 x.py
	try python_prof 'python3\|_PyEval' prof
	# The forked child's own file: PID.python3 (monrun(1), -f).
	ls ./[0-9]*.python3 >/dev/null 2>&1 && ok "readme: monrun -f writes the child's file" ||
	    not_ok "readme: monrun -f writes the child's file" "$(ls)"
fi
rm -f mon.out
try monrun_wall '^[0-9]' monrun --wall ./plain 1 1 1 3000000
try prof_wall 'Wallsecs' prof --sample=wall plain

# The README's own-code example: <mon.h>, profil(), pkg-config mon.
cat >use.c <<'EOF'
#include <mon.h>
#include <stdio.h>
int main(void)
{
	static unsigned short buf[64];
	struct mon_stats st;
	if (profil(buf, sizeof buf, 0, 0x4000) != 0 || mon_getstats(&st, sizeof st) != 0 || !st.on)
		return 1;
	profil(buf, 0, 0, 0);
	printf("%s\n", mon_clock_name(st.clock));
	return 0;
}
EOF
try pkg_config '.' sh -c 'cc -o use use.c $(pkg-config --cflags --libs mon) && ./use'
try pkg_config_static '.' sh -c 'cc -static -o use_static use.c $(pkg-config --static --cflags --libs mon) && ./use_static'

# 4. libmon0 alone: monrun finds libmon.so.0 without the development link.
if [ -z "$before" ] && dpkg -r libmon-dev >/dev/null 2>&1 && [ ! -e "$L/libmon.so" ]; then
	rm -f mon.out
	try monrun_runtime_only '^[0-9]' monrun ./plain 1 1 1 1000000
	[ -s mon.out ] && ok "deb: monrun with libmon0 alone writes mon.out" ||
	    not_ok "deb: monrun with libmon0 alone writes mon.out"
fi
echo "debian_install: $fails failed"
[ $fails = 0 ]
