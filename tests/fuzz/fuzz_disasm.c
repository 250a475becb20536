/*
 * fuzz_disasm.c: libFuzzer harness for annotate's instruction text
 * (output/disasm.h): the bytes of a function come from a binary the
 * recording names (untrusted). The input is a run of code, decoded as
 * annotate decodes a symbol (one instruction after another, a byte skipped
 * where none decodes), in both syntaxes; each text must be terminated and
 * each size within what was left.
 */
#include "output/disasm.h"
#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[128];
	for (int intel = 0; intel < 2; intel++) {
		struct disasm *d = disasm_new(EM_X86_64, intel, why, sizeof(why));
		if (!d)
			abort();
		for (size_t off = 0; off < size;) {
			struct disasm_insn in;
			disasm_one(d, data + off, size - off, 0x401000 + off, &in);
			if (in.size > size - off || !memchr(in.text, 0, sizeof(in.text)))
				abort();
			off += in.size ? in.size : 1;
		}
		disasm_free(d);
	}
	return 0;
}
