#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# CPU spent in the program's own signal handlers is sampled in them
# (lib/sigguard.c adds the tick signals only to the masks of handlers that
# run on the alternate stack, SA_ONSTACK, and takes them out of the others'
# masks, kept in what sigaction reports; issue 21, item 13):
#   - SIGUSR1 and SIGUSR2 handlers that spin (sent with pthread_kill),
#     SIGUSR2's with every signal in its sa_mask (sigfillset, a common
#     idiom): each handler's spin function's share of the samples matches
#     its share of the CPU (5 sigma binomial bound), and its stacks go
#     through the kernel's signal frame (__restore_rt) into main; sigaction
#     reports SIGUSR2's mask whole (the program exits 1 otherwise);
#   - a SIGALRM handler that spins while main waits in sigsuspend: the
#     same, for alrm_spin;
#   - a handler installed with every signal in its mask while no clock ran
#     (tests/progs/handler_before.c: moncontrol(0), sigaction, moncontrol(1)):
#     under the perf clock usr1_spin holds at least half the samples its
#     CPU stands for (its truth is two thirds of the run's); under the
#     thread and itimer clocks, whose ticks a loaded machine makes few and
#     heavy (above), at least one of them, where holding the ticks gives it
#     none; sigaction reports the mask whole while off, on and at the end
#     (guest_handlers_before_*).
# With every clock the kernel allows (perf, thread, itimer).  The
# alternate-stack side is guest_signals.sh's guest_altstack_3000_faults.
# The bound's number of samples is what the run measured.  The perf clock
# samples at its rate: one sample a period, and 10 points at most off.
# The thread and itimer clocks are CPU-time timers, which the kernel checks
# only at its tick in the thread then on the CPU: on a loaded machine their
# signals come 10 to 140 ms of CPU late, each weighted by the periods it
# covers, so 500 periods can be 14 independent samples (measured with both
# cores busy: shares 0.07 to 0.84 for a truth of 0.40, unbiased over many
# runs, the same with no libmon at all).  For these the program's own
# CPU-time timer, checked at the same ticks, measures the run's effective
# number of samples (probe_neff: guest_handlers.c) and the rounds go on
# until it is $NEFF, where a share of 0 is far outside the bound.
NEFF=80
# Mutations caught: the tick signals added to every handler's sa_mask again
# (hides_ticks() returning is_handler()): every handler's share is 0; the
# program's full mask left as it is (apply() not taking them out):
# usr2_spin's share is 0, its CPU charged to pthread_kill; taken out but
# not put back in the view (unhide): the program exits 1; a handler already
# installed left as it is when the clock starts (patch_all): usr1_spin 0
# samples in handler_before, its CPU charged to pthread_kill.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"

mkdir -p "$T/run"
cd "$T/run" || exit 1
unset PROFDIR
build_plain handlers guest_handlers.c -pthread || not_ok guest_handlers_build

# share NAME CLOCK OUT CSV FN OTHER...: FN's share of the samples of FN
# and the OTHERs against its share of their CPU, as the program measured
# it; with the thread and itimer clocks, the share is worth probe_neff
# samples (top of this file).
share() {
	_n=$1 _cl=$2 _o=$3 _c=$4 _f=$5; shift 5
	_k=$(ticks "$_c" "$_f") _t=$(truth "$_o" "$_f")
	_kt=$_k _tt=$_t
	for _x in "$@"; do
		_kt=$(awk -v a="$_kt" -v b="$(ticks "$_c" "$_x")" 'BEGIN { print a + b }')
		_tt=$(awk -v a="$_tt" -v b="$(truth "$_o" "$_x")" 'BEGIN { print a + b }')
	done
	_ns=$(awk -v a="$_kt" 'BEGIN { printf "%d", a + 0.5 }')
	_p=$(awk -v a="$_t" -v b="$_tt" 'BEGIN { print (b > 0) ? a / b : 0 }')
	echo "# $_n: $_f $_k of $_ns periods; CPU $_t of $_tt s; $(tr '\n' ' ' <"$_o")"
	clock_share_ok "$_n" "$_cl" "$_k" "$_kt" "$_p" "$_o" $NEFF 0.10
}

# through NAME FN: some folded stack ending in FN passes the signal frame
# and reaches main.
through() {
	if "$PROF" -m mon.out --format=folded "$T/handlers" 2>/dev/null |
	    grep -q "main;.*__restore_rt;.*$2 [0-9]*\$"; then
		ok "$1"
	else
		not_ok "$1" "no stack main;...;__restore_rt;...;$2: $("$PROF" -m mon.out --format=folded "$T/handlers" 2>/dev/null | sort -t' ' -k2 -n | tail -n 3 | tr '\n' '|')"
	fi
}

for c in perf thread itimer; do
	rm -f mon.out
	timeout 60 "$MONRUN" -c $c "$T/handlers" usr 1 >/dev/null 2>&1
	got=$(clock_in mon.out "$T/handlers")
	if [ "$got" != "$c" ]; then
		ok "guest_handlers_$c # skip clock $c unavailable here (got '$got')"
		continue
	fi
	rm -f mon.out
	try "guest_handlers_usr_runs_$c" timeout 120 sh -c "\"\$0\" \"\$@\" >\"$T/usr.$c\"" "$MONRUN" -c $c "$T/handlers" usr 10 $NEFF
	prof_csv mon.out "$T/usr.$c.csv" "$T/handlers"
	share "guest_handlers_usr1_sampled_$c" $c "$T/usr.$c" "$T/usr.$c.csv" usr1_spin usr2_spin main_spin
	share "guest_handlers_usr2_sampled_$c" $c "$T/usr.$c" "$T/usr.$c.csv" usr2_spin usr1_spin main_spin
	through "guest_handlers_usr_stack_$c" usr1_spin

	rm -f mon.out
	try "guest_handlers_alarm_runs_$c" timeout 120 sh -c "\"\$0\" \"\$@\" >\"$T/alrm.$c\"" "$MONRUN" -c $c "$T/handlers" alarm 10 $NEFF
	prof_csv mon.out "$T/alrm.$c.csv" "$T/handlers"
	share "guest_handlers_alarm_sampled_$c" $c "$T/alrm.$c" "$T/alrm.$c.csv" alrm_spin main_spin
	through "guest_handlers_alarm_stack_$c" alrm_spin
done

# A handler of a full mask installed while the clock was stopped.
build_prog before handler_before.c || not_ok guest_handlers_before_build
for c in perf thread itimer; do
	rm -f mon.out
	timeout 60 "$MONRUN" -c $c "$T/before" 30 >"$T/before.$c" 2>&1
	rc=$?
	got=$(clock_in mon.out "$T/before")
	if [ "$got" != "$c" ]; then
		ok "guest_handlers_before_$c # skip clock $c unavailable here (got '$got')"
		continue
	fi
	prof_csv mon.out "$T/before.$c.csv" "$T/before"
	k=$(ticks "$T/before.$c.csv" usr1_spin) t=$(truth "$T/before.$c" usr1_spin)
	rate=$(csv_awk -F, 'NR > 1 && $6 > 0 { print $8 / $6; exit }' "$T/before.$c.csv")
	f=2; [ $c = perf ] || f=0
	if [ $rc -eq 0 ] && awk -v k="$k" -v t="$t" -v r="${rate:-0}" -v f=$f 'BEGIN { exit !(t > 0 && r > 0 && k > 0 && (f == 0 || k >= t * r / f)) }'; then
		ok "guest_handlers_before_$c # usr1_spin $k samples for $t CPU-s at ${rate} Hz"
	else
		not_ok "guest_handlers_before_$c" "exit $rc, usr1_spin $k samples for $t CPU-s at ${rate:-?} Hz: $(tr '\n' ' ' <"$T/before.$c")"
	fi
done
