#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A Go program with cgo and goroutines under monrun (tests/progs/go_cgo):
#   - it runs to its end, exit 0: the ticks go to the alternate signal stack
#     of Go's threads, never onto a goroutine's stack (lib/sigguard.c,
#     mon_sig_onstack_all, on finding Go's build ID note, lib/objects.c);
#     before, 4 runs in 4 crashed ("unexpected return pc", "split stack
#     overflow": the tick's signal frame overwrote the next goroutine's
#     stack), with every clock;
#   - its profile, taken by interval (Go's runtime ends the process with the
#     exit_group system call itself, which no library sees: monrun says so),
#     has the Go function and the C function the goroutines spend their
#     time in (c_burn, or cgo's wrapper it is inlined in), each at least a
#     tenth of the samples;
#   - runtime.asyncPreempt, where Go's preemption handler sends a
#     goroutine, has at most 1 % of the samples: a tick that handler held
#     is charged to the code it interrupted;
#   - the goroutines' stacks are whole: they end at runtime.goexit, where
#     Go's own traceback ends (tools/prof/attribute.c, go_stack_root);
#   - without --interval, monrun takes the profile by interval itself
#     (--interval=1, tools/monrun/monrun.c: the executable's Go note) and
#     says so; `prof PROGRAM DIR` reads the series and says its last
#     interval is missing (intervals-unfinished; before: no profile at all,
#     only the watcher's word that none was written, then a series that
#     prof took for whole, "101 % of the user CPU");
#   - a Go program without cgo (static, CGO_ENABLED=0; or dynamic through
#     -linkmode=external, without runtime/cgo), whose runtime makes its
#     threads and handlers with system calls past libmon, is refused by
#     monrun with its own message, exit 126 (before: run, and nothing or
#     C's advice "-pg -lmon");
#   - a C program that loads a Go library (tests/progs/go_cshared,
#     -buildmode=c-shared) whose goroutines spin runs to its end, exit 0,
#     with the library linked (Go's runtime there when profiling starts:
#     its build ID note, found at the start) and with it opened by dlopen
#     (found after the dlopen, lib/objhist.c); Go's runtime there sets no
#     handler on the clock's signal, so only the note tells; the profile
#     (the C program's exit writes it) has goSpin for at least half the
#     samples, its stacks whole.  Before, both crashed 3 runs in 3.
# With the per-thread clocks, perf where the kernel allows it and thread
# (Go's runtime installs a SIGPROF handler of its own, which takes the
# itimer clock's signal).  Skipped without Go (Debian's golang-go) and in
# the sanitizer builds (Go's threads are not the sanitizer runtime's).
# Mutations caught: monrun not reading the Go note: no interval files,
# monrun_go_interval_by_itself fails; the LAST flag not read by prof: no
# intervals-unfinished warning, the same; pthread_create looked for as a
# whole string (the linker shares it as "_cgo_try_pthread_create"'s tail):
# every cgo program refused; mon_sig_injected_call never given asyncPreempt's
# address (threads.c): monrun_go_preempt_not_charged_thread fails (8-20 % of
# the samples there); the note not looked for at the start (threads.c): the
# linked library's host crashes; nor after dlopen (objhist.c): the other
# host crashes; Go's note name compared with its length counted as the C
# string's (Go's linker pads it): both; the dispatcher never SA_ONSTACK:
# all crash; go_stack_root answering 0: every goroutine stack
# "[truncated]".  Time limit: each run under timeout 120.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"

if ! command -v go >/dev/null 2>&1; then
	ok "monrun_go # skip no Go compiler (Debian: golang-go)"
	exit 0
fi
case $CC in *-fsanitize=*)
	ok "monrun_go # skip sanitizer build: a Go program's threads are not the sanitizer runtime's"
	exit 0 ;;
esac
cd "$T" || exit 1
unset PROFDIR MONPROF_OUT
gobuild() {
	_d=$1; shift
	(cd "$_d" && env GOCACHE="$T/gocache" GOPATH="$T/gopath" GOFLAGS= GOTOOLCHAIN=local \
	    GO111MODULE=on CGO_ENABLED=1 CC=cc timeout 300 go build "$@") >build.log 2>&1
}
cp -r "$ROOT/tests/progs/go_cgo" src && chmod -R u+w src
if ! gobuild src -o "$T/goprog" .; then
	not_ok monrun_go_build "$(head -c 600 build.log)"
	exit 0
fi

cp -r "$ROOT/tests/progs/go_pure" puresrc && chmod -R u+w puresrc
if (cd puresrc && env GOCACHE="$T/gocache" GOPATH="$T/gopath" GOFLAGS= GOTOOLCHAIN=local \
    GO111MODULE=on CGO_ENABLED=0 timeout 300 go build -o "$T/gopure" .) >build.log 2>&1 &&
    gobuild puresrc -ldflags=-linkmode=external -o "$T/gopure_ext" .; then
	for p in gopure gopure_ext; do
		timeout 60 "$MONRUN" "./$p" >"run.$p" 2>"err.$p"
		rc=$?
		if [ $rc -eq 126 ] && grep -q 'Go program built without cgo' "err.$p" && [ ! -s "run.$p" ]; then
			ok "monrun_go_refuses_${p}"
		else
			not_ok "monrun_go_refuses_${p}" "exit $rc: $(head -c 300 "err.$p")"
		fi
	done
else
	not_ok monrun_go_pure_build "$(head -c 600 build.log)"
fi
cp -r "$ROOT/tests/progs/go_cshared" libsrc && chmod -R u+w libsrc
if gobuild libsrc -buildmode=c-shared -o "$T/libgocs.so" . &&
    cc -O1 -g -o host_dl "$ROOT/tests/progs/go_cshared_host.c" -ldl &&
    cc -O1 -g -DLINKED -o host_ln "$ROOT/tests/progs/go_cshared_host.c" -ldl -L"$T" -Wl,--no-as-needed \
	-lgocs -Wl,-rpath,"$T"; then
	lib_ok=1
else
	lib_ok=0
	not_ok monrun_go_cshared_build "$(head -c 600 build.log)"
fi

for c in perf thread; do
	rm -rf "out.$c" && mkdir "out.$c"
	timeout 120 "$MONRUN" -c $c --interval=1 -o "out.$c/mon.out" ./goprog 2.5 >"run.$c" 2>"err.$c"
	rc=$?
	if [ $rc -ne 0 ]; then
		not_ok "monrun_go_runs_$c" "exit $rc: $(head -c 600 "err.$c")"
		continue
	fi
	ok "monrun_go_runs_$c"
	n=$(ls "out.$c" | grep -c '\.goprog\.i[0-9]')
	"$PROF" --format=csv ./goprog out.$c/*.goprog.i* >"csv.$c" 2>"warn.$c"
	all=$(csv_awk -F, 'NR > 1 { s += $8 } END { printf "%d", s }' "csv.$c")
	go_k=$(ticks "csv.$c" main.goSpin)
	# c_burn itself, or cgo's wrapper _cgo_HASH_Cfunc_c_burn it was inlined in
	c_k=$(csv_awk -F, '$1 == "c_burn" || $1 ~ /_Cfunc_c_burn$/ { s += $8 } END { printf "%d", s }' "csv.$c")
	echo "# $c: $n interval files; main.goSpin $go_k, c_burn $c_k of $all samples"
	if [ "$n" -ge 1 ] && awk -v g="$go_k" -v k="$c_k" -v a="$all" \
	    'BEGIN { exit !(a >= 50 && g >= a / 10 && k >= a / 10) }'; then
		ok "monrun_go_profiled_$c"
	else
		not_ok "monrun_go_profiled_$c" "$(head -n 6 "csv.$c" | tr '\n' '|') $(head -c 300 "warn.$c")"
	fi
	# A tick held behind Go's preemption handler (which blocks every
	# signal) lands on asyncPreempt's first instruction: it is charged
	# to the code the handler interrupted (sigguard.c
	# tick_before_injected).  Before, 8-20 % of the samples under the
	# thread clock, 0.4 % under perf's (so the perf clock's check held
	# before too: the thread clock's is the one the mutation fails).
	ap=$(csv_awk -F, '$1 == "runtime.asyncPreempt.abi0" || $1 == "runtime.asyncPreempt" { s += $8 } END { printf "%d", s }' "csv.$c")
	echo "# $c: runtime.asyncPreempt $ap of $all samples"
	if [ "$all" -ge 50 ] && [ $((ap * 100)) -lt "$all" ]; then
		ok "monrun_go_preempt_not_charged_$c"
	else
		not_ok "monrun_go_preempt_not_charged_$c" "runtime.asyncPreempt has $ap of $all samples (1 % at most)"
	fi
	grep -q 'exit_group' "err.$c" && ok "monrun_go_end_explained_$c" ||
		not_ok "monrun_go_end_explained_$c" "$(head -c 400 "err.$c")"
	"$PROF" --format=folded ./goprog out.$c/*.goprog.i* >"fold.$c" 2>/dev/null
	whole=$(grep -c '^runtime\.goexit[.a-z0-9]*;.*main\.goSpin [0-9]*$' "fold.$c")
	cut=$(grep 'main\.goSpin [0-9]*$' "fold.$c" | grep -vc '^runtime\.goexit')
	if [ "$whole" -gt 0 ] && [ "$cut" -eq 0 ]; then
		ok "monrun_go_goroutine_stacks_whole_$c"
	else
		not_ok "monrun_go_goroutine_stacks_whole_$c" "$whole whole, $cut not: $(grep 'main\.goSpin' "fold.$c" | head -n 3 | tr '\n' '|')"
	fi
		# No --interval: monrun takes the profile by interval itself, says
	# so, and prof reads the series from the directory.
	if [ $c = perf ]; then
		rm -rf auto && mkdir auto
		(cd auto && timeout 120 "$MONRUN" -c $c ../goprog 2.5 >run 2>err)
		rc=$?
		"$PROF" ./goprog auto >auto.txt 2>auto.err
		if [ $rc -eq 0 ] && grep -q 'Go program.*--interval=1' auto/err &&
		    grep -q ' main\.goSpin$' auto.txt && grep -q 'not its last interval' auto.err; then
			ok monrun_go_interval_by_itself
		else
			not_ok monrun_go_interval_by_itself "exit $rc: $(head -c 400 auto/err) $(ls auto | head -n 3 | tr '\n' ' ') $(head -c 300 auto.err)"
		fi
	fi
[ $lib_ok = 1 ] || continue
	for h in host_ln host_dl; do
		rm -f "$h.mon"
		timeout 120 "$MONRUN" -c $c -o "$h.mon" "./$h" "$T/libgocs.so" 1.5 >"run.$h.$c" 2>"err.$h.$c"
		rc=$?
		if [ $rc -ne 0 ]; then
			not_ok "monrun_go_cshared_runs_${h}_$c" "exit $rc: $(head -c 600 "err.$h.$c")"
			continue
		fi
		ok "monrun_go_cshared_runs_${h}_$c"
		"$PROF" -m "$h.mon" --format=folded "./$h" >"fold.$h.$c" 2>/dev/null
		all=$(awk '{ s += $NF } END { printf "%d", s }' "fold.$h.$c")
		spin=$(awk '/main\.goSpin [0-9]*$/ { s += $NF } END { printf "%d", s }' "fold.$h.$c")
		whole=$(awk '/^runtime\.goexit[.a-z0-9]*;.*main\.goSpin [0-9]*$/ { s += $NF } END { printf "%d", s }' "fold.$h.$c")
		echo "# $c $h: main.goSpin $spin of $all samples, $whole of them from runtime.goexit"
		if awk -v s="$spin" -v a="$all" -v w="$whole" 'BEGIN { exit !(a >= 50 && s >= a / 2 && w == s) }'; then
			ok "monrun_go_cshared_profiled_${h}_$c"
		else
			not_ok "monrun_go_cshared_profiled_${h}_$c" "$(sort -t' ' -k2 -n "fold.$h.$c" | tail -n 3 | tr '\n' '|')"
		fi
	done
done
