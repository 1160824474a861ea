/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * demangle.c — source-language names for -C (the default), through
 * libiberty's demangler (GNU's, the one c++filt and GDB use; Debian's
 * libiberty-dev).
 *
 * Mangled names prof meets, and what they become:
 *   _Z...            C++ (the Itanium C++ ABI, "External Names"):
 *                    _Z3fooi is foo(int); a compiler clone _Z3foov.cold is
 *                    "foo() [clone .cold]".
 *   _ZN...17h<16 hex digits>E
 *                    Rust's legacy mangling (an Itanium-shaped name whose
 *                    last component is the crate's hash): printed without
 *                    the ::h<hash> and with its $u7b$-style escapes decoded,
 *                    std::rt::lang_start::{{closure}}, as rustfilt does.
 *   _R...            Rust's v0 mangling (RFC 2603, "Rust Symbol Name
 *                    Mangling v0"), the default of Rust's standard library:
 *                    b24_rust::hot::spin, the crate's disambiguator dropped.
 *   _D...            D (the D ABI, "Name Mangling").
 * Options: DMGL_PARAMS | DMGL_ANSI (C++ parameter lists and qualifiers, as
 * c++filt prints them), DMGL_AUTO (every language above); without
 * DMGL_VERBOSE, which would keep Rust's hashes and disambiguators.  Other
 * names (C) are left as they are; --no-demangle prints every name as the
 * symbol table holds it, hashes included.
 */
#include "prof.h"

#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>

const char *prof_demangle(const char *name, char *buf, size_t buflen)
{
	/* Only the prefixes of the manglings above: a C name is never
	 * reinterpreted (libiberty's automatic mode would also try Java's and
	 * GNAT's conventions on any name). */
	if (name == NULL || name[0] != '_' ||
	    (name[1] != 'Z' && name[1] != 'R' && name[1] != 'D') || buflen == 0)
		return NULL;
	char *d = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
	if (d == NULL)
		return NULL;
	snprintf(buf, buflen, "%s", d);
	free(d);
	return buf;
}
