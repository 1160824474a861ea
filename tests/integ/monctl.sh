#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# monctl(1) (issue 22, item 3): on, off, snapshot and status in a running
# process, a dormant start, and refusals.
#  - monrun --dormant: status says dormant, zero samples, no clock (and
#    which one "on" starts, at what rate), no wall-clock sampler; a
#    snapshot is refused; at exit no file (mutation: dormant ignored in
#    start_whole — samples are taken before "on");
#  - monctl on: sampling starts (samples grow); snapshot writes the profile
#    and names it, a readable file with samples;
#  - monctl_status_interval_words: status after an interval's off says
#    its samples are since the start and its stack entries the new
#    interval's;
#  - monctl off: samples stop growing (mutation: "off" not calling
#    moncontrol(0));
#  - a process not profiled (a shell), one that does not exist, and a
#    process of another user (when run as root: one run as nobody) are
#    refused, each with its own words and exit status 3;
#  - the control socket is not among the program's descriptors
#    (/proc/PID/fd below the fdguard floor holds no socket of ours).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"
. "$(dirname "$0")/mon_helpers.inc"
. "$(dirname "$0")/wall_lib.inc"
MONCTL=$B/bin/monctl

# The waits below are in the process's CPU time, not wall-clock time: a
# loaded machine may give the spinning program little CPU in a second.
# cpu_of PID: the CPU seconds PID has used (utime + stime, /proc/PID/stat,
# proc(5); fields counted after the parenthesised name).
cpu_of() {
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); print ($12 + $13) / hz }' "/proc/$1/stat" 2>/dev/null
}
# wait_cpu PID S: wait until PID has used S more CPU seconds (at most 60 s).
wait_cpu() {
	_w0=$(cpu_of "$1")
	for _i in $(seq 1200); do
		awk -v a="$(cpu_of "$1")" -v b="${_w0:-0}" -v s="$2" 'BEGIN { exit !(a == "" || a - b >= s) }' &&
			return 0
		sleep 0.05
	done
	return 1
}

# ctl_cycle PID P: status (P.s0), on (P.on), 0.3 s of its CPU, status
# (P.s1), snapshot (P.snap), off (P.off), status (P.s2).
ctl_cycle() {
	"$MONCTL" "$1" status >"$2.s0" 2>&1
	"$MONCTL" "$1" on >"$2.on" 2>&1
	wait_cpu "$1" 0.3
	"$MONCTL" "$1" status >"$2.s1" 2>&1
	"$MONCTL" "$1" snapshot >"$2.snap" 2>&1
	"$MONCTL" "$1" off >"$2.off" 2>&1
	"$MONCTL" "$1" status >"$2.s2" 2>&1
}

if build_plain ispin interval_spin.c && build_dump; then
	ok monctl_build
else
	not_ok monctl_build
	exit 0
fi

field() { awk -v k="$1" '$1 == k { print $2; exit }'; }

mkdir -p "$T/w"
cd "$T/w" || exit 1
"$MONRUN" --dormant "$T/ispin" forever "$T/ready" >/dev/null 2>"$T/run.err" &
job=$!
for _i in $(seq 300); do [ -s "$T/ready" ] && break; sleep 0.1; done
PID=$(cat "$T/ready")
wait_cpu "$PID" 0.3
"$MONCTL" "$PID" status >"$T/s0" 2>&1
if [ "$(field state <"$T/s0")" = dormant ] && [ "$(field samples <"$T/s0")" = 0 ] &&
   grep -q '^clock none (the default clock at [0-9]* Hz when on)$' "$T/s0" && grep -qx 'wall off' "$T/s0"; then
	ok monctl_dormant_status
else
	not_ok monctl_dormant_status "$(tr '\n' ' ' <"$T/s0")"
fi
"$MONCTL" "$PID" snapshot >"$T/snap0" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q dormant "$T/snap0"; then
	ok monctl_dormant_snapshot_refused
else
	not_ok monctl_dormant_snapshot_refused "rc $rc: $(cat "$T/snap0")"
fi

"$MONCTL" "$PID" on >"$T/on" 2>&1
wait_cpu "$PID" 0.3
"$MONCTL" "$PID" status >"$T/s1" 2>&1
a=$(field samples <"$T/s1")
wait_cpu "$PID" 0.3
"$MONCTL" "$PID" status >"$T/s2" 2>&1
b=$(field samples <"$T/s2")
if grep -q "ok: sampling" "$T/on" && [ "$(field state <"$T/s2")" = sampling ] &&
   [ "${a:-0}" -gt 0 ] && [ "${b:-0}" -gt "${a:-0}" ]; then
	ok monctl_on_samples
else
	not_ok monctl_on_samples "$(cat "$T/on") $a then $b: $(tr '\n' ' ' <"$T/s2")"
fi

"$MONCTL" "$PID" snapshot >"$T/snap" 2>&1
f=$(sed -n 's/^ok: wrote //p' "$T/snap")
if [ -n "$f" ] && "$T/mon_dump" "$f" check && [ "$(info "$f" samples)" -gt 0 ]; then
	ok monctl_snapshot_written
else
	not_ok monctl_snapshot_written "$(cat "$T/snap")"
fi

"$MONCTL" "$PID" off >"$T/off" 2>&1
wait_cpu "$PID" 0.1
"$MONCTL" "$PID" status >"$T/s3" 2>&1
c=$(field samples <"$T/s3")
wait_cpu "$PID" 0.3
"$MONCTL" "$PID" status >"$T/s4" 2>&1
d=$(field samples <"$T/s4")
if grep -q "ok: off" "$T/off" && [ "$(field state <"$T/s4")" = off ] && [ "$c" = "$d" ]; then
	ok monctl_off_stops
else
	not_ok monctl_off_stops "$(cat "$T/off") $c then $d"
fi

# No socket of ours among the program's numbers: every socket the process
# holds is above the floor (a quarter of RLIMIT_NOFILE from the top, at
# most FD_SETSIZE, 1024: lib/fdguard.c mon_fd_floor).
lim=$(awk '$1 == "Max" && $3 == "files" { print $5 }' "/proc/$PID/limits")
floor=$((lim - lim / 4))
[ "$floor" -gt 1024 ] && floor=1024
low=$(for fd in /proc/"$PID"/fd/*; do
	n=${fd##*/}
	[ "$n" -lt "$floor" ] && readlink "$fd" | grep -q '^socket:' && echo "$n"
done)
if [ -z "$low" ]; then ok monctl_socket_hidden; else not_ok monctl_socket_hidden "sockets at $low"; fi
kill "$PID"
wait "$job" 2>/dev/null

# Refusals.
sh -c 'echo $$ >"$1"; exec sleep 30' sh "$T/plain" &
pj=$!
for _i in $(seq 50); do [ -s "$T/plain" ] && break; sleep 0.1; done
"$MONCTL" "$(cat "$T/plain")" status >"$T/r1" 2>&1
rc=$?
kill "$pj" 2>/dev/null
wait "$pj" 2>/dev/null
# The message names the remedy: the starts that have a control socket (a
# plain monrun has none; the old message sent users to "monrun").
if [ $rc -eq 3 ] && grep -q "not profiled by monprof" "$T/r1" &&
    grep -q "monrun --control (or --dormant, --interval), or build it with cc -pg or -finstrument-functions linked with libmon (-lmon, or libmon.a) and set MONPROF_CONTROL=1 (a program that calls monstartup() itself has none)" "$T/r1"; then
	ok monctl_refuses_unprofiled
else
	not_ok monctl_refuses_unprofiled "rc $rc: $(cat "$T/r1")"
fi
"$MONCTL" 2147483 status >"$T/r2" 2>&1
rc=$?
if [ $rc -eq 3 ] && grep -q "no such process" "$T/r2"; then
	ok monctl_refuses_missing
else
	not_ok monctl_refuses_missing "rc $rc: $(cat "$T/r2")"
fi
"$MONCTL" 1 frobnicate >"$T/r3" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q "unknown command" "$T/r3"; then
	ok monctl_refuses_command
else
	not_ok monctl_refuses_command "rc $rc: $(cat "$T/r3")"
fi
# Another user's process: as root, a profiled process run as nobody, asked
# by root is allowed (root may); asked by nobody of root's is refused.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	"$MONRUN" --control "$T/ispin" forever "$T/ready2" >/dev/null 2>&1 &
	rj=$!
	for _i in $(seq 300); do [ -s "$T/ready2" ] && break; sleep 0.1; done
	cp "$MONCTL" "$T/monctl" && chmod 755 "$T" "$T/monctl"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$T/monctl" "$(cat "$T/ready2")" status \
	    >"$T/r4" 2>&1
	rc=$?
	kill "$(cat "$T/ready2")"
	wait "$rj" 2>/dev/null
	if [ $rc -eq 3 ] && grep -q "belongs to another user" "$T/r4"; then
		ok monctl_refuses_other_user
	else
		not_ok monctl_refuses_other_user "rc $rc: $(cat "$T/r4")"
	fi
else
	echo "ok monctl_refuses_other_user # skip not root or no setpriv"
fi
# --dormant --no-control: no socket, refused as not profiled; so is a
# plain monrun (no control thread by default: pthread_create would call
# the program's calloc before main).
"$MONRUN" "$T/ispin" forever "$T/ready4" >/dev/null 2>&1 &
pj=$!
for _i in $(seq 300); do [ -s "$T/ready4" ] && break; sleep 0.1; done
"$MONCTL" "$(cat "$T/ready4")" status >"$T/r6" 2>&1
rc=$?
kill "$(cat "$T/ready4")"
wait "$pj" 2>/dev/null
if [ $rc -eq 3 ] && grep -q "profiled by monprof, but without a control socket: it was started without one (monrun --control, --dormant or --interval start one" "$T/r6"; then
	ok monctl_plain_needs_control
else
	not_ok monctl_plain_needs_control "rc $rc: $(cat "$T/r6")"
fi
"$MONRUN" --dormant --no-control "$T/ispin" forever "$T/ready3" >/dev/null 2>&1 &
nj=$!
for _i in $(seq 300); do [ -s "$T/ready3" ] && break; sleep 0.1; done
"$MONCTL" "$(cat "$T/ready3")" status >"$T/r5" 2>&1
rc=$?
kill "$(cat "$T/ready3")"
wait "$nj" 2>/dev/null
if [ $rc -eq 3 ] && grep -q "profiled by monprof, but without a control socket" "$T/r5"; then
	ok monctl_no_control
else
	not_ok monctl_no_control "rc $rc: $(cat "$T/r5")"
fi

# A process that has ended (a zombie: its socket closed as it ended) is
# said to have ended, not sent to start one (a fresh user asked during a
# --dormant run's exit and was told to use monrun --control).  Mutation:
# no state check in monctl: the advice again.
# Its parent execs sleep(1), which never collects it.
sh -c '"$1" --dormant "$2" forever "$3" >/dev/null 2>&1 & exec sleep 60' sh "$MONRUN" "$T/ispin" "$T/ready7" &
zj=$!
for _i in $(seq 300); do [ -s "$T/ready7" ] && break; sleep 0.1; done
zp=$(cat "$T/ready7")
kill -KILL "$zp" 2>/dev/null
for _i in $(seq 50); do [ "$(sed 's/.*) //' /proc/"$zp"/stat 2>/dev/null | cut -c1)" = Z ] && break; sleep 0.1; done
"$MONCTL" "$zp" status >"$T/r7" 2>&1
rc=$?
kill "$zj" 2>/dev/null
wait "$zj" 2>/dev/null
if [ $rc -eq 3 ] && grep -q "the process has ended" "$T/r7"; then
	ok monctl_ended_said
else
	not_ok monctl_ended_said "rc $rc: $(cat "$T/r7")"
fi

# A dormant start keeps the settings it was given for when it is switched
# on, though monrun's preload removed them from the program's environment
# at start: --wall starts the wall-clock sampler then, and
# MONPROF_STACK_DEPTH=3 bounds the call stacks taken then (mutation: the
# settings read with getenv when switched on: no WALL record, stacks 256
# deep).  The snapshot is written while it runs.
build_wall_dump
MONPROF_STACK_DEPTH=3 "$MONRUN" --dormant --wall=200 "$T/ispin" forever "$T/ready5" >/dev/null 2>"$T/dw.err" &
dj=$!
for _i in $(seq 300); do [ -s "$T/ready5" ] && break; sleep 0.1; done
DP=$(cat "$T/ready5")
ctl_cycle "$DP" "$T/dw"
kill "$DP" 2>/dev/null
wait "$dj" 2>/dev/null
f=$(sed -n 's/^ok: wrote //p' "$T/dw.snap")
rounds=$("$T/wall_dump" "$f" 2>/dev/null | awk '$1 == "wall" { for (i = 2; i < NF; i++) if ($i == "rounds") print $(i + 1) }')
if [ -n "$f" ] && [ "${rounds:-0}" -gt 0 ]; then
	ok "monctl_dormant_wall_starts ($rounds rounds)"
else
	not_ok monctl_dormant_wall_starts "$(cat "$T/dw.on" "$T/dw.snap" "$T/dw.err"); WALL: $("$T/wall_dump" "$f" 2>&1 | head -n 1)"
fi
# Its status says what the wall-clock sampler's state is: set and started
# by "on" while dormant, its rate while on, paused while off (mutation:
# status's old "wall off" while dormant, the rate alone while off).
if grep -qx "wall set to 200 Hz, not running yet: it starts when profiling is turned on (monctl $DP on)" "$T/dw.s0" &&
   grep -qx 'state dormant' "$T/dw.s0" && grep -qx 'wall 200 Hz' "$T/dw.s1" &&
   grep -qx 'wall 200 Hz, paused while profiling is off' "$T/dw.s2" && grep -qx 'state off' "$T/dw.s2"; then
	ok monctl_dormant_wall_status
else
	not_ok monctl_dormant_wall_status "$(grep -h '^state\|^wall' "$T/dw.s0" "$T/dw.s1" "$T/dw.s2" | tr '\n' '|')"
fi
st=$(dump "$f" stacks work_spin "$T/ispin" 2>/dev/null)
md=$(echo "$st" | awk '{ for (i = 1; i < NF; i++) if ($i == "maxdepth") print $(i + 1) }')
if [ -n "$md" ] && [ "$md" -gt 0 ] && [ "$md" -le 3 ]; then
	ok "monctl_dormant_stack_depth_kept (deepest $md)"
else
	not_ok monctl_dormant_stack_depth_kept "$st"
fi

# An interval series switched off, then ended: the off wrote the
# interval's file (what was sampled until then), and the end writes no
# file of nothing over the time it was off (a new user's redis: an empty
# i000003 that stretched --timeline and the flame graph's strip by the
# time it was off).  Both ends: killed by SIGTERM (the fatal-signal path)
# and returning from main (exit: atexit writes).  The files after the off's
# reply are those there at it.  Mutations: write_last without
# mon_interval_idle, or mon_interval_idle refusing once finished is set
# (every exit path sets it before it writes): monctl_off_then_end_exit
# fails, and the first also _killed.
for how in killed exit; do
	mkdir -p "$T/iv$how"
	if [ $how = killed ]; then set -- forever "$T/ready7$how"; else set -- exit "$T/ready7$how" 3; fi
	PROFDIR=$T/iv$how "$MONRUN" --interval=1 "$T/ispin" "$@" >/dev/null 2>"$T/iv$how.err" &
	ij=$!
	for _i in $(seq 300); do [ -s "$T/ready7$how" ] && break; sleep 0.1; done
	IP=$(cat "$T/ready7$how")
	wait_cpu "$IP" 0.2
	"$MONCTL" "$IP" off >"$T/iv$how.off" 2>&1
	before=$(ls "$T/iv$how" | tr '\n' ' ')
	if [ $how = killed ]; then
		# status after the off's cut: its samples since the start, the
		# stack table's entries the new interval's (0), each said so
		# (a new user read "samples 379" beside "stacks 0" as a fault),
		# and the most the table grows to (another read "stacks 130 of
		# 16384" against --help's 4194304).  Mutation caught: the old
		# wordings.
		"$MONCTL" "$IP" status >"$T/iv.status" 2>&1
		if grep -q '^samples [1-9][0-9]* since profiling started$' "$T/iv.status" &&
		   grep -q '^stacks 0 of [0-9]* entries in this interval (the table grows as needed to [0-9]*, --stack-table), ' "$T/iv.status"; then
			ok monctl_status_interval_words
		else
			not_ok monctl_status_interval_words "$(tr '\n' '|' <"$T/iv.status")"
		fi
		sleep 2.5; kill "$IP" 2>/dev/null	# two interval ends pass while off
	fi
	wait "$ij" 2>/dev/null
	after=$(ls "$T/iv$how" | tr '\n' ' ')
	if grep -q "ok: off" "$T/iv$how.off" && [ -n "$before" ] && [ "$after" = "$before" ]; then
		ok "monctl_off_then_end_$how"
	else
		not_ok "monctl_off_then_end_$how" "$(cat "$T/iv$how.off"): at the off: ${before:-none}; at the end: ${after:-none}"
	fi
done

# A program linked with libmon (issue 22: monctl "for monrun and for
# libmon-linked programs"): cc -pg with libmon.so, and cc -pg -static with
# libmon.a, started with MONPROF_DORMANT=1 and no monrun: dormant, on
# (samples grow), a snapshot with samples, off.  And MONPROF_INTERVAL=1
# cuts interval files in both.  Mutation caught: control.o left out of the
# static link (nothing named it: MONPROF_DORMANT, MONPROF_INTERVAL and
# MONPROF_CONTROL were ignored, the program sampled from its start); its
# thread calling the C library's syscall(3) found by dlsym (a null
# pointer in a static program: SIGSEGV).
linked="pg"
build_prog lpg interval_spin.c -pg || not_ok monctl_linked_build "-pg"
case " $CC " in
*-fsanitize=*) echo "# pg_static left out: sanitizer runtimes cannot be linked statically" ;;
*)	if [ -f "$($CC -print-file-name=libc.a)" ] && build_prog_static lpg_static interval_spin.c -pg -static; then
		linked="$linked pg_static"
	else
		echo "# pg_static left out: no static C library (libc6-dev's libc.a)"
	fi ;;
esac
for k in $linked; do
	mkdir -p "$T/l_$k" && cd "$T/l_$k" || exit 1
	rm -f "$T/lready_$k"
	MONPROF_DORMANT=1 "$T/l$k" forever "$T/lready_$k" >/dev/null 2>"$T/l_$k.err" &
	lj=$!
	for _i in $(seq 300); do [ -s "$T/lready_$k" ] && break; sleep 0.1; done
	LP=$(cat "$T/lready_$k" 2>/dev/null)
	ctl_cycle "$LP" "$T/l_$k"
	kill "$LP" 2>/dev/null
	wait "$lj" 2>/dev/null
	f=$(sed -n 's/^ok: wrote //p' "$T/l_$k.snap")
	if [ "$(field state <"$T/l_$k.s0")" = dormant ] && [ "$(field samples <"$T/l_$k.s0")" = 0 ] &&
	   grep -q "ok: sampling" "$T/l_$k.on" && [ -n "$f" ] && "$T/mon_dump" "$f" check &&
	   [ "$(info "$f" samples)" -gt 0 ] && [ "$(field state <"$T/l_$k.s2")" = off ]; then
		ok "monctl_linked_$k ($(info "$f" samples) samples in the snapshot)"
	else
		not_ok "monctl_linked_$k" "$(head -n 3 "$T/l_$k.s0" | tr '\n' ' ') $(cat "$T/l_$k.on" "$T/l_$k.snap" "$T/l_$k.err" | head -n 4 | tr '\n' ' ')"
	fi
	# Intervals: two cut while it runs (each 1 s of wall-clock time; it
	# is given 30 s).
	mkdir -p "$T/li_$k"
	rm -f "$T/lready_$k"
	PROFDIR="$T/li_$k" MONPROF_INTERVAL=1 "$T/l$k" forever "$T/lready_$k" >/dev/null 2>"$T/li_$k.err" &
	lj=$!
	for _i in $(seq 300); do [ -s "$T/lready_$k" ] && break; sleep 0.1; done
	LP=$(cat "$T/lready_$k" 2>/dev/null)
	for _i in $(seq 300); do [ "$(ls "$T/li_$k" | grep -c '\.i0')" -ge 2 ] && break; sleep 0.1; done
	kill "$LP" 2>/dev/null
	wait "$lj" 2>/dev/null
	n=$(ls "$T/li_$k" | grep -c '\.i0')
	if [ "$n" -ge 2 ]; then
		ok "monctl_linked_${k}_intervals ($n files)"
	else
		not_ok "monctl_linked_${k}_intervals" "$n interval files: $(ls "$T/li_$k" | tr '\n' ' ') $(head -c 300 "$T/li_$k.err")"
	fi
done
