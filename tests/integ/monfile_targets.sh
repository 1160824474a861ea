#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A profile written to something that is not a regular file (format/monout.h,
# monout_place_kind, monout_copy_into):
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
#   monfile_targets_link_stdout         -o a symbolic link to /proc/self/fd/1
#       (as /dev/stdout is): the profile reaches the program's standard
#       output, and the link stays a link (as root, /dev/stdout itself
#       would have become a file)
#   monfile_targets_link_dir            -o a link to a directory: refused with
#       a message, the link kept
#   monfile_targets_devnull_user        -o /dev/null as an ordinary user
#       (nobody, when run as root with setpriv): written, no "cannot write"
#       (no temporary beside it in /dev, where the user may not create one)
#   monfile_targets_prof_output_stdout  prof --output=- writes to standard
#       output (before: a file named "-", which a later `prof DIR` summed)
#   monfile_targets_fifo_reader_leaves  a FIFO whose reader takes 10 bytes
#       and leaves (its pipe made 4 KiB, the profile larger): the program's
#       exit status is its own, 0, not SIGPIPE's 141; monrun says the
#       profile could not be written
# Mutations: always renaming (monout_place_kind): the FIFO and the device
# become regular files, the readers get nothing, the link is replaced;
# SIGPIPE not among the signals a write discards (monfile.c own_raised):
# exit 141.
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

# A symbolic link to the program's standard output (as /dev/stdout is).
ln -s /proc/self/fd/1 out.link
timeout 60 "$MONRUN" -o out.link ./spin >captured 2>err
rc=$?
if [ $rc -eq 0 ] && [ -L out.link ] && "$PROF" -m captured ./spin >report 2>&1 && grep -q ' main$' report; then
	ok monfile_targets_link_stdout
else
	not_ok monfile_targets_link_stdout "exit $rc; $(ls -l out.link); $(wc -c <captured) bytes; $(head -c 300 err)"
fi

mkdir adir && ln -s adir dir.link
timeout 60 "$MONRUN" -o dir.link ./spin >/dev/null 2>err
if [ -L dir.link ] && grep -q 'cannot write profile' err && [ -z "$(ls adir)" ]; then
	ok monfile_targets_link_dir
else
	not_ok monfile_targets_link_dir "$(ls -l dir.link); $(ls adir); $(head -c 300 err)"
fi

if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	chmod 755 "$T" && chmod 755 spin
	# libmon and monrun from a place nobody can read (a private clone).
	mkdir -p u/lib u/bin && cp -P "$B"/lib/libmon.so* u/lib/ && cp "$MONRUN" u/bin/ &&
	    chmod -R a+rX u
	(cd /tmp && timeout 60 setpriv --reuid=65534 --regid=65534 --clear-groups \
	    "$T/u/bin/monrun" -o /dev/null "$T/spin") >/dev/null 2>err.nobody
	rc=$?
	if [ $rc -eq 0 ] && [ -c /dev/null ] && ! grep -q 'cannot write' err.nobody; then
		ok monfile_targets_devnull_user
	else
		not_ok monfile_targets_devnull_user "exit $rc; $(ls -l /dev/null); $(head -c 300 err.nobody)"
	fi
else
	ok "monfile_targets_devnull_user # skip not root or no setpriv"
fi

# A reader that leaves after 10 bytes, its pipe 4 KiB: the profile of a
# program with many distinct call stacks (a recursion of varying depth) is
# larger, so the write meets a reader gone (EPIPE, SIGPIPE).
cat >deep.c <<'C'
static volatile unsigned long sink;
__attribute__((noinline)) static void down(int n)
{
	if (n > 0) {
		down(n - 1);
		sink++;
		return;
	}
	for (int i = 0; i < 200000; i++)
		sink += (unsigned long)i;
}
int main(void)
{
	for (int r = 0; r < 40; r++)
		for (int d = 1; d <= 120; d++)
			down(d);
	return 0;
}
C
cat >leaver.c <<'C'
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <unistd.h>
/* leaver FIFO READY: opens FIFO (read and write, so the open does not
 * wait), makes its pipe 4 KiB, creates READY, waits for data, reads 10
 * bytes and leaves. */
int main(int argc, char **argv)
{
	int fd = open(argv[1], O_RDWR);
	if (fd < 0 || fcntl(fd, F_SETPIPE_SZ, 4096) < 0)
		return 2;
	close(open(argv[2], O_CREAT | O_WRONLY, 0644));
	struct pollfd p = { fd, POLLIN, 0 };
	char b[10];
	if (poll(&p, 1, 60000) != 1 || read(fd, b, sizeof b) <= 0)
		return 3;
	return 0;
}
C
if $CC -O1 -g -o deep deep.c && $CC -O1 -o leaver leaver.c; then
	rm -f fifo2 ready && mkfifo fifo2
	timeout 60 ./leaver fifo2 ready &
	lpid=$!
	n=0
	while [ ! -e ready ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
	timeout 60 "$MONRUN" -o fifo2 ./deep >/dev/null 2>err.pipe
	rc=$?
	wait $lpid
	size=$(timeout 60 "$MONRUN" -o deep.mon ./deep >/dev/null 2>&1; wc -c <deep.mon)
	if [ "$size" -le 8192 ]; then
		not_ok monfile_targets_fifo_reader_leaves "the profile is $size bytes, not more than the 4 KiB pipe"
	elif [ $rc -eq 0 ] && grep -q 'cannot write profile' err.pipe; then
		ok monfile_targets_fifo_reader_leaves
	else
		not_ok monfile_targets_fifo_reader_leaves "exit $rc (profile $size bytes); $(head -c 300 err.pipe)"
	fi
else
	not_ok monfile_targets_fifo_reader_leaves "cannot build the fixtures"
fi

# prof --output=-: standard output (before: a file named "-").
timeout 60 "$PROF" -m whole.mon --output=- ./spin >dash.mon 2>err
if [ ! -e ./- ] && "$PROF" -m dash.mon ./spin >report 2>&1 && grep -q ' main$' report; then
	ok monfile_targets_prof_output_stdout
else
	not_ok monfile_targets_prof_output_stdout "$(ls -l ./- 2>&1); $(wc -c <dash.mon) bytes; $(head -c 300 err)"
fi
