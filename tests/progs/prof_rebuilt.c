/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * prof_rebuilt.c — a program rebuilt between its run and the report, for
 * prof's check that the file it reads is the one that ran
 * (tests/integ/prof_rebuilt.sh).  Built without a build ID
 * (-Wl,--build-id=none), run, then rebuilt with -DFRONT: new_front, a
 * function that never ran, now sits where work was.  With -DLIB it is a
 * shared object instead (lib_work), rebuilt the same way.
 */
static volatile unsigned long sink;

#ifdef FRONT
__attribute__((noinline)) void new_front(void)
{
	for (int i = 0; i < 1000; i++)
		sink += (unsigned long)i;
}
#endif

#ifdef LIB
__attribute__((noinline)) void lib_work(long n)
{
	for (long i = 0; i < n; i++)
		sink += (unsigned long)(i * i);
}
#else
void lib_work(long n);

__attribute__((noinline)) static void work(long n)
{
	for (long i = 0; i < n; i++)
		sink += (unsigned long)(i * i);
}

int main(int argc, char **argv)
{
	(void)argv;
	work(200000000);
#ifdef USE_LIB
	lib_work(200000000);
#endif
	return argc > 5;
}
#endif
