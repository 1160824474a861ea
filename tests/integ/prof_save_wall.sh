#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# prof --output sums the wall-clock samples of a series (issue 22: "a
# series of intervals reads as one profile, equal to the sum of its
# intervals"): tests/progs/wall_interval.c under PROFDIR=DIR monrun
# --interval=1 --wall=200 for four interval files (as wall_interval.sh),
# then prof --output=sum.mon DIR.
#   prof_save_wall_run      exit 0, four interval files with a WALL record,
#                           prof --output exit 0 and "4 profiles summed"
#   prof_save_wall_head     sum.mon's WALL header: rounds, missed, sampler
#                           user and system CPU, lost, threads not listed
#                           and elapsed (one process: its intervals follow
#                           each other) the sums of the four files'
#   prof_save_wall_threads  one THREAD entry per tid: expected, taken and
#                           unreadable the sums of the files', first the
#                           earliest, last the latest
#   prof_save_wall_samples  the sample entries: per (tid, state, syscall,
#                           stack) the files' counts summed, each key once
#   prof_save_wall_prof     prof --sample=wall --format=folded of sum.mon:
#                           the blocked samples' stacks (ending in their
#                           system call) exactly those of DIR, the steady
#                           thread's in steady_wait among them (running
#                           samples are placed on the whole
#                           run's CPU stacks, in DIR on each interval's:
#                           they may move between stacks)
#   prof_seq_window         --from=#2 --to=#3 (sequence numbers, INTERVAL's)
#                           reads as prof -m of files 2 and 3 (folded wall
#                           and CSV CPU views identical, fewer samples than
#                           all), with "2 of the 4 profiles ... left out";
#                           --from=#4 alone as -m of file 4
#   prof_seq_base_window    --base-from=#1 --base-to=#1 --from=#4 as
#                           --base=FILE1 -m FILE4
#   prof_series_summary     prof -s of the series: "4 files of 1 process"
#                           (it said "4 processes")
#   prof_seq_syntax         --from=#0 refused in one line; --from=0 still a
#                           time (every file)
# Mutations (tools/prof/save.c): the header's rounds not summed (the last
# file's kept) fails _head; a thread's taken not summed when its entries
# merge fails _threads; a sample key's counts not summed fails _samples
# and _prof.  tools/prof/main.c not checking --to=#N (only --from's
# bound) fails _seq_window.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wall_lib.inc"

build_wall_dump
$CC -O1 -g -o "$T/wi" "$ROOT/tests/progs/wall_interval.c" -lpthread
nm -n --defined-only "$T/wi" >"$T/wi.nm"
D=$T/d
mkdir -p "$D"
PROFDIR=$D timeout 120 "$B/bin/monrun" --interval=1 --wall=200 "$T/wi" "$D" 4 exit \
	>"$T/out" 2>"$T/err"
rc=$?
cat "$T/out" "$T/err"
ls "$D" | grep -E '\.wi\.i[0-9]*\.[0-9]*T[0-9]*Z(\.exec[0-9]+)?$' | sort >"$T/files"
n=0
: >"$T/all.txt"
for f in $(cat "$T/files"); do
	n=$((n + 1))
	"$T/wall_dump" "$D/$f" "$T/wi.nm" >"$T/f$n.txt" 2>&1
	sed "s/^/$n /" "$T/f$n.txt" >>"$T/all.txt"
done
nwall=$(grep -c '^[0-9]* wall 1 ' "$T/all.txt")
timeout 300 "$B/bin/prof" --output="$T/sum.mon" "$T/wi" "$D" >"$T/save.out" 2>"$T/save.err"
src=$?
cat "$T/save.out" "$T/save.err"
"$T/wall_dump" "$T/sum.mon" "$T/wi.nm" >"$T/sum.txt" 2>&1
grep -v ' sample \| wait ' "$T/all.txt"
grep -v '^sample \|^wait ' "$T/sum.txt"
if [ $rc -eq 0 ] && [ "$n" -eq 4 ] && [ "$nwall" -eq 4 ] && [ $src -eq 0 ] &&
   grep -q 'sum.mon: 4 profiles summed$' "$T/save.err"; then ok prof_save_wall_run
else not_ok prof_save_wall_run "monrun exit $rc, $n interval files, $nwall with WALL; prof --output exit $src: $(head -c 300 "$T/save.err")"; fi

# The header: each counter of sum.mon against the files' sum.
want=$(awk '$2 == "wall" { for (i = 7; i <= 19; i += 2) s[i] += $i }
	END { printf "rounds %d missed %d elapsed_us %d user_us %d sys_us %d lost %d unlisted %d\n",
		s[7], s[9], s[11], s[13], s[15], s[17], s[19] }' "$T/all.txt")
got=$(awk '$1 == "wall" { printf "rounds %d missed %d elapsed_us %d user_us %d sys_us %d lost %d unlisted %d\n",
		$6, $8, $10, $12, $14, $16, $18 }' "$T/sum.txt")
echo "# header: sum.mon $got; files summed $want"
if [ -n "$got" ] && [ "$got" = "$want" ] && grep -q '^wall 1 rate 200 ' "$T/sum.txt"; then ok prof_save_wall_head
else not_ok prof_save_wall_head "sum.mon: $got; the files: $want"; fi

# Threads: one entry per tid, counts summed, span the union.
want=$(awk '$2 == "thread" { t = $3; e[t] += $7; k[t] += $9; u[t] += $11
		if (!(t in f) || $13 < f[t]) f[t] = $13; if ($15 > l[t]) l[t] = $15 }
	END { for (t in e) printf "%s %d %d %d %d %d\n", t, e[t], k[t], u[t], f[t], l[t] }' "$T/all.txt" | sort)
got=$(awk '$1 == "thread" { printf "%s %d %d %d %d %d\n", $2, $6, $8, $10, $12, $14 }' "$T/sum.txt" | sort)
echo "# threads (tid expected taken unreadable first last): sum.mon"; echo "$got" | sed 's/^/#   /'
echo "# the files summed"; echo "$want" | sed 's/^/#   /'
if [ -n "$got" ] && [ "$got" = "$want" ]; then ok prof_save_wall_threads
else not_ok prof_save_wall_threads "see the two lists above"; fi

# Samples: the same key's counts summed, each key once.
key() { sed 's/ wait [-0-9]* / /' | awk '{ c = $2; $1 = $2 = ""; k[$0] += c } END { for (x in k) print k[x], x }' | sort; }
want=$(awk '$2 == "sample" { $1 = ""; print substr($0, 2) }' "$T/all.txt" | key)
got=$(grep '^sample ' "$T/sum.txt" | key)
dup=$(grep '^sample ' "$T/sum.txt" | sed 's/^sample [0-9]* //' | sort | uniq -d | wc -l)
nk=$(echo "$want" | grep -c .)
echo "# samples: $nk keys in the files, $(grep -c '^sample ' "$T/sum.txt") entries in sum.mon, $dup repeated"
if [ "$nk" -gt 0 ] && [ "$got" = "$want" ] && [ "$dup" -eq 0 ]; then ok prof_save_wall_samples
else not_ok prof_save_wall_samples "$(echo "$want" | head -3) / $(echo "$got" | head -3)"; fi

# prof reads sum.mon as it reads the series: the blocked samples' stacks
# (each sample is in the file) exactly.
# Running and runnable samples (depth 0) are placed on their thread's CPU
# stacks: in the series each interval's, in sum.mon the whole run's, so
# their rows may move between stacks (and folded rounds each row's share;
# _samples checks their counts).
"$B/bin/prof" --sample=wall --format=folded "$T/wi" "$D" 2>/dev/null | sort >"$T/dir.folded"
"$B/bin/prof" --sample=wall --format=folded -m "$T/sum.mon" "$T/wi" 2>/dev/null | sort >"$T/sum.folded"
# A blocked sample's stack ends in its system call's frame ("[read]"); a
# running one placed on a CPU stack in a function, at an address without
# a symbol ("[wi]+0x1020", the PLT: a series once had 2 such rows where
# sum.mon had 1), or "[running]", "[runnable]".
blocked() {
	awk '{ st = $0; sub(/ [0-9]+$/, "", st); n = split(st, fr, ";"); leaf = fr[n]
		if (leaf ~ /^\[[^]]*\]$/ && leaf != "[running]" && leaf != "[runnable]") print }' "$1"
}
total() { awk '{ n += $NF } END { print n + 0 }' "$1"; }
nb=$(blocked "$T/dir.folded" | awk '{ n += $NF } END { print n + 0 }')
nsw=$(blocked "$T/dir.folded" | awk 'index($0, "steady_wait") { n += $NF } END { print n + 0 }')
echo "# folded: $(total "$T/dir.folded") samples in DIR's, $(total "$T/sum.folded") in sum.mon's; $nb blocked (in a system call), $nsw of them in steady_wait"
blocked "$T/dir.folded" >"$T/dir.blocked"
blocked "$T/sum.folded" >"$T/sum.blocked"
if ! cmp -s "$T/dir.blocked" "$T/sum.blocked"; then
	not_ok prof_save_wall_prof "blocked stacks differ: $(diff "$T/dir.blocked" "$T/sum.blocked" | head -8 | tr '\n' ' ')"
elif [ "$nsw" -eq 0 ]; then
	wall_san_not_ok prof_save_wall_prof "no blocked stack reaches steady_wait" "the sanitizer's interceptors (nanosleep, pthread_cond_wait) are built with frame pointers, and a blocked thread's walk starts from the SP and PC /proc gives, without its frame pointer, so it ends in them"
else
	ok prof_save_wall_prof
fi

# --from=#N --to=#N: the intervals of those sequence numbers (INTERVAL's).
f2=$(sed -n 2p "$T/files") f3=$(sed -n 3p "$T/files") f4=$(sed -n 4p "$T/files")
for fmt in folded csv; do
	"$B/bin/prof" --sample=wall --format=$fmt --from=#2 --to=#3 "$T/wi" "$D" >"$T/w23.$fmt" 2>"$T/w23.err"
	"$B/bin/prof" --sample=wall --format=$fmt -m "$D/$f2" -m "$D/$f3" "$T/wi" >"$T/m23.$fmt" 2>/dev/null
	"$B/bin/prof" --format=$fmt --from=#4 "$T/wi" "$D" >"$T/w4.$fmt" 2>/dev/null
	"$B/bin/prof" --format=$fmt -m "$D/$f4" "$T/wi" >"$T/m4.$fmt" 2>/dev/null
done
cat "$T/w23.err"
n23=$(awk '{ n += $NF } END { print n + 0 }' "$T/m23.folded")
nall=$(awk '{ n += $NF } END { print n + 0 }' "$T/dir.folded")
echo "# --from=#2 --to=#3: $(awk '{ n += $NF } END { print n + 0 }' "$T/w23.folded") wall samples, prof -m of files 2 and 3: $n23, of all: $nall"
if [ "$n23" -gt 0 ] && [ "$n23" -lt "$nall" ] && cmp -s "$T/w23.folded" "$T/m23.folded" &&
   cmp -s "$T/w23.csv" "$T/m23.csv" && [ -s "$T/m4.csv" ] && cmp -s "$T/w4.csv" "$T/m4.csv" &&
   cmp -s "$T/w4.folded" "$T/m4.folded" &&
   grep -q '^prof: 2 of the 4 profiles read lie outside --from/--to' "$T/w23.err"; then
	ok prof_seq_window
else
	not_ok prof_seq_window "$(diff "$T/w23.folded" "$T/m23.folded" | head -4 | tr '\n' ' ') $(diff "$T/w4.csv" "$T/m4.csv" | head -4 | tr '\n' ' ')"
fi
# --base-from=#N --base-to=#N: the base's window by sequence numbers too
# (it said "not a time").  File 4 against file 1 as both given with -m.
f1=$(sed -n 1p "$T/files")
"$B/bin/prof" --format=csv --base="$D" --base-from=#1 --base-to=#1 --from=#4 "$T/wi" "$D" \
	>"$T/b41.csv" 2>"$T/b41.err"
brc=$?
"$B/bin/prof" --format=csv --base="$D/$f1" -m "$D/$f4" "$T/wi" >"$T/m41.csv" 2>/dev/null
if [ $brc -eq 0 ] && [ -s "$T/m41.csv" ] && cmp -s "$T/b41.csv" "$T/m41.csv"; then
	ok prof_seq_base_window
else
	not_ok prof_seq_base_window "exit $brc: $(head -c 200 "$T/b41.err") $(diff "$T/b41.csv" "$T/m41.csv" | head -4 | tr '\n' ' ')"
fi
# prof -s of one process's series: its files are not processes.
"$B/bin/prof" -s "$T/wi" "$D" >/dev/null 2>"$T/s.err"
if grep -q "^elapsed: .*from the first file's start .* 4 files of 1 process," "$T/s.err"; then
	ok prof_series_summary
else
	not_ok prof_series_summary "$(grep elapsed "$T/s.err")"
fi
# Not a number, and a time still a time.
"$B/bin/prof" --from=#0 "$T/wi" "$D" >/dev/null 2>"$T/bad.err"; rc=$?
"$B/bin/prof" --format=csv --from=0 "$T/wi" "$D" >"$T/t0.csv" 2>/dev/null
"$B/bin/prof" --format=csv "$T/wi" "$D" >"$T/all.csv" 2>/dev/null
if [ $rc -ne 0 ] && grep -q "^prof: --from=#0: not an interval's number (#N, N from 1)$" "$T/bad.err" &&
   [ -s "$T/all.csv" ] && cmp -s "$T/t0.csv" "$T/all.csv"; then ok prof_seq_syntax
else not_ok prof_seq_syntax "exit $rc: $(head -c 200 "$T/bad.err")"; fi
