#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# exec is followed, as perf follows it (issue 11): after exec the process
# is profiled in its new image; the old image's profile is kept as
# NAME.execN (mon.out.exec1, DIR/PID.name.exec1, FILE.exec1); prof says
# which programs ran and which one a file shows; a failed exec leaves no
# .exec file and profiling goes on; under -f the children that vfork or
# fork and exec are profiled in the program they exec; a -pg program
# (libmon linked, whole-process mode) is followed too.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"

if build_plain ex monrun_execs.c; then ok monrun_exec_build; else not_ok monrun_exec_build; fi
# A wrapper as version managers' shims are (the shared case exec-wrapper.sh).
printf '#!/bin/sh\nexec "$@"\n' >"$T/wrap.sh" && chmod +x "$T/wrap.sh"

files() { (cd "$1" && ls -A | sort | tr '\n' ' '); }

# Under AddressSanitizer libmon.so carries ASan's runtime, which cannot be
# preloaded into programs built without it (sh, gcc): the checks that exec
# them are left to the ordinary build.
asan=
case $CC in *-fsanitize=*address*) asan=1 ;; esac
skip_asan() { ok "$1 # skip exec of a program without ASan, under ASan"; }

# mostly NAME DATA FUNC: DATA reads back and FUNC has at least 80 % of its
# ticks (it is what that image did).
mostly() {
	if [ ! -s "$2" ]; then
		not_ok "$1" "no profile $2"
		return
	fi
	if ! prof_csv "$2" "$T/m.csv" "$T/ex"; then
		not_ok "$1" "prof: $(cat "$T/m.csv.err")"
		return
	fi
	k=$(ticks "$T/m.csv" "$3")
	tot=$("$PROF" -m "$2" --format=json 2>/dev/null | head -n 1 |
		sed -n 's/.*"total_ticks":\([0-9.]*\).*/\1/p')
	if awk -v k="$k" -v t="$tot" 'BEGIN { exit !(t > 0 && k >= 0.8 * t) }'; then
		ok "$1"
	else
		not_ok "$1" "$3 has $k of ${tot:-?} ticks"
	fi
}

# says NAME DATA PATTERN: prof's note on stderr about DATA matches PATTERN.
says() {
	"$PROF" -m "$2" >/dev/null 2>"$T/says.err"
	if grep -Eq -- "$3" "$T/says.err"; then ok "$1"; else
		not_ok "$1" "prof said: $(head -c 400 "$T/says.err")"; fi
}

if [ -n "$asan" ]; then
	for n in wrapper_files wrapper_profile_is_programs wrapper_prof_says_images \
	    wrapper_prof_says_old_image chain_files chain_first_image chain_last_image \
	    chain_prof_says_four output_one output_sum output_threads; do skip_asan monrun_exec_$n; done
else
# 1. A wrapper that execs the real program: the program's profile is
#    mon.out, the wrapper's mon.out.exec1.
d=$T/w && mkdir -p "$d"
(cd "$d" && "$MONRUN" "$T/wrap.sh" "$T/ex" work 0.3 >/dev/null)
got=$(files "$d")
if [ "$got" = "mon.out mon.out.exec1 " ]; then ok monrun_exec_wrapper_files; else
	not_ok monrun_exec_wrapper_files "files: $got"; fi
mostly monrun_exec_wrapper_profile_is_programs "$d/mon.out" real_work
says monrun_exec_wrapper_prof_says_images "$d/mon.out" \
    "ran 2 programs.*sh \(profile $d/mon.out.exec1\), then $T/ex \(shown here\)"
says monrun_exec_wrapper_prof_says_old_image "$d/mon.out.exec1" \
    "ran 2 programs.*sh \(shown here\), then $T/ex \(profiled in a file of its own\)"

# 1b. prof --output takes such files (a new user's `prof --output` of a -f
#     tree whose children exec'd was refused: "its process ran several
#     programs ... cannot be summed"): one file keeps its exec history and
#     reads back as it was read; two runs' files of the program sum as
#     prof reads the directory.  Mutation: save.c refusing IMAGES again
#     fails both.
"$PROF" --output="$T/w1.mon" "$d/mon.out" >/dev/null 2>"$T/w1.err"
rc=$?
"$PROF" -m "$d/mon.out" --format=csv >"$T/w0.csv" 2>/dev/null
"$PROF" -m "$T/w1.mon" --format=csv >"$T/w1.csv" 2>/dev/null
"$PROF" -m "$T/w1.mon" >/dev/null 2>"$T/w1.says"
if [ $rc -eq 0 ] && [ -s "$T/w0.csv" ] && cmp -s "$T/w0.csv" "$T/w1.csv" &&
    grep -q 'ran 2 programs' "$T/w1.says"; then
	ok monrun_exec_output_one
else
	not_ok monrun_exec_output_one "exit $rc: $(head -c 300 "$T/w1.err") | $(diff "$T/w0.csv" "$T/w1.csv" 2>&1 | head -n 4 | tr '\n' ' ')"
fi
mkdir -p "$T/wd"
for i in 1 2; do PROFDIR="$T/wd" "$MONRUN" "$T/wrap.sh" "$T/ex" work 0.1 >/dev/null; done
"$PROF" --program=ex --output="$T/ws.mon" "$T/wd" >/dev/null 2>"$T/ws.err"
rc=$?
"$PROF" --program=ex --format=csv "$T/wd" >"$T/wd.csv" 2>/dev/null
"$PROF" -m "$T/ws.mon" --format=csv >"$T/ws.csv" 2>/dev/null
if [ $rc -eq 0 ] && [ -s "$T/wd.csv" ] && cmp -s "$T/wd.csv" "$T/ws.csv"; then
	ok monrun_exec_output_sum
else
	not_ok monrun_exec_output_sum "exit $rc: $(head -c 300 "$T/ws.err") | $(ls "$T/wd" | tr '\n' ' ') | $(diff "$T/wd.csv" "$T/ws.csv" 2>&1 | head -n 4 | tr '\n' ' ')"
fi

# 2. The program works, then execs another that works: both profiles kept,
#    each with its own work; three images through two wrappers.
d=$T/t && mkdir -p "$d"
(cd "$d" && "$MONRUN" "$T/ex" then 0.3 "$T/wrap.sh" "$T/wrap.sh" "$T/ex" work 0.3 >/dev/null)
got=$(files "$d")
if [ "$got" = "mon.out mon.out.exec1 mon.out.exec2 mon.out.exec3 " ]; then
	ok monrun_exec_chain_files
else
	not_ok monrun_exec_chain_files "files: $got"
fi
# The first and last images are both ex: prof --output sums them, and the
# one thread (the same tid in both) has the CPU of both, as prof reading
# the two files says (before: the larger of the two, "155 %" sampled; a
# reviewer's finding).  Mutation: save.c appending THREADS without adding
# fails it.
"$PROF" --output="$T/chain.mon" "$d/mon.out.exec1" "$d/mon.out" >/dev/null 2>"$T/chain.err"
rc=$?
"$PROF" -s -m "$d/mon.out.exec1" "$d/mon.out" 2>&1 | grep "^thread " >"$T/chain.t0"
"$PROF" -s -m "$T/chain.mon" 2>&1 | grep "^thread " >"$T/chain.t1"
if [ $rc -eq 0 ] && threads_agree "$T/chain.t0" "$T/chain.t1"; then
	ok monrun_exec_output_threads
else
	not_ok monrun_exec_output_threads "exit $rc: $(head -c 200 "$T/chain.err") | read: $(cat "$T/chain.t0") | saved: $(cat "$T/chain.t1")"
fi
mostly monrun_exec_chain_first_image "$d/mon.out.exec1" before_exec_work
mostly monrun_exec_chain_last_image "$d/mon.out" real_work
says monrun_exec_chain_prof_says_four "$d/mon.out" \
    "ran 4 programs.*$T/ex \(profile $d/mon.out.exec1\), then .*sh \(profile $d/mon.out.exec2\), then .*sh \(profile $d/mon.out.exec3\), then $T/ex \(shown here\)"
fi

# 2b. A program that runs itself again through /proc/self/exe (as
#     test_rate_check does): its new image is recorded by its real path,
#     not the name the kernel made up (AT_EXECFN "/proc/self/exe", which
#     prof would open as itself), and prof reads it without the program
#     named.  Mutation: objects.c's made_up rule off: the profile names
#     /proc/self/exe, monrun_exec_self_path fails.
d=$T/self && mkdir -p "$d"
(cd "$d" && "$MONRUN" "$T/ex" then 0.1 /proc/self/exe work 0.3 >/dev/null)
if "$PROF" -m "$d/mon.out" >/dev/null 2>"$d.err" && grep -q "then $T/ex (shown here)" "$d.err" &&
    ! grep -q "/proc/self/exe (shown here)" "$d.err"; then
	ok monrun_exec_self_path
else
	not_ok monrun_exec_self_path "files: $(files "$d"); $(head -c 400 "$d.err")"
fi

# 2c. A later run in the same place rewrites mon.out and its own
#     mon.out.execN, and leaves the earlier run's higher ones: prof reading
#     mon.out names those (the lowest first) as another run's, and not the
#     new run's own; with none left over it says nothing of the kind (the
#     fresh user's finding: seven stale files of an env chain, unmentioned).
#     Mutations: the warning not given (stale_one, stale_two red);
#     images_before not counted (stale_one names mon.out.exec1: red).
d=$T/stale && mkdir -p "$d"
(cd "$d" && "$MONRUN" "$T/ex" then 0.05 "$T/ex" then 0.05 "$T/ex" work 0.05 >/dev/null)
"$PROF" -m "$d/mon.out" >/dev/null 2>"$d.err0"
(cd "$d" && "$MONRUN" "$T/ex" then 0.05 "$T/ex" work 0.05 >/dev/null)
"$PROF" -m "$d/mon.out" >/dev/null 2>"$d.err1"
(cd "$d" && "$MONRUN" "$T/ex" work 0.05 >/dev/null)
"$PROF" -m "$d/mon.out" >/dev/null 2>"$d.err2"
got=$(files "$d")
if [ "$got" = "mon.out mon.out.exec1 mon.out.exec2 " ] && ! grep -q 'earlier run' "$d.err0"
then ok monrun_exec_stale_none
else not_ok monrun_exec_stale_none "files: $got; $(grep 'earlier run' "$d.err0" | head -c 300)"; fi
if grep -q "1 file beside $d/mon.out (mon.out.exec2) is of an earlier run, not of this one: .*ran one program before the one it shows, whose profile is mon.out.exec1; .*remove them" "$d.err1"
then ok monrun_exec_stale_one
else not_ok monrun_exec_stale_one "$(head -c 500 "$d.err1")"; fi
if grep -q "2 files beside $d/mon.out (mon.out.exec1, mon.out.exec2) are of an earlier run, not of this one: .*ran no program before the one it shows" "$d.err2"
then ok monrun_exec_stale_two
else not_ok monrun_exec_stale_two "$(head -c 500 "$d.err2")"; fi

# 3. PROFDIR and -o: the same rule on those names.
d=$T/pd && mkdir -p "$d/dir"
(cd "$d" && PROFDIR="$d/dir" "$MONRUN" "$T/ex" then 0.1 "$T/ex" work 0.1 >/dev/null)
got=$(files "$d/dir")
if printf '%s\n' "$got" | grep -Eqx '([0-9]+)\.ex \1\.ex\.exec1 '; then ok monrun_exec_profdir_names; else
	not_ok monrun_exec_profdir_names "files: $got"; fi
d=$T/o && mkdir -p "$d/out"
(cd "$d" && "$MONRUN" -o "$d/out/run.prof" "$T/ex" then 0.1 "$T/ex" work 0.1 >/dev/null)
got=$(files "$d/out")
if [ "$got" = "run.prof run.prof.exec1 " ] && [ -z "$(ls -A "$d" | grep -v out)" ]; then
	ok monrun_exec_o_names
else
	not_ok monrun_exec_o_names "files: $got | $(files "$d")"
fi

# 4. A failed exec: no .exec file is left, and profiling goes on.
d=$T/f && mkdir -p "$d"
(cd "$d" && "$MONRUN" "$T/ex" fail 0.2 >/dev/null)
got=$(files "$d")
if [ "$got" = "mon.out " ]; then ok monrun_exec_failed_one_file; else
	not_ok monrun_exec_failed_one_file "files: $got"; fi
if prof_csv "$d/mon.out" "$T/f.csv" "$T/ex" &&
    awk -v a="$(ticks "$T/f.csv" real_work)" -v b="$(ticks "$T/f.csv" before_exec_work)" \
    'BEGIN { exit !(a > 0 && b > 0) }'; then
	ok monrun_exec_failed_profiling_goes_on
else
	not_ok monrun_exec_failed_profiling_goes_on "$(cat "$T/f.csv" "$T/f.csv.err" 2>/dev/null | head -5)"
fi

# 4b. Each image's CPU is its own: the kernel's counts (getrusage, the
#     thread's CPU clock) go on across exec, but what the earlier image
#     used is in its own file.  The program burns U1 before the exec and W
#     after: the new image's RUN and its thread say about W, not U1 + W,
#     and prof -s's coverage is about all of it (it said "54 %" of a
#     shell's loop then gzip, and warned).  Mutations:
#     monitor.c's RUN from getrusage alone fails exec_cpu_run; runfacts.c
#     without thread_since_exec fails exec_cpu_thread.
d=$T/cpu && mkdir -p "$d"
(cd "$d" && "$MONRUN" "$T/ex" then 0.6 "$T/ex" work 0.2 >"$d.out")
w=$(sed -n 's/^real_work //p' "$d.out")
"$PROF" -s -m "$d/mon.out.exec1" >"$d.s1" 2>&1
"$PROF" -s -m "$d/mon.out" >"$d.s2" 2>&1
# cpu FILE: "USER SYS" of its "CPU: U s user + S s system" line; thread
# FILE: the user CPU of its thread lines, summed.
cpu() { sed -n 's/^CPU: \([0-9.]*\) s user + \([0-9.]*\) s system.*/\1 \2/p' "$1"; }
thr() { awk '/^thread [0-9]+ .*: [0-9.]+ s user/ { for (i = 1; i < NF; i++) if ($(i + 1) == "s" && $(i + 2) == "user") u += $i } END { print u + 0 }' "$1"; }
set -- $(cpu "$d.s1") x x; u1=$1
set -- $(cpu "$d.s2") x x; u2=$1 s2=$2
t2=$(thr "$d.s2")
if awk -v u1="$u1" -v u2="$u2" -v s2="$s2" -v w="$w" \
    'BEGIN { exit !(u1 + 0 >= 0.3 && w + 0 > 0 && u2 + s2 >= 0.9 * w && u2 < w + u1 / 2) }'; then
	ok monrun_exec_cpu_run
else
	not_ok monrun_exec_cpu_run "before the exec ${u1:-?} s, real_work $w s, the new image's RUN ${u2:-?} s user + ${s2:-?} s system: $(grep -E '^(CPU|run|thread)' "$d.s2" | head -4)"
fi
if awk -v u1="$u1" -v t="$t2" -v w="$w" 'BEGIN { exit !(t > 0 && t < w + u1 / 2) }'; then
	ok monrun_exec_cpu_thread
else
	not_ok monrun_exec_cpu_thread "before the exec ${u1:-?} s, real_work $w s, the new image's threads $t2 s user: $(grep '^thread' "$d.s2" | head -3)"
fi
# Coverage as prof -s states it ("samples stand for S s = N % of the user
# CPU"): about all of it; with the earlier image's CPU counted, 25 %.  Not
# held to prof's own warning threshold: a loaded machine may skip ticks.
cov=$(sed -n 's/.*samples stand for [0-9.]* s = \([0-9]*\) %.*/\1/p' "$d.s2")
if [ -n "$cov" ] && [ "$cov" -ge 60 ]; then
	ok monrun_exec_cpu_coverage
else
	not_ok monrun_exec_cpu_coverage "coverage ${cov:-?} %: $(grep -E '^CPU|samples cover' "$d.s2" | head -2)"
fi

# 5. Children that vfork and exec (as gcc runs cc1), or that posix_spawn
#    starts (as make does): with -f the program they exec is profiled in a
#    file of its own (PID.ex); without -f not.
for how in vfork spawn; do
for f in "" -f; do
	d=$T/$how$f && mkdir -p "$d"
	(cd "$d" && "$MONRUN" $f "$T/ex" $how "$T/ex" work 0.3 >/dev/null)
	kids=$(ls "$d" | grep -E '^[0-9]+\.ex$')
	if [ -z "$f" ]; then
		if [ "$(files "$d")" = "mon.out " ]; then ok monrun_exec_${how}_not_followed_without_f
		else not_ok monrun_exec_${how}_not_followed_without_f "files: $(files "$d")"; fi
		# ... and prof says so, naming -f: a vfork or posix_spawn child
		# passes no fork handler (issue 22: FORKS counted fork() alone).
		# Mutation caught: the vfork_exec or spawned hook not set.
		"$PROF" "$d/mon.out" >/dev/null 2>"$d.err"
		if grep -q "the process forked 1 time without following its children (monrun without -f)" "$d.err"
		then ok monrun_exec_${how}_unfollowed_said
		else not_ok monrun_exec_${how}_unfollowed_said "$(head -c 300 "$d.err")"; fi
	elif [ "$(echo "$kids" | wc -w)" -eq 1 ]; then
		ok monrun_exec_${how}_followed_with_f
		mostly monrun_exec_${how}_child_profile "$d/$kids" real_work
		# The child's image before the exec took no sample and wrote
		# no profile: nothing of the process is elsewhere, and prof
		# says nothing of it (every stage of a shell pipeline is such
		# a child).  Mutation: the sentence given for any IMAGES.
		if [ $how = vfork ]; then
			"$PROF" "$d/$kids" >"$d.kid.out" 2>"$d.kid.err"
			if [ $? -eq 0 ] && grep -q real_work "$d.kid.out" && ! grep -q "ran 2 programs" "$d.kid.err"
			then ok monrun_exec_vfork_prof_quiet
			else not_ok monrun_exec_vfork_prof_quiet "$(head -c 300 "$d.kid.err")"; fi
		fi
	else
		not_ok monrun_exec_${how}_followed_with_f "files: $(files "$d")"
	fi
done
done

# 5b. dash runs each command in a vfork child (it finds the path itself):
#     two commands are two children.  Python's subprocess does too, and
#     its child tries each PATH directory with an exec of its own: two
#     commands found in PATH's fourth directory are still two children,
#     not eight (counted once per child).  Mutations caught: the
#     vfork_exec hook not set (no warning); the count by pid removed
#     (python: "forked 8 times").
vforks_said() { # NAME DIR COMMAND...: the file of COMMAND says 2 forks
	n=$1 d=$2 && shift 2 && mkdir -p "$d"
	(cd "$d" && PATH=/nonexistent/a:/nonexistent/b:/nonexistent/c:/usr/bin:/bin "$MONRUN" "$@")
	"$PROF" "$d/mon.out" >/dev/null 2>"$d.err"
	if grep -q "the process forked 2 times without following its children" "$d.err"
	then ok "$n"
	else not_ok "$n" "files: $(files "$d"); $(head -c 300 "$d.err")"; fi
}
if [ -n "$asan" ]; then
	skip_asan monrun_exec_dash_vfork_children_counted
	skip_asan monrun_exec_python_vfork_children_counted_once
else
	vforks_said monrun_exec_dash_vfork_children_counted "$T/dash" \
	    /bin/sh -c 'env >/dev/null; env >/dev/null; :'
	if [ -x /usr/bin/python3 ]; then
		vforks_said monrun_exec_python_vfork_children_counted_once "$T/py" /usr/bin/python3 -c \
		    'import subprocess
for i in range(2): subprocess.run(["env"], stdout=subprocess.DEVNULL, check=True)'
	else
		ok "monrun_exec_python_vfork_children_counted_once # skip /usr/bin/python3 absent (Debian: python3)"
	fi
fi

# 6. A -pg program linked with libmon (whole-process mode) that execs a
#    shell (the shared case exec-after-profiling.c): the shell finishes,
#    the program's profile is mon.out.exec1, the shell's mon.out, and the
#    program the shell runs as a fork child is profiled too (PID.ex), as
#    the -pg program's own fork children are.
cat >"$T/pgx.c" <<'C'
#include <stdio.h>
#include <unistd.h>
static volatile double sink;
__attribute__((noinline)) void pg_spin(long n) { for (long i = 0; i < n; i++) sink += i; }
int main(int argc, char **argv)
{
	pg_spin(100000000);
	execl("/bin/sh", "sh", "-c",
	      "i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done; \"$0\" work 0.1 >/dev/null; "
	      "echo child-finished", argc > 1 ? argv[1] : "true", (char *)0);
	perror("execl");
	return 1;
}
C
if build_prog pgx "$T/pgx.c" -pg; then
	d=$T/pg && mkdir -p "$d"
	out=$(cd "$d" && "$T/pgx" "$T/ex" 2>&1); rc=$?
	if [ $rc -eq 0 ] && [ "$out" = child-finished ]; then ok monrun_exec_pg_shell_finishes; else
		not_ok monrun_exec_pg_shell_finishes "exit $rc: $out"; fi
	got=$(files "$d")
	# (Under ASan the shell, built without it, does not follow its child.)
	kid='[0-9]+\.ex '
	[ -n "$asan" ] && kid="($kid)?"
	if printf '%s\n' "$got" | grep -Eqx "${kid}mon\.out mon\.out\.exec1 "; then
		ok monrun_exec_pg_files
	else
		not_ok monrun_exec_pg_files "files: $got"
	fi
	if prof_csv "$d/mon.out.exec1" "$T/pg.csv" "$T/pgx" &&
	    awk -v k="$(ticks "$T/pg.csv" pg_spin)" 'BEGIN { exit !(k > 0) }'; then
		ok monrun_exec_pg_old_image_kept
	else
		not_ok monrun_exec_pg_old_image_kept "$(head -c 300 "$T/pg.csv.err" 2>/dev/null)"
	fi
	says monrun_exec_pg_prof_says "$d/mon.out" "ran 2 programs.*pgx \(profile .*mon.out.exec1\), then .*sh \(shown here\)"
else
	not_ok monrun_exec_pg_build
fi

# 7. gcc -c under monrun -f: cc1 and as are profiled in files of their own.
if [ -n "$asan" ]; then
	skip_asan monrun_exec_gcc_cc1_profiled
elif command -v gcc >/dev/null 2>&1 && [ -n "$(gcc -print-prog-name=cc1 2>/dev/null | grep /)" ]; then
	d=$T/gcc && mkdir -p "$d"
	printf 'int f(int x) { return x * 2; }\n' >"$d/x.c"
	(cd "$d" && "$MONRUN" -f gcc -c x.c)
	cc1=$(ls "$d" | grep -E '^[0-9]+\.cc1$')
	if [ -n "$cc1" ] && "$PROF" -m "$d/$cc1" >/dev/null 2>"$T/cc1.err"; then
		ok monrun_exec_gcc_cc1_profiled
	else
		not_ok monrun_exec_gcc_cc1_profiled "files: $(files "$d") $(head -c 200 "$T/cc1.err" 2>/dev/null)"
	fi
else
	ok "monrun_exec_gcc_cc1_profiled # skip no gcc with cc1 here"
fi

# 8. A directory of many such profiles (a shell's fork-and-exec children
#    under -f gave one warning each, ten for one pipeline; a server's
#    children 139): the warning given for each file alike is shown for the
#    first file of each program and counted for the rest, once each (prof
#    --program's own test, prof_merge.sh programs_warnings_chosen, keeps one
#    of each of two programs); with several programs each one's warnings
#    name it (stderr has no headings).  Mutations: the per-file collapse off
#    (warn.c repeated() returning 0): 3 exec warnings and 3 fork warnings,
#    both _once checks fail; prof_warn_about per program off:
#    monrun_exec_dir_warnings_named fails.
d=$T/many && mkdir -p "$d/f" "$d/nof"
# (An image that burns, then execs: two files a process, each warning that
# the process's profile is in the other too; six files of ex.)
for i in 1 2 3; do
	(cd "$d" && PROFDIR="$d/f" "$MONRUN" -f "$T/ex" then 0.05 "$T/ex" work 0.05 >/dev/null)
	(cd "$d" && PROFDIR="$d/nof" "$MONRUN" "$T/ex" vfork "$T/ex" work 0.05 >/dev/null)
done
"$PROF" "$d/f" >/dev/null 2>"$d/f.err"
if [ "$(grep -c "this process ran 2 programs, one exec'ing the next" "$d/f.err")" -eq 1 ] &&
    grep -q "warning: 5 more profiles of [^ ]*/ex read are of processes that ran several programs" "$d/f.err"; then
	ok monrun_exec_dir_exec_warned_once
else
	not_ok monrun_exec_dir_exec_warned_once "$(files "$d/f"): $(head -c 600 "$d/f.err")"
fi
"$PROF" "$d/nof" >/dev/null 2>"$d/nof.err"
if [ "$(grep -c "the process forked 1 time without following its children" "$d/nof.err")" -eq 1 ] &&
    grep -q "warning: 2 more profiles of [^ ]*/ex read are of processes that forked children without following them (monrun without -f)" "$d/nof.err"; then
	ok monrun_exec_dir_forks_warned_once
else
	not_ok monrun_exec_dir_forks_warned_once "$(files "$d/nof"): $(head -c 600 "$d/nof.err")"
fi
# One more: said in the singular (a fresh user's "1 more profile of
# /usr/bin/sh read are of processes ...").
set -- "$d"/nof/*
"$PROF" -m "$1" "$2" >/dev/null 2>"$d/nof2.err"
if grep -q "warning: 1 more profile of [^ ]*/ex read is of a process that forked children without following them (monrun without -f)" "$d/nof2.err"; then
	ok monrun_exec_dir_forks_warned_one
else
	not_ok monrun_exec_dir_forks_warned_one "$(head -c 600 "$d/nof2.err")"
fi
if [ -n "$asan" ]; then
	skip_asan monrun_exec_dir_warnings_named
else
	# /bin/true takes no sample: its "no samples" warning names it (at
	# 100 Hz: at the default 1 kHz its start-up took a tick once, on a
	# loaded machine, and gave no such warning).
	(cd "$d" && PROFDIR="$d/nof" "$MONRUN" -r 100 /bin/true)
	"$PROF" "$d/nof" >/dev/null 2>"$d/two.err"
	if grep -q "^prof: warning: /[a-z/]*/true: no samples" "$d/two.err"; then
		ok monrun_exec_dir_warnings_named
	else
		not_ok monrun_exec_dir_warnings_named "$(head -c 600 "$d/two.err")"
	fi
fi
# An exec'd program that the loader will not preload libmon into: prof
# names it not profiled, and why (FACTS' MONOUT_FACT_NEXT_STATIC, _SETID,
# lib/follow.c).  Before, "(profiled in a file of its own)" for a static Go
# program that wrote nothing (a new user's `monrun env ./static-go`).
#   monrun_exec_next_static    env runs a static program found in PATH
#   monrun_exec_next_setid     sh execs a set-user-ID copy of id(1) owned by
#                              nobody (as root, where the mount honours it)
#   monrun_exec_next_dynamic   env runs true: still "profiled in a file of
#                              its own"
# Mutation: mon_follow_looks_at giving mon_facts_next_image 0: _static and
# _setid fail.
if [ -n "$asan" ]; then
	skip_asan monrun_exec_next_static
	skip_asan monrun_exec_next_setid
	skip_asan monrun_exec_next_dynamic
else
	d=$T/next && mkdir -p "$d/bin"
	printf 'int main(void) { return 0; }\n' >"$d/st.c"
	if cc -static -o "$d/bin/stprog" "$d/st.c" 2>"$d/cc.err"; then
		(cd "$d" && "$MONRUN" -o "$d/st.mon" env PATH="$d/bin:$PATH" stprog)
		"$PROF" -m "$d/st.mon.exec1" >/dev/null 2>"$d/st.err"
		if grep -q "then stprog (not profiled: it is statically linked, so no loader ran in it to preload libmon; link it dynamically" "$d/st.err" &&
		    [ ! -e "$d/st.mon" ]; then
			ok monrun_exec_next_static
		else
			not_ok monrun_exec_next_static "$(files "$d"): $(head -c 600 "$d/st.err")"
		fi
	else
		ok "monrun_exec_next_static # skip no static C library: $(head -c 200 "$d/cc.err")"
	fi
	if [ "$(id -u)" -eq 0 ] && cp "$(command -v id)" "$d/sid" && chown nobody "$d/sid" &&
	    chmod 4755 "$d/sid" && "$d/sid" | grep -q 'euid='; then
		(cd "$d" && "$MONRUN" -o "$d/sid.mon" sh -c "exec $d/sid" >"$d/sid.out")
		"$PROF" -m "$d/sid.mon.exec1" >/dev/null 2>"$d/sid.err"
		if grep -q "then $d/sid (not profiled: it is set-user-ID or set-group-ID, and the loader ignores LD_PRELOAD for it" "$d/sid.err" &&
		    grep -q 'euid=' "$d/sid.out"; then
			ok monrun_exec_next_setid
		else
			not_ok monrun_exec_next_setid "$(files "$d"): $(head -c 600 "$d/sid.err")"
		fi
	else
		ok "monrun_exec_next_setid # skip not root, or set-user-ID bits not honoured here (a nosuid mount)"
	fi
	(cd "$d" && "$MONRUN" -o "$d/dy.mon" env true)
	"$PROF" -m "$d/dy.mon.exec1" >/dev/null 2>"$d/dy.err"
	if grep -q "then true (profiled in a file of its own)" "$d/dy.err" && [ -e "$d/dy.mon" ]; then
		ok monrun_exec_next_dynamic
	else
		not_ok monrun_exec_next_dynamic "$(files "$d"): $(head -c 600 "$d/dy.err")"
	fi
fi
