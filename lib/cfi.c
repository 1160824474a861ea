/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cfi.c — .eh_frame's call frame information compiled into rows (cfi.h).
 *
 * Every FDE's CFA program (its CIE's initial instructions, then its own;
 * DWARF 4, section 6.4.2) is run once, here, and a row emitted at every
 * advance of the location:
 *   { PC offset from the base, CFA = SP|FP + offset,
 *     FP saved at CFA + k (or at FP + k, or unchanged, or lost),
 *     return address at CFA + k (x86-64: only the machine's ra_cfa_off),
 *     or still in its register (aarch64's x30) }
 * with kinds for the cases that are not that: a CFA expression the
 * machine's rules recognise (its PLT's, gcc's stack realignment), a signal
 * trampoline (augmentation 'S'), the outermost frame (return address
 * undefined: _start, a thread's clone entry), and a rule not followed
 * (other expressions, registers other than SP and FP holding the CFA, the
 * return address anywhere else): MON_CFI_STOP.  Only the rules of the
 * CFA, the frame pointer and the return address are tracked; the walk
 * needs no other register.
 *
 * Pointers (DW_EH_PE_*, the LSB's "Exception Frames"): absptr, uleb128,
 * udata2/4/8, sleb128, sdata2/4/8; applied pcrel (from the field's own
 * address, in.vaddr + its offset) or datarel (.eh_frame_hdr's); indirect
 * through the caller's deref.  Every read is bounded by the record it is
 * in; nothing outside in.data is read but through deref.
 */
#include <string.h>

#include "cfi.h"

struct cur {
	const uint8_t *p, *end;
	int bad;
};

/* A LEB128 number (DWARF 5, section 7.6), unsigned or, with is_signed,
 * sign-extended from its last byte's bit 6; c->bad when it runs past the
 * end.  Bits beyond 64 are dropped. */
static uint64_t leb128(struct cur *c, int is_signed)
{
	uint64_t v = 0;
	unsigned shift = 0;
	while (c->p < c->end) {
		uint8_t b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (is_signed && shift < 64 && (b & 0x40))
				v |= ~(uint64_t)0 << shift;
			return v;
		}
	}
	c->bad = 1;
	return 0;
}

static uint64_t uleb(struct cur *c)
{
	return leb128(c, 0);
}

static int64_t sleb(struct cur *c)
{
	return (int64_t)leb128(c, 1);
}

/* n (1..8) bytes, little-endian. */
static uint64_t fixed(struct cur *c, unsigned n)
{
	if ((size_t)(c->end - c->p) < n) {
		c->bad = 1;
		c->p = c->end;
		return 0;
	}
	uint64_t v = 0;
	memcpy(&v, c->p, n);
	c->p += n;
	return v;
}

/* Where the bytes being read are in the program: the field at c->p is at
 * vaddr + (c->p - data). */
struct where {
	const uint8_t *data;
	uint64_t vaddr;
	int (*deref)(void *arg, uint64_t addr, uint64_t *value);
	void *deref_arg;
};

/* A pointer encoded as enc (DW_EH_PE_*): format in the low nibble,
 * application in bits 4-6 (pcrel: from the field's own address; datarel:
 * from datarel), indirect 0x80.  0xff (omit) gives 0.  Sets c->bad for
 * what cannot be decoded. */
static uint64_t encoded(struct cur *c, uint8_t enc, uint64_t datarel, const struct where *w)
{
	if (enc == 0xff)
		return 0;
	uint64_t field = w->vaddr + (uint64_t)(c->p - w->data);
	uint64_t v;
	switch (enc & 0x0f) {
	case 0x00: v = fixed(c, 8); break;
	case 0x01: v = uleb(c); break;
	case 0x02: v = fixed(c, 2); break;
	case 0x03: v = fixed(c, 4); break;
	case 0x04: v = fixed(c, 8); break;
	case 0x09: v = (uint64_t)sleb(c); break;
	case 0x0a: v = (uint64_t)(int64_t)(int16_t)fixed(c, 2); break;
	case 0x0b: v = (uint64_t)(int64_t)(int32_t)fixed(c, 4); break;
	case 0x0c: v = fixed(c, 8); break;
	default: c->bad = 1; return 0;
	}
	switch (enc & 0x70) {
	case 0x00: break;
	case 0x10: v += field; break;
	case 0x30:
		if (datarel == 0) {
			c->bad = 1;
			return 0;
		}
		v += datarel;
		break;
	default: c->bad = 1; return 0;	/* textrel, funcrel, aligned: not in .eh_frame here */
	}
	if (enc & 0x80) {
		uint64_t x;
		if (w->deref == NULL || !w->deref(w->deref_arg, v, &x)) {
			c->bad = 1;
			return 0;
		}
		v = x;
	}
	return v;
}

/* What an FDE needs of its CIE. */
struct cie {
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra_reg;
	uint8_t fde_enc, lsda_enc;
	int has_z, signal;
	const uint8_t *ins, *ins_end;
};

static int parse_cie(const uint8_t *p, const uint8_t *limit, struct cie *ci, const struct where *w,
		     unsigned addr_size)
{
	struct cur c = { p, limit, 0 };
	uint64_t len = fixed(&c, 4);
	if (len == 0xffffffffu)
		len = fixed(&c, 8);
	if (c.bad || len > (uint64_t)(limit - c.p))
		return -1;
	c.end = c.p + len;
	if (fixed(&c, 4) != 0 || c.bad)	/* CIE id in .eh_frame */
		return -1;
	unsigned version = (unsigned)fixed(&c, 1);
	if (c.bad || (version != 1 && version != 3 && version != 4))
		return -1;
	const char *aug = (const char *)c.p;
	size_t auglen = strnlen(aug, (size_t)(c.end - c.p));
	if (auglen == (size_t)(c.end - c.p))
		return -1;
	c.p += auglen + 1;
	if (version == 4) {
		if (fixed(&c, 1) != addr_size)	/* address size */
			return -1;
		fixed(&c, 1);		/* segment selector size */
	}
	memset(ci, 0, sizeof *ci);
	ci->code_align = uleb(&c);
	ci->data_align = sleb(&c);
	ci->ra_reg = version == 1 ? fixed(&c, 1) : uleb(&c);
	ci->fde_enc = 0;	/* absptr unless 'R' */
	ci->lsda_enc = 0xff;
	const uint8_t *aug_end = NULL;
	for (size_t i = 0; i < auglen && !c.bad; i++) {
		switch (aug[i]) {
		case 'z':
			if (i != 0)
				return -1;
			{
				uint64_t n = uleb(&c);
				if (n > (uint64_t)(c.end - c.p))
					return -1;
				aug_end = c.p + n;
				ci->has_z = 1;
			}
			break;
		case 'R': ci->fde_enc = (uint8_t)fixed(&c, 1); break;
		case 'L': ci->lsda_enc = (uint8_t)fixed(&c, 1); break;
		case 'P': {
			uint8_t enc = (uint8_t)fixed(&c, 1);
			struct where nod = *w;
			nod.deref = NULL;	/* the personality: not needed, not read */
			encoded(&c, enc & 0x7f, 0, &nod);
			c.bad = 0;
			break;
		}
		case 'S': ci->signal = 1; break;
		default:
			if (!ci->has_z)
				return -1;	/* unknown and no length to skip it */
			c.p = aug_end;	/* skip the rest */
			i = auglen;
			break;
		}
	}
	if (c.bad || c.p > c.end)
		return -1;
	if (aug_end != NULL)
		c.p = aug_end;
	ci->ins = c.p;
	ci->ins_end = c.end;
	return 0;
}

/* ---- running a CFA program -------------------------------------------- */

enum { C_REG, C_EXPR, C_STOP };
enum { R_SAME, R_OFF, R_AT_FP, R_LOST };
enum { RA_OFF, RA_UNDEF, RA_OTHER, RA_REG };

struct ustate {
	uint8_t cfa, fp, ra, expr_kind;
	uint64_t cfa_reg;
	int64_t cfa_off, fp_off, ra_off, expr_arg;
};

/* The emitter and what it needs. */
struct out {
	const struct mon_cfi_machine *m;
	uint64_t base;
	int (*emit)(void *arg, const struct mon_cfi_row *row);
	void *arg;
	int failed;
};

static void put(struct out *o, const struct mon_cfi_row *r)
{
	if (!o->failed && o->emit(o->arg, r) < 0)
		o->failed = 1;
}

static struct mon_cfi_row row_of(const struct ustate *s, const struct mon_cfi_machine *m,
				 uint32_t pc)
{
	struct mon_cfi_row r = { .pc = pc, .kind = MON_CFI_STOP }, stop = r;
	if (s->ra == RA_UNDEF) {
		r.kind = MON_CFI_END;
		return r;
	}
	/* Where the return address is: in its register (a machine with a
	 * link register), or at CFA + ra_off. */
	unsigned aux = 0;
	if (s->ra == RA_REG && m->ra_in_reg)
		aux = MON_CFI_RA_REG;
	else if (s->ra == RA_OFF && (m->ra_in_reg ? s->ra_off >= INT16_MIN && s->ra_off <= INT16_MAX
						    : s->ra_off == m->ra_cfa_off))
		r.ra_off = (int16_t)s->ra_off;
	else
		return stop;
	if (s->cfa_off < MON_CFI_CFA_MIN || s->cfa_off > MON_CFI_CFA_MAX)
		return stop;
	r.cfa_off = (int32_t)s->cfa_off;
	switch (s->cfa) {
	case C_REG:
		if (s->cfa_reg == m->sp_reg)
			r.kind = MON_CFI_SP;
		else if (s->cfa_reg == m->fp_reg)
			r.kind = MON_CFI_FP;
		else
			return stop;
		break;
	case C_EXPR:
		if (s->expr_kind == MON_CFI_PLT) {
			if (s->expr_arg < INT16_MIN || s->expr_arg > INT16_MAX)
				return stop;
			r.kind = MON_CFI_PLT;
			r.fp_off = (int16_t)s->expr_arg;
			r.aux = aux;
			return r;	/* the frame pointer is not touched by a PLT stub */
		}
		if (s->expr_kind != MON_CFI_DEREF)
			return stop;
		r.kind = MON_CFI_DEREF;
		break;
	default:
		return stop;
	}
	if (s->fp == R_OFF || s->fp == R_AT_FP) {
		if (s->fp_off < INT16_MIN || s->fp_off > INT16_MAX)
			aux |= MON_CFI_FP_LOST;
		else {
			aux |= s->fp == R_OFF ? MON_CFI_FP_SAVED : MON_CFI_FP_AT_FP;
			r.fp_off = (int16_t)s->fp_off;
		}
	} else if (s->fp == R_LOST) {
		aux |= MON_CFI_FP_LOST;
	}
	r.aux = aux;
	return r;
}

#define STATE_STACK 16

/* Run instructions [ins, end) from state *s (init: the CIE's state, for
 * DW_CFA_restore), emitting a row at every advance when emit is set.
 * *pc: the program's address, advanced up to pc_end. */
static int run_cfa(const struct cie *ci, const uint8_t *ins, const uint8_t *end, struct ustate *s,
		   const struct ustate *init, uint64_t *pc, uint64_t pc_end, struct out *o,
		   int emit, const struct where *w)
{
	const struct mon_cfi_machine *m = o->m;
	struct cur c = { ins, end, 0 };
	struct ustate stack[STATE_STACK];
	unsigned depth = 0;
	while (c.p < c.end && !c.bad) {
		uint8_t op = *c.p++;
		uint64_t reg = 0, adv = 0;
		int64_t off = 0;
		int advance = 0;
		switch (op >> 6) {
		case 1:
			adv = op & 0x3f;
			advance = 1;
			break;
		case 2:
			reg = op & 0x3f;
			off = (int64_t)((uint64_t)uleb(&c) * (uint64_t)ci->data_align);
			goto offset;
		case 3:
			reg = op & 0x3f;
			goto restore;
		default:
			break;
		}
		if (!advance && (op >> 6) == 0) {
			switch (op) {
			case 0x00:	/* nop */
				break;
			case 0x01: {	/* set_loc */
				uint64_t to = encoded(&c, ci->fde_enc, 0, w);
				if (c.bad || to < *pc)
					return -1;
				adv = (to - *pc) / (ci->code_align ? ci->code_align : 1);
				advance = 1;
				break;
			}
			case 0x02: adv = fixed(&c, 1); advance = 1; break;
			case 0x03: adv = fixed(&c, 2); advance = 1; break;
			case 0x04: adv = fixed(&c, 4); advance = 1; break;
			case 0x05:	/* offset_extended */
				reg = uleb(&c);
				off = (int64_t)((uint64_t)uleb(&c) * (uint64_t)ci->data_align);
				goto offset;
			case 0x06:	/* restore_extended */
				reg = uleb(&c);
				goto restore;
			case 0x07:	/* undefined */
				reg = uleb(&c);
				if (reg == ci->ra_reg)
					s->ra = RA_UNDEF;
				else if (reg == m->fp_reg)
					s->fp = R_LOST;
				break;
			case 0x08:	/* same_value */
				reg = uleb(&c);
				if (reg == m->fp_reg)
					s->fp = R_SAME;
				else if (reg == ci->ra_reg)
					s->ra = m->ra_in_reg ? RA_REG : RA_OTHER;
				break;
			case 0x09:	/* register */
				reg = uleb(&c);
				uleb(&c);
				if (reg == m->fp_reg)
					s->fp = R_LOST;
				else if (reg == ci->ra_reg)
					s->ra = RA_OTHER;
				break;
			case 0x0a:	/* remember_state */
				if (depth == STATE_STACK)
					return -1;
				stack[depth++] = *s;
				break;
			case 0x0b:	/* restore_state */
				if (depth == 0)
					return -1;
				/* The rules of every register and the CFA (DWARF 4,
				 * 6.4.2.4). */
				*s = stack[--depth];
				break;
			case 0x0c:	/* def_cfa */
				s->cfa = C_REG;
				s->cfa_reg = uleb(&c);
				s->cfa_off = (int64_t)uleb(&c);
				break;
			case 0x0d:	/* def_cfa_register */
				if (s->cfa != C_REG)
					s->cfa = C_STOP;
				s->cfa_reg = uleb(&c);
				break;
			case 0x0e:	/* def_cfa_offset */
				if (s->cfa == C_EXPR)
					s->cfa = C_STOP;
				s->cfa_off = (int64_t)uleb(&c);
				break;
			case 0x0f: {	/* def_cfa_expression */
				uint64_t n = uleb(&c);
				if (c.bad || n > (uint64_t)(c.end - c.p))
					return -1;
				struct mon_cfi_expr x = { MON_CFI_STOP, 0, 0 };
				if (m->cfa_expr != NULL)
					m->cfa_expr(c.p, (size_t)n, &x);
				if (x.kind == MON_CFI_PLT || x.kind == MON_CFI_DEREF) {
					s->cfa = C_EXPR;
					s->expr_kind = x.kind;
					s->cfa_off = x.off;
					s->expr_arg = x.arg;
				} else {
					s->cfa = C_STOP;
				}
				c.p += n;
				break;
			}
			case 0x10:	/* expression */
			case 0x16: {	/* val_expression */
				reg = uleb(&c);
				uint64_t n = uleb(&c);
				if (c.bad || n > (uint64_t)(c.end - c.p))
					return -1;
				if (reg == m->fp_reg) {
					/* DW_OP_bregFP N alone (at FP + N): op 0x70 + FP. */
					struct cur e = { c.p, c.p + n, 0 };
					s->fp = R_LOST;
					if (op == 0x10 && n >= 2 && m->fp_reg < 32 &&
					    c.p[0] == 0x70 + m->fp_reg) {
						e.p++;
						int64_t k = sleb(&e);
						if (!e.bad && e.p == e.end) {
							s->fp = R_AT_FP;
							s->fp_off = k;
						}
					}
				} else if (reg == ci->ra_reg) {
					s->ra = RA_OTHER;
				}
				c.p += n;
				break;
			}
			case 0x11:	/* offset_extended_sf */
				reg = uleb(&c);
				off = (int64_t)((uint64_t)sleb(&c) * (uint64_t)ci->data_align);
				goto offset;
			case 0x12:	/* def_cfa_sf */
				s->cfa = C_REG;
				s->cfa_reg = uleb(&c);
				s->cfa_off = (int64_t)((uint64_t)sleb(&c) * (uint64_t)ci->data_align);
				break;
			case 0x13:	/* def_cfa_offset_sf */
				if (s->cfa == C_EXPR)
					s->cfa = C_STOP;
				s->cfa_off = (int64_t)((uint64_t)sleb(&c) * (uint64_t)ci->data_align);
				break;
			case 0x14:	/* val_offset */
			case 0x15:	/* val_offset_sf */
				reg = uleb(&c);
				if (op == 0x14)
					uleb(&c);
				else
					sleb(&c);
				if (reg == m->fp_reg)
					s->fp = R_LOST;
				else if (reg == ci->ra_reg)
					s->ra = RA_OTHER;
				break;
			case 0x2e:	/* GNU_args_size: ignored */
				uleb(&c);
				break;
			case 0x2f:	/* GNU_negative_offset_extended */
				reg = uleb(&c);
				off = -(int64_t)((uint64_t)uleb(&c) * (uint64_t)ci->data_align);
				goto offset;
			default:
				if (op != 0 && op == m->ignore_op)
					break;	/* the machine's own, no operands */
				return -1;	/* unknown opcode: the rest cannot be read */
			}
		}
		if (advance) {
			uint64_t next = *pc + adv * ci->code_align;
			if (next < *pc || next > pc_end || (ci->code_align && adv > UINT64_MAX / ci->code_align))
				next = pc_end;
			if (emit && next > *pc) {
				struct mon_cfi_row r = row_of(s, m, (uint32_t)(*pc - o->base));
				put(o, &r);
			}
			*pc = next;
		}
		continue;
offset:
		if (reg == m->fp_reg) {
			s->fp = R_OFF;
			s->fp_off = off;
		} else if (reg == ci->ra_reg) {
			s->ra = RA_OFF;
			s->ra_off = off;
		}
		continue;
restore:
		if (reg == m->fp_reg) {
			s->fp = init->fp;
			s->fp_off = init->fp_off;
		} else if (reg == ci->ra_reg) {
			s->ra = init->ra;
			s->ra_off = init->ra_off;
		}
		continue;
	}
	return c.bad ? -1 : 0;
}

/* The CIE last parsed: FDEs of one CIE come together. */
struct cie_cache {
	const uint8_t *at;	/* or NULL */
	int ok;
	struct cie cie;
};

/* One FDE at p (its length field); 1 compiled, 0 skipped. */
static int do_fde(const uint8_t *p, const uint8_t *limit, const uint8_t *frame_start,
		  const struct mon_cfi_input *in, struct out *o, const struct where *w,
		  struct cie_cache *cc)
{
	struct cur c = { p, limit, 0 };
	uint64_t len = fixed(&c, 4);
	if (len == 0xffffffffu)
		len = fixed(&c, 8);
	if (c.bad || len > (uint64_t)(limit - c.p))
		return 0;
	c.end = c.p + len;
	const uint8_t *idp = c.p;
	uint32_t id = (uint32_t)fixed(&c, 4);
	if (c.bad || id > (uint64_t)(idp - frame_start))
		return 0;
	const uint8_t *ciep = idp - id;
	if (cc->at != ciep) {
		cc->at = ciep;
		cc->ok = parse_cie(ciep, limit, &cc->cie, w, in->machine->addr_size) == 0;
	}
	if (!cc->ok)
		return 0;
	struct cie ci = cc->cie;
	uint64_t start = encoded(&c, ci.fde_enc, 0, w);
	uint64_t range = encoded(&c, ci.fde_enc & 0x0f, 0, w);
	if (c.bad || range == 0 || start < in->text_lo || start >= in->text_hi ||
	    range > in->text_hi - start)
		return 0;
	if (ci.has_z) {
		uint64_t n = uleb(&c);
		if (c.bad || n > (uint64_t)(c.end - c.p))
			return 0;
		c.p += n;
	}
	uint64_t end = start + range;
	if (ci.signal) {
		struct mon_cfi_row r = { .pc = (uint32_t)(start - in->base), .kind = MON_CFI_SIGNAL };
		put(o, &r);
	} else {
		struct ustate s, init;
		memset(&s, 0, sizeof s);
		s.cfa = C_STOP;
		s.fp = R_SAME;
		s.ra = o->m->ra_in_reg ? RA_REG : RA_OFF;
		s.ra_off = o->m->ra_in_reg ? 0 : o->m->ra_cfa_off;
		uint64_t pc = start;
		/* The CIE's initial instructions, emitting nothing. */
		if (run_cfa(&ci, ci.ins, ci.ins_end, &s, &s, &pc, end, o, 0, w) < 0)
			return 0;
		pc = start;
		init = s;
		if (run_cfa(&ci, c.p, c.end, &s, &init, &pc, end, o, 1, w) < 0) {
			/* The rest of the FDE could not be read: what follows is unknown. */
			s.cfa = C_STOP;
		}
		if (pc < end) {
			struct mon_cfi_row r = row_of(&s, o->m, (uint32_t)(pc - in->base));
			put(o, &r);
		}
	}
	struct mon_cfi_row gap = { .pc = (uint32_t)(end - in->base), .kind = MON_CFI_NONE };
	put(o, &gap);
	return 1;
}

/* The .eh_frame record (CIE or FDE) at p, before limit: 1 an FDE, 0 a
 * CIE, *next the record after it; -1 at the terminator (a zero length) or
 * where a length does not fit (the walk ends there).  The one walk of
 * mon_cfi_compile and fde_marks, so that both see the same FDEs. */
static int next_record(const uint8_t *p, const uint8_t *limit, const uint8_t **next)
{
	if ((size_t)(limit - p) < 4)
		return -1;
	uint32_t l32, id;
	memcpy(&l32, p, 4);
	if (l32 == 0)
		return -1;
	uint64_t len = l32;
	size_t head = 4;
	if (l32 == 0xffffffffu) {
		if ((size_t)(limit - p) < 12)
			return -1;
		memcpy(&len, p + 4, 8);
		head = 12;
	}
	if (len < 4 || len > (uint64_t)(limit - p - head))
		return -1;
	memcpy(&id, p + head, 4);
	*next = p + head + len;
	return id != 0;
}

long mon_cfi_compile(const struct mon_cfi_input *in,
		     int (*emit)(void *arg, const struct mon_cfi_row *row), void *arg)
{
	if (in->text_lo < in->base || in->text_hi < in->text_lo || in->text_hi - in->base > UINT32_MAX)
		return 0;	/* offsets would not fit a row */
	struct where w = { in->data, in->vaddr, in->deref, in->deref_arg };
	struct out o = { in->machine, in->base, emit, arg, 0 };
	struct cie_cache cc = { NULL, 0, { 0, 0, 0, 0, 0, 0, 0, NULL, NULL } };
	const uint8_t *start = in->data, *p = start, *limit = in->data + in->len, *next;
	long nfde = 0;
	int fde;
	while (!o.failed && (fde = next_record(p, limit, &next)) >= 0) {
		if (fde)
			nfde += do_fde(p, limit, start, in, &o, &w, &cc);
		p = next;
	}
	return o.failed ? -1 : nfde;
}

/* Mark the FDEs of in->data, as mon_cfi_compile visits them, in marks (a
 * bit per 4 bytes of offset, all clear on entry): what .eh_frame_hdr's
 * table must list, each once.  Returns their number, or -1 when one does
 * not start on a 4-byte boundary or lies past the marks' room. */
static long fde_marks(const struct mon_cfi_input *in, uint64_t *marks, size_t nmarks)
{
	const uint8_t *start = in->data, *p = start, *limit = in->data + in->len, *next;
	long n = 0;
	int fde;
	while ((fde = next_record(p, limit, &next)) >= 0) {
		if (fde) {
			size_t off = (size_t)(p - start);
			if (off % 4 != 0 || off / 4 / 64 >= nmarks)
				return -1;
			marks[off / 4 / 64] |= (uint64_t)1 << (off / 4 % 64);
			n++;
		}
		p = next;
	}
	return n;
}

long mon_cfi_compile_by_table(const struct mon_cfi_input *in, const uint8_t *hdr, size_t hdrlen,
			      uint64_t hdr_vaddr, uint64_t *marks, size_t nmarks,
			      int (*emit)(void *arg, const struct mon_cfi_row *row), void *arg)
{
	if (in->text_lo < in->base || in->text_hi < in->text_lo || in->text_hi - in->base > UINT32_MAX)
		return 0;
	if (hdrlen < 4 || hdr[0] != 1 || hdr[3] == 0xff || (hdr[3] & 0x80) || marks == NULL ||
	    nmarks < mon_cfi_table_marks(in->len))
		return -2;
	struct where hw = { hdr, hdr_vaddr, in->deref, in->deref_arg };
	struct cur c = { hdr + 4, hdr + hdrlen, 0 };
	uint64_t frame = encoded(&c, hdr[1], hdr_vaddr, &hw);
	uint64_t n = encoded(&c, hdr[2], hdr_vaddr, &hw);
	if (c.bad || frame != in->vaddr || n == 0)
		return -2;
	memset(marks, 0, mon_cfi_table_marks(in->len) * sizeof *marks);
	long have = fde_marks(in, marks, nmarks);
	if (have < 0 || (uint64_t)have != n)
		return -2;
	/* The table: n pairs (initial location, FDE address), in increasing
	 * initial location.  Checked first, in full: each entry an FDE the
	 * walk found, its mark taken off (a second entry for it, or one
	 * into another record's bytes, finds none), so that the n entries
	 * are the n FDEs; locations increasing. */
	const uint8_t *table = c.p;
	uint64_t prev = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t loc = encoded(&c, hdr[3], hdr_vaddr, &hw);
		uint64_t fde = encoded(&c, hdr[3], hdr_vaddr, &hw);
		if (c.bad || fde < in->vaddr || fde - in->vaddr >= in->len || (i > 0 && loc <= prev))
			return -2;
		uint64_t off = fde - in->vaddr;
		uint64_t bit = (uint64_t)1 << (off / 4 % 64);
		if (off % 4 != 0 || !(marks[off / 4 / 64] & bit))
			return -2;
		marks[off / 4 / 64] &= ~bit;
		prev = loc;
	}
	struct where w = { in->data, in->vaddr, in->deref, in->deref_arg };
	struct out o = { in->machine, in->base, emit, arg, 0 };
	struct cie_cache cc = { NULL, 0, { 0, 0, 0, 0, 0, 0, 0, NULL, NULL } };
	long nfde = 0;
	c.p = table;
	for (uint64_t i = 0; i < n && !o.failed; i++) {
		(void)encoded(&c, hdr[3], hdr_vaddr, &hw);
		uint64_t fde = encoded(&c, hdr[3], hdr_vaddr, &hw);
		nfde += do_fde(in->data + (fde - in->vaddr), in->data + in->len, in->data, in, &o, &w,
			       &cc);
	}
	return o.failed ? -1 : nfde;
}

int mon_cfi_eh_frame_hdr(const uint8_t *hdr, size_t len, uint64_t vaddr,
			 int (*deref)(void *arg, uint64_t addr, uint64_t *value), void *deref_arg,
			 uint64_t *eh_frame, uint64_t *nfde)
{
	*eh_frame = 0;
	*nfde = 0;
	if (len < 4 || hdr[0] != 1)
		return -1;
	struct where w = { hdr, vaddr, deref, deref_arg };
	struct cur c = { hdr + 4, hdr + len, 0 };
	uint64_t frame = encoded(&c, hdr[1], vaddr, &w);
	if (c.bad)
		return -1;
	*eh_frame = frame;
	uint64_t n = encoded(&c, hdr[2], vaddr, &w);
	if (!c.bad)
		*nfde = n;
	return 0;
}

static int row_less(const struct mon_cfi_row *a, const struct mon_cfi_row *b)
{
	if (a->pc != b->pc)
		return a->pc < b->pc;
	return a->kind == MON_CFI_NONE && b->kind != MON_CFI_NONE;
}

int mon_cfi_sorted(const struct mon_cfi_row *r, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (row_less(&r[i], &r[i - 1]))
			return 0;
	return 1;
}

/* Bottom-up merge sort (stable), between r and tmp. */
void mon_cfi_sort(struct mon_cfi_row *r, struct mon_cfi_row *tmp, size_t n)
{
	struct mon_cfi_row *src = r, *dst = tmp;
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t a = lo, b = mid, k = lo;
			while (a < mid && b < hi)
				dst[k++] = row_less(&src[b], &src[a]) ? src[b++] : src[a++];
			while (a < mid)
				dst[k++] = src[a++];
			while (b < hi)
				dst[k++] = src[b++];
		}
		struct mon_cfi_row *t = src;
		src = dst;
		dst = t;
	}
	if (src != r)
		memcpy(r, src, n * sizeof *r);
}

size_t mon_cfi_squeeze(struct mon_cfi_row *r, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (i + 1 < n && r[i + 1].pc == r[i].pc)
			continue;
		if (k > 0 && r[k - 1].kind == r[i].kind && r[k - 1].cfa_off == r[i].cfa_off &&
		    r[k - 1].fp_off == r[i].fp_off && r[k - 1].aux == r[i].aux &&
		    r[k - 1].ra_off == r[i].ra_off)
			continue;
		r[k++] = r[i];
	}
	return k;
}
