/*
 * unwind_dwarf.c: DWARF CFI unwinding of copied user stacks (see unwind.h).
 *
 * Why not a Dwfl per process: libdwfl re-opens every ELF and re-parses its
 * CFI for each process (a parallel build has hundreds), and a Dwfl must be
 * rebuilt whenever a process maps a new file. Here the unwinder keeps its own
 * state per DSO (struct dso_unwind: libdw's Dwarf_CFI over .eh_frame /
 * .debug_frame and the unwind rule cache), keyed by the DSO cache entry and
 * so shared by every process mapping the file; the symbol cache (symbols.h)
 * only lends it the opened ELF and knows nothing of CFI. A frame is unwound
 * by finding the map of its pc in the session (always current, so a stale
 * cache cannot happen), asking libdw for the CFI row, and evaluating its
 * rules on the registers and the stack copy. Nothing is built per process or
 * per sample.
 *
 * The walk follows libdwfl's (elfutils 0.188, perfparser's) and libunwind's
 * (perf 6.1's on Debian): CFI lookup at pc - 1 except in the first frame and
 * after a signal frame; .eh_frame first, then .debug_frame, then the
 * frame-pointer heuristic (rbp chain) when a pc has no CFI; registers the CFI
 * leaves undefined keep their value (libunwind), except the return address,
 * whose undefined rule ends the walk, as do a zero or unreadable return
 * address. Reported pcs are pc - 1 for callers ("isactivation" false), as
 * perf prints them.
 *
 * The architecture lives in one table: perf_regs index -> DWARF register.
 */
#include "analyze/unwind/unwind.h"
#include "analyze/unwind/stackmem.h"
#include "analyze/cache/dwindex.h"
#include "srchash.h"
#include "util/amap.h"
#include "util/bsearch.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/xalloc.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#define NREGS 17       /* x86_64 DWARF registers 0..16 (16 = return address) */
#define REG_SP 7
#define REG_FP 6
#define REG_RA 16

/* x86_64: perf_regs index for DWARF registers 0..16 (rax rdx rcx rbx rsi
 * rdi rbp rsp r8..r15 rip). An aarch64 table would sit beside it. */
static const int x86_64_dwarf_to_perf[NREGS] = {
	0 /* AX */, 3 /* DX */, 2 /* CX */, 1 /* BX */, 4 /* SI */, 5 /* DI */,
	6 /* BP */, 7 /* SP */, 16, 17, 18, 19, 20, 21, 22, 23 /* R8..R15 */,
	8 /* IP */,
};

struct ustate {
	uint64_t regs[NREGS];
	uint32_t valid;        /* bit per register */
	uint64_t pc;
	bool pc_set;
	bool initial, signal;  /* signal: the callee was a signal frame */
	bool by_fp;            /* made by the rbp heuristic, not the CFI */
};

/* What the unwinder keeps per DSO: created on the DSO's first unwound
 * frame, freed by unwinder_free. */
struct dso_unwind {
	bool cfi_open;         /* eh_cfi, rt_dwarf, dbg_cfi opened (on first need) */
	struct amap *sh_rules; /* the share's rules of this DSO (NULL: none yet) */
	Dwarf_CFI *eh_cfi;     /* .eh_frame of the file itself */
	struct unwind_eh_view eh_view; /* what eh_cfi reads when not d->elf */
	Dwarf *rt_dwarf;       /* the file itself, for its .debug_frame */
	Dwarf_CFI *dbg_cfi;    /* owned by rt_dwarf */
	struct amap rules;     /* svma -> RULE_NONE, RULE_COMPLEX or RULE_ID0 + the
				* pool's number of the rule (struct unwinder.pool) */
	/* the rows kept across runs for this file (kept_open), and those
	 * converted this run, to be kept (kept_store) */
	struct dwindex *kx;    /* NULL: none (caches off, no file) */
	bool kx_tried;
	const struct urule *k_rules;
	size_t nk_rules;
	const struct kept_row *k_rows;
	size_t nk_rows;
	uint32_t *k_loc;       /* kept rule -> pool number + 1 (0: not yet interned) */
	struct kept_row *nw;   /* v: RULE_NONE, RULE_COMPLEX or RULE_ID0 + pool number */
	size_t nnw, cap_nw;
};

/* A row kept across runs (dwindex.h, DWINDEX_UNWIND_ROWS): v is KEPT_NONE,
 * KEPT_COMPLEX or KEPT_RULE0 + the rule's place in DWINDEX_UNWIND_RULES. */
struct kept_row {
	uint64_t svma;
	uint32_t v, pad;
};

/* Distinct rules are few (a build's 85,000 cached addresses had 514
 * rules), so each is kept once: a pool by content hash, chained for
 * equal hashes. */
struct rule_node;

struct rule_pool {
	struct hmap h;         /* hash of a struct urule -> struct rule_node * */
	struct urule **by_id;  /* the pool's rules by number */
	size_t n, cap;
};

struct unwinder {
	struct symbols *syms;
	struct hmap dsos;      /* (uintptr_t)struct dso * -> struct dso_unwind * */
	const struct dso *last_dso;   /* one-entry cache in front of dsos */
	struct dso_unwind *last;
	struct rule_pool pool;
	struct unwind_share *share;
	/* the share's pool numbers of this pool's rules and back (+ 1; 0:
	 * not known yet), so a rule is hashed once per unwinder, not per row */
	uint32_t *loc2sh, *sh2loc;
	size_t cap_loc2sh, cap_sh2loc;
	/* what step worked out for a pc of a process (struct step_memo,
	 * below); NULL until the first step */
	struct step_memo *memo;
	/* the map step found last (its process and index): the next frame is
	 * often in the same one */
	const struct process *map_proc;
	size_t map_idx;
	/* step's lookups for the frame it stepped from */
	uint64_t seen_pc;
	const struct map *seen_map;
	struct dso *seen_dso;
	bool seen_dso_set, seen_sym_set;
	const struct sym *seen_sym;
	uint64_t reg_at_mask;  /* the sample_regs_user that reg_at is for */
	bool reg_at_set;
	int8_t reg_at[NREGS];  /* DWARF register -> its place in a sample's regs, -1: absent */
	uint64_t stack_limit;  /* unwinder_set_stack_limit (0: none) */
	struct unwinder_stats st;
};

static bool reg_get(const struct ustate *s, unsigned r, uint64_t *v)
{
	if (r >= NREGS || !(s->valid & (1u << r)))
		return false;
	*v = s->regs[r];
	return true;
}

/* The small DWARF expression machine CFI needs. */
static bool expr_eval(const struct ustate *s, struct stackmem *m, Dwarf_Frame *fr,
		      const Dwarf_Op *ops, size_t nops, uint64_t *result, int depth);

static bool cfa_of(const struct ustate *s, struct stackmem *m, Dwarf_Frame *fr, uint64_t *cfa,
		   int depth)
{
	Dwarf_Op *ops;
	size_t nops;
	if (depth > 2 || dwarf_frame_cfa(fr, &ops, &nops) || !nops)
		return false;
	return expr_eval(s, m, fr, ops, nops, cfa, depth + 1);
}

static bool expr_eval(const struct ustate *s, struct stackmem *m, Dwarf_Frame *fr,
		      const Dwarf_Op *ops, size_t nops, uint64_t *result, int depth)
{
	uint64_t st[16];
	int sp = 0;
#define PUSH(x) do { if (sp >= 16) return false; st[sp++] = (x); } while (0)
#define POP(x) do { if (sp <= 0) return false; (x) = st[--sp]; } while (0)
	for (size_t i = 0; i < nops; i++) {
		const Dwarf_Op *op = &ops[i];
		uint64_t a, b;
		uint8_t at = op->atom;
		if (at >= DW_OP_lit0 && at <= DW_OP_lit31) {
			PUSH((uint64_t)(at - DW_OP_lit0));
			continue;
		}
		if (at >= DW_OP_breg0 && at <= DW_OP_breg31) {
			if (!reg_get(s, at - DW_OP_breg0, &a))
				return false;
			PUSH(a + op->number);
			continue;
		}
		switch (at) {
		case DW_OP_bregx:
			if (!reg_get(s, (unsigned)op->number, &a))
				return false;
			PUSH(a + op->number2);
			break;
		case DW_OP_regx:
			if (!reg_get(s, (unsigned)op->number, &a))
				return false;
			PUSH(a);
			break;
		case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u: case DW_OP_const2s:
		case DW_OP_const4u: case DW_OP_const4s: case DW_OP_const8u: case DW_OP_const8s:
		case DW_OP_constu: case DW_OP_consts: case DW_OP_addr:
			PUSH(op->number);
			break;
		case DW_OP_plus_uconst:
			POP(a);
			PUSH(a + op->number);
			break;
		case DW_OP_call_frame_cfa:
			if (!cfa_of(s, m, fr, &a, depth))
				return false;
			PUSH(a);
			break;
		case DW_OP_deref:
			POP(a);
			if (!mem_read(m, a, &b))
				return false;
			PUSH(b);
			break;
		case DW_OP_dup:
			if (!sp)
				return false;
			a = st[sp - 1];
			PUSH(a);
			break;
		case DW_OP_drop:
			POP(a);
			break;
		case DW_OP_over:
			if (sp < 2)
				return false;
			a = st[sp - 2];
			PUSH(a);
			break;
		case DW_OP_swap:
			POP(a);
			POP(b);
			PUSH(a);
			PUSH(b);
			break;
		case DW_OP_neg: POP(a); PUSH(-a); break;
		case DW_OP_not: POP(a); PUSH(~a); break;
#define BIN(opc, expr) case opc: POP(b); POP(a); PUSH(expr); break;
		BIN(DW_OP_plus, a + b)
		BIN(DW_OP_minus, a - b)
		BIN(DW_OP_mul, a * b)
		BIN(DW_OP_and, a & b)
		BIN(DW_OP_or, a | b)
		BIN(DW_OP_xor, a ^ b)
		BIN(DW_OP_shl, b < 64 ? a << b : 0)
		BIN(DW_OP_shr, b < 64 ? a >> b : 0)
		BIN(DW_OP_shra, b < 64 ? (uint64_t)((int64_t)a >> b) : 0)
		BIN(DW_OP_ge, (int64_t)a >= (int64_t)b)
		BIN(DW_OP_gt, (int64_t)a > (int64_t)b)
		BIN(DW_OP_le, (int64_t)a <= (int64_t)b)
		BIN(DW_OP_lt, (int64_t)a < (int64_t)b)
		BIN(DW_OP_eq, a == b)
		BIN(DW_OP_ne, a != b)
#undef BIN
		case DW_OP_nop:
			break;
		case DW_OP_stack_value:
			break;
		default:
			return false;
		}
	}
	if (!sp)
		return false;
	*result = st[sp - 1];
	return true;
#undef PUSH
#undef POP
}

/* Unwind s one frame with the CFI row fr; fills next. */
static void handle_cfi(const struct ustate *s, struct stackmem *m, Dwarf_Frame *fr,
		       struct ustate *next)
{
	memset(next, 0, sizeof(*next));
	int ra = -1;
	bool signal = false;
	Dwarf_Addr fs, fe;
	ra = dwarf_frame_info(fr, &fs, &fe, &signal);
	next->signal = signal;
	bool ra_undefined = false;
	for (unsigned r = 0; r < NREGS; r++) {
		Dwarf_Op mem[3], *ops;
		size_t nops;
		if (dwarf_frame_register(fr, (int)r, mem, &ops, &nops))
			continue;
		uint64_t v;
		if (nops == 0) {
			if (ops == mem && (int)r == ra) {
				ra_undefined = true;
				continue;
			}
			if (ops && ops != mem)
				continue;
			/* same value (and "undefined" for other registers, see
			 * rule_from_frame) */
			if (!reg_get(s, r, &v))
				continue;
		} else {
			/* a location description: the register's value is in memory
			 * there, unless it ends in DW_OP_stack_value (a value) or
			 * names a register */
			uint64_t loc;
			if (!expr_eval(s, m, fr, ops, nops, &loc, 0))
				continue;
			if (ops[nops - 1].atom == DW_OP_stack_value ||
			    (nops == 1 && ops[0].atom == DW_OP_regx))
				v = loc;
			else if (!mem_read(m, loc, &v))
				continue;
		}
		next->regs[r] = v;
		next->valid |= 1u << r;
	}
	if (!ra_undefined && ra >= 0 && reg_get(next, (unsigned)ra, &next->pc)) {
		next->pc_set = next->pc != 0;
	}
}

static bool fp_fallback(const struct ustate *s, struct stackmem *m, struct ustate *next)
{
	uint64_t fp, prev_fp, ret;
	memset(next, 0, sizeof(*next));
	if (!reg_get(s, REG_FP, &fp))
		return false;
	if (!mem_read(m, fp, &prev_fp))
		return false;
	if (!mem_read(m, fp + 8, &ret))
		return false;
	next->regs[REG_FP] = prev_fp;
	next->regs[REG_SP] = fp + 16;
	next->valid = (1u << REG_FP) | (1u << REG_SP);
	next->by_fp = true;
	next->pc = ret;
	next->pc_set = true;
	return true;
}

/*
 * The unwind rule cache: a CFI row in a compact form, per DSO, keyed by the
 * svma looked up. Rows whose rules are all "same", "undefined", "at CFA+N"
 * or "CFA+N" with CFA = register + offset (all of them, in practice, but
 * PLT entries) are cached; others go to libdw every time. Applying a
 * cached row is exactly what handle_cfi does with the same row.
 */
enum { R_SAME, R_UNDEF, R_OFFSET, R_VAL_OFFSET };

#define RULE_NONE 0u    /* cached: no CFI for this address */
#define RULE_COMPLEX 1u /* cached: ask libdw each time */
#define RULE_ID0 2u     /* cached: rule number (value - RULE_ID0) of the pool */

struct urule {
	int8_t cfa_reg;        /* -1: no FDE for this address (go to fallback) */
	int8_t ra;             /* return address register */
	uint8_t signal;
	uint8_t kind[NREGS];
	int32_t cfa_off;
	int32_t off[NREGS];
	/* the same rules for apply_rule: registers kept as they are (a mask),
	 * then the others by kind: loaded from CFA + offset, or set to it */
	uint32_t same_mask;
	uint8_t ra_undef;      /* the return address's rule is "undefined" */
	uint8_t nload, nval;
	uint8_t load_reg[NREGS], val_reg[NREGS];
	int32_t load_off[NREGS], val_off[NREGS];
};

static bool rule_from_frame(Dwarf_Frame *fr, struct urule *r)
{
	Dwarf_Op *ops;
	size_t nops;
	memset(r, 0, sizeof(*r));
	if (dwarf_frame_cfa(fr, &ops, &nops) || nops != 1 || ops[0].atom != DW_OP_bregx ||
	    ops[0].number >= NREGS || (int64_t)ops[0].number2 != (int32_t)ops[0].number2)
		return false;
	r->cfa_reg = (int8_t)ops[0].number;
	r->cfa_off = (int32_t)ops[0].number2;
	bool signal = false;
	Dwarf_Addr fs, fe;
	r->ra = (int8_t)dwarf_frame_info(fr, &fs, &fe, &signal);
	r->signal = signal;
	for (unsigned reg = 0; reg < NREGS; reg++) {
		Dwarf_Op mem[3];
		if (dwarf_frame_register(fr, (int)reg, mem, &ops, &nops))
			return false;
		if (nops == 0) {
			/* undefined: the end of the stack for the return address;
			 * for other registers libdw (without an ABI backend) says
			 * so for every register the CFI does not mention, where
			 * libunwind (perf's unwinder) keeps the value */
			r->kind[reg] = ops == mem && (int)reg == r->ra ? R_UNDEF : R_SAME;
			if (ops && ops != mem)
				return false;
			continue;
		}
		if (ops[0].atom != DW_OP_call_frame_cfa)
			return false;
		size_t i = 1;
		int64_t off = 0;
		if (i < nops && ops[i].atom == DW_OP_plus_uconst) {
			off = (int64_t)ops[i].number;
			i++;
		}
		bool value = false;
		if (i < nops && ops[i].atom == DW_OP_stack_value) {
			value = true;
			i++;
		}
		if (i != nops || off != (int32_t)off)
			return false;
		r->kind[reg] = value ? R_VAL_OFFSET : R_OFFSET;
		r->off[reg] = (int32_t)off;
	}
	for (unsigned reg = 0; reg < NREGS; reg++) {
		switch (r->kind[reg]) {
		case R_SAME:
			r->same_mask |= 1u << reg;
			break;
		case R_UNDEF: /* only ever the return address's */
			r->ra_undef = 1;
			break;
		case R_OFFSET:
			r->load_reg[r->nload] = (uint8_t)reg;
			r->load_off[r->nload++] = r->off[reg];
			break;
		default:
			r->val_reg[r->nval] = (uint8_t)reg;
			r->val_off[r->nval++] = r->off[reg];
			break;
		}
	}
	return true;
}

static void apply_rule(const struct urule *r, const struct ustate *s, struct stackmem *m,
		       struct ustate *next)
{
	/* "same value" registers keep theirs (and their validity); a register
	 * not valid in s stays invalid, its stale value unread */
	memcpy(next->regs, s->regs, sizeof(next->regs));
	next->valid = s->valid & r->same_mask;
	next->pc = 0;
	next->pc_set = false;
	next->initial = false;
	next->by_fp = false;
	next->signal = r->signal;
	uint64_t cfa, v;
	if (reg_get(s, (unsigned)r->cfa_reg, &cfa)) {
		cfa += (int64_t)r->cfa_off;
		for (unsigned i = 0; i < r->nload; i++) {
			if (!mem_read(m, cfa + (int64_t)r->load_off[i], &v))
				continue;
			next->regs[r->load_reg[i]] = v;
			next->valid |= 1u << r->load_reg[i];
		}
		for (unsigned i = 0; i < r->nval; i++) {
			next->regs[r->val_reg[i]] = cfa + (int64_t)r->val_off[i];
			next->valid |= 1u << r->val_reg[i];
		}
	}
	if (!r->ra_undef && r->ra >= 0 && reg_get(next, (unsigned)r->ra, &next->pc))
		next->pc_set = next->pc != 0;
}

/* Whether e has .eh_frame and .eh_frame_hdr (both with contents) with
 * .eh_frame first in its section headers, and a PT_GNU_EH_FRAME segment. */
static bool eh_frame_hdr_after(Elf *e)
{
	size_t shstrndx, phnum;
	if (elf_getshdrstrndx(e, &shstrndx) || !shstrndx || elf_getphdrnum(e, &phnum))
		return false;
	bool seg = false;
	for (size_t i = 0; i < phnum && !seg; i++) {
		GElf_Phdr ph;
		seg = gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_GNU_EH_FRAME;
	}
	if (!seg)
		return false;
	bool eh = false;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		const char *n = elf_strptr(e, shstrndx, sh.sh_name);
		if (!n)
			continue;
		if (!strcmp(n, ".eh_frame_hdr"))
			return eh;
		if (!strcmp(n, ".eh_frame")) {
			if (eh)
				return false; /* two of them: leave it to libdw */
			eh = true;
		}
	}
	return false;
}

Dwarf_CFI *unwind_eh_cfi(Elf *e, int fd, struct unwind_eh_view *view)
{
	memset(view, 0, sizeof(*view));
	GElf_Ehdr eh;
	struct stat st;
	if (fd < 0 || !gelf_getehdr(e, &eh) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    !eh_frame_hdr_after(e) || fstat(fd, &st) || st.st_size < (off_t)sizeof(Elf64_Ehdr))
		return dwarf_getcfi_elf(e);
	size_t size = (size_t)st.st_size;
	char *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return dwarf_getcfi_elf(e);
	/* the same file as e? (its header as e read it) */
	Elf64_Ehdr *h = (Elf64_Ehdr *)map;
	if (memcmp(h->e_ident, eh.e_ident, EI_NIDENT) || h->e_phoff != eh.e_phoff ||
	    h->e_phnum != eh.e_phnum || h->e_shoff != eh.e_shoff) {
		munmap(map, size);
		return dwarf_getcfi_elf(e);
	}
	h->e_shoff = 0;
	h->e_shnum = 0;
	h->e_shstrndx = SHN_UNDEF;
	Elf *ve = elf_memory(map, size);
	Dwarf_CFI *cfi = ve ? dwarf_getcfi_elf(ve) : NULL;
	if (!cfi) {
		if (ve)
			elf_end(ve);
		munmap(map, size);
		return dwarf_getcfi_elf(e);
	}
	view->elf = ve;
	view->map = map;
	view->size = size;
	return cfi;
}

void unwind_eh_view_release(struct unwind_eh_view *view)
{
	if (view->elf)
		elf_end(view->elf);
	if (view->map)
		munmap(view->map, view->size);
	memset(view, 0, sizeof(*view));
}

/* The unwinder's state for d, built on first use: the CFI of .eh_frame of
 * the file itself, and of .debug_frame when the file has one. */
static struct dso_unwind *dso_unwind_of(struct unwinder *u, const struct dso *d)
{
	if (d == u->last_dso)
		return u->last;
	uint64_t key = (uint64_t)(uintptr_t)d;
	struct dso_unwind *du = hmap_get(&u->dsos, key);
	if (!du) {
		du = xcalloc(1, sizeof(*du));
		amap_init(&du->rules);
		hmap_put(&u->dsos, key, du);
	}
	u->last_dso = d;
	u->last = du;
	return du;
}

/* The CFI of d's file, opened on the first row libdw must give (with a
 * share, a DSO whose rows all come from it is never opened). */
static void du_open_cfi(struct dso_unwind *du, const struct dso *d)
{
	if (du->cfi_open)
		return;
	du->cfi_open = true;
	if (d->elf) {
		du->eh_cfi = unwind_eh_cfi(d->elf, d->fd, &du->eh_view);
		du->rt_dwarf = dwarf_begin_elf(d->elf, DWARF_C_READ, NULL);
		if (du->rt_dwarf)
			du->dbg_cfi = dwarf_getcfi(du->rt_dwarf);
	}
}

struct rule_node {
	struct urule r;
	uint32_t id;
	struct rule_node *next;
};

/* The pool's number of r (whose padding is zero: rule_from_frame clears it
 * first), or AMAP_NONE without memory. */
static uint32_t pool_intern(struct rule_pool *p, const struct urule *r)
{
	/* the rules themselves (the rest is made from them) */
	uint64_t h = hash_mem(r, offsetof(struct urule, same_mask));
	struct rule_node *first = hmap_get(&p->h, h);
	for (struct rule_node *n = first; n; n = n->next)
		if (!memcmp(&n->r, r, sizeof *r))
			return n->id;
	if (p->n >= UINT32_MAX - RULE_ID0 - 1 || ARRAY_GROW(p->by_id, p->cap, p->n + 1, 1u << 20))
		return AMAP_NONE;
	struct rule_node *n = xmalloc(sizeof *n);
	memcpy(&n->r, r, sizeof(n->r)); /* padding too: compared as bytes */
	n->id = (uint32_t)p->n;
	n->next = first;
	hmap_put(&p->h, h, n);
	p->by_id[p->n++] = &n->r;
	return n->id;
}

static void rule_chain_free(void *v)
{
	for (struct rule_node *n = v, *next; n; n = next) {
		next = n->next;
		free(n);
	}
}

static void pool_release(struct rule_pool *p)
{
	hmap_release_vals(&p->h, rule_chain_free);
	free(p->by_id);
}

/* ---- rules shared between unwinders (unwind.h) ---- */

struct unwind_share {
	pthread_mutex_t mu;
	struct rule_pool pool;
	struct hmap dsos;      /* struct dso.ident -> struct amap * (svma -> RULE_NONE,
				* RULE_COMPLEX or RULE_ID0 + the share's pool number) */
	uint64_t rows, hits;
};

struct unwind_share *unwind_share_new(void)
{
	struct unwind_share *sh = xcalloc(1, sizeof(*sh));
	pthread_mutex_init(&sh->mu, NULL);
	hmap_init(&sh->pool.h);
	hmap_init(&sh->dsos);
	return sh;
}

static void amap_free(void *v)
{
	amap_release(v);
	free(v);
}

void unwind_share_free(struct unwind_share *sh)
{
	if (!sh)
		return;
	hmap_release_vals(&sh->dsos, amap_free);
	pool_release(&sh->pool);
	pthread_mutex_destroy(&sh->mu);
	free(sh);
}

void unwinder_set_share(struct unwinder *u, struct unwind_share *sh)
{
	u->share = sh;
}

void unwind_share_counts(struct unwind_share *sh, uint64_t *rows, uint64_t *hits)
{
	pthread_mutex_lock(&sh->mu);
	*rows = sh->rows;
	*hits = sh->hits;
	pthread_mutex_unlock(&sh->mu);
}

/* Room for index need - 1 in a (its new entries zero); nonzero without memory. */
static int grow_zeroed(uint32_t **a, size_t *cap, size_t need)
{
	size_t old = *cap;
	if (need <= old)
		return 0;
	if (ARRAY_GROW(*a, *cap, need, (size_t)1 << 20))
		return -1;
	memset(*a + old, 0, (*cap - old) * sizeof(**a));
	return 0;
}

/* The share's rules of du's DSO (made on first use); NULL without memory. */
static struct amap *share_rules(struct unwind_share *sh, struct dso_unwind *du, uint64_t ident)
{
	if (du->sh_rules)
		return du->sh_rules;
	pthread_mutex_lock(&sh->mu);
	struct amap *m = hmap_get(&sh->dsos, ident);
	if (!m) {
		m = xmalloc(sizeof(*m));
		amap_init(m);
		hmap_put(&sh->dsos, ident, m);
	}
	pthread_mutex_unlock(&sh->mu);
	du->sh_rules = m;
	return m;
}

/* What the share holds for svma of du's DSO, in u's terms: AMAP_NONE
 * (nothing yet, or no memory), RULE_NONE, RULE_COMPLEX, or RULE_ID0 + u's
 * pool number of the rule. */
static uint32_t share_get(struct unwinder *u, struct dso_unwind *du, uint64_t ident, uint64_t svma)
{
	struct unwind_share *sh = u->share;
	struct amap *m = share_rules(sh, du, ident);
	if (!m)
		return AMAP_NONE;
	pthread_mutex_lock(&sh->mu);
	uint32_t v = amap_get(m, svma);
	if (v != AMAP_NONE)
		sh->hits++;
	struct urule r;
	uint32_t sid = v >= RULE_ID0 && v != AMAP_NONE ? v - RULE_ID0 : UINT32_MAX;
	bool copy = sid != UINT32_MAX && (sid >= u->cap_sh2loc || !u->sh2loc[sid]);
	if (copy)
		memcpy(&r, sh->pool.by_id[sid], sizeof(r)); /* padding too: pool_intern compares bytes */
	pthread_mutex_unlock(&sh->mu);
	if (sid == UINT32_MAX)
		return v;
	if (copy) {
		uint32_t id = pool_intern(&u->pool, &r);
		if (id == AMAP_NONE || grow_zeroed(&u->sh2loc, &u->cap_sh2loc, (size_t)sid + 1) ||
		    grow_zeroed(&u->loc2sh, &u->cap_loc2sh, (size_t)id + 1))
			return AMAP_NONE;
		u->sh2loc[sid] = id + 1;
		u->loc2sh[id] = sid + 1;
	}
	return RULE_ID0 + u->sh2loc[sid] - 1;
}

/* Keep what u's libdw row made for svma of du's DSO: RULE_NONE,
 * RULE_COMPLEX, or RULE_ID0 + u's pool number of the rule. Without
 * memory, nothing is kept. */
static void share_put(struct unwinder *u, struct dso_unwind *du, uint64_t ident, uint64_t svma,
		      uint32_t v)
{
	struct unwind_share *sh = u->share;
	struct amap *m = share_rules(sh, du, ident);
	if (!m)
		return;
	uint32_t lid = v >= RULE_ID0 ? v - RULE_ID0 : UINT32_MAX;
	if (lid != UINT32_MAX && grow_zeroed(&u->loc2sh, &u->cap_loc2sh, (size_t)lid + 1))
		return;
	pthread_mutex_lock(&sh->mu);
	if (amap_get(m, svma) == AMAP_NONE) {
		if (lid != UINT32_MAX) {
			if (!u->loc2sh[lid]) {
				uint32_t sid = pool_intern(&sh->pool, u->pool.by_id[lid]);
				if (sid != AMAP_NONE) {
					u->loc2sh[lid] = sid + 1;
					if (!grow_zeroed(&u->sh2loc, &u->cap_sh2loc, (size_t)sid + 1))
						u->sh2loc[sid] = lid + 1;
				}
			}
			v = u->loc2sh[lid] ? RULE_ID0 + u->loc2sh[lid] - 1 : AMAP_NONE;
		}
		if (v != AMAP_NONE) {
			amap_put(m, svma, v);
			sh->rows++;
		}
	}
	pthread_mutex_unlock(&sh->mu);
}

static void dso_unwind_free(void *v)
{
	struct dso_unwind *du = v;
	dwindex_close(du->kx); /* after kept_store; k_rules, k_rows are in it */
	free(du->k_loc);
	free(du->nw);
	amap_release(&du->rules);
	if (du->eh_cfi)
		dwarf_cfi_end(du->eh_cfi);
	unwind_eh_view_release(&du->eh_view);
	if (du->rt_dwarf)
		dwarf_end(du->rt_dwarf);
	free(du);
}

/* process_find_map(p, addr), trying the map found last first: it is the
 * answer exactly when it holds addr and the next map starts after addr
 * (the binary search's answer is the last map starting at or below addr). */
static const struct map *find_map(struct unwinder *u, const struct process *p, uint64_t addr)
{
	if (p && p == u->map_proc && u->map_idx < p->nr_maps) {
		const struct map *m = &p->maps[u->map_idx];
		if (m->start <= addr && addr < m->end &&
		    (u->map_idx + 1 == p->nr_maps || p->maps[u->map_idx + 1].start > addr))
			return m;
	}
	const struct map *m = process_find_map(p, addr);
	if (m) {
		u->map_proc = p;
		u->map_idx = (size_t)(m - p->maps);
	}
	return m;
}

/* ---- rows kept across runs (dwindex.h's images, DWINDEX_UNWIND_DIR) ----
 *
 * Converting a CFI row (libdw's dwarf_cfi_addrframe, then the rule) is the
 * unwinder's cost per distinct address, paid again by every run: on the
 * 0.5 GB build recording 12% of `scorch perfparser`'s instructions, on a
 * small recording of cc1 a third (with libdw's CFI tables, their set-up
 * and teardown). So the rows a run converted are kept, per DSO file (its
 * identity: device, inode, size, times; the CFI is the file's own
 * .eh_frame and .debug_frame), as two entries of an image: the rules
 * (struct urule, as converted) and the rows (address, rule, sorted). A
 * later run takes a row from there before asking libdw; a DSO whose rows
 * are all kept never has its CFI opened. A rule needing libdw each time
 * (RULE_COMPLEX) is kept as such, and still asks libdw. The entries name
 * the layout and this file's source (UNWIND_SRC_HASH, mk/unwind.mk): a
 * build that converts rows differently takes none of an older build's.
 */
#define KEPT_VERSION 1
#define KEPT_NONE 0u
#define KEPT_COMPLEX 1u
#define KEPT_RULE0 2u
#define KEPT_ROWS_MAX ((size_t)1 << 24)
#define KEPT_RULES_MAX ((size_t)1 << 16)

struct kept_hdr {
	uint32_t version, rule_size, nregs, pad;
	uint64_t src;          /* UNWIND_SRC_HASH: the source that converted them */
	uint64_t n;
};

/* The entry of kind as a kept array of n items of size bytes: its items,
 * or NULL when absent or not that (version, layout, size). */
static const void *kept_entry(struct dwindex *x, enum dwindex_kind kind, size_t item, size_t max,
			      size_t *n)
{
	size_t size;
	const uint8_t *p = dwindex_find(x, kind, 0, &size);
	struct kept_hdr h;
	if (!p || size < sizeof h)
		return NULL;
	memcpy(&h, p, sizeof h);
	if (h.version != KEPT_VERSION || h.rule_size != sizeof(struct urule) || h.nregs != NREGS ||
	    h.src != UNWIND_SRC_HASH || h.n > max || (size - sizeof h) / item != h.n || (size - sizeof h) % item)
		return NULL;
	*n = (size_t)h.n;
	return p + sizeof h;
}

/* Whether r can be applied whatever its values (apply_rule indexes the
 * registers with these). */
static bool rule_sane(const struct urule *r)
{
	if (r->cfa_reg < 0 || r->cfa_reg >= NREGS || r->nload > NREGS || r->nval > NREGS)
		return false;
	for (unsigned i = 0; i < r->nload; i++)
		if (r->load_reg[i] >= NREGS)
			return false;
	for (unsigned i = 0; i < r->nval; i++)
		if (r->val_reg[i] >= NREGS)
			return false;
	return true;
}

int unwind_kept_rules_try(const void *rules, size_t size, const uint8_t *regs, size_t nregs_bytes,
			  const uint8_t *stack, size_t stack_size)
{
	const struct urule *r = rules;
	if ((uintptr_t)rules % 8 || size % sizeof *r || size / sizeof *r > KEPT_RULES_MAX)
		return -1;
	size_t n = size / sizeof *r;
	for (size_t i = 0; i < n; i++)
		if (!rule_sane(&r[i]))
			return -1;
	struct ustate s = { .initial = true };
	for (unsigned i = 0; i < NREGS && (i + 1) * 8 <= nregs_bytes; i++) {
		memcpy(&s.regs[i], regs + 8 * i, 8);
		s.valid |= 1u << i;
	}
	struct stackmem m = stackmem_init(s.regs[7], stack, stack_size);
	for (size_t i = 0; i < n; i++) {
		struct ustate next;
		apply_rule(&r[i], &s, &m, &next);
		s = next; /* walk on, as a stack of such frames would */
	}
	return (int)n;
}

/* du->kx's kept rows (kept_open: on the DSO's first miss; kept_store: a
 * newer image's): used when both entries
 * check (every rule sane); else none (the run's own rows replace them).
 * The rows are checked when a lookup lands on one (it names a kept rule),
 * not all here: a library's image holds the rows of every recording that
 * went through it (libc's, tens of thousands), a run looks up a few
 * hundred; out of order, a binary search finds a wrong row or none, and
 * only inside the entry. */
static void kept_load(struct dso_unwind *du)
{
	free(du->k_loc);
	du->k_loc = NULL;
	du->k_rules = NULL;
	du->nk_rules = 0;
	du->k_rows = NULL;
	du->nk_rows = 0;
	size_t nr = 0, nw = 0;
	const struct urule *rules =
		kept_entry(du->kx, DWINDEX_UNWIND_RULES, sizeof *rules, KEPT_RULES_MAX, &nr);
	const struct kept_row *rows =
		kept_entry(du->kx, DWINDEX_UNWIND_ROWS, sizeof *rows, KEPT_ROWS_MAX, &nw);
	if (!rules || !rows)
		return;
	for (size_t i = 0; i < nr; i++)
		if (!rule_sane(&rules[i]))
			return;
	du->k_loc = xcalloc(nr, sizeof *du->k_loc);
	du->k_rules = rules;
	du->nk_rules = nr;
	du->k_rows = rows;
	du->nk_rows = nw;
}

static void kept_open(struct dso_unwind *du, const struct dso *d)
{
	du->kx_tried = true;
	du->kx = dwindex_open_in(DWINDEX_UNWIND_DIR, d->fd);
	if (du->kx)
		kept_load(du);
}

/* The kept row of svma: RULE_NONE, RULE_COMPLEX or RULE_ID0 + u's pool
 * number of its rule; AMAP_NONE when none is kept. */
static uint32_t kept_get(struct unwinder *u, struct dso_unwind *du, const struct dso *d,
			 uint64_t svma)
{
	if (!du->kx_tried)
		kept_open(du, d);
	size_t at = UPPER_BOUND(du->k_rows, du->nk_rows, svma, svma);
	if (!at || du->k_rows[at - 1].svma != svma)
		return AMAP_NONE;
	uint32_t v = du->k_rows[at - 1].v;
	if (v >= KEPT_RULE0 + du->nk_rules)
		return AMAP_NONE; /* a damaged row: libdw's answer instead */
	if (v < KEPT_RULE0)
		return v == KEPT_NONE ? RULE_NONE : RULE_COMPLEX;
	uint32_t k = v - KEPT_RULE0;
	if (!du->k_loc[k]) {
		struct urule r;
		memcpy(&r, &du->k_rules[k], sizeof r); /* padding too: pool_intern compares bytes */
		uint32_t id = pool_intern(&u->pool, &r);
		if (id == AMAP_NONE)
			return AMAP_NONE;
		du->k_loc[k] = id + 1;
	}
	return RULE_ID0 + du->k_loc[k] - 1;
}

/* A row converted this run (v as in du->rules), to be kept. */
static void kept_note(struct dso_unwind *du, uint64_t svma, uint32_t v)
{
	if (du->kx && du->nnw < KEPT_ROWS_MAX &&
	    !ARRAY_GROW(du->nw, du->cap_nw, du->nnw + 1, KEPT_ROWS_MAX))
		du->nw[du->nnw++] = (struct kept_row){ svma, v, 0 };
}

static int kept_row_cmp(const void *a, const void *b)
{
	const struct kept_row *x = a, *y = b;
	return x->svma < y->svma ? -1 : x->svma > y->svma;
}

/* The kept rows and this run's, merged, as du->kx's new entries (written
 * when it closes): the kept rules keep their places, this run's new ones
 * follow. */
static void kept_store(struct unwinder *u, struct dso_unwind *du)
{
	if (!du->kx || !du->nnw)
		return;
	/* rows stored since the kept ones were read (another thread's of this
	 * run: each keeps the rows it converted, and rows taken from the
	 * share are not its own; or another run's): those are the kept ones
	 * now, so that this store keeps them with this run's (dwindex.h) */
	dwindex_lock();
	if (dwindex_refresh(&du->kx))
		kept_load(du);
	struct kept_hdr h = { KEPT_VERSION, sizeof(struct urule), NREGS, 0, UNWIND_SRC_HASH, 0 };
	/* the rules: the kept ones, then each pool rule this run's rows name
	 * that is not one of them (by content) */
	size_t cap = du->nk_rules + 16, nr = du->nk_rules;
	struct urule *rules = xmalloc(cap * sizeof *rules);
	uint32_t *loc_img = xcalloc(u->pool.n, sizeof *loc_img); /* + 1 */
	struct hmap by_hash;
	hmap_init(&by_hash);
	if (!rules || !loc_img)
		goto out;
	if (nr)
		memcpy(rules, du->k_rules, nr * sizeof *rules);
	for (size_t k = 0; k < nr; k++)
		if (!hmap_get(&by_hash, hash_mem(&rules[k], sizeof rules[k])))
			hmap_put(&by_hash, hash_mem(&rules[k], sizeof rules[k]), (void *)(k + 1));
	qsort(du->nw, du->nnw, sizeof *du->nw, kept_row_cmp);
	for (size_t i = 0; i < du->nnw; i++) {
		uint32_t v = du->nw[i].v;
		if (v < RULE_ID0) {
			du->nw[i].v = v == RULE_NONE ? KEPT_NONE : KEPT_COMPLEX;
			continue;
		}
		uint32_t id = v - RULE_ID0;
		if (id >= u->pool.n)
			goto out;
		if (!loc_img[id]) {
			const struct urule *r = u->pool.by_id[id];
			uint64_t hh = hash_mem(r, sizeof *r);
			uintptr_t at = (uintptr_t)hmap_get(&by_hash, hh);
			if (at && !memcmp(&rules[at - 1], r, sizeof *r)) {
				loc_img[id] = (uint32_t)at;
			} else {
				if (nr >= KEPT_RULES_MAX)
					goto out;
				if (nr == cap && ARRAY_GROW(rules, cap, nr + 1, KEPT_RULES_MAX))
					goto out;
				memcpy(&rules[nr], r, sizeof *r);
				if (!at)
					hmap_put(&by_hash, hh, (void *)(uintptr_t)(nr + 1));
				loc_img[id] = (uint32_t)(++nr);
			}
		}
		du->nw[i].v = KEPT_RULE0 + loc_img[id] - 1;
	}
	/* the rows: kept and new by address (a new one where both have it);
	 * kept ones out of order or naming no kept rule (a damaged image,
	 * checked only here) are dropped, the image made of this run's */
	size_t nk = du->nk_rows;
	for (size_t k = 0; k < nk; k++)
		if ((k && du->k_rows[k].svma <= du->k_rows[k - 1].svma) ||
		    du->k_rows[k].v >= KEPT_RULE0 + du->nk_rules)
			nk = 0;
	size_t nrows = 0, i = 0, j = 0;
	struct kept_row *rows = xmalloc(sizeof h + (nk + du->nnw) * sizeof *rows);
	uint8_t *rimg = xmalloc(sizeof h + nr * sizeof *rules);
	struct kept_row *w = (struct kept_row *)((uint8_t *)rows + sizeof h);
	while (i < nk || j < du->nnw) {
		if (j < du->nnw && (i == nk || du->nw[j].svma <= du->k_rows[i].svma)) {
			if (i < nk && du->k_rows[i].svma == du->nw[j].svma)
				i++;
			if (!nrows || w[nrows - 1].svma != du->nw[j].svma)
				w[nrows++] = du->nw[j];
			j++;
		} else {
			w[nrows++] = du->k_rows[i++];
		}
	}
	h.n = nr;
	memcpy(rimg, &h, sizeof h);
	if (nr)
		memcpy(rimg + sizeof h, rules, nr * sizeof *rules);
	dwindex_add(du->kx, DWINDEX_UNWIND_RULES, 0, rimg, sizeof h + nr * sizeof *rules);
	h.n = nrows;
	memcpy(rows, &h, sizeof h);
	dwindex_add(du->kx, DWINDEX_UNWIND_ROWS, 0, rows, sizeof h + nrows * sizeof *rows);
	dwindex_store_now(du->kx); /* before another thread looks for a newer image */
out:
	dwindex_unlock();
	hmap_release(&by_hash);
	free(loc_img);
	free(rules);
}

/*
 * What a step does at a pc of a process follows from the pc and the
 * process's maps alone (the map, the DSO and its CFI rule for the address;
 * a rule once in du->rules stays): so it is kept, per (process, its maps'
 * generation, pc), in a direct-mapped table. A step at a pc seen before in
 * the same maps then goes straight to the rule, without the map lookup,
 * the DSO, the address conversion and the rule cache, and hands the
 * frame's symbol over too. Every change of any process's maps gets a
 * generation no maps had before (session.h), and the session's processes
 * are freed only with it, so an entry can only match the maps it was made
 * for. The counters move as
 * the full path would move them. Steps that ask libdw (RULE_COMPLEX, a row
 * not yet converted) are not kept.
 */
#define STEP_MEMO 4096
enum { MEMO_RULE = 1, MEMO_NO_RULE, MEMO_NO_CFI };
struct step_memo {
	const struct process *proc;
	uint64_t gen, pc;
	const struct map *map;
	struct dso *d;
	const struct urule *rule;  /* MEMO_RULE */
	const struct sym *sym;     /* with sym_set: dso_find_sym's answer for pc */
	uint8_t kind;              /* 0: empty; MEMO_NO_RULE: the cached "no CFI
				    * here" (a rule hit, then the fallback);
				    * MEMO_NO_CFI: no DSO or CFI to ask (the fallback) */
	bool dso_set, sym_set;
} __attribute__((aligned(64)));    /* one cache line a lookup */
_Static_assert(sizeof(struct step_memo) == 64, "a step memo entry is a cache line");

/* Keep what the step at pc did; with the symbol the caller's symbolization
 * of this frame will look up (when the DSO was found), so that a later step
 * here hands it over too (the lookup is a cache miss more often than not:
 * it is made here once instead of per frame). */
static void memo_keep(struct unwinder *u, struct step_memo *sm, const struct process *proc,
		      uint64_t pc, const struct map *map, struct dso *d, bool dso_set,
		      const struct urule *rule, uint8_t kind)
{
	if (!sm)
		return;
	bool sym_set = dso_set && d && !d->missing;
	const struct sym *y = sym_set ? dso_find_sym(d, pc - map->start + map->pgoff) : NULL;
	*sm = (struct step_memo){ .proc = proc, .gen = proc->generation, .pc = pc, .map = map,
				  .d = d, .rule = rule, .sym = y, .kind = kind, .dso_set = dso_set,
				  .sym_set = sym_set };
	u->seen_sym_set = sym_set;
	u->seen_sym = y;
}

/* One step: the caller's state of s, false when the walk cannot go on. */
static bool step(struct unwinder *u, const struct process *proc, const struct ustate *s,
		 struct stackmem *m, struct ustate *next)
{
	uint64_t pc = s->pc;
	if (!s->initial && !s->signal)
		pc--;
	struct step_memo *sm = NULL;
	if (proc) {
		if (!u->memo)
			u->memo = xaligned_calloc(64, STEP_MEMO * sizeof *u->memo);
		sm = &u->memo[hash_u64(pc ^ (uintptr_t)proc) & (STEP_MEMO - 1)];
		if (sm->kind && sm->pc == pc && sm->proc == proc && sm->gen == proc->generation) {
			u->seen_pc = pc;
			u->seen_map = sm->map;
			u->seen_dso = sm->d;
			u->seen_dso_set = sm->dso_set;
			u->seen_sym_set = sm->sym_set;
			u->seen_sym = sm->sym;
			if (sm->kind == MEMO_RULE) {
				u->st.rule_hits++;
				apply_rule(sm->rule, s, m, next);
				return true;
			}
			u->st.rule_hits += sm->kind == MEMO_NO_RULE;
			u->st.fp_fallbacks++;
			return fp_fallback(s, m, next);
		}
	}
	const struct map *map = find_map(u, proc, pc);
	struct dso *d = NULL;
	bool dso_set = false;
	if (map && map->filename && (map->filename[0] == '/' || !strcmp(map->filename, "[vdso]"))) {
		d = symbols_dso(u->syms, map->filename, map->build_id, map->build_id_size);
		dso_set = true;
	}
	/* what the caller's symbolization of this frame needs (unwinder_unwind) */
	u->seen_pc = pc;
	u->seen_map = map;
	u->seen_dso = d;
	u->seen_dso_set = dso_set;
	u->seen_sym_set = false; /* memo_keep may find it */
	uint64_t svma;
	if (d && d->elf && dso_rel_to_svma(d, pc - map->start + map->pgoff, &svma)) {
		struct dso_unwind *du = dso_unwind_of(u, d);
		uint32_t r = amap_get(&du->rules, svma);
		bool shared = false; /* r came from the kept rows or the share just now */
		/* the kept rows first: read where they are mapped, with no lock,
		 * they hold most rows from the second run on; asked first, the
		 * share's mutex was taken on each of them, by both threads of
		 * `-j 2` */
		if (r == AMAP_NONE && (r = kept_get(u, du, d, svma)) != AMAP_NONE) {
			/* an earlier run converted it */
			u->st.rule_misses++;
			amap_put(&du->rules, svma, r);
			shared = true;
		}
		if (r == AMAP_NONE && u->share) {
			/* another unwinder of the run may have converted it */
			uint32_t v = share_get(u, du, d->ident, svma);
			if (v != AMAP_NONE && v >= RULE_ID0) {
				u->st.rule_misses++;
				amap_put(&du->rules, svma, v);
				apply_rule(u->pool.by_id[v - RULE_ID0], s, m, next);
				return true;
			} else if (v != AMAP_NONE) {
				u->st.rule_misses++;
				amap_put(&du->rules, svma, v);
				r = v; /* no CFI there, or libdw every time */
				shared = true;
			}
		}
		if (r != AMAP_NONE && r != RULE_COMPLEX) {
			u->st.rule_hits += !shared;
			if (r != RULE_NONE) {
				memo_keep(u, sm, proc, pc, map, d, dso_set, u->pool.by_id[r - RULE_ID0], MEMO_RULE);
				apply_rule(u->pool.by_id[r - RULE_ID0], s, m, next);
				return true;
			}
			memo_keep(u, sm, proc, pc, map, d, dso_set, NULL, MEMO_NO_RULE);
		} else {
			bool miss = r == AMAP_NONE;
			u->st.rule_misses += miss;
			du_open_cfi(du, d);
			Dwarf_CFI *cfis[2] = { du->eh_cfi, du->dbg_cfi };
			for (int i = 0; i < 2; i++) {
				Dwarf_Frame *fr;
				if (!cfis[i] || dwarf_cfi_addrframe(cfis[i], svma, &fr))
					continue;
				u->st.cfi_rows++;
				if (miss) {
					struct urule tmp;
					if (rule_from_frame(fr, &tmp)) {
						uint32_t id = pool_intern(&u->pool, &tmp);
						if (id != AMAP_NONE) {
							amap_put(&du->rules, svma, RULE_ID0 + id);
							kept_note(du, svma, RULE_ID0 + id);
							if (u->share)
								share_put(u, du, d->ident, svma, RULE_ID0 + id);
							/* as a hit does (the same as
							 * handle_cfi, at a fraction of
							 * its cost) */
							apply_rule(u->pool.by_id[id], s, m, next);
							free(fr);
							return true;
						}
					} else {
						amap_put(&du->rules, svma, RULE_COMPLEX);
						kept_note(du, svma, RULE_COMPLEX);
						if (u->share)
							share_put(u, du, d->ident, svma, RULE_COMPLEX);
					}
				}
				handle_cfi(s, m, fr, next);
				free(fr);
				return true;
			}
			if (miss) {
				amap_put(&du->rules, svma, RULE_NONE);
				kept_note(du, svma, RULE_NONE);
				if (u->share)
					share_put(u, du, d->ident, svma, RULE_NONE);
			}
		}
	} else {
		memo_keep(u, sm, proc, pc, map, d, dso_set, NULL, MEMO_NO_CFI);
	}
	u->st.fp_fallbacks++;
	return fp_fallback(s, m, next);
}

struct unwinder *unwinder_new(struct symbols *syms)
{
	struct unwinder *u = xcalloc(1, sizeof *u);
	u->syms = syms;
	hmap_init(&u->dsos);
	hmap_init(&u->pool.h);
	return u;
}

void unwinder_keep(struct unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->dsos.cap; i++)
		if (hmap_used(&u->dsos, i)) {
			struct dso_unwind *du = u->dsos.slot[i].val;
			kept_store(u, du);
			du->nnw = 0;
			dwindex_store_now(du->kx);
		}
}

void unwinder_free(struct unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->dsos.cap; i++)
		if (hmap_used(&u->dsos, i))
			kept_store(u, u->dsos.slot[i].val);
	hmap_release_vals(&u->dsos, dso_unwind_free);
	pool_release(&u->pool);
	free(u->memo);
	free(u->loc2sh);
	free(u->sh2loc);
	free(u);
}

void unwinder_set_stack_limit(struct unwinder *u, uint64_t bytes)
{
	u->stack_limit = bytes;
}

const struct unwinder_stats *unwinder_stats(const struct unwinder *u)
{
	return &u->st;
}

int unwinder_unwind(struct unwinder *u, const struct process *proc, const struct perf_sample *s,
		    uint64_t regs_mask, struct unwind_frame *out, int max)
{
	if (!s->regs_user_abi || !s->regs_user_nr || max <= 0)
		return 0;
	struct ustate st = { .initial = true };
	if (!u->reg_at_set || u->reg_at_mask != regs_mask) {
		/* perf register i is in the sample when bit i of the mask is
		 * set, at the place of that bit among the set ones (the mask
		 * is the attr's: worked out again only when it changes) */
		for (int r = 0; r < NREGS; r++) {
			unsigned bit = (unsigned)x86_64_dwarf_to_perf[r];
			int at = -1;
			if ((regs_mask >> bit) & 1) {
				at = 0;
				for (unsigned b = 0; b < bit; b++)
					at += (int)((regs_mask >> b) & 1);
			}
			u->reg_at[r] = (int8_t)at;
		}
		u->reg_at_mask = regs_mask;
		u->reg_at_set = true;
	}
	for (int r = 0; r < NREGS; r++) {
		int at = u->reg_at[r];
		if (at >= 0 && (uint32_t)at < s->regs_user_nr) {
			st.regs[r] = s->regs_user[at];
			st.valid |= 1u << r;
		}
	}
	if (!(st.valid & (1u << REG_RA)) || !(st.valid & (1u << REG_SP)))
		return 0;
	st.pc = st.regs[REG_RA];
	st.pc_set = true;
	uint64_t copied = !s->stack_user ? 0
			  : s->stack_user_dyn_size < s->stack_user_size ? s->stack_user_dyn_size
									: s->stack_user_size;
	if (u->stack_limit && copied > u->stack_limit)
		copied = u->stack_limit;
	struct stackmem m = stackmem_init(st.regs[REG_SP], s->stack_user, copied);
	u->st.unwinds++;
	int n = 0;
	/* the frame and its caller, swapped at each step (not copied) */
	struct ustate other;
	struct ustate *cur = &st, *next = &other;
	while (n < max) {
		m.above = false;
		bool ok = step(u, proc, cur, &m, next);
		bool act = cur->initial || cur->signal || (ok && next->pc_set && next->signal);
		out[n].pc = act ? cur->pc : cur->pc - 1;
		out[n].activation = act;
		out[n].copy_end = false;
		/* the caller's stack pointer is this frame's CFA (every rule
		 * sets it so; the rbp chain: rbp + 16), known even when the
		 * return address beside it was beyond the copy */
		out[n].cfa = (next->valid & (1u << REG_SP)) && !next->by_fp ? next->regs[REG_SP] : 0;
		/* step looked up cur's pc - 1 for a caller, its pc else; the
		 * reported pc differs only for a caller of a signal frame */
		out[n].map_set = u->seen_pc == out[n].pc;
		out[n].dso_set = out[n].map_set && u->seen_dso_set;
		out[n].map = out[n].map_set ? u->seen_map : NULL;
		out[n].dso = out[n].dso_set ? u->seen_dso : NULL;
		out[n].sym_set = out[n].dso_set && u->seen_sym_set;
		out[n].sym = out[n].sym_set ? u->seen_sym : NULL;
		n++;
		if (!ok || !next->pc_set) {
			out[n - 1].copy_end = m.above && (cur->valid & (1u << REG_SP));
			break;
		}
		/* no progress: a loop in broken CFI */
		if (next->pc == cur->pc && (next->valid & (1u << REG_SP)) &&
		    next->regs[REG_SP] == (cur->valid & (1u << REG_SP) ? cur->regs[REG_SP] : 0))
			break;
		struct ustate *t = cur;
		cur = next;
		next = t;
	}
	u->st.frames += (uint64_t)n;
	return n;
}
