#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/wall_cost.sh [BUILD] — what wall-clock sampling costs (issue 20),
# side by side with the CPU-only profile in one run of this script.
# Workloads (tests/progs/wall_scale.c, THREADS threads blocked for 3 s,
# half in nanosleep, half in a condition wait; tests/progs/wall_truth.c,
# six threads: one on the CPU, five waiting in various ways):
#   blocked64  64 threads at --wall=100
#   blocked8   8 threads at --wall=1000
#   truth      wall_truth at --wall=1000 (one busy thread, one waking every 2 ms)
# For each: the CPU of the whole process under monrun (CPU clock only) and
# under monrun --wall (wait4's rusage), and the sampler's own CPU as the
# WALL record has it (its thread's getrusage), as a share of one CPU over
# the record's elapsed time.  Configurations take turns, RUNS rounds (3);
# the run with the least sampler CPU a round of each is kept (on a loaded machine
# rounds are missed, which lowers the share of one CPU but not the cost a round).  Last, the floor: the CPU of a bare loop
# that sleeps to absolute 1 ms and 10 ms deadlines (clock_nanosleep), what
# any thread waking at that rate costs on this machine.  With BASE=DIR (another
# build directory, e.g. of an earlier commit) every workload also runs under
# DIR's monrun, in the same turns, its rows named NAME@base: before and after
# side by side in one run.  Not part of make check.
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-3}
$CC -O2 -g -o "$W/scale" "$ROOT/tests/progs/wall_scale.c" -lpthread || die "build"
$CC -O2 -g -o "$W/truth" "$ROOT/tests/progs/wall_truth.c" -lpthread || die "build"
$CC -O1 -g -I"$ROOT/format" -o "$W/wall_dump" "$ROOT/tests/progs/wall_dump.c" \
	"$ROOT"/format/monout_read.c "$ROOT"/format/crc32.c "$ROOT"/format/syscalls.c || die "build"
$CC -O2 -o "$W/rusage" "$BENCH/rusage.c" 2>/dev/null || die "build rusage"

# cpu_of CMD...: user+sys seconds of CMD and its children
cpu_of() { "$W/rusage" "$@" 2>&1 >/dev/null | awk 'NF == 3 { printf "%.3f", $1 + $2 }' | tail -n 1; }

run_one() {	# NAME HZ CMD...
	n=$1 hz=$2; shift 2
	if [ -n "${BASE:-}" ]; then
		run_with "$BASE/bin/monrun" "$n@base" "$hz" "$@"
	fi
	run_with "$MONRUN" "$n" "$hz" "$@"
}
run_with() {	# MONRUN NAME HZ CMD... (its own variables: sh has no locals)
	rw_mr=$1 rw_n=$2 rw_hz=$3; shift 3
	c=$(cpu_of "$rw_mr" -o "$W/$rw_n.cpu.mon" "$@")
	w=$(cpu_of "$rw_mr" --wall="$rw_hz" -o "$W/$rw_n.wall.mon" "$@")
	own=$("$W/wall_dump" "$W/$rw_n.wall.mon" | awk '$1 == "wall" {
		printf "%.3f %.2f %d %d %.1f", ($12 + $14) / 1e6, 100 * ($12 + $14) / $10, $6, $8,
			$6 ? ($12 + $14) / $6 : 0 }')
	echo "$rw_n $c $w $own"
}
: >"$W/all"
for r in $(seq "$RUNS"); do
	run_one blocked64 100 "$W/scale" 64 3000 0 >>"$W/all"
	run_one blocked8 1000 "$W/scale" 8 3000 0 >>"$W/all"
	run_one truth 1000 "$W/truth" 3000 >>"$W/all"
done
cat >"$W/tick.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/resource.h>
int main(int argc, char **argv)
{
	long hz = atol(argv[1]), n = 3 * hz;
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	for (long i = 0; i < n; i++) {
		t.tv_nsec += 1000000000L / hz;
		if (t.tv_nsec >= 1000000000L) { t.tv_sec++; t.tv_nsec -= 1000000000L; }
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	double c = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	printf("floor %ld Hz: %.3f CPU-s in 3 s, %.2f %% of one CPU, %.1f us a wake-up\n", hz, c, c / 3 * 100, c / n * 1e6);
	return 0;
}
C
$CC -O2 -o "$W/tick" "$W/tick.c" || die "build tick"
echo "# workload  cpu-only-CPU-s  with-wall-CPU-s  sampler-CPU-s  sampler-%-of-one-CPU  rounds  missed  sampler-us-a-round (least us a round of $RUNS)"
sort -k1,1 -k9,9n "$W/all" | awk '!seen[$1]++'
"$W/tick" 100
"$W/tick" 1000
