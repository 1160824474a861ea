#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The flame graph's script, tools/prof/out/flame.js:
#  - prof --format=flame writes it into the SVG byte for byte (the
#    Makefile embeds it through scripts/embed.sh as $(B)/gen/flame_js.h);
#  - it cannot end its CDATA section: it holds no "]]>", and embed.sh
#    refuses a script that does;
#  - it parses (node --check) and passes eslint (Debian's eslint package:
#    eslint:recommended for ECMAScript 5 in a browser, every variable used
#    but init, which the SVG's onload calls, no built-in global such as
#    window.frames redeclared).  Each tool that is absent is a skip that
#    says which package brings it (scripts/deps.sh check installs both
#    as root).
. "$(dirname "$0")/lib.sh"
JS=$ROOT/tools/prof/out/flame.js
[ -s "$JS" ] || { not_ok flame_js_file "tools/prof/out/flame.js missing"; exit 1; }
cd "$T" || exit 1

build_prog mw prof_work.c -pg || { not_ok flame_js_build; exit 1; }
./mw 1 1 1 100000 >/dev/null
"$B/bin/prof" --format=flame ./mw >f.svg 2>f.err || { not_ok flame_js_svg "$(head -c 200 f.err)"; exit 1; }
# The lines between "<script ...><![CDATA[" and "]]></script>".
awk '/^]]><\/script>$/ { f = 0 } f { print } /<script type="text\/ecmascript"><!\[CDATA\[$/ { f = 1 }' \
    f.svg >script.js
cmp -s script.js "$JS" && ok flame_js_embedded_byte_for_byte ||
    not_ok flame_js_embedded_byte_for_byte "the SVG's script differs from flame.js: $(cmp script.js "$JS" 2>&1)"

if grep -n -F ']]>' "$JS" >cdata.txt; then
	not_ok flame_js_no_cdata_end "flame.js line $(cut -d: -f1 cdata.txt | head -n 1) holds ']]>'"
else
	ok flame_js_no_cdata_end
fi
{ cat "$JS"; echo 'var s = "]]>";'; } >bad.js
if sh "$ROOT/scripts/embed.sh" bad.js x ']]>' >bad.h 2>bad.err; then
	not_ok flame_js_embed_refuses_cdata_end "embed.sh wrote $(wc -c <bad.h) bytes"
else
	grep -q 'holds' bad.err && ok flame_js_embed_refuses_cdata_end ||
	    not_ok flame_js_embed_refuses_cdata_end "$(head -c 200 bad.err)"
fi

if command -v node >/dev/null 2>&1; then
	node --check "$JS" 2>node.err && ok flame_js_node_check ||
	    not_ok flame_js_node_check "$(head -c 300 node.err)"
else
	ok "flame_js_node_check # skip node absent (Debian: nodejs)"
fi

if command -v eslint >/dev/null 2>&1; then
	cat >eslintrc.json <<'EOF'
{
  "root": true,
  "extends": "eslint:recommended",
  "env": { "browser": true },
  "parserOptions": { "ecmaVersion": 5, "sourceType": "script" },
  "rules": {
    "no-unused-vars": ["error", { "vars": "all", "args": "after-used", "varsIgnorePattern": "^init$" }],
    "no-redeclare": ["error", { "builtinGlobals": true }],
    "strict": ["error", "global"]
  }
}
EOF
	cp "$JS" flame.js
	# Debian's eslint finds its modules under /usr/share/nodejs, which a
	# nodejs from elsewhere does not search by itself.
	np=${NODE_PATH:-}
	[ -d /usr/share/nodejs ] && np=/usr/share/nodejs${np:+:$np}
	if NODE_PATH=$np eslint --no-eslintrc -c eslintrc.json --format unix flame.js >eslint.out 2>&1; then
		ok flame_js_eslint
	else
		cat eslint.out
		not_ok flame_js_eslint "$(head -n 3 eslint.out | tr '\n' ' ')"
	fi
else
	ok "flame_js_eslint # skip eslint absent (Debian: eslint)"
fi
