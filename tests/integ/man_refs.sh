#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The manual pages' references to each other name the section each page
# is installed in: profil is profil(3) here (docs/profil.3, as in Linux's
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
	# "NAME (S)" after .BR/.B/.IR, and \fBNAME\fP(S), one per line.
	b=$(printf '%s\n' "$pages" | awk -v file="$f" '
	{ sect[$1] = $2 }
	END {
		prev = ""
		while ((getline line < file) > 0) {
			rest = line
			while (match(rest, /(^\.B[RI]? |\\fB)[A-Za-z_.]+(\\f[PR])? ?\([1-8]\)/)) {
				ref = substr(rest, RSTART, RLENGTH)
				rest = substr(rest, RSTART + RLENGTH)
				sub(/^\.B[RI]? /, "", ref); sub(/^\\fB/, "", ref)
				n = ref; sub(/(\\f[PR])? ?\([1-8]\)$/, "", n)
				s = ref; sub(/.*\(/, "", s); sub(/\)/, "", s)
				if (!(n in sect) || sect[n] == s)
					continue
				ctx = prev " " line
				if (ctx ~ /BSD|System V|Solaris|Reliant|IRIX/)
					continue
				base = file; sub(/.*\//, "", base); printf "%s: %s(%s), the page is %s(%s); ", base, n, s, n, sect[n]
			}
			prev = line
		}
	}')
	bad="$bad$b"
done
n=$(printf '%s\n' "$pages" | grep -c .)
if [ -z "$bad" ]; then ok "man_refs ($n pages)"; else not_ok man_refs "$bad"; fi
