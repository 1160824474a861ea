#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# libmon's start-up may run before ld.so runs libmon's constructors: under
# monrun it starts from the first library's _init (__gmon_start__,
# lib/autostart.c), and then runs every constructor of libmon itself, in
# order (start_once).  A constructor it leaves out is not run until after
# the program's libraries' constructors: a profile written meanwhile (a
# library constructor that calls exit or forks) had every checksum wrong
# when crc32.c's tables were left out.  This checks that every constructor
# in libmon's sources (lib/, format/) is one start_once calls, directly or
# through lib/init.c's mon_runtime_init (which monitor.c's starts run too:
# cc -pg's comes before them all, tests/integ/static_ctor.sh), or
# autostart_init itself.
# Mutation caught: monout_crc32_init's call removed from mon_runtime_init.
. "$(dirname "$0")/lib.sh"
cd "$ROOT" || exit 1
# The functions start_once and mon_runtime_init call: "\tname();" lines in
# their bodies.
{ sed -n '/^static void start_once(void)$/,/^}$/p' lib/autostart.c
  sed -n '/^void mon_runtime_init(void)$/,/^}$/p' lib/init.c; } |
	sed -n 's/^[[:space:]]*\([a-z_0-9]*\)();.*/\1/p' | sort -u >"$T/called"
# Every constructor: the function named on the line that declares it one.
grep -h '__attribute__((constructor' lib/*.c lib/arch/*/*.c format/*.c |
	sed -n 's/.*[[:space:]]\([a-z_0-9]*\)(void).*/\1/p' | sort -u >"$T/ctors"
n=$(wc -l <"$T/ctors")
missing=$(grep -vx autostart_init "$T/ctors" | comm -23 - "$T/called" | tr '\n' ' ')
if [ "$n" -ge 10 ] && [ -z "$missing" ]; then
	ok "lib_constructors_all_in_start_once ($n)"
else
	not_ok lib_constructors_all_in_start_once "$n constructors; not run by start_once: ${missing:-none}"
fi
