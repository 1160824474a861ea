#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# make install: the layout it promises, pkg-config mon, a program built
# against the installed copy, and libmon.so's exports limited to the public
# interface (plus the C library functions it replaces).
. "$(dirname "$0")/lib.sh"
P=$T/prefix
if make -s -C "$ROOT" B="$(basename "$B")" install PREFIX="$P" >"$T/install.log" 2>&1; then
	ok "install: make install PREFIX=DIR"
else
	not_ok "install: make install PREFIX=DIR" "$(tail -n 3 "$T/install.log")"
fi
for f in include/mon.h lib/libmon.a lib/libmon.so lib/libmon.so.0 lib/pkgconfig/mon.pc \
    bin/prof bin/monrun share/man/man3/profil.3 share/man/man3/monitor.3 \
    share/man/man5/mon.out.5 share/man/man1/prof.1 share/man/man1/monrun.1; do
	[ -e "$P/$f" ] && ok "install: $f" || not_ok "install: $f" "missing"
done
soname=$(readelf -d "$P/lib/libmon.so" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = libmon.so.0 ] && ok "install: soname libmon.so.0" || not_ok "install: soname" "$soname"

cat >"$T/use.c" <<'EOC'
#include <mon.h>
#include <stdio.h>
int main(void)
{
	static unsigned short buf[64];
	struct mon_stats st;
	if (profil(buf, sizeof buf, 0, 0x4000) != 0 || mon_getstats(&st, sizeof st) != 0 || !st.on)
		return 1;
	profil(buf, 0, 0, 0);
	printf("%s\n", mon_clock_name(st.clock));
	return 0;
}
EOC
flags=$(PKG_CONFIG_PATH="$P/lib/pkgconfig" pkg-config --cflags --libs mon)
if $CC -o "$T/use" "$T/use.c" $flags -Wl,-rpath,"$P/lib" && LD_LIBRARY_PATH= "$T/use" >/dev/null; then
	ok "install: a program built with pkg-config mon runs against it"
else
	not_ok "install: a program built with pkg-config mon runs against it"
fi

# Exports: every defined dynamic symbol of the installed copy is a name
# lib/libmon.map lists (lib_exports.sh checks the build's copy both ways).
allowed=" $(map_names | tr '\n' ' ') "
extra=
for s in $(nm -D --defined-only "$P/lib/libmon.so" | awk '$2 ~ /[TWDBRV]/ { print $3 }'); do
	case "$allowed" in *" $s "*) ;; *) extra="$extra $s" ;; esac
done
[ -z "$extra" ] && ok "install: exports limited to the public interface" \
	|| not_ok "install: exports limited to the public interface" "extra:$extra"
