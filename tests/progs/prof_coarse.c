/* SPDX-License-Identifier: BSD-2-Clause */
/* prof_coarse.c — the case coarse-bins.c (issue 12), loops shortened: monitor() over the whole
   text with few bins, so one bin spans kilobytes (tests/integ/prof_coarse.sh).  Usage: prof_coarse NBINS
   [LOOPS].  A coarse last bin must share its samples only over the sampled range; with too
   small a buffer the samples that fell past it are reported. */
#include <stdio.h>
#include <stdlib.h>
#include <mon.h>
volatile unsigned long sink;
static unsigned long loops = 300000000UL;
#define PAD __asm__ volatile(".fill 200000,1,0x90")
__attribute__((noinline)) void pad1(void){ if (sink==12345) { PAD; } }
__attribute__((noinline)) void hot(void){ for (unsigned long i=0;i<loops;i++) sink+=i; }
__attribute__((noinline)) void pad2(void){ if (sink==12345) { PAD; } }
__attribute__((noinline)) void hot2(void){ for (unsigned long i=0;i<loops;i++) sink+=i; }
extern char etext;
int main(int argc, char **argv){
  size_t nbins = argc>1 ? atoi(argv[1]) : 64; if (argc > 2) loops = strtoul(argv[2], 0, 0);
  size_t words = sizeof(struct hdr)/sizeof(WORD) + 10*sizeof(struct cnt)/sizeof(WORD) + nbins;
  WORD *buf = calloc(words+8, sizeof(WORD));
  monitor((int(*)())2, (int(*)())&etext, buf, words, 10);
  hot(); hot2();
  monitor(0,0,0,0,0); return 0; }
