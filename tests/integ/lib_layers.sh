#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The runtime's arrows point one way: no two object files of lib/ each use
# a symbol the other defines (nm(1) on $B/obj/lib/*.o).  A pair that does
# is a cycle between two files; the check names both and the symbols.
# LAYERS_OBJ=DIR checks another directory of objects.
. "$(dirname "$0")/lib.sh"

NM=${NM:-nm}
dir=${LAYERS_OBJ:-$B/obj/lib}
set -- "$dir"/*.o
if [ ! -f "$1" ]; then
	not_ok lib_layers_objects "no objects in $dir"
	exit 1
fi
for o in "$@"; do
	n=$(basename "$o" .o)
	# Defined (global: T, D, B, R...) and undefined symbols of each file.
	$NM -g --defined-only "$o" | awk 'NF >= 3 { print $3 }' | sort -u >"$T/$n.def"
	$NM -u "$o" | awk '{ print $NF }' | sort -u >"$T/$n.use"
done
cycles=
for a in "$T"/*.def; do
	a=$(basename "$a" .def)
	for b in "$T"/*.def; do
		b=$(basename "$b" .def)
		[ "$a" \< "$b" ] || continue
		ab=$(comm -12 "$T/$a.use" "$T/$b.def" | tr '\n' ' ')
		ba=$(comm -12 "$T/$b.use" "$T/$a.def" | tr '\n' ' ')
		if [ -n "$ab" ] && [ -n "$ba" ]; then
			echo "# $a <-> $b: $a uses ${ab% }; $b uses ${ba% }"
			cycles="$cycles $a<->$b"
		fi
	done
done
echo "# $# object files in $dir"
if [ -z "$cycles" ]; then
	ok lib_layers_one_way
else
	not_ok lib_layers_one_way "files that use each other:$cycles"
fi
