/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_symtab.c — libFuzzer harness for prof's ELF symbol loading
 * (tools/prof/symtab.c: symtab_load, symtab_imports, symtab_text_crc and
 * symtab_probe, through libelf).
 *
 * prof opens every object a mon.out names, so a hostile or damaged ELF
 * file is ordinary input.  The input is the whole file, handed over as a
 * memory file (memfd) opened by path, exactly as prof opens objects; the
 * last byte's low bit chooses whether local symbols are kept (prof's -l),
 * and its next three bits whether symtab_probe is run too (one in eight).
 * symtab_load must never crash, hang, leak or read outside the file; on
 * success the symbols are sorted by address with one entry per address,
 * every name is a NUL-terminated string inside the image's string pool,
 * and the executable ranges are sorted and non-empty.
 *
 * Built by `make fuzz` (clang, libFuzzer, ASan, UBSan; libelf itself is not
 * instrumented, but every read symtab.c makes of libelf's data is) and
 * replayed by tests/integ/robust_fuzz_replay.sh.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "prof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) ((c) ? (void)0 : abort())

static void check_image(const struct prof_image *im)
{
	for (size_t i = 0; i < im->nsyms; i++) {
		const struct prof_sym *s = &im->syms[i];
		CHECK(i == 0 || im->syms[i - 1].addr < s->addr);
		CHECK(s->nsyn >= 1);
		CHECK(s->name >= im->strings && s->name < im->strings + im->strings_len);
		CHECK(memchr(s->name, '\0', (size_t)(im->strings + im->strings_len - s->name)));
		CHECK(s->name[0] != '\0');
	}
	for (size_t i = 0; i < im->ntexts; i++) {
		CHECK(im->texts[i].lo < im->texts[i].hi);
		CHECK(i == 0 || im->texts[i - 1].lo <= im->texts[i].lo);
	}
	for (size_t i = 0; i < im->nfdes; i++) {	/* unwind ranges: sorted, one per start */
		CHECK(im->fdes[i].lo < im->fdes[i].hi);
		CHECK(i == 0 || im->fdes[i - 1].lo < im->fdes[i].lo);
	}
	CHECK(im->build_id_len <= sizeof im->build_id);
	CHECK(im->path != NULL && im->label != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -2;
	static char path[64];
	if (fd == -2) {
		fd = memfd_create("fuzz-elf", MFD_CLOEXEC);
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (fd < 0 || ftruncate(fd, 0) < 0)
		return 0;
	if (size && pwrite(fd, data, size, 0) != (ssize_t)size)
		return 0;
	int locals = size ? data[size - 1] & 1 : 1;

	struct prof_image im;
	char err[256];
	/* The program's imports (sorted, each a string) name the aliases. */
	struct prof_imports imp;
	if (symtab_imports(path, &imp) == 0)
		for (size_t i = 1; i < imp.n; i++)
			CHECK(strcmp(imp.names[i - 1], imp.names[i]) <= 0);
	memset(err, 'x', sizeof err);
	if (symtab_load(path, locals, &imp, &im, err, sizeof err) == 0) {
		check_image(&im);
		symtab_free(&im);
	} else {
		CHECK(memchr(err, '\0', sizeof err) != NULL && err[0] != '\0');
		CHECK(im.syms == NULL && im.path == NULL);
	}
	symtab_imports_free(&imp);
	/* The CRC of the code segments (mon.out's FILES): within the file. */
	uint32_t crc;
	memset(err, 'x', sizeof err);
	if (symtab_text_crc(path, &crc, err, sizeof err) < 0)
		CHECK(memchr(err, '\0', sizeof err) != NULL);
	/* symtab_probe reads a subset of what symtab_load reads: one input in
	 * eight (by its last byte) is enough to keep it covered. */
	if (size && (data[size - 1] & 0xe) != 0)
		return 0;
	memset(err, 'x', sizeof err);
	if (symtab_probe(path, &im, err, sizeof err) == 0) {
		CHECK(im.build_id_len <= sizeof im.build_id);
		symtab_free(&im);
	} else {
		CHECK(memchr(err, '\0', sizeof err) != NULL);
	}
	return 0;
}
