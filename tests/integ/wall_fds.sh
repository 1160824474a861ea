#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# What a thread blocked on a descriptor waits for, end to end (issue 20:
# "for descriptor waits, what the descriptor is: a socket with its
# local/peer address, a pipe, a file path, an eventfd, a timerfd"):
# tests/progs/wall_fds.c's threads each block 400 ms in a start function of
# their own under monrun --wall=200, and prof --sample=wall --format=folded
# names each wait as the leaf of that thread's stacks:
#   wall_fds_eventfd    [read eventfd]
#   wall_fds_timerfd    [read timerfd]
#   wall_fds_signalfd   [read signalfd]
#   wall_fds_recv       [recvfrom socket tcp 127.0.0.1:LOCAL 127.0.0.1:PEER],
#                       the connection's two ends (both ports are from the
#                       ephemeral range, so neither is left out)
#   wall_fds_accept     [accept socket tcp 127.0.0.1:PORT], the listening
#                       socket's address
#   wall_fds_fifo       [read PATH], the FIFO's path
# each with >= 20 samples (of the 80 the 400 ms give at 200 Hz), as many
# of them reaching the thread's start function (under sanitizers, whose
# interceptors end a blocked thread's walk, the leaf alone).  (A pipe, an epoll descriptor and a futex's
# lock are wall_truth.sh's.)
# Mutation: the descriptor's kind not read (lib/wall.c describe_fd's
# fd_kind left MONOUT_FD_OTHER): every check but fifo red.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wall_lib.inc"

# The FIFO's path as the kernel gives it (readlink: no symbolic link in it).
P=$(cd "$T" && pwd -P)
wall_run fds 200 60 "$P" 400
port=$(awk '$1 == "listen" { print $2 }' "$T/fds.out")
local=$(awk '$1 == "recv" { print $2 }' "$T/fds.out")
peer=$(awk '$1 == "recv" { print $3 }' "$T/fds.out")
timeout 60 "$B/bin/prof" --sample=wall --format=folded -m "$T/fds.mon" "$T/fds" >"$T/folded" 2>"$T/folded.err"
grep -E 'start_(eventfd|timerfd|signalfd|recv|accept|fifo)' "$T/folded" | sed 's/^/# /' | head -n 20
# fd_check NAME START LEAF...: samples whose leaf frame is one of LEAF
# (exact), at least 20, and as many of them under START.
fd_check() {
	name=$1 start=$2; shift 2
	set -- $(awk -v s="$start" -v leaves="$*" '
		BEGIN { nl = split(leaves, L, "|") }
		{
			l = $0; sub(/ [0-9.]+$/, "", l); nf = split(l, f, ";")
			for (i = 1; i <= nl; i++) if (f[nf] == L[i]) {
				n += $NF
				if (index(";" l ";", ";" s ";")) u += $NF
				break
			}
		}
		END { print n + 0, u + 0 }' "$T/folded") "$@"
	n=$1 u=$2; shift 2
	if [ $rc -ne 0 ] || [ "$n" -lt 20 ]; then
		not_ok "$name" "exit $rc, $n samples ending in $*: $(grep "$start" "$T/folded" | head -n 2 | tr '\n' '|')"
	elif [ "$u" -lt 20 ]; then
		wall_san_not_ok "$name" "$n samples ending in $*, $u of them under $start" \
		    "the sanitizer's interceptors of read and recv are built with frame pointers, and a blocked thread's walk starts from the SP and PC /proc gives, without its frame pointer, so it ends in them"
	else ok "$name"; fi
}
fd_check wall_fds_eventfd start_eventfd "[read eventfd]"
fd_check wall_fds_timerfd start_timerfd "[read timerfd]"
fd_check wall_fds_signalfd start_signalfd "[read signalfd]"
fd_check wall_fds_recv start_recv "[recvfrom socket tcp 127.0.0.1:$local 127.0.0.1:$peer]"
fd_check wall_fds_accept start_accept "[accept socket tcp 127.0.0.1:$port]"
fd_check wall_fds_fifo start_fifo "[read $P/wall_fds.fifo]"
