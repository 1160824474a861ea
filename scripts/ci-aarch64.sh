#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# CI's aarch64 stage: cross-build the runtime (libmon, monrun) for aarch64
# into build-aarch64/ with Debian's gcc-aarch64-linux-gnu, install it into
# a scratch directory (make install works the same way), and run the
# runtime's focused aarch64 tests under qemu-user (tests/aarch64/qemu.sh),
# whose mon.out files the host's prof reads.  The host's build (build/:
# prof, libmon) must exist or is made here.  Ends with
# "aarch64: N passed, N failed, N skipped in S s"; exit 0 only when none
# failed.  Time limit: 900 s for the tests (measured: the stage takes about
# 2 minutes on 2 cores at a load average of 1 to 4, of which about 50 s the
# shares-as-the-host's runs of tests/aarch64/a64_split.c).
set -e
cd "$(dirname "$0")/.."
start=$(date +%s)
scripts/deps.sh aarch64
make -j2 WERROR=1 >/dev/null
make -j2 WERROR=1 ARCH=aarch64 CROSS_COMPILE=aarch64-linux-gnu- >/dev/null
inst=$(mktemp -d "${TMPDIR:-/tmp}/monprof-a64-install.XXXXXX")
trap 'rm -rf "$inst"' EXIT	# (binfmt_undo below takes it over)
trap 'exit 130' INT
trap 'exit 143' TERM
make ARCH=aarch64 CROSS_COMPILE=aarch64-linux-gnu- DESTDIR="$inst" PREFIX=/usr install >/dev/null
for f in usr/lib/libmon.so.0 usr/lib/libmon.a usr/bin/monrun usr/include/mon.h; do
	[ -e "$inst/$f" ] || { echo "aarch64: FAIL make install: no $f"; exit 1; }
done
file -L "$inst/usr/lib/libmon.so.0" 2>/dev/null | grep -q 'ARM aarch64' ||
	{ echo "aarch64: FAIL installed libmon.so.0 is not an aarch64 object"; exit 1; }
out=build-aarch64/qemu.out
# The arm64 library exports what debian/libmon0.symbols lists for arm64
# (every name without an architecture tag, or tagged for arm64), no more:
# dpkg-gensymbols fails a native arm64 package build on any difference
# (DPKG_GENSYMBOLS_CHECK_LEVEL=4, debian/rules).
# (dpkg's own internal symbols, __gmon_start__ and _init among them, are
# in no symbols file: tests/integ/debian_symbols.sh.)
aarch64-linux-gnu-nm -D --defined-only build-aarch64/lib/libmon.so |
	awk 'NF == 3 && $3 !~ /^MON/ { print $3 }' | sed 's/@.*//' |
	grep -vx -e __gmon_start__ -e _init -e _fini -e _edata -e _end -e __bss_start |
	LC_ALL=C sort -u >"$out.exports"
awk '/^ [^ ]/ { n = $1; if (n ~ /^\(arch=/) { if (n !~ /^\(arch=[^)]*arm64/) next; sub(/^\([^)]*\)/, "", n) }
	sub(/@.*/, "", n); print n }' debian/libmon0.symbols | LC_ALL=C sort -u >"$out.symbols"
if [ -s "$out.exports" ] && cmp -s "$out.exports" "$out.symbols"; then
	echo "ok a64_debian_symbols" >"$out.sym"
else
	echo "not ok a64_debian_symbols — exported, not listed for arm64: $(LC_ALL=C comm -23 "$out.exports" "$out.symbols" | tr '\n' ' ')listed for arm64, not exported: $(LC_ALL=C comm -13 "$out.exports" "$out.symbols" | tr '\n' ' ')" >"$out.sym"
fi
# An exec'd aarch64 image runs only when the kernel hands it to
# qemu-aarch64 (binfmt_misc, binfmt_misc.rst in the kernel's admin guide).
# As root, with no entry for aarch64 ELF files, one of this run's own
# (monprof-a64-PID: another run's, or the system's, is never touched) is
# registered for the tests' length, mounting binfmt_misc first where it is
# not, and both are undone at the end (the mount only when no other entry
# is left in it), so that the machine is left as it was.  The images find
# the aarch64 C library through QEMU_LD_PREFIX.  Without root, or where the
# kernel refuses, qemu.sh finds that an aarch64 program cannot be run and
# reports the exec tests skipped.
binfmt=/proc/sys/fs/binfmt_misc
entry=monprof-a64-$$
mounted= registered=
binfmt_undo() {
	if [ -n "$registered" ]; then
		registered=
		{ echo -1 >"$binfmt/$entry"; } 2>/dev/null ||
			echo "aarch64: could not remove the binfmt_misc entry $binfmt/$entry" >&2
	fi
	if [ -n "$mounted" ]; then
		mounted=
		if [ -z "$(ls "$binfmt" | grep -v -x -e register -e status)" ]; then
			umount "$binfmt" 2>/dev/null || echo "aarch64: could not unmount $binfmt" >&2
		fi
	fi
	rm -rf "$inst"
}
trap 'rc=$?; binfmt_undo; exit $rc' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
qemu=$(command -v qemu-aarch64 || true)
case $qemu in
/*:*|'') qemu= ;;	# (binfmt_misc's fields are separated by ':')
/*) ;;
*) qemu= ;;
esac
if [ "$(id -u)" = 0 ] && [ -d "$binfmt" ] && [ -n "$qemu" ]; then
	if [ ! -e "$binfmt/register" ] && mount -t binfmt_misc binfmt_misc "$binfmt" 2>/dev/null; then
		mounted=1
	fi
	# An enabled entry for aarch64 already (the system's qemu-user-binfmt):
	# used as it is.  Else this run's: the ELF header of an aarch64
	# executable or shared object (e_ident, e_type ET_EXEC or ET_DYN,
	# e_machine EM_AARCH64 183), magic and mask as qemu's own
	# scripts/qemu-binfmt-conf.sh has them.
	have=
	for e in "$binfmt"/*; do
		case ${e##*/} in register|status) continue ;; esac
		grep -q '^enabled' "$e" 2>/dev/null && grep -q '^magic 7f454c460201010000000000000000000200b700' "$e" 2>/dev/null && have=1
	done
	if [ -z "$have" ] && [ -e "$binfmt/register" ] &&
	    { printf '%s' ":$entry:M::"'\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00:\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff:'"$qemu:" \
	    >"$binfmt/register"; } 2>/dev/null; then
		registered=1
	fi
fi
set +e
QEMU_LD_PREFIX=/usr/aarch64-linux-gnu timeout -k 10 900 sh tests/aarch64/qemu.sh >"$out" 2>&1
rc=$?
set -e
# (qemu.sh's own passes are counted before the symbols check joins them:
# a run that printed nothing fails.)
q=$(grep -c '^ok ' "$out" || true)
cat "$out.sym" >>"$out"
grep -E '^(ok|not ok)' "$out" | sed 's/^/aarch64: /'
# (grep -c exits 1 when it counts none.)
p=$(grep -c '^ok ' "$out" || true)
s=$(grep -c '^ok .* # skip' "$out" || true)
f=$(grep -c '^not ok ' "$out" || true)
case $rc in 124|137) echo "aarch64: FAIL tests/aarch64/qemu.sh timed out after 900 s"; f=$((f + 1)) ;; esac
[ $rc -ne 0 ] && [ "$f" -eq 0 ] && { echo "aarch64: FAIL tests/aarch64/qemu.sh exit $rc (see $out)"; f=1; }
[ "$q" -eq 0 ] && f=$((f + 1))
echo "aarch64: $((p - s)) passed, $f failed, $s skipped in $(($(date +%s) - start)) s"
[ "$f" -eq 0 ]
