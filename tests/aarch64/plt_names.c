/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * plt_names.c — the PLT stubs prof names in an ELF file, as prof's symbol
 * reader (tools/prof/symtab.c, symtab_load) gives them: one line
 * "0xADDR NAME@plt" per stub (the name carries its @plt), sorted by address.  Built for the host
 * against prof's archive (tests/aarch64/qemu.sh compares its lines for an
 * aarch64 program with what aarch64-linux-gnu-objdump labels <NAME@plt>).
 *
 *   plt_names FILE    exits 0, 1 when FILE cannot be read
 */
#include <stdio.h>

#include "prof.h"

int main(int argc, char **argv)
{
	struct prof_image im = { 0 };
	char err[256];
	if (argc != 2 || symtab_load(argv[1], 0, NULL, &im, err, sizeof err) < 0) {
		fprintf(stderr, "plt_names: %s\n", argc != 2 ? "usage: plt_names FILE" : err);
		return 1;
	}
	for (size_t i = 0; i < im.nsyms; i++)
		if (im.syms[i].plt)
			printf("0x%llx %s\n", (unsigned long long)im.syms[i].addr, im.syms[i].name);
	symtab_free(&im);
	return 0;
}
