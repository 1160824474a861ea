#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Runs every test and prints one closing line "N passed, N failed".
#  - build/tests/unit/*: cmocka programs, run in TAP mode; each test case
#    counts once ("ok" / "not ok"), and a program that ends before its plan
#    says, or fails with no failed case, counts as one more failure.
#  - tests/integ/*.sh: integration scripts; each prints "ok NAME" / "not ok NAME"
#    lines (one per check) or, if it prints none, counts once by its exit status
#    (0 pass, 77 skip, anything else fail).
# Each script's line ends with its wall time ("in S s"), so a slow one is
# found in CI's output.  The FAIL lines are said again just above the
# closing line, where the tail of a long log (all a CI report may keep)
# still shows them.
# Every program and script has a time limit, TEST_TIMEOUT seconds (default
# 900, above the hang guards of unwind.sh (600 s); the slowest script takes
# about 30 s on 2 loaded cores): one that
# hangs is killed with everything it started (timeout(1) signals its whole
# process group: TERM, then KILL 10 s later) and fails once more, by name,
# "timed out after N s"; the run goes on with the next.
B=${B:-build}
export B
LIMIT=${TEST_TIMEOUT:-900}
TMO=
command -v timeout >/dev/null 2>&1 && TMO="timeout -k 10 $LIMIT"
# Did timeout(1) kill it?  124: TERM was enough; 137: KILL was needed.
timed_out() {
	[ -n "$TMO" ] && { [ "$1" -eq 124 ] || [ "$1" -eq 137 ]; }
}
# Every test starts with every signal at its default action, whatever this
# shell inherited (nohup ignores SIGHUP, some CI runners ignore SIGPIPE): the
# tests check what a program sees of its dispositions and how it ends.
DFL=
env --default-signal true 2>/dev/null && DFL="env --default-signal"
pass=0 fail=0 skip=0
log=$B/tests/log
mkdir -p "$log"
failed=$log/failed.txt
: >"$failed"
for t in "$B"/tests/unit/*; do
	[ -x "$t" ] || continue
	n=$(basename "$t")
	out="$log/unit-$n.out"
	# cmocka in TAP mode: a plan "1..N", then "ok K - NAME" / "not ok K - NAME",
	# and "not ok K # SKIP NAME" for a case that called skip(): skipped.
	t0=$(date +%s)
	CMOCKA_MESSAGE_OUTPUT=TAP $TMO $DFL "$t" >"$out" 2>&1
	rc=$?
	dt=$(($(date +%s) - t0))
	to=0
	timed_out $rc && to=1
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$out" | head -n 1)
	p=$(grep -c '^ok ' "$out")
	s=$(grep -c '^not ok [0-9]* # SKIP' "$out")
	f=$(($(grep -c '^not ok ' "$out") - s))
	grep '^not ok ' "$out" | grep -v '^not ok [0-9]* # SKIP' |
		sed "s|^not ok [0-9]* - |FAIL unit/$n: |" | tee -a "$failed"
	grep '^not ok [0-9]* # SKIP' "$out" | sed "s|^not ok [0-9]* # SKIP *|SKIP unit/$n: |"
	# No plan, fewer results than planned (a crash), or a failing exit
	# with no failed case: the program fails once more.
	if [ $to = 1 ]; then
		f=$((f + 1))
		echo "FAIL unit/$n: timed out after $LIMIT s (TEST_TIMEOUT), $((p + f - 1)) of ${plan:-?} results, see $out" | tee -a "$failed"
	elif [ -z "$plan" ] || [ $((p + f + s)) -lt "$plan" ] || { [ $rc -ne 0 ] && [ "$f" -eq 0 ]; }; then
		f=$((f + 1))
		echo "FAIL unit/$n (exit $rc, $((p + f + s - 1)) of ${plan:-?} results, see $out)" | tee -a "$failed"
	fi
	echo "unit/$n: $p passed, $f failed in $dt s"
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
done
for t in tests/integ/*.sh; do
	case $t in */lib.sh) continue ;; esac
	[ -f "$t" ] || continue
	n=$(basename "$t" .sh)
	out="$log/integ-$n.out"
	t0=$(date +%s)
	$TMO $DFL sh "$t" >"$out" 2>&1
	rc=$?
	dt=$(($(date +%s) - t0))
	if timed_out $rc; then
		echo "not ok integ_${n}_time_limit timed out after $LIMIT s (TEST_TIMEOUT)" >>"$out"
	fi
	p=$(grep -c '^ok ' "$out")
	f=$(grep -c '^not ok ' "$out")
	if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
		case $rc in
		0) p=1 ;;
		77)	# the script's own reason ("SKIP why"), on the line
			why=$(sed -n 's/^SKIP *//p' "$out" | head -n 1)
			skip=$((skip + 1)); echo "SKIP integ/$n in $dt s${why:+: $why}"; continue ;;
		*) f=1 ;;
		esac
	elif [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
	fi
	grep '^not ok ' "$out" | sed "s|^|FAIL integ/$n: |" | tee -a "$failed"
	[ "$f" -gt 0 ] && ! grep -q '^not ok ' "$out" && echo "FAIL integ/$n: exit $rc, see $out" | tee -a "$failed"
	[ "$f" -gt 0 ] && { echo "---- $out"; tail -n 30 "$out"; echo "----"; }
	echo "integ/$n: $p passed, $f failed in $dt s"
	pass=$((pass + p)); fail=$((fail + f))
done
if [ -s "$failed" ]; then
	echo "failed, once more:"
	cut -c 1-400 "$failed"
fi
if [ $skip -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
