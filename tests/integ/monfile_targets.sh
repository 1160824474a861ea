#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A profile written to something that is not a file (format/monout_place):
# the bytes go into it, and it stays what it was.  Before, the profile was
# written beside it and renamed over it, so `monrun -o /dev/null` run as
# root replaced /dev/null with a regular file (seen on this project's own
# machine: every later `>/dev/null` wrote into that file), and a FIFO's
# reader waited forever while a file took its name.
#   monfile_targets_fifo_{libmon,prof}  monrun -o FIFO, and prof --output=FIFO
#       with a reader waiting: the FIFO is still one, the reader got the whole
#       profile (prof reads it), and no temporary file is left beside it
#   monfile_targets_fifo_no_reader      no reader: monrun says it cannot write
#       the profile and exits as the program did, nothing left beside it
#   monfile_targets_chardev             a character device (mknod of
#       /dev/null's numbers, as root; skipped otherwise): still one
#   monfile_targets_file                a regular file is still replaced whole
# Mutation: monout_place renaming always: the FIFO and the device become
# regular files, the readers get nothing (fifo and chardev checks fail).
# Time limit: every run and reader under timeout 60.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 1
unset PROFDIR MONPROF_OUT
MONRUN=$B/bin/monrun PROF=$B/bin/prof

cat >spin.c <<'C'
static volatile double x;
int main(void)
{
	for (long i = 0; i < 20000000; i++)
		x += (double)i;
	return 0;
}
C
$CC -O1 -g -o spin spin.c || { not_ok monfile_targets_build; exit 0; }

# leftovers DIR NAME: temporary files of NAME's left in DIR.
leftovers() { ls "$1" | grep -c "^$2\.tmp"; }

# A FIFO with a reader, written by libmon (monrun -o) and by prof --output.
timeout 60 "$MONRUN" -o whole.mon ./spin >/dev/null 2>&1
for who in libmon prof; do
	rm -f fifo got
	mkfifo fifo || { not_ok "monfile_targets_fifo_$who" "mkfifo failed"; continue; }
	timeout 60 cat fifo >got &
	reader=$!
	if [ $who = libmon ]; then
		timeout 60 "$MONRUN" -o fifo ./spin >/dev/null 2>err
	else
		timeout 60 "$PROF" -m whole.mon --output=fifo ./spin >/dev/null 2>err
	fi
	rc=$?
	wait $reader
	if [ $rc -eq 0 ] && [ -p fifo ] && [ "$(leftovers . fifo)" = 0 ] &&
	    "$PROF" -m got ./spin >report 2>&1 && grep -q ' main$' report; then
		ok "monfile_targets_fifo_$who"
	else
		not_ok "monfile_targets_fifo_$who" "exit $rc; $(ls -l fifo) $(wc -c <got) bytes read; $(head -c 300 err) $(head -c 300 report 2>/dev/null)"
	fi
done

rm -f fifo
mkfifo fifo
timeout 60 "$MONRUN" -o fifo ./spin >/dev/null 2>err
rc=$?
if [ $rc -eq 0 ] && [ -p fifo ] && [ "$(leftovers . fifo)" = 0 ] && grep -q 'cannot write profile' err; then
	ok monfile_targets_fifo_no_reader
else
	not_ok monfile_targets_fifo_no_reader "exit $rc; $(ls -l fifo); $(head -c 300 err)"
fi

if mknod -m 666 null c 1 3 2>/dev/null; then
	timeout 60 "$MONRUN" -o null ./spin >/dev/null 2>err
	rc=$?
	[ $rc -eq 0 ] && [ -c null ] && [ "$(leftovers . null)" = 0 ] && ok monfile_targets_chardev ||
		not_ok monfile_targets_chardev "exit $rc; $(ls -l null); $(head -c 300 err)"
else
	ok "monfile_targets_chardev # skip mknod needs root"
fi

echo old >file.mon
timeout 60 "$MONRUN" -o file.mon ./spin >/dev/null 2>err
if [ -f file.mon ] && "$PROF" -m file.mon ./spin >report 2>&1 && grep -q ' main$' report; then
	ok monfile_targets_file
else
	not_ok monfile_targets_file "$(ls -l file.mon); $(head -c 300 report)"
fi
