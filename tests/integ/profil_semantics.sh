#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# profil(2) semantics under each profiling clock: what turning profiling off
# restores and that it loses no tick, saturating bins, the mon_getstats counters, errno in the handler.
# A clock this kernel refuses is reported "ok NAME # skip".
. "$(dirname "$0")/lib.sh"

# try NAME CMD...: run CMD (its output goes to the log); exit 0 is ok,
# 77 is a skip (the program prints why), anything else fails.
for p in restore saturate stats errno onoff; do
	build_prog $p profil_$p.c || not_ok "profil_${p}_build"
done

for c in perf thread itimer; do
	try profil_off_restores_disposition_and_timer_$c env MONPROF_CLOCK=$c "$T/restore"
	try profil_saturation_$c env MONPROF_CLOCK=$c "$T/saturate"
	try profil_stats_identity_$c env MONPROF_CLOCK=$c MONPROF_RATE=4000 "$T/stats"
	try profil_errno_preserved_$c env MONPROF_CLOCK=$c MONPROF_RATE=10000 "$T/errno"
	try profil_off_loses_no_tick_$c env MONPROF_CLOCK=$c MONPROF_RATE=10000 "$T/onoff"
done
