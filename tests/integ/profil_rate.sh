#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The achieved rate: for the CPU-time clocks (thread, itimer) the samples
# per process CPU-second are the rate in effect within 5 %; for the perf
# clock, libmon takes at least 95 % of what a reference perf clock run alone
# (what this machine delivers now) and at most the rate (profil_rate.c);
# for 1 and 4 busy threads, at 1000 and 4000 Hz; the default rate is at
# least 1000 Hz; MONPROF_CLOCK selects the clock.
. "$(dirname "$0")/lib.sh"

build_prog rate profil_rate.c || not_ok profil_rate_build

# CPU per run: one thread 0.3 s, four threads 0.25 s each (see profil_rate.c)
for c in perf thread itimer; do
	for r in 1000 4000; do
		try profil_rate_${c}_${r}hz_1thread env MONPROF_CLOCK=$c MONPROF_RATE=$r "$T/rate" 1 0.3
		try profil_rate_${c}_${r}hz_4threads env MONPROF_CLOCK=$c MONPROF_RATE=$r "$T/rate" 4 0.25
	done
done
try profil_rate_default env -u MONPROF_RATE -u MONPROF_CLOCK "$T/rate" 1 0.3

# MONPROF_CLOCK selects the clock (the programs check mon_getstats().clock;
# profil_on skips a clock the kernel refuses); the itimer clock always works.
out=$(env -u MONPROF_RATE MONPROF_CLOCK=itimer "$T/rate" 1 0.05 clock-only 2>&1); rc=$?
printf '%s\n' "$out"
if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^clock itimer-prof'; then
	ok profil_env_selects_itimer
else
	not_ok profil_env_selects_itimer "exit $rc"
fi
auto=$(env -u MONPROF_CLOCK "$T/rate" 1 0.05 clock-only 2>&1 | sed -n 's/^clock \([^,]*\),.*/\1/p')
for v in perf thread; do
	out=$(MONPROF_CLOCK=$v "$T/rate" 1 0.05 clock-only 2>&1); rc=$?
	printf '%s\n' "$out"
	want=$( [ $v = perf ] && echo perf-cpu-clock || echo thread-cputime )
	if [ $rc -eq 77 ]; then
		ok "profil_env_selects_$v # skip refused here"
	elif [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q "^clock $want,"; then
		ok profil_env_selects_$v
	else
		not_ok profil_env_selects_$v "exit $rc"
	fi
done
# An unknown name is refused (settings.c): profil() fails, one line says why.
bogus=$(MONPROF_CLOCK=bogus "$T/rate" 1 0.05 clock-only 2>&1)
if [ -n "$auto" ] && ! printf '%s\n' "$bogus" | grep -q '^clock ' &&
    printf '%s\n' "$bogus" | grep -qx 'monprof: MONPROF_CLOCK=bogus: the clock is perf, thread or itimer; not profiling'; then
	ok profil_env_unknown_clock_refused
else
	not_ok profil_env_unknown_clock_refused "unset: '$auto', bogus: '$(printf '%s' "$bogus" | head -c 300)'"
fi
