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
#   wall_stacks_direct   >= 95 % of those of the thread whose first frame
#                        past the C library needs RBP (no frame below saved
#                        it) walk start_direct;leaf_direct to the outermost
#                        frame: the walk finds leaf_direct's frame record
#                        above its SP (lib/unwind.c's fp_search; before it,
#                        PostgreSQL's off-CPU stacks were 70 % truncated at
#                        WaitEventSetWait)
#   wall_stacks_decoy    the same through start_decoy;leaf_decoy, whose
#                        locals between its SP and its frame record hold
#                        code pointers (functions' starts) beside stack
#                        addresses: no frame is made of them
#   wall_stacks_large    the thread whose leaf_large keeps 8 KiB of locals
#                        (its frame record beyond the search): every
#                        sample in its read (≥ 95 % of its blocked ones: its
#                        printf may wait for stdout's lock) ends at
#                        leaf_large flagged truncated, nothing guessed past it
#   wall_stacks_warned   prof --sample=offcpu warns wall-truncated with the
#                        count of those samples
# In every stack the frame after leaf_X is start_X.
# Mutations: the walk of a copy of the stack at the copy's address (a
# ucontext_t with the copy's SP through mon_unwind, as before
# mon_unwind_regs) fails wall_stacks_saved (the saved RBP is the stack's
# real address, not the copy's: the CFA falls below the copy's SP); no
# search (fp_search returning 0): direct and decoy 0 of 251, both fail;
# the search taking the first candidate whose return address passes,
# without the caller-frame check: decoy fails, 251 of 251 samples
# "leaf_decoy;libc.so.6+0x801c7;cb_a" (a stale return address of an
# earlier call, left in leaf_decoy's frame above its SP).  Without the
# call-instruction check alone decoy still passes: the caller-frame check
# rejects its callbacks too.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wall_lib.inc"

wall_run_omitfp stacks 250 60 1000
grep -v '^sample' "$T/wall.txt" | head -n 20
awk 'FNR == NR { if ($1 == "thread") name[$4] = $2; next }
$1 == "sample" && ($4 in name) && $6 != "running" && $6 != "runnable" {
	t = name[$4]; c = $2; fr = $NF
	blocked[t] += c
	if (index(fr, "start_" t ";") && $12 % 2 == 0) reach[t] += c
	n = split(fr, g, ";"); last = g[1]; if (n > 1) last = g[2]; sub(/\+0x.*/, "", last)
	# the samples of the large thread in its read (its first may be blocked
	# elsewhere: its printf waits for the lock of stdout while another prints)
	if (t == "large" && $8 == "read") { inread[t] += c
		if (n == 2 && last == "leaf_large" && $12 % 2 == 1) ended[t] += c }
	# the frame after leaf_X (its caller: frames are innermost first)
	if (match(fr, "leaf_" t "[^;]*;")) {
		split(substr(fr, RSTART + RLENGTH), f, ";"); up = f[1]
		sub(/\+0x.*/, "", up)
		if (up != "start_" t) { odd[t] += c; if (!shown[t]++) print "# " t ": " $0 }
	}
}
END {
	for (t in blocked)
		printf "# %-6s %d of %d blocked samples walk through start_%s to the outermost frame\n", t, reach[t], blocked[t], t
	for (t in name) {
		nm = name[t]
		r = blocked[nm] > 0 && reach[nm] >= 0.95 * blocked[nm] ? "ok" : sprintf("%d of %d walk through start_%s", reach[nm], blocked[nm], nm)
		if (nm == "large") {
			ended[nm] += 0
			r = blocked[nm] > 0 && inread[nm] >= 0.95 * blocked[nm] && ended[nm] == inread[nm] ? "ok" : sprintf("%d of %d samples in read (%d blocked) end at leaf_large, truncated", ended[nm], inread[nm], blocked[nm])
			print "truncated " ended[nm]
		}
		if (odd[nm]) r = sprintf("%d of %d samples with a frame after leaf_%s not start_%s", odd[nm], blocked[nm], nm, nm)
		print "check wall_stacks_" nm " " r
	}
}' "$T/stacks.out" "$T/wall.txt" >"$T/checks"
grep '^#' "$T/checks"
[ $rc -eq 0 ] || not_ok wall_stacks_run "exit $rc"
for c in plain saved direct decoy large; do
	r=$(awk -v c="wall_stacks_$c" '$1 == "check" && $2 == c { $1 = $2 = ""; sub(/^  /, ""); print }' "$T/checks")
	if [ "$r" = ok ]; then ok "wall_stacks_$c"
	else wall_san_not_ok "wall_stacks_$c" "${r:-not checked}" "the sanitizer's interceptor of read is built with a frame pointer, which a walk from /proc's SP and PC cannot know"
	fi
done
# The warning: prof counts the truncated off-CPU samples (the large
# thread's; those of the others too, if a sanitizer's interceptor cut them).
want=$(awk '$1 == "truncated" { print $2 }' "$T/checks")
"$B/bin/prof" --sample=offcpu "$T/stacks.mon" "$T/stacks" >"$T/prof.txt" 2>"$T/prof.err"
w=$(grep 'wall-clock samples\? .* ha\(s\|ve\) a call stack that ends early' "$T/prof.err")
got=$(printf '%s\n' "$w" | sed -n 's/^prof: warning: \([0-9]*\) off-CPU.*/\1/p')
if [ -n "$want" ] && [ "$want" -gt 0 ] && [ -n "$got" ] && [ "$got" -ge "$want" ]; then
	ok wall_stacks_warned
else
	# Under ASan the large thread's walk learns RBP from the interceptor
	# of read, which saves it: nothing truncated, nothing to warn of.
	wall_san_not_ok wall_stacks_warned "warning '${w:-none}': ${got:-no} samples, want at least ${want:-?}" \
		"the sanitizer's interceptor of read saves RBP, so the large thread's walk is not truncated"
fi
