/*
 * fuzz_unwind.c: libFuzzer harness for the unwinder's kept rules
 * (unwind_dwarf.c: the rules entry of an image under the user's cache
 * directory is untrusted input). The input: byte 0 the number of 8-byte
 * register words (up to 17), those words, 2 bytes of the rules' length,
 * the rules (copied 8-byte aligned, as an image entry is), the rest the
 * stack copy. Rules the run would accept are applied one after the other
 * (every read of the stack copy bounds-checked: ASan).
 */
#include "analyze/unwind/unwind.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3)
		return 0;
	size_t nr = data[0] % 18, at = 1;
	if (size < at + nr * 8 + 2)
		return 0;
	const uint8_t *regs = data + at;
	at += nr * 8;
	size_t rl = (size_t)data[at] | (size_t)data[at + 1] << 8;
	at += 2;
	if (rl > size - at)
		rl = size - at;
	uint64_t *rules = malloc(rl ? rl : 8); /* 8-byte aligned */
	if (!rules)
		return 0;
	memcpy(rules, data + at, rl);
	at += rl;
	int n = unwind_kept_rules_try(rules, rl, regs, nr * 8, data + at, size - at);
	if (n < -1)
		abort();
	free(rules);
	return 0;
}
