#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# prof --format=pprof: a gzipped perftools.profiles.Profile that a decoder
# independent of ours reads (protoc --decode, against the interface written
# below from the field numbers of pprof's proto/profile.proto) and that
# agrees with prof's own CSV and JSON on the same mon.out: string table with
# "" first, the four sample types, per function samples, CPU nanoseconds and
# calls, the arcs as two-location samples with only arc-calls, the mapping's
# file and build ID, period, duration, warnings as comments.  Then, where Go
# is installed, `go tool pprof -top` (flat and -cum) agrees too.
# Twice (export_modes): on a profile with the runtime's call stacks, where
# a function's samples are in stack samples whose leaf it is and -cum is
# prof's inclusive time, and on a flat-only one (MONPROF_STACK_DEPTH=0).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prof_lib.inc"
export_modes
cd "$T" || exit 1
H=37 S=23 L=41 UNIT=2000000
build_prog mw prof_work.c -pg || { not_ok pprof_build; exit 1; }
mode_run ./mw $H $S $L $UNIT >/dev/null
[ -s mon.out ] || { not_ok pprof_mon_out "no mon.out written"; exit 1; }
"$PROF" --format=csv ./mw >p.csv 2>/dev/null
stacks_said p.csv || { not_ok pprof_stacks_mode "$EXPORT_MODE: $(head -n 1 p.csv)"; exit 1; }
"$PROF" --format=json ./mw >p.json 2>/dev/null
"$PROF" --format=pprof ./mw >p.pb.gz 2>p.err
rc=$?
json_num() { sed -n "s/.*\"$1\":\([0-9.e+-]*\).*/\1/p" p.json | head -n 1; }

if [ $rc -eq 0 ] && only_warnings p.err && gzip -t p.pb.gz 2>/dev/null; then ok pprof_gzip
else not_ok pprof_gzip "exit $rc, $(head -c 200 p.err)"; fi

# The interface: message and field numbers as profile.proto gives them.
cat >profile.proto <<'EOF'
syntax = "proto3";
package perftools.profiles;
message Profile {
  repeated ValueType sample_type = 1;
  repeated Sample sample = 2;
  repeated Mapping mapping = 3;
  repeated Location location = 4;
  repeated Function function = 5;
  repeated string string_table = 6;
  int64 drop_frames = 7;
  int64 keep_frames = 8;
  int64 time_nanos = 9;
  int64 duration_nanos = 10;
  ValueType period_type = 11;
  int64 period = 12;
  repeated int64 comment = 13;
  int64 default_sample_type = 14;
}
message ValueType { int64 type = 1; int64 unit = 2; }
message Sample {
  repeated uint64 location_id = 1;
  repeated int64 value = 2;
  repeated Label label = 3;
}
message Label { int64 key = 1; int64 str = 2; int64 num = 3; int64 num_unit = 4; }
message Mapping {
  uint64 id = 1; uint64 memory_start = 2; uint64 memory_limit = 3; uint64 file_offset = 4;
  int64 filename = 5; int64 build_id = 6; bool has_functions = 7; bool has_filenames = 8;
  bool has_line_numbers = 9; bool has_inline_frames = 10;
}
message Location {
  uint64 id = 1; uint64 mapping_id = 2; uint64 address = 3; repeated Line line = 4;
  bool is_folded = 5;
}
message Line { uint64 function_id = 1; int64 line = 2; int64 column = 3; }
message Function {
  uint64 id = 1; int64 name = 2; int64 system_name = 3; int64 filename = 4; int64 start_line = 5;
}
EOF

# protoc's text form, flattened into lines:
#   string0 S | types T/U ... | default T | period N | period_type T/U |
#   duration N | comment TEXT | mapping ID FILE BUILDID |
#   flat FUNCTION V1 V2 V3 V4 (a one-location sample) |
#   arc CALLEE CALLER V1 V2 V3 V4 (a two-location sample) |
#   stack N V1 V2 V3 V4 (more locations) |
#   leaf FUNCTION V1 V2 V3 V4 (every sample, by its first location)
flatten() {
	awk '
	function str(v) { return S[v + 0] }
	/\{$/ { st[++d] = $1; if (d == 1) { cur = ++n[$1] }; next }
	/^ *\}$/ { d--; next }
	{
		k = $1; sub(/:$/, "", k); v = $0; sub(/^[^:]*: /, "", v)
		if (v ~ /^".*"$/) v = substr(v, 2, length(v) - 2)
		top = st[1]
		if (d == 0) {
			if (k == "string_table") S[ns++] = v
			else if (k == "comment") C[nc++] = v
			else G[k] = v
		} else if (top == "sample") {
			if (k == "location_id") SL[cur, SN[cur]++] = v
			else if (k == "value") SV[cur, VN[cur]++] = v
		} else if (top == "location") {
			if (d == 1) LO[cur, k] = v
			else if (k == "function_id" && !((cur, "fn") in LO)) LO[cur, "fn"] = v
		} else if (top == "function") FU[cur, k] = v
		else if (top == "mapping") MA[cur, k] = v
		else if (top == "sample_type") ST[cur, k] = v
		else if (top == "period_type") PT[k] = v
	}
	END {
		printf "string0 \"%s\"\n", S[0]
		t = "types"
		for (i = 1; i <= n["sample_type"]; i++) t = t " " str(ST[i, "type"]) "/" str(ST[i, "unit"])
		print t
		print "default", str(G["default_sample_type"])
		print "period", G["period"] + 0
		print "period_type", str(PT["type"]) "/" str(PT["unit"])
		print "duration", G["duration_nanos"] + 0
		for (i = 0; i < nc; i++) print "comment", str(C[i])
		for (i = 1; i <= n["mapping"]; i++)
			print "mapping", MA[i, "id"], str(MA[i, "filename"]), str(MA[i, "build_id"])
		for (i = 1; i <= n["function"]; i++) FN[FU[i, "id"]] = str(FU[i, "name"])
		for (i = 1; i <= n["location"]; i++) LF[LO[i, "id"]] = FN[LO[i, "fn"]]
		for (i = 1; i <= n["sample"]; i++) {
			v = ""
			for (j = 0; j < VN[i]; j++) v = v " " SV[i, j] + 0
			if (SN[i] == 1) print "flat", LF[SL[i, 0]] v
			else if (SN[i] == 2) print "arc", LF[SL[i, 0]], LF[SL[i, 1]] v
			else print "stack", SN[i] v
			print "leaf", LF[SL[i, 0]] v
		}
	}'
}

if ! command -v protoc >/dev/null 2>&1; then
	for t in string_table values shares arcs mapping period comments; do
		ok "pprof_protoc_$t # skip protoc absent (Debian: protobuf-compiler)"
	done
elif ! gzip -dc p.pb.gz | protoc --decode=perftools.profiles.Profile profile.proto >p.txt 2>p.perr
then
	not_ok pprof_protoc_decode "$(head -c 300 p.perr)"
else
	flatten <p.txt >p.flat
	if grep -qx 'string0 ""' p.flat &&
	   grep -qx 'types samples/count cpu/nanoseconds calls/count arc-calls/count' p.flat &&
	   grep -qx 'default cpu' p.flat; then ok pprof_protoc_string_table
	else not_ok pprof_protoc_string_table "$(head -n 3 p.flat)"; fi

	# Per function, adding up the samples whose leaf it is (its stack
	# samples and its one-location sample, arcs having only arc-calls):
	# samples = CSV ticks (each sample's value rounded: within 0.5 a
	# sample), CPU = CSV seconds (6 decimals) within 1 us a sample, calls
	# = CSV calls, arc-calls 0.  With stacks, main's leaf samples are few
	# (its time is in heavy, hidden and light).
	bad=
	for f in heavy hidden light main; do
		want=$(csv_awk -F, -v n=$f '$1 == n { printf "%.3f %.0f %d", $8, $6 * 1e9, $9 }' p.csv)
		got=$(awk -v n=$f '$1 == "leaf" && $2 == n && $6 == 0 { k++; s += $3; c += $4; n1 += $5 }
			END { if (k) print s, c, n1, k }' p.flat)
		awk -v w="$want" -v g="$got" 'BEGIN {
			split(w, a); split(g, b); d = a[2] - b[2]; if (d < 0) d = -d
			e = a[1] - b[1]; if (e < 0) e = -e
			exit !(g != "" && e <= 0.5 * b[4] && d <= 1000 * b[4] && a[3] == b[3]) }' ||
			bad="$bad $f: want '$want' got '$got';"
	done
	[ -z "$bad" ] && ok pprof_protoc_values || agree_not_ok pprof_protoc_values "$bad"

	# Shares: each function's CPU by leaf over the total CPU of the
	# samples is the CSV's percent (6 decimals), and the total is JSON's.
	tot=$(json_num total_seconds)
	# (Rows of the same name, in two objects, add up on both sides.)
	bad=$(csv_awk -v tot="$tot" 'NR == FNR { if ($1 == "leaf") { c[$2] += $4; s += $4 }; next }
		FNR > 1 && ($1 in c) { pc[$1] += $5 }
		END { for (n in pc) { d = 100 * c[n] / s - pc[n]; if (d < 0) d = -d
				if (d > 1e-4) printf "%s %s%% vs %s%%; ", n, 100 * c[n] / s, pc[n] }
			d = s - tot * 1e9; if (d < 0) d = -d; if (d > 1000) printf "total %s vs %s", s, tot }' \
		p.flat FS=, p.csv)
	[ -z "$bad" ] && ok pprof_protoc_shares || agree_not_ok pprof_protoc_shares "$bad"

	# The arcs: main into each worker, the count as arc-calls only.
	if grep -qx "arc heavy main 0 0 0 $H" p.flat && grep -qx "arc hidden main 0 0 0 $S" p.flat &&
	   grep -qx "arc light main 0 0 0 $L" p.flat; then ok pprof_protoc_arcs
	else not_ok pprof_protoc_arcs "$(grep '^arc' p.flat | tr '\n' ';')"; fi

	# Mapping 1: the program, with its build ID.
	if awk -v b="$(build_id mw)" '$1 == "mapping" && $2 == 1 && $3 ~ /(^|\/)mw$/ && $4 == b { f = 1 }
	   END { exit !f }' p.flat; then ok pprof_protoc_mapping
	else not_ok pprof_protoc_mapping "$(grep '^mapping' p.flat | head -n 2 | tr '\n' ';')"; fi

	# Period: 1e9 / the rate (JSON), in CPU nanoseconds; a duration.
	rate=$(json_num rate_hz)
	if awk -v r="$rate" '$1 == "period" { p = $2 } $1 == "period_type" { t = $2 }
	   $1 == "duration" { d = $2 }
	   END { w = 1e9 / r; e = p - w; if (e < 0) e = -e; exit !(e <= 0.5 && t == "cpu/nanoseconds" && d > 0) }' p.flat
	then ok pprof_protoc_period
	else not_ok pprof_protoc_period "rate $rate: $(grep '^period\|^duration' p.flat | tr '\n' ';')"; fi

	# Warnings become comments: a profile of a stripped copy of the
	# program warns, and the same words are in the pprof file.
	cp mw mws && strip mws
	"$PROF" --format=pprof -m mon.out ./mws >s.pb.gz 2>s.err
	w=$(sed -n 's/^prof: warning: //p' s.err | head -n 1)
	if [ -n "$w" ] && gzip -dc s.pb.gz | protoc --decode=perftools.profiles.Profile profile.proto |
	   flatten | grep -qxF "comment warning: $w"; then ok pprof_protoc_comments
	else not_ok pprof_protoc_comments "warning '$w'"; fi

	# The comment that says what arc-calls samples are: only in a profile
	# that has them (the -pg one), not in one without call counts (a new
	# user saw it in every header of go tool pprof -top).
	build_prog mnp prof_work.c || not_ok pprof_build_plain
	MONPROF_OUT=np.out "$B/bin/monrun" -o np.out ./mnp $H $S $L $UNIT >/dev/null 2>&1
	"$PROF" --format=pprof -m np.out ./mnp >np.pb.gz 2>/dev/null
	if gzip -dc np.pb.gz | protoc --decode=perftools.profiles.Profile profile.proto |
	   flatten >np.flat && grep -q '^types ' np.flat && ! grep -q 'arc-calls samples are' np.flat &&
	   grep -q '^comment monprof prof: arc-calls samples are' p.flat; then
		ok pprof_protoc_arc_comment
	else
		not_ok pprof_protoc_arc_comment "$(grep '^types\|^comment' np.flat p.flat | head -n 4 | tr '\n' ' ')"
	fi
fi

# go tool pprof, where installed (Debian's golang-go; scripts/deps.sh
# installs it for CI): -top by cpu in ns, -top -cum, and -top by calls and
# arc-calls agree with prof's CSV.
# (-nodefraction=0: pprof drops nodes under 0.5 % by default.)
if ! command -v go >/dev/null 2>&1; then
	for t in top_cpu top_cum top_calls top_arcs; do
		ok "pprof_go_$t # skip go absent (Debian: golang-go)"
	done
	exit 0
fi
export HOME="$T" GOCACHE="$T/gocache" GOPATH="$T/go" PPROF_TMPDIR="$T"
top() { go tool pprof -top -nodecount=1000 -nodefraction=0 "$@" p.pb.gz 2>>g.err; }
# Rows of -top: FLAT FLAT% SUM% CUM CUM% NAME.
cmp_top() {	# $1 file of -top, $2 CSV column, $3 scale of the CSV value, $4 tolerance, $5 flat|cum
	csv_awk -F, -v col="$2" -v sc="$3" -v tol="$4" -v which="$5" '
	NR == FNR { if (FNR > 1) w[$1] += $col * sc; next }
	$NF in w && NF == 6 { v = (which == "cum" ? $4 : $1); sub(/ns$/, "", v); seen[$NF] = 1
		d = v - w[$NF]; if (d < 0) d = -d; if (d > tol) printf "%s %s vs %s; ", $NF, v, w[$NF] }
	END { for (n in w) if (w[n] > tol && !(n in seen)) printf "%s missing; ", n }' \
	p.csv FS=' ' "$1"
}
top -unit=ns >g.top
bad=$(cmp_top g.top 6 1e9 1000 flat)
[ -s g.top ] && [ ! -s g.err ] && [ -z "$bad" ] && ok pprof_go_top_cpu ||
	agree_not_ok pprof_go_top_cpu "$bad $(head -c 300 g.err)"
# -cum: prof's inclusive seconds where the file has stacks (column 14),
# else a function's own (a flat profile has no callers' time).
top -cum -unit=ns >g.cum
if [ "$EXPORT_MODE" = stacks ]; then bad=$(cmp_top g.cum 14 1e9 1000 cum)
else bad=$(cmp_top g.cum 6 1e9 1000 cum); fi
[ -s g.cum ] && [ -z "$bad" ] && ok pprof_go_top_cum || agree_not_ok pprof_go_top_cum "$bad"
top -sample_index=calls >g.calls
bad=$(cmp_top g.calls 9 1 0 flat)
[ -s g.calls ] && [ -z "$bad" ] && ok pprof_go_top_calls || agree_not_ok pprof_go_top_calls "$bad"
top -sample_index=arc-calls >g.arcs
if awk -v h=$H -v s=$S -v l=$L 'NF == 6 { f[$6] = $1 }
   END { exit !(f["heavy"] == h && f["hidden"] == s && f["light"] == l) }' g.arcs
then ok pprof_go_top_arcs
else not_ok pprof_go_top_arcs "$(tr '\n' ';' <g.arcs | tail -c 300)"; fi
