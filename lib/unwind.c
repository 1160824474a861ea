/*
 * unwind.c — the stack unwinder: tables compiled from each object's CFI
 * when it is loaded, walked from a signal handler.
 *
 * Compiling (mon_unwind_refresh, outside any handler).  For each loaded
 * object (objects.c's walk of dl_iterate_phdr(3)) PT_GNU_EH_FRAME gives
 * .eh_frame_hdr, whose eh_frame_ptr points at .eh_frame in memory (the
 * LSB's "Exception Frames", DWARF 4 section 6.4 "Call Frame Information").
 * Every FDE's CFA program (its CIE's initial instructions, then its own)
 * is run here, once, into rows of a sorted array:
 *   { PC offset from the load bias, CFA = rsp|rbp + offset,
 *     rbp saved at CFA + k or unchanged, return address at CFA - 8 }
 * with kinds for the cases that are not that: the PLT's
 * DW_CFA_def_cfa_expression (CFA = rsp + 8 + ((rip & 15) >= 11 ? 8 : 0)),
 * gcc's stack-realigning prologue (CFA = *(rbp + k)), glibc's signal
 * trampoline (an FDE with augmentation "S" around __restore_rt), the
 * outermost frame (return address undefined: _start, a thread's clone
 * entry), and a rule this walker does not follow (other expressions,
 * registers other than rsp and rbp holding the CFA): the walk ends there,
 * truncated.  Between FDEs a row says "no CFI": there the frame pointer is
 * followed (CFA = rbp + 16), checked like every read.
 *
 * Tables are kept per file (path, build ID, PT_GNU_EH_FRAME's address, size
 * and a hash of its contents) in libmon's own memory (alloc.c), never freed:
 * an object loaded again (dlopen/dlclose in a loop) finds its table, so
 * memory grows with the distinct files only.  What walks read is a
 * snapshot: the objects' text ranges sorted, each with its load bias and
 * table, published with a release store.  A snapshot replaced is freed only
 * once no walk that may have read it is still running (two counters of
 * walkers, by parity of an epoch); a snapshot whose walkers do not drain in
 * time (a thread stopped in the handler) is kept, not freed.
 *
 * Walking (mon_unwind, in the tick handler).  Registers from the ucontext
 * (getcontext(3)'s gregs: REG_RIP, REG_RSP, REG_RBP); per frame: the
 * object (binary search), the row (binary search), the CFA, the return
 * address and the saved rbp.  Reads are checked: the thread's own stack,
 * from the interrupted rsp up to its top (below the thread's descriptor,
 * or the end of the main thread's "[stack]" mapping), is checked once per
 * thread, one byte a page with process_vm_readv(2) on our own pid (EFAULT
 * for an unmapped page, never a fault), kept in TLS, and read directly
 * from then on; another stack (a coroutine's, an alternate signal stack)
 * is checked a few pages at a time by each walk; any other address is
 * read with process_vm_readv itself.
 * A frame whose CFA does not lie above the previous rsp, or a read that
 * fails, ends the walk as truncated.  glibc's __restore_rt (mov $15,%rax;
 * syscall: rt_sigreturn) means the kernel's signal frame is at rsp: its
 * ucontext_t gives the interrupted registers and the walk goes on there,
 * with that frame's PC exact.  A PC in no object is JIT code: recorded,
 * flagged, the end.
 *
 * Not done: .debug_frame (objects whose code has no .eh_frame fall back to
 * the frame pointer), DWARF expressions but the ones above.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

#include "objects.h"
#include "runtime.h"
#include "unwind.h"

/* ---- rows ------------------------------------------------------------- */

enum {
	K_NONE,		/* no CFI covers this PC: follow the frame pointer */
	K_RSP,		/* CFA = rsp + cfa_off */
	K_RBP,		/* CFA = rbp + cfa_off */
	K_PLT,		/* CFA = rsp + cfa_off + ((pc & 15) >= rbp_off ? 8 : 0) */
	K_DEREF,	/* CFA = *(rbp + cfa_off) (gcc's stack realignment, "DRAP") */
	K_END,		/* the return address is undefined: the outermost frame */
	K_SIG,		/* glibc's signal trampoline; cfa_off: __restore_rt's offset */
	K_STOP		/* a rule not followed: the walk ends, truncated */
};
#define A_RBP_SAVED 1u	/* the caller's rbp is at CFA + rbp_off */
#define A_RBP_AT_RBP 2u	/* the caller's rbp is at rbp + rbp_off */
#define A_RBP_LOST 4u	/* the caller's rbp is not known */

struct urow {
	uint32_t pc;		/* offset from the load bias where the row starts */
	int32_t cfa_off;
	int16_t rbp_off;
	uint8_t kind;
	uint8_t aux;		/* A_* */
};

/* One compiled table, kept for the life of the process. */
struct utab {
	struct utab *next;
	char *path;
	unsigned char build_id[20];
	size_t build_id_len;
	uintptr_t hdr_vaddr, hdr_size;	/* PT_GNU_EH_FRAME's p_vaddr, p_memsz */
	uint64_t hdr_hash;		/* FNV-1a of .eh_frame_hdr's bytes */
	struct urow *rows;
	uint32_t nrows;
	size_t bytes;
};

struct uobj {
	uintptr_t lo, hi;	/* runtime text range (executable PT_LOADs), hi excluded */
	uintptr_t bias;
	const struct urow *rows;
	uint32_t nrows;
};

struct usnap {
	size_t n;
	struct uobj obj[];
};

static struct usnap *current;		/* published snapshot (release store) */
static unsigned long epoch;
static unsigned long walkers[2];	/* walks running, by parity of the epoch they saw */
static struct utab *tables;		/* every table compiled (refresh_lock) */
static pthread_mutex_t refresh_lock = PTHREAD_MUTEX_INITIALIZER;
#define RETIRED_MAX 64
static struct usnap *retired[RETIRED_MAX];	/* snapshots whose walkers did not drain */
static unsigned nretired;
static pid_t own_pid;			/* for process_vm_readv: set by refresh and in a fork child */
static uintptr_t main_stack_top;	/* end of the "[stack]" mapping (proc(5)), or 0 */
static uintptr_t main_self;		/* the main thread's pthread_self(), or 0 */
/* This thread's stack as far as a walk verified it: [lo, hi) is mapped and
 * stays mapped while the thread lives (see reader_at). */
static __thread uintptr_t tstack_lo __attribute__((tls_model("initial-exec")));
static __thread uintptr_t tstack_hi __attribute__((tls_model("initial-exec")));

/* ---- reading the CFI (compile time: the object's own loaded bytes) ---- */

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

static uint64_t fixed(struct cur *c, unsigned n)
{
	if ((size_t)(c->end - c->p) < n) {
		c->bad = 1;
		c->p = c->end;
		return 0;
	}
	uint64_t v = 0;
	memcpy(&v, c->p, n);	/* little-endian */
	c->p += n;
	return v;
}

/* The object's loaded segments, to bound reads of pointers (indirect). */
struct objmem {
	const struct dl_phdr_info *info;
};

static int in_object(const struct objmem *m, uintptr_t a, size_t n)
{
	for (int i = 0; i < m->info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &m->info->dlpi_phdr[i];
		uintptr_t lo = m->info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && a >= lo && a + n >= a && a + n <= lo + ph->p_memsz)
			return 1;
	}
	return 0;
}

/* A pointer encoded as enc (DW_EH_PE_*; the LSB's .eh_frame_hdr and
 * .eh_frame): format in the low nibble, application in bits 4-6 (pcrel:
 * from the field's own address; datarel: from datarel), indirect 0x80.
 * The value is a runtime address (pcrel in a loaded image gives one).
 * 0xff (omit) gives 0.  Sets c->bad for what cannot be decoded. */
static uintptr_t encoded(struct cur *c, uint8_t enc, uintptr_t datarel, const struct objmem *m)
{
	if (enc == 0xff)
		return 0;
	uintptr_t field = (uintptr_t)c->p;
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
	default: c->bad = 1; return 0;	/* textrel, funcrel, aligned: not in x86_64 .eh_frame */
	}
	if (enc & 0x80) {
		if (!in_object(m, (uintptr_t)v, sizeof(uintptr_t))) {
			c->bad = 1;
			return 0;
		}
		uintptr_t w;
		memcpy(&w, (const void *)(uintptr_t)v, sizeof w);
		v = w;
	}
	return (uintptr_t)v;
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

static int parse_cie(const uint8_t *p, const uint8_t *limit, struct cie *ci, const struct objmem *m)
{
	struct cur c = { p, limit, 0 };
	uint64_t len = fixed(&c, 4);
	if (len == 0xffffffffu)
		len = fixed(&c, 8);
	if (c.bad || len > (uint64_t)(limit - c.p))
		return -1;
	c.end = c.p + len;
	if (fixed(&c, 4) != 0)	/* CIE id in .eh_frame */
		return -1;
	unsigned version = (unsigned)fixed(&c, 1);
	if (version != 1 && version != 3 && version != 4)
		return -1;
	const char *aug = (const char *)c.p;
	size_t auglen = strnlen(aug, (size_t)(c.end - c.p));
	if (auglen == (size_t)(c.end - c.p))
		return -1;
	c.p += auglen + 1;
	if (version == 4) {
		if (fixed(&c, 1) != 8)	/* address size */
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
			encoded(&c, enc & 0x7f, 0, m);	/* the personality: not needed */
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
	if (c.bad)
		return -1;
	if (aug_end != NULL)
		c.p = aug_end;
	ci->ins = c.p;
	ci->ins_end = c.end;
	return 0;
}

/* ---- running a CFA program -------------------------------------------- */

enum { C_REG, C_PLT, C_DEREF, C_STOP };
enum { R_SAME, R_OFF, R_AT_RBP, R_LOST };
enum { RA_OFF, RA_UNDEF, RA_OTHER };

struct ustate {
	uint8_t cfa, rbp, ra, plt_k;
	uint64_t cfa_reg;
	int64_t cfa_off, rbp_off, ra_off;
};

#define DW_RBP 6
#define DW_RSP 7
#define DW_RA 16

struct rowbuf {
	struct urow *r;
	size_t n, cap;
	int nomem;
};

static void push_row(struct rowbuf *b, struct urow row)
{
	if (b->nomem)
		return;
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 1024;
		struct urow *r = mon_realloc(b->r, cap * sizeof *r);
		if (r == NULL) {
			b->nomem = 1;
			return;
		}
		b->r = r;
		b->cap = cap;
	}
	b->r[b->n++] = row;
}

static struct urow row_of(const struct ustate *s, uint32_t pc)
{
	struct urow r = { pc, 0, 0, K_STOP, 0 };
	if (s->ra == RA_UNDEF) {
		r.kind = K_END;
		return r;
	}
	if (s->ra != RA_OFF || s->ra_off != -8)
		return r;
	if (s->cfa_off < INT32_MIN || s->cfa_off > INT32_MAX)
		return r;
	r.cfa_off = (int32_t)s->cfa_off;
	switch (s->cfa) {
	case C_REG:
		if (s->cfa_reg == DW_RSP)
			r.kind = K_RSP;
		else if (s->cfa_reg == DW_RBP)
			r.kind = K_RBP;
		else
			return r;
		break;
	case C_PLT:
		r.kind = K_PLT;
		r.rbp_off = s->plt_k;
		return r;	/* rbp is not touched by a PLT stub */
	case C_DEREF:
		r.kind = K_DEREF;
		break;
	default:
		return r;
	}
	if (s->rbp == R_OFF || s->rbp == R_AT_RBP) {
		if (s->rbp_off < INT16_MIN || s->rbp_off > INT16_MAX)
			r.aux = A_RBP_LOST;
		else {
			r.aux = s->rbp == R_OFF ? A_RBP_SAVED : A_RBP_AT_RBP;
			r.rbp_off = (int16_t)s->rbp_off;
		}
	} else if (s->rbp == R_LOST) {
		r.aux = A_RBP_LOST;
	}
	return r;
}

/* DW_CFA_def_cfa_expression: the PLT's (DW_OP_breg7 N; DW_OP_breg16 0;
 * DW_OP_lit15; DW_OP_and; DW_OP_litK; DW_OP_ge; DW_OP_lit3; DW_OP_shl;
 * DW_OP_plus: rsp + N + ((rip & 15) >= K) << 3) and gcc's realignment
 * (DW_OP_breg6 N; DW_OP_deref: *(rbp + N)).  Anything else: C_STOP. */
static void cfa_expression(struct ustate *s, const uint8_t *e, uint64_t len)
{
	struct cur c = { e, e + len, 0 };
	s->cfa = C_STOP;
	if (len >= 2 && e[0] == 0x77) {	/* DW_OP_breg7 */
		c.p++;
		int64_t n = sleb(&c);
		static const uint8_t tail1[] = { 0x80, 0x00, 0x3f, 0x1a };	/* breg16 0, lit15, and */
		if (c.bad || (size_t)(c.end - c.p) != sizeof tail1 + 5 ||
		    memcmp(c.p, tail1, sizeof tail1) != 0)
			return;
		c.p += sizeof tail1;
		uint8_t lit = c.p[0];	/* DW_OP_lit0..31 = 0x30.. */
		if (lit < 0x30 || lit > 0x3f || c.p[1] != 0x2a || c.p[2] != 0x33 || c.p[3] != 0x24 ||
		    c.p[4] != 0x22)	/* ge, lit3, shl, plus */
			return;
		s->cfa = C_PLT;
		s->cfa_off = n;
		s->plt_k = (uint8_t)(lit - 0x30);
	} else if (len >= 2 && e[0] == 0x76) {	/* DW_OP_breg6 */
		c.p++;
		int64_t n = sleb(&c);
		if (c.bad || c.end - c.p != 1 || c.p[0] != 0x06)	/* DW_OP_deref */
			return;
		s->cfa = C_DEREF;
		s->cfa_off = n;
	}
}

#define STATE_STACK 16

/* Run instructions [ins, end) from state *s (init: the CIE's state for
 * DW_CFA_restore), emitting a row at every advance.  pc: runtime address. */
static int run_cfa(const struct cie *ci, const uint8_t *ins, const uint8_t *end, struct ustate *s,
		   const struct ustate *init, uintptr_t *pc, uintptr_t pc_end, uintptr_t bias,
		   struct rowbuf *b, int emit, const struct objmem *m)
{
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
			off = (int64_t)uleb(&c) * ci->data_align;
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
				uintptr_t to = encoded(&c, ci->fde_enc, 0, m);
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
				off = (int64_t)uleb(&c) * ci->data_align;
				goto offset;
			case 0x06:	/* restore_extended */
				reg = uleb(&c);
				goto restore;
			case 0x07:	/* undefined */
				reg = uleb(&c);
				if (reg == ci->ra_reg)
					s->ra = RA_UNDEF;
				else if (reg == DW_RBP)
					s->rbp = R_LOST;
				break;
			case 0x08:	/* same_value */
				reg = uleb(&c);
				if (reg == DW_RBP)
					s->rbp = R_SAME;
				else if (reg == ci->ra_reg)
					s->ra = RA_OTHER;
				break;
			case 0x09:	/* register */
				reg = uleb(&c);
				uleb(&c);
				if (reg == DW_RBP)
					s->rbp = R_LOST;
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
				if (s->cfa == C_PLT || s->cfa == C_DEREF)
					s->cfa = C_STOP;
				s->cfa_off = (int64_t)uleb(&c);
				break;
			case 0x0f: {	/* def_cfa_expression */
				uint64_t n = uleb(&c);
				if (n > (uint64_t)(c.end - c.p))
					return -1;
				cfa_expression(s, c.p, n);
				c.p += n;
				break;
			}
			case 0x10:	/* expression */
			case 0x16: {	/* val_expression */
				reg = uleb(&c);
				uint64_t n = uleb(&c);
				if (n > (uint64_t)(c.end - c.p))
					return -1;
				if (reg == DW_RBP) {
					struct cur e = { c.p, c.p + n, 0 };
					s->rbp = R_LOST;
					if (op == 0x10 && n >= 2 && c.p[0] == 0x76) {	/* breg6 N */
						e.p++;
						int64_t k = sleb(&e);
						if (!e.bad && e.p == e.end) {
							s->rbp = R_AT_RBP;
							s->rbp_off = k;
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
				off = sleb(&c) * ci->data_align;
				goto offset;
			case 0x12:	/* def_cfa_sf */
				s->cfa = C_REG;
				s->cfa_reg = uleb(&c);
				s->cfa_off = sleb(&c) * ci->data_align;
				break;
			case 0x13:	/* def_cfa_offset_sf */
				if (s->cfa == C_PLT || s->cfa == C_DEREF)
					s->cfa = C_STOP;
				s->cfa_off = sleb(&c) * ci->data_align;
				break;
			case 0x14:	/* val_offset */
			case 0x15:	/* val_offset_sf */
				reg = uleb(&c);
				if (op == 0x14)
					uleb(&c);
				else
					sleb(&c);
				if (reg == DW_RBP)
					s->rbp = R_LOST;
				else if (reg == ci->ra_reg)
					s->ra = RA_OTHER;
				break;
			case 0x2e:	/* GNU_args_size: ignored */
				uleb(&c);
				break;
			case 0x2f:	/* GNU_negative_offset_extended */
				reg = uleb(&c);
				off = -(int64_t)uleb(&c) * ci->data_align;
				goto offset;
			default:
				return -1;	/* unknown opcode: the rest cannot be read */
			}
		}
		if (advance) {
			uintptr_t next = *pc + adv * ci->code_align;
			if (next < *pc || next > pc_end)
				next = pc_end;
			if (emit && next > *pc)
				push_row(b, row_of(s, (uint32_t)(*pc - bias)));
			*pc = next;
		}
		continue;
offset:
		if (reg == DW_RBP) {
			s->rbp = R_OFF;
			s->rbp_off = off;
		} else if (reg == ci->ra_reg) {
			s->ra = RA_OFF;
			s->ra_off = off;
		}
		continue;
restore:
		if (reg == DW_RBP) {
			s->rbp = init->rbp;
			s->rbp_off = init->rbp_off;
		} else if (reg == ci->ra_reg) {
			s->ra = init->ra;
			s->ra_off = init->ra_off;
		}
		continue;
	}
	return c.bad ? -1 : 0;
}

/* The bytes of __restore_rt: mov $15,%rax (rt_sigreturn); syscall. */
static const uint8_t restorer[9] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };

/* One FDE at p (its length field), with the object's text range. */
struct cie_cache {
	const uint8_t *at;	/* the CIE last parsed, or NULL */
	int ok;
	struct cie cie;
};

/* 1 if the n bytes of loaded text at a are want's.  Not through memcmp and
 * not instrumented: a sanitizer's interceptor checks its shadow of the
 * other object's text, and ThreadSanitizer took a SIGBUS doing so in a
 * process under a file size limit (ulimit -f 1). */
__attribute__((no_sanitize("address", "thread"))) static int text_is(uintptr_t a,
									   const unsigned char *want,
									   size_t n)
{
	const volatile unsigned char *p = (const volatile unsigned char *)a;
	for (size_t i = 0; i < n; i++)
		if (p[i] != want[i])
			return 0;
	return 1;
}

static void do_fde(const uint8_t *p, const uint8_t *limit, const uint8_t *frame_start,
		   uintptr_t bias, uintptr_t lo, uintptr_t hi, struct rowbuf *b,
		   const struct objmem *m, struct cie_cache *cc)
{
	struct cur c = { p, limit, 0 };
	uint64_t len = fixed(&c, 4);
	if (len == 0xffffffffu)
		len = fixed(&c, 8);
	if (c.bad || len > (uint64_t)(limit - c.p))
		return;
	c.end = c.p + len;
	const uint8_t *idp = c.p;
	uint32_t id = (uint32_t)fixed(&c, 4);
	const uint8_t *ciep = idp - id;
	if (c.bad || ciep < frame_start || ciep >= limit)
		return;
	if (cc->at != ciep) {
		cc->at = ciep;
		cc->ok = parse_cie(ciep, limit, &cc->cie, m) == 0;
	}
	if (!cc->ok)
		return;
	struct cie ci = cc->cie;
	uintptr_t start = encoded(&c, ci.fde_enc, 0, m);
	uintptr_t range = encoded(&c, ci.fde_enc & 0x0f, 0, m);
	if (c.bad || range == 0 || start < lo || start >= hi || range > hi - start)
		return;
	if (ci.has_z) {
		uint64_t n = uleb(&c);
		if (c.bad || n > (uint64_t)(c.end - c.p))
			return;
		c.p += n;
	}
	uintptr_t end = start + range;
	if (ci.signal) {
		/* glibc's trampoline: its FDE starts a byte before __restore_rt
		 * (a return address - 1 falls inside); find the instructions. */
		struct urow r = { (uint32_t)(start - bias), 0, 0, K_STOP, 0 };
		for (uintptr_t a = start; a + sizeof restorer <= end && a < start + 16; a++)
			if (text_is(a, restorer, sizeof restorer)) {
				r.kind = K_SIG;
				r.cfa_off = (int32_t)(a - start);
				break;
			}
		push_row(b, r);
	} else {
		struct ustate s = { C_STOP, R_SAME, RA_OFF, 0, 0, 0, 0, -8 }, init;
		uintptr_t pc = start;
		/* The CIE's initial instructions, emitting nothing. */
		if (run_cfa(&ci, ci.ins, ci.ins_end, &s, &s, &pc, end, bias, b, 0, m) < 0)
			return;
		pc = start;
		init = s;
		if (run_cfa(&ci, c.p, c.end, &s, &init, &pc, end, bias, b, 1, m) < 0) {
			/* The rest of the FDE could not be read: what follows is unknown. */
			s.cfa = C_STOP;
		}
		if (pc < end)
			push_row(b, row_of(&s, (uint32_t)(pc - bias)));
	}
	struct urow gap = { (uint32_t)(end - bias), 0, 0, K_NONE, 0 };
	push_row(b, gap);
}

/* Sort rows by PC; where PCs are equal, a "no CFI" row (an FDE's end)
 * comes before the next FDE's first row, which wins.  Bottom-up merge sort
 * (stable) in mon_alloc memory: qsort(3) may call the program's malloc. */
static int row_less(const struct urow *a, const struct urow *b)
{
	if (a->pc != b->pc)
		return a->pc < b->pc;
	return a->kind == K_NONE && b->kind != K_NONE;
}

static int sort_rows(struct urow *r, size_t n)
{
	if (n < 2)
		return 0;
	/* Already sorted (the usual case: .eh_frame in text order)? */
	size_t i;
	for (i = 1; i < n && !row_less(&r[i], &r[i - 1]); i++)
		;
	if (i == n)
		return 0;
	struct urow *tmp = mon_alloc(n * sizeof *tmp);
	if (tmp == NULL)
		return -1;
	struct urow *src = r, *dst = tmp;
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t a = lo, bb = mid, k = lo;
			while (a < mid && bb < hi)
				dst[k++] = row_less(&src[bb], &src[a]) ? src[bb++] : src[a++];
			while (a < mid)
				dst[k++] = src[a++];
			while (bb < hi)
				dst[k++] = src[bb++];
		}
		struct urow *t = src;
		src = dst;
		dst = t;
	}
	if (src != r)
		memcpy(r, src, n * sizeof *r);
	mon_free(tmp);
	return 0;
}

/* Keep the last row of each PC, and drop rows that say what the row
 * before them says. */
static size_t squeeze(struct urow *r, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (i + 1 < n && r[i + 1].pc == r[i].pc)
			continue;
		if (k > 0 && r[k - 1].kind == r[i].kind && r[k - 1].cfa_off == r[i].cfa_off &&
		    r[k - 1].rbp_off == r[i].rbp_off && r[k - 1].aux == r[i].aux)
			continue;
		r[k++] = r[i];
	}
	return k;
}

/* FNV-1a over 8-byte words (the tail bytewise). */
static uint64_t fnv(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull, w;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ull;
	}
	for (; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* Compile the object's .eh_frame into t->rows. */
static void compile(const struct dl_phdr_info *info, const ElfW(Phdr) *hdrph, uintptr_t lo,
		    uintptr_t hi, struct utab *t)
{
	struct objmem m = { info };
	const uint8_t *hdr = (const uint8_t *)(info->dlpi_addr + hdrph->p_vaddr);
	if (hdrph->p_memsz < 4 || hdr[0] != 1)
		return;
	struct cur c = { hdr + 4, hdr + hdrph->p_memsz, 0 };
	uintptr_t frame = encoded(&c, hdr[1], (uintptr_t)hdr, &m);
	if (c.bad || !in_object(&m, frame, 4))
		return;
	/* .eh_frame ends at the end of its segment at the latest (its
	 * terminator, a zero length, ends it earlier). */
	const uint8_t *limit = NULL;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t slo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && frame >= slo && frame < slo + ph->p_filesz)
			limit = (const uint8_t *)(slo + ph->p_filesz);
	}
	if (limit == NULL)
		return;
	struct rowbuf b = { NULL, 0, 0, 0 };
	struct cie_cache cc = { NULL, 0, { 0 } };
	/* About 5 rows an FDE: size the buffer from the header's FDE count. */
	uintptr_t nfde = encoded(&c, hdr[2], (uintptr_t)hdr, &m);
	if (!c.bad && nfde > 0 && nfde < (1u << 24)) {
		b.r = mon_alloc(nfde * 5 * sizeof *b.r);
		b.cap = b.r ? nfde * 5 : 0;
	}
	const uint8_t *start = (const uint8_t *)frame, *p = start;
	uintptr_t bias = info->dlpi_addr;
	while ((size_t)(limit - p) >= 4) {
		uint32_t l32;
		memcpy(&l32, p, 4);
		if (l32 == 0)
			break;
		uint64_t len = l32;
		size_t head = 4;
		if (l32 == 0xffffffffu) {
			if ((size_t)(limit - p) < 12)
				break;
			memcpy(&len, p + 4, 8);
			head = 12;
		}
		if (len < 4 || len > (uint64_t)(limit - p - head))
			break;
		uint32_t id;
		memcpy(&id, p + head, 4);
		if (id != 0)
			do_fde(p, limit, start, bias, lo, hi, &b, &m, &cc);
		p += head + len;
	}
	if (b.nomem || sort_rows(b.r, b.n) < 0) {
		mon_free(b.r);
		return;
	}
	b.n = squeeze(b.r, b.n);
	if (b.n == 0) {
		mon_free(b.r);
		return;
	}
	/* Shrink to fit. */
	struct urow *fit = mon_alloc(b.n * sizeof *fit);
	if (fit != NULL) {
		memcpy(fit, b.r, b.n * sizeof *fit);
		mon_free(b.r);
		b.r = fit;
	}
	t->rows = b.r;
	t->nrows = (uint32_t)b.n;
	t->bytes = b.n * sizeof *b.r;
}

/* ---- refresh: the objects, their tables, the snapshot ------------------ */

struct collect {
	struct uobj *obj;
	size_t n, cap;
	int nomem;
};

static int each_object(const struct mon_object_info *o, void *arg)
{
	struct collect *col = arg;
	const struct dl_phdr_info *info = o->phdr;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	const ElfW(Phdr) *hdrph = NULL;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && ph->p_memsz > 0) {
			uintptr_t a = info->dlpi_addr + ph->p_vaddr;
			if (a < lo)
				lo = a;
			if (a + ph->p_memsz > hi)
				hi = a + ph->p_memsz;
		} else if (ph->p_type == PT_GNU_EH_FRAME) {
			hdrph = ph;
		}
	}
	if (lo >= hi || hi - info->dlpi_addr > UINT32_MAX)
		return 0;	/* no code, or offsets that do not fit a row */
	unsigned char id[20];
	size_t idlen = mon_build_id(info, id, sizeof id);
	uintptr_t hv = hdrph ? hdrph->p_vaddr : 0, hs = hdrph ? hdrph->p_memsz : 0;
	uint64_t hh = hdrph ? fnv((const uint8_t *)(info->dlpi_addr + hv), hs) : 0;
	const char *path = o->path ? o->path : "";
	struct utab *t;
	for (t = tables; t != NULL; t = t->next)
		if (t->hdr_vaddr == hv && t->hdr_size == hs && t->hdr_hash == hh &&
		    t->build_id_len == idlen && memcmp(t->build_id, id, idlen) == 0 &&
		    strcmp(t->path, path) == 0)
			break;
	if (t == NULL) {
		t = mon_alloc(sizeof *t);
		char *p = mon_strdup(path);
		if (t == NULL || p == NULL) {
			mon_free(t);
			mon_free(p);
			col->nomem = 1;
			return 0;
		}
		t->path = p;
		memcpy(t->build_id, id, idlen);
		t->build_id_len = idlen;
		t->hdr_vaddr = hv;
		t->hdr_size = hs;
		t->hdr_hash = hh;
		if (hdrph != NULL)
			compile(info, hdrph, lo, hi, t);
		t->next = tables;
		tables = t;
	}
	if (col->n == col->cap) {
		size_t cap = col->cap ? col->cap * 2 : 32;
		struct uobj *a = mon_realloc(col->obj, cap * sizeof *a);
		if (a == NULL) {
			col->nomem = 1;
			return 0;
		}
		col->obj = a;
		col->cap = cap;
	}
	struct uobj *u = &col->obj[col->n++];
	u->lo = lo;
	u->hi = hi;
	u->bias = info->dlpi_addr;
	u->rows = t->rows;
	u->nrows = t->nrows;
	return 0;
}

/* fork(2) while another thread compiles: the child gets the lock free. */
static void fork_prepare(void)
{
	pthread_mutex_lock(&refresh_lock);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&refresh_lock);
}

static void fork_child(void)
{
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
	memcpy(&refresh_lock, &fresh, sizeof refresh_lock);
	walkers[0] = walkers[1] = 0;	/* the other threads' walks are not in the child */
	own_pid = (pid_t)syscall(SYS_getpid);
}

/* The end of the main thread's stack mapping, "[stack]" in /proc/self/maps
 * (proc(5): "LO-HI perms offset dev inode   path"); 0 if not found. */
static int stack_line(char *l, size_t len, void *arg)
{
	uint64_t lo, hi;
	const char *c = l;
	if (len <= 7 || strcmp(l + len - 7, "[stack]") != 0 || !mon_hexval(&c, &lo) || *c++ != '-' ||
	    !mon_hexval(&c, &hi))
		return 0;
	*(uintptr_t *)arg = (uintptr_t)hi;
	return 1;
}

static uintptr_t find_main_stack_top(void)
{
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	uintptr_t top = 0;
	mon_fd_each_line(fd, stack_line, &top);
	close(fd);
	return top;
}

__attribute__((constructor)) static void unwind_init(void)
{
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	/* The main thread's descriptor is not on its stack (see reader_at). */
	if (syscall(SYS_gettid) == syscall(SYS_getpid))
		main_self = (uintptr_t)pthread_self();
}

int mon_unwind_refresh(void)
{
	int saved_errno = errno;
	pthread_mutex_lock(&refresh_lock);
	__atomic_store_n(&own_pid, (pid_t)syscall(SYS_getpid), __ATOMIC_RELAXED);
	if (main_stack_top == 0)
		__atomic_store_n(&main_stack_top, find_main_stack_top(), __ATOMIC_RELAXED);
	struct collect col = { NULL, 0, 0, 0 };
	mon_objects_each(each_object, &col);
	struct usnap *s = col.nomem ? NULL : mon_alloc(sizeof *s + col.n * sizeof(struct uobj));
	if (s == NULL) {
		mon_free(col.obj);
		pthread_mutex_unlock(&refresh_lock);
		return mon_fail(ENOMEM);
	}
	/* Sorted by text address (insertion sort: tens of objects). */
	for (size_t i = 0; i < col.n; i++) {
		size_t j = i;
		while (j > 0 && s->obj[j - 1].lo > col.obj[i].lo) {
			s->obj[j] = s->obj[j - 1];
			j--;
		}
		s->obj[j] = col.obj[i];
	}
	s->n = col.n;
	mon_free(col.obj);
	struct usnap *old = __atomic_exchange_n(&current, s, __ATOMIC_SEQ_CST);
	unsigned long e = __atomic_load_n(&epoch, __ATOMIC_SEQ_CST);
	__atomic_store_n(&epoch, e + 1, __ATOMIC_SEQ_CST);
	if (old != NULL) {
		/* Walks that may hold old counted in walkers[e & 1]; new ones see
		 * the new epoch and snapshot.  Wait (bounded) for them. */
		int drained = 0;
		for (int i = 0; i < 100000; i++) {
			if (__atomic_load_n(&walkers[e & 1], __ATOMIC_SEQ_CST) == 0) {
				drained = 1;
				break;
			}
			sched_yield();
		}
		if (drained)
			mon_free(old);
		else if (nretired < RETIRED_MAX)
			retired[nretired++] = old;	/* kept: a walk may still read it */
		/* else: leaked on purpose, for the same reason. */
	}
	pthread_mutex_unlock(&refresh_lock);
	errno = saved_errno;
	return 0;
}

size_t mon_unwind_table_bytes(const char *part, unsigned *ntables)
{
	size_t bytes = 0;
	unsigned n = 0;
	pthread_mutex_lock(&refresh_lock);
	for (const struct utab *t = tables; t != NULL; t = t->next)
		if (part == NULL || strstr(t->path, part) != NULL) {
			bytes += t->bytes;
			n++;
		}
	pthread_mutex_unlock(&refresh_lock);
	if (ntables)
		*ntables = n;
	return bytes;
}

/* ---- the walk ---------------------------------------------------------- */

#define PAGE 4096u
#define PROBE_PAGES 8u		/* stack pages verified by one system call */
#define STACK_SPAN (8u << 20)	/* how far above rsp the stack is read directly */

/* Memory known readable: [lo, hi), pages of the stack above the interrupted
 * rsp, verified with process_vm_readv; anything else is read with it. */
struct reader {
	uintptr_t lo, hi;
	pid_t pid;
};

static long vm_read(struct reader *r, struct iovec *local, unsigned long nl, struct iovec *remote,
		    unsigned long nr)
{
	if (r->pid == 0)
		r->pid = __atomic_load_n(&own_pid, __ATOMIC_RELAXED);
	if (r->pid == 0)
		r->pid = (pid_t)syscall(SYS_getpid);
	return syscall(SYS_process_vm_readv, r->pid, local, nl, remote, nr, 0ul);
}

/* 1 if every page of [lo, hi) (page-aligned) can be read: one byte of each,
 * by process_vm_readv, 256 pages a call. */
static int pages_readable(struct reader *r, uintptr_t lo, uintptr_t hi)
{
	struct iovec remote[256], local;
	char sink[256];
	local.iov_base = sink;
	while (lo < hi) {
		unsigned n = 0;
		for (; n < 256 && lo + (uintptr_t)n * PAGE < hi; n++) {
			remote[n].iov_base = (void *)(lo + (uintptr_t)n * PAGE);
			remote[n].iov_len = 1;
		}
		local.iov_len = n;
		if (vm_read(r, &local, 1, remote, n) != (long)n)
			return 0;
		lo += (uintptr_t)n * PAGE;
	}
	return 1;
}

#define THREAD_STACK_MAX (64u << 20)	/* larger distances are not taken for a stack */

/* Start reading at sp.  When sp is in this thread's own stack — below its
 * descriptor (pthread_self(), which glibc puts at the top of the stack
 * block of every thread but the main one, a guard page under it) or below
 * the end of the main thread's "[stack]" mapping (a guard gap under it;
 * the main thread's descriptor is elsewhere, among the mappings of the
 * libraries) — and every page from
 * sp's up to that top is mapped, that range stays mapped while the thread
 * lives: it is kept in TLS and read directly by every later walk of the
 * thread (checked once, extended downwards as the stack deepens).
 * Otherwise (a coroutine's stack, an alternate signal stack) the pages are
 * checked by each walk. */
static void reader_at(struct reader *r, uintptr_t sp)
{
	uintptr_t page = sp & ~(uintptr_t)(PAGE - 1);
	r->lo = r->hi = page;
	uintptr_t lo = tstack_lo, hi = tstack_hi;
	if (hi != 0 && sp >= lo && sp < hi) {
		r->hi = hi;
		return;
	}
	uintptr_t self = (uintptr_t)pthread_self(), top = 0;
	uintptr_t mtop = __atomic_load_n(&main_stack_top, __ATOMIC_RELAXED);
	if (self != main_self && main_self != 0 && sp < self && self - sp < THREAD_STACK_MAX)
		top = (self + PAGE) & ~(uintptr_t)(PAGE - 1);
	else if (sp < mtop && mtop - sp < THREAD_STACK_MAX)
		top = mtop;
	if (top == 0)
		return;
	if (hi == top && page < lo) {
		if (!pages_readable(r, page, lo))
			return;
		tstack_lo = page;	/* the range only grows: a nested walk may read either */
	} else if (hi == 0 || hi != top) {
		if (!pages_readable(r, page, top))
			return;
		tstack_hi = 0;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		tstack_lo = page;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		tstack_hi = top;
	} else {
		return;
	}
	r->hi = top;
}

/* Read the 8 bytes at a into *out; 1 if they could be read.  Not
 * instrumented by the sanitizers: the direct reads are of other frames'
 * stack slots (AddressSanitizer's redzones among them), checked here. */
__attribute__((no_sanitize("address", "thread")))
static int rd(struct reader *r, uintptr_t a, uintptr_t *out)
{
	if (a >= r->lo && a <= UINTPTR_MAX - 8) {
		if (a + 8 <= r->hi) {
			*out = *(const uintptr_t *)a;
			return 1;
		}
		if (a - r->lo < STACK_SPAN && a + 8 - r->hi <= PROBE_PAGES * PAGE) {
			/* Verify the next pages of the stack, one byte of each. */
			struct iovec remote[PROBE_PAGES], local;
			char sink[PROBE_PAGES];
			for (unsigned i = 0; i < PROBE_PAGES; i++) {
				remote[i].iov_base = (void *)(r->hi + i * PAGE);
				remote[i].iov_len = 1;
			}
			local.iov_base = sink;
			local.iov_len = PROBE_PAGES;
			long got = vm_read(r, &local, 1, remote, PROBE_PAGES);
			if (got > 0)
				r->hi += (uintptr_t)got * PAGE;
			if (a + 8 <= r->hi) {
				*out = *(const uintptr_t *)a;
				return 1;
			}
			return 0;
		}
	}
	struct iovec local = { out, 8 }, remote = { (void *)a, 8 };
	return vm_read(r, &local, 1, &remote, 1) == 8;
}

static const struct uobj *find_obj(const struct usnap *s, uintptr_t pc)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->obj[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const struct uobj *o = &s->obj[lo - 1];
	return pc < o->hi ? o : NULL;
}

static const struct urow *find_row(const struct uobj *o, uint32_t off)
{
	size_t lo = 0, hi = o->nrows;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (o->rows[mid].pc <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 ? NULL : &o->rows[lo - 1];
}

/* Where the registers are in the kernel's signal frame (ucontext_t at rsp
 * when __restore_rt runs; sigreturn(2), <sys/ucontext.h>). */
#define UC_GREG(r) (offsetof(ucontext_t, uc_mcontext.gregs) + (r) * sizeof(greg_t))

unsigned mon_unwind(const void *context, uintptr_t *pcs, unsigned max, unsigned *flags)
{
	unsigned fl = 0, n = 0;
	if (context == NULL || max == 0) {
		if (flags)
			*flags = context == NULL ? MON_STACK_TRUNCATED : MON_STACK_DEPTH;
		return 0;
	}
	int saved_errno = errno;
	const ucontext_t *uc = context;
	uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	uintptr_t sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
	uintptr_t fp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
	int exact = 1, fp_known = 1;

	/* Count ourselves a walker of the epoch we saw (see refresh). */
	unsigned long e;
	for (;;) {
		e = __atomic_load_n(&epoch, __ATOMIC_SEQ_CST);
		__atomic_add_fetch(&walkers[e & 1], 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&epoch, __ATOMIC_SEQ_CST) == e)
			break;
		__atomic_sub_fetch(&walkers[e & 1], 1, __ATOMIC_SEQ_CST);
	}
	const struct usnap *s = __atomic_load_n(&current, __ATOMIC_ACQUIRE);
	struct reader r = { 0, 0, 0 };
	reader_at(&r, sp);
	if (s == NULL) {
		pcs[n++] = pc;
		fl |= MON_STACK_TRUNCATED;
		goto out;
	}
	for (;;) {
		if (n == max) {
			fl |= MON_STACK_DEPTH;
			break;
		}
		uintptr_t look = exact ? pc : pc - 1;
		const struct uobj *o = find_obj(s, look);
		if (o == NULL) {
			pcs[n++] = look;
			fl |= MON_STACK_JIT;
			break;
		}
		const struct urow *row = find_row(o, (uint32_t)(look - o->bias));
		unsigned kind = row ? row->kind : K_NONE;
		if (kind == K_SIG) {
			uintptr_t at = o->bias + row->pc + (uint32_t)row->cfa_off;
			if (exact ? pc - at < sizeof restorer : pc == at) {
				/* The kernel's signal frame: ucontext_t at rsp. */
				uintptr_t npc, nsp, nfp;
				pcs[n++] = pc;
				if (!rd(&r, sp + UC_GREG(REG_RIP), &npc) ||
				    !rd(&r, sp + UC_GREG(REG_RSP), &nsp) ||
				    !rd(&r, sp + UC_GREG(REG_RBP), &nfp)) {
					fl |= MON_STACK_TRUNCATED;
					break;
				}
				pc = npc;
				sp = nsp;
				fp = nfp;
				fp_known = 1;
				exact = 1;
				if (sp < r.lo || sp >= r.hi)
					reader_at(&r, sp);	/* another stack (sigaltstack) */
				continue;
			}
			kind = K_STOP;
		}
		pcs[n++] = look;
		uintptr_t cfa, ra, nfp = fp;
		int nfp_known = fp_known;
		switch (kind) {
		case K_END:
			goto out;
		case K_RSP:
			cfa = sp + (uintptr_t)(intptr_t)row->cfa_off;
			break;
		case K_RBP:
			if (!fp_known)
				goto truncated;
			cfa = fp + (uintptr_t)(intptr_t)row->cfa_off;
			break;
		case K_PLT:
			cfa = sp + (uintptr_t)(intptr_t)row->cfa_off +
			      ((pc & 15) >= (uintptr_t)row->rbp_off ? 8 : 0);
			break;
		case K_DEREF:
			if (!fp_known || !rd(&r, fp + (uintptr_t)(intptr_t)row->cfa_off, &cfa))
				goto truncated;
			break;
		case K_NONE:
			/* No CFI: the frame pointer, if it looks like one. */
			if (!fp_known || fp < sp || (fp & 7) || !rd(&r, fp, &nfp))
				goto truncated;
			cfa = fp + 16;
			nfp_known = 1;
			break;
		default:
			goto truncated;
		}
		if (cfa <= sp || !rd(&r, cfa - 8, &ra))
			goto truncated;
		if (kind != K_NONE && row->aux) {
			if (row->aux & A_RBP_SAVED)
				nfp_known = rd(&r, cfa + (uintptr_t)(intptr_t)row->rbp_off, &nfp);
			else if (row->aux & A_RBP_AT_RBP)
				nfp_known = fp_known &&
					    rd(&r, fp + (uintptr_t)(intptr_t)row->rbp_off, &nfp);
			else
				nfp_known = 0;
		}
		if (ra == 0)
			break;	/* the outermost frame */
		pc = ra;
		sp = cfa;
		fp = nfp;
		fp_known = nfp_known;
		exact = 0;
		continue;
truncated:
		fl |= MON_STACK_TRUNCATED;
		break;
	}
out:
	__atomic_sub_fetch(&walkers[e & 1], 1, __ATOMIC_RELEASE);
	if (flags)
		*flags = fl;
	errno = saved_errno;
	return n;
}
