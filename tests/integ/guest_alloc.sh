#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The program's allocator stays its own (lib/alloc.c): a program whose
# malloc family is not ready before main (a 2 KiB bootstrap arena that
# aborts when exhausted) and counts its calls sees exactly the calls it
# sees unprofiled — before main, around creating a thread, during
# mon_write — under monrun, and built with cc -pg (libmon linked); the same
# with an arena big enough never to abort (so every extra call shows as a
# number); and none after exit began (its malloc aborts then).  libmon's
# own objects reference none of the C library functions that allocate for
# their caller (getcwd and realpath are called with a buffer of libmon's; the runs above
# would count a getcwd(NULL, 0)).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/monrun_lib.inc"

mkdir -p "$T/run"
cd "$T/run" || exit 1
unset PROFDIR
case $CC in
*-fsanitize=*)
	# The sanitizer's allocator is the program's there: a program cannot
	# bring its own.  The check of libmon's objects below still runs.
	ok "guest_alloc_program_allocator # skip under a sanitizer ($CC)"
	set -- ;;
*) set -- 2048 1048576 ;;
esac
for a in "$@"; do
	build_plain plain$a guest_alloc.c -DARENA=$a -pthread -ldl || not_ok guest_alloc_build
	build_prog pg$a guest_alloc.c -DARENA=$a -pg -ldl || not_ok guest_alloc_build_pg
	"$T/plain$a" >"$T/want$a" 2>&1 || not_ok "guest_alloc_plain_$a" "$(cat "$T/want$a")"
	for how in monrun pg; do
		if [ $how = monrun ]; then
			"$MONRUN" "$T/plain$a" >"$T/got$a.$how" 2>&1
		else
			"$T/pg$a" >"$T/got$a.$how" 2>&1
		fi
		rc=$?
		[ $rc -eq 0 ] && ok "guest_alloc_runs_${how}_$a" ||
			not_ok "guest_alloc_runs_${how}_$a" "exit $rc: $(head -n 1 "$T/got$a.$how")"
		for k in premain_calls thread_calls; do
			w=$(awk -v k=$k '$1 == k { print $2 }' "$T/want$a")
			g=$(awk -v k=$k '$1 == k { print $2 }' "$T/got$a.$how")
			[ -n "$w" ] && [ "$w" = "$g" ] && ok "guest_alloc_${k}_${how}_$a" ||
				not_ok "guest_alloc_${k}_${how}_$a" "got '$g', unprofiled '$w'"
		done
		g=$(awk '$1 == "write_calls" { print $2 }' "$T/got$a.$how")
		[ "$g" = 0 ] && ok "guest_alloc_write_calls_${how}_$a" ||
			not_ok "guest_alloc_write_calls_${how}_$a" "got '$g'"
	done
done

# No reference to the allocating functions in libmon's own objects.
bad=$(nm -u "$B"/pic/lib/*.o 2>/dev/null | awk '{ print $2 }' | sort -u |
      grep -xE 'malloc|calloc|realloc|reallocarray|free|strdup|strndup|get_current_dir_name|opendir|fdopendir|scandir|qsort|setenv|putenv|asprintf|vasprintf|open_memstream|fopen|fdopen|printf|fprintf|dlerror|posix_memalign|aligned_alloc|memalign|valloc' |
      tr '\n' ' ')
[ -z "$bad" ] && ok guest_alloc_no_allocating_calls || not_ok guest_alloc_no_allocating_calls "$bad"
