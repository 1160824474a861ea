#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Checks that what monprof needs is installed, asking pkg-config first (any
# distribution), then dpkg; on Debian installs the missing packages (as
# root) or says exactly how to.
#   deps.sh check   what `make check` needs
#   deps.sh build   what `make` and `make demo` need
#   deps.sh bench   what `make bench` needs
#   deps.sh fuzz    what `make fuzz` needs: clang and its libFuzzer runtime
#                   (Debian: libclang-rt-dev, only recommended by clang)
#   deps.sh package what scripts/ci-package.sh needs: the Debian package's
#                   build (debhelper, dpkg-dev) and lintian
#   deps.sh aarch64 what scripts/ci-aarch64.sh needs: the cross compiler and
#                   C library (gcc-aarch64-linux-gnu, libc6-dev-arm64-cross),
#                   qemu-user, file(1), and the host's build
# Optional tools (opt: "package:command"), which tests use where present and
# skip with a message otherwise, are installed on Debian as root and only
# named elsewhere: for `check`, protoc (protobuf-compiler, 6 MB: decodes
# --format=pprof), callgrind_annotate (valgrind, 78 MB: reads
# --format=callgrind), xmllint (libxml2-utils: reads --format=flame's SVG)
# and chromium (about 250 MB with what it pulls in: renders the flame graph,
# clicks and searches in it headless; installed cleanly on Debian 12) and
# golang-go (about 450 MB: `go tool pprof` reads --format=pprof) and
# musl-tools (musl-gcc: a musl program monrun must refuse with its own message)
# and eslint (with Debian's nodejs: lints the flame graph's script,
# tools/prof/out/flame.js; node --check alone where eslint is missing)
# and rustc (about 120 MB with its standard library: real Rust programs'
# names, both manglings) and strace (2 MB: counts the system calls libmon
# adds to a fork child and a thread, tests/integ/guest_syscalls.sh).
set -e
# The same needs three ways: Debian packages, pkg-config modules, commands.
base="gcc make pkg-config libelf-dev libdw-dev liblzma-dev libdebuginfod-dev zlib1g-dev libcapstone-dev libiberty-dev"
base_pc="libelf libdw liblzma libdebuginfod zlib capstone"
base_cmd="make pkg-config"
# Headers of libraries with no pkg-config module (libiberty: libiberty-dev).
base_hdr="libiberty/demangle.h"
case "$1" in
check) pkgs="$base libcmocka-dev binutils debuginfod xz-utils"
       pcs="$base_pc cmocka" cmds="$base_cmd nm debuginfod xz"
       opt="protobuf-compiler:protoc valgrind:callgrind_annotate libxml2-utils:xmllint chromium:chromium python3:python3 golang-go:go musl-tools:musl-gcc eslint:eslint rustc:rustc strace:strace" ;;
fuzz)  pkgs="$base clang libclang-rt-dev"
       pcs="$base_pc" cmds="$base_cmd clang" ;;
package) pkgs="$base debhelper dpkg-dev lintian"
       pcs="$base_pc" cmds="$base_cmd dpkg-buildpackage dh lintian" ;;
aarch64) pkgs="$base gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user file"
       pcs="$base_pc" cmds="$base_cmd aarch64-linux-gnu-gcc aarch64-linux-gnu-nm qemu-aarch64 file" ;;
bench) pkgs="$base libsqlite3-dev binutils linux-perf google-perftools libgoogle-perftools-dev"
       pcs="$base_pc sqlite3 libprofiler" cmds="$base_cmd nm perf google-pprof" ;;
*)     pkgs="$base libsqlite3-dev"
       pcs="$base_pc sqlite3" cmds="$base_cmd" ;;
esac

# 1. pkg-config and the commands: enough on any system.
missing_pc= missing_cmd=
if command -v pkg-config >/dev/null 2>&1; then
	for m in $pcs; do
		pkg-config --exists "$m" 2>/dev/null || missing_pc="$missing_pc $m"
	done
else
	missing_pc=" $pcs"
fi
for c in $cmds; do
	command -v "$c" >/dev/null 2>&1 || missing_cmd="$missing_cmd $c"
done
command -v "${CC:-cc}" >/dev/null 2>&1 || command -v gcc >/dev/null 2>&1 || missing_cmd="$missing_cmd cc"
for h in $base_hdr; do
	# shellcheck disable=SC2086 # CC may hold flags (make check-sanitize's)
	echo "#include <$h>" | ${CC:-cc} -E -x c - >/dev/null 2>&1 || missing_pc="$missing_pc <$h>"
done
missing_opt=
for o in ${opt:-}; do
	command -v "${o#*:}" >/dev/null 2>&1 || missing_opt="$missing_opt ${o%%:*}"
done
[ -z "$missing_pc$missing_cmd$missing_opt" ] && exit 0
say_opt() {
	[ -n "$missing_opt" ] &&
		echo "deps: optional, tests that need them skip:$missing_opt (Debian names)" >&2
	exit 0
}

# 2. Not there by pkg-config: without dpkg, say what is missing.
if ! command -v dpkg-query >/dev/null 2>&1; then
	[ -z "$missing_pc$missing_cmd" ] && say_opt
	echo "deps: missing${missing_pc:+ pkg-config modules:$missing_pc}${missing_pc:+${missing_cmd:+;}}${missing_cmd:+ commands:$missing_cmd}" >&2
	echo "  install them with your system's package manager (Debian names:$pkgs)" >&2
	exit 1
fi

# 3. Debian: the packages by name, installed or named.
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ "$(id -u)" = 0 ]; then
	missing="$missing$missing_opt"
	[ -z "$missing" ] && exit 0
	echo "deps: installing$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2
	apt-get install -y -qq --no-install-recommends $missing >&2
else
	[ -z "$missing" ] && say_opt
	echo "deps: missing Debian packages; run:" >&2
	echo "  sudo apt-get install -y$missing" >&2
	exit 1
fi
