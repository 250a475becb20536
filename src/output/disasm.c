/*
 * disasm.c: see disasm.h. Capstone decodes (detail on: operands, prefixes,
 * encoding); the text is made here, operand by operand, as objdump 2.40
 * makes it, since that is the text users hold annotate against.
 */
#include "output/disasm.h"
#include "util/xalloc.h"
#include <capstone/capstone.h>
#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct disasm {
	csh h;
	bool intel;
};

const char *disasm_arch_name(unsigned m)
{
	switch (m) {
	case EM_X86_64: return "x86-64";
	case EM_386: return "i386";
	case EM_AARCH64: return "aarch64";
	case EM_ARM: return "arm";
	case EM_RISCV: return "riscv";
	case EM_PPC64: return "ppc64";
	case EM_PPC: return "ppc";
	case EM_S390: return "s390";
	case EM_MIPS: return "mips";
	case EM_LOONGARCH: return "loongarch";
	case EM_SPARCV9: return "sparc64";
	}
	return NULL;
}

struct disasm *disasm_new(unsigned e_machine, bool intel, char *why, size_t why_len)
{
	if (e_machine != EM_X86_64) {
		const char *n = disasm_arch_name(e_machine);
		if (n)
			snprintf(why, why_len, "cannot disassemble %s code (x86-64 only)", n);
		else
			snprintf(why, why_len, "cannot disassemble code of ELF machine %u (x86-64 only)",
				 e_machine);
		return NULL;
	}
	struct disasm *d = xcalloc(1, sizeof(*d));
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &d->h) != CS_ERR_OK ||
	    cs_option(d->h, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK) {
		snprintf(why, why_len, "the disassembler (Capstone) failed to start");
		free(d);
		return NULL;
	}
	d->intel = intel;
	return d;
}

void disasm_free(struct disasm *d)
{
	if (!d)
		return;
	cs_close(&d->h);
	free(d);
}

/* ---- text ---- */

struct out {
	char *p;
	size_t n, cap;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (o->n < o->cap) {
		int k = vsnprintf(o->p + o->n, o->cap - o->n, fmt, ap);
		if (k > 0)
			o->n = o->n + (size_t)k < o->cap ? o->n + (size_t)k : o->cap - 1;
	}
	va_end(ap);
}

static uint64_t mask_of(unsigned size)
{
	return size >= 8 || !size ? ~0ull : (1ull << (size * 8)) - 1;
}

static char suffix_of(unsigned size)
{
	switch (size) {
	case 1: return 'b';
	case 2: return 'w';
	case 4: return 'l';
	case 8: return 'q';
	}
	return 0;
}

static const char *intel_size(unsigned size)
{
	switch (size) {
	case 1: return "BYTE PTR ";
	case 2: return "WORD PTR ";
	case 4: return "DWORD PTR ";
	case 8: return "QWORD PTR ";
	case 10: return "TBYTE PTR ";
	case 16: return "XMMWORD PTR ";
	case 32: return "YMMWORD PTR ";
	case 64: return "ZMMWORD PTR ";
	}
	return "";
}

static bool is_string_op(unsigned id)
{
	switch (id) {
	case X86_INS_STOSB: case X86_INS_STOSW: case X86_INS_STOSD: case X86_INS_STOSQ:
	case X86_INS_MOVSB: case X86_INS_MOVSW: case X86_INS_MOVSQ:
	case X86_INS_LODSB: case X86_INS_LODSW: case X86_INS_LODSD: case X86_INS_LODSQ:
	case X86_INS_SCASB: case X86_INS_SCASW: case X86_INS_SCASD: case X86_INS_SCASQ:
	case X86_INS_CMPSB: case X86_INS_CMPSW: case X86_INS_CMPSQ:
		return true;
	}
	return false;
}

/* A signed displacement as objdump writes it: "-0x8", "0x10". */
static void put_disp(struct out *o, int64_t v)
{
	if (v < 0)
		put(o, "-0x%llx", (unsigned long long)-(uint64_t)v);
	else
		put(o, "0x%llx", (unsigned long long)v);
}

struct insn_ctx {
	csh h;
	const cs_insn *in;
	const cs_x86 *x;
	bool string_op;
	bool branch;        /* relative jump/call: the immediate is a target */
	bool indirect;      /* jmp/call through a register or memory: '*' */
	bool implicit_one;  /* D0/D1 shifts: the 1 is implicit (AT&T omits it) */
};

static const char *seg_for(const struct insn_ctx *c, const cs_x86_op *op)
{
	/* in 64-bit code only %fs and %gs are segments objdump prints in the
	 * operand; the others are prefix words (prefixes()) */
	if (op->mem.segment == X86_REG_FS || op->mem.segment == X86_REG_GS)
		return cs_reg_name(c->h, op->mem.segment);
	if (c->string_op)
		return op->mem.base == X86_REG_RDI || op->mem.base == X86_REG_EDI ? "es" : "ds";
	return NULL;
}

static void att_operand(struct out *o, const struct insn_ctx *c, const cs_x86_op *op)
{
	switch (op->type) {
	case X86_OP_REG: {
		const char *r = cs_reg_name(c->h, op->reg);
		if (c->indirect)
			put(o, "*");
		put(o, "%%%s", r);
		break;
	}
	case X86_OP_IMM:
		if (c->branch) {
			put(o, "%llx", (unsigned long long)op->imm);
		} else {
			put(o, "$0x%llx", (unsigned long long)((uint64_t)op->imm & mask_of(op->size)));
		}
		break;
	case X86_OP_MEM: {
		const x86_op_mem *m = &op->mem;
		if (c->indirect)
			put(o, "*");
		const char *seg = seg_for(c, op);
		if (seg)
			put(o, "%%%s:", seg);
		bool regs = m->base != X86_REG_INVALID || m->index != X86_REG_INVALID;
		if (!regs) {
			put(o, "0x%llx", (unsigned long long)(uint64_t)m->disp);
			break;
		}
		if (m->disp || c->x->encoding.disp_size)
			put_disp(o, m->disp);
		put(o, "(");
		if (m->base != X86_REG_INVALID)
			put(o, "%%%s", cs_reg_name(c->h, m->base));
		if (m->index != X86_REG_INVALID)
			put(o, ",%%%s,%d", cs_reg_name(c->h, m->index), m->scale);
		put(o, ")");
		break;
	}
	default:
		break;
	}
}

/* The address an operand refers to, whatever the syntax: a branch's
 * target, or what a RIP-relative operand points at (the next
 * instruction's address plus the displacement). */
static void operand_ref(const struct insn_ctx *c, const cs_x86_op *op, struct disasm_insn *di)
{
	if (op->type == X86_OP_IMM && c->branch) {
		di->ref = DISASM_REF_BRANCH;
		di->ref_addr = (uint64_t)op->imm;
	} else if (op->type == X86_OP_MEM && op->mem.base == X86_REG_RIP) {
		di->ref = DISASM_REF_RIP;
		di->ref_addr = c->in->address + c->in->size + (uint64_t)op->mem.disp;
	}
}

static void intel_operand(struct out *o, const struct insn_ctx *c, const cs_x86_op *op)
{
	switch (op->type) {
	case X86_OP_REG:
		put(o, "%s", cs_reg_name(c->h, op->reg));
		break;
	case X86_OP_IMM:
		if (c->branch) {
			put(o, "%llx", (unsigned long long)op->imm);
		} else if (c->implicit_one) {
			put(o, "1");
		} else {
			put(o, "0x%llx", (unsigned long long)((uint64_t)op->imm & mask_of(op->size)));
		}
		break;
	case X86_OP_MEM: {
		const x86_op_mem *m = &op->mem;
		if (c->in->id != X86_INS_LEA)
			put(o, "%s", intel_size(op->size));
		const char *seg = seg_for(c, op);
		bool regs = m->base != X86_REG_INVALID || m->index != X86_REG_INVALID;
		if (!regs) {
			put(o, "%s:0x%llx", seg ? seg : "ds", (unsigned long long)(uint64_t)m->disp);
			break;
		}
		if (seg)
			put(o, "%s:", seg);
		put(o, "[");
		bool any = false;
		if (m->base != X86_REG_INVALID) {
			put(o, "%s", cs_reg_name(c->h, m->base));
			any = true;
		}
		if (m->index != X86_REG_INVALID) {
			put(o, "%s%s*%d", any ? "+" : "", cs_reg_name(c->h, m->index), m->scale);
			any = true;
		}
		if (m->disp || c->x->encoding.disp_size) {
			if (m->disp < 0 && m->base != X86_REG_RIP)
				put(o, "-0x%llx", (unsigned long long)-(uint64_t)m->disp);
			else
				put(o, "%s0x%llx", any ? "+" : "", (unsigned long long)m->disp);
		}
		put(o, "]");
		break;
	}
	default:
		break;
	}
}

/* The AT&T mnemonic objdump uses where it differs from the Intel one
 * (sign and zero extensions name both sizes; the accumulator extensions
 * have their own names). NULL: the same. */
static const char *att_name(const struct insn_ctx *c, char *buf, size_t len)
{
	const cs_x86 *x = c->x;
	switch (c->in->id) {
	case X86_INS_CDQE: return "cltq";
	case X86_INS_CQO: return "cqto";
	case X86_INS_CDQ: return "cltd";
	case X86_INS_CWDE: return "cwtl";
	case X86_INS_CWD: return "cwtd";
	case X86_INS_CBW: return "cbtw";
	case X86_INS_MOVSXD:
	case X86_INS_MOVSX:
	case X86_INS_MOVZX:
		if (x->op_count == 2) {
			char s = suffix_of(x->operands[1].size), dd = suffix_of(x->operands[0].size);
			if (s && dd) {
				snprintf(buf, len, "mov%c%c%c", c->in->id == X86_INS_MOVZX ? 'z' : 's', s,
					 dd);
				return buf;
			}
		}
		return NULL;
	}
	return NULL;
}

/* Whether objdump adds a size suffix in AT&T: a memory operand whose size
 * no register operand tells, outside the instructions that never take one. */
static char att_suffix(const struct insn_ctx *c)
{
	const cs_x86 *x = c->x;
	unsigned id = c->in->id;
	int mem = -1;
	bool reg = false;
	for (unsigned i = 0; i < x->op_count; i++) {
		if (x->operands[i].type == X86_OP_MEM && mem < 0)
			mem = (int)i;
		if (x->operands[i].type == X86_OP_REG)
			reg = true;
	}
	if (id == X86_INS_CVTSI2SD || id == X86_INS_CVTSI2SS || id == X86_INS_VCVTSI2SD ||
	    id == X86_INS_VCVTSI2SS)
		return mem >= 0 ? suffix_of(x->operands[mem].size) : 0;
	if (mem < 0 || reg || c->indirect || c->branch || !strncmp(c->in->mnemonic, "set", 3))
		return 0;
	switch (id) {
	case X86_INS_LEA: case X86_INS_PUSH: case X86_INS_POP:
	case X86_INS_PREFETCH: case X86_INS_PREFETCHT0: case X86_INS_PREFETCHT1:
	case X86_INS_PREFETCHT2: case X86_INS_PREFETCHNTA: case X86_INS_PREFETCHW:
	case X86_INS_CLFLUSH: case X86_INS_FXSAVE: case X86_INS_FXRSTOR: case X86_INS_XSAVE:
	case X86_INS_XRSTOR: case X86_INS_LDMXCSR: case X86_INS_STMXCSR: case X86_INS_XSAVEC:
	case X86_INS_XSAVEOPT: case X86_INS_XSAVES: case X86_INS_XRSTORS:
		return 0;
	}
	/* x87 memory forms: s(ingle), l(ong double word), t(en bytes), and
	 * the integer loads and stores */
	const char *mn = c->in->mnemonic;
	if (mn[0] == 'f') {
		unsigned sz = x->operands[mem].size;
		bool integer = mn[1] == 'i';
		if (integer)
			return sz == 2 ? 's' : sz == 4 ? 'l' : sz == 8 ? 'q' : 0;
		return sz == 4 ? 's' : sz == 8 ? 'l' : sz == 10 ? 't' : 0;
	}
	return suffix_of(x->operands[mem].size);
}

/* The prefix words objdump prints before a mnemonic, from the bytes before
 * the opcode ("data16 cs nopw", "lock", "rep", "notrack"). */
static void prefixes(struct out *o, const struct insn_ctx *c, const char **mnem)
{
	const cs_insn *in = c->in;
	const char *mn = *mnem;
	/* Capstone spells the lock and repeat prefixes into the mnemonic */
	for (;;) {
		const char *sp = strchr(mn, ' ');
		if (!sp)
			break;
		size_t n = (size_t)(sp - mn);
		bool scan = c->in->id >= X86_INS_SCASB && c->in->id <= X86_INS_SCASW;
		bool cmp = c->in->id == X86_INS_CMPSB || c->in->id == X86_INS_CMPSW ||
			   c->in->id == X86_INS_CMPSQ;
		if (n == 5 && !strncmp(mn, "repne", 5))
			put(o, "repnz ");
		else if ((n == 4 && !strncmp(mn, "repe", 4)) ||
			 (n == 3 && !strncmp(mn, "rep", 3) && (scan || cmp)))
			put(o, "repz ");
		else
			put(o, "%.*s ", (int)n, mn);
		mn = sp + 1;
	}
	*mnem = mn;
	if (in->id == X86_INS_RET && in->bytes[0] == 0xf3)
		put(o, "repz ");
	if (in->id == X86_INS_NOP) {
		unsigned n66 = 0;
		bool cs = false;
		for (unsigned i = 0; i < in->size && i < 15; i++) {
			if (in->bytes[i] == 0x66)
				n66++;
			else if (in->bytes[i] == 0x2e)
				cs = true;
			else
				break;
		}
		for (unsigned i = 1; i < n66; i++)
			put(o, "data16 ");
		if (cs)
			put(o, "cs ");
	}
	if ((in->id == X86_INS_JMP || in->id == X86_INS_CALL) && c->indirect && in->bytes[0] == 0x3e)
		put(o, "notrack ");
}

void disasm_one(struct disasm *d, const uint8_t *code, size_t n, uint64_t addr,
		struct disasm_insn *di)
{
	memset(di, 0, sizeof(*di));
	cs_insn *in = NULL;
	if (cs_disasm(d->h, code, n, addr, 1, &in) != 1) {
		snprintf(di->text, sizeof(di->text), "(bad)");
		return;
	}
	di->size = in->size;
	struct insn_ctx c = { .h = d->h, .in = in, .x = &in->detail->x86 };
	const cs_x86 *x = c.x;
	c.string_op = is_string_op(in->id) ||
		      (in->id == X86_INS_MOVSD && x->op_count == 2 &&
		       x->operands[0].type == X86_OP_MEM && x->operands[1].type == X86_OP_MEM);
	bool jmp_call = cs_insn_group(d->h, in, CS_GRP_JUMP) || cs_insn_group(d->h, in, CS_GRP_CALL);
	c.branch = cs_insn_group(d->h, in, CS_GRP_BRANCH_RELATIVE) ||
		   (jmp_call && x->op_count == 1 && x->operands[0].type == X86_OP_IMM);
	c.indirect = jmp_call && !c.branch && !d->intel;
	c.implicit_one = (x->opcode[0] == 0xd0 || x->opcode[0] == 0xd1) && x->op_count == 2 &&
			 x->operands[1].type == X86_OP_IMM && x->operands[1].imm == 1;

	struct out o = { .p = di->text, .cap = sizeof(di->text) };
	char mbuf[32];
	struct out m = { .p = mbuf, .cap = sizeof(mbuf) };
	const char *mn = in->mnemonic;
	prefixes(&m, &c, &mn);
	if (in->id == X86_INS_NOP && in->size == 2 && in->bytes[0] == 0x66 && in->bytes[1] == 0x90) {
		/* objdump's name of the two-byte nop */
		snprintf(di->text, sizeof(di->text), d->intel ? "xchg   ax,ax" : "xchg   %%ax,%%ax");
		cs_free(in, 1);
		return;
	}
	/* objdump names the flags pushes without a size in 64-bit code */
	if (in->id == X86_INS_PUSHFQ)
		mn = "pushf";
	else if (in->id == X86_INS_POPFQ)
		mn = "popf";
	if (d->intel) {
		if (c.string_op) {
			put(&m, "%.*s", (int)strlen(mn) - 1, mn);
		} else {
			put(&m, "%s", mn);
		}
	} else {
		char nb[16];
		const char *an = att_name(&c, nb, sizeof(nb));
		if (an) {
			put(&m, "%s", an);
		} else {
			size_t len = strlen(mn);
			if (c.string_op)
				len--;
			put(&m, "%.*s", (int)len, mn);
			char s = att_suffix(&c);
			if (s)
				put(&m, "%c", s);
		}
	}
	unsigned nops = x->op_count;
	if (c.implicit_one && !d->intel)
		nops = 1;
	/* xchg with the accumulator, one-byte form (0x91-0x97): objdump puts
	 * the register of the opcode first in Intel order, Capstone second */
	bool swap = in->id == X86_INS_XCHG && x->opcode[0] >= 0x91 && x->opcode[0] <= 0x97 &&
		    nops == 2;
	if (!nops) {
		put(&o, "%s", mbuf);
	} else {
		put(&o, "%-6s ", mbuf);
		for (unsigned k = 0; k < nops; k++) {
			/* AT&T: source first, the reverse of Intel's order */
			unsigned i = d->intel ? k : (c.implicit_one ? 0 : nops - 1 - k);
			if (swap)
				i = nops - 1 - i;
			if (k)
				put(&o, ",");
			if (d->intel)
				intel_operand(&o, &c, &x->operands[i]);
			else
				att_operand(&o, &c, &x->operands[i]);
			operand_ref(&c, &x->operands[i], di);
		}
	}
	cs_free(in, 1);
}
