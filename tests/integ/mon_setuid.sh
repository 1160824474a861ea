#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A set-user-ID program ignores PROFDIR (monitor.3): run a cc -pg program
# that is set-uid root by an unprivileged user, with PROFDIR naming a
# directory; the kernel marks it AT_SECURE, so the profile goes to ./mon.out
# and nothing appears in PROFDIR.  The same program without the set-uid bit
# honours PROFDIR (the control).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mon_helpers.inc"
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	echo "ok setuid: skipped # skip needs root and setpriv"
	exit 0
fi
# Everything the unprivileged user touches must be reachable and writable
# for the control run; the set-uid run writes as root.  libmon.so is found
# through an rpath into $T/lib: the loader of a set-uid program ignores
# LD_LIBRARY_PATH, and nobody may not enter the build tree.
share_libmon
build_prog prog mon_fatal.c -pg $SHARED_RPATH || { not_ok build_pg; exit 1; }
chmod 755 "$T/prog"
mkdir "$T/pd" "$T/run" && chmod 777 "$T/pd" "$T/run"
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }
d=$(stat -c %m "$T")
if mount | grep -q " on $d .*nosuid"; then
	echo "ok setuid: skipped # skip $T is on a nosuid mount"
	exit 0
fi

cp "$T/prog" "$T/plain" && chmod 755 "$T/plain"
(cd "$T/run" && PROFDIR="$T/pd" as_nobody ../plain exit7); rc=$?
expect "control: exit status kept" "$rc" 7
expect "control: unprivileged run honours PROFDIR" "$(ls -A "$T/pd" | wc -l)" 1
rm -f "$T/pd"/* "$T/run"/*

chown root:root "$T/prog" && chmod 4755 "$T/prog"
(cd "$T/run" && PROFDIR="$T/pd" as_nobody ../prog exit7); rc=$?
expect "set-uid: exit status kept" "$rc" 7
expect "set-uid: nothing in PROFDIR" "$(ls -A "$T/pd")" ""
expect "set-uid: ./mon.out written instead" "$(ls -A "$T/run")" "mon.out"
