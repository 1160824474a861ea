#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A blocked thread's walk starts from the SP and PC /proc/TID/syscall gives,
# without its frame pointer (RBP on x86-64): tests/progs/wall_stacks.c's
# threads block in read(2) under frames with and without one (built -O2
# -fomit-frame-pointer, two functions keeping theirs by attribute), run
# under monrun --wall=250.
#   wall_stacks_plain    >= 95 % of the blocked samples of the thread without
#                        frame pointers walk through start_plain to the
#                        thread's outermost frame (not flagged truncated)
#   wall_stacks_saved    >= 95 % of those of the thread whose middle frame
#                        saved the caller's RBP (its CFI says where) walk
#                        through start_saved, whose CFA is RBP-based, to the
#                        outermost frame: the walk learns RBP from the saved
#                        slot, at its real address
#   wall_stacks_direct   the thread whose first frame past the C library
#                        needs RBP (no frame below saved it): every blocked
#                        sample ends at leaf_direct flagged truncated, no
#                        frame guessed past it
# Mutation: the walk of a copy of the stack at the copy's address (a
# ucontext_t with the copy's SP through mon_unwind, as before
# mon_unwind_regs) fails wall_stacks_saved (the saved RBP is the stack's
# real address, not the copy's: the CFA falls below the copy's SP).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wall_lib.inc"

wall_run_omitfp stacks 250 60 1000
grep -v '^sample' "$T/wall.txt" | head -n 20
awk 'FNR == NR { if ($1 == "thread") name[$4] = $2; next }
$1 == "sample" && ($4 in name) && $6 != "running" && $6 != "runnable" {
	t = name[$4]; c = $2; fr = $NF
	blocked[t] += c
	if (index(fr, "start_" t ";") && $12 % 2 == 0) reach[t] += c
	n = split(fr, f, ";"); last = f[n]; sub(/\+0x.*/, "", last)
	if (t == "direct" && !(last == "leaf_direct" && $12 % 2 == 1) && !index(fr, "start_direct"))
		odd[t] += c
	if (odd[t] && !shown[t]++) print "# direct: " $0
}
END {
	for (t in blocked)
		printf "# %-6s %d of %d blocked samples walk through start_%s to the outermost frame\n", t, reach[t], blocked[t], t
	for (t in name) {
		nm = name[t]
		if (nm == "direct")
			r = blocked[nm] > 0 && odd[nm] == 0 ? "ok" : sprintf("%d of %d samples not ending at leaf_direct, truncated", odd[nm], blocked[nm])
		else
			r = blocked[nm] > 0 && reach[nm] >= 0.95 * blocked[nm] ? "ok" : sprintf("%d of %d walk through start_%s", reach[nm], blocked[nm], nm)
		print "check wall_stacks_" nm " " r
	}
}' "$T/stacks.out" "$T/wall.txt" >"$T/checks"
grep '^#' "$T/checks"
[ $rc -eq 0 ] || not_ok wall_stacks_run "exit $rc"
for c in plain saved direct; do
	r=$(awk -v c="wall_stacks_$c" '$1 == "check" && $2 == c { $1 = $2 = ""; sub(/^  /, ""); print }' "$T/checks")
	if [ "$r" = ok ]; then ok "wall_stacks_$c"
	else wall_san_not_ok "wall_stacks_$c" "${r:-not checked}" "the sanitizer's interceptor of read is built with a frame pointer, which a walk from /proc's SP and PC cannot know"
	fi
done
