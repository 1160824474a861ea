#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Call stacks kept on a run with many distinct stacks (issue 22, item 6):
# tests/progs/stacks_many.c (a random recursion through eight functions: nearly
# every sample a new stack) for SECONDS of CPU at RATE Hz under monrun,
# as before issue 22 (one table of 16384 stacks that never grows:
# MONPROF_STACK_TABLE=16384, no control thread), with plain monrun's
# default now (the chain of tables mapped at the start, up to 4194304
# stacks; a tick that finds one full moves to the next) and with --control
# (the tables grown by the control thread up to 4194304).  Prints the samples, the stacks kept and the share lost.
# Usage: sh bench/stacks_growth.sh [BUILD] [SECONDS] [RATE]
. "$(dirname "$0")/lib.sh" "${1:-build}"
S=${2:-20}
RATE=${3:-4000}
T=$W
cc -O2 -fno-omit-frame-pointer -o "$T/many" "$ROOT/tests/progs/stacks_many.c" || exit 1
cc -O1 -I"$ROOT/format" -o "$T/mon_dump" "$ROOT/tests/progs/mon_dump.c" "$ROOT"/format/*.c || exit 1
for table in fixed16384 plain grown; do
	case $table in
	grown) "$B/bin/monrun" --control -r "$RATE" -o "$T/$table.out" "$T/many" "$S" >/dev/null ;;
	plain) "$B/bin/monrun" -r "$RATE" -o "$T/$table.out" "$T/many" "$S" >/dev/null ;;
	*) MONPROF_STACK_TABLE=16384 "$B/bin/monrun" -r "$RATE" -o "$T/$table.out" "$T/many" "$S" \
	       >/dev/null ;;
	esac
	"$T/mon_dump" "$T/$table.out" stacks 0 0 |
	    awk -v t="$table" '{ printf "table %-11s entries %s samples %s lost %s: %.2f %% of the samples lost\n",
		t, $4, $6, $8, 100 * $8 / ($6 + $8) }'
done
