/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cov_jit.c — code generated at run time (case jit-code.c).
 *
 *   cov_jit map|nomap [SECONDS]
 *
 * Like a JIT, writes a counting loop into an anonymous mapping made
 * executable, runs it until the thread has used SECONDS (default 0.3) of
 * CPU, then spins SECONDS / 2 in c_part.  With "map" it first writes
 * /tmp/perf-PID.map naming the code "jit_loop" (the convention perf reads:
 * "START SIZE name" in hex), left for the caller to remove.  Prints
 * "jit_loop S" and "c_part S" (CPU seconds) and "map PATH" (or "map -").  x86-64 only (exit 77
 * elsewhere).
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "monrun_common.h"

DEFINE_SPIN(c_part)

int main(int argc, char **argv)
{
#if !defined(__x86_64__)
	puts("SKIP the generated code is x86-64");
	return 77;
#else
	int map = argc > 1 && strcmp(argv[1], "map") == 0;
	double s = mr_seconds(argc > 2 ? argv[2] : NULL, 0.3);
	/* mov rax, rdi; 1: dec rax; jnz 1b; ret */
	static const unsigned char code[] = { 0x48, 0x89, 0xf8, 0x48, 0xff, 0xc8, 0x75, 0xfb, 0xc3 };
	unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	memcpy(p, code, sizeof code);
	if (mprotect(p, 4096, PROT_READ | PROT_EXEC) != 0) {
		perror("mprotect");
		return 1;
	}
	char path[64];
	snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
	if (map) {
		FILE *f = fopen(path, "w");
		if (f == NULL) {
			perror(path);
			return 1;
		}
		fprintf(f, "%lx %zx jit_loop\n", (unsigned long)p, sizeof code);
		fclose(f);
	}
	long (*loop)(long) = (long (*)(long))(void *)p;
	double start = mr_thread_cpu(), now;
	do {
		loop(20000000L);
		now = mr_thread_cpu();
	} while (now - start < s);
	double c = c_part(s / 2);
	/* The map must outlive the profile's write at exit (the profiler reads
	 * it then, as perf reads it at report time): the test removes it. */
	printf("jit_loop %.6f\nc_part %.6f\nmap %s\n", now - start, c, map ? path : "-");
	return 0;
#endif
}
