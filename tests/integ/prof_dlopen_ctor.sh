#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A library whose constructor does the work, loaded by dlopen(3): dlopen
# runs the constructor before it returns, and libmon learns of the library
# only then, so the runtime takes those samples at PCs of no object it
# knows (the PCS record; walks flagged as reaching JIT code).  The file's
# object list at the write holds the library, and prof reads them as its
# (a found case: 100 % of such a run was "[anon]" and "[jit]").
# tests/progs/ctor_dlopen.c loading ctor_plugin.c under monrun:
#   dlopen_ctor_flat      ctor_spin holds at least half the samples its CPU
#                         (0.1 s) stands for, and no row is [anon]
#   dlopen_ctor_said      the stacks-loading warning (callers missing: the
#                         walk stopped in the library), no stacks-jit one
# Mutations: prof's input.c leaving such PCs anonymous: dlopen_ctor_flat
# fails; attribute.c keeping the JIT flag: dlopen_ctor_said fails.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"
cd "$T" || exit 1
build_so libctor.so ctor_plugin.c && build_plain ctor ctor_dlopen.c -ldl ||
	{ not_ok dlopen_ctor_build; exit 0; }
timeout 60 "$MONRUN" -o c.mon "$T/ctor" "$T/libctor.so" >c.out 2>c.err ||
	{ not_ok dlopen_ctor_run "$(cat c.err)"; exit 0; }
cat c.out
prof_csv c.mon c.csv "$T/ctor"
"$PROF" -m c.mon "$T/ctor" >/dev/null 2>c.warn
cat c.warn
k=$(ticks c.csv ctor_spin) t=$(truth c.out ctor_spin)
rate=$(csv_awk -F, 'NR > 1 && $6 > 0 { print $8 / $6; exit }' c.csv)
if awk -v k="${k:-0}" -v t="${t:-0}" -v r="${rate:-0}" 'BEGIN { exit !(t > 0 && r > 0 && k >= t * r / 2) }' &&
   ! csv_awk -F, '$1 ~ /^\[anon\]/ { f = 1 } END { exit !f }' c.csv; then
	ok "dlopen_ctor_flat # ctor_spin $k samples for $t CPU-s at $rate Hz"
else
	not_ok dlopen_ctor_flat "ctor_spin ${k:-0} samples for $t CPU-s at ${rate:-?} Hz; $(csv_awk -F, '$1 ~ /anon/' c.csv | head -n 3)"
fi
if grep -q "taken in a library's code while dlopen ran its constructors" c.warn &&
   ! grep -q "reached code in no loaded object" c.warn; then
	ok dlopen_ctor_said
else
	not_ok dlopen_ctor_said "$(cat c.warn)"
fi
