/* SPDX-License-Identifier: BSD-2-Clause */
/* mon_seed.c — monitor(3) used as the System V page shows, on a PIE.
   Usage: mon_seed MODE
     seed     monitor((int (*)())2, &etext, buf, BUFSIZE, NFUNC); spin; leaf()
              1234 times; monitor(0, ...).  Prints "lpc-ok" if the header's
              lpc is above 2 (moved to the program text), then "cell N" with
              leaf's count from the caller's buffer (built with -pg).
     small    a buffer too small for the header and cells: prints errno name
     inverted lowpc >= highpc: prints errno name
     pause    monitor, moncontrol(0), leaf() 1000 times and spin_paused(),
              moncontrol(1), leaf() 234 times, spin(); monitor(0)
     again    monitor twice (second buffer with 1 cell), leaf() 1234 times
     nocells  NFUNC 1: more functions called than cells; all still counted
     restart  monstartup, leaf() 1000 times, spin_paused(), monitor(0)
              (mon.out linked to first.out), monstartup again, leaf() 234
              times, spin(), monitor(0): the second file holds the second run
     busy     monstartup, a second monstartup (prints its errno name),
              leaf() 1234 times, spin(), monitor(0)
     remonitor  monitor, leaf() 1000 times, spin_paused(), monitor(0) (linked
              to first.out), monitor with buf2, leaf() 234 times, spin(),
              monitor(0); prints buf2's cell of leaf */
#define _GNU_SOURCE
#include <errno.h>
#include <mon.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern etext;	/* the seed's own declaration: "etext lies just above all the program text" */

#define BUFSIZE 60000
#define NFUNC 20
static WORD buf[BUFSIZE];
static WORD buf2[BUFSIZE];
static volatile double sink;

__attribute__((noinline)) void leaf(int i)
{
	sink += i;
}

__attribute__((noinline)) void spin(long n)
{
	for (long i = 0; i < n; i++)
		sink += i * 0.5;
}

__attribute__((noinline)) void spin_paused(long n)
{
	for (long i = 0; i < n; i++)
		sink += i * 0.25;
}

static long cell_of_leaf(WORD *b)
{
	struct hdr *h = (struct hdr *)(void *)b;
	struct cnt *c = (struct cnt *)(void *)(h + 1);
	for (size_t i = 0; i < h->nfns; i++)
		if (c[i].fnpc >= (char *)leaf && c[i].fnpc < (char *)leaf + 32)
			return c[i].mcnt;
	return -1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "seed";
	if (strcmp(mode, "small") == 0) {
		errno = 0;
		monitor((int (*)())2, &etext, buf, 10, NFUNC);
		printf("%s\n", strerrorname_np(errno) ? strerrorname_np(errno) : "0");
		return 0;
	}
	if (strcmp(mode, "inverted") == 0) {
		errno = 0;
		monitor((int (*)())&etext, (int (*)())2, buf, BUFSIZE, NFUNC);
		printf("%s\n", strerrorname_np(errno) ? strerrorname_np(errno) : "0");
		return 0;
	}
	if (strcmp(mode, "restart") == 0 || strcmp(mode, "busy") == 0) {
		if (monstartup((int (*)())2, &etext) != 0)
			return 3;
		if (mode[0] == 'b') {
			errno = 0;
			int rc = monstartup((int (*)())2, &etext);
			printf("second %d %s\n", rc, strerrorname_np(errno) ? strerrorname_np(errno) : "0");
		} else {
			for (int i = 0; i < 1000; i++)
				leaf(i);
			spin_paused(100000000);
			monitor(0, 0, 0, 0, 0);
			link("mon.out", "first.out");
			if (monstartup((int (*)())2, &etext) != 0)
				return 4;
		}
		for (int i = 0; i < (mode[0] == 'b' ? 1234 : 234); i++)
			leaf(i);
		spin(100000000);
		monitor(0, 0, 0, 0, 0);
		return 0;
	}
	if (strcmp(mode, "remonitor") == 0) {
		monitor((int (*)())2, &etext, buf, BUFSIZE, NFUNC);
		for (int i = 0; i < 1000; i++)
			leaf(i);
		spin_paused(100000000);
		monitor(0, 0, 0, 0, 0);
		link("mon.out", "first.out");
		monitor((int (*)())2, &etext, buf2, BUFSIZE, NFUNC);
		for (int i = 0; i < 234; i++)
			leaf(i);
		spin(100000000);
		monitor(0, 0, 0, 0, 0);
		printf("cell %ld\n", cell_of_leaf(buf2));
		return 0;
	}
	size_t nfunc = strcmp(mode, "nocells") == 0 ? 1 : NFUNC;
	monitor((int (*)())2, &etext, buf, BUFSIZE, nfunc);
	if (strcmp(mode, "pause") == 0) {
		moncontrol(0);
		for (int i = 0; i < 1000; i++)
			leaf(i);
		spin_paused(100000000);
		moncontrol(1);
		for (int i = 0; i < 234; i++)
			leaf(i);
		spin(100000000);
	} else if (strcmp(mode, "again") == 0) {
		for (int i = 0; i < 1000; i++)
			leaf(i);
		monitor((int (*)())2, &etext, buf2, BUFSIZE, 1);
		for (int i = 0; i < 234; i++)
			leaf(i);
		spin(100000000);
	} else {
		spin(100000000);
		for (int i = 0; i < 1234; i++)
			leaf(i);
	}
	monitor(0, 0, 0, 0, 0);
	struct hdr *h = (struct hdr *)(void *)buf;
	if ((unsigned long)h->lpc > 2 && h->hpc == (char *)&etext)
		printf("lpc-ok\n");
	printf("cell %ld\n", cell_of_leaf(buf));
	return 0;
}
