#!/bin/sh
# Installs the Debian packages monprof needs, or says exactly how to.
#   deps.sh check   what `make check` needs
#   deps.sh build   what `make` and `make demo` need
#   deps.sh bench   what `make bench` needs
set -e
base="gcc make pkg-config libelf-dev libdw-dev liblzma-dev libdebuginfod-dev"
case "$1" in
check) pkgs="$base libcmocka-dev binutils debuginfod xz-utils" ;;
bench) pkgs="$base libsqlite3-dev binutils linux-perf google-perftools libgoogle-perftools-dev" ;;
*)     pkgs="$base libsqlite3-dev" ;;
esac
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
	echo "deps: installing$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2
	apt-get install -y -qq --no-install-recommends $missing >&2
else
	echo "deps: missing Debian packages; run:" >&2
	echo "  sudo apt-get install -y$missing" >&2
	exit 1
fi
