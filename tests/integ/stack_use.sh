#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The tick handler's own stack use is small and bounded, walk included
# (issue 21 item 1; issue 19's alternate stacks), measured by painting
# (tests/progs/stack_use.c):
#   - a thread on a painted stack, 300 frames deep, spinning while the
#     clock ticks with MONPROF_STACK_DEPTH=512: the bytes written below
#     its stack pointer, less the red zone and the kernel's signal frame
#     (measured in the run), are at most BOUND (2048); under the itimer
#     clock, whose tick nests, one more kernel frame and 256 bytes;
#   - a SIGSEGV handler on a painted alternate stack, spinning while the
#     clock ticks: the runtime puts at most BOUND bytes between the
#     kernel's frame and the program's handler, and a tick that lands on
#     that stack (the one held while the handler ran, which siglongjmp
#     unblocks there: one must land, else nothing was measured; the
#     itimer clock's goes to another thread, a named skip) uses at most
#     ALT_BOUND (1024: no walk there) below it (or,
#     in a sanitizer build, what the same program uses there unprofiled:
#     the sanitizer's own siglongjmp interceptor);
#   - four threads with PTHREAD_STACK_MIN (16 KiB) stacks doing work exit 0
#     (tests/progs/stack_small.c).
# Under each clock that runs here.  Each program run has a time limit.
# Mutations: pcs[MON_STACK_DEPTH_MAX] back on the handler's stack in
# stacks.c's take() (thread: 4992 bytes, red); the walk on an alternate
# stack (altstack: 1464 bytes, red);
# pages_readable's 256 iovecs (the old code: 9136 bytes; stack_small 139);
# the itimer tick's CPU clock read through clock_gettime(3) (under ASan its
# interceptor: 2304 bytes, red; and stack_small_threads_itimer overflowed
# a 16 KiB stack interrupted inside the program's own clock_gettime, exit 1
# in CI) where the bound holds in every build (1416 bytes or less under ASan).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"

BOUND=2048
ALT_BOUND=1024
mkdir -p "$T/run"
cd "$T/run" || exit 1
unset PROFDIR
build_plain su stack_use.c -ldl -pthread || not_ok stack_use_build
build_plain ss stack_small.c -pthread || not_ok stack_small_build
san=
case $CC in *-fsanitize=*address*) san=asan ;; *-fsanitize=*thread*) san=tsan ;; esac

field() { printf '%s\n' "$1" | awk -v k="$2" '$1 == k { print $2; exit }'; }

# What the program itself uses below its handler unprofiled.
out=$(timeout 120 "$T/su" altstack 200 2>&1)
base=$(field "$out" handler_bytes)
echo "# unprofiled alternate stack: $out" | tr '\n' ' '
echo
alt_bound=$ALT_BOUND
[ "${base:-0}" -gt $alt_bound ] && alt_bound=$base

for c in perf thread itimer; do
	rm -f mon.out
	timeout 120 "$MONRUN" -c $c "$T/ss" 1 >"$T/ss1.out" 2>&1
	rc=$?
	got=$("$PROF" -m mon.out --format=json "$T/ss" 2>/dev/null | head -n 1 |
	      sed -n 's/.*"clock":"\([^"-]*\).*/\1/p')
	# A run that failed is a failure, not a clock this machine lacks
	# (monrun falls back to another clock, and says so, when one is
	# refused).
	if [ $rc -ne 0 ]; then
		not_ok "stack_small_threads_$c" "one thread: exit $rc: $(grep -m 3 -E 'ERROR|overflow|monprof' "$T/ss1.out" | tr '\n' ' ')"
		continue
	fi
	if [ "$got" != "$c" ]; then
		ok "stack_use_$c # skip clock $c unavailable here (got '$got')"
		continue
	fi
	try "stack_small_threads_$c" timeout 120 "$MONRUN" -c $c "$T/ss" 4

	out=$(MONPROF_STACK_DEPTH=512 timeout 120 "$MONRUN" -c $c "$T/su" thread 300 2>&1)
	s=$(field "$out" samples) h=$(field "$out" handler_bytes) f=$(field "$out" frame_bytes)
	echo "# $c, thread stack: kernel frame $f bytes, $s samples, handler $h bytes"
	name=stack_use_thread_handler_$c
	if [ -z "$h" ] || [ "${s:-0}" -eq 0 ]; then
		not_ok $name "no measurement ($s samples): $(printf '%s' "$out" | tail -n 2)"
	elif [ "$san" = tsan ]; then
		ok "$name # skip ThreadSanitizer runs signal handlers from its own wrapper (deferred), so the kernel frame cannot be measured here; $h bytes below the frame in all"
	elif [ "$h" -le $BOUND ]; then
		ok $name
	elif [ $c = itimer ] && [ -n "$f" ] && [ "$h" -le $((BOUND + f + 256)) ]; then
		# The itimer clock's SIGPROF nests (clock.c on_tick, SA_NODEFER:
		# blocked, the process's tick went to another thread and ended
		# its sleep with EINTR): a tick that comes while a handler runs
		# past the kernel's tick (a loaded machine preempts it) adds one
		# kernel frame and a return-at-once handler below it (seen with
		# both cores busy: 1352 + 3040 + 32 bytes).
		ok "$name ($h bytes: one nested tick, its kernel frame of $f bytes)"
	else
		not_ok $name "$h bytes > $BOUND${f:+ (itimer: $BOUND + one nested tick's $f + 256)}"
	fi

	out=$(timeout 120 "$MONRUN" -c $c "$T/su" altstack 200 2>&1)
	s=$(field "$out" samples) h=$(field "$out" handler_bytes) e=$(field "$out" entry_bytes)
	n=$(field "$out" faults)
	echo "# $c, alternate stack: $s samples, $e bytes before the program's handler, $h below it (unprofiled $base)"
	name=stack_use_altstack_$c
	if [ "$n" != 200 ] || [ -z "$h" ] || [ -z "$e" ]; then
		not_ok $name "faults handled: '$n': $(printf '%s' "$out" | tail -n 2)"
	elif [ "$san" = tsan ]; then
		ok "$name # skip ThreadSanitizer runs signal handlers from its own wrapper (deferred), so the kernel frame cannot be measured here"
	elif [ "$h" -le "${base:-0}" ] && [ $c = itimer ] && [ "$e" -le $BOUND ]; then
		# No tick came on the alternate stack, by design: the handler
		# holds the ticks (lib/sigguard.c), and the itimer clock's SIGPROF
		# is the process's, so the kernel gives it to another thread
		# (the clock stops there; prof warns, naming the other clocks).
		ok "$name # skip the itimer clock's process-wide SIGPROF, held in the program's SA_ONSTACK handler, goes to another thread: no tick lands on the alternate stack ($s samples)"
	elif [ "$h" -le "${base:-0}" ] && [ -z "$san" ]; then
		# The tick pending at the handler's end comes when siglongjmp
		# unblocks it, on the alternate stack: without it, the bound
		# below would hold vacuously.
		not_ok $name "no tick landed on the alternate stack ($h bytes below the handler, $base unprofiled; $s samples): nothing measured"
	elif [ "$e" -le $BOUND ] && [ "$h" -le $alt_bound ]; then
		ok "$name ($h bytes below the handler)"
	elif [ "$san" = asan ] && [ $c = itimer ] && [ "$e" -le $BOUND ]; then
		ok "$name # skip $h bytes: AddressSanitizer's clock_gettime interceptor on the itimer tick's path (see above)"
	else
		not_ok $name "$e bytes before the program's handler, $h below it (bounds $BOUND, $alt_bound)"
	fi
done
