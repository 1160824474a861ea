/* SPDX-License-Identifier: BSD-2-Clause */
/* prof_versioned.c — the case versioned-names.c (issue 12): time inside glibc functions that
   glibc exports under a symbol version.  prof must print regexec and realpath, never
   realpath@@GLIBC_2.3 (tests/integ/prof_names.sh). */
/* Spends its time inside glibc functions that glibc exports under a symbol
   version (regexec, realpath). */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
int main(void){ regex_t re; regcomp(&re,"(a|b)*c[0-9]+x",REG_EXTENDED); int m=0; char path[PATH_MAX];
  for(int i=0;i<200000;i++){ m+= regexec(&re,"ababababababababababababc12345x",0,0,0)==0; }
  for(int i=0;i<20000;i++) realpath("/usr/bin/../lib/./x86_64-linux-gnu",path);
  printf("%d\n",m); return 0; }
