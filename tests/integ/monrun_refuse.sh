#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# What monrun cannot do, it says — one line on stderr naming the command,
# what is wrong and why — and it exits as a shell would: 126 for a program
# it cannot profile (set-uid or set-gid to someone else: the loader ignores
# LD_PRELOAD; statically linked: there is no loader; another ELF class; not
# executable; a directory), 127 for a command that is not there, 2 for a
# usage error.  Nothing runs in those cases.  Where the loader would preload
# (set-uid to oneself), monrun profiles as usual.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"

printf 'int main(void) { return 0; }\n' >"$T/tiny.c"
# -fno-sanitize=all: make check-sanitize's CC adds sanitizers, which cannot
# link statically (the static program is only something monrun refuses).
if build_plain tiny "$T/tiny.c" && build_plain tiny_static "$T/tiny.c" -static -fno-sanitize=all; then
	ok monrun_refuse_build
else
	not_ok monrun_refuse_build
fi

one_line_error monrun_refuse_static 126 'tiny_static: statically linked: .*no dynamic loader.*-lmon' \
	"$MONRUN" "$T/tiny_static"
one_line_error monrun_refuse_missing_command 127 '^monrun: no-such-command-[0-9]+: command not found$' \
	"$MONRUN" no-such-command-$$
one_line_error monrun_refuse_missing_path 127 "^monrun: $T/nothing: no such file\$" \
	"$MONRUN" "$T/nothing"
cp "$T/tiny" "$T/noexec" && chmod a-x "$T/noexec"
one_line_error monrun_refuse_not_executable 126 'noexec: not executable' "$MONRUN" "$T/noexec"
one_line_error monrun_refuse_directory 126 ': is a directory$' "$MONRUN" "$T"
# An ELF file of the other class (a copy of ours with EI_CLASS switched to
# 32-bit): libmon.so could never be loaded into it.
cp "$T/tiny" "$T/elf32" && printf '\001' | dd of="$T/elf32" bs=1 seek=4 conv=notrunc 2>/dev/null
one_line_error monrun_refuse_other_class 126 'elf32: not a 64-bit .*program' "$MONRUN" "$T/elf32"

# Set-uid and set-gid programs.  The program is id(1): if it ran, it would
# print its effective IDs on stdout (one_line_error wants stdout empty).
if [ "$(id -u)" = 0 ] && nobody=$(id -u nobody 2>/dev/null) && nogroup=$(getent group nogroup | cut -d: -f3); then
	cp "$(command -v id)" "$T/id_suid" && chown "$nobody" "$T/id_suid" && chmod 4755 "$T/id_suid"
	cp "$(command -v id)" "$T/id_sgid" && chgrp "$nogroup" "$T/id_sgid" && chmod 2755 "$T/id_sgid"
	# Only where the file system honours the bits (not mounted nosuid).
	if [ "$("$T/id_suid" -u)" = "$nobody" ]; then
		one_line_error monrun_refuse_setuid 126 'id_suid: set-uid program.*ignores LD_PRELOAD.*-lmon' \
			"$MONRUN" "$T/id_suid" -u
		one_line_error monrun_refuse_setgid 126 'id_sgid: set-gid program.*ignores LD_PRELOAD.*-lmon' \
			"$MONRUN" "$T/id_sgid" -g
	else
		ok "monrun_refuse_setuid # skip $T is mounted nosuid"
		ok "monrun_refuse_setgid # skip $T is mounted nosuid"
	fi
else
	ok "monrun_refuse_setuid # skip not root (cannot make a set-uid program of another user)"
	ok "monrun_refuse_setgid # skip not root"
fi
# Set-uid to oneself changes no ID: the loader preloads, monrun profiles.
build_plain own_suid monrun_exit.c && chmod u+s "$T/own_suid"
mkdir -p "$T/own"
if (cd "$T/own" && "$MONRUN" "$T/own_suid" exit3 0.05 2>"$T/own.err"); [ $? -eq 3 ] &&
   [ -s "$T/own/mon.out" ]; then
	ok monrun_setuid_to_self_profiled
else
	not_ok monrun_setuid_to_self_profiled "$(ls "$T/own") $(cat "$T/own.err")"
fi

# Usage errors: exit 2, a message and the usage line on stderr, nothing run.
usage_error() {
	name=$1 pat=$2; shift 2
	"$MONRUN" "$@" >"$T/u.out" 2>"$T/u.err"
	rc=$?
	if [ $rc -ne 2 ]; then
		not_ok "$name" "exit $rc"
	elif [ -s "$T/u.out" ]; then
		not_ok "$name" "stdout: $(cat "$T/u.out")"
	elif ! grep -q '^usage: monrun ' "$T/u.err" && [ "$pat" = usage ]; then
		not_ok "$name" "no usage line: $(cat "$T/u.err")"
	elif [ "$pat" != usage ] && ! grep -Eq "^monrun: $pat" "$T/u.err"; then
		not_ok "$name" "stderr: $(cat "$T/u.err")"
	else
		ok "$name"
	fi
}
usage_error monrun_usage_no_command usage
usage_error monrun_usage_only_options usage -f -r 100
usage_error monrun_usage_unknown_option 'unknown option -x' -x "$T/tiny"
usage_error monrun_usage_missing_argument '-o needs an argument' -o
usage_error monrun_usage_rate_zero '-r 0: the rate is 1 to 20000' -r 0 "$T/tiny"
usage_error monrun_usage_rate_too_high '-r 100001: the rate is' -r 100001 "$T/tiny"
usage_error monrun_usage_rate_not_number '-r fast: the rate is' -r fast "$T/tiny"
usage_error monrun_usage_bad_clock '-c sundial: the clock is perf, thread or itimer' -c sundial "$T/tiny"
# Options after the command are the command's own.
if "$MONRUN" -o "$T/x.prof" "$T/own_suid" exit3 0.01 -r 0 >/dev/null 2>&1; [ $? -eq 3 ]; then
	ok monrun_options_after_command_are_its_own
else
	not_ok monrun_options_after_command_are_its_own
fi
if "$MONRUN" -h >"$T/h.out" 2>/dev/null && grep -q '^usage: monrun ' "$T/h.out"; then
	ok monrun_help_on_stdout
else
	not_ok monrun_help_on_stdout
fi
