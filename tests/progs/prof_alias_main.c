/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * prof_alias_main.c — a program that imports one of several names of one
 * function of prof_alias.c (tc_deletearray_like; its synonyms tc_free and
 * free_like are shorter), for prof's choice among aliases
 * (tests/integ/prof_names.sh).  Build: cc prof_alias_main.c -L. -lalias.
 */
int tc_deletearray_like(int x);

int main(int argc, char **argv)
{
	(void)argv;
	return tc_deletearray_like(argc) == 0;
}
