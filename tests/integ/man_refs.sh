#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The manual pages' references to each other name the section each page
# is installed in, and render cleanly: profil is profil(3) here (docs/profil.3, as in Linux's
# man-pages), so "profil(2)" pointed at no page ("man 2 profil": none).  A
# reference to one of our pages in another section is allowed only where
# the same or the line before names the system whose page it means (BSD,
# System V, Solaris, Reliant UNIX, IRIX), as "the BSD profil(2) page" in
# STANDARDS.  Mutation: one SEE ALSO back to profil (2) fails man_refs.
. "$(dirname "$0")/lib.sh"
D=$ROOT/docs
pages=$(cd "$D" && ls *.[1-8] | sed 's/\.\([1-8]\)$/ \1/')
[ -n "$pages" ] || { not_ok man_refs "no manual page in docs/"; exit 1; }
bad=
for f in "$D"/*.[1-8]; do
	# "NAME (S)" after .BR/.B/.IR, \fBNAME\fP(S), \fINAME\fR(S), or in
	# plain text: a name not preceded by a letter, digit or '_'.
	b=$(printf '%s\n' "$pages" | awk -v file="$f" '
	{ sect[$1] = $2 }
	END {
		prev = ""
		while ((getline line < file) > 0) {
			rest = line
			while (match(rest, /[A-Za-z_][A-Za-z_.0-9]*(\\f[PR])? ?\([1-8]\)/)) {
				before = RSTART > 1 ? substr(rest, RSTART - 1, 1) : ""
				ref = substr(rest, RSTART, RLENGTH)
				rest = substr(rest, RSTART + RLENGTH)
				if (before ~ /[A-Za-z0-9_]/)
					continue
				n = ref; sub(/(\\f[PR])? ?\([1-8]\)$/, "", n)
				s = ref; sub(/.*\(/, "", s); sub(/\)/, "", s)
				if (!(n in sect) || sect[n] == s)
					continue
				ctx = prev " " line
				if (ctx ~ /BSD|System V|Solaris|Reliant|IRIX/)
					continue
				base = file; sub(/.*\//, "", base)
				printf "%s: %s(%s), the page is %s(%s); ", base, n, s, n, sect[n]
			}
			prev = line
		}
	}')
	bad="$bad$b"
done
n=$(printf '%s\n' "$pages" | grep -c .)
if [ -z "$bad" ]; then ok "man_refs ($n pages)"; else not_ok man_refs "$bad"; fi

# Each page renders without a groff warning (lintian reports them:
# mon.out.5's tables, one line per field, were up to 1161 columns wide,
# 36 warnings), and mon.out.5's tables fit 80 columns (their meaning
# column wraps).  Mutation: the text blocks undone fails both.
if command -v man >/dev/null 2>&1; then
	warned=
	for f in "$D"/*.[1-8]; do
		w=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$f" 2>&1 >/dev/null | head -n 2)
		[ -z "$w" ] || warned="$warned${f##*/}: $w; "
	done
	[ -z "$warned" ] && ok man_render_no_warning || not_ok man_render_no_warning "$warned"
	wide=$(LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$D/mon.out.5" 2>/dev/null | wc -L)
	[ "${wide:-999}" -le 80 ] && ok "man_render_tables_fit ($wide columns)" ||
		not_ok man_render_tables_fit "mon.out.5 is $wide columns wide at MANWIDTH=80"
else
	ok "man_render_no_warning # skip no man(1) (Debian: man-db)"
	ok "man_render_tables_fit # skip no man(1) (Debian: man-db)"
fi
