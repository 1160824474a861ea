/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mcount.h — what mcount.c's C code and the machine's mcount entry
 * (lib/arch/ARCH/mcount.S) must agree on: the first arc table's size, the
 * hash that places an arc in it, and an arc cell's layout.  Macros only:
 * included from C and from assembly.
 */
#ifndef MON_MCOUNT_H
#define MON_MCOUNT_H

#define ARC_BITS0 15		/* first arc table: 32768 cells */

/* hash2(frompc, selfpc) = h ^ (h >> HASH2_SHIFT) where
 * h = (frompc ^ selfpc * HASH2_MUL1) * HASH2_MUL2 (64-bit products). */
#define HASH2_MUL1 0x9e3779b97f4a7c15
#define HASH2_MUL2 0xc2b2ae3d27d4eb4f
#define HASH2_SHIFT 29

/* An arc cell {frompc, selfpc, count}, 8 bytes each (struct monout_arc:
 * mcount.c asserts the offsets); a cell's index times 24 is the offset. */
#define ARC_FROMPC 0
#define ARC_SELFPC 8
#define ARC_COUNT 16
#define ARC_CELL 24

#endif /* MON_MCOUNT_H */
