/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * prof_rust_names.c — functions under real Rust symbol names, taken from
 * the symbol tables of programs rustc 1.63 (Debian 12) built, for prof's
 * demangling (tests/integ/prof_names.sh).  gcc gives each C function the
 * Rust name with an asm label; prof must print (as rustfilt does):
 *   v0 (-C symbol-mangling-version=v0):
 *     rust_v0_spin       hot::hot::spin
 *     rust_v0_drop       core::ptr::drop_in_place::<std::env::Args>
 *   legacy (the default; std's own mangling):
 *     rust_legacy_spin   hot::hot::spin (the ::h<hash> dropped)
 *     rust_legacy_clos   std::rt::lang_start::{{closure}} ($u7b$ decoded)
 *   C++, as before: cxx_fn  ns::fn(int)
 */
#define RUST_FN(c, sym, k)                                                   \
	__attribute__((noinline, used)) int c(int x) __asm__(sym);           \
	__attribute__((noinline, used)) int c(int x) { return x * (k) + 1; }

RUST_FN(rust_v0_spin, "_RNvNtCs7fattgR6AAa_3hot3hot4spin", 3)
RUST_FN(rust_v0_drop,
	"_RINvNtCs6IL9ONYDOZW_4core3ptr13drop_in_placeNtNtCsdyIG5SqMl5y_3std3env4ArgsECs7fattgR6AAa_3hot",
	5)
RUST_FN(rust_legacy_spin, "_ZN3hot3hot4spin17ha77d574d84053b9fE", 7)
RUST_FN(rust_legacy_clos,
	"_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17he283e3dede2f7e7dE", 9)
RUST_FN(cxx_fn, "_ZN2ns2fnEi", 11)

int main(int argc, char **argv)
{
	(void)argv;
	return rust_v0_spin(argc) + rust_v0_drop(argc) + rust_legacy_spin(argc) +
	       rust_legacy_clos(argc) + cxx_fn(argc) == 0;
}
