/*
 * disasm.h: one machine instruction as text, spelled as objdump spells it.
 *
 * The decoding is Capstone's (a maintained disassembler, BSD licensed, one
 * call per instruction, no subprocess). Capstone's own text differs from
 * objdump's in many spellings (AT&T size suffixes on every instruction,
 * "$5" for "$0x5", "(%rax, %rdx)" for "(%rax,%rdx,1)"), and users compare
 * annotate's text with objdump's and perf's, so the text is printed here
 * from Capstone's operand details, in objdump's rules: AT&T (default) or
 * Intel (objdump -M intel), hexadecimal immediates cut to the operand's
 * size, a size suffix only where no register operand gives the size,
 * explicit scale and zero displacements where the encoding has them.
 *
 * Architectures: x86-64 now. Anything else makes disasm_new fail with the
 * reason ("cannot disassemble aarch64 code: x86-64 only"); the caller
 * still shows addresses. Nothing here assumes the host's architecture.
 */
#ifndef SCORCH_DISASM_H
#define SCORCH_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct disasm;

/* What an instruction refers to besides its text: a branch or call target
 * (objdump then prints "<sym+off>" after it) or a RIP-relative address
 * (printed as a comment, "# addr <sym+off>"). */
enum disasm_ref { DISASM_REF_NONE, DISASM_REF_BRANCH, DISASM_REF_RIP };

struct disasm_insn {
	uint32_t size;          /* bytes; 0: no instruction here (bad bytes) */
	char text[160];         /* "mov    %ecx,%eax" */
	enum disasm_ref ref;
	uint64_t ref_addr;      /* svma the instruction refers to */
};

/* A disassembler for ELF machine e_machine (EM_X86_64) and syntax (intel:
 * objdump -M intel, else AT&T). NULL with why filled when the architecture
 * cannot be disassembled (or Capstone fails). */
struct disasm *disasm_new(unsigned e_machine, bool intel, char *why, size_t why_len);
void disasm_free(struct disasm *d);

/* Decode the instruction at code[0..n) (its address: addr, svma) into
 * *out. out->size 0: the bytes are no instruction (out->text "(bad)"). */
void disasm_one(struct disasm *d, const uint8_t *code, size_t n, uint64_t addr,
		struct disasm_insn *out);

/* "aarch64" for EM_AARCH64: the architecture's name in messages. */
const char *disasm_arch_name(unsigned e_machine);

#endif
