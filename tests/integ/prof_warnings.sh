#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# prof says when the picture is incomplete, by default, on stderr and in
# JSON's "warnings" (issue 12): no samples; samples saturated, dropped,
# lost; profiles of different programs (refused without --merge); a
# gmon.out with rate 0 (read at 100 Hz); and it rejects impossible files:
# a mon.out with rate 0 and samples, or 4-byte addresses holding wider
# ones, and a header-only gmon.out.  -s's summary comes first, so a closed
# pipe cannot lose it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
cd "$T" || exit 1
hex() { printf '%#x' "$1"; }

build_prog_static craft prof_craft.c -I"$ROOT/format" || { not_ok craft_build; exit 1; }
$CC -O1 -g -o pw "$ROOT/tests/progs/prof_work.c" || { not_ok build_pw; exit 1; }
$CC -O2 -g -o pf "$ROOT/tests/progs/prof_funcs.c" || { not_ok build_pf; exit 1; }
aH=$(nm_addr pw heavy)
OBJ0="$T/pw:0:0x1000:0x3000:1:$(build_id pw)"
HIST="-h $(hex "$aH"):$(hex $((aH + 64))):0x8000:16 -b 0:5"

# --- impossible mon.out files -------------------------------------------------
# shellcheck disable=SC2086
./craft r0.mon -r 0 -o "$OBJ0" $HIST
one_line_error mon_rate_zero_rejected 1 \
	"^prof: r0\.mon: impossible: a sampling rate of 0 Hz with 5 samples taken" "$PROF" -m r0.mon
./craft r0c.mon -r 0 -o "$OBJ0" -c "$(hex $((aH + 9))):2"
"$PROF" -m r0c.mon >r0c.out 2>r0c.err && grep -q ' heavy$' r0c.out &&
	ok mon_rate_zero_without_samples_reads || not_ok mon_rate_zero_without_samples_reads "$(cat r0c.err)"
BIG=$((0x555555554000))
# shellcheck disable=SC2086
./craft w.mon -4 -o "$T/pw:$(hex $BIG):$(hex $((BIG + 0x1000))):$(hex $((BIG + 0x3000))):1:$(build_id pw)" \
	-h "$(hex $((BIG + aH))):$(hex $((BIG + aH + 64))):0x8000:16" -b 0:5
one_line_error mon_4byte_wide_rejected 1 \
	"^prof: w\.mon: impossible: 4-byte addresses in the header, but object 0 holds the address 0x5555" \
	"$PROF" -m w.mon
# shellcheck disable=SC2086
./craft n4.mon -4 -o "$OBJ0" $HIST
"$PROF" -m n4.mon >n4.out 2>n4.err && grep -q ' heavy$' n4.out &&
	ok mon_4byte_narrow_reads || not_ok mon_4byte_narrow_reads "$(cat n4.err)"

# --- gmon.out: rate 0, header only ---------------------------------------------
le() {	# VALUE BYTES: little-endian bytes
	le_v=$1 le_i=0
	while [ "$le_i" -lt "$2" ]; do
		# shellcheck disable=SC2059
		printf "\\$(printf '%03o' $((le_v & 255)))"
		le_v=$((le_v >> 8)) le_i=$((le_i + 1))
	done
}
hdr() { printf 'gmon'; le 1 4; le 0 12; }
{ hdr; le 0 1; le "$aH" 8; le $((aH + 64)) 8; le 16 4; le 0 4; printf 'seconds\0\0\0\0\0\0\0\0s'
  le 30 2; i=1; while [ $i -lt 16 ]; do le 0 2; i=$((i + 1)); done; } >r0.gmon
"$PROF" -m r0.gmon --format=json pw >g.csv 2>g.err
if grep -q '^{"schema":"monprof-prof-flat","version":1,"rate_hz":100,"total_ticks":30,"total_seconds":0.3,' g.csv &&
   grep -q '^prof: warning: gmon.out gives a sampling rate of 0 Hz: read at 100 Hz' g.err; then
	ok gmon_rate_zero_read_at_100hz
else not_ok gmon_rate_zero_read_at_100hz "$(cat g.err g.csv)"; fi
hdr >h.gmon
one_line_error gmon_header_only_is_error 1 "^prof: h\.gmon: no records: a gmon.out with only its 20-byte header" \
	"$PROF" -m h.gmon pw

# --- warnings about the samples ----------------------------------------------------
./craft c.mon -o "$OBJ0" -c "$(hex $((aH + 9))):2"
"$PROF" -m c.mon >c.out 2>c.err; rc=$?
"$PROF" -m c.mon --format=json >c.json 2>/dev/null
if [ $rc -eq 0 ] && grep -q '^prof: warning: no samples: ' c.err && ! grep -q warning c.out &&
   grep -q '"warnings":\[{"code":"no-samples","message":"no samples: ' c.json; then
	ok warns_no_samples
else not_ok warns_no_samples "rc=$rc $(cat c.err)"; fi
# shellcheck disable=SC2086
./craft st.mon -o "$OBJ0" $HIST -s 100:10:5:2
"$PROF" -m st.mon >st.out 2>st.err
"$PROF" -m st.mon --format=json >st.json 2>/dev/null
if grep -q '^prof: warning: 5 samples (5.0 % of 100) were not counted: their histogram bins were full (saturated)$' st.err &&
   grep -q '^prof: warning: 10 samples (10.0 % of 100) were dropped: ' st.err &&
   grep -q '^prof: warning: 2 samples (2.0 % of 100) were lost ' st.err &&
   grep -q '"code":"saturated".*"code":"dropped".*"code":"lost"' st.json &&
   ! grep -q warning st.out; then ok warns_saturated_dropped_lost
else not_ok warns_saturated_dropped_lost "$(cat st.err)"; fi
# shellcheck disable=SC2086
./craft ok.mon -o "$OBJ0" $HIST -s 5:0:0:0
"$PROF" -m ok.mon >/dev/null 2>ok.err
[ ! -s ok.err ] && ok no_warning_when_complete || not_ok no_warning_when_complete "$(cat ok.err)"

# --- profiles of different programs ---------------------------------------------------
aF=$(nm_addr pf g_entry)
./craft other.mon -o "$T/pf:0:0x1000:0x3000:1:$(build_id pf)" \
	-h "$(hex "$aF"):$(hex $((aF + 4))):0x8000:1" -b 0:3
# Not summed without --merge: shown by program (prof_merge.sh tests the reports);
# a format of one report refuses, naming --program and --merge.
one_line_error merge_refused 1 \
	"^prof: the files are profiles of 2 programs \($T/pw: 1 file, $T/pf: 1 file\), and --format=csv makes one program's profile \(the text report shows each apart\): choose one with --program=pw or --program=pf, or give --merge to sum them$" \
	"$PROF" -m ok.mon -m other.mon --format=csv
"$PROF" --merge -m ok.mon -m other.mon --format=csv >mg.csv 2>mg.err; rc=$?
if [ $rc -eq 0 ] && [ "$(csv_field mg.csv heavy 8)" = 5.000 ] && [ "$(csv_field mg.csv g_entry 8)" = 3.000 ] &&
   grep -q '^prof: warning: other\.mon is a profile of .*/pf, ok\.mon of .*/pw: summed as asked (--merge)$' mg.err; then
	ok merge_when_asked
else not_ok merge_when_asked "rc=$rc $(cat mg.err)"; fi
"$PROF" -m ok.mon -m ok.mon >/dev/null 2>same.err && [ ! -s same.err ] &&
	ok same_program_sums || not_ok same_program_sums "$(cat same.err)"

# --- -s: first, on stderr, explained ---------------------------------------------------
# A report longer than stdio's buffer into a pipe whose reader is gone:
# prof dies of SIGPIPE at its first write, and the summary must be out by
# then.  (The C library's object lists thousands of functions with -z.)
libc=$(ldd pw | awk '/libc\.so/ { print $3; exit }')
LB=$((0x7f0000000000))
# shellcheck disable=SC2086
./craft big.mon -o "$OBJ0" -o "$libc:$(hex $LB):$(hex $((LB + 0x1000))):$(hex $((LB + 0x200000))):0:$(build_id "$libc")" $HIST
perl -e 'pipe(R, W) or die; close R; open(STDOUT, ">&W") or die; close W; exec @ARGV' \
	"$PROF" -s -z -m big.mon 2>pipe.err
if grep -q '^summary (System V' pipe.err && grep -q 'samples in the histograms' pipe.err; then
	ok summary_survives_closed_pipe
else not_ok summary_survives_closed_pipe "$(cat pipe.err)"; fi
"$PROF" -s -m ok.mon >s.out 2>s.err
if grep -q '^columns: %Time share of all samples; Seconds CPU seconds' s.err &&
   grep -q 'rate 1000 Hz (samples per CPU-second)' s.err &&
   head -1 s.out | grep -q '^ %Time Seconds Cumsecs'; then ok summary_explains_terms
else not_ok summary_explains_terms "$(cat s.err)"; fi

# --- the program took the itimer clock's SIGPROF ------------------------------
# (warn_sigprof installs its own handler, then spins.)  prof names the cause
# and the way out, and does not say the program ran too short.
$CC -O1 -g -I"$ROOT/tests/progs" -o ws "$ROOT/tests/progs/warn_sigprof.c" || not_ok build_ws
MONRUN=$B/bin/monrun
"$MONRUN" -c itimer -o ws.mon ./ws >/dev/null 2>&1
if "$PROF" --format=json -m ws.mon ./ws 2>/dev/null | head -n 1 | grep -q '"clock":"itimer'; then
	"$PROF" -m ws.mon ./ws >ws.out 2>ws.err
	if grep -q "^prof: warning: the program installed its own SIGPROF handler, which the itimer clock needs" ws.err &&
	   grep -q "monrun -c perf, monrun -c thread" ws.err &&
	   grep -q "^prof: warning: [0-9]* samples were lost: periods of CPU after the program took SIGPROF" ws.err &&
	   ! grep -q "than one clock tick" ws.err; then
		ok warn_clock_taken
	else
		not_ok warn_clock_taken "$(cat ws.err)"
	fi
else
	ok "warn_clock_taken # skip the itimer clock is not available here"
fi
