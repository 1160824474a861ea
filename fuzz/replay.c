/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * replay.c — runs a fuzz harness's LLVMFuzzerTestOneInput over files,
 * without libFuzzer: how `make check` replays the seed corpora and every
 * input that once crashed, hung or leaked (fuzz/regress/HARNESS/).
 *
 *   replay FILE|DIR...
 *
 * Each regular file (directories are read one level deep) is fed to the
 * harness once; a crash or an abort() in the harness's checks ends the
 * program abnormally.  Prints "replayed N inputs" and exits 0.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long replayed;

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		perror(path);
		return -1;
	}
	size_t cap = 4096, n = 0;
	unsigned char *buf = malloc(cap);
	for (;;) {
		if (buf == NULL) {
			fclose(f);
			fprintf(stderr, "replay: %s: out of memory\n", path);
			return -1;
		}
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
		cap *= 2;
		unsigned char *nb = realloc(buf, cap);
		if (nb == NULL)
			free(buf);
		buf = nb;
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		fprintf(stderr, "replay: %s: read error\n", path);
		free(buf);
		return -1;
	}
	/* An exact-size copy, so that a read past the end is caught. */
	unsigned char *exact = malloc(n ? n : 1);
	if (exact == NULL) {
		free(buf);
		return -1;
	}
	memcpy(exact, buf, n);
	free(buf);
	LLVMFuzzerTestOneInput(exact, n);
	free(exact);
	replayed++;
	return 0;
}

int main(int argc, char **argv)
{
	int rc = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) < 0) {
			perror(argv[i]);
			rc = 1;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			rc |= run_file(argv[i]) < 0;
			continue;
		}
		struct dirent **list;
		int n = scandir(argv[i], &list, NULL, alphasort);
		if (n < 0) {
			perror(argv[i]);
			rc = 1;
			continue;
		}
		for (int k = 0; k < n; k++) {
			char p[4096];
			snprintf(p, sizeof p, "%s/%s", argv[i], list[k]->d_name);
			if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
				rc |= run_file(p) < 0;
			free(list[k]);
		}
		free(list);
	}
	printf("replayed %lu inputs\n", replayed);
	return rc;
}
