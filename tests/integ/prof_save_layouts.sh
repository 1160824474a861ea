#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# prof --output sums files whose objects lie at several addresses (issue
# 22): a server's workers that dlopen() a library after the fork each load
# it where their own mappings leave room (nginx's workers and
# libnss_systemd), so one object has several load biases across the files.
# The merged file keeps each object at the bias of the first file that has
# it and moves the other files' addresses in it there; an object over
# another file's object moves above every object.
#   layouts_run           tests/progs/prof_forkdl.c under PROFDIR=DIR monrun
#                         -f: 7 files, liba.so at 2 or more addresses (the
#                         children's own report, dladdr), libb.so where
#                         liba.so lies in another child
#   layouts_saved         prof --output=m.mon DIR: exit 0, "7 profiles summed"
#   layouts_reads_as_dir  prof -m m.mon reads as prof DIR: the text report,
#                         CSV, --graph, folded stacks and --threads,
#                         pprof's functions (where Go is installed),
#                         --base=m.mon DIR all zero deltas
#   layouts_crafted_moved a crafted file with the golden stacks program at
#                         another bias (histogram, calls, arcs, stacks, wall
#                         samples and a futex word there) merges with one at
#                         bias 0: CSV, --graph, folded CPU and wall stacks as
#                         prof reads the two files
#   layouts_crafted_over  a file whose object (stacks2, a copy) lies over
#                         another file's (stacks): moved above it, read as
#                         the two files
#   layouts_refused_names the same object with text of another size is
#                         refused, naming the file its layout came from (not
#                         the first file given)
#   layouts_refused_jit_* samples in code of no object (PCS, or a stack
#                         frame the walk reached there) where another file
#                         has an object: refused in either order, naming
#                         both files
#   layouts_jit_elsewhere such samples where no file has an object: summed
# Mutations (tools/prof/save.c): the old refusal of another load bias
# fails _saved and the crafted ones; a stack PC not moved fails
# _reads_as_dir and _crafted_moved (folded); the histogram's range not
# moved fails them too (another histogram, its bins read against the
# first file's symbols elsewhere); the refusal naming files[0] fails
# _refused_names; no check of the PCS entries fails _refused_jit_jit and
# _obj (the file is written, the samples then stacks2's), of JIT stacks'
# frames _refused_jit_frame.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
. "$(dirname "$0")/monrun_lib.inc"
cd "$T" || exit 1

if build_plain fdl prof_forkdl.c -ldl && build_so liba.so prof_forkdl_lib.c -DLIB_SPIN=a_spin &&
   build_so libb.so prof_forkdl_lib.c -DLIB_SPIN=b_spin; then
	ok layouts_build
else
	not_ok layouts_build; exit 1
fi
mkdir -p d
PROFDIR=$T/d timeout 120 "$MONRUN" -f ./fdl "$T/liba.so" "$T/libb.so" 6 0.05 >run.out 2>run.err
rc=$?
cat run.out run.err
n=$(ls d | wc -l)
na=$(awk '$3 == "a_spin" { print $6 }' run.out | sort -u | wc -l)
# libb.so where liba.so lies in another child: the object over another's.
over=$(awk '$3 == "a_spin" { a[$6] = 1 } $3 == "b_spin" { b[$6] = 1 }
	END { for (x in b) if (x in a) n++; print n + 0 }' run.out)
echo "# $n files; liba.so at $na addresses; libb.so where liba.so is elsewhere: $over"
if [ $rc -eq 0 ] && [ "$n" -eq 7 ] && [ "$na" -ge 2 ]; then
	ok layouts_run
else
	not_ok layouts_run "exit $rc, $n files, liba.so at $na addresses (the children mapped 16 KiB or a library first: the kernel placed it at one address)"
fi

"$PROF" --output=m.mon d >save.out 2>save.err; rc=$?
cat save.err
if [ $rc -eq 0 ] && grep -q '^prof: m.mon: 7 profiles summed$' save.err; then
	ok layouts_saved
else
	not_ok layouts_saved "exit $rc: $(head -c 300 save.err)"
fi

same=1 why=""
# (JSON is CSV's rows with more digits: its percents, divided from sums
# made in another order, may differ in the 15th digit.)
for opts in "" "--format=csv" "--graph" "--format=folded" "--threads --format=folded"; do
	# shellcheck disable=SC2086
	"$PROF" $opts d >a.txt 2>/dev/null
	# shellcheck disable=SC2086
	"$PROF" $opts -m m.mon >b.txt 2>/dev/null
	if [ ! -s a.txt ] || ! cmp -s a.txt b.txt; then
		same=0 why="$why [$opts: $(diff a.txt b.txt | head -4 | tr '\n' ' ')]"
	fi
done
"$PROF" --format=csv --base=m.mon d >base.csv 2>/dev/null
# Columns: name,kind,object,percent,base_percent,delta_percent,seconds,base_seconds,delta_seconds
# (A delta of a sum made in another order may print as -0.000000.)
# (csv_plain: under ASan a row of libasan's is named with a comma, and
# its columns were read one off: "1 rows not zero", 1 run in 20.)
nz=$(csv_plain base.csv | csv_awk -F, 'NR > 1 && ($6 + 0 != 0 || $9 + 0 != 0)' | wc -l)
[ -s base.csv ] && [ "$nz" -eq 0 ] || { same=0 why="$why [--base: $nz rows not zero]"; }
if command -v go >/dev/null 2>&1; then
	gp() { HOME=$T GOCACHE=$T/gocache GOFLAGS=-mod=mod timeout 120 go tool pprof -top \
		-sample_index=samples "$@" 2>/dev/null | sed -n '/flat%/,$p'; }
	"$PROF" --format=pprof d >a.pb.gz 2>/dev/null
	"$PROF" --format=pprof -m m.mon >b.pb.gz 2>/dev/null
	gp a.pb.gz >a.top
	gp b.pb.gz >b.top
	[ -s a.top ] && cmp -s a.top b.top || { same=0 why="$why [pprof -top: $(diff a.top b.top | head -4 | tr '\n' ' ')]"; }
fi
"$PROF" --format=csv -m m.mon >m.csv 2>/dev/null
ta=$(ticks m.csv a_spin) tb=$(ticks m.csv b_spin)
echo "# m.mon: a_spin $ta ticks, b_spin $tb"
if [ $same -eq 1 ] && awk -v a="$ta" -v b="$tb" 'BEGIN { exit !(a > 0 && b > 0) }'; then
	ok layouts_reads_as_dir
else
	not_ok layouts_reads_as_dir "a_spin $ta, b_spin $tb ticks;$why"
fi

# --- crafted files: every record's addresses moved -------------------------------------
command -v as >/dev/null && command -v ld >/dev/null || { echo "SKIP no as/ld"; exit 77; }
build_prog_static craft prof_craft.c -I"$ROOT/format" || { not_ok craft_build; exit 1; }
SID=737461636b732d676f6c64656e2d31
as --64 -o stacks.o "$ROOT/tests/golden/stacks.s" &&
	ld -static -nostdlib --build-id=0x$SID -Ttext=0x401000 -o stacks stacks.o &&
	cp stacks stacks2 || { not_ok stacks_build; exit 1; }
QOFF=0x$(nm stacks | sed -n 's/^\([0-9a-f]*\) D queue_lock$/\1/p')
# A file of the stacks program at bias B: samples in work, hard, easy and
# worker, arcs main->hard->work, calls, wall samples and a futex word.
craft_at() {	# OUT PATH BIAS PID
	b=$3
	x() { printf '0x%x' $(($1 + b)); }
	_S=$(x 0x401008) _M=$(x 0x401020) _H=$(x 0x401060) _E=$(x 0x4010a0)
	_W=$(x 0x4010e0) _K=$(x 0x401160)
	./craft "$1" -o "$2:$(x 0):$(x 0x401000):$(x 0x401190):1:$SID" \
		-h "$(x 0x401000):$(x 0x401190):0x8000:100" -b 56:30 -b 40:10 -b 88:20 \
		-c "$(x 0x4010e4):7" -A "$(x 0x401064):$(x 0x4010e4):7" \
		-A "$(x 0x401024):$(x 0x401064):3" \
		-T "$4:main" -T "$(($4 + 1)):worker" \
		-k "30:$4:0:$_W,$_H,$_M,$_S" -k "10:$4:0:$_E,$_M,$_S" -k "20:$(($4 + 1)):0:$_K,$_S" \
		-W 100:2000000:200:3:4000:6000:0 -X "$4:200:200:0:main" \
		-X "$(($4 + 1)):200:196:4:worker" \
		-Y "1:2:0xffffffff:0:0:$QOFF:3:$(($4 + 1)):" \
		-w "160:$4:1:0xffffffff:0xffffffff:0" -w "40:$4:3:202:1:0:$_E,$_M,$_S" \
		-w "150:$(($4 + 1)):3:202:1:0:$_K,$_S" -E "1000000:1000:$4"
}
craft_at p1.mon "$T/stacks" 0 500 && craft_at moved.mon "$T/stacks" 0x10000 600 &&
	craft_at over.mon "$T/stacks2" 0 700 || { not_ok craft_files; exit 1; }
views() {	# PREFIX FILES...: the views compared
	p=$1; shift
	"$PROF" --format=csv "$@" >"$p.csv" 2>/dev/null
	"$PROF" --graph "$@" >"$p.graph" 2>/dev/null
	"$PROF" --format=folded "$@" >"$p.folded" 2>/dev/null
	"$PROF" --sample=wall --format=folded "$@" >"$p.wall" 2>/dev/null
	"$PROF" --sample=wall "$@" >"$p.walltext" 2>/dev/null
}
crafted() {	# NAME FILE: p1.mon and FILE merged read as the two
	"$PROF" --output="$2.sum" p1.mon "$2" >/dev/null 2>"$2.err"; rc=$?
	views two "$T/stacks" p1.mon "$2"
	views one "$T/stacks" -m "$2.sum"
	d=""
	for v in csv graph folded wall walltext; do
		[ -s "two.$v" ] && cmp -s "two.$v" "one.$v" || d="$d [$v: $(diff "two.$v" "one.$v" | head -4 | tr '\n' ' ')]"
	done
	w=$(csv_field one.csv work 8)
	echo "# $2: work $w ticks merged, $(csv_field two.csv work 8) read apart"
	if [ $rc -eq 0 ] && [ -z "$d" ] && [ "$w" = 60.000 ]; then
		ok "$1"
	else
		not_ok "$1" "exit $rc: $(head -c 300 "$2.err")$d"
	fi
}
crafted layouts_crafted_moved moved.mon
crafted layouts_crafted_over over.mon

# Not the same code (its text 0x70 bytes longer): refused, naming p1.mon,
# where the object's layout came from, not over.mon (the first file).
./craft bad.mon -o "$T/stacks:0x1000:0x402000:0x402200:1:$SID" -h 0x402000:0x402200:0x8000:100 \
	-b 56:5 -E 1000000:1000:800 || not_ok craft_bad
one_line_error layouts_refused_names 1 \
	"^prof: --output: bad.mon: $T/stacks at another address than in p1.mon, and its text not at the same offset from its load bias or not of the same size: not the same code, its samples cannot be summed$" \
	"$PROF" --output=bad.sum over.mon p1.mon bad.mon

# Samples in code of no object (PCS, a JIT's) where another file has an
# object: refused whichever file comes first, naming both; elsewhere they
# are summed and read as apart.
# jit.mon: JIT samples at 0x601100; obj2.mon: stacks2 at 0x601000.
./craft jit.mon -o "$T/stacks:0:0x401000:0x401190:1:$SID" -P 0x601100:5 -E 1000000:1000:900 &&
	./craft obj2.mon -o "$T/stacks2:0x200000:0x601000:0x601190:1:$SID" \
		-h 0x601000:0x601190:0x8000:100 -b 56:5 -E 1000000:1000:902 &&
	./craft jit2.mon -o "$T/stacks:0:0x401000:0x401190:1:$SID" -P 0x900000:5 -E 1000000:1000:901 &&
	./craft jit3.mon -o "$T/stacks:0:0x401000:0x401190:1:$SID" -h 0x401000:0x401190:0x8000:100 \
		-b 56:5 -k 5:903:2:0x4010e0,0x601100 -E 1000000:1000:903 ||
	not_ok craft_jit
for order in "jit.mon obj2.mon" "obj2.mon jit.mon"; do
	# shellcheck disable=SC2086
	one_line_error "layouts_refused_jit_$(echo $order | cut -c1-3)" 1 \
		"^prof: --output: jit.mon: samples at 0x601100, in code of no object \(a JIT's\), lie where obj2.mon has $T/stacks2: summed into one file they would be counted as that object's; read them with prof -m$" \
		"$PROF" --output=jit.sum $order
done
# The same for a stack frame there (a walk that reached JIT code).
one_line_error layouts_refused_jit_frame 1 \
	"^prof: --output: jit3.mon: samples at 0x601100, in code of no object \(a JIT's\), lie where obj2.mon has $T/stacks2: summed into one file they would be counted as that object's; read them with prof -m$" \
	"$PROF" --output=jit.sum jit3.mon obj2.mon
"$PROF" --output=jit2.sum p1.mon jit2.mon >/dev/null 2>jit2.err; rc=$?
"$PROF" --format=csv p1.mon jit2.mon >j2.csv 2>/dev/null
"$PROF" --format=csv -m jit2.sum >j1.csv 2>/dev/null
if [ $rc -eq 0 ] && [ -s j1.csv ] && cmp -s j1.csv j2.csv && grep -q '^\[anon\],object,' j1.csv; then
	ok layouts_jit_elsewhere
else
	not_ok layouts_jit_elsewhere "exit $rc: $(head -c 200 jit2.err) $(diff j1.csv j2.csv | head -4 | tr '\n' ' ')"
fi
