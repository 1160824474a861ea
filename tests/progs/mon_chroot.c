/* SPDX-License-Identifier: BSD-2-Clause */
/* mon_chroot.c — a program that chroots itself, as daemons do.
   Usage: mon_chroot DIR (built with -pg): calls leaf() 1234 times, then
   chroot(DIR) and chdir("/"), and exits 0.  Exit 77 with a "SKIP why" line
   when chroot is refused (not root and no user namespace). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) void leaf(int i)
{
	sink += i;
}

int main(int argc, char **argv)
{
	for (int i = 0; i < 1234; i++)
		leaf(i);
	if (argc < 2)
		return 2;
	if (chroot(argv[1]) != 0) {
		printf("SKIP chroot refused: %s\n", strerror(errno));
		return 77;
	}
	if (chdir("/") != 0)
		return 3;
	return 0;
}
