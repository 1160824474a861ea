/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cfi.h — DWARF call frame information compiled into rows (private to
 * libmon; see cfi.c): a pure function from the bytes of an .eh_frame
 * section to machine-neutral unwind rows, one per PC range, that the
 * stack walk (unwind.c) looks up by binary search.  No globals, no
 * allocation: rows go to the caller's emit function.  Testable on any
 * bytes (tests/unit/test_cfi.c, fuzz/fuzz_cfi.c).
 *
 * Sources: DWARF 4, section 6.4 "Call Frame Information"; the Linux
 * Standard Base Core Specification, "Exception Frames" (.eh_frame and
 * .eh_frame_hdr, the DW_EH_PE_* pointer encodings, the CIE augmentation
 * string 'z', 'R', 'L', 'P', 'S').
 */
#ifndef MON_CFI_H
#define MON_CFI_H

#include <stddef.h>
#include <stdint.h>

#include "runtime.h"

/* How a row finds the frame's CFA (canonical frame address) and the
 * caller's registers.  SP and FP are the machine's stack and frame pointer
 * registers (struct mon_cfi_machine names their DWARF numbers). */
enum mon_cfi_kind {
	MON_CFI_NONE,	/* no CFI covers this PC: follow the frame pointer */
	MON_CFI_SP,	/* CFA = SP + cfa_off */
	MON_CFI_FP,	/* CFA = FP + cfa_off */
	MON_CFI_PLT,	/* the machine's PLT rule (mon_cfi_machine.cfa_expr), cfa_off and fp_off its
			 * operands; the frame pointer is not touched */
	MON_CFI_DEREF,	/* CFA = *(FP + cfa_off) (gcc's stack realignment, "DRAP") */
	MON_CFI_END,	/* the return address is undefined: the outermost frame */
	MON_CFI_SIGNAL,	/* an FDE with augmentation 'S': a signal trampoline */
	MON_CFI_STOP	/* a rule not followed: the walk ends here, truncated */
};

/* aux: where the caller's frame pointer is (none set: FP unchanged), and
 * whether the return address is still in its register. */
#define MON_CFI_FP_SAVED 1u	/* at CFA + fp_off */
#define MON_CFI_FP_AT_FP 2u	/* at FP + fp_off */
#define MON_CFI_FP_LOST 4u	/* not known */
#define MON_CFI_RA_REG 8u	/* the return address is the value of the machine's return-address
				 * register (aarch64's x30, the link register: a leaf, or a prologue
				 * before it saves x30), not at CFA + ra_off; the CFA may equal SP */

/* One row: the rule from pc up to the next row's pc (12 bytes).  In every
 * row but MON_CFI_END, MON_CFI_SIGNAL, MON_CFI_NONE and MON_CFI_STOP the
 * return address is at CFA + ra_off, or in its register (MON_CFI_RA_REG).
 * cfa_off has 24 bits (a CFA more than 8 MiB from its register gives
 * MON_CFI_STOP); fp_off and ra_off 16 (an FP saved further away is
 * MON_CFI_FP_LOST, a return address further away MON_CFI_STOP). */
struct mon_cfi_row {
	uint32_t pc;		/* offset from mon_cfi_input.base where the row starts */
	int32_t cfa_off : 24;	/* bytes, -2^23 .. 2^23 - 1 */
	uint32_t kind : 4;	/* enum mon_cfi_kind */
	uint32_t aux : 4;	/* MON_CFI_FP_*, MON_CFI_RA_REG */
	int16_t fp_off;		/* bytes; for MON_CFI_PLT, the rule's second operand */
	int16_t ra_off;		/* bytes: the return address is at CFA + ra_off */
};

_Static_assert(sizeof(struct mon_cfi_row) == 12, "a row is 12 bytes");

#define MON_CFI_CFA_MIN (-(1l << 23))
#define MON_CFI_CFA_MAX ((1l << 23) - 1)

/* What a DWARF expression computing the CFA (DW_CFA_def_cfa_expression)
 * means, as the machine's rules recognise it. */
struct mon_cfi_expr {
	uint8_t kind;		/* MON_CFI_PLT, MON_CFI_DEREF, or MON_CFI_STOP: not recognised */
	int64_t off;		/* the row's cfa_off */
	int64_t arg;		/* the row's fp_off (MON_CFI_PLT) */
};

/* The machine (lib/arch/ARCH/): its DWARF register numbers and rules. */
struct mon_cfi_machine {
	unsigned sp_reg, fp_reg;	/* DWARF numbers of the stack and frame pointers */
	int ra_cfa_off;			/* ra_in_reg 0: the return address is at CFA + this, and
					 * a rule putting it anywhere else is not followed (x86-64: -8) */
	int ra_in_reg;			/* 1: the return-address column is a register that holds the
					 * return address at the call (aarch64's x30): that is its rule
					 * until the CFI says otherwise (and for DW_CFA_same_value), and
					 * DW_CFA_offset may put it at any CFA offset */
	unsigned addr_size;		/* bytes of an address: 8 */
	unsigned ignore_op;		/* a machine's own CFA opcode that changes no rule the walk
					 * follows (aarch64: 0x2d, DW_CFA_AARCH64_negate_ra_state),
					 * 0: none (unknown opcodes end the FDE) */
	/* Recognise a CFA expression of e[0..n) (n >= 0); fills *out.  Never reads outside e. */
	void (*cfa_expr)(const uint8_t *e, size_t n, struct mon_cfi_expr *out);
};

/* What to compile. */
struct mon_cfi_input {
	const uint8_t *data;	/* the .eh_frame bytes (read only inside [data, data + len)) */
	size_t len;		/* bytes; a zero length field ends the section earlier */
	uint64_t vaddr;		/* the address of data[0] in the program (for pcrel pointers) */
	uint64_t text_lo, text_hi;	/* FDEs whose range is not inside [text_lo, text_hi) are skipped */
	uint64_t base;		/* row pcs are offsets from it; text_hi - base must fit 32 bits */
	const struct mon_cfi_machine *machine;
	/* Read the 8-byte pointer at addr for an indirect encoding (DW_EH_PE_indirect): 1 read,
	 * 0 cannot.  NULL: indirect pointers are refused (their FDE skipped). */
	int (*deref)(void *arg, uint64_t addr, uint64_t *value);
	void *deref_arg;
};

/*
 * Run the CFA program of every FDE of in->data (its CIE's initial
 * instructions, then its own) and give the rows to emit(arg, row), in
 * .eh_frame order; each FDE's rows are followed by a MON_CFI_NONE row at
 * its end.  An FDE with augmentation 'S' gives one MON_CFI_SIGNAL row
 * (cfa_off 0: the caller locates the trampoline's code).  An FDE or CIE
 * that cannot be read is skipped; an instruction not understood ends its
 * FDE with a MON_CFI_STOP row.  Pure: reads only in->data (and deref),
 * writes only through emit.  emit returns 0, or -1 to stop (then this
 * returns -1).  Returns the number of FDEs compiled (>= 0) or -1.
 */
MON_HIDDEN long mon_cfi_compile(const struct mon_cfi_input *in,
				int (*emit)(void *arg, const struct mon_cfi_row *row), void *arg);

/*
 * mon_cfi_compile with the FDEs taken in the order of .eh_frame_hdr's
 * search table (hdr: hdrlen bytes, at hdr_vaddr in the program), which
 * the linker sorts by initial location: the rows then come out in pc
 * order where FDEs do not overlap, and need no sort (a sort needs room
 * for a second copy of the rows, and a short process pays for each page
 * of it).  The table must list each FDE of in->data exactly once (checked
 * with marks: the caller's scratch of nmarks words, at least
 * mon_cfi_table_marks(in->len), a bit per 4 bytes), in increasing
 * location, and say in->vaddr is .eh_frame's address; otherwise nothing
 * is emitted and this returns -2, for the caller to use mon_cfi_compile.
 * Returns as mon_cfi_compile, or -2.  Pure but for marks.
 */
MON_HIDDEN long mon_cfi_compile_by_table(const struct mon_cfi_input *in, const uint8_t *hdr,
					 size_t hdrlen, uint64_t hdr_vaddr, uint64_t *marks,
					 size_t nmarks,
					 int (*emit)(void *arg, const struct mon_cfi_row *row),
					 void *arg);
/* Words of marks mon_cfi_compile_by_table needs for len bytes of .eh_frame. */
static inline size_t mon_cfi_table_marks(size_t len)
{
	return len / 4 / 64 + 1;
}

/*
 * Read an .eh_frame_hdr (the LSB's layout: version 1, eh_frame_ptr_enc,
 * fde_count_enc, table_enc, then eh_frame_ptr and fde_count) of len bytes
 * at hdr, whose address in the program is vaddr: *eh_frame gets
 * .eh_frame's address, *nfde the FDE count (0 if absent or unreadable).
 * Returns 0, or -1 when the header cannot be read.  Pure.
 */
MON_HIDDEN int mon_cfi_eh_frame_hdr(const uint8_t *hdr, size_t len, uint64_t vaddr,
				    int (*deref)(void *arg, uint64_t addr, uint64_t *value),
				    void *deref_arg, uint64_t *eh_frame, uint64_t *nfde);

/* Order rows by pc (stable); where pcs are equal a MON_CFI_NONE row (an
 * FDE's end) comes first, so that the next FDE's row wins.  tmp: room for
 * n rows, used only when r is not in order already (mon_cfi_sorted says).
 * Then mon_cfi_squeeze keeps the last row of each pc and drops rows that
 * repeat the row before; returns the rows kept. */
MON_HIDDEN int mon_cfi_sorted(const struct mon_cfi_row *r, size_t n);
MON_HIDDEN void mon_cfi_sort(struct mon_cfi_row *r, struct mon_cfi_row *tmp, size_t n);
MON_HIDDEN size_t mon_cfi_squeeze(struct mon_cfi_row *r, size_t n);

/* The last row whose pc <= off in r[0..n) sorted, or NULL. */
static inline const struct mon_cfi_row *mon_cfi_find(const struct mon_cfi_row *r, size_t n,
						     uint32_t off)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r[mid].pc <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 ? NULL : &r[lo - 1];
}

#endif /* MON_CFI_H */
