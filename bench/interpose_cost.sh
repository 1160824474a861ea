#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/interpose_cost.sh — the runtime's price outside ticks, per call
# (issue 25, item 1): each interposed function's added time and added
# system calls, and the per-thread and per-process starts, unprofiled
# against `monrun -r RATE`, alternating, ROUNDS rounds (median of the
# rounds' medians; bench/interpose_cost.c says what each operation does).
# System calls per call come from the kernel's own count
# (perf stat -e raw_syscalls:sys_enter, root), as the difference between N
# calls and none, so monrun's start and the exit's write cancel out.
#   sh bench/interpose_cost.sh [BUILD_DIR] [ROUNDS] [RATE]
set -u
. "$(dirname "$0")/lib.sh"
ROUNDS=${2:-5}
RATE=${3:-1000}
$CC -O2 -g -o "$W/ic" "$BENCH/interpose_cost.c" -ldl -lpthread || die "cannot build interpose_cost"
cd "$W" || exit 1
r=1
while [ "$r" -le "$ROUNDS" ]; do
	./ic >"plain.$r" || die "plain run failed"
	"$MONRUN" -r "$RATE" -o "M.$r" ./ic >"mon.$r" || die "monrun run failed"
	r=$((r + 1))
done
med() {	# med FILES...: "NAME median" over the files' "NAME NS" lines
	cat "$@" | sort -k1,1 -k2,2n | awk '
		{ v[$1, ++n[$1]] = $2; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
		END { for (i = 1; i <= k; i++) { o = order[i]; m = n[o]
			print o, (m % 2) ? v[o, (m + 1) / 2] : (v[o, m / 2] + v[o, m / 2 + 1]) / 2 } }'
}
med plain.* | sort >P
med mon.* | sort >M
have_perf=0
if command -v perf >/dev/null 2>&1 && [ "$(id -u)" = 0 ] &&
	perf stat -e raw_syscalls:sys_enter -x, -- true >/dev/null 2>&1; then
	have_perf=1
fi
calls() {	# calls CMD...: system calls the command tree entered
	perf stat -e raw_syscalls:sys_enter -x, -o S -- "$@" >/dev/null 2>&1
	awk -F, '/raw_syscalls/ { print $1 }' S
}
echo "== the runtime's price per call (ns, median of $ROUNDS rounds; monrun -r $RATE)"
printf '%-30s %10s %10s %10s %8s %8s\n' operation plain monrun added calls calls+
join P M | while read -r op p m; do
	sc=- scm=-
	if [ "$have_perf" = 1 ]; then
		n=2000
		case $op in pthread_create*) n=200 ;; fork*) n=20 ;; esac
		b0=$(calls ./ic "$op" 0) b1=$(calls ./ic "$op" "$n")
		m0=$(calls "$MONRUN" -r "$RATE" -o S0 ./ic "$op" 0)
		m1=$(calls "$MONRUN" -r "$RATE" -o S1 ./ic "$op" "$n")
		sc=$(awk -v a="$b0" -v b="$b1" -v n="$n" 'BEGIN { printf "%.2f", (b - a) / n }')
		scm=$(awk -v a="$m0" -v b="$m1" -v c="$b0" -v d="$b1" -v n="$n" \
			'BEGIN { printf "%+.2f", ((b - a) - (d - c)) / n }')
	fi
	awk -v o="$op" -v p="$p" -v m="$m" -v s="$sc" -v t="$scm" \
		'BEGIN { printf "%-30s %10.1f %10.1f %+10.1f %8s %8s\n", o, p, m, m - p, s, t }'
done
echo "(calls: system calls per call unprofiled; calls+: added under monrun)"
