#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# tests/aarch64/qemu.sh — the runtime built for aarch64 (build-aarch64/,
# make ARCH=aarch64 CROSS_COMPILE=aarch64-linux-gnu-), its programs run
# under qemu-user (qemu-aarch64 -L /usr/aarch64-linux-gnu), their mon.out
# files read by the host's prof (build/bin/prof) and compared with the same
# programs built for the host and profiled there:
#   - profil(2) semantics under each clock (tests/progs/profil_*.c);
#   - call counts and arcs of cc -pg code, shared and static, 8 threads;
#     prof's calls and PLT stub names (tests/aarch64/plt_names.c) for them;
#     the stacks of samples in _mcount and mon_count reach their callers
#     (99 % or more);
#   - stacks through -O2 -fomit-frame-pointer code and through the C
#     library (tests/aarch64/a64_stacks.c): >= 99 % of the samples' stacks
#     reach main, the recursion's 24 frames, qsort's comparator under the C
#     library's frames; the three leaves' shares (of their samples) against
#     the CPU each run measured them take: within 5 standard deviations of
#     the independent samples the run's own CPU-time timer counted (its
#     probe), the host's runs of the same program (perf clock) within 2 pp
#     plus the spread of two runs, printed beside them (the three leaves'
#     true split differs between the machines: each is judged by its own);
#   - shares as the host's (tests/aarch64/a64_split.c: three leaves of
#     the same code called 3 : 1 : 1, a split fixed by construction on any
#     machine): each leaf's share on aarch64, under each clock qemu serves,
#     against the host's (perf clock), runs in turns, within 2 pp plus the
#     sampling bound of both sides' independent samples (the probe's on
#     aarch64); A64_SPLIT_ROUNDS sets the aarch64 runs' length (default
#     200000, about 10 s each idle; the host's are half);
#   - the ways out (abort, SIGTERM, SIGSEGV) and fork;
#   - the guest rules: the program's own real-time signals and handlers;
#     the context a signal gives at a system call it ended or restarted,
#     just after one, and outside any, as the itimer clock reads it
#     (tests/progs/arch_syscall_context.c).
# What qemu-user cannot serve is reported "ok NAME # skip WHY": the perf
# clock (no perf_event_open), exec without binfmt_misc (an aarch64 image
# cannot be executed then), the thread clock's thread count (qemu's own thread
# is in /proc/self/task).  Called by scripts/ci-aarch64.sh; prints
# "ok NAME" / "not ok NAME" lines.  Time limit: each program's timeout
# below, the whole script about 2 minutes (scripts/ci-aarch64.sh reports).
CROSS=${CROSS_COMPILE:-aarch64-linux-gnu-}
HOST_CC=${HOST_CC:-cc}
HB=$(cd "$(dirname "$0")/../.." && pwd)/${HOST_B:-build}
B=${B:-build-aarch64} CC=${CROSS}gcc
. "$(dirname "$0")/../integ/lib.sh"
. "$(dirname "$0")/../integ/mon_helpers.inc"
. "$(dirname "$0")/../integ/prof_lib.inc"
. "$(dirname "$0")/../integ/monrun_lib.inc"
# lib.sh points LD_LIBRARY_PATH at the aarch64 libraries: the host's
# programs (prof, mon_dump) do not want them.
unset LD_LIBRARY_PATH
CC=$HOST_CC build_dump || { not_ok a64_build_dump; exit 1; }
PROF=$HB/bin/prof
[ -x "$PROF" ] || { not_ok a64_host_prof "no $PROF: build the host first (make)"; exit 1; }
SYSROOT=${QEMU_LD_PREFIX:-/usr/${CROSS%-}}
QEMU="qemu-aarch64 -L $SYSROOT"
cd "$T" || exit 1
unset PROFDIR MONPROF_OUT

# whole CLOCK RATE CMD...: CMD under whole-process profiling, as monrun(1)
# starts it: libmon.so preloaded (for the guest only: qemu's -E) and
# MONPROF_AUTO naming the process, which keeps the shell's pid through both
# execs.  whole_host: the same on the host.  Time limit: 300 s.
whole() {
	wc_=$1 wr_=$2
	shift 2
	timeout 300 env MONPROF_CLOCK="$wc_" MONPROF_RATE="$wr_" sh -c 'exec env MONPROF_AUTO=$$ "$@"' \
		sh $QEMU -E LD_PRELOAD="$B/lib/libmon.so" "$@"
}
whole_host() {
	wc_=$1 wr_=$2
	shift 2
	timeout 300 env MONPROF_CLOCK="$wc_" MONPROF_RATE="$wr_" \
		sh -c 'exec env MONPROF_AUTO=$$ LD_PRELOAD="$0" "$@"' "$HB/lib/libmon.so" "$@"
}
nm_a64() { ${CROSS}nm "$@"; }
# The host's nm may not know aarch64: mon_helpers.inc's sym with the cross nm.
sym() { nm_a64 -S --defined-only "$1" | awk -v n="$2" '$4 == n { print $1, $2; exit }'; }

# ---- profil(2) semantics --------------------------------------------------
for p in restore saturate stats errno; do
	build_prog $p profil_$p.c || not_ok "a64_profil_${p}_build"
done
for c in perf thread itimer; do
	for p in restore saturate errno stats; do
		if [ $c = thread ] && [ $p = stats ]; then
			ok "a64_profil_${p}_$c # skip qemu-user's own thread is in /proc/self/task and is armed too (the check counts the program's 3)"
			continue
		fi
		try "a64_profil_${p}_$c" env MONPROF_CLOCK=$c MONPROF_RATE=4000 timeout 120 $QEMU "$T/$p"
	done
done

# ---- monitor(3) called by the program --------------------------------------
# The System V idiom on a PIE (tests/progs/mon_seed.c, the host's
# mon_monitor.sh): monitor(lowpc 2, etext, buf, size, n) starts the
# histogram at the text start, the caller's buffer holds the header and the
# -pg cells, monitor(0) writes mon.out; a buffer too small is ENOSPC.
#   a64_monitor_seed_*        lpc-ok, mon.out written, >= 80 % of >= 100
#                             ticks in spin, under the thread and itimer
#                             clocks
#   a64_monitor_seed_pg_*     the leaf's cell in the caller's buffer (1234)
#                             and the same count in the file
#   a64_monitor_small         ENOSPC, no file
# Mutation: monitor() keeping lowpc 2 (monitor.c, main_text not asked):
# "cell -1" without lpc-ok, a64_monitor_seed_* fail.
build_prog seed mon_seed.c || not_ok a64_build_seed
build_prog seedpg mon_seed.c -pg || not_ok a64_build_seed_pg
for c in thread itimer; do
	rm -f mon.out
	out=$(env MONPROF_CLOCK=$c timeout 120 $QEMU ./seed seed)
	expect "a64_monitor_seed_$c: lowpc 2 became the text start" "$(echo "$out" | grep -x lpc-ok)" lpc-ok
	[ -f mon.out ] && ok "a64_monitor_seed_$c: monitor(0) wrote mon.out" ||
		not_ok "a64_monitor_seed_$c: monitor(0) wrote mon.out"
	set -- $(dump mon.out ticks spin seed)
	in=${1:-0} all=${2:-0}
	if [ "$all" -ge 100 ] && [ $((in * 10)) -ge $((all * 8)) ]; then
		ok "a64_monitor_seed_$c: ticks in spin ($in of $all)"
	else
		not_ok "a64_monitor_seed_$c: ticks in spin" "$in of $all"
	fi
	rm -f mon.out
	out=$(env MONPROF_CLOCK=$c timeout 120 $QEMU ./seedpg seed)
	expect "a64_monitor_seed_pg_$c: leaf's cell in the caller's buffer" "$(echo "$out" | grep '^cell')" "cell 1234"
	expect "a64_monitor_seed_pg_$c: leaf in the file" "$(dump mon.out calls leaf seedpg)" 1234
done
rm -f mon.out
expect "a64_monitor_small: ENOSPC" "$(timeout 120 $QEMU ./seed small)" ENOSPC
[ ! -e mon.out ] && ok "a64_monitor_small: no file" || not_ok "a64_monitor_small: no file"

# ---- call counts (-pg) ----------------------------------------------------
build_prog pg mon_calls.c -pg || not_ok a64_build_pg
build_prog_static pgs mon_calls.c -pg || not_ok a64_build_pg_static
$HOST_CC -O1 -g -pg -I"$ROOT/include" -I"$ROOT/tests/progs" -o pg_host "$ROOT/tests/progs/mon_calls.c" \
	-L"$HB/lib" -Wl,-rpath,"$HB/lib" -lmon -lpthread -lm || not_ok a64_build_pg_host
for p in pg pgs; do
	rm -f mon.out gmon.out
	timeout 120 $QEMU ./$p 1234 0 0; rc=$?
	expect "a64_$p: exit status 0" "$rc" 0
	[ ! -e gmon.out ] && ok "a64_$p: no gmon.out" || not_ok "a64_$p: no gmon.out"
	dump mon.out check >/dev/null && ok "a64_$p: complete mon.out" || not_ok "a64_$p: complete mon.out"
	expect "a64_$p: leaf called 1234 times" "$(dump mon.out calls leaf $p)" 1234
	expect "a64_$p: leaf2 called 1234 times" "$(dump mon.out calls leaf2 $p)" 1234
	expect "a64_$p: arcs into leaf2" "$(dump mon.out arcs leaf2 $p)" "1234 2"
	expect "a64_$p: spin called once" "$(dump mon.out calls spin $p)" 1
	expect "a64_$p: a histogram per loaded object" "$(info mon.out hists)" "$(info mon.out objects)"
done
# prof on the host reads the aarch64 file: the same calls as the host's run.
calls_of() { awk -F, '$2 == "function" && $9 > 0 { print $1, $9 }' "$1" | LC_ALL=C sort; }
rm -f mon.out && timeout 120 $QEMU ./pg 1234 0 0 && "$PROF" --format=csv -m mon.out ./pg >a64.csv 2>a64.err
rm -f mon.out && timeout 120 ./pg_host 1234 0 0 && "$PROF" --format=csv -m mon.out ./pg_host >host.csv 2>host.err
cat a64.err host.err
calls_of a64.csv >a64.calls
calls_of host.csv >host.calls
if [ -s a64.calls ] && cmp -s a64.calls host.calls; then
	ok "a64_prof_calls_as_host ($(tr '\n' ' ' <a64.calls))"
else
	not_ok a64_prof_calls_as_host "aarch64: $(tr '\n' ' ' <a64.calls); host: $(tr '\n' ' ' <host.calls)"
fi
# prof's names of the aarch64 PLT stubs (symtab.c by e_machine) are the
# cross objdump's <NAME@plt> labels.
ELF_PKGS="libelf libdw liblzma zlib capstone"
pkg-config --exists libdebuginfod 2>/dev/null && ELF_PKGS="$ELF_PKGS libdebuginfod"
# shellcheck disable=SC2046
$HOST_CC -O1 -g -D_GNU_SOURCE -I"$ROOT/include" -I"$ROOT/format" -I"$ROOT/tools/prof" \
	$(pkg-config --cflags $ELF_PKGS) -o plt_names "$ROOT/tests/aarch64/plt_names.c" \
	"$HB/tools/libprof.a" "$HB"/tool/format/*.o $(pkg-config --libs $ELF_PKGS) -liberty -lm ||
	not_ok a64_build_plt_names
./plt_names ./pg >plt.prof
${CROSS}objdump -d -j .plt ./pg | awk '/@plt>:$/ { sub(/^0+/, "", $1); gsub(/[<>:]/, "", $2); print "0x" $1, $2 }' >plt.objdump
if [ -s plt.objdump ] && cmp -s plt.prof plt.objdump; then
	ok "a64_prof_plt_names ($(wc -l <plt.prof) stubs, as objdump names them)"
else
	not_ok a64_prof_plt_names "prof: $(tr '\n' ' ' <plt.prof); objdump: $(tr '\n' ' ' <plt.objdump)"
fi
rm -f mon.out
timeout 300 $QEMU ./pg 200000 8 0; rc=$?
expect "a64_pg 8 threads: exit 0" "$rc" 0
expect "a64_pg 8 threads: leaf exactly 8N" "$(dump mon.out calls leaf pg)" 1600000
# The same run's stacks through the call counting (lib/arch/aarch64/mcount.S:
# _mcount's CFI, CFA sp and the return address in x30, and its tail call to
# mon_count): of the samples whose leaf frames are _mcount, its PLT stub,
# mon_count or the C library's __aarch64_ atomics helpers, 99 % or more have
# the instrumented function (leaf, leaf2) above those and worker above it.
# Mutation: _mcount's CFA at sp + 16: 587 of 753 whole (of 236 in _mcount).
"$PROF" --format=folded -m mon.out ./pg >pg.folded 2>pg.err
awk '{ n = $NF; k = split($1, f, ";")
	for (i = k; i >= 1; i--) if (f[i] !~ /^(_mcount(@plt)?|mon_count|__aarch64_.*)$/) break
	if (i == k) next
	all += n; if (f[k] ~ /^_mcount/) mc += n
	if (i >= 2 && f[i] ~ /^leaf2?$/ && f[i - 1] == "worker") whole += n }
END {
	if (mc > 0) printf "ok a64_pg_mcount_sampled (%d samples in _mcount, %d in the counting)\n", mc, all
	else printf "not ok a64_pg_mcount_sampled — %d samples in _mcount, %d in the counting\n", mc, all
	if (all > 0 && whole >= 0.99 * all) printf "ok a64_pg_mcount_stacks (%d of %d reach leaf and worker)\n", whole, all
	else printf "not ok a64_pg_mcount_stacks — %d of %d reach leaf and worker\n", whole, all }' pg.folded

# ---- stacks ---------------------------------------------------------------
# pac-ret: return addresses signed in their slots (qemu's default CPU has
# pointer authentication), which the walk must strip.
$CC -O2 -g -fomit-frame-pointer -mbranch-protection=pac-ret -I"$ROOT/tests/progs" -o st "$ROOT/tests/aarch64/a64_stacks.c" ||
	not_ok a64_build_stacks
$HOST_CC -O2 -g -fomit-frame-pointer -I"$ROOT/tests/progs" -o st_host "$ROOT/tests/aarch64/a64_stacks.c" ||
	not_ok a64_build_stacks_host
# share FILE.csv NAME: the function's percent of the samples in the three
# leaves (deep, flat, compare: a64_stacks.c), 0 if it has none.
share() {
	awk -F, -v n="$2" '$2 == "function" && ($1 == "deep" || $1 == "flat" || $1 == "compare") {
		t += $8; if ($1 == n) v = $8 }
	END { printf "%.1f\n", (t > 0 ? 100 * v / t : 0) }' "$1"
}
# truth_share FILE NAME: the leaf's percent of the three leaves' CPU, from
# a64_stacks' "cpu deep S flat S compare S" line.
truth_share() {
	awk -v n="$2" '$1 == "cpu" { for (i = 2; i < NF; i += 2) { t += $(i + 1); if ($i == n) v = $(i + 1) } }
	END { printf "%.1f\n", (t > 0 ? 100 * v / t : 0) }' "$1"
}
# leaves_part FILE.csv: the part (0 to 1) of the profile's function samples
# that are in the three leaves.
leaves_part() {
	awk -F, '$2 == "function" { a += $8; if ($1 == "deep" || $1 == "flat" || $1 == "compare") t += $8 }
	END { printf "%.4f\n", (a > 0 ? t / a : 0) }' "$1"
}
for c in thread itimer; do
	# Twice on each machine, in turns (aarch64, host, aarch64, host), so
	# that both see the same load, and the spread of each pair measures how
	# much this machine itself moves the shares.
	for k in 1 2; do
		rm -f mon.out
		whole $c 4000 ./st 7500 >st$k.$c.txt; rc=$?
		expect "a64_stacks_$c: exit 0 (run $k)" "$rc" 0
		[ $k = 1 ] && "$PROF" --format=folded -m mon.out ./st >st.$c.folded 2>st.$c.err
		"$PROF" --format=csv -m mon.out ./st >st$k.$c.csv 2>>st.$c.err
		rm -f mon.out
		# The host by its perf clock (an hrtimer: 4000 samples a second;
		# the CPU-time timers are checked at the kernel's tick, whose
		# fewer, weighted samples spread the shares more).
		whole_host perf 4000 ./st_host 7500 >st_host$k.$c.txt
		"$PROF" --format=csv -m mon.out ./st_host >st_host$k.$c.csv 2>st_host$k.$c.err
	done
	# The independent samples each aarch64 run had (a64_stacks' probe:
	# its own CPU-time timer, checked at the same host ticks as the
	# clock's); run 1's stacks must show compare's through the C library
	# where that many samples make a share of 0 for it impossible
	# (samples_to_tell), or the check says it has too few to tell.
	n1=$(truth st1.$c.txt probe_neff) n2=$(truth st2.$c.txt probe_neff)
	tc=$(truth_share st1.$c.txt compare)
	need=$(samples_to_tell "$(awk -v t="$tc" 'BEGIN { print t / 100 }')" "$(awk -v t="$tc" 'BEGIN { print t / 100 }')")
	libc_skip=
	awk -v a="${n1:-0}" -v m="$need" 'BEGIN { exit !(a < m) }' &&
		libc_skip="only ${n1:-no} independent samples (probe_neff), $need wanted to tell compare's $tc % from none"
	# Folded lines: "root;...;leaf COUNT".
	# (mawk has no {n,} in regular expressions: the recursion's frames are counted.)
	awk -v c=$c -v libc_skip="$libc_skip" '{ n = $NF; all += n; line = ";" $1 ";"
		if (index(line, ";main;")) m += n
		k = split($1, f, ";"); r = 0
		for (i = 1; i <= k; i++) if (f[i] ~ /^recurse/) r++
		if (r >= 25 && f[k] == "deep" && index(line, ";main;recurse")) deep += n
		if (line ~ /;main;sort_reversed;(\[libc[^;]*\];)+compare;$/) cmp += n }
	END {
		if (all < 1000) { printf "not ok a64_stacks_%s_samples — %d samples with a stack, want >= 1000\n", c, all; exit }
		printf "ok a64_stacks_%s_samples (%d)\n", c, all
		if (m >= 0.99 * all) printf "ok a64_stacks_%s_reach_main (%d of %d)\n", c, m, all
		else printf "not ok a64_stacks_%s_reach_main — %d of %d\n", c, m, all
		if (deep > 0) printf "ok a64_stacks_%s_recursion_24_deep (%d samples)\n", c, deep
		else printf "not ok a64_stacks_%s_recursion_24_deep — none\n", c
		if (libc_skip != "") printf "ok a64_stacks_%s_through_libc # skip %s\n", c, libc_skip
		else if (cmp > 0) printf "ok a64_stacks_%s_through_libc (%d samples)\n", c, cmp
		else printf "not ok a64_stacks_%s_through_libc — none\n", c }' st.$c.folded
	# Each machine's shares against the truth its own run measured (the
	# CPU each leaf's calls took, printed by a64_stacks).  The construction
	# (60, 20, 20 %) is not the truth: on a loaded VM the host spent
	# 63 / 16 / 20 % and qemu 57 / 22 / 21 % in the three.
	# - The host, by its perf clock (one independent sample a period): the
	#   mean of the pair's differences within 2 pp plus the pair's spread.
	# - qemu's CPU-time clocks come at the host's tick, weighted, as many
	#   independent samples as the probe counted (939 in a 4 s run idle
	#   here, 199 to 314 with two busy loops, whose deep shares of 59 to
	#   63 % the host's bound failed): the mean of the pair's differences
	#   within share_ok's bound (5 standard deviations plus one sample)
	#   for the pair's samples in the three, or, too few to tell the
	#   share from none (samples_to_tell), a skip that names them.
	for f in deep flat compare; do
		for m in a64 host; do
			if [ $m = a64 ]; then p=st; else p=st_host; fi
			s1=$(share ${p}1.$c.csv $f) s2=$(share ${p}2.$c.csv $f)
			t1=$(truth_share ${p}1.$c.txt $f) t2=$(truth_share ${p}2.$c.txt $f)
			name=a64_stacks_${c}_share_$f
			[ $m = host ] && name=a64_stacks_${c}_host_share_$f
			ne=
			if [ $m = a64 ]; then
				ne=$(awk -v a="$(leaves_part st1.$c.csv)" -v b="$(leaves_part st2.$c.csv)" \
					-v n1="${n1:-0}" -v n2="${n2:-0}" 'BEGIN { printf "%.0f", a * n1 + b * n2 }')
				tm=$(awk -v a="$t1" -v b="$t2" 'BEGIN { print (a + b) / 200 }')
				want=$(samples_to_tell "$tm" "$tm")
				if awk -v a="$ne" -v w="$want" 'BEGIN { exit !(a < w) }'; then
					ok "$name # skip only $ne independent samples in the three leaves of the pair of runs (probe_neff), $want wanted to tell a share of $tm from none"
					continue
				fi
			fi
			v=$(awk -v s1="$s1" -v s2="$s2" -v t1="$t1" -v t2="$t2" -v n="$ne" 'function abs(x) { return x < 0 ? -x : x }
				BEGIN { d1 = s1 - t1; d2 = s2 - t2; d = abs((d1 + d2) / 2); p = (t1 + t2) / 200
				if (n == "") b = 2 + abs(d1 - d2)
				else b = 100 * (5 * sqrt(p * (1 - p) / n) + 1 / n)
				printf "%s %.1f", (s1 > 0 && s2 > 0 && t1 > 0 && t2 > 0 && d <= b) ? "ok" : "bad", b }')
			set -- $v
			of=${ne:+ for $ne independent samples}
			if [ "$1" = ok ]; then
				ok "$name ($s1, $s2 % of the three's samples; the run measured $t1, $t2 %; bound $2 pp$of)"
			else
				not_ok "$name" "$s1, $s2 % of the three's samples; the run measured $t1, $t2 %: more than $2 pp apart$of"
			fi
		done
	done
done
ok "a64_stacks_perf # skip qemu-user has no perf_event_open (ENOSYS): the perf clock is not served"

# ---- shares as the host's ---------------------------------------------------
# a64_split.c: three leaves of the same code, called 3 : 1 : 1, whose split
# of the CPU (60, 20, 20 %) is the same on any machine by construction
# (measured: the host 60.1 / 19.9 / 20.0 %, qemu-user 60.0 / 19.9 / 20.2 %).
# Each clock qemu serves, twice on each machine in turns (aarch64, host,
# aarch64, host: both see the same load); the host by its perf clock (one
# independent sample a period), at half the rounds (it runs them about
# twice as fast).  Each leaf's share of the three's samples on aarch64 (the
# pair's, each run weighted by its independent samples) against the host's
# (the pair's samples pooled): within 2 pp plus share_ok's sampling bound
# for both sides' samples (5 standard deviations of the difference of the
# two shares, plus one aarch64 sample).  qemu's samples are as many as the
# probe counted (probe_neff: the host's tick, 250 a CPU-second idle here,
# about 2 700 in a run of the default 200 000 rounds), of which the
# leaves' part.  Too few to tell (a bound more than half the leaf's share,
# which a leaf doing half or one and a half times its work would pass): a
# skip that names them.  With the defaults the bound is about 5.5 pp for
# leaf_a and 5 pp for the others: a fourth call of leaf_a a round on
# aarch64 only (4 : 1 : 1, 66.7 % against 60) fails leaf_a's check.
SPLIT_ROUNDS=${A64_SPLIT_ROUNDS:-200000}
$CC -O2 -g -fomit-frame-pointer -I"$ROOT/tests/progs" -o split "$ROOT/tests/aarch64/a64_split.c" ||
	not_ok a64_build_split
$HOST_CC -O2 -g -fomit-frame-pointer -I"$ROOT/tests/progs" -o split_host "$ROOT/tests/aarch64/a64_split.c" ||
	not_ok a64_build_split_host
# split_ticks FILE.csv [NAME]: the samples (ticks) of the leaf NAME, or of
# all three leaves (leaf_a, leaf_b, leaf_c: a64_split.c).
split_ticks() {
	awk -F, -v n="${2:-}" '$2 == "function" && $1 ~ /^leaf_[abc]$/ && (n == "" || $1 == n) { t += $8 }
	END { printf "%.1f\n", t }' "$1"
}
# split_part FILE.csv: the part (0 to 1) of the profile's function samples
# that are in the three leaves.
split_part() {
	awk -F, '$2 == "function" { a += $8; if ($1 ~ /^leaf_[abc]$/) t += $8 }
	END { printf "%.4f\n", (a > 0 ? t / a : 0) }' "$1"
}
# split_cpu FILE NAME: the leaf's percent of the three's CPU the run
# measured (a64_split's "cpu a S b S c S" line; NAME a, b or c).
split_cpu() {
	awk -v n="$2" '$1 == "cpu" { for (i = 2; i < NF; i += 2) { t += $(i + 1); if ($i == n) v = $(i + 1) } }
	END { printf "%.1f\n", (t > 0 ? 100 * v / t : 0) }' "$1"
}
# split_bound S NA NH: the bound in pp around a share of S % for NA
# aarch64 and NH host independent samples: 2 pp, and 5 standard deviations
# of the difference of the two shares plus one aarch64 sample.
split_bound() {
	awk -v s="$1" -v na="$2" -v nh="$3" 'BEGIN { p = s / 100
		if (na < 1 || nh < 1) { print 1e9; exit }
		printf "%.1f\n", 2 + 100 * (5 * sqrt(p * (1 - p) * (1 / na + 1 / nh)) + 1 / na) }'
}
for c in thread itimer; do
	for k in 1 2; do
		rm -f mon.out
		whole $c 4000 ./split "$SPLIT_ROUNDS" >split$k.$c.txt; rc=$?
		expect "a64_split_$c: exit 0 (run $k)" "$rc" 0
		"$PROF" --format=csv -m mon.out ./split >split$k.$c.csv 2>split$k.$c.err
		rm -f mon.out
		whole_host perf 4000 ./split_host $((SPLIT_ROUNDS / 2)) >split_host$k.$c.txt; rc=$?
		expect "a64_split_$c: host exit 0 (run $k)" "$rc" 0
		"$PROF" --format=csv -m mon.out ./split_host >split_host$k.$c.csv 2>split_host$k.$c.err
	done
	# Each aarch64 run's independent samples (the probe's), and those in
	# the three leaves; the host's samples in the three.
	n1=$(truth split1.$c.txt probe_neff) n2=$(truth split2.$c.txt probe_neff)
	np=$(awk -v a="${n1:-0}" -v b="${n2:-0}" 'BEGIN { printf "%.0f", a + b }')
	ne=$(awk -v p1="$(split_part split1.$c.csv)" -v p2="$(split_part split2.$c.csv)" \
		-v a="${n1:-0}" -v b="${n2:-0}" 'BEGIN { printf "%.0f", p1 * a + p2 * b }')
	nh=$(awk -v a="$(split_ticks split_host1.$c.csv)" -v b="$(split_ticks split_host2.$c.csv)" 'BEGIN { printf "%.0f", a + b }')
	for l in a b c; do
		name=a64_split_${c}_as_host_leaf_$l
		v=$(awk -v a1="$(split_ticks split1.$c.csv leaf_$l)" -v t1="$(split_ticks split1.$c.csv)" \
			-v a2="$(split_ticks split2.$c.csv leaf_$l)" -v t2="$(split_ticks split2.$c.csv)" \
			-v h1="$(split_ticks split_host1.$c.csv leaf_$l)" -v h2="$(split_ticks split_host2.$c.csv leaf_$l)" \
			-v e1="${n1:-0}" -v e2="${n2:-0}" -v nh="$nh" 'BEGIN {
			s1 = t1 > 0 ? a1 / t1 : 0; s2 = t2 > 0 ? a2 / t2 : 0
			w1 = t1 > 0 ? e1 : 0; w2 = t2 > 0 ? e2 : 0
			sa = w1 + w2 > 0 ? (w1 * s1 + w2 * s2) / (w1 + w2) : 0
			sh = nh > 0 ? (h1 + h2) / nh : 0
			printf "%.1f %.1f %.1f %.1f", 100 * sa, 100 * s1, 100 * s2, 100 * sh }')
		set -- $v
		sa=$1 s1=$2 s2=$3 sh=$4
		cpu="the runs measured $(split_cpu split1.$c.txt $l), $(split_cpu split2.$c.txt $l) % of the three's CPU on aarch64, $(split_cpu split_host1.$c.txt $l), $(split_cpu split_host2.$c.txt $l) % on the host"
		# Too few of the clock's samples (the probe's, whatever the
		# profile made of them) when the bound would be more than half
		# the share: a leaf doing half or one and a half times its work
		# would pass.
		bp=$(split_bound "$sh" "$np" "$nh")
		if awk -v b="$bp" -v s="$sh" 'BEGIN { exit !(s > 0 && b > s / 2) }'; then
			ok "$name # skip only $np independent samples on aarch64 (probe_neff, two runs), $nh on the host: the bound would be $bp pp, more than half the host's share of $sh %"
			continue
		fi
		b=$(split_bound "$sh" "$ne" "$nh")
		d=$(awk -v a="$sa" -v h="$sh" 'BEGIN { d = a - h; printf "%.1f\n", d < 0 ? -d : d }')
		what="aarch64 $sa % ($s1, $s2) of the three's samples, host $sh %: $d pp apart, bound $b pp for $ne and $nh independent samples; $cpu"
		if awk -v a="$sa" -v h="$sh" -v d="$d" -v b="$b" 'BEGIN { exit !(a > 0 && h > 0 && d <= b) }'; then
			ok "$name ($what)"
		else
			not_ok "$name" "$what"
		fi
	done
done

# ---- the ways out, fork, exec -----------------------------------------------
build_prog fatal mon_fatal.c -pg || not_ok a64_build_fatal
$CC -O1 -g -pg -o fatal_plain "$ROOT/tests/progs/mon_fatal.c" || not_ok a64_build_fatal_plain
for m in abort term segv; do
	rm -f mon.out
	sh -c "timeout 120 $QEMU ./fatal_plain $m" 2>/dev/null; want=$?
	sh -c "timeout 120 $QEMU ./fatal $m" 2>/dev/null; got=$?
	expect "a64_fatal_$m: same exit status as without libmon ($want)" "$got" "$want"
	dump mon.out check >/dev/null && ok "a64_fatal_$m: complete mon.out" ||
		not_ok "a64_fatal_$m: complete mon.out" "$(dump mon.out check 2>&1 | head -n 1)"
	expect "a64_fatal_$m: leaf counted" "$(dump mon.out calls leaf fatal)" 1234
	expect "a64_fatal_$m: written from a signal" "$(info mon.out reason)" 4
done
build_prog fork profil_fork.c || not_ok a64_build_fork
for c in thread itimer; do
	try "a64_profil_fork_both_sides_$c" env MONPROF_CLOCK=$c timeout 120 $QEMU "$T/fork"
done
# An exec'd aarch64 image runs only through binfmt_misc (scripts/
# ci-aarch64.sh registers qemu-aarch64 for aarch64 ELF files as root, and
# QEMU_LD_PREFIX gives each image the C library's place): tried first, by
# running an aarch64 program as any other.  Then monrun
# itself, an aarch64 program, runs the command by exec, and follows it:
#   a64_monrun_exec_CLOCK    an exec chain (stacks_paths exec 0.2 then run
#                            0.2): a file for each image, each image's own
#                            samples (>= 50, its program's phases), whole
#                            stacks (>= 99 % through main, or rooted at
#                            _start or the dynamic loader's entry; >= 90 %
#                            through main), read by the host's prof.  The
#                            cross C library's loader has no symbols: its
#                            entry, where the constructors' stacks end, is
#                            [ld-linux-aarch64.so.1] (a walk that ended
#                            early would be rooted at [truncated]); counted
#                            as _dl_start_user, 2 ticks of constructors in
#                            a 0.2 s image were 1.3 % "not whole" (proof 1
#                            of session 49; 3 of 8 files here, 1 of 8 with
#                            the tree before)
#   a64_monrun_fork_CLOCK    monrun -f, a fork child running the phases: the
#                            parent's file and the child's (named by its
#                            pid), each with whole stacks as above
# Mutation: the new image's environment without MONPROF_AUTO (follow.c
# exec_env_build's "MONPROF_AUTO=" misspelt): both clocks' second_image
# fail ("no profile mr.CLOCK/ex.out": the exec'd image not profiled).
a64_whole() { # NAME FILE: the verdict on FILE's stacks (prof --format=folded)
	if [ ! -s "$2" ]; then
		not_ok "$1" "no profile $2"
		return
	fi
	why=$("$PROF" --format=folded "$2" 2>/dev/null | awk '{ n = $NF; t += n
		if ($0 ~ /(^|;)main(;| )/) m += n
		else if ($0 ~ /^(_start|_dl_start_user|\[ld-linux-aarch64\.so\.1\])(;| )/) s += n }
		END { if (t < 50) printf "only %d samples", t
		else if (m + s < 0.99 * t) printf "%d of %d samples whole", m + s, t
		else if (m < 0.9 * t) printf "%d of %d samples through main", m, t }')
	if [ -z "$why" ]; then ok "$1"; else not_ok "$1" "$why"; fi
}
# Whether it can: an aarch64 program run as any other (its usage line).
$CC -O2 -g -fomit-frame-pointer -o paths "$ROOT/tests/progs/stacks_paths.c" || not_ok a64_build_paths
if [ -n "${QEMU_LD_PREFIX:-}" ] && timeout 60 ./paths 2>&1 | grep -q '^usage: stacks_paths'; then
	build_prog exec profil_exec.c || not_ok a64_build_exec
	try a64_profil_exec timeout 120 $QEMU "$T/exec"
	for c in thread itimer; do
		rm -rf mr.$c && mkdir mr.$c
		# (The host's dynamic linker, in qemu-aarch64 itself, says it
		# cannot preload the aarch64 libmon.so: on stderr, left.)
		timeout 300 "$B/bin/monrun" -c $c -o mr.$c/ex.out ./paths exec 0.2 ./paths run 0.2 \
			>mr.$c/ex.txt 2>mr.$c/ex.err
		expect "a64_monrun_exec_$c: exit 0" "$?" 0
		a64_whole "a64_monrun_exec_${c}_first_image" mr.$c/ex.out.exec1
		a64_whole "a64_monrun_exec_${c}_second_image" mr.$c/ex.out
		timeout 300 "$B/bin/monrun" -f -c $c -o mr.$c/f.out ./paths fork 0.2 >mr.$c/f.txt 2>mr.$c/f.err
		expect "a64_monrun_fork_$c: exit 0" "$?" 0
		child=$(awk '$1 == "pid" { print $2 }' mr.$c/f.txt | tail -n 1)
		a64_whole "a64_monrun_fork_${c}_parent" mr.$c/f.out
		a64_whole "a64_monrun_fork_${c}_child" "mr.$c/f.out.${child:-none}"
	done
else
	ok "a64_exec # skip an aarch64 program cannot be executed here (no binfmt_misc entry for aarch64 and QEMU_LD_PREFIX: scripts/ci-aarch64.sh sets both up as root): qemu-user cannot execute the new image"
fi

# ---- guest rules --------------------------------------------------------------
build_prog rtsig guest_rtsig.c || not_ok a64_build_rtsig
build_prog handlers guest_handlers.c || not_ok a64_build_handlers
for c in thread itimer; do
	rm -f mon.out
	try "a64_guest_rtsig_own_signals_only_$c" whole $c 1000 "$T/rtsig"
	try "a64_guest_handlers_usr_$c" whole $c 1000 "$T/handlers" usr
done

# The context a signal gives a handler at a system call, as itimer_cut reads
# it on this machine (mon_arch_context_result, mon_arch_after_syscall;
# tests/progs/arch_syscall_context.c, the host's arch_syscall.sh): qemu-user
# emulates the kernel's EINTR and restart of an interrupted call.
$CC -O1 -g -D_GNU_SOURCE -I"$ROOT/include" -I"$ROOT/lib" -I"$ROOT/lib/arch/aarch64" -I"$ROOT/format" \
	-o asc "$ROOT/tests/progs/arch_syscall_context.c" -lpthread || not_ok a64_build_arch_syscall
out=$(timeout 60 $QEMU ./asc a64_arch_syscall 2>&1); rc=$?
printf '%s\n' "$out"
case $out in
*"ok a64_arch_syscall_eintr"*"ok a64_arch_syscall_restart"*"ok a64_arch_syscall_after_call"*"ok a64_arch_syscall_result_reg"*) ;;
*) not_ok a64_arch_syscall_ran "exit $rc, not all four cases reported" ;;
esac

# ---- before main: a library's constructor ----------------------------------
# libmon starts at the first library's _init (__gmon_start__, called by
# aarch64's crti.o through call_weak_fn's tail call), so the constructor of
# the program's own library is profiled, and its stacks end at ld.so's
# frames whole, not [truncated] (here whole with or without unwind.c's
# zero-frame-pointer rule: the x86-64 suite's test of it is
# monrun_constructors.sh).
build_so libmonrun_ctor.so monrun_ctor_lib.c || not_ok a64_build_ctor_lib
build_plain ctor monrun_ctor.c -L"$T" -Wl,-rpath,"$T" -lmonrun_ctor -ldl || not_ok a64_build_ctor
rm -f mon.out
CTOR_SECONDS=0.3 whole thread 1000 ./ctor 0.3 >ctor.txt || not_ok a64_ctor_runs
"$PROF" --format=folded -m mon.out ./ctor >ctor.folded 2>ctor.err
awk '/ctor_spin/ { all += $NF; if ($0 ~ /^\[(truncated|jit)\]/) cut += $NF }
END {
	if (all > 0) printf "ok a64_ctor_sampled (%d samples)\n", all
	else print "not ok a64_ctor_sampled — ctor_spin has no sample"
	if (all > 0 && cut == 0) print "ok a64_ctor_stacks_whole"
	else printf "not ok a64_ctor_stacks_whole — %d of %d end early\n", cut, all }' ctor.folded
