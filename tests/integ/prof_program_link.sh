#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# --program=NAME takes the name the program was started by (the last part
# of argv[0]), as PROFDIR's file names and monctl status spell it: Debian's
# /usr/bin/redis-server is a symbolic link to redis-check-rdb, whose files
# are PID.redis-server but whose path is redis-check-rdb's (a new user's
# `prof --program=redis-server DIR` found none of the 6 profiles).
#   program_link_files      a program run by a link's name: its file is
#                           named after the link
#   program_link_chosen     --program=LINK shows its profile
#   program_link_target     --program=TARGET (the path's last part) too
#   program_link_other      --program=OTHER shows none (exit 1, says so)
#   program_link_label      the program is named after the link it was run
#                           by, not its target, in the report and the flame
#                           graph's title, with or without the program given
#                           to prof (the runtime records AT_EXECFN's name when
#                           it is /proc/self/exe's file: lib/objects.c); a
#                           stripped program's rows are [linked]+0x...
#                           either way (the new user saw redis's rows as
#                           [redis-check-rdb]+0x8d2a0 from the directory and
#                           [redis-server]+0x... with the path given)
# Mutations: program_is without started_as: program_link_chosen fails;
# mon_self_exe without the same-file rule: program_link_label fails;
# program_is without target_is: program_link_target fails.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"

build_plain target prof_work.c -O1 || { not_ok program_link_build; exit 0; }
ln -s target "$T/linked"
D=$T/d
mkdir -p "$D"
(cd "$T" && PROFDIR=$D timeout 60 "$MONRUN" ./linked >/dev/null 2>&1)
f=$(ls "$D")
case $f in *.linked) ok program_link_files ;; *) not_ok program_link_files "files: $f" ;; esac
"$B/bin/prof" --program=linked "$D" >"$T/a" 2>"$T/a.err"
if [ $? -eq 0 ] && grep -q '%Time' "$T/a"; then ok program_link_chosen; else not_ok program_link_chosen "$(head -n 2 "$T/a.err")"; fi
"$B/bin/prof" --program=target "$D" >"$T/b" 2>"$T/b.err"
if [ $? -eq 0 ] && grep -q '%Time' "$T/b"; then ok program_link_target; else not_ok program_link_target "$(head -n 2 "$T/b.err")"; fi
"$B/bin/prof" --program=other "$D" >"$T/c" 2>"$T/c.err"
rc=$?
if [ $rc -ne 0 ] && grep -q 'not of that program' "$T/c.err"; then ok program_link_other; else not_ok program_link_other "exit $rc: $(head -n 2 "$T/c.err")"; fi

# The label: a stripped copy run by a link, read with and without the path.
cp "$T/target" "$T/starget" && strip "$T/starget" && ln -s starget "$T/slinked"
(cd "$T" && timeout 60 "$MONRUN" -o "$T/s.mon" ./slinked 30 20 10 >/dev/null 2>&1)
"$B/bin/prof" -m "$T/s.mon" >"$T/s1" 2>/dev/null
"$B/bin/prof" -m "$T/s.mon" "$T/slinked" >"$T/s2" 2>/dev/null
"$B/bin/prof" --format=flame -m "$T/s.mon" >"$T/s.svg" 2>/dev/null
if grep -q '\[slinked\]+0x' "$T/s1" && grep -q '\[slinked\]+0x' "$T/s2" &&
    ! grep -q starget "$T/s1" "$T/s2" && grep -q "graph of $T/slinked" "$T/s.svg" &&
    ! grep -q "graph of $T/starget" "$T/s.svg"; then
	ok program_link_label
else
	not_ok program_link_label "rows: $(grep -o '\[s[a-z]*\]+0x[0-9a-f]*' "$T/s1" "$T/s2" | sort -u | head -n 4 | tr '\n' ' '); title: $(grep -o 'graph of [^<"]*' "$T/s.svg" | head -n 1)"
fi
