#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/soak.sh [BUILD] [SECONDS] — a long run at 1 kHz with interval files
# and rotation (issue 22, item 8).  Not part of make check.
#
# bench/soak_work.c (built -pg: call counts; threads starting and ending;
# a few thousand distinct stacks; about 4 x 5 % of one CPU) runs for
# SECONDS (default 3600) under
#   monrun -r 1000 --interval=10 --keep=KEEP --max-bytes=MAXB
# (KEEP default 60, MAXB default 6M: about 15 files of ~400 KB, so the
# byte bound is the one that removes files).  While it runs:
#   - every second, the directory's bytes (du -sb, temporary files included);
#   - every 10 s, the process's VmRSS and RssAnon (/proc/PID/status), its
#     Pss (smaps_rollup), the resident bytes of libmon.so's own mappings
#     (smaps; the runtime's anonymous mappings have no name and are inside
#     RssAnon), its thread count, and the monprof-ctl thread's CPU
#     (/proc/PID/task/TID/schedstat, nanoseconds);
#   - each interval file as it appears: its size, whether it reads
#     (tests/progs/mon_dump.c, exit 0), its samples and the control
#     thread's CPU so far that it records (its INTERVAL record): the
#     difference from the file before is that interval's cost.
# Then a table per sixth of the run (ten minutes of an hour) and PASS/FAIL:
#   rss:  RSS growth from the second sixth to the last 5 min of the run
#         (medians over 5 min) <= max(1 MiB, 2 %);
#   cost: the median per-interval CPU of the control thread in the last
#         sixth within the first sixth's median + max(3 MAD, 10 %);
#   disk: the directory never above MAXB plus the largest file;
#   read: every file read as it appeared; exit status 0.
# SOAK_OUT=DIR keeps the raw tables (samples.tsv, files.tsv, du.tsv).
. "$(dirname "$0")/lib.sh"
SECS=${2:-3600}
KEEP=${KEEP:-60}
MAXB=${MAXB:-6M}
OUT=${SOAK_OUT:-$W/out}
mkdir -p "$OUT" "$W/p" || die "mkdir"

$CC -O1 -g -pg -o "$W/soak_work" "$BENCH/soak_work.c" -lpthread || die "build soak_work"
$CC -O1 -g -I"$ROOT/format" -o "$W/mon_dump" "$ROOT/tests/progs/mon_dump.c" \
	"$ROOT"/format/*.c || die "build mon_dump"

cleanup() {
	[ -n "$DUPID" ] && kill "$DUPID" 2>/dev/null
	[ -n "$JOB" ] && kill "$JOB" 2>/dev/null
	[ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$W"
}
trap cleanup EXIT

cd "$W" || exit 1
PROFDIR=$W/p "$MONRUN" -r 1000 --interval=10 --keep="$KEEP" --max-bytes="$MAXB" \
	./soak_work "$SECS" 4 50 >"$W/pid" 2>"$W/err" &
JOB=$!
for _i in $(seq 100); do [ -s "$W/pid" ] && break; sleep 0.1; done
PID=$(cat "$W/pid")
[ -n "$PID" ] || die "soak_work did not start: $(cat "$W/err")"
CTL=
for _i in $(seq 50); do
	for t in /proc/"$PID"/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = monprof-ctl ] && CTL=${t##*/}
	done
	[ -n "$CTL" ] && break
	sleep 0.1
done
[ -n "$CTL" ] || die "no monprof-ctl thread in $PID"
T0=$(date +%s)
echo "soak: pid $PID, control thread $CTL, $SECS s, keep $KEEP, max-bytes $MAXB; $(uptime)" >&2

# the directory's bytes every second
(while kill -0 "$PID" 2>/dev/null; do
	printf '%s %s\n' "$(($(date +%s) - T0))" "$(du -sb "$W/p" 2>/dev/null | cut -f1)"
	sleep 1
done) >"$OUT/du.tsv" &
DUPID=$!

printf 't rss_kb anon_kb pss_kb libmon_kb threads ctl_ns files\n' >"$OUT/samples.tsv"
printf 'name bytes readable seq samples ctl_usec\n' >"$OUT/files.tsv"
: >"$W/seen"
scan_files() {
	for f in $(ls "$W/p" 2>/dev/null | grep -E '\.i[0-9]*\.[0-9]*T[0-9]*Z(\.exec[0-9]+)?$' | sort); do
		grep -qx "$f" "$W/seen" && continue
		echo "$f" >>"$W/seen"
		sz=$(stat -c %s "$W/p/$f" 2>/dev/null) || continue
		if "$W/mon_dump" "$W/p/$f" info >"$W/info" 2>&1; then
			awk -v f="$f" -v sz="$sz" '{ v[$1] = $2 } END {
				print f, sz, 1, v["interval_seq"], v["samples"], v["interval_cpu_usec"] }' "$W/info"
		else
			echo "$f $sz 0 - - -"
			cp "$W/p/$f" "$OUT/" 2>/dev/null
		fi
	done >>"$OUT/files.tsv"
}
while kill -0 "$PID" 2>/dev/null; do
	now=$(($(date +%s) - T0))
	st=$(awk '$1 == "VmRSS:" { r = $2 } $1 == "RssAnon:" { a = $2 } $1 == "Threads:" { t = $2 }
		END { print r, a, t }' /proc/"$PID"/status 2>/dev/null)
	pss=$(awk '$1 == "Pss:" { print $2 }' /proc/"$PID"/smaps_rollup 2>/dev/null)
	lib=$(awk '/^[0-9a-f]+-[0-9a-f]+ / { m = ($6 ~ /libmon/) } m && $1 == "Rss:" { s += $2 } END { print s + 0 }' \
		/proc/"$PID"/smaps 2>/dev/null)
	ctl=$(cut -d' ' -f1 /proc/"$PID"/task/"$CTL"/schedstat 2>/dev/null)
	nf=$(ls "$W/p" | grep -cE '\.i[0-9]*\.[0-9]*T[0-9]*Z(\.exec[0-9]+)?$')
	set -- $st
	[ -n "$ctl" ] && printf '%s %s %s %s %s %s %s %s\n' "$now" "$1" "$2" "$pss" "$lib" "$3" "$ctl" "$nf" \
		>>"$OUT/samples.tsv"
	scan_files
	sleep 10
done
wait "$JOB"
RC=$?
scan_files
kill "$DUPID" 2>/dev/null
DUPID=
JOB=
last=$(tail -n 1 "$W/seen")
lastflags=$("$W/mon_dump" "$W/p/$last" info 2>/dev/null | awk '$1 == "interval_flags" { print $2 }')
nleft=$(ls "$W/p" | grep -cE '\.i[0-9]*\.[0-9]*T[0-9]*Z(\.exec[0-9]+)?$')
echo "soak: exit status $RC, $(wc -l <"$W/seen") files written, $nleft left, last $last flags $lastflags; $(uptime)"

python3 - "$OUT" "$SECS" "$MAXB" "$RC" <<'EOF'
import statistics as st, sys
out, secs, maxb, rc = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
mult = {'K': 1024, 'M': 1024**2, 'G': 1024**3}
maxbytes = int(maxb[:-1]) * mult[maxb[-1]] if maxb[-1] in mult else int(maxb)
def rows(name):
    with open(f"{out}/{name}") as f:
        lines = [l.split() for l in f if l.strip()]
    return lines
S = [list(map(int, r)) for r in rows("samples.tsv")[1:]]
F = rows("files.tsv")[1:]
D = [list(map(int, r)) for r in rows("du.tsv") if len(r) == 2]
good = [r for r in F if r[2] == '1']
bad = [r for r in F if r[2] != '1']
# per-interval cost: the control thread's CPU recorded in a file less the one before
cost = []  # (seq, usec, bytes)
prev = None
for r in sorted(good, key=lambda r: int(r[3])):
    seq, cu = int(r[3]), int(r[5])
    if prev is not None and seq == prev[0] + 1:
        cost.append((seq, cu - prev[1], int(r[1])))
    prev = (seq, cu)
sixth = secs / 6
def med(v): return st.median(v) if v else float('nan')
print("%-11s %9s %9s %9s %8s %8s %11s %11s %9s %10s" % ("window (s)", "RSS KiB", "anon KiB",
      "PSS KiB", "libmon", "threads", "ctl ms/10s", "ctl ms/file", "file KB", "dir max KB"))
for k in range(6):
    lo, hi = k * sixth, (k + 1) * sixth
    s = [r for r in S if lo <= r[0] < hi]
    # control thread CPU per 10-s sample, from schedstat
    cs = [(b[6] - a[6]) / 1e6 for a, b in zip(S, S[1:]) if lo <= b[0] < hi]
    c = [x for x in cost if lo <= (x[0] - 1) * 10 < hi]
    d = [r[1] for r in D if lo <= r[0] < hi]
    print("%-11s %9.0f %9.0f %9.0f %8.0f %8.1f %11.2f %11.2f %9.0f %10.0f" % (
        "%d-%d" % (lo, hi), med([r[1] for r in s]), med([r[2] for r in s]), med([r[3] for r in s]),
        med([r[4] for r in s]), med([r[5] for r in s]), med(cs), med([x[1] / 1000 for x in c]),
        med([x[2] / 1000 for x in c]), max(d) / 1024 if d else float('nan')))
# rss: second sixth's first 5 min against the last 5 min
w = min(300, sixth)
a = [r[1] for r in S if sixth <= r[0] < sixth + w]
b = [r[1] for r in S if r[0] >= S[-1][0] - w]
grow = med(b) - med(a)
bound = max(1024, 0.02 * med(a))
print("%s rss: median VmRSS %.0f KiB at %d-%d s, %.0f KiB in the last %d s: %+.0f KiB (bound %.0f KiB); max %d KiB" % (
    "PASS" if grow <= bound else "FAIL", med(a), sixth, sixth + w, med(b), w, grow, bound, max(r[1] for r in S)))
c1 = [x[1] for x in cost if (x[0] - 1) * 10 < sixth]
c6 = [x[1] for x in cost if (x[0] - 1) * 10 >= secs - sixth]
m1, m6 = med(c1), med(c6)
mad = med([abs(x - m1) for x in c1])
cb = max(3 * mad, 0.1 * m1)
print("%s cost: control thread CPU per interval, median %.0f us (MAD %.0f, n %d) first, %.0f us (n %d) last; bound %.0f + %.0f us" % (
    "PASS" if m6 <= m1 + cb else "FAIL", m1, mad, len(c1), m6, len(c6), m1, cb))
big = max(int(r[1]) for r in F)
dmax = max(r[1] for r in D)
print("%s disk: directory at most %d bytes (%d samples); bound max-bytes %d + largest file %d = %d" % (
    "PASS" if dmax <= maxbytes + big else "FAIL", dmax, len(D), maxbytes, big, maxbytes + big))
print("%s read: %d of %d files read as they appeared%s" % ("PASS" if not bad else "FAIL", len(good), len(F),
      "" if not bad else "; unreadable: " + " ".join(r[0] for r in bad)))
print("%s exit: status %d" % ("PASS" if rc == 0 else "FAIL", rc))
tot = S[-1][6] / 1e9
print("control thread CPU in all: %.2f s over %d s (%.3f %% of one CPU)" % (tot, S[-1][0], 100 * tot / max(1, S[-1][0])))
EOF
