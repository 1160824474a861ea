#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# monrun on an interpreter from the machine: python3 running a short
# CPU-bound script.  The report must name the interpreter's own functions
# (_PyEval_EvalFrameDefault, the bytecode loop) in python3 or libpython, and
# those objects must hold most of the time.  Skipped where no python3
# executable is installed (a fresh Debian 12 has none); a python3 on PATH
# that is a wrapper script (pyenv's shim) is passed over for the ELF
# interpreter, since monrun profiles what it execs, not what that execs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"

is_elf() { [ -f "$1" ] && [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]; }
py=
for c in /usr/bin/python3 /usr/local/bin/python3 "$(command -v python3 2>/dev/null)"; do
	[ -n "$c" ] || continue
	r=$(readlink -f "$c")
	if is_elf "$r"; then py=$r; break; fi
done
if [ -z "$py" ]; then
	for n in runs names_eval_loop interpreter_holds_time; do
		ok "monrun_python_$n # skip python3 missing"
	done
	exit 0
fi

cat >"$T/busy.py" <<'PY'
import time

def work(limit):
    s = 0
    while time.process_time() < limit:
        for k in range(20000):
            s += k * k % 7
    return s

print(work(0.6))
PY
mkdir -p "$T/run"
if (cd "$T/run" && "$MONRUN" "$py" "$T/busy.py" >/dev/null); then
	ok monrun_python_runs
else
	not_ok monrun_python_runs "exit $? ($py)"
fi
prof_csv "$T/run/mon.out" "$T/py.csv" || not_ok monrun_python_prof_reads "$(cat "$T/py.csv.err")"
obj=$(object_of "$T/py.csv" _PyEval_EvalFrameDefault)
case $obj in
*python3*|*libpython3*) ok monrun_python_names_eval_loop ;;
*) not_ok monrun_python_names_eval_loop "object '$obj'; top of report:
$(head -n 8 "$T/py.csv")" ;;
esac
# Most samples are in the interpreter (python3 or libpython), named or not.
if csv_awk -F, 'NR > 1 { t += $8; if ($3 ~ /python3/) p += $8 }
    END { exit !(t > 0 && p >= 0.7 * t) }' "$T/py.csv"; then
	ok monrun_python_interpreter_holds_time
else
	not_ok monrun_python_interpreter_holds_time "$(head -n 8 "$T/py.csv")"
fi
