/* test_disasm.c: instruction text as objdump 2.40 prints it (AT&T and
 * -M intel), from bytes whose objdump text is written beside them, and the
 * one-line refusal for an architecture other than x86-64. */
#include "test.h"
#include "output/disasm.h"
#include <elf.h>
#include <string.h>

struct dcase {
	const char *bytes; /* hex */
	uint64_t addr;
	const char *att, *intel;
};

static const struct dcase cases[] = {
	{ "89c8", 0x11a0, "mov    %ecx,%eax", "mov    eax,ecx" },
	{ "c1e00d", 0x11a2, "shl    $0xd,%eax", "shl    eax,0xd" },
	{ "8d0c10", 0x11b5, "lea    (%rax,%rdx,1),%ecx", "lea    ecx,[rax+rdx*1]" },
	{ "75e1", 0x11bd, "jne    11a0", "jne    11a0" },
	{ "0f1f440000", 0x119b, "nopl   0x0(%rax,%rax,1)", "nop    DWORD PTR [rax+rax*1+0x0]" },
	{ "662e0f1f840000000000", 0x10c2, "cs nopw 0x0(%rax,%rax,1)", "cs nop WORD PTR [rax+rax*1+0x0]" },
	{ "6690", 0x1046, "xchg   %ax,%ax", "xchg   ax,ax" },
	{ "93", 0x1000, "xchg   %eax,%ebx", "xchg   ebx,eax" },
	{ "4891", 0x1000, "xchg   %rax,%rcx", "xchg   rcx,rax" },
	{ "4191", 0x1000, "xchg   %eax,%r9d", "xchg   r9d,eax" },
	{ "9c", 0x1000, "pushf", "pushf" },
	{ "9d", 0x1000, "popf", "popf" },
	{ "f20f101d330e0000", 0x11d5, "movsd  0xe33(%rip),%xmm3", "movsd  xmm3,QWORD PTR [rip+0xe33]" },
	{ "f20f2ad0", 0x11f8, "cvtsi2sd %eax,%xmm2", NULL },
	{ "c745fc00000000", 0x1000, "movl   $0x0,-0x4(%rbp)", "mov    DWORD PTR [rbp-0x4],0x0" },
	{ "4883c480", 0x1000, "add    $0xffffffffffffff80,%rsp", "add    rsp,0xffffffffffffff80" },
	{ "0fb607", 0x1000, "movzbl (%rdi),%eax", "movzx  eax,BYTE PTR [rdi]" },
	{ "4863c7", 0x1000, "movslq %edi,%rax", "movsxd rax,edi" },
	{ "4898", 0x1000, "cltq", "cdqe" },
	{ "48d1fe", 0x111f, "sar    %rsi", "sar    rsi,1" },
	{ "ffd0", 0x1000, "call   *%rax", "call   rax" },
	{ "ff25e22f0000", 0x1030, "jmp    *0x2fe2(%rip)", "jmp    QWORD PTR [rip+0x2fe2]" },
	{ "64488b042528000000", 0x1000, "mov    %fs:0x28,%rax", "mov    rax,QWORD PTR fs:0x28" },
	{ "f3c3", 0x1000, "repz ret", "repz ret" },
	{ "f348ab", 0x1000, "rep stos %rax,%es:(%rdi)", "rep stos QWORD PTR es:[rdi],rax" },
	{ "0f94c0", 0x1000, "sete   %al", "sete   al" },
	{ "0f944340", 0x1000, "sete   0x40(%rbx)", "sete   BYTE PTR [rbx+0x40]" },
	{ "c3", 0x1000, "ret", "ret" },
};

static size_t unhex(const char *h, uint8_t *out)
{
	size_t n = 0;
	for (; h[0] && h[1]; h += 2) {
		unsigned v;
		sscanf(h, "%2x", &v);
		out[n++] = (uint8_t)v;
	}
	return n;
}

TEST(disasm_objdump_text)
{
	char why[128];
	for (int intel = 0; intel < 2; intel++) {
		struct disasm *d = disasm_new(EM_X86_64, intel, why, sizeof(why));
		CHECK(d != NULL);
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			const char *want = intel ? cases[i].intel : cases[i].att;
			if (!want)
				continue;
			uint8_t b[16];
			size_t n = unhex(cases[i].bytes, b);
			struct disasm_insn in;
			disasm_one(d, b, n, cases[i].addr, &in);
			CHECK_EQ(in.size, n);
			if (strcmp(in.text, want))
				fprintf(stderr, "  %s: '%s', want '%s'\n", cases[i].bytes, in.text, want);
			CHECK(!strcmp(in.text, want));
		}
		disasm_free(d);
	}
}

TEST(disasm_refs_and_bad_bytes)
{
	char why[128];
	struct disasm *d = disasm_new(EM_X86_64, false, why, sizeof(why));
	struct disasm_insn in;
	uint8_t jne[] = { 0x75, 0xe1 };
	disasm_one(d, jne, sizeof(jne), 0x11bd, &in);
	CHECK_EQ(in.ref, DISASM_REF_BRANCH);
	CHECK_EQ(in.ref_addr, 0x11a0);
	uint8_t rip[] = { 0xf2, 0x0f, 0x10, 0x1d, 0x33, 0x0e, 0x00, 0x00 };
	disasm_one(d, rip, sizeof(rip), 0x11d5, &in);
	CHECK_EQ(in.ref, DISASM_REF_RIP);
	CHECK_EQ(in.ref_addr, 0x11d5 + 8 + 0xe33);
	/* a cut instruction and an undefined opcode */
	disasm_one(d, rip, 3, 0x11d5, &in);
	CHECK_EQ(in.size, 0);
	CHECK(!strcmp(in.text, "(bad)"));
	uint8_t ud[] = { 0x0f, 0xff };
	disasm_one(d, ud, sizeof(ud), 0, &in);
	CHECK(in.size <= 2);
	disasm_free(d);
}

TEST(disasm_other_arch_refused)
{
	char why[128];
	CHECK(disasm_new(EM_AARCH64, false, why, sizeof(why)) == NULL);
	CHECK(!strcmp(why, "cannot disassemble aarch64 code (x86-64 only)"));
	CHECK(disasm_new(0x1234, false, why, sizeof(why)) == NULL);
	CHECK(strstr(why, "ELF machine 4660") != NULL);
}
