#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A profile's file mode: 0644 less the umask (lib/monfile.c), so a
# program that sets umask(0), as nginx's master does before it forks its
# workers, writes no world-writable profile into the sticky PROFDIR the
# README has users share (a new user found -rw-rw-rw- files there).
#   monfile_mode_umask0      umask(0) in the program: the file is 0644
#   monfile_mode_umask077    umask 077 kept: the file is 0600
# Mutation: the create mode 0666 (as before): 0666, monfile_mode_umask0
# fails.
. "$(dirname "$0")/lib.sh"

cat >"$T/um.c" <<'C'
#include <stdlib.h>
#include <sys/stat.h>
static volatile double x;
int main(int argc, char **argv)
{
	if (argc > 1)
		umask((mode_t)strtol(argv[1], NULL, 8));
	for (long i = 0; i < 20000000; i++)
		x += (double)i;
	return 0;
}
C
$CC -O1 -o "$T/um" "$T/um.c" || { not_ok monfile_mode_build; exit 0; }
for case in "umask0 0 644" "umask077 077 600"; do
	set -- $case
	mkdir -m 1777 "$T/$1"
	(umask 022; PROFDIR=$T/$1 timeout 60 "$B/bin/monrun" "$T/um" "$2" >/dev/null 2>"$T/$1.err")
	f=$(ls "$T/$1" | head -n 1)
	mode=$([ -n "$f" ] && stat -c %a "$T/$1/$f")
	if [ "$mode" = "$3" ]; then
		ok "monfile_mode_$1"
	else
		not_ok "monfile_mode_$1" "mode ${mode:-none} of ${f:-no file}, wanted $3: $(head -c 200 "$T/$1.err")"
	fi
done
