#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Static and static-pie executables (issue 21 item 6; glibc's tst-gmon-static,
# tst-gmon-static-pie and tst-profile-static): cc -static -pg with libmon.a
# counts calls and fills the program's histogram, threads are created and
# counted, call stacks reach _start, profil() works in a static program.  A static program has no
# dynamic symbol table: libmon reaches the C library's sigaction,
# pthread_create... through lib/libc_next.c.
# Time limit: each program is run under timeout 60.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mon_helpers.inc"
build_dump || { not_ok build_dump; exit 1; }
cd "$T" || exit 1
unset PROFDIR
libc_a=$($CC -print-file-name=libc.a)
if [ ! -f "$libc_a" ]; then
	ok "static programs # skip no libc.a (the C library's static archive: libc6-dev)"
	exit 0
fi
if nm "$B/lib/libmon.a" 2>/dev/null | grep -q ' U __\(asan\|tsan\|ubsan\)_'; then
	ok "static programs # skip libmon.a is built with sanitizers, whose runtimes cannot be linked statically"
	exit 0
fi
SPIN=40000000
for kind in static static-pie; do
	p=pg-$kind
	# -fno-sanitize=all: make check-sanitize's CC adds sanitizers, whose
	# runtimes cannot be linked statically.
	if ! build_prog_static "$p" mon_calls.c -pg -"$kind" -fno-sanitize=all; then
		not_ok "$p: build"
		continue
	fi
	if readelf -lW "$p" | grep -q 'INTERP\|interpreter'; then
		not_ok "$p: static (no program interpreter)"
	else
		ok "$p: static (no program interpreter)"
	fi
	rm -f mon.out gmon.out
	out=$(timeout 60 ./$p 1234 0 $SPIN 2>&1); rc=$?
	expect "$p: exit status 0" "$rc" 0
	expect "$p: nothing printed" "$out" ""
	[ -f mon.out ] && ok "$p: mon.out written" || not_ok "$p: mon.out written"
	[ ! -e gmon.out ] && ok "$p: no gmon.out" || not_ok "$p: no gmon.out"
	expect "$p: leaf called 1234 times" "$(dump mon.out calls leaf $p)" 1234
	expect "$p: arcs into leaf2" "$(dump mon.out arcs leaf2 $p)" "1234 2"
	# Histogram: spin is most of the CPU the program used.
	set -- $(dump mon.out ticks spin $p)
	if [ "${1:-0}" -gt 0 ] && [ $((2 * ${1:-0})) -ge "${2:-0}" ]; then
		ok "$p: spin's samples in the histogram ($1 of $2)"
	else
		not_ok "$p: spin's samples in the histogram" "${1:-?} of ${2:-?}"
	fi
	# Call stacks reach _start: a static program has no .eh_frame_hdr
	# (PT_GNU_EH_FRAME) here; its .eh_frame is found by the file's section
	# headers (lib/unwind.c).  Without: every stack ended early,
	# "[truncated];__libc_start_call_main;main;..." (a new user's finding).
	"$B/bin/prof" -m mon.out --format=folded ./$p >fold.$kind 2>/dev/null
	set -- $(awk '{ n = $NF; all += n; if ($1 ~ /^_start;/) good += n } END { print all + 0, good + 0 }' fold.$kind)
	if [ "${1:-0}" -ge 10 ] && [ $((${2:-0} * 100)) -ge $((${1:-0} * 95)) ]; then
		ok "$p: stacks reach _start ($2 of $1 samples)"
	else
		not_ok "$p: stacks reach _start" "${2:-?} of ${1:-?}: $(sort -t' ' -k2 -n fold.$kind | tail -n 2 | tr '\n' '|')"
	fi
	# 4 threads: pthread_create is the C library's (libmon's wrapper finds it).
	rm -f mon.out
	out=$(timeout 60 ./$p 20000 4 0 2>&1); rc=$?
	expect "$p 4 threads: exit status 0" "$rc" 0
	expect "$p 4 threads: leaf exactly 4N" "$(dump mon.out calls leaf $p)" 80000
done

# A dynamic program linked without .eh_frame_hdr (ld --no-eh-frame-hdr):
# its .eh_frame is found the same way, the file checked against memory
# (under monrun, /proc/self/exe is the program).
if $CC -O2 -g -fomit-frame-pointer -fno-sanitize=all -Wl,--no-eh-frame-hdr \
    -I"$ROOT/tests/progs" -o nohdr "$ROOT/tests/progs/mcount_stacks.c" &&
   ! readelf -lW nohdr | grep -q GNU_EH_FRAME; then
	rm -f mon.out
	timeout 60 "$B/bin/monrun" ./nohdr >/dev/null 2>&1
	"$B/bin/prof" -m mon.out --format=folded ./nohdr >fold.nohdr 2>/dev/null
	set -- $(awk '{ n = $NF; all += n; if ($1 ~ /^_start;/) good += n } END { print all + 0, good + 0 }' fold.nohdr)
	if [ "${1:-0}" -ge 10 ] && [ $((${2:-0} * 100)) -ge $((${1:-0} * 95)) ]; then
		ok "nohdr: stacks reach _start ($2 of $1 samples)"
	else
		not_ok "nohdr: stacks reach _start" "${2:-?} of ${1:-?}: $(sort -t' ' -k2 -n fold.nohdr | tail -n 2 | tr '\n' '|')"
	fi
else
	ok "nohdr # skip the linker kept .eh_frame_hdr"
fi

# profil() in a static program (tst-profile-static).
if $CC -O1 -g -static -fno-sanitize=all -I"$ROOT/include" -I"$ROOT/tests/progs" -o basic_full \
    "$ROOT/tests/progs/profil_basic.c" "$B/lib/libmon.a" -lm; then
	try "profil in a static program" timeout 60 ./basic_full
else
	not_ok "profil static: build"
fi
