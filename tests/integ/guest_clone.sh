#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A child made with the raw clone or clone3 system call (no fork handler of
# the C library runs) harms neither the parent's profile nor the files
# (lib/threads.c; issue 21, item 3):
#   - the parent is sampled after the child: after_clone's share of the
#     parent's samples matches its share of their CPU (5 sigma, 10 points;
#     with the thread and itimer clocks, on the number of samples the
#     program's probe measured, which the parent spins until it is NEFF,
#     40, at most 12 CPU-s; at least NEFF_MIN, 25, where a share of 0 is
#     outside the bound: clock_share_ok, monrun_lib.inc);
#   - without -f the child writes nothing: one file in PROFDIR;
#   - with -f a child made through syscall(3) (clone, clone3) writes its own
#     profile: child_spin is sampled (its share of that file's samples
#     matches its share of the child's CPU, child_cpu, as the parent's: on
#     the child's own probe, which the child spins until it is NEFF) and
#     none of the parent's samples are in it; a child made by
#     the program's own syscall instruction (asm) cannot be armed before it
#     runs, and its file holds none of the parent's samples either.
# With every clock the kernel allows.  Mutations caught: the adoption in
# mon_finish and the getpid() check in mon_threads_stop gone → the asm
# child's exit disables the parent's perf events (after_clone 0 samples,
# perf); syscall(3)'s fork handlers gone (forks() 0) → the clone/clone3
# -f child unsampled (child_spin 0 of 0).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"

mkdir -p "$T/run"
cd "$T/run" || exit 1
build_plain clone guest_clone.c || not_ok guest_clone_build

NEFF=40 NEFF_MIN=25

# share NAME CLOCK OUT CSV FN OTHER
share() {
	_k1=$(ticks "$4" "$5") _k2=$(ticks "$4" "$6")
	_c1=$(truth "$3" "$5") _c2=$(truth "$3" "$6")
	_n=$(awk -v a="$_k1" -v b="$_k2" 'BEGIN { printf "%d", a + b + 0.5 }')
	_p=$(awk -v a="$_c1" -v b="$_c2" 'BEGIN { print (a + b > 0) ? a / (a + b) : 0 }')
	echo "# $1: $5 $_k1 of $_n periods; CPU $_c1 of $_c1 + $_c2 s; $(grep probe_ "$3" | tr '\n' ' ')"
	clock_share_ok "$1" "$2" "$_k1" "$_n" "$_p" "$3" $NEFF_MIN 0.10
}

for c in perf thread itimer; do
	rm -rf pd && mkdir pd
	PROFDIR=pd timeout 60 "$MONRUN" -c $c "$T/clone" clone >/dev/null 2>&1
	got=$("$PROF" -m pd/* --format=json "$T/clone" 2>/dev/null | head -n 1 |
	      sed -n 's/.*"clock":"\([^"-]*\).*/\1/p')
	if [ "$got" != "$c" ]; then
		ok "guest_clone_$c # skip clock $c unavailable here (got '$got')"
		continue
	fi
	m=$NEFF; [ $c = perf ] && m=0
	for how in clone clone3 asm; do
		rm -rf pd && mkdir pd
		PROFDIR=pd timeout 120 "$MONRUN" -c $c "$T/clone" $how $m >"$T/$how.$c" 2>&1
		rc=$?
		[ $rc -eq 0 ] && ok "guest_clone_${how}_runs_$c" || not_ok "guest_clone_${how}_runs_$c" "exit $rc"
		n=$(ls pd | wc -l)
		[ "$n" -eq 1 ] && ok "guest_clone_${how}_child_writes_nothing_$c" ||
			not_ok "guest_clone_${how}_child_writes_nothing_$c" "$n files: $(ls pd | tr '\n' ' ')"
		parent=$(ls pd | sort -n | head -n 1)
		prof_csv "pd/$parent" "$T/$how.$c.csv" "$T/clone"
		share "guest_clone_${how}_parent_sampled_after_$c" $c "$T/$how.$c" "$T/$how.$c.csv" after_clone before_clone

		rm -rf pd && mkdir pd
		PROFDIR=pd timeout 120 "$MONRUN" -f -c $c "$T/clone" $how $m >"$T/f$how.$c" 2>&1
		pid=$(ls pd | sort -n | head -n 1) child=$(ls pd | sort -n | sed -n 2p)
		prof_csv "pd/$pid" "$T/f$how.$c.csv" "$T/clone"
		share "guest_clone_${how}_f_parent_sampled_after_$c" $c "$T/f$how.$c" "$T/f$how.$c.csv" after_clone before_clone
		if [ $how = asm ] && [ -z "$child" ]; then
			ok "guest_clone_${how}_f_child_own_samples_$c # no file for the child"
			continue
		fi
		if [ -z "$child" ]; then
			not_ok "guest_clone_${how}_f_child_file_$c" "files: $(ls pd | tr '\n' ' ')"
			continue
		fi
		prof_csv "pd/$child" "$T/f$how.$c.child.csv" "$T/clone"
		k=$(ticks "$T/f$how.$c.child.csv" before_clone)
		[ "${k%.*}" -eq 0 ] 2>/dev/null && ok "guest_clone_${how}_f_child_own_samples_$c" ||
			not_ok "guest_clone_${how}_f_child_own_samples_$c" "$k of the parent's before_clone samples in the child's file"
		[ $how = asm ] && continue
		# child_spin against everything else in the child's file.
		kc=$(ticks "$T/f$how.$c.child.csv" child_spin)
		kall=$(csv_awk -F, 'NR > 1 { s += $8 } END { printf "%d", s + 0.5 }' "$T/f$how.$c.child.csv")
		# The truth: child_spin's share of the child's CPU; the child's
		# own probe gives the samples its periods are worth.
		cs=$(truth "$T/f$how.$c" child_spin) ct=$(truth "$T/f$how.$c" child_cpu)
		pc=$(awk -v a="$cs" -v b="$ct" 'BEGIN { print (b > 0) ? a / b : 0 }')
		sed -n 's/^child_\(probe_[a-z]* \)/\1/p' "$T/f$how.$c" >"$T/f$how.$c.child"
		echo "# $how $c child: child_spin $kc of $kall periods; CPU $cs of $ct s; $(tr "\n" " " <"$T/f$how.$c.child")"
		clock_share_ok "guest_clone_${how}_f_child_sampled_$c" $c "$kc" "$kall" "$pc" "$T/f$how.$c.child" $NEFF_MIN 0.10
	done
done
