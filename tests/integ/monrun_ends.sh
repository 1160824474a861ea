#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Every way out writes the profile (lib/fatal.c), and the program cannot
# tell we were there: _exit, _Exit and quick_exit; fork children that end
# with _exit under -f (one file per process); every signal whose default
# action ends the process, also when the program set it back to SIG_DFL
# after profiling started (with sigaction or signal); the status its parent
# sees is the one it has alone; `prog | head -n 1` still ends by SIGPIPE;
# the program sees SIG_DFL where it left the default, its own handlers run
# and are reported back.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"

if build_plain ends monrun_ends.c && build_plain waitp monrun_wait.c &&
    build_plain midw monrun_midwrite.c; then
	ok monrun_ends_build
else
	not_ok monrun_ends_build
fi

# written NAME DATA: DATA reads back and work_spin has samples in it.
written() {
	if [ ! -s "$2" ]; then
		not_ok "$1" "no profile $2"
	elif ! prof_csv "$2" "$T/e.csv" "$T/ends"; then
		not_ok "$1" "prof: $(cat "$T/e.csv.err")"
	elif awk -v k="$(ticks "$T/e.csv" work_spin)" 'BEGIN { exit !(k >= 1) }'; then
		ok "$1"
	else
		not_ok "$1" "work_spin has no sample"
	fi
}

# Under AddressSanitizer the program's SIGSEGV, SIGBUS and SIGFPE are
# ASan's (its own handlers report and exit): nothing of ours to check.
asan_owns() {
	case $CC in *-fsanitize=*address*) ;; *) return 1 ;; esac
	case $1 in sig\ 7|sig\ 8|sig\ 11) return 0 ;; esac
	return 1
}

# same_end NAME ARGS...: the status alone and under monrun agree, and the
# profile is written.
same_end() {
	name=$1; shift
	rm -rf "$T/d" && mkdir -p "$T/d"
	plain=$(cd "$T/d" && "$T/waitp" "$T/ends" "$@" 0.01)
	rm -f "$T/d/mon.out"
	got=$(cd "$T/d" && "$T/waitp" "$MONRUN" "$T/ends" "$@")
	if [ "$got" = "$plain" ] && [ -n "$got" ]; then
		ok "${name}_status"
	else
		not_ok "${name}_status" "under monrun '$got', alone '$plain'"
	fi
	if asan_owns "$*"; then
		ok "${name}_profile # skip AddressSanitizer handles this signal"
	else
		written "${name}_profile" "$T/d/mon.out"
	fi
}

for m in _exit _Exit quick_exit; do
	same_end monrun_ends_$m $m
done

# Signals whose default action ends the process (signal(7)); not SIGIO
# (SIGPOLL), which the perf clock takes for a lost tick (lib/clock.c), nor
# SIGPROF and the real-time signals (the clocks' own).
for s in HUP INT QUIT ILL TRAP ABRT BUS FPE USR1 SEGV USR2 PIPE ALRM TERM STKFLT \
    XCPU XFSZ VTALRM PWR SYS; do
	n=$("$T/ends" signo "$s") || n=
	if [ -z "$n" ]; then
		ok "monrun_ends_sig_$s # skip no such signal here"
		continue
	fi
	same_end monrun_ends_sig_$s sig "$n"
done
# Set back to the default after start, by sigaction and by signal().
for s in TERM USR1 PIPE HUP ALRM XCPU; do
	n=$("$T/ends" signo "$s")
	same_end monrun_ends_reset_sigaction_$s reset "$n"
	same_end monrun_ends_reset_signal_$s reset_signal "$n"
done

# What the program sees of the dispositions, and its own handler.
if (cd "$T" && "$MONRUN" "$T/ends" query 2>"$T/q.err"); then
	ok monrun_ends_program_sees_its_dispositions
else
	not_ok monrun_ends_program_sees_its_dispositions "$(cat "$T/q.err")"
fi

# prog | head -n 1: SIGPIPE kills it as it would alone.
rm -rf "$T/p" && mkdir -p "$T/p"
st=$(cd "$T/p" && { "$MONRUN" "$T/ends" pipe 0.1; echo $? >"$T/p.st"; } | head -n 1 >/dev/null;
     cat "$T/p.st")
if [ "$st" = "$((128 + $("$T/ends" signo PIPE)))" ]; then
	ok monrun_ends_pipe_head_status
else
	not_ok monrun_ends_pipe_head_status "status $st"
fi
written monrun_ends_pipe_head_profile "$T/p/mon.out"

# Fork children that end with _exit under -f: one profile per process.
rm -rf "$T/f" && mkdir -p "$T/f"
if (cd "$T/f" && PROFDIR="$T/f" "$MONRUN" -f "$T/ends" fork_exit 0.1); then
	ok monrun_ends_fork_exit_status
else
	not_ok monrun_ends_fork_exit_status "exit $?"
fi
n=$(ls "$T/f" | grep -c '^[0-9]*\.ends$')
if [ "$n" -eq 3 ]; then ok monrun_ends_fork_exit_three_files; else
	not_ok monrun_ends_fork_exit_three_files "$n files: $(ls "$T/f" | tr '\n' ' ')"; fi
for f in "$T"/f/*.ends; do
	[ -e "$f" ] || continue
	written "monrun_ends_fork_exit_profile_$(basename "$f" | sed 's/[0-9]*/pid/')" "$f"
done

# A signal that arrives while the profile is being written (sent the
# moment the writer's temporary file is open, by monrun_midwrite under
# ptrace: no timing involved) waits until the file is complete, then takes
# its course: a whole mon.out, no temporary file left, killed by it.
for c in "_exit TERM" "_Exit HUP" "quick_exit PIPE"; do
	set -- $c
	rm -rf "$T/mw" && mkdir -p "$T/mw"
	n=$("$T/ends" signo "$2")
	got=$(cd "$T/mw" && "$T/midw" "$n" "$MONRUN" "$T/ends" "$1" 0.1); rc=$?
	if [ $rc -eq 77 ]; then
		ok "monrun_ends_signal_during_write_$1_$2 # skip ptrace not allowed here"
		continue
	fi
	left=$(ls "$T/mw" | grep -c '\.tmp\.')
	if [ "$got" = "killed $n sent" ] && [ "$left" -eq 0 ]; then
		ok "monrun_ends_signal_during_write_$1_$2"
	else
		not_ok "monrun_ends_signal_during_write_$1_$2" "'$got', files: $(ls "$T/mw" | tr '\n' ' ')"
	fi
	written "monrun_ends_signal_during_write_$1_$2_profile" "$T/mw/mon.out"
done

