#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# profil(2) basics: libmon's profil() is the one a program gets, whether it
# is linked with -lmon, with libmon.a, or has libmon.so preloaded.
. "$(dirname "$0")/lib.sh"

run() { # NAME CMD... : ok if CMD exits 0; its output goes to the log
	name=$1; shift
	out=$("$@" 2>&1); rc=$?
	echo "$out"
	if [ $rc -eq 0 ]; then ok "$name"; else not_ok "$name" "exit $rc"; fi
}

build_prog basic profil_basic.c -ldl || not_ok profil_basic_build
build_prog_static basic_static profil_basic.c || not_ok profil_basic_static_build
$CC -O1 -g -DVIA_DLSYM -I"$ROOT/include" -I"$ROOT/tests/progs" -o "$T/basic_plain" \
    "$ROOT/tests/progs/profil_basic.c" -ldl -lm || not_ok profil_basic_plain_build

run profil_overrides_libc_dynamic "$T/basic"
run profil_overrides_libc_static "$T/basic_static"
run profil_overrides_libc_preload env LD_PRELOAD="$B/lib/libmon.so" "$T/basic_plain"
# Without libmon the same program finds no mon_getstats: the check above
# really tells libmon's profil from the C library's.
if [ -x "$T/basic_plain" ] && ! "$T/basic_plain" >/dev/null 2>&1; then
	ok profil_basic_needs_libmon
else
	not_ok profil_basic_needs_libmon
fi
