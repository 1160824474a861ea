#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The command's end is monrun's: exit 3 stays exit 3, abort() still kills
# with SIGABRT (the shell's 134), a SIGTERM raised inside or sent from
# outside still kills with SIGTERM (143) — as seen by a parent with
# waitpid(2), not only as the shell's number — and in each case the profile
# is written first and reads back with the work that was done.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"

if build_plain exitp monrun_exit.c && build_plain waitp monrun_wait.c; then
	ok monrun_exit_build
else
	not_ok monrun_exit_build
fi

# profile_ok NAME DATA: DATA reads back and work_spin has its samples.
profile_ok() {
	if [ ! -s "$2" ]; then
		not_ok "$1" "no profile $2"
	elif ! prof_csv "$2" "$T/e.csv" "$T/exitp"; then
		not_ok "$1" "prof: $(cat "$T/e.csv.err")"
	else
		k=$(ticks "$T/e.csv" work_spin)
		# 0.2 CPU-s at 1000 Hz: 200 samples; half of them is far below
		# any plausible loss.
		if awk -v k="$k" 'BEGIN { exit !(k >= 100) }'; then
			ok "$1"
		else
			not_ok "$1" "work_spin has $k ticks"
		fi
	fi
}

# How the same program ends without monrun, then with it.
for mode in exit3 abort term; do
	case $mode in
	exit3) want="exited 3" sh_want=3 ;;
	abort) want="killed 6" sh_want=134 ;;
	term) want="killed 15" sh_want=143 ;;
	esac
	mkdir -p "$T/$mode"
	plain=$(cd "$T/$mode" && "$T/waitp" "$T/exitp" $mode 0.01)
	rm -f "$T/$mode/mon.out"
	got=$(cd "$T/$mode" && "$T/waitp" "$MONRUN" "$T/exitp" $mode 0.2)
	if [ "$got" = "$want" ] && [ "$plain" = "$want" ]; then
		ok monrun_exit_${mode}_status
	else
		not_ok monrun_exit_${mode}_status "under monrun '$got', alone '$plain', want '$want'"
	fi
	profile_ok monrun_exit_${mode}_profile_written "$T/$mode/mon.out"
	rm -f "$T/$mode/mon.out"
	rc=$(sh -c 'cd "$1" && "$2" "$3" "$4" 0.01; echo $?' sh "$T/$mode" "$MONRUN" "$T/exitp" \
	    $mode 2>/dev/null)
	if [ $rc -eq $sh_want ]; then
		ok monrun_exit_${mode}_shell_status
	else
		not_ok monrun_exit_${mode}_shell_status "\$? $rc, want $sh_want"
	fi
done

# SIGTERM from outside, while the program waits: monrun's pid is the
# program's (monrun execs it), so the signal goes straight to it.
mkdir -p "$T/kill"
(cd "$T/kill" && exec "$T/waitp" "$MONRUN" "$T/exitp" wait 0.2 "$T/kill/ready") >"$T/kill.st" &
waiter=$!
i=0
while [ ! -e "$T/kill/ready" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
pid=$(cat "$T/kill/ready" 2>/dev/null)
if [ -n "$pid" ] && kill -TERM "$pid"; then
	wait $waiter
	got=$(cat "$T/kill.st")
	if [ "$got" = "killed 15" ]; then
		ok monrun_exit_sigterm_from_outside_status
	else
		not_ok monrun_exit_sigterm_from_outside_status "'$got'"
	fi
else
	not_ok monrun_exit_sigterm_from_outside_status "program not found running (ready after ${i}x0.1 s)"
	kill $waiter 2>/dev/null
	wait $waiter
fi
profile_ok monrun_exit_sigterm_from_outside_profile_written "$T/kill/mon.out"
