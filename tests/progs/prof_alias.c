/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * prof_alias.c — a shared library whose functions have several names, for
 * prof's choice among synonyms and its plain names (tests/integ/prof_names.sh).
 * Build: cc -O1 -shared -fPIC -Wl,--version-script=prof_alias.map.
 *
 *   one address, names: core_impl (local), __memcpy_like and __memmove_like
 *     (global, as glibc's memcpy/memmove variants): prof picks
 *     __memcpy_like (global before local; then the shortest)
 *   one address, names: weak_fn (weak), ___strong_fn (global): ___strong_fn
 *     (global before weak, even when longer)
 *   one address, names: tc_free, tc_deletearray_like and free_like (global,
 *     as tcmalloc's free and its aliases); prof_alias_main.c calls
 *     tc_deletearray_like: in its profile that name (the program imports
 *     it), elsewhere tc_free (the shortest)
 *   two versions of vfun: __vfun_v1 = vfun@V_1, __vfun_v2 = vfun@@V_2 (the
 *     static symbol table spells them "vfun@V_1", "vfun@@V_2"): both
 *     printed "vfun", the version kept apart
 */
__attribute__((noinline)) static int core_impl(int x)
{
	return x * 3 + 1;
}
int __memcpy_like(int) __attribute__((alias("core_impl")));
int __memmove_like(int) __attribute__((alias("core_impl")));

__attribute__((noinline)) int ___strong_fn(int x)
{
	return x * 5 + 2;
}
int weak_fn(int) __attribute__((weak, alias("___strong_fn")));

__attribute__((noinline)) int tc_deletearray_like(int x)
{
	return x * 7 + 3;
}
int tc_free(int) __attribute__((alias("tc_deletearray_like")));
int free_like(int) __attribute__((alias("tc_deletearray_like")));

__attribute__((noinline)) int __vfun_v1(int x)
{
	return x + 11;
}
__attribute__((noinline)) int __vfun_v2(int x)
{
	return x + 22;
}
__asm__(".symver __vfun_v1, vfun@V_1");
__asm__(".symver __vfun_v2, vfun@@V_2");
