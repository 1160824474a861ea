#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The fuzz harnesses without libFuzzer: every reader (mon.out, gmon.out,
# ELF symbols, the unwinder's CFI compiler) is fed its seed corpus (remade by fuzz/make-seeds.sh from the
# programs the tests build) and every input that once made a harness fail
# (fuzz/regress/NAME/), through fuzz/replay.c.  Each harness's own checks
# abort on a broken invariant; the replay is built with ASan and UBSan when
# the compiler has them, so a read past the end fails here too, not only
# under make fuzz.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 1

SAN=
case "$CC" in
*-fsanitize=*) ;;
*) echo 'int main(void){return 0;}' >probe.c
   if $CC -fsanitize=address,undefined -o probe probe.c 2>/dev/null && ./probe; then
	SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
   fi ;;
esac
WARN="-std=gnu11 -Wall -Wextra -Wshadow -Wpointer-arith -Wformat=2 -Werror"
# The same libraries as the Makefile's prof (debuginfod when installed).
PKGS="libelf libdw liblzma"
DFLAG=
pkg-config --exists libdebuginfod 2>/dev/null && PKGS="$PKGS libdebuginfod" DFLAG=-DHAVE_DEBUGINFOD
ELF_CFLAGS="$(pkg-config --cflags $PKGS 2>/dev/null) $DFLAG"
ELF_LIBS=$(pkg-config --libs $PKGS 2>/dev/null || echo -lelf -ldw -llzma)
F=$ROOT/fuzz

# prof's readers come from prof's internal archive, as in prof itself: the
# build's own (B/tools/libprof.a) when this CC already sanitizes, else the
# same archive rule of the Makefile run once more with the sanitizers on.
PROF_A=$B/tools/libprof.a
if [ -n "$SAN" ]; then
	if make -s -C "$ROOT" --no-print-directory B="$T/san" CC="$CC $SAN" CFLAGS="-O1 -g" WERROR=1 \
		prof-archive >san.log 2>&1; then
		PROF_A=$T/san/tools/libprof.a
		ok replay_build_prof_archive
	else
		not_ok replay_build_prof_archive "$(tail -5 san.log)"
	fi
fi
build() {
	name=$1; shift
	if $CC -O1 -g $SAN $WARN -D_GNU_SOURCE -I"$ROOT/format" -I"$ROOT/tools/prof" $ELF_CFLAGS \
		-o "replay_$name" "$F/replay.c" "$F/fuzz_$name.c" "$@" 2>"build_$name.err"; then
		ok "replay_build_$name"
	else
		not_ok "replay_build_$name" "$(head -5 "build_$name.err")"
		return 1
	fi
}
build monout "$ROOT"/format/*.c
build gmon "$PROF_A" $ELF_LIBS -lm
build symtab "$PROF_A" "$ROOT"/format/*.c $ELF_LIBS -lm
# The unwinder's CFI compiler (lib/cfi.c) and its machine's rules.
build cfi -I"$ROOT/lib" -I"$ROOT/lib/arch/$(uname -m)" "$ROOT/lib/cfi.c" "$ROOT/lib/arch/$(uname -m)/arch.c"

if sh "$F/make-seeds.sh" "$T/seeds" "$B" >seeds.log 2>&1; then
	ok make_seeds
else
	not_ok make_seeds "$(tail -3 seeds.log)"
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1}
for name in monout gmon symtab cfi; do
	[ -x "replay_$name" ] || continue
	# The seeds must exist: a corpus that silently shrank to nothing would
	# make this check pass without testing anything.
	nseed=$(ls "seeds/$name" 2>/dev/null | wc -l)
	if [ "$nseed" -ge 3 ] && "./replay_$name" "seeds/$name" >"seeds_$name.out" 2>&1; then
		ok "seeds_$name"
	else
		not_ok "seeds_$name" "$nseed seeds; $(tail -5 "seeds_$name.out" 2>/dev/null)"
	fi
	dir=$F/regress/$name
	[ -d "$dir" ] || continue
	for f in "$dir"/*; do
		[ -f "$f" ] || continue
		if "./replay_$name" "$f" >one.out 2>&1; then
			ok "regress_${name}_$(basename "$f")"
		else
			not_ok "regress_${name}_$(basename "$f")" "$(grep -m3 -E 'ERROR|runtime error|Abort|SUMMARY' one.out)"
		fi
	done
done
