#!/bin/sh
# The program's descriptors stay its own while it is profiled
# (lib/fdguard.c):
#   - with RLIMIT_NOFILE at 64 and 61 (then 50) threads alive, the
#     program's open() succeeds and gets the descriptor it gets
#     unprofiled, 3 when nothing was inherited (the
#     perf clock's descriptors sit in the top quarter of the range and the
#     threads beyond it get the timer clock);
#   - a daemon that closes every descriptor above 2 (close, closefrom,
#     close_range) gets 3, 4, 5 from its next opens, can dup2 onto the top
#     numbers, and is still profiled afterwards (after_close has samples);
#     numbers it then takes behind the C library's back are never closed
#     by libmon when its threads exit (identity checked).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"

mkdir -p "$T/run"
cd "$T/run" || exit 1
unset PROFDIR
build_plain fds guest_fds.c -pthread || not_ok guest_fds_build

# The number the program gets unprofiled is the one it must get profiled:
# 3, or higher when this test inherited open descriptors (a CI runner's, a
# terminal's): the environment's, not an assumption of the test.
for n in 61 50; do
	want=$(ulimit -n 64 && "$T/fds" limit $n 2>&1)
	out=$(ulimit -n 64 && "$MONRUN" "$T/fds" limit $n 2>&1)
	case $want in
	"open_fd "*) [ "$out" = "$want" ] && ok "guest_fds_low_limit_${n}_threads" ||
		not_ok "guest_fds_low_limit_${n}_threads" "profiled: $out; unprofiled: $want" ;;
	*) not_ok "guest_fds_low_limit_${n}_threads" "unprofiled: $want" ;;
	esac
done

for c in perf thread; do
	rm -f mon.out
	"$MONRUN" -c $c "$T/fds" limit 1 >/dev/null 2>&1
	got=$("$PROF" -m mon.out --format=json "$T/fds" 2>/dev/null | head -n 1 |
	      sed -n 's/.*"clock":"\([^"-]*\).*/\1/p')
	if [ "$got" != "$c" ]; then
		ok "guest_fds_daemon_$c # skip clock $c unavailable here (got '$got')"
		continue
	fi
	rm -f mon.out
	# A limit of 1024, so that the program walks every number up to it.
	try "guest_fds_daemon_$c" sh -c "ulimit -n 1024 && exec \"\$0\" \"\$@\"" "$MONRUN" -c $c "$T/fds" daemon 0.3
	prof_csv mon.out "$T/d.$c.csv" "$T/fds"
	k=$(ticks "$T/d.$c.csv" after_close)
	# 0.3 CPU-s at the default 1000 Hz: a profile that goes on has far
	# more than one sample there; one whose clock was closed has none.
	[ "${k%.*}" -gt 1 ] 2>/dev/null && ok "guest_fds_daemon_still_profiled_$c" ||
		not_ok "guest_fds_daemon_still_profiled_$c" "$k ticks in after_close"
done
