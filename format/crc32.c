/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * crc32.c — CRC-32 (IEEE 802.3, the reflected polynomial 0xEDB88320: the
 * checksum of zlib's crc32() and of the gzip trailer), the checksum of
 * every mon.out record and of its header.  Shared by the writer (libmon)
 * and the reader (the tools); monout.h declares monout_crc32.
 */
#include <stddef.h>
#include <stdint.h>

#include "monout.h"

/* Slice-by-8 tables for the reflected IEEE polynomial 0xEDB88320:
 * crc_table[k][b] is the CRC of byte b followed by k zero bytes.  Filled
 * by a constructor (and libmon's start-up, which may come first:
 * monout_crc32_init), before main and before any signal handler can write a
 * profile, so the writer itself stays async-signal-safe (it only reads
 * them).  About 1 GB/s: the 3 MB profile of a SQLite run takes a few ms. */
static uint32_t crc_table[8][256];
static int crc_ready;

__attribute__((constructor)) void monout_crc32_init(void)
{
	if (crc_ready)
		return;
	for (uint32_t b = 0; b < 256; b++) {
		uint32_t c = b;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
		crc_table[0][b] = c;
	}
	for (uint32_t b = 0; b < 256; b++)
		for (int k = 1; k < 8; k++)
			crc_table[k][b] = (crc_table[k - 1][b] >> 8) ^
					  crc_table[0][crc_table[k - 1][b] & 0xff];
	crc_ready = 1;
}

uint32_t monout_crc32(uint32_t crc, const void *p, size_t n)
{
	const unsigned char *b = p;
	crc = ~crc;
	while (n >= 8) {
		uint32_t lo = crc ^ ((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
				     (uint32_t)b[3] << 24);
		crc = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^
		      crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^
		      crc_table[3][b[4]] ^ crc_table[2][b[5]] ^ crc_table[1][b[6]] ^
		      crc_table[0][b[7]];
		b += 8;
		n -= 8;
	}
	while (n--)
		crc = (crc >> 8) ^ crc_table[0][(crc ^ *b++) & 0xff];
	return ~crc;
}
