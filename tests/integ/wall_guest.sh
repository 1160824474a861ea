#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The wall sampler never disturbs the program: tests/progs/wall_eintr.c
# makes 11 700 blocking calls (nanosleep, epoll_wait, poll, select, futex,
# read of a pipe and of a socket, sigtimedwait, io_uring_enter; it catches
# SIGWINCH and SIGURG without SA_RESTART) under monrun --wall=1000.
#   wall_guest_sampled    the WALL record is at 1000 Hz and has blocked samples in
#                         each of those system calls (the sampler saw every one)
#   wall_guest_io_uring   io_uring_enter was among them (a kernel that refuses
#                         io_uring: skipped, naming the kernel's reason)
#   wall_guest_no_eintr   no call returned EINTR
#   wall_guest_no_early   no timed wait ended before its time
#   wall_guest_same       the program's output (its counts) is the same without --wall
# Mutation: the sampler sending SIGURG to each thread it finds blocked
# (tgkill in full_read) fails wall_guest_no_eintr; MONPROF_WALL ignored fails
# wall_guest_sampled.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wall_lib.inc"

wall_run eintr 1000 120
head -n 1 "$T/wall.txt"
refused=$(sed -n 's/^kind io_uring_enter refused //p' "$T/eintr.out")
miss=$(awk -v uring=$([ -z "$refused" ] && echo 1 || echo 0) '$1 == "wall" { if ($2 != 1 || $4 != 1000) print "no WALL record at 1000 Hz" }
	$1 == "sample" && $6 != "running" && $6 != "runnable" { n[$8] += $2 }
	END {
		split("clock_nanosleep epoll_wait poll pselect6 futex read rt_sigtimedwait" \
		    (uring ? " io_uring_enter" : ""), k, " ")
		for (i in k) if (!(n[k[i]] > 0)) printf " no samples in %s", k[i]
	}' "$T/wall.txt")
if [ $rc -eq 0 ] && [ -z "$miss" ]; then ok wall_guest_sampled; else not_ok wall_guest_sampled "exit $rc$miss"; fi
if [ -n "$refused" ]; then ok "wall_guest_io_uring # skip the kernel refuses io_uring here: $refused"
elif grep -q '^kind io_uring_enter calls 1300 ' "$T/eintr.out"; then ok wall_guest_io_uring
else not_ok wall_guest_io_uring "$(grep io_uring "$T/eintr.out")"; fi
calls=$(awk '$1 == "total" { print $3 }' "$T/eintr.out")
eintr=$(awk '$1 == "total" { print $5 }' "$T/eintr.out")
early=$(awk '$1 == "total" { print $7 }' "$T/eintr.out")
other=$(awk '$1 == "total" { print $9 }' "$T/eintr.out")
# 10 400 calls when io_uring is refused
if [ "${calls:-0}" -ge 10400 ] && [ "$eintr" = 0 ]; then ok wall_guest_no_eintr
else not_ok wall_guest_no_eintr "calls ${calls:-none}, EINTR $eintr"; fi
if [ "${calls:-0}" -ge 10400 ] && [ "$early" = 0 ] && [ "$other" = 0 ]; then ok wall_guest_no_early
else not_ok wall_guest_no_early "calls ${calls:-none}, early $early, unexpected $other"; fi
timeout 120 "$T/eintr" >"$T/plain" 2>&1
if cmp -s "$T/eintr.out" "$T/plain"; then ok wall_guest_same; else not_ok wall_guest_same "$(diff "$T/plain" "$T/eintr.out" | head -n 4)"; fi
