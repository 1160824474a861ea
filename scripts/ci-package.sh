#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# CI's package stage (.ci/run): builds the Debian packages from a copy of
# the tree (dpkg-buildpackage -us -uc -b, debian/), checks them with lintian
# (any error fails), then tests/integ/debian_install.sh installs them on
# this machine (dpkg -i, removed again at its end) and runs the README's
# examples against the installed commands.  Prints the stage's time in
# seconds on its last line ("ci: package stage: S s").
#   scripts/ci-package.sh [WORKDIR]   (default: a fresh temporary directory,
#                                      removed at the end)
# Needs root for dpkg -i (CI runs as root); without it the install test
# reports a skip and the stage ends after the build and lintian.
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
start=$(date +%s)
scripts/deps.sh package
version=$(sed -n 's/^VERSION *:= *//p' Makefile)
if [ $# -gt 0 ]; then
	W=$1; mkdir -p "$W"; keep=1
else
	W=$(mktemp -d "${TMPDIR:-/tmp}/monprof-pkg.XXXXXX"); keep=0
fi
W=$(cd "$W" && pwd)
[ $keep = 1 ] || trap 'rm -rf "$W"' EXIT INT TERM
# The tree as git sees it (tracked and new files, never build/ nor other
# ignored output), so the build's debian/tmp and ../*.deb stay out of it.
src=$W/monprof-$version
rm -rf "$src" && mkdir -p "$src"
if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
	git -C "$ROOT" ls-files -z --cached --others --exclude-standard |
	    tar --null -T - --ignore-failed-read -cf - 2>/dev/null | tar -xf - -C "$src"
else
	tar --exclude='./build' --exclude='./build-*' -cf - . | tar -xf - -C "$src"
fi
echo "ci-package: dpkg-buildpackage -us -uc -b in $src"
(cd "$src" && dpkg-buildpackage -us -uc -b) >"$W/build.log" 2>&1 || {
	tail -n 40 "$W/build.log"; echo "ci-package: the package build failed ($W/build.log)"; exit 1; }
grep -E '^dpkg-gensymbols|dh_missing' "$W/build.log" || true
changes=$(ls "$W"/monprof_"$version"_*.changes)
echo "ci-package: lintian $(basename "$changes")"
lintian --fail-on error "$changes" >"$W/lintian.log" 2>&1 || {
	cat "$W/lintian.log"; echo "ci-package: lintian found errors"; exit 1; }
sed 's/^/lintian: /' "$W/lintian.log"
rc=0
# The test's time limit, as tests/run.sh gives every script (TEST_TIMEOUT).
TMO=
command -v timeout >/dev/null 2>&1 && TMO="timeout -k 10 ${TEST_TIMEOUT:-900}"
DEBS=$W $TMO sh tests/integ/debian_install.sh || rc=$?
case $rc in 124|137) echo "ci-package: debian_install.sh timed out after ${TEST_TIMEOUT:-900} s (TEST_TIMEOUT)" ;; esac
echo "ci: package stage: $(($(date +%s) - start)) s"
exit $rc
