#!/bin/sh
# System time is profiled (issue 11 item 6; case kernel-time.c): charged to
# the code that made the system call, as profil(2) and ITIMER_PROF charge it.
# cov_kernel spends about half its CPU in read(2) of /dev/zero: read +
# kernel_heavy must hold that half of the samples under every clock, and the
# profile must say that system time was sampled.  Where system time is not
# sampled (perf told to count user time only: MONPROF_SYSTEM=0, as when the
# kernel refuses kernel counting), prof says so by default.  Bounds come
# from the run: the CPU the program measured and the samples it got.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"
. "$(dirname "$0")/mon_helpers.inc"

if build_plain kern cov_kernel.c && build_dump; then ok cov_system_build; else not_ok cov_system_build; fi

# system_share NAME CLOCK: the kernel side's share of the samples matches
# its share of the CPU.
system_share() {
	d="$T/$2.out"
	if ! MONPROF_CLOCK=$2 "$MONRUN" -o "$d" "$T/kern" >"$T/$2.txt"; then
		not_ok "$1" "run failed"
		return
	fi
	if ! prof_csv "$d" "$T/$2.csv" "$T/kern"; then
		not_ok "$1" "prof: $(cat "$T/$2.csv.err")"
		return
	fi
	k=$(truth "$T/$2.txt" kernel_side) u=$(truth "$T/$2.txt" user_side)
	kt=$(awk -F, 'NR > 1 && ($1 == "kernel_heavy" || $1 == "read" || $1 ~ /^__read/ || $1 ~ /^__libc_read/) { s += $8 } END { print s + 0 }' "$T/$2.csv")
	ut=$(ticks "$T/$2.csv" user_heavy)
	n=$(awk -v a="$kt" -v b="$ut" 'BEGIN { printf "%d", a + b }')
	p=$(awk -v k="$k" -v u="$u" 'BEGIN { print k / (k + u) }')
	share_ok "$1" "$kt" "$n" "$p" 0.15
}
system_share cov_system_perf perf
system_share cov_system_thread thread
system_share cov_system_itimer itimer

# The automatic choice counts system time, and the file says so.
MONPROF_CLOCK= "$MONRUN" -o "$T/auto.out" "$T/kern" >"$T/auto.txt"
flags=$(dump "$T/auto.out" info | awk '$1 == "fact_flags" { print $2 }')
if [ -n "$flags" ] && [ $((flags & 1)) -eq 1 ] && [ $((flags & 2)) -eq 0 ]; then
	ok cov_system_recorded_sampled
else
	not_ok cov_system_recorded_sampled "fact_flags ${flags:-none}"
fi
if "$PROF" -s -m "$T/auto.out" "$T/kern" >/dev/null 2>"$T/auto.err" &&
    grep -q "^system time: sampled" "$T/auto.err" && ! grep -q "warning" "$T/auto.err"; then
	ok cov_system_summary_sampled
else
	not_ok cov_system_summary_sampled "$(cat "$T/auto.err")"
fi

# User time only: recorded, and prof says by default what it could not see.
MONPROF_SYSTEM=0 MONPROF_CLOCK=perf "$MONRUN" -o "$T/user.out" "$T/kern" >"$T/user.txt"
flags=$(dump "$T/user.out" info | awk '$1 == "fact_flags" { print $2 }')
if [ -n "$flags" ] && [ $((flags & 2)) -eq 2 ]; then
	ok cov_system_recorded_unsampled
else
	not_ok cov_system_recorded_unsampled "fact_flags ${flags:-none}"
fi
if "$PROF" -m "$T/user.out" "$T/kern" >/dev/null 2>"$T/user.err" &&
    grep -q "warning: system CPU time (.*) was not sampled" "$T/user.err"; then
	ok cov_system_unsampled_warns
else
	not_ok cov_system_unsampled_warns "stderr: $(cat "$T/user.err")"
fi

# Where the kernel refuses kernel counting to an unprivileged process
# (perf_event_paranoid >= 2), the automatic choice still samples system time
# (the thread clock), run as nobody.
par=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 0)
if [ "$(id -u)" -ne 0 ] || [ "$par" -lt 2 ] || ! command -v setpriv >/dev/null; then
	ok "cov_system_unprivileged # skip needs root to run as nobody and perf_event_paranoid >= 2"
else
	# monrun and libmon copied where nobody may read them (bin/../lib).
	share_libmon
	mkdir -p "$T/bin" "$T/np" && cp "$MONRUN" "$T/bin/monrun" && cp "$T/kern" "$T/kern_np" &&
	    chmod 755 "$T/bin" "$T/bin/monrun" "$T/kern_np" && chmod 777 "$T/np"
	if (cd "$T/np" && setpriv --reuid=nobody --regid=nogroup --clear-groups \
	    "$T/bin/monrun" -o "$T/np/np.out" "$T/kern_np" >"$T/np.txt"); then
		flags=$(dump "$T/np/np.out" info | awk '$1 == "fact_flags" { print $2 }')
		clock=$(dump "$T/np/np.out" info | awk '$1 == "clock" { print $2 }')
		if [ -n "$flags" ] && [ $((flags & 1)) -eq 1 ] && [ "$clock" != 1 ]; then
			ok cov_system_unprivileged
		else
			not_ok cov_system_unprivileged "clock ${clock:-?} fact_flags ${flags:-none}"
		fi
	else
		not_ok cov_system_unprivileged "run as nobody failed"
	fi
fi
