#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Settings: an invalid MONPROF_* value is refused with one clear line on
# stderr — by monrun before it runs anything (exit 2, as for a bad -r), by
# libmon in a -pg program (the program runs unprofiled and writes no
# profile), by profil() (EINVAL) — while valid values are taken silently;
# monrun --help, monrun --version and prof --version work.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"

VERSION=$(sed -n 's/^VERSION *:= *//p' "$ROOT/Makefile")

out=$("$MONRUN" --help 2>"$T/h.err"); rc=$?
if [ $rc -eq 0 ] && [ ! -s "$T/h.err" ] && printf '%s\n' "$out" | grep -q '^usage: monrun' &&
    printf '%s\n' "$out" | grep -q -- '--version'; then
	ok settings_monrun_help
else
	not_ok settings_monrun_help "exit $rc: $(printf '%s' "$out" | head -c 200) $(cat "$T/h.err")"
fi
for tool in monrun prof; do
	out=$("$B/bin/$tool" --version 2>"$T/v.err"); rc=$?
	if [ $rc -eq 0 ] && [ ! -s "$T/v.err" ] && [ "$out" = "$tool (monprof) $VERSION" ]; then
		ok settings_${tool}_version
	else
		not_ok settings_${tool}_version "exit $rc, '$out', stderr '$(cat "$T/v.err")'"
	fi
done

cat >"$T/tiny.c" <<'C'
int main(void) { return 0; }
C
cat >"$T/pg.c" <<'C'
#include <stdio.h>
static volatile double sink;
__attribute__((noinline)) void pg_spin(long n) { for (long i = 0; i < n; i++) sink += i; }
int main(void) { pg_spin(1000000); puts("pg-done"); return 0; }
C
cat >"$T/pf.c" <<'C'
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
static unsigned short buf[1024];
int main(void)
{
	int rc = profil(buf, sizeof buf, 0, 65536);
	printf("%d %s\n", rc, rc < 0 ? strerrorname_np(errno) : "0");
	profil(NULL, 0, 0, 0);
	return 0;
}
C
if build_plain tiny "$T/tiny.c" && build_prog pg "$T/pg.c" -pg && build_prog pf "$T/pf.c"; then
	ok settings_build
else
	not_ok settings_build
fi

n=0
while read -r var val why; do
	n=$((n + 1))
	# monrun refuses, and runs nothing.
	one_line_error "settings_monrun_refuses_$n" 2 "^monrun: $var=$val: $why" \
	    env "$var=$val" "$MONRUN" "$T/tiny"
	# libmon in a -pg program: one line, the program runs, no profile.
	rm -rf "$T/pgd" && mkdir -p "$T/pgd"
	out=$(cd "$T/pgd" && env "$var=$val" "$T/pg" 2>"$T/pg.err"); rc=$?
	lines=$(wc -l <"$T/pg.err")
	if [ $rc -eq 0 ] && [ "$out" = pg-done ] && [ "$lines" -eq 1 ] &&
	    grep -Eq "^monprof: $var=$val: $why.*; not profiling$" "$T/pg.err" &&
	    [ -z "$(ls -A "$T/pgd")" ]; then
		ok "settings_libmon_refuses_$n"
	else
		not_ok "settings_libmon_refuses_$n" "exit $rc, '$out', $lines lines: $(head -c 300 "$T/pg.err"), files: $(ls -A "$T/pgd")"
	fi
	# profil(): EINVAL, one line.
	out=$(env "$var=$val" "$T/pf" 2>"$T/pf.err")
	if [ "$out" = "-1 EINVAL" ] && [ "$(wc -l <"$T/pf.err")" -eq 1 ] &&
	    grep -q "^monprof: $var=" "$T/pf.err"; then
		ok "settings_profil_refuses_$n"
	else
		not_ok "settings_profil_refuses_$n" "'$out', stderr: $(head -c 300 "$T/pf.err")"
	fi
done <<'LIST'
MONPROF_RATE abc the rate is 1 to 20000
MONPROF_RATE 0 the rate is 1 to 20000
MONPROF_RATE 20001 the rate is 1 to 20000
MONPROF_RATE -5 the rate is 1 to 20000
MONPROF_CLOCK cpu the clock is perf, thread or itimer
MONPROF_SIGNAL 10 the signal is a real-time signal
MONPROF_SNAPSHOT NOSUCH not a signal
MONPROF_FOLLOW yes the value is 0 or 1
MONPROF_STACK_DEPTH 513 the stack depth is 0 to 512
MONPROF_STACK_DEPTH -1 the stack depth is 0 to 512
MONPROF_STACK_TABLE 15 the stack table holds 16 to 4194304
LIST

# Valid values are taken without a word.
rm -rf "$T/ok" && mkdir -p "$T/ok"
out=$(cd "$T/ok" && MONPROF_RATE=500 MONPROF_SNAPSHOT=USR2 MONPROF_FOLLOW=0 "$T/pg" 2>"$T/ok.err")
if [ "$out" = pg-done ] && [ ! -s "$T/ok.err" ] && [ -n "$(ls -A "$T/ok")" ]; then
	ok settings_valid_values_taken
else
	not_ok settings_valid_values_taken "'$out', stderr: $(head -c 300 "$T/ok.err"), files: $(ls -A "$T/ok")"
fi
out=$(MONPROF_RATE=20000 "$T/pf" 2>"$T/pf.err")
if [ "$out" = "0 0" ] && [ ! -s "$T/pf.err" ]; then
	ok settings_profil_valid_rate
else
	not_ok settings_profil_valid_rate "'$out', stderr: $(head -c 300 "$T/pf.err")"
fi

# libmon preloaded as monrun does it (MONPROF_AUTO naming the process, no
# monrun to check first): an invalid setting is said in one line and the
# program runs unprofiled, no file.  The preload removes the settings from
# the environment before it starts: checked before that (autostart.c), or
# the start found none and took MONPROF_RATE=abc as the default, silently
# (a reviewer's finding).
#   settings_preload_invalid   the line, the program's exit status, no file
rm -rf "$T/pre" && mkdir -p "$T/pre"
out=$(cd "$T/pre" && MONPROF_RATE=abc MONPROF_OUT="$T/pre/x.out" \
    sh -c 'exec env MONPROF_AUTO=$$ LD_PRELOAD="$0" "$@"' "$B/lib/libmon.so" "$T/tiny" 2>"$T/pre.err"; echo "exit $?")
if [ "$out" = "exit 0" ] && grep -q '^monprof: MONPROF_RATE=abc: .*; not profiling$' "$T/pre.err" &&
    [ "$(wc -l <"$T/pre.err")" -eq 1 ] && [ -z "$(ls -A "$T/pre")" ]; then
	ok settings_preload_invalid
else
	not_ok settings_preload_invalid "'$out', stderr: $(head -c 300 "$T/pre.err"), files: $(ls -A "$T/pre")"
fi
